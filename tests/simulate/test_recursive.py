"""Recursive Newton–Euler chain dynamics (D'Eleuterio & Damaren) against
independent solutions: textbook equations, the global mass matrix, the generic
LQ sweep, and Udwadia–Kalaba / Gauss in maximal body coordinates."""

import numpy as np
import pyomo.environ as pyo
import pytest
from scipy.linalg import null_space

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.simulate.recursive import Chain, ChainBody, ChainJoint, cross6, lq_sweep
from pyomo_mbdyn.simulate.udwadia_kalaba import gauss_problem, uk_accelerations

G = 9.81


def mixed_chain(seed=0):
    """The spec's 5-body, 8-DOF test chain (§3.2)."""
    rng = np.random.default_rng(seed)

    def body():
        R = rng.normal(size=(3, 3))
        return ChainBody(rng.uniform(1, 3), rng.uniform(-0.3, 0.3, 3) / np.sqrt(3), R @ R.T / 3 + 0.1 * np.eye(3))

    c, s = np.cos(0.3), np.sin(0.3)
    joints = [
        ChainJoint.universal((0, 0, 0)),
        ChainJoint.revolute((1.0, 0.1, 0.0), axis=(0, 0, 1)),
        ChainJoint.spherical((0.8, 0.0, 0.2)),
        ChainJoint.prismatic((0.7, 0.0, 0.0), axis=(1, 0, 0), rotation=[[c, -s, 0], [s, c, 0], [0, 0, 1]]),
        ChainJoint.revolute((0.5, 0.2, -0.1), axis=(0, 1, 0)),
    ]
    chain = Chain(joints, [body() for _ in joints], gravity=np.array([0, 0, -G]))
    gamma, gamma_dot, tau = (rng.uniform(-1, 1, chain.dof) for _ in range(3))
    return chain, gamma, gamma_dot, tau


