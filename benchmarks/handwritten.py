"""Hand-written CasADi NLPs of the papers' problems, side by side with the library.

Benchmark code, not library code: every NLP here is written from the
specifications (``/work/shared/spec/thesis.md`` §2.3–2.4, 2.10, E3, E5),
in CasADi SX with exact Hessians and ``nlpsol('ipopt')`` at tol 1e-8, and
must reproduce the library's objective (``pyomo_mbdyn.cli.run_model``) to at
least 7 significant digits — :func:`main` checks and prints it.

* ``arm-rem``: the three-link arm (thesis E3, Table 6.1) in the thesis's REM
  form: unknowns α₁..α_N (joint angles) and u (6N = 120 at N = 20); the
  directors are exact functions of the absolute angles, the redundant
  velocities come from the midpoint recursion v_{k+1} = 2/h (q_{k+1} - q_k) - v_k,
  the step equations are P(q_{k+1/2})ᵀ{M(v_{k+1} - v_k) + h∇V} + h u = 0.
* ``arm-bem``: the same arm as the BEM in planar director coordinates
  (per link φ, d₁, d₂ ∈ R², 18 coordinates, 15 constraints), contravariant
  midpoint directors in Bᵀu.
* ``crane-bem`` / ``crane-rem``: the overhead crane (thesis E5) as BEM in
  (q, v, γ) and as REM in θ = (Δs, Δβ, α) with velocities eliminated.
* ``arm-rem-v``: the arm REM with the redundant velocities as unknowns
  (banded derivatives instead of the dense ones of the eliminated velocities).
* ``sphere``: DMOCC §7.1 in the paper's minimal form (relative exp
  reparametrisation, 360 unknowns / 192 constraints, J = h Σ ‖τ‖²).

Final conditions as in the library's models: arm θ_N = Δα, ν_N = B(q_N) v_N = 0
(bem: q_N = q_f with Φ(q_N) dropped); crane q_N = q_f (Σ w = Δθ) and v_N = 0.
"""

import time

import casadi as ca
import numpy as np

# ---------------------------------------------------------------- the arm (E3)
ARM_LINKS = ((30.0, 1.225, 143.3027, 7.0), (25.0, 1.0208, 88.0208, 6.0), (10.0, 0.4083, 60.2083, 8.0))
ARM_G, ARM_T = 9.81, 3.0
ALPHA0 = np.array([np.pi / 2, -np.pi / 2, np.pi / 2])
ALPHAF = np.array([np.pi / 2, 0.0, 0.0])


def _cross_e3(a):
    """e3 × a for a planar vector a."""
    return ca.vertcat(-a[1], a[0]) if isinstance(a, (ca.SX, ca.MX)) else np.array([-a[1], a[0]])


def _perp_dot(a, b):
    """e3 · (a × b) for planar vectors."""
    return a[0] * b[1] - a[1] * b[0]


def arm_q(alpha, lib=ca):
    """Planar director coordinates (c_i, d1_i, d2_i per link, 18) of joint angles α."""
    out, tip, angle = [], [0.0, 0.0], 0.0
    for (_, _, _, length), a in zip(ARM_LINKS, [alpha[0], alpha[1], alpha[2]]):
        angle = angle + a
        c, s = lib.cos(angle), lib.sin(angle)
        centre = [tip[0] + 0.5 * length * c, tip[1] + 0.5 * length * s]
        out += centre + [c, s, -s, c]
        tip = [tip[0] + length * c, tip[1] + length * s]
    return ca.vertcat(*out) if lib is ca else np.array(out, float)


def _arm_mass():
    diag = []
    for m, E1, E2, _ in ARM_LINKS:
        diag += [m, m, E2, E2, E1, E1]  # Euler values (E2, E1, E1) along (link, normal, e3)
    return np.array(diag)


def _blocks(q):
    """Per link (centre, d1, d2) of an 18-vector."""
    return [(q[6 * i:6 * i + 2], q[6 * i + 2:6 * i + 4], q[6 * i + 4:6 * i + 6]) for i in range(3)]


