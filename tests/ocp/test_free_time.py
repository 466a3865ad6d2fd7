"""Free final time: h = T/N as a decision variable in every scheme, and time-optimal control.

The closed-form checks are those of the model ``minimum-time-mass``
(:mod:`pyomo_mbdyn.models.minimum_time_mass`): a slider of mass m moved rest
to rest over d with |u| ≤ U reaches T* = 2√(md/U) with bang-bang control;
every scheme integrates piecewise-constant forces exactly, so for even N the
discrete optimum is T* to solver tolerance, and for odd N (switch inside an
interval) it is strictly larger.  With J = h Σ ½|u|² + c T and no bounds,
T* = (18 m² d²/c)^(1/4) is reached with the scheme's second-order error.
At the optimum the schemes keep their balance laws with h unknown: the
momentum along the slide changes by exactly the applied impulse h u_k per
step (all schemes), and T + V + W is constant (bem, rem).
"""

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.mechanics import HamiltonianSystem
from pyomo_mbdyn.models import minimum_time_mass as mtm
from pyomo_mbdyn.models import three_link_arm as arm
from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
from pyomo_mbdyn.ocp.dnco import dnco_model
from pyomo_mbdyn.schemes import scheme_block

TOL = 1e-10


def solve(m):
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.options["tol"] = TOL
    result = opt.solve(m)
    assert result.solver.termination_condition == pyo.TerminationCondition.optimal
    return m


@pytest.mark.parametrize("scheme", mtm.SCHEMES)
def test_minimum_time_is_exact_for_even_steps(scheme):
    m = solve(mtm.build(scheme, steps=12))
    T = m.dyn.final_time_value
    assert abs(T - mtm.minimum_time()) < 1e-7
    u = m.dyn.trajectory().u[:, 0]
    # bang-bang: the applied force pushes with +U on the first half and brakes with -U after
    assert np.allclose(u[:6], mtm.FORCE_LIMIT, atol=1e-5) and np.allclose(u[6:], -mtm.FORCE_LIMIT, atol=1e-5)


@pytest.mark.parametrize("scheme", mtm.MULTIBODY_SCHEMES)
def test_balance_laws_hold_with_free_step(scheme):
    m = solve(mtm.build(scheme, steps=12))
    tr = m.dyn.trajectory()
    h = m.dyn.step_length
    assert h == pytest.approx(mtm.minimum_time() / 12, rel=1e-6)
    assert np.allclose(tr.t, h * np.arange(13), rtol=0, atol=1e-15)
    # the momentum along the slide changes by the impulse of the applied force u
    p = mtm.MASS * tr.v[:, 0]  # x-velocity of the body's centre
    assert np.abs(np.diff(p) - h * tr.u[:, 0]).max() < 1e-8
    if scheme in ("bem", "rem"):
        E = m.dyn.diagnostics()["E"].to_numpy()
        assert np.ptp(E) < 1e-8 * max(1.0, np.abs(E).max())


@pytest.mark.parametrize("scheme, form", [("bem", "absolute"), ("rem", "absolute"), ("dmocc", "absolute"),
                                          ("dmocc", "minimal"), ("gc", "lifted")])
def test_every_configuration_form_takes_a_free_horizon(scheme, form):
    m = solve(mtm.build(scheme, steps=12, configurations=form))
    assert m.dyn.configurations == form
    assert abs(m.dyn.final_time_value - mtm.minimum_time()) < 1e-7


@pytest.mark.parametrize("gradient", ["midpoint", "gonzalez"])
def test_dnco_direct_energy_identity_with_free_step(gradient):
    """The discrete-gradient identity H_{k+1} - H_k = u_k·Δq_k holds with h unknown."""
    m = solve(mtm.build(f"direct-{gradient}", steps=12))
    E = m.dyn.diagnostics()["E"].to_numpy()
    assert np.ptp(E) < 1e-10 * max(1.0, np.abs(E).max())


def test_odd_steps_cannot_switch_at_half_time():
    m = solve(mtm.build("bem", steps=11))
    assert m.dyn.final_time_value > mtm.minimum_time() + 1e-3


