"""Optimal control on closed loops: the problem statements, multipliers and controls.

(The four-bar and slider-crank models and their BEM = REM optima: tests/ocp/test_loop_models.py.)
"""

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.errors import ConfigurationError, NotRepresentableError
from pyomo_mbdyn.mechanics import examples
from pyomo_mbdyn.ocp import OptimalControlProblem
from pyomo_mbdyn.ocp.multipliers import bem_from_rem, controls_from_multipliers, momentum_multipliers, rem_from_bem
from pyomo_mbdyn.schemes import scheme_block

FOUR_BAR = examples.four_bar()
TARGET = 1.0


def crank_problem(scheme, steps=8, target=TARGET, solve=True):
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=FOUR_BAR, steps=steps, horizon=0.8)
    m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({"A.angle": 0.5})
    problem.fix_final_configuration({"A": target})
    problem.require_final_rest()
    if solve:
        result = problem.solve("casadi_ipopt", options={"tol": 1e-12})
        assert result.solver.termination_condition == pyo.TerminationCondition.optimal
    return m, problem


@pytest.fixture(scope="module")
def solved():
    return {scheme: crank_problem(scheme) for scheme in ("bem", "rem")}


def test_final_configuration_and_rest_in_the_independent_crank(solved):
    """The crank ends at its target in both forms, the dependent joints at the same closed
    configuration, and rest is one row (the dof), not one per tree coordinate: P(q_N)ᵀ M v_N = 0
    (issue 30: the M-orthogonal form, P = P_t N has one column per independent coordinate; the
    lifted node velocity keeps a component in M⁻¹ range(Gᵀ), which does not move the system),
    the same v_N in bem and rem."""
    finals, v_final = {}, {}
    for scheme, (m, problem) in solved.items():
        assert len(m.ocp.final_rest) == FOUR_BAR.dof == 1
        angles = problem.joint_coordinates()
        N = m.dyn.config.steps
        finals[scheme] = [pyo.value(angles[N, j]) for j in FOUR_BAR.velocities]
        assert finals[scheme][0] == pytest.approx(TARGET, abs=1e-10)
        tr = m.dyn.trajectory()
        P = np.asarray(FOUR_BAR.null_space(tr.q[-1]), float)
        assert np.abs(P.T @ FOUR_BAR.mass_matrix() @ tr.v[-1]).max() < 1e-10
        v_final[scheme] = tr.v[-1]
    assert np.allclose(finals["bem"], finals["rem"], atol=1e-10)
    assert np.abs(v_final["bem"] - v_final["rem"]).max() < 1e-9


def test_controls_and_multipliers_of_bem_and_rem_agree(solved):
    """u = -(B λ^p) (bem) = -(B P λ^p) (rem) on the loop, and λ^{BEM} = P λ^{REM}."""
    (bem, _), (rem, _) = solved["bem"], solved["rem"]
    for m in (bem, rem):
        u = m.dyn.trajectory().u
        assert np.abs(controls_from_multipliers(m.dyn) - u).max() < 1e-6 * np.abs(u).max()
    lam_bem, lam_rem = momentum_multipliers(bem.dyn), momentum_multipliers(rem.dyn)
    assert lam_rem.shape == (8, 1)
    assert np.abs(rem_from_bem(bem.dyn, lam_bem) - lam_rem).max() < 1e-6 * np.abs(lam_rem).max()
    assert np.abs(bem_from_rem(bem.dyn, lam_rem) - lam_bem).max() < 1e-6 * np.abs(lam_bem).max()


def test_a_dependent_coordinate_as_target_is_refused():
    m = pyo.ConcreteModel()
    m.dyn = scheme_block("bem", system=FOUR_BAR, steps=2, horizon=0.2)
    problem = OptimalControlProblem(m.dyn)
    with pytest.raises(ConfigurationError, match="'B.angle' is fixed by the closure of the loops"):
        problem.fix_final_configuration({"B": 0.2})
    with pytest.raises(ConfigurationError, match=r"expected 1 finite joint coordinates for \['A.angle'\]"):
        problem.fix_final_configuration([0.1, 0.2, 0.3])


@pytest.mark.parametrize("scheme", ["bem", "rem"])
def test_a_turn_of_the_loop_is_refused(scheme):
    with pytest.raises(NotRepresentableError, match="more than π from the start on a system with closed loops"):
        crank_problem(scheme, steps=2, target=4.0, solve=False)


@pytest.mark.parametrize("scheme", ["bem", "rem"])
def test_interpolated_guess_closes_the_loop_and_leads_to_the_same_optimum(scheme, solved):
    from pyomo_mbdyn.ocp import interpolated_trajectory, refined_trajectory

    m, problem = crank_problem(scheme, solve=False)
    guess = interpolated_trajectory(FOUR_BAR, m.dyn.step_length, 8, [TARGET])
    assert max(np.abs(np.asarray(FOUR_BAR.constraints(q), float)).max() for q in guess.q) < 1e-12
    assert guess.lam.shape == (8, FOUR_BAR.m_active) and guess.w.shape == (8, 3)
    m.dyn.initialize_from(guess)
    problem.solve("casadi_ipopt", options={"tol": 1e-12})
    reference = solved[scheme][0]
    J = [pyo.value(next(model.component_data_objects(pyo.Objective, active=True))) for model in (m, reference)]
    assert J[0] == pytest.approx(J[1], rel=1e-9)
    fine = refined_trajectory(FOUR_BAR, 0.05, 16, m.dyn.trajectory())
    assert max(np.abs(np.asarray(FOUR_BAR.constraints(q), float)).max() for q in fine.q) < 1e-12
    assert np.allclose(fine.q[::2], m.dyn.trajectory().q, atol=1e-9)