def _joint_points(q):
    """Joint locations p_j = c_j - l_j/2 d1_j (linear in q)."""
    return [c - 0.5 * ARM_LINKS[j][3] * d1 for j, (c, d1, _) in enumerate(_blocks(q))]


def arm_rem_step(qa, qb, dv, u, h):
    """P(q_{k+1/2})ᵀ{M Δv + h∇V} + h u (3 rows, thesis Eq. 3.34, ν = relative joint rates)."""
    qm = 0.5 * (qa + qb)
    blocks, pts = _blocks(qm), _joint_points(qm)
    dvb = _blocks(dv)
    rows = []
    for j in range(3):
        r = h * u[j]
        for i in range(j, 3):
            m, E1, E2, _ = ARM_LINKS[i]
            c, d1, d2 = blocks[i]
            dvc, dv1, dv2 = dvb[i]
            r = r + m * ca.dot(_cross_e3(c - pts[j]), dvc + ca.vertcat(0.0, h * ARM_G))
            r = r + E2 * ca.dot(_cross_e3(d1), dv1) + E1 * ca.dot(_cross_e3(d2), dv2)
        rows.append(r)
    return ca.vertcat(*rows)


def arm_node_rates(q, v, contravariant=None):
    """ν = B v (relative joint rates); ω_i = ½ e3·Σ_a d^a × v_a with the given
    (contravariant) directors, or the node's own directors."""
    dirs = contravariant if contravariant is not None else [(d1, d2) for _, d1, d2 in _blocks(q)]
    omegas = [0.5 * (_perp_dot(a1, vb[1]) + _perp_dot(a2, vb[2])) for (a1, a2), vb in zip(dirs, _blocks(v))]
    return ca.vertcat(omegas[0], omegas[1] - omegas[0], omegas[2] - omegas[1])


def _quintic(N):
    s = np.linspace(0.0, 1.0, N + 1)
    return 10 * s**3 - 15 * s**4 + 6 * s**5


def arm_rem(N=20):
    """The arm REM in joint angles: x = (α_1..α_N, u_0..u_{N-1})."""
    h = ARM_T / N
    A = ca.SX.sym("alpha", 3, N)
    U = ca.SX.sym("u", 3, N)
    Mdiag = _arm_mass()
    q_prev = ca.DM(arm_q(ALPHA0, np))
    v_prev = ca.DM.zeros(18)
    g = []
    for k in range(N):
        q_next = arm_q(A[:, k])
        v_next = 2.0 / h * (q_next - q_prev) - v_prev
        g.append(arm_rem_step(q_prev, q_next, v_next - v_prev, U[:, k], h))
        q_prev, v_prev = q_next, v_next
    g.append(A[:, N - 1] - ALPHAF)
    g.append(arm_node_rates(q_prev, v_prev))
    x = ca.vertcat(ca.vec(A), ca.vec(U))
    f = 0.5 * h * ca.sumsqr(U)
    # guess: quintic joint angles, controls from the step equations at u = 0
    alpha = ALPHA0[:, None] + (ALPHAF - ALPHA0)[:, None] * _quintic(N)[None, :]
    gfun = ca.Function("g", [x], [ca.vertcat(*g[:N])])
    x0 = np.concatenate([alpha[:, 1:].T.ravel(), np.zeros(3 * N)])
    x0[3 * N:] = -np.asarray(gfun(x0)).ravel() / h
    g = ca.vertcat(*g)
    return {"x": x, "f": f, "g": g}, x0, np.zeros(g.shape[0]), np.zeros(g.shape[0])


