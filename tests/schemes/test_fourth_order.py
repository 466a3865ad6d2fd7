"""The fourth-order schemes (Lobatto IIIA–IIIB in natural and in chart coordinates, cG(2)):
their order where users meet it.

Acceptance of issue 33: the error of a forward simulation's final state and the
error of the arm's optimal cost fall by ≈ 16 per halving of h (fitted order ≥ 3.8),
on the arm, the satellite and a closed loop; Lobatto's energy error is bounded and
falls as h⁴ (cG(2)'s is round-off: the registry battery); the duals of Lobatto's
momentum balance converge at the same order and obey the control equation of the
continuous problem (the discretisation is adjoint-consistent, Ober-Blöbaum, Junge &
Marsden 2011).  The reference of each forward order fit is the same scheme at 4× the
finest N (its error 4⁴ = 256× smaller); the optimal costs are compared by successive
differences (Lobatto) or against the J* those give (cG(2)).

The velocities compared are the generalised velocities ν = (PᵀMP)⁻¹PᵀM v, the
M-orthogonal projection onto the tangent space: cG(2)'s node velocities keep an O(h²)
component normal to the constraint manifold (Gauss collocation of the index-2 system;
it does no work and carries no momentum), Lobatto's are tangent.
"""

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.discretization.common import numeric_kinematics
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.mechanics import examples
from pyomo_mbdyn.models import four_bar, satellite, three_link_arm
from pyomo_mbdyn.simulate import simulate

from test_registry import _controls, free_pair


def fitted_order(steps, errors):
    """The slope of log(error) against log(h) by least squares."""
    return -np.polyfit(np.log(steps), np.log(errors), 1)[0]


def _rates(system, q, v):
    """ν = (PᵀMP)⁻¹PᵀM v: the generalised velocities of the tangent part of v."""
    P = np.asarray(system.null_space(q), float)
    M = np.asarray(system.mass_matrix(), float)
    return np.linalg.solve(P.T @ M @ P, P.T @ M @ v)


def _state_error(system, a, b):
    """max |q_N - q_N*| and max |ν_N - ν_N*|."""
    return max(np.abs(a.q[-1] - b.q[-1]).max(),
               np.abs(_rates(system, a.q[-1], a.v[-1]) - _rates(system, b.q[-1], b.v[-1])).max())


def _arm():
    system = three_link_arm.build_system()
    return system, system.null_space(system.q0) @ np.array([1.0, -2.0, 1.5]), 1.0


def _satellite():
    system = satellite.build_system()
    rates = np.linspace(0.6, -0.4, system.n_velocities)
    return system, system.null_space(system.q0) @ rates, 1.0


def _loop():
    system = four_bar.build_system()
    P = np.asarray(system.null_space(system.q0), float)
    return system, P @ np.ones(P.shape[1]), 0.5


@pytest.mark.parametrize("scheme", ["lobatto", "cg2"])
@pytest.mark.parametrize("make", [_arm, _satellite, _loop], ids=["arm", "satellite", "four-bar"])
def test_final_state_error_falls_as_h4(make, scheme):
    system, v0, T = make()
    steps = (10, 20, 40)
    reference = simulate(system, system.q0, v0, T / 160, 160, scheme=scheme)
    errors = [_state_error(system, simulate(system, system.q0, v0, T / N, N, scheme=scheme), reference)
              for N in steps]
    assert fitted_order(steps, errors) >= 3.8, errors


@pytest.mark.parametrize("make", [_arm, _satellite], ids=["arm", "satellite"])
def test_chart_lobatto_final_state_error_falls_as_h4(make):
    """lobatto_gc (the same pair on the chart; trees only, so no four-bar)."""
    system, v0, T = make()
    steps = (10, 20, 40)
    reference = simulate(system, system.q0, v0, T / 160, 160, scheme="lobatto_gc")
    errors = [_state_error(system, simulate(system, system.q0, v0, T / N, N, scheme="lobatto_gc"), reference)
              for N in steps]
    assert fitted_order(steps, errors) >= 3.8, errors


