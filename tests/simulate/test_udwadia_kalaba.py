"""Udwadia–Kalaba: the spec's verification targets UK-1 … UK-15 and a multibody check."""

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import assume, given
from scipy.linalg import null_space, sqrtm

import pyomo_mbdyn  # noqa: F401
from systems import director_double_pendulum, vectors
from pyomo_mbdyn.simulate import simulate
from pyomo_mbdyn.simulate.tracking import GRAVITY, desired_height, particle_pendulum, tip_height, tip_tracking
from pyomo_mbdyn.simulate.udwadia_kalaba import (
    UdwadiaKalabaSystem,
    gauss_problem,
    integrate,
    uk_accelerations,
)

def random_instance(seed, n=6, m=3):
    rng = np.random.default_rng(seed)
    R = rng.normal(size=(n, n))
    M = R @ R.T + n * np.eye(n)
    return M, rng.normal(size=n), rng.normal(size=(m, n)), rng.normal(size=m), rng.normal(size=n), rng


@given(R=vectors((6, 6), 3.0), Q=vectors(6, 3.0), A=vectors((3, 6), 3.0), b=vectors(3, 3.0),
       C=vectors(6, 3.0), k=vectors(3, 3.0))
def test_constraints_kkt_and_the_paper_forms(R, Q, A, b, C, k):
    """M = R Rᵀ + 6 I; entries of R, Q, A, b, C, k in [-3, 3].  Constraints that are
    (nearly) dependent are excluded here (the redundant case is the next test)."""
    M = R @ R.T + 6 * np.eye(6)
    assume(np.linalg.cond(A) < 100)
    ideal = uk_accelerations(M, Q, A, b)
    assert np.abs(A @ ideal.qdd - b).max() < 1e-10                          # UK-1
    K = np.block([[M, -A.T], [A, np.zeros((3, 3))]])                        # UK-2
    x = np.linalg.solve(K, np.concatenate([Q, b]))
    np.testing.assert_allclose(ideal.qdd, x[:6], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ideal.ideal, A.T @ x[6:], rtol=1e-10, atol=1e-12)
    # UK-4: the paper's M^{1/2} B⁺ form and a Cholesky factor give the same
    full = uk_accelerations(M, Q, A, b, C)
    a = np.linalg.solve(M, Q)
    for F in (np.real(sqrtm(M)), np.linalg.cholesky(M)):
        Bm = A @ np.linalg.inv(F).T
        Bp = np.linalg.pinv(Bm)
        Qi = F @ Bp @ (b - A @ a)
        Qni = F @ (np.eye(6) - Bp @ Bm) @ np.linalg.solve(F, C)
        np.testing.assert_allclose(Qi, full.ideal, rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(Qni, full.non_ideal, rtol=1e-9, atol=1e-10)
    # UK-5: the constraint force does the prescribed virtual work
    N = null_space(A)
    assert np.abs(N.T @ (full.constraint_force - C)).max() < 1e-10
    # UK-6: the two parts of the deviation are M-orthogonal
    d1, d2 = np.linalg.solve(M, full.ideal), np.linalg.solve(M, full.non_ideal)
    assert abs(d1 @ M @ d2) < 1e-10 * (1 + np.linalg.norm(d1) * np.linalg.norm(d2))
    # UK-7: non-ideal UK = ideal UK with the applied force Q + C
    np.testing.assert_allclose(full.qdd, uk_accelerations(M, Q + C, A, b).qdd, rtol=1e-10, atol=1e-12)
    # UK-10: only C's projection onto the virtual displacements matters
    np.testing.assert_allclose(uk_accelerations(M, Q, A, b, C + A.T @ k).non_ideal, full.non_ideal,
                               rtol=1e-9, atol=1e-10)


def test_redundant_constraints_keep_the_solution_while_kkt_is_singular():
    M, Q, A, b, _, _ = random_instance(3)
    A3, b3 = np.vstack([A, A[0] + 2 * A[1]]), np.concatenate([b, [b[0] + 2 * b[1]]])   # UK-3
    r = uk_accelerations(M, Q, A3, b3)
    np.testing.assert_allclose(r.qdd, uk_accelerations(M, Q, A, b).qdd, rtol=1e-10)
    assert r.rank == 3
    K = np.block([[M, -A3.T], [A3, np.zeros((4, 4))]])
    assert np.linalg.cond(K) > 1e12


def test_gauss_minimum_and_the_pyomo_qp():
    M, Q, A, b, _, rng = random_instance(5)
    r = uk_accelerations(M, Q, A, b)
    a = np.linalg.solve(M, Q)
    gauss = lambda x: (x - a) @ M @ (x - a)  # noqa: E731
    N = null_space(A)
    assert all(gauss(r.qdd) <= gauss(r.qdd + N @ (0.1 * rng.normal(size=N.shape[1]))) for _ in range(2000))
    assert gauss(r.qdd) == pytest.approx(r.ideal @ np.linalg.solve(M, r.ideal), rel=1e-12)   # UK-8
    model = gauss_problem(M, Q, A, b)
    model.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.options["tol"] = 1e-12
    assert opt.solve(model).solver.termination_condition == pyo.TerminationCondition.optimal
    np.testing.assert_allclose([pyo.value(model.qdd[i]) for i in model.I], r.qdd, atol=1e-8)
    lam = np.array([model.dual[model.constraint[k]] for k in model.J])
    np.testing.assert_allclose(A.T @ lam, r.ideal, atol=1e-7)


def test_square_invertible_constraints_give_computed_torque():
    M, Q, A, b, _, _ = random_instance(9, n=4, m=4)   # UK-15
    r = uk_accelerations(M, Q, A, b)
    np.testing.assert_allclose(r.constraint_force, M @ np.linalg.solve(A, b) - Q, rtol=1e-9)


# -- the spec's worked examples ---------------------------------------------------
G = GRAVITY
THETA, THETA_DOT = np.pi / 6, 1.0


def _state():
    q = np.array([np.sin(THETA), -np.cos(THETA)])
    return q, THETA_DOT * np.array([np.cos(THETA), np.sin(THETA)])


def test_pendulum_tension_and_angular_acceleration():
    q, qd = _state()
    r = particle_pendulum().accelerations(q, qd)
    assert np.linalg.norm(r.constraint_force) == pytest.approx(G * np.cos(THETA) + THETA_DOT**2, rel=1e-12)
    theta_dd = r.qdd[0] * np.cos(THETA) + r.qdd[1] * np.sin(THETA)
    assert theta_dd == pytest.approx(-G * np.sin(THETA), rel=1e-12)


def test_rough_wire_coulomb_friction():
    q, qd = _state()
    r = particle_pendulum(friction=0.2).accelerations(q, qd)
    theta_dd = r.qdd[0] * np.cos(THETA) + r.qdd[1] * np.sin(THETA)
    expected = -G * np.sin(THETA) - 0.2 * abs(G * np.cos(THETA) + THETA_DOT**2) * np.sign(THETA_DOT)
    assert theta_dd == pytest.approx(expected, rel=1e-12)
    assert np.linalg.norm(r.non_ideal) == pytest.approx(0.2 * np.linalg.norm(r.ideal), rel=1e-12)


def test_baumgarte_stabilisation_reduces_drift_by_orders_of_magnitude():
    q, qd = _state()
    drift = {}
    for ab in ((0.0, 0.0), (5.0, 5.0)):
        sol = integrate(particle_pendulum(baumgarte=ab), q, qd, (0.0, 20.0), rtol=1e-6, atol=1e-9)
        x, y = sol.y[0, -1], sol.y[1, -1]
        drift[ab] = abs(x * x + y * y - 1.0)
    assert drift[5.0, 5.0] < 1e-2 * drift[0.0, 0.0]


@pytest.mark.parametrize("omega", [2.0, 5.0])
def test_exact_tracking_follows_the_designed_error_dynamics(omega):
    """UK-14: the tip height of a double pendulum tracks y_d; e'' + 2ωe' + ω²e = 0."""
    system = tip_tracking(omega)
    tip, yd = tip_height, desired_height
    q0, qd0 = np.array([0.3, -0.2]), np.zeros(2)
    e0, edot0 = tip(q0) - yd(0)[0], -yd(0)[1]
    t = np.linspace(0, 10, 41)
    sol = integrate(system, q0, qd0, (0.0, 10.0), t_eval=t, rtol=1e-9, atol=1e-11)
    errors = np.array([tip(sol.y[:2, k]) - yd(tk)[0] for k, tk in enumerate(t)])
    law = (e0 + (edot0 + omega * e0) * t) * np.exp(-omega * t)
    assert np.abs(errors - law).max() < 1e-7
    assert abs(e0) > 0.1  # the tracking starts off the trajectory


def test_multibody_uk_is_the_continuous_limit_of_the_schemes():
    """UK on a director double pendulum agrees with the BEM at a small step (O(h²))."""
    system = director_double_pendulum()
    q0, v0 = system.q0, system.null_space(system.q0) @ np.array([1.0, -0.5])
    uk = UdwadiaKalabaSystem.from_multibody(system, baumgarte=(10.0, 10.0))
    r = uk.accelerations(q0, v0)
    G0 = np.asarray(system.constraint_jacobian(q0), float)
    assert np.abs(G0 @ r.qdd + (np.asarray(system.constraint_jacobian(v0), float)
                                - np.asarray(system.constraint_jacobian(np.zeros(system.n)), float)) @ v0).max() < 1e-10
    sol = integrate(uk, q0, v0, (0.0, 0.5), rtol=1e-11, atol=1e-12)
    errors = [np.abs(simulate(system, q0, v0, 0.5 / N, N).q[-1] - sol.y[:system.n, -1]).max() for N in (40, 80)]
    assert errors[1] < 1e-3 and errors[0] / errors[1] == pytest.approx(4, rel=0.1)