def arm_rem_sparse(N=20):
    """The same REM with the redundant velocities as unknowns (the recursion as equations):
    x = (α_k, v_k, u_k); more unknowns (24N), but a banded Jacobian and Hessian instead of the
    dense lower-triangular ones of the eliminated velocities."""
    h = ARM_T / N
    A, V, U = ca.SX.sym("alpha", 3, N), ca.SX.sym("v", 18, N), ca.SX.sym("u", 3, N)
    q_prev, v_prev = ca.DM(arm_q(ALPHA0, np)), ca.DM.zeros(18)
    g = []
    for k in range(N):
        q_next, v_next = arm_q(A[:, k]), V[:, k]
        g.append(v_next + v_prev - 2.0 / h * (q_next - q_prev))
        g.append(arm_rem_step(q_prev, q_next, v_next - v_prev, U[:, k], h))
        q_prev, v_prev = q_next, v_next
    g.append(A[:, N - 1] - ALPHAF)
    g.append(arm_node_rates(q_prev, v_prev))
    g = ca.vertcat(*g)
    x = ca.vertcat(ca.vec(A), ca.vec(V), ca.vec(U))
    alpha = ALPHA0[:, None] + (ALPHAF - ALPHA0)[:, None] * _quintic(N)[None, :]
    q = np.array([arm_q(alpha[:, k], np) for k in range(N + 1)])
    v = np.zeros_like(q)
    for k in range(N):
        v[k + 1] = 2.0 / h * (q[k + 1] - q[k]) - v[k]
    x0 = np.concatenate([alpha[:, 1:].T.ravel(), v[1:].ravel(), np.zeros(3 * N)])
    gfun = ca.Function("g", [x], [g])
    r = np.asarray(gfun(x0)).ravel()
    for k in range(N):  # controls from the step equations at u = 0
        x0[21 * N + 3 * k:21 * N + 3 * k + 3] = -r[21 * k + 18:21 * k + 21] / h
    return {"x": x, "f": 0.5 * h * ca.sumsqr(U), "g": g}, x0, np.zeros(g.shape[0]), np.zeros(g.shape[0])


def _arm_phi(q):
    rows, blocks = [], _blocks(q)
    for c, d1, d2 in blocks:
        rows += [0.5 * (ca.dot(d1, d1) - 1), 0.5 * (ca.dot(d2, d2) - 1), ca.dot(d1, d2)]
    tips = [c + 0.5 * ARM_LINKS[i][3] * d1 for i, (c, d1, _) in enumerate(blocks)]
    pts = _joint_points(q)
    rows += [pts[0][0], pts[0][1]]
    for j in (1, 2):
        rows += [pts[j][0] - tips[j - 1][0], pts[j][1] - tips[j - 1][1]]
    return ca.vertcat(*rows)


def _contravariant(qm):
    """Contravariant midpoint directors d^1, d^2 of each link (R♯ = R^{-T})."""
    out = []
    for _, d1, d2 in _blocks(qm):
        det = d1[0] * d2[1] - d1[1] * d2[0]
        # rows of R^{-1} = columns of R^{-T}; R = [d1 d2]
        out.append((ca.vertcat(d2[1], -d2[0]) / det, ca.vertcat(-d1[1], d1[0]) / det))
    return out