def test_chart_lobatto_momenta():
    """Internal torques on a free chain (the registry battery's free pair): the linear momentum
    is exact (a translation shifts the root's position coordinates: a linear symmetry of the
    chart, discrete Noether), the angular momentum drifts at fourth order (rotations act on
    the root's rotation vector nonlinearly): ratio ≈ 16 per halving of h."""
    system = free_pair()
    v0 = system.null_space(system.q0) @ np.linspace(0.5, -0.4, system.n_velocities)
    drifts = []
    for steps in (40, 80):
        h = 2.0 / steps
        tr = simulate(system, system.q0, v0, h, steps, _controls(system, steps, h), scheme="lobatto_gc")
        L = np.array([np.asarray(system.angular_momentum(q, v), float) for q, v in zip(tr.q, tr.v)])
        p = np.array([np.asarray(system.linear_momentum(v), float) for v in tr.v])
        assert np.abs(p - p[0]).max() < 1e-13 * np.abs(p[0]).max()
        drifts.append(np.abs(L - L[0]).max() / np.abs(L[0]).max())
    assert 3.7 <= np.log2(drifts[0] / drifts[1]) <= 4.3, drifts


def test_energy_error_is_bounded_and_falls_as_h4():
    """A pendulum swinging at 2 rad/s through the bottom for 10 s (about three periods): the
    largest deviation of T + V from its initial value falls by ≈ 16 from h = 0.05 to 0.025,
    and does not drift (the last quarter of the run is no worse than the first)."""
    system = examples.pendulum()
    v0 = system.null_space(system.q0) @ np.array([2.0])
    M, grad = system.mass_matrix(), np.asarray(system.potential_gradient(), float)

    def energy_error(steps):
        tr = simulate(system, system.q0, v0, 10.0 / steps, steps, scheme="lobatto")
        E = np.array([0.5 * v @ M @ v + grad @ q for q, v in zip(tr.q, tr.v)])
        return np.abs(E - E[0])

    coarse, fine = energy_error(200), energy_error(400)
    assert 3.8 <= np.log2(coarse.max() / fine.max()) <= 4.4, (coarse.max(), fine.max())
    quarter = len(fine) // 4
    assert fine[-quarter:].max() <= 1.5 * fine[:quarter].max()


def _solved_arms(scheme, steps):
    """``{N: model}``: the arm OCP (thesis E3) solved with ``scheme`` at each N, with duals."""
    out = {}
    for N in steps:
        m = three_link_arm.build(scheme, steps=N)
        m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
        result = pyo.SolverFactory("casadi_ipopt").solve(m)
        assert str(result.solver.termination_condition) == "optimal", (scheme, N)
        out[N] = m
    return out


@pytest.fixture(scope="module")
def arm_solutions():
    """The arm OCP with the Lobatto scheme at N = 10, 20, 40 with duals."""
    return _solved_arms("lobatto", (10, 20, 40))


def _arm_optimum(arm_solutions):
    """J* by Richardson extrapolation (order 4) of the Lobatto optima at N = 20, 40."""
    J20, J40 = (pyo.value(arm_solutions[N].ocp.control_effort) for N in (20, 40))
    return J40 + (J40 - J20) / 15


def test_optimal_cost_error_falls_as_h4(arm_solutions):
    """J_10, J_20, J_40: the successive differences shrink by ≈ 16 (order ≥ 3.8), and the
    Richardson extrapolation is the continuous optimum the second-order schemes extrapolate
    to (J* ≈ 3 981 028, issue 14); at N = 40 J is within 5 of it (BEM at N = 320: 26)."""
    J = np.array([pyo.value(arm_solutions[N].ocp.control_effort) for N in (10, 20, 40)])
    d = np.diff(J)
    assert np.log2(d[0] / d[1]) >= 3.8, J
    J_star = _arm_optimum(arm_solutions)
    assert abs(J_star - 3.981028e6) < 2.0, J_star
    assert abs(J[-1] - J_star) < 5.0


def test_energy_momentum_element_converges_at_fourth_order_to_the_same_optimum(arm_solutions):
    """cG(2) on the arm at N = 20, 40, 80: |J - J*| (J* from the Lobatto optima) falls at
    fitted order ≥ 3.8, and every optimum balances T + V + W to round-off."""
    J_star, errors = _arm_optimum(arm_solutions), []
    for N in (20, 40, 80):
        m = three_link_arm.build("cg2", steps=N)
        result = pyo.SolverFactory("casadi_ipopt").solve(m)
        assert str(result.solver.termination_condition) == "optimal", N
        errors.append(abs(pyo.value(m.ocp.control_effort) - J_star))
        E = m.dyn.diagnostics()["E"].to_numpy()
        assert np.ptp(E) < 1e-9 * np.abs(E).max(), N
    assert fitted_order((20, 40, 80), errors) >= 3.8, errors


