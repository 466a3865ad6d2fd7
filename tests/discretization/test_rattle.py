"""RATTLE (HLW VII.1.4, Eq. 1.26), verified numerically.

The step equations of :func:`pyomo_mbdyn.discretization.rattle.rattle_residuals`
are compiled once with CasADi symbols and each step solved by Newton's method
(sparse LU; the stopping rule of
:func:`pyomo_mbdyn.simulate.stepper.newton_solve`).  The tests assert the
scheme's mathematics: constraints and hidden constraints at every node, second
order, exact momentum maps (also with internal control torques), bounded
energy error without drift, symmetry (stepping back with -h), and the Pyomo
backend.
"""

import functools

import casadi
import numpy as np
import pyomo.environ as pyo
import pytest
import scipy.sparse
import scipy.sparse.linalg
from hypothesis import given, settings, strategies as st

from pyomo_mbdyn.discretization.rattle import rattle_residuals
from pyomo_mbdyn.mechanics import MultibodySystem, RigidBody, Spherical
from pyomo_mbdyn.models import satellite

from systems import director_double_pendulum, random_state

seeds = st.integers(min_value=0, max_value=2**31 - 1)
GROUPS = ("momentum_first_half", "constraint", "momentum_second_half", "hidden_constraint")


# ------------------------------------------------------------------ systems
@functools.lru_cache(maxsize=None)
def spherical_double_pendulum():
    """Two rods (axes d₃) on spherical joints hanging from the origin, gravity -e3.

    Gravity and the constraints are invariant under rotations about e3
    through the origin: L₃ (about the origin) is a momentum map.
    """
    sys = MultibodySystem("spherical double pendulum", gravity=(0, 0, -9.81))
    link1 = RigidBody("link1", 1.0, (0.09, 0.09, 0.01), position=(0, 0, -0.5))
    link2 = RigidBody("link2", 2.0, (0.17, 0.17, 0.02), position=(0, 0, -1.5))
    sys.add_bodies(link1, link2)
    sys.add_joints(Spherical("shoulder", None, link1, location=(0, 0, 0)),
                   Spherical("elbow", link1, link2, location=(0, 0, -1)))
    return sys


@functools.lru_cache(maxsize=None)
def planar_double_pendulum():
    return director_double_pendulum()


@functools.lru_cache(maxsize=None)
def free_satellite():
    """Main body and three actuated rotors, no gravity, no friction."""
    return satellite.build_system()


# ------------------------------------------------------------------ the stepper
@functools.lru_cache(maxsize=None)
def compiled_step(system, h):
    """``(x, q0, v0, u) ↦ (r, ∂r/∂x)`` for the unknowns ``x = (q1, v1, λ, μ)``."""
    n, m, n_act = system.n, system.m, len(system.actuated)

    def sym(name, k):
        s = casadi.SX.sym(name, k)
        return s, np.array([s[i] for i in range(k)], dtype=object)

    x, xs = sym("x", 2 * n + 2 * m)
    q0, q0s = sym("q0", n)
    v0, v0s = sym("v0", n)
    u, us = sym("u", n_act)
    res = rattle_residuals(system, h, q0s, v0s, xs[:n], xs[n:2 * n], xs[2 * n:2 * n + m],
                           xs[2 * n + m:], us)
    assert tuple(res) == GROUPS
    assert [len(res[g]) for g in GROUPS] == [n, m, n, m]
    r = casadi.vertcat(*[casadi.SX(e) for g in GROUPS for e in res[g]])
    fun = casadi.Function("rattle", [x, q0, v0, u], [r, casadi.jacobian(r, x)])
    colind, row = (np.array(i) for i in fun.sparsity_out(1).get_ccs())
    shape = fun.sparsity_out(1).shape

    def residual_and_jacobian(x, q0, v0, u):
        r, J = fun(x, q0, v0, u)
        J = scipy.sparse.csc_matrix((np.array(J.nonzeros()), row, colind), shape)
        return np.array(r.full()).ravel(), J

    return residual_and_jacobian