def arm_bem(N=20):
    """The arm BEM in planar directors: x = (q_k, v_k, γ_k, u_k) per step."""
    h = ARM_T / N
    n, m = 18, 15
    Mdiag = _arm_mass()
    Q = ca.SX.sym("q", n, N)
    V = ca.SX.sym("v", n, N)
    Gam = ca.SX.sym("gamma", m, N)
    U = ca.SX.sym("u", 3, N)
    qs = ca.SX.sym("qs", n)
    phi = _arm_phi(qs)
    G = ca.Function("G", [qs], [ca.jacobian(phi, qs)])
    grad_v = ca.DM(np.tile([0.0, ARM_G * 1.0, 0, 0, 0, 0], 3)) * ca.DM(Mdiag)
    q_prev = ca.DM(arm_q(ALPHA0, np))
    v_prev = ca.DM.zeros(n)
    g = []
    for k in range(N):
        qn, vn = Q[:, k], V[:, k]
        qm = 0.5 * (q_prev + qn)
        vm = 0.5 * (v_prev + vn)
        sharp = _contravariant(qm)
        # Bᵀu: ½ (u_i - u_{i+1}) e3 × d^a on link i's directors
        bt = []
        for i, (a1, a2) in enumerate(sharp):
            w = U[i, k] - (U[i + 1, k] if i < 2 else 0.0)
            bt += [0.0, 0.0, 0.5 * w * _cross_e3(a1)[0], 0.5 * w * _cross_e3(a1)[1],
                   0.5 * w * _cross_e3(a2)[0], 0.5 * w * _cross_e3(a2)[1]]
        g.append(qn - q_prev - h * vm)
        g.append(Mdiag * (vn - v_prev) + h * (ca.mtimes(G(qm).T, Gam[:, k]) + grad_v + ca.vertcat(*bt)))
        if k < N - 1:
            g.append(_arm_phi(qn))
        q_prev, v_prev = qn, vn
    g.append(Q[:, N - 1] - arm_q(ALPHAF, np))
    g.append(arm_node_rates(Q[:, N - 1], V[:, N - 1]))
    g = ca.vertcat(*g)
    x = ca.vertcat(ca.vec(Q), ca.vec(V), ca.vec(Gam), ca.vec(U))
    f = 0.5 * h * ca.sumsqr(U)
    # guess: the REM guess mapped to directors, velocities by the recursion, forces split by least squares
    alpha = ALPHA0[:, None] + (ALPHAF - ALPHA0)[:, None] * _quintic(N)[None, :]
    q = np.array([arm_q(alpha[:, k], np) for k in range(N + 1)])
    v = np.zeros_like(q)
    for k in range(N):
        v[k + 1] = 2.0 / h * (q[k + 1] - q[k]) - v[k]
    vsym = ca.SX.sym("vs", n)
    Bfun = ca.Function("B", [qs, vsym], [ca.jacobian(arm_node_rates(qs, vsym, _contravariant(qs)), vsym)])
    gam, uu = np.zeros((N, m)), np.zeros((N, 3))
    for k in range(N):
        qm = 0.5 * (q[k] + q[k + 1])
        Gm, Bm = np.asarray(G(qm)), np.asarray(Bfun(qm, np.zeros(n)))
        rhs = -(Mdiag * (v[k + 1] - v[k]) / h + np.asarray(grad_v).ravel())
        sol = np.linalg.lstsq(np.hstack([Gm.T, Bm.T]), rhs, rcond=None)[0]
        gam[k], uu[k] = sol[:m], sol[m:]
    x0 = np.concatenate([q[1:].ravel(), v[1:].ravel(), gam.ravel(), uu.ravel()])
    return {"x": x, "f": f, "g": g}, x0, np.zeros(g.shape[0]), np.zeros(g.shape[0])


# -------------------------------------------------------------- the crane (E5)
CR_MT, CR_J, CR_M, CR_R, CR_G, CR_T = 10.0, 0.1, 100.0, 0.1, 9.81, 3.0
CR_Q0 = np.array([0.0, 40.0, 0.0, 4.0])
CR_QF = np.array([5.0, 10.0, 5.0, 1.0])
CR_MASS = np.array([CR_MT, CR_J, CR_M, CR_M])
CR_GRADV = np.array([0.0, 0.0, 0.0, -CR_M * CR_G])  # V = -m g z
CR_BT = np.array([[-1.0, 0.0], [0.0, -1.0], [0.0, 0.0], [0.0, 0.0]])  # Bᵀ, B = [-I 0]


def crane_q(theta, lib=ca):
    """q(θ) = (s, β, s + rβ sin α, rβ cos α), θ = (Δs, Δβ, α) from q_0."""
    s, beta = CR_Q0[0] + theta[0], CR_Q0[1] + theta[1]
    out = [s, beta, s + CR_R * beta * lib.sin(theta[2]), CR_R * beta * lib.cos(theta[2])]
    return ca.vertcat(*out) if lib is ca else np.array(out, float)


CR_THETAF = np.array([CR_QF[0] - CR_Q0[0], CR_QF[1] - CR_Q0[1], np.arctan2(CR_QF[2] - CR_QF[0], CR_QF[3])])


def _crane_phi(q):
    s, beta, x, z = q[0], q[1], q[2], q[3]
    return (x - s) ** 2 + z ** 2 - CR_R**2 * beta**2


def _crane_G(q):
    s, beta, x, z = q[0], q[1], q[2], q[3]
    return ca.horzcat(-2 * (x - s), -2 * CR_R**2 * beta, 2 * (x - s), 2 * z)