def _momentum_costate(m, node):
    """``B(q_k) y_k``: the duals y of the momentum-balance rows of the interval ending at node
    k, mapped to the generalised velocities by the input rows B(q_k)."""
    dyn, i = m.dyn, node - 1
    y = np.array([m.dual[dyn.body[b].momentum_balance[i, c]] for b, c in dyn._coordinate_index()])
    B, = numeric_kinematics(dyn.system, dyn.trajectory().q[node], ("B",))
    return B @ y


def test_duals_are_costates_and_converge_at_fourth_order(arm_solutions):
    """Adjoint consistency.  The IIIB momentum at the last stage is the node momentum, so the
    duals y_k of the momentum balance are the momentum costate at t_{k+1}: stationarity in
    the end-stage control gives the continuous control equation there, 2 w u_end,k =
    -B(q_{k+1}) y_k = B(q_{k+1}) λ_k (u the applied torque, λ = -y the library's multiplier;
    w = ½ for the arm's J = h Σ ½|u|²), at every node and every N to solver
    tolerance; and B y at t = T/2 converges at order ≈ 4 (successive differences)."""
    for N, m in arm_solutions.items():
        for node in (1, N // 2, N):
            u_end = np.array([pyo.value(m.dyn.u_end[node - 1, a]) for a in m.dyn.actuated])
            costate = _momentum_costate(m, node)
            assert np.abs(u_end + costate).max() < 1e-6 * np.abs(costate).max(), (N, node, u_end, costate)
    half = {N: _momentum_costate(m, N // 2) for N, m in arm_solutions.items()}
    d = [np.abs(half[a] - half[b]).max() for a, b in ((10, 20), (20, 40))]
    assert np.log2(d[0] / d[1]) >= 3.5, d


def test_energy_balance_of_the_optima_falls_as_h4(arm_solutions):
    """T + V + W of each optimum with the controls' work by the scheme's own quadrature
    (``diagnostics()``, :func:`pyomo_mbdyn.discretization.lobatto.stage_work`): its spread
    falls at order ≈ 4 (a work from interval rates ν_{k,k+1} would leave O(h²))."""
    spread = [np.ptp(arm_solutions[N].dyn.diagnostics()["E"].to_numpy()) for N in (10, 20, 40)]
    orders = np.log2(np.array(spread[:-1]) / spread[1:])
    assert orders[0] >= 3.0 and orders[1] >= 3.5, (spread, orders)


@pytest.fixture(scope="module")
def chart_arm_solutions():
    """The arm OCP with lobatto_gc at N = 20, 40, 80 with duals (N = 10 finds another local
    optimum, J ≈ 2.2e6, from the default guess)."""
    return _solved_arms("lobatto_gc", (20, 40, 80))


def test_chart_lobatto_converges_at_fourth_order_to_the_same_optimum(arm_solutions, chart_arm_solutions):
    """lobatto_gc on the arm: |J - J*| (J* from the natural-coordinate Lobatto optima) falls at
    fitted order ≥ 3.8, and T + V + W of the optima (work by the stage quadrature,
    :func:`pyomo_mbdyn.discretization.lobatto_gc.lobatto_gc_work`) at order ≥ 3.5."""
    J_star = _arm_optimum(arm_solutions)
    steps = (20, 40, 80)
    errors = [abs(pyo.value(chart_arm_solutions[N].ocp.control_effort) - J_star) for N in steps]
    assert fitted_order(steps, errors) >= 3.8, errors
    spread = [np.ptp(chart_arm_solutions[N].dyn.diagnostics()["E"].to_numpy()) for N in steps]
    assert fitted_order(steps, spread) >= 3.5, spread


def test_chart_lobatto_duals_are_costates_and_converge_at_fourth_order(chart_arm_solutions):
    """Adjoint consistency on the chart: the dual y_k of ``momentum_balance[k]`` (p(θ_{k+1},
    ṽ_{k+1}) - ∂S/∂θ_{k+1} - (h/6)F_3 with F_3 = u_end on the arm's chain) is the momentum
    costate at t_{k+1}: stationarity in u_end,k gives 2 w u_end,k = -y_k = λ_k (w = ½), at every node
    and N; and y at t = T/2 converges at order ≈ 4 (successive differences)."""
    half = {}
    for N, m in chart_arm_solutions.items():
        dyn = m.dyn
        for node in (1, N // 2, N):
            u_end = np.array([pyo.value(dyn.u_end[node - 1, a]) for a in dyn.actuated])
            y = np.array([m.dual[dyn.momentum_balance[node - 1, j]] for j in dyn.velocities])
            assert np.abs(u_end + y).max() < 1e-6 * np.abs(y).max(), (N, node, u_end, y)
        half[N] = np.array([m.dual[dyn.momentum_balance[N // 2 - 1, j]] for j in dyn.velocities])
    d = [np.abs(half[a] - half[b]).max() for a, b in ((20, 40), (40, 80))]
    assert np.log2(d[0] / d[1]) >= 3.5, d


def test_chart_lobatto_stage_forces_on_a_chain_are_minus_the_controls(monkeypatch):
    """On a chain of revolute joints B P̃ = I, and the step states F_s = -u_s directly; the
    general F_s = -P̃ᵀBᵀu_s through the chart gives the same residuals (two systems, so two
    compiled steps), and a free root's rotation vector does not take the shortcut."""
    from pyomo_mbdyn.discretization import lobatto_gc

    rng = np.random.default_rng(1)
    args = [0.05] + [rng.uniform(-1, 1, 3) for _ in range(5)] + [rng.uniform(-5, 5, 3) for _ in range(3)]
    assert lobatto_gc._rates_are_generalised_velocities(three_link_arm.build_system(), "exp")
    assert not lobatto_gc._rates_are_generalised_velocities(free_pair(), "exp")
    direct = lobatto_gc.lobatto_gc_residuals(three_link_arm.build_system(), *args)
    monkeypatch.setattr(lobatto_gc, "_rates_are_generalised_velocities", lambda system, rotation: False)
    general = lobatto_gc.lobatto_gc_residuals(three_link_arm.build_system(), *args)
    for name, rows in direct.items():
        np.testing.assert_allclose(rows, general[name], rtol=1e-12, atol=1e-10)


def test_the_lobatto_pair_solves_the_crane_from_its_default_start():
    """On the crane the Lobatto pair does not converge from the model's interpolated guess
    (benchmarks/pages/scheme_choice.md); its default start (``crane.START``) is REM's
    optimum with its controls simulated by the Lobatto scheme, so that every stage
    configuration and multiplier satisfies the scheme's steps.  From it both reach the
    fourth-order optimum, within the schemes' O(h⁴) of cG(2)'s, in a few iterations (REM's
    trajectory alone, without stage multipliers, took ``lobatto`` 1 131 iterations);
    the model says which start it took."""
    from pyomo_mbdyn.models import crane
    from pyomo_mbdyn.ocp import solve

    costs = {}
    for scheme in ("lobatto", "lobatto_gc", "cg2"):
        m = crane.build(scheme=scheme, steps=40)
        result = solve(m)
        assert str(result.solver.termination_condition) == "optimal"
        if scheme in crane.START:
            assert m.start_description.startswith("the rem optimum (N = 40")
            assert m.start_description.endswith(f"its controls simulated by {scheme}")
            assert result.solver.iterations < 30
        else:
            assert m.start_description == "the interpolated guess"
        costs[scheme] = pyo.value(next(m.component_data_objects(pyo.Objective, active=True)))
    assert costs["lobatto"] == pytest.approx(costs["cg2"], rel=1e-4)
    assert costs["lobatto_gc"] == pytest.approx(costs["cg2"], rel=1e-4)
    guess = crane.build(scheme="lobatto", steps=8, start="guess")
    assert guess.start_description == "the interpolated guess"
    with pytest.raises(ConfigurationError, match="start must be 'auto', 'guess' or one of"):
        crane.build(scheme="lobatto", steps=8, start="dnco")