def newton(fun, x, params, label, tol=1e-14, max_iter=30):
    """Newton's method with a sparse LU, stopping as ``stepper.newton_solve``:
    every update below ``tol (1 + |x_i|)``, or the residual stagnating at
    round-off.  (A sparse LU rather than ``np.linalg.solve``: threaded BLAS
    on a shared machine made dense solves of these 100-200 unknowns 40x slower.)
    """
    r_first = r_prev = None
    for _ in range(max_iter):
        r, J = fun(x, *params)
        r_norm = np.abs(r).max()
        r_first = r_norm if r_first is None else r_first
        if r_prev is not None and r_norm > 0.5 * r_prev and r_norm <= 1e-9 * (1.0 + r_first):
            return x
        dx = scipy.sparse.linalg.splu(J).solve(-r)
        x, r_prev = x + dx, r_norm
        if np.all(np.abs(dx) <= tol * (1.0 + np.abs(x))):
            return x
    raise AssertionError(f"{label}: Newton did not converge (|residual| = {r_norm:.2e})")


def rattle_simulate(system, q0, v0, h, steps, controls=None):
    """Nodes ``Q, V`` (steps + 1, n) of RATTLE from (q0, v0); controls (steps, n_act)."""
    n, m, n_act = system.n, system.m, len(system.actuated)
    U = np.zeros((steps, n_act)) if controls is None else np.asarray(controls, float)
    fun = compiled_step(system, float(h))
    Q, V = [np.asarray(q0, float)], [np.asarray(v0, float)]
    lam_mu = np.zeros(2 * m)
    for k in range(steps):
        q, v = Q[-1], V[-1]
        x = newton(fun, np.concatenate([q + h * v, v, lam_mu]), (q, v, U[k]), f"rattle step {k}")
        Q.append(x[:n])
        V.append(x[n:2 * n])
        lam_mu = x[2 * n:]
    return np.array(Q), np.array(V)


def energy(system, q, v):
    return float(system.kinetic_energy(v)) + float(system.potential_energy(q))


def satellite_state(seed):
    """A spinning, tumbling satellite: random main-body twist and rotor rates."""
    sys = free_satellite()
    rng = np.random.default_rng(seed)
    q0 = sys.reparametrise(rng.uniform(-1, 1, sys.n_velocities), sys.q0)
    nu = np.concatenate([rng.uniform(-0.3, 0.3, 6), rng.uniform(-3, 3, sys.n_velocities - 6)])
    return sys, q0, np.asarray(sys.null_space(q0), float) @ nu, rng


# ------------------------------------------------------------------ 1. constraints
@given(seed=seeds)
@settings(max_examples=10)
def test_constraints_and_hidden_constraints_hold_at_every_node(seed):
    for sys, controls in ((spherical_double_pendulum(), None), (free_satellite(), "random")):
        q0, v0 = random_state(sys, seed, spread=0.5)
        rng = np.random.default_rng(seed)
        U = None if controls is None else rng.uniform(-200, 200, (20, len(sys.actuated)))
        Q, V = rattle_simulate(sys, q0, v0, 0.05, 20, U)
        for q, v in zip(Q, V):
            assert np.abs(sys.constraints(q)).max() < 1e-13
            G = np.asarray(sys.constraint_jacobian(q), float)
            assert np.abs(G @ v).max() < 1e-12 * (1 + np.abs(v).max())


# ------------------------------------------------------------------ 2. order
@pytest.mark.parametrize("make", [planar_double_pendulum, spherical_double_pendulum])
def test_second_order_convergence(make):
    sys = make()
    q0, v0 = random_state(sys, 3, spread=0.4)
    T = 1.0
    Qr, Vr = rattle_simulate(sys, q0, v0, T / 2560, 2560)
    errors_q, errors_v = [], []
    for N in (40, 80, 160):
        Q, V = rattle_simulate(sys, q0, v0, T / N, N)
        errors_q.append(np.abs(Q[-1] - Qr[-1]).max())
        errors_v.append(np.abs(V[-1] - Vr[-1]).max())
    for errors in (errors_q, errors_v):
        orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
        assert np.all(np.abs(orders - 2) < 0.1), (errors, orders)