def _crane_P(q):
    s, beta, x, z = q[0], q[1], q[2], q[3]
    return ca.vertcat(ca.horzcat(1, 0, 0), ca.horzcat(0, z, 0), ca.horzcat(1, 0, -z),
                      ca.horzcat(0, CR_R**2 * beta, x - s))


def _crane_guess(N):
    h = CR_T / N
    theta = CR_THETAF[:, None] * _quintic(N)[None, :]
    q = np.array([crane_q(theta[:, k], np) for k in range(N + 1)])
    v = np.zeros_like(q)
    for k in range(N):
        v[k + 1] = 2.0 / h * (q[k + 1] - q[k]) - v[k]
    gam, u = np.zeros(N), np.zeros((N, 2))
    for k in range(N):
        qm = 0.5 * (q[k] + q[k + 1])
        Gm = np.asarray(_crane_G(ca.DM(qm))).ravel()
        rhs = -(CR_MASS * (v[k + 1] - v[k]) / h + CR_GRADV)
        sol = np.linalg.lstsq(np.column_stack([Gm, CR_BT]), rhs, rcond=None)[0]
        gam[k], u[k] = sol[0], sol[1:]
    return theta, q, v, gam, u


def crane_bem(N=40):
    h = CR_T / N
    Q, V = ca.SX.sym("q", 4, N), ca.SX.sym("v", 4, N)
    Gam, U = ca.SX.sym("gamma", 1, N), ca.SX.sym("u", 2, N)
    q_prev, v_prev = ca.DM(CR_Q0), ca.DM.zeros(4)
    g = []
    for k in range(N):
        qn, vn = Q[:, k], V[:, k]
        qm, vm = 0.5 * (q_prev + qn), 0.5 * (v_prev + vn)
        g.append(qn - q_prev - h * vm)
        g.append(CR_MASS * (vn - v_prev) + h * (_crane_G(qm).T * Gam[0, k] + CR_GRADV + ca.mtimes(CR_BT, U[:, k])))
        if k < N - 1:
            g.append(_crane_phi(qn))
        q_prev, v_prev = qn, vn
    g.append(Q[:, N - 1] - CR_QF)
    g.append(V[:, N - 1])
    g = ca.vertcat(*g)
    x = ca.vertcat(ca.vec(Q), ca.vec(V), ca.vec(Gam), ca.vec(U))
    _, q, v, gam, u = _crane_guess(N)
    x0 = np.concatenate([q[1:].ravel(), v[1:].ravel(), gam, u.ravel()])
    return {"x": x, "f": 0.5 * h * ca.sumsqr(U), "g": g}, x0, np.zeros(g.shape[0]), np.zeros(g.shape[0])


def crane_rem(N=40):
    h = CR_T / N
    TH, U = ca.SX.sym("theta", 3, N), ca.SX.sym("u", 2, N)
    q_prev, v_prev = ca.DM(CR_Q0), ca.DM.zeros(4)
    g = []
    for k in range(N):
        qn = crane_q(TH[:, k])
        vn = 2.0 / h * (qn - q_prev) - v_prev
        qm = 0.5 * (q_prev + qn)
        g.append(ca.mtimes(_crane_P(qm).T, CR_MASS * (vn - v_prev) + h * (CR_GRADV + ca.mtimes(CR_BT, U[:, k]))))
        q_prev, v_prev = qn, vn
    g.append(TH[:, N - 1] - CR_THETAF)
    g.append(v_prev)
    g = ca.vertcat(*g)
    x = ca.vertcat(ca.vec(TH), ca.vec(U))
    theta, _, _, _, u = _crane_guess(N)
    x0 = np.concatenate([theta[:, 1:].T.ravel(), u.ravel()])
    return {"x": x, "f": 0.5 * h * ca.sumsqr(U), "g": g}, x0, np.zeros(g.shape[0]), np.zeros(g.shape[0])


# ------------------------------------------------------------- the sphere (DMOCC §7.1)
SP_R, SP_RHO, SP_T = 0.05, 27000.0, 3.0
SP_M = 4.0 / 3.0 * np.pi * SP_R**3 * SP_RHO
SP_E = 0.5 * 2.0 / 5.0 * SP_M * SP_R**2  # E_I = J/2 for the solid sphere
SP_START, SP_TARGET = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 2.0])
SP_AXIS = np.array([-1.0, 1.0, 1.0]) / np.sqrt(3.0)


