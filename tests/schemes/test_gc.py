"""GC: the midpoint rule in generalised coordinates (thesis §2.5), the baseline."""

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.diagnostics import trajectory_table
from pyomo_mbdyn.simulate import simulate

from blocks import solve_block
from test_energy_momentum import double_pendulum


def _initial_state(system):
    q0 = system.reparametrise([0.3, -0.2], system.q0)
    return q0, system.null_space(q0) @ np.array([1.0, -0.5])


def test_second_order_convergence():
    system = double_pendulum()
    q0, v0 = system.q0, system.null_space(system.q0) @ np.array([1.0, -0.5])
    ref = simulate(system, q0, v0, 1.0 / 2560, 2560, scheme="gc")
    # (pre-asymptotic below N = 80: measured orders 2.4 and 1.7 from N = 20)
    errors = [np.abs(simulate(system, q0, v0, 1.0 / N, N, scheme="gc").q[-1] - ref.q[-1]).max()
              for N in (80, 160, 320)]
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(np.abs(orders - 2) < 0.15), orders
    # the chart keeps the constraints exactly
    assert trajectory_table(ref)["constraint_residual"].max() < 1e-12


def test_gc_is_not_energy_consistent_where_the_bem_is():
    system = double_pendulum()
    q0, v0 = _initial_state(system)
    drift = {}
    for h in (0.025, 0.0125):
        for scheme in ("gc", "bem"):
            table = trajectory_table(simulate(system, q0, v0, h, round(1.0 / h), scheme=scheme))
            E = (table["T"] + table["V"]).to_numpy()
            drift[scheme, h] = np.abs(E - E[0]).max()
    # measured over 1 s (E ≈ 5.75): GC 0.24 and 0.063, BEM at round-off
    assert drift["gc", 0.025] > 0.1 and drift["gc", 0.0125] > 0.02
    assert drift["gc", 0.025] / drift["gc", 0.0125] > 3  # an O(h²) error
    assert drift["bem", 0.025] < 1e-11 and drift["bem", 0.0125] < 1e-11


@pytest.mark.parametrize("configurations", ["chart", "lifted"])
def test_block_solved_by_ipopt_equals_the_stepper_in_both_forms(configurations):
    system = double_pendulum()
    system.actuate("elbow")
    system.add_friction("shoulder", 0.5)
    q0, v0 = _initial_state(system)
    steps, h = 6, 0.05
    U = np.sin(np.arange(steps))[:, None]
    reference = simulate(system, q0, v0, h, steps, U, scheme="gc")
    guess = simulate(system, q0, v0, h, steps, U, scheme="bem")
    assert np.abs(guess.q - reference.q).max() > 1e-4
    _, q, v, u, nu = solve_block("gc", system, q0, v0, steps, h, U, guess, configurations=configurations)
    assert np.abs(q - reference.q).max() < 1e-10
    assert np.abs(v - reference.v).max() < 1e-10
    assert np.abs(nu - reference.nu).max() < 1e-10


def test_chart_form_carries_only_chart_unknowns_and_solves_the_arm_as_the_lifted_form():
    """The arm OCP (N = 20) in both forms: the same optimum and trajectory; the
    chart form's NLP has θ, ṽ at nodes 1..N and ν, u per interval only."""
    from pyomo_mbdyn.models import three_link_arm

    results = {}
    for form in ("chart", "lifted"):
        m = three_link_arm.build("gc", steps=20, configurations=form)
        assert m.dyn.configurations == form
        opt = pyo.SolverFactory("casadi_ipopt")
        opt.options["tol"] = 1e-10
        assert str(opt.solve(m).solver.termination_condition) == "optimal"
        results[form] = (pyo.value(m.problem.objective if hasattr(m.problem, "objective") else
                                   next(m.component_data_objects(pyo.Objective))), m.dyn.trajectory(),
                         opt._nlp.n_var)
    (J_chart, tr_chart, n_chart), (J_lifted, tr_lifted, n_lifted) = results["chart"], results["lifted"]
    assert J_chart == pytest.approx(J_lifted, rel=1e-10)
    for name in ("q", "v", "u", "nu"):
        np.testing.assert_allclose(getattr(tr_chart, name), getattr(tr_lifted, name), atol=1e-8)
    dof, n_act, N = 3, 3, 20
    assert n_chart <= N * (2 * dof) + N * (dof + n_act)  # θ_N fixed by the final condition
    assert n_lifted > 5 * n_chart
