"""The three-link arm as a hand-written Hermite–Simpson NLP in CasADi (fourth-order collocation).

The reference a user who needs J to many digits would write: the thesis E3 arm in its
absolute link angles φ (the equations of :mod:`benchmarks.dae_arm`), states x = (φ, ω)
at the nodes and at the interval midpoints, accelerations a as unknowns with the
equations of motion M(φ) a + c(φ, ω) + ∂V/∂φ + τ(u) = 0 stated at nodes and midpoints
(no symbolic inverse of M), controls at nodes and midpoints (continuous, piecewise
quadratic), the separated Hermite–Simpson rows

    φ_c = (φ_k + φ_{k+1})/2 + h (ω_k - ω_{k+1})/8,   φ_{k+1} - φ_k = h (ω_k + 4 ω_c + ω_{k+1})/6,
    ω_c = (ω_k + ω_{k+1})/2 + h (a_k - a_{k+1})/8,   ω_{k+1} - ω_k = h (a_k + 4 a_c + a_{k+1})/6,

and J = Σ_k h (½|u_k|² + 4·½|u_c|² + ½|u_{k+1}|²)/6 (Simpson's rule), rest to rest from α₀
to α_f in T = 3.  Betts, *Practical Methods for Optimal Control*, §4.6.  Solved by CasADi's
IPOPT with its defaults (tol 1e-8).
"""

import time

import numpy as np

from benchmarks.dae_arm import PHI0, PHIF, T, _coefficients, rest_to_rest


def _accelerations_residual(ca, M, gv, phi, w, a, u):
    torque = [u[j] - (u[j + 1] if j < 2 else 0) for j in range(3)]
    return ca.vertcat(*[sum(M[j, k] * (ca.cos(phi[j] - phi[k]) * a[k] + ca.sin(phi[j] - phi[k]) * w[k] ** 2)
                            for k in range(3)) + gv[j] * ca.cos(phi[j]) + torque[j] for j in range(3)])


def build(N):
    """``(nlp, x0, lbx, ubx, n_unknowns)`` of the Hermite–Simpson arm with N intervals."""
    import casadi as ca

    _, M, gv = _coefficients()
    h = T / N
    X = ca.SX.sym("X", 12, N + 1)    # φ, ω, a, u at the nodes
    C = ca.SX.sym("C", 12, N)        # φ, ω, a, u at the midpoints
    g, J = [], 0
    for k in range(N + 1):
        g.append(_accelerations_residual(ca, M, gv, X[0:3, k], X[3:6, k], X[6:9, k], X[9:12, k]))
    for k in range(N):
        xk, xn, xc = X[:, k], X[:, k + 1], C[:, k]
        g.append(_accelerations_residual(ca, M, gv, xc[0:3], xc[3:6], xc[6:9], xc[9:12]))
        for pos, rate in ((slice(0, 3), slice(3, 6)), (slice(3, 6), slice(6, 9))):
            g.append(xc[pos] - 0.5 * (xk[pos] + xn[pos]) - h / 8 * (xk[rate] - xn[rate]))
            g.append(xn[pos] - xk[pos] - h / 6 * (xk[rate] + 4 * xc[rate] + xn[rate]))
        J += h / 6 * 0.5 * (ca.sumsqr(xk[9:12]) + 4 * ca.sumsqr(xc[9:12]) + ca.sumsqr(xn[9:12]))
    z = ca.vertcat(ca.vec(X), ca.vec(C))
    lbx, ubx = -np.inf * np.ones(z.shape[0]), np.inf * np.ones(z.shape[0])
    fixed = {0: PHI0, 3: np.zeros(3)}            # φ(0), ω(0)
    last = {0: PHIF, 3: np.zeros(3)}             # φ(T), ω(T)
    for node, values in ((0, fixed), (N, last)):
        for start, v in values.items():
            for j in range(3):
                lbx[12 * node + start + j] = ubx[12 * node + start + j] = v[j]
    # guess: the quintic rest-to-rest profile, with its accelerations and torques
    x0 = np.zeros(z.shape[0])
    for k, s in enumerate(np.linspace(0, 1, N + 1)):
        x0[12 * k:12 * k + 12] = _profile(M, gv, s)
    for k in range(N):
        x0[12 * (N + 1) + 12 * k:12 * (N + 1) + 12 * k + 12] = _profile(M, gv, (k + 0.5) / N)
    return {"x": z, "f": J, "g": ca.vertcat(*g)}, x0, lbx, ubx, int(z.shape[0] - 12)


def _profile(M, gv, s):
    return np.concatenate(rest_to_rest(M, gv, s))


def solve(N, timelimit=120.0):
    """Build and solve; the measured phases (wall and CPU seconds), status, iterations, J."""
    import casadi as ca

    w0, c0 = time.perf_counter(), time.process_time()
    nlp, x0, lbx, ubx, unknowns = build(N)
    solver = ca.nlpsol("hermite_simpson", "ipopt", nlp, {
        "ipopt": {"print_level": 0, "max_wall_time": timelimit}, "print_time": False})
    w1 = time.perf_counter()
    result = solver(x0=x0, lbx=lbx, ubx=ubx, lbg=0, ubg=0)
    w2, c2 = time.perf_counter(), time.process_time()
    stats = solver.stats()
    ok = stats["success"]
    return {"method": "hermite-simpson", "N": N, "status": "optimal" if ok else stats["return_status"],
            "iterations": stats["iter_count"], "objective": float(result["f"]) if ok else None,
            "build_s": w1 - w0, "solve_s": w2 - w1, "wall_s": w2 - w0, "cpu_s": c2 - c0, "unknowns": unknowns}