def test_double_pendulum_equals_the_textbook_equations():
    joints = [ChainJoint.revolute((0, 0, 0)), ChainJoint.revolute((0, -1, 0))]
    point = ChainBody(1.0, np.array([0, -1.0, 0]), np.zeros((3, 3)))
    chain = Chain(joints, [point, point], gravity=np.array([0, -G, 0]))
    th, thd, tau = np.array([0.3, -0.2]), np.array([0.5, -1.0]), np.array([1.0, -0.5])
    gdd = chain.forward_dynamics([th[0], th[1] - th[0]], [thd[0], thd[1] - thd[0]], tau)
    c, s = np.cos(th[0] - th[1]), np.sin(th[0] - th[1])
    M = np.array([[2.0, c], [c, 1.0]])
    Q = np.array([-s * thd[1] ** 2 - 2 * G * np.sin(th[0]) + tau[0] - tau[1],
                  s * thd[0] ** 2 - G * np.sin(th[1]) + tau[1]])
    np.testing.assert_allclose([gdd[0], gdd[0] + gdd[1]], np.linalg.solve(M, Q), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_recursion_equals_global_mass_matrix_and_lq_sweep(seed):
    chain, gamma, gamma_dot, tau = mixed_chain(seed)
    assert chain.dof == 8
    gdd = chain.forward_dynamics(gamma, gamma_dot, tau)
    global_gdd, H = chain.mass_matrix_solution(gamma, gamma_dot, tau)
    np.testing.assert_allclose(gdd, global_gdd, rtol=1e-12, atol=1e-12)
    assert np.all(np.linalg.eigvalsh(H) > 0)
    # the generic LQ problem, written without multibody knowledge (Sec. IV–V)
    u, x, S, r = lq_sweep(*chain.lq_data(gamma, gamma_dot, tau))
    np.testing.assert_allclose(np.concatenate(u), gdd, rtol=1e-12, atol=1e-12)
    for Sk in S:  # Riccati matrices = articulated inertias: symmetric positive definite
        assert np.allclose(Sk, Sk.T) and np.all(np.linalg.eigvalsh(0.5 * (Sk + Sk.T)) > 0)


def _maximal_coordinates(chain, gamma, gamma_dot, tau):
    """M, Q, A, b of the chain in maximal body coordinates v̇ = (v̇_0 … v̇_N) (DD-9)."""
    kin = chain.kinematics(gamma, gamma_dot)
    nb = len(kin)
    taus = chain._split(tau)
    M = np.zeros((6 * nb, 6 * nb))
    Q = np.zeros(6 * nb)
    rows, rhs = [], []
    f_c = [np.linalg.solve(k["P"].T @ k["P"], t) for k, t in zip(kin, taus)]
    for n, k in enumerate(kin):
        sl = slice(6 * n, 6 * n + 6)
        Mn = chain._M[n]
        M[sl, sl] = Mn
        g_body = k["R"].T @ chain.gravity
        Q[sl] += Mn @ np.concatenate([g_body, np.zeros(3)]) + cross6(k["v"]).T @ Mn @ k["v"] + k["P"] @ f_c[n]
        if n + 1 < nb:
            Q[sl] -= kin[n + 1]["T"].T @ kin[n + 1]["P"] @ f_c[n + 1]
        Qn = null_space(k["P"].T)  # orthonormal complement 𝓠_n
        row = np.zeros((Qn.shape[1], 6 * nb))
        row[:, sl] = Qn.T
        if n:
            row[:, 6 * (n - 1):6 * n] = -Qn.T @ k["T"]
        # 𝓠ᵀ(v̇_n - 𝓣 v̇_{n-1}) = 𝓠ᵀ(𝓣̇ v_{n-1} + 𝓟̇ v_nγ) = 𝓠ᵀ(a_non,n - 𝓣 a_non,n-1)  (D16)
        local = k["a_non"] - k["T"] @ (kin[n - 1]["a_non"] if n else np.zeros(6))
        rows.append(row)
        rhs.append(Qn.T @ local)
    return M, Q, np.vstack(rows), np.concatenate(rhs), kin


def test_udwadia_kalaba_and_gauss_in_maximal_coordinates_equal_the_recursion():
    chain, gamma, gamma_dot, tau = mixed_chain(4)
    gdd = chain.forward_dynamics(gamma, gamma_dot, tau)
    M, Q, A, b, kin = _maximal_coordinates(chain, gamma, gamma_dot, tau)
    vdot = uk_accelerations(M, Q, A, b).qdd
    # body accelerations from the recursion: v̇_n = a_n + a_non,n
    expected, a_prev = [], np.zeros(6)
    for n, k in enumerate(kin):
        a = k["T"] @ a_prev + k["P"] @ chain._split(gdd)[n]
        expected.append(a + k["a_non"])
        a_prev = a
    np.testing.assert_allclose(vdot, np.concatenate(expected), rtol=1e-10, atol=1e-10)
    # Gauss's principle as a Pyomo QP, solved through SolverFactory
    model = gauss_problem(M, Q, A, b)
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.options["tol"] = 1e-12
    assert opt.solve(model).solver.termination_condition == pyo.TerminationCondition.optimal
    np.testing.assert_allclose([pyo.value(model.qdd[i]) for i in model.I], vdot, atol=1e-7)


def test_energy_is_conserved_without_joint_forces():
    from scipy.integrate import solve_ivp

    chain, gamma, gamma_dot, _ = mixed_chain(6)

    def energy(y):
        g, gd = y[:chain.dof], y[chain.dof:]
        kin = chain.kinematics(g, gd)
        T = sum(0.5 * k["v"] @ M @ k["v"] for k, M in zip(kin, chain._M))
        V = 0.0
        pos = np.zeros(3)
        R = np.eye(3)
        for joint, body, gn in zip(chain.joints, chain.bodies, chain._split(g)):
            C, r, _, _ = joint.evaluate(gn, np.zeros(joint.dofs))
            pos = pos + R @ r
            R = R @ C.T
            V -= body.mass * chain.gravity @ (pos + R @ body.com)
        return T + V

    rhs = lambda t, y: np.concatenate([y[chain.dof:], chain.forward_dynamics(y[:chain.dof], y[chain.dof:])])  # noqa: E731
    y0 = np.concatenate([gamma, gamma_dot])
    sol = solve_ivp(rhs, (0, 2.0), y0, rtol=1e-10, atol=1e-12)
    E0, E1 = energy(y0), energy(sol.y[:, -1])
    assert abs(E1 - E0) < 1e-7 * max(1.0, abs(E0))
