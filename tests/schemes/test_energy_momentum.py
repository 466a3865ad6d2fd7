"""BEM and REM: the discrete balance laws, BEM = REM, block = stepper, convergence.

Thesis §2.3–2.4: T + V + W + D is constant, the momentum maps change exactly
by the applied loads, and the constraints hold at every node.
"""

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.diagnostics import trajectory_table
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.schemes import scheme_block
from pyomo_mbdyn.simulate import simulate

from blocks import solve_block
from systems import chain, random_state
from systems import director_double_pendulum as double_pendulum


def four_body_system():
    """A free-floating 4-body chain (R, S, U joints) with gravity, friction, controls."""
    sys = chain(["revolute", "spherical", "universal"], seed=4, grounded=False)
    for j in sys.joints:
        sys.actuate(j)
        sys.add_friction(j, 1.0)
    return sys


def _controls(sys, steps, h):
    t = h * (np.arange(steps) + 0.5)
    n_act = len(sys.actuated)
    return np.array([[5.0 * np.sin(4 * tk + a) for a in range(n_act)] for tk in t])


@pytest.fixture(scope="module")
def long_runs():
    sys = four_body_system()
    q0, v0 = random_state(sys, 0)
    steps, h = 1000, 0.002
    U = _controls(sys, steps, h)
    return {s: simulate(sys, q0, v0, h, steps, U, scheme=s) for s in ("bem", "rem")}


@pytest.mark.parametrize("scheme", ["bem", "rem"])
def test_energy_balance_over_1000_steps(long_runs, scheme):
    table = trajectory_table(long_runs[scheme])
    E = table["E"].to_numpy()
    scale = np.abs(table[["T", "V", "W", "D"]].to_numpy()).max()
    error = np.abs(E - E[0]).max()
    assert error / scale < 1e-10
    # the balance is not trivially satisfied: work and dissipation are large
    assert table["W"].abs().max() > 1e6 * error and table["D"].iloc[-1] > 1e6 * error


@pytest.mark.parametrize("scheme", ["bem", "rem"])
def test_momentum_balance_and_constraints(long_runs, scheme):
    """Joint torques and friction are internal: only gravity changes the momenta,
    ΔL = h Σ_b φ_b,k+½ × m_b g and Δp = h Σ_b m_b g, exactly (thesis Eq. 4.37)."""
    tr = long_runs[scheme]
    table = trajectory_table(tr)
    sys = tr.system
    L = table[["Lx", "Ly", "Lz"]].to_numpy()
    p = table[["px", "py", "pz"]].to_numpy()
    torque = np.zeros_like(L[1:])
    force = np.zeros(3)
    for name, body in sys.bodies.items():
        s = sys.layout["offsets"][name]
        phi_mid = 0.5 * (tr.q[:-1, s][:, 0:3] + tr.q[1:, s][:, 0:3])
        torque += np.cross(phi_mid, body.mass * sys.gravity)
        force += body.mass * sys.gravity
    assert np.abs(np.diff(L, axis=0) - tr.h * torque).max() < 1e-10 * max(1.0, np.abs(L).max())
    assert np.abs(np.diff(p, axis=0) - tr.h * force).max() < 1e-10 * max(1.0, np.abs(p).max())
    assert np.abs(np.diff(L, axis=0)).max() > 1e-3  # gravity really acts
    assert table["constraint_residual"].max() < 1e-10


def test_bem_and_rem_give_the_same_trajectory(long_runs):
    bem, rem = long_runs["bem"], long_runs["rem"]
    assert np.abs(bem.q - rem.q).max() < 1e-9
    assert np.abs(bem.v - rem.v).max() < 1e-9