def _hat(a):
    return ca.vertcat(ca.horzcat(0, -a[2], a[1]), ca.horzcat(a[2], 0, -a[0]), ca.horzcat(-a[1], a[0], 0))


def _rodrigues(theta):
    """R(θ) = I + sin|θ|/|θ| θ̂ + ½ (sin(|θ|/2)/(|θ|/2))² θ̂² (thesis §2.4, exp map)."""
    t = ca.sqrt(ca.sumsqr(theta))
    H = _hat(theta)
    return ca.DM.eye(3) + ca.sin(t) / t * H + 0.5 * (ca.sin(t / 2) / (t / 2)) ** 2 * ca.mtimes(H, H)


def _sphere_P(q):
    """12 × 6 null-space matrix [[I, 0], [0, -d̂_1], [0, -d̂_2], [0, -d̂_3]] at a node."""
    Z = ca.DM.zeros(3, 3)
    return ca.vertcat(ca.horzcat(ca.DM.eye(3), Z), *[ca.horzcat(Z, -_hat(q[3 + 3 * i:6 + 3 * i])) for i in range(3)])


def sphere_dmocc(N=30):
    """DMOCC, relative reparametrisation q_n = F(u_n, q_{n-1}) (φ + u_φ, R(u_θ) d_I), the
    paper's minimal form: x = (u_1..u_N, τ_0..τ_{N-1}), 12N unknowns, 6N + 12 constraints
    (reduced forced DEL at n = 1..N-1, P(q_0)ᵀp_0⁻ = 0, P(q_N)ᵀp_N⁺ = 0, φ_N, axial(skew R_N))."""
    h = SP_T / N
    Mdiag = ca.DM(np.array([SP_M] * 3 + [SP_E] * 9))
    Uq, Tau = ca.SX.sym("u", 6, N), ca.SX.sym("tau", 6, N)
    q = [ca.DM(np.concatenate([SP_START, np.eye(3).ravel()]))]
    for n in range(N):
        prev = q[-1]
        R = _rodrigues(Uq[3:, n])
        dirs = [ca.mtimes(R, prev[3 + 3 * i:6 + 3 * i]) for i in range(3)]
        q.append(ca.vertcat(prev[:3] + Uq[:3, n], *dirs))
    g = [ca.mtimes(_sphere_P(q[0]).T, Mdiag * (q[1] - q[0]) / h) - 0.5 * h * Tau[:, 0]]
    for n in range(1, N):
        g.append(ca.mtimes(_sphere_P(q[n]).T, Mdiag * (2 * q[n] - q[n - 1] - q[n + 1]) / h)
                 + 0.5 * h * (Tau[:, n - 1] + Tau[:, n]))
    g.append(ca.mtimes(_sphere_P(q[N]).T, Mdiag * (q[N] - q[N - 1]) / h) + 0.5 * h * Tau[:, N - 1])
    g.append(q[N][:3] - SP_TARGET)
    RN = ca.horzcat(q[N][3:6], q[N][6:9], q[N][9:12])
    g.append(ca.vertcat(RN[2, 1] - RN[1, 2], RN[0, 2] - RN[2, 0], RN[1, 0] - RN[0, 1]))
    g = ca.vertcat(*g)
    x = ca.vertcat(ca.vec(Uq), ca.vec(Tau))
    inc = np.concatenate([(SP_TARGET - SP_START) / N, SP_AXIS * (6 * np.pi / N)])
    x0 = np.concatenate([np.tile(inc, N), np.zeros(6 * N)])
    return {"x": x, "f": h * ca.sumsqr(Tau), "g": g}, x0, np.zeros(g.shape[0]), np.zeros(g.shape[0])


ARM_TORQUE_LIMITS = np.array([3000.0, 2000.0, 1000.0])