# ------------------------------------------------------------------ 3. momentum maps
@given(seed=seeds)
@settings(max_examples=10)
def test_angular_momentum_about_gravity_axis_is_exact(seed):
    sys = spherical_double_pendulum()
    q0, v0 = random_state(sys, seed, spread=0.8)
    Q, V = rattle_simulate(sys, q0, v0, 0.05, 40)
    L3 = np.array([np.asarray(sys.angular_momentum(q, v), float)[2] for q, v in zip(Q, V)])
    scale = np.abs(np.asarray(sys.angular_momentum(q0, v0), float)).max() + 1.0
    assert np.abs(L3 - L3[0]).max() < 1e-12 * scale


@given(seed=seeds)
@settings(max_examples=10)
def test_rotor_torques_change_neither_angular_nor_linear_momentum(seed):
    """Internal torques lumped at the nodes with B(q_k), B(q_{k+1}): both total
    momenta are exact (B(q)ᵀu at an admissible node exerts no net wrench)."""
    sys, q0, v0, rng = satellite_state(seed)
    U = rng.uniform(-300, 300, (30, len(sys.actuated)))
    Q, V = rattle_simulate(sys, q0, v0, 0.1, 30, U)
    L = np.array([np.asarray(sys.angular_momentum(q, v), float) for q, v in zip(Q, V)])
    p = np.array([np.asarray(sys.linear_momentum(v), float) for v in V])
    L_scale = np.abs(L[0]).max()
    assert L_scale > 1.0  # a tumbling satellite
    assert np.abs(L - L[0]).max() < 1e-12 * L_scale
    assert np.abs(p - p[0]).max() < 1e-12 * (1 + np.abs(p[0]).max())
    # the torques do work: the kinetic energy changes
    T = np.array([float(sys.kinetic_energy(v)) for v in V])
    assert np.abs(T - T[0]).max() > 1e-3 * T[0]


def test_node_control_matrix_is_the_plain_one_on_the_manifold():
    """``system.control_matrix(q)`` (the contravariant evaluation, as DMOCC's
    lumped controls) equals the plain B at admissible nodes."""
    sys, q0, _, _ = satellite_state(7)
    B_sharp = np.asarray(sys.control_matrix(q0), float)
    B_plain = np.asarray(sys.control_matrix(q0, contravariant=False), float)
    np.testing.assert_allclose(B_sharp, B_plain, rtol=0, atol=1e-14)


# ------------------------------------------------------------------ 4. energy
@pytest.fixture(scope="module")
def energy_errors():
    """|E - E0| of 2000 steps with h = 0.02 and with h = 0.01 (large swings).

    (On gentle swings, spread 0.3, the energy error is modulated with periods
    beyond 20 s: over 2000 steps of h = 0.02 its maximum may grow 2.7x from the
    first to the second half, yet stays bounded by the same value over 8000
    steps; the large swings here mix within the first half.)
    """
    sys = spherical_double_pendulum()
    q0, v0 = random_state(sys, 0, spread=1.0)
    out = {}
    for h in (0.02, 0.01):
        Q, V = rattle_simulate(sys, q0, v0, h, 2000)
        E = np.array([energy(sys, q, v) for q, v in zip(Q, V)])
        out[h] = np.abs(E - E[0])
    return out


def test_energy_error_is_bounded_without_drift(energy_errors):
    for h, err in energy_errors.items():
        half = len(err) // 2
        first, second = err[: half + 1].max(), err[half:].max()
        assert second <= 1.5 * first, (h, first, second)


def test_energy_error_scales_with_h_squared(energy_errors):
    # over the common horizon [0, 20]
    ratio = energy_errors[0.02][:1001].max() / energy_errors[0.01].max()
    assert 3.0 < ratio < 5.0, ratio