@pytest.mark.parametrize("configurations", ["lifted", "absolute"])
@pytest.mark.parametrize("scheme", ["bem", "rem"])
def test_block_solved_by_ipopt_equals_the_stepper(scheme, configurations):
    """The whole square block through SolverFactory, started from a different
    trajectory (the plain-midpoint B), converges to the stepper's solution —
    also with node configurations from the absolute chart q_k = F(θ_k, q_ref)
    (free root body: rotation vector; spherical and universal joints), which
    fulfil the constraints to round-off."""
    sys = four_body_system()
    q0, v0 = random_state(sys, 1)
    steps, h = 8, 0.05
    U = _controls(sys, steps, h)
    reference = simulate(sys, q0, v0, h, steps, U, scheme=scheme)
    guess = simulate(sys, q0, v0, h, steps, U, scheme="bem", contravariant=False)
    assert np.abs(guess.q - reference.q).max() > 1e-6  # a genuinely different start
    _, q, v, u, nu = solve_block(scheme, sys, q0, v0, steps, h, U, guess, configurations=configurations)
    assert np.abs(q - reference.q).max() < 1e-10
    assert np.abs(v - reference.v).max() < 1e-10
    np.testing.assert_allclose(u, U)
    assert max(np.abs(np.asarray(sys.constraints(q_k), float)).max() for q_k in q) < 1e-13


@pytest.mark.parametrize("scheme, rows_per_step", [("rem", lambda n, m, dof: n + 2 * dof),
                                                   ("bem", lambda n, m, dof: 2 * n + dof)])
def test_absolute_form_states_no_constraint_rows(scheme, rows_per_step):
    """configurations='absolute': per step the unknowns θ (dof), v (n), ν (dof), u (and γ (m)
    for BEM); the rows Φ(q_{k+1}) = 0 and q_{k+1} = F(w_k, q_k) are gone, the chart's θ_0
    reproduces q_0, and REM's increments are the chart differences."""
    from pyomo_mbdyn.discretization import chart

    sys = four_body_system()
    q0, v0 = random_state(sys, 2)
    steps = 3
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=sys, steps=steps, horizon=0.1, initial_configuration=q0,
                         initial_velocity=v0, configurations="absolute")
    n, mm, dof, n_act = sys.n, sys.m, sys.n_velocities, len(sys.actuated)
    free = [v for v in m.component_data_objects(pyo.Var) if not v.fixed]
    rows = list(m.component_data_objects(pyo.Constraint, active=True))
    assert len(free) == steps * (2 * dof + n + n_act + (mm if scheme == "bem" else 0))
    assert len(rows) == steps * rows_per_step(n, mm, dof)
    assert m.dyn.final_configuration_form == "chart"
    np.testing.assert_allclose(np.asarray(chart(sys, m.dyn.theta_values(0)), float), q0, atol=1e-12)
    assert all(m.dyn.body[b].v[0, c].fixed for b in sys.bodies for c in m.dyn.body[b].coordinates)
    if scheme == "rem":
        j = sys.velocities[-1]
        m.dyn.theta[1, j].value = m.dyn.theta_values(0)[-1] + 0.25
        assert pyo.value(m.dyn.w[0, j]) == pytest.approx(0.25)


@pytest.mark.parametrize("scheme", ["bem", "rem"])
def test_second_order_convergence(scheme):
    sys = double_pendulum()
    q0, v0 = sys.q0, sys.null_space(sys.q0) @ np.array([1.0, -0.5])
    T = 1.0
    ref = simulate(sys, q0, v0, T / 2560, 2560, scheme=scheme)
    errors = []
    for N in (20, 40, 80):
        tr = simulate(sys, q0, v0, T / N, N, scheme=scheme)
        errors.append(np.abs(tr.q[-1] - ref.q[-1]).max())
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(np.abs(orders - 2) < 0.15), orders


@pytest.mark.parametrize(
    "options, match",
    [
        (dict(steps=0, horizon=1.0), "steps"),
        (dict(steps=5, horizon=0.0), "horizon"),
        (dict(steps=5, horizon=1.0, controls={"link1.vx": 1.0}), "unactuated"),
        (dict(steps=5, horizon=1.0, initial_configuration=np.full(24, 0.1)), "off the constraint manifold"),
        (dict(steps=5, horizon=1.0, no_such_option=3), "no_such_option"),
    ],
)
def test_bad_input_is_a_clear_error(options, match):
    sys = double_pendulum()
    sys.actuate("elbow")
    m = pyo.ConcreteModel()
    with pytest.raises(ConfigurationError, match=match):
        m.dyn = scheme_block("bem", system=sys, **options)


def test_unknown_scheme():
    with pytest.raises(ConfigurationError, match="unknown scheme 'midpoint'.*bem"):
        scheme_block("midpoint", system=double_pendulum(), steps=3, horizon=1.0)