@pytest.mark.parametrize("scheme", ["bem", "dmocc", "gc", "direct-midpoint"])
def test_effort_plus_time_converges_at_second_order(scheme):
    exact = mtm.effort_time_optimum()
    errors = [solve(mtm.build(scheme, steps=n, objective="effort+time")).dyn.final_time_value - exact
              for n in (10, 20, 40)]
    ratios = [errors[0] / errors[1], errors[1] / errors[2]]
    assert all(3.8 < r < 4.2 for r in ratios), (errors, ratios)
    assert abs(errors[-1]) < 1e-3


def test_combined_objective_is_one_active_objective():
    m = mtm.build("rem", objective="effort+time")
    active = list(m.component_data_objects(pyo.Objective, active=True))
    assert active == [m.ocp.objective]
    assert not m.ocp.control_effort.active
    solve(m)
    T = m.dyn.final_time_value
    assert pyo.value(m.ocp.objective) == pytest.approx(pyo.value(m.ocp.control_effort) + mtm.TIME_WEIGHT * T,
                                                       rel=1e-12)


def _arm(free, steps=10):
    system = arm.build_system()
    m = pyo.ConcreteModel()
    options = {"free_horizon": (1.0, 5.0)} if free else {}
    m.dyn = scheme_block("rem", system=system, steps=steps, horizon=arm.HORIZON, configurations="absolute",
                         **options)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({a: 0.5 for a in m.dyn.actuated})
    theta_f = arm.ALPHAF - arm.ALPHA0
    problem.fix_final_configuration(theta_f)
    problem.require_final_rest()
    m.dyn.initialize_from(interpolated_trajectory(system, m.dyn.h, steps, theta_f))
    return m, problem


def test_free_block_with_fixed_final_time_is_the_fixed_block():
    fixed, _ = _arm(free=False)
    free, _ = _arm(free=True)
    free.dyn.final_time.fix(arm.HORIZON)
    solve(fixed), solve(free)
    J, J_free = pyo.value(fixed.ocp.control_effort), pyo.value(free.ocp.control_effort)
    assert abs(J - J_free) < 1e-9 * J
    assert np.allclose(fixed.dyn.trajectory().q, free.dyn.trajectory().q, atol=1e-8)


def test_longer_free_time_lowers_the_effort():
    """Effort falls as T grows: with T free in [1, 4] the optimum sits on the upper bound.

    At N = 20: at N = 10 the problem also has a local optimum inside, T = 3.34 with
    J = 555 663 (its joint angles jump by 2.5 rad between nodes: the grid does not
    resolve it; a KKT point of the flat NLP as well), and which of the two IPOPT
    reaches depends on the round-off of the derivatives.  From N = 20 on (20, 30, 40
    measured) every path ends on the bound."""
    free, problem = _arm(free=True, steps=20)
    problem.free_final_time(1.0, 4.0)
    solve(free)
    assert free.dyn.final_time_value == pytest.approx(4.0, abs=1e-6)
    fixed, _ = _arm(free=False, steps=20)
    solve(fixed)
    assert pyo.value(free.ocp.control_effort) < pyo.value(fixed.ocp.control_effort)


def test_free_time_errors_name_the_option():
    fixed, problem = _arm(free=False)
    with pytest.raises(ConfigurationError, match="free_horizon"):
        problem.free_final_time(1.0, 4.0)
    with pytest.raises(ConfigurationError, match="free_horizon"):
        problem.minimise_final_time()
    free, problem = _arm(free=True)
    with pytest.raises(ConfigurationError, match="lower < upper"):
        problem.free_final_time(4.0, 1.0)
    with pytest.raises(ConfigurationError, match="weight"):
        problem.minimise_final_time(-1.0)
    m = pyo.ConcreteModel()
    with pytest.raises(ConfigurationError, match="outside free_horizon"):
        m.dyn = scheme_block("bem", system=arm.build_system(), steps=4, horizon=3.0, free_horizon=(0.5, 2.0))
    m = pyo.ConcreteModel()
    with pytest.raises(ConfigurationError, match="free_horizon"):
        m.dyn = scheme_block("bem", system=arm.build_system(), steps=4, horizon=3.0, free_horizon=(2.0, float("nan")))
    with pytest.raises(ConfigurationError, match="method='direct'"):
        dnco_model(HamiltonianSystem(1, lambda q: [[1.0]], lambda q: 0.0 * q[0]), "dnco", 4, 1.0,
                   free_horizon=(0.5, 2.0), initial_position=[0.0], final_position=[1.0])