def arm_rem_time(N=20):
    """The arm in minimum time (the model's ``case="time"``): :func:`arm_rem_sparse` with
    h = T/N, T a variable in [0.5, 10], |u| ≤ (3000, 2000, 1000), minimise T;
    x = (α_k, v_k, u_k, T).  Returns also the variable bounds."""
    A, V, U = ca.SX.sym("alpha", 3, N), ca.SX.sym("v", 18, N), ca.SX.sym("u", 3, N)
    T = ca.SX.sym("T")
    h = T / N
    q_prev, v_prev = ca.DM(arm_q(ALPHA0, np)), ca.DM.zeros(18)
    g = []
    for k in range(N):
        q_next, v_next = arm_q(A[:, k]), V[:, k]
        g.append(h * (v_next + v_prev) - 2.0 * (q_next - q_prev))
        g.append(arm_rem_step(q_prev, q_next, v_next - v_prev, U[:, k], h))
        q_prev, v_prev = q_next, v_next
    g.append(A[:, N - 1] - ALPHAF)
    g.append(arm_node_rates(q_prev, v_prev))
    g = ca.vertcat(*g)
    x = ca.vertcat(ca.vec(A), ca.vec(V), ca.vec(U), T)
    nlp0, x0, lbg, ubg = arm_rem_sparse(N)  # the effort guess at T = 3
    x0 = np.concatenate([x0, [ARM_T]])
    lbx = np.concatenate([np.full(21 * N, -np.inf), np.tile(-ARM_TORQUE_LIMITS, N), [0.5]])
    ubx = np.concatenate([np.full(21 * N, np.inf), np.tile(ARM_TORQUE_LIMITS, N), [10.0]])
    return {"x": x, "f": T, "g": g}, x0, np.zeros(g.shape[0]), np.zeros(g.shape[0]), (lbx, ubx)


PROBLEMS = {
    # name: (builder, N, library model, library scheme)
    "arm-rem": (arm_rem, 20, "three-link-arm", "rem"),
    "arm-rem-v": (arm_rem_sparse, 20, "three-link-arm", "rem"),
    "arm-bem": (arm_bem, 20, "three-link-arm", "bem"),
    "crane-bem": (crane_bem, 40, "crane", "bem"),
    "crane-rem": (crane_rem, 40, "crane", "rem"),
    "sphere": (sphere_dmocc, 30, "sphere", "dmocc"),
}
#: free-final-time problems: not in the before/after table (the base commit has no free time);
#: benchmarks/free_time.py puts them beside the library
TIME_PROBLEMS = {"arm-rem-time": (arm_rem_time, 20, "three-link-arm", "rem")}


def solve_handwritten(name, N=None, timelimit=120.0, ipopt_options=None):
    """Build and solve one hand-written NLP; wall and CPU seconds per phase
    (IPOPT's defaults, or with ``ipopt_options`` added)."""
    builder, N0, _, _ = {**PROBLEMS, **TIME_PROBLEMS}[name]
    N = N0 if N is None else N
    w0, c0 = time.perf_counter(), time.process_time()
    nlp, x0, lbg, ubg, *bounds = builder(N)
    lbx, ubx = bounds[0] if bounds else (-np.inf, np.inf)
    w1, c1 = time.perf_counter(), time.process_time()
    opts = {"ipopt.tol": 1e-8, "ipopt.print_level": 0, "print_time": False,
            "ipopt.max_wall_time": float(timelimit)}
    opts.update({f"ipopt.{k}": v for k, v in (ipopt_options or {}).items()})
    solver = ca.nlpsol("hand", "ipopt", nlp, opts)
    w2, c2 = time.perf_counter(), time.process_time()
    sol = solver(x0=x0, lbg=lbg, ubg=ubg, lbx=lbx, ubx=ubx)
    w3, c3 = time.perf_counter(), time.process_time()
    stats = solver.stats()
    return {"name": name, "N": N, "unknowns": int(nlp["x"].shape[0]), "objective": float(sol["f"]),
            "status": stats["return_status"], "iterations": stats["iter_count"],
            "build_s": w1 - w0, "nlpsol_s": w2 - w1, "solve_s": w3 - w2, "wall_s": w3 - w0,
            "cpu_s": c3 - c0}
