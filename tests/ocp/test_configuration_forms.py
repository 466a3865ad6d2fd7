"""The OCP on the schemes' configuration forms: lifted, minimal and absolute give one optimum.

Spec dmocc.md §7 (basis and reparametrisation freedom): the same (q_n, τ_n)
and J_d whatever the reparametrisation.  The three-link arm (thesis E3) at
N = 10, final configuration and rest imposed in each form's regular way:
Σ_k w_k = Δθ (relative forms), q_N fixed (BEM lifted), θ_N fixed (absolute
form).  DMOCC's forms, and the energy-momentum schemes' (BEM and REM, lifted
and absolute: BEM = REM to round-off in every form).
"""

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.models import three_link_arm as arm
from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
from pyomo_mbdyn.schemes import scheme_block

STEPS = 10


def arm_problem(configurations, scheme="dmocc"):
    system = arm.build_system()
    m = pyo.ConcreteModel(configurations)
    m.dyn = scheme_block(scheme, system=system, steps=STEPS, horizon=arm.HORIZON,
                         configurations=configurations)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({name: 0.5 for name in m.dyn.actuated})
    theta_f = arm.ALPHAF - arm.ALPHA0
    problem.fix_final_configuration(theta_f)
    problem.require_final_rest()
    m.dyn.initialize_from(interpolated_trajectory(system, m.dyn.h, STEPS, theta_f))
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.options["tol"] = 1e-10
    result = opt.solve(m)
    assert result.solver.termination_condition == pyo.TerminationCondition.optimal, (scheme, configurations)
    return m


@pytest.fixture(scope="module")
def lifted():
    return arm_problem("lifted")


@pytest.mark.parametrize("form", ["minimal", "absolute"])
def test_forms_reach_the_lifted_optimum(lifted, form):
    other = arm_problem(form)
    J, J_ref = pyo.value(other.ocp.control_effort), pyo.value(lifted.ocp.control_effort)
    assert abs(J - J_ref) < 1e-8 * J_ref
    tr_other = other.dyn.trajectory()
    q, u = tr_other.q, tr_other.u
    tr_lifted = lifted.dyn.trajectory()
    q_ref, u_ref = tr_lifted.q, tr_lifted.u
    assert np.abs(q - q_ref).max() < 1e-6
    assert np.abs(u - u_ref).max() < 1e-6 * np.abs(u_ref).max()


def test_absolute_form_fixes_the_final_chart_coordinates():
    m = pyo.ConcreteModel()
    m.dyn = scheme_block("dmocc", system=arm.build_system(), steps=4, horizon=1.0, configurations="absolute")
    problem = OptimalControlProblem(m.dyn)
    theta_f = arm.ALPHAF - arm.ALPHA0
    problem.fix_final_configuration(theta_f)
    assert [m.dyn.theta[4, j].value for j in m.dyn.velocities] == pytest.approx(list(theta_f), abs=0)
    assert all(m.dyn.theta[4, j].fixed for j in m.dyn.velocities)
    problem.bound_rotation_increments(0.5)
    rows = problem.block.rotation_increment
    assert len(rows) == 4 * len(m.dyn.velocities)
    assert all(rows[i, j].lower == -0.5 and rows[i, j].upper == 0.5 for i, j in rows)


@pytest.fixture(scope="module")
def rem_lifted():
    return arm_problem("lifted", "rem")


@pytest.mark.parametrize("scheme, form", [("rem", "absolute"), ("bem", "lifted"), ("bem", "absolute")])
def test_energy_momentum_forms_reach_the_rem_optimum(rem_lifted, scheme, form):
    """BEM = REM to round-off, with node configurations as variables or as the
    absolute chart: the same J, node configurations, velocities and controls."""
    other = arm_problem(form, scheme)
    J, J_ref = pyo.value(other.ocp.control_effort), pyo.value(rem_lifted.ocp.control_effort)
    assert abs(J - J_ref) < 1e-10 * J_ref
    tr, ref = other.dyn.trajectory(), rem_lifted.dyn.trajectory()
    assert np.abs(tr.q - ref.q).max() < 1e-8
    assert np.abs(tr.v - ref.v).max() < 1e-8 * np.abs(ref.v).max()
    assert np.abs(tr.u - ref.u).max() < 1e-8 * np.abs(ref.u).max()
    if form == "absolute":
        assert all(other.dyn.theta[STEPS, j].fixed for j in other.dyn.velocities)