# ------------------------------------------------------------------ 5. symmetry
@given(seed=seeds)
@settings(max_examples=10)
def test_stepping_back_with_minus_h_returns_the_initial_state(seed):
    sys, q0, v0, rng = satellite_state(seed)
    h, steps = 0.1, 10
    U = rng.uniform(-300, 300, (steps, len(sys.actuated)))
    Q, V = rattle_simulate(sys, q0, v0, h, steps, U)
    Qb, Vb = rattle_simulate(sys, Q[-1], V[-1], -h, steps, U[::-1])
    np.testing.assert_allclose(Qb[::-1], Q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(Vb[::-1], V, rtol=0, atol=1e-11 * (1 + np.abs(V).max()))


@given(seed=seeds)
@settings(max_examples=10)
def test_pendulum_under_gravity_is_reversible(seed):
    sys = spherical_double_pendulum()
    q0, v0 = random_state(sys, seed, spread=0.8)
    Q, V = rattle_simulate(sys, q0, v0, 0.05, 20)
    Qb, Vb = rattle_simulate(sys, Q[-1], V[-1], -0.05, 20)
    np.testing.assert_allclose(Qb[::-1], Q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(Vb[::-1], V, rtol=0, atol=1e-11)


# ------------------------------------------------------------------ 6. backends
@pytest.mark.parametrize("make", [spherical_double_pendulum, free_satellite])
def test_pyomo_and_casadi_evaluate_the_float_residuals(make):
    sys = make()
    n, m, n_act = sys.n, sys.m, len(sys.actuated)
    rng = np.random.default_rng(5)
    q0, v0 = random_state(sys, 1)
    args = [q0, v0, q0 + 0.05 * v0 + rng.normal(scale=1e-3, size=n), v0 + rng.normal(scale=0.1, size=n),
            rng.normal(size=m), rng.normal(size=m), rng.normal(size=n_act)]
    expected = rattle_residuals(sys, 0.05, *args)
    assert [len(expected[g]) for g in GROUPS] == [n, m, n, m]

    model = pyo.ConcreteModel()
    flat = np.concatenate(args)
    model.x = pyo.Var(range(len(flat)), initialize=dict(enumerate(flat)))
    xs = np.array([model.x[i] for i in range(len(flat))], dtype=object)
    parts = np.split(xs, np.cumsum([len(a) for a in args])[:-1])
    res = rattle_residuals(sys, 0.05, *parts)
    model.eq = pyo.ConstraintList()
    for g in GROUPS:
        for e in res[g]:
            model.eq.add(e == 0)
    assert len(model.eq) == 2 * n + 2 * m
    for g in GROUPS:
        got = np.array([pyo.value(e) for e in res[g]])
        np.testing.assert_allclose(got, expected[g], rtol=1e-12, atol=1e-12, err_msg=g)

    x = np.concatenate(args[2:6])
    r, _ = compiled_step(sys, 0.05)(x, q0, v0, args[6])
    np.testing.assert_allclose(r, np.concatenate([expected[g] for g in GROUPS]),
                               rtol=1e-12, atol=1e-12)


def test_rattle_equals_dmocc_for_constant_mass_and_linear_potential():
    """The trapezoidal discrete Lagrangian behind RATTLE and DMOCC's midpoint one agree
    when M is constant and V linear (gravity): the library's steppers give the same nodes."""
    from pyomo_mbdyn.simulate import simulate

    system = planar_double_pendulum()
    q0, v0 = system.q0, system.null_space(system.q0) @ np.array([1.0, -0.5])
    rattle = simulate(system, q0, v0, 0.02, 50, scheme="rattle")
    dmocc = simulate(system, q0, v0, 0.02, 50, scheme="dmocc")
    assert np.abs(rattle.q - dmocc.q).max() < 1e-10
    assert np.abs(rattle.q[-1] - q0).max() > 0.1  # the pendulum has moved
