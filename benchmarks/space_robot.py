"""Issue 49's exactness claim on the space robot: momentum error against t and N, and time.

The problem is case ``"arm"`` (issue 49's case a) of :mod:`pyomo_mbdyn.models.space_robot`:
the 300 kg satellite carrying the Panda (``robots.path("space_robot")``, floating base, no
gravity), from rest at the URDF reference with the arm at START to the arm at TARGET and at
rest in T = 1.5 s, the base free, the seven arm joints actuated, J = h Σ ½|u|², the URDF's
position, velocity and effort limits.

* ``library SCHEME N`` — ``space_robot.build(scheme=..., steps=N, case="arm")`` solved by
  ``casadi_ipopt`` (:func:`benchmarks._measure.library_point`), with the model's own
  ``evaluate`` (``momentum_error``) and the per-node momentum error.
* ``reference N`` — what a user would write without the library: a hand-written
  Hermite–Simpson NLP (CasADi, IPOPT, Betts §4.6, the pattern of
  :mod:`benchmarks.hermite_simpson`) in minimal coordinates: base position p, base
  attitude as Pinocchio's quaternion (x, y, z, w; the kinematics ``q̇ = ½ q ⊗ ω`` without a
  norm row, the rotation taken from q/|q|), the seven joint angles θ; velocities the base
  twist in the base frame (Pinocchio's free-flyer convention) and θ̇; accelerations as
  unknowns with the recursive Newton–Euler inverse dynamics (written here in CasADi from
  the placements and inertias Pinocchio reads from the same URDF) equal to (0, u) at nodes
  and midpoints.  Its inverse dynamics is checked against ``pin.rnea`` and ``pin.aba``
  (``check``) before it is used.

The momentum error is the library's measure (:func:`pyomo_mbdyn.diagnostics.momentum_errors`)
for both: ``max_k |p_k − p_0| / s_p`` and ``max_k |L_k − L_0| / s_L`` (L about the world
origin), ``s_p = max_k Σ_β |p_β|``, ``s_L = max_k Σ_β |L_β − c_k × p_β|`` — the momentum the
bodies (satellite, Panda links 1–7) carry one by one, which the total keeps at zero while
the arm and the base swap it.  For the reference the bodies' momenta come from Pinocchio
(``oMi.act(I_i v_i)`` after ``forwardKinematics``, the quaternion normalised).

    python -m benchmarks.space_robot [--steps 25 50 100 200] [--repeat 3] [--write] [--table-only]
"""

import argparse
import json
import os
import resource
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SERIES = "space_robot"
SCHEMES = ("bem", "rem", "dmocc", "gc", "lobatto_gc")
STEPS = (25, 50, 100, 200)
FIGURE = os.path.join(HERE, "pages", "space_robot_momentum.png")


# ---------------------------------------------------------------------------------------------
# momentum along node states

def _error_series(p, L, s_p, s_L):
    p, L = np.asarray(p), np.asarray(L)
    lin = np.linalg.norm(p - p[0], axis=1) / (s_p if s_p > 0 else 1.0)
    ang = np.linalg.norm(L - L[0], axis=1) / (s_L if s_L > 0 else 1.0)
    return lin, ang


def library_momentum(system, q, v):
    """Per node: total p, L (about the origin) and the scales, as ``diagnostics.momentum_errors``."""
    from pyomo_mbdyn.diagnostics import momentum_series

    return momentum_series(system, q, v)


def pinocchio_momentum(model, Q, V):
    """The same measure from Pinocchio: body i's momentum ``oMi.act(I_i v_i)`` (about the origin)."""
    import pinocchio as pin

    data = model.createData()
    P, L, s_p, s_L = [], [], 0.0, 0.0
    for q, v in zip(Q, V):
        q = np.array(q, float)
        q[3:7] /= np.linalg.norm(q[3:7])
        pin.forwardKinematics(model, data, q, np.asarray(v, float))
        c = pin.centerOfMass(model, data, q)
        pk, Lk, sp, sL = np.zeros(3), np.zeros(3), 0.0, 0.0
        for i in range(1, model.njoints):
            f = data.oMi[i].act(model.inertias[i] * data.v[i])
            pb, Lb = np.array(f.linear), np.array(f.angular)
            pk, Lk = pk + pb, Lk + Lb
            sp, sL = sp + np.linalg.norm(pb), sL + np.linalg.norm(Lb - np.cross(c, pb))
        P.append(pk)
        L.append(Lk)
        s_p, s_L = max(s_p, sp), max(s_L, sL)
    return np.array(P), np.array(L), s_p, s_L


# ---------------------------------------------------------------------------------------------
# the library's model

def solve_library(scheme, N):
    from benchmarks._measure import library_point
    from pyomo_mbdyn.models import space_robot as module

    holder = {}

    def build():
        holder["m"] = module.build(scheme=scheme, steps=N, case="arm")
        return holder["m"]

    out = library_point(build, timelimit=300.0, energy=False)
    out.update(kind="library", scheme=scheme, N=N)
    if out["status"] in ("optimal", "locallyOptimal"):
        m = holder["m"]
        out.update({k: v for k, v in module.evaluate(m).items() if k.startswith("momentum")})
        tr = m.dyn.trajectory()
        P, L, s_p, s_L = library_momentum(m.dyn.system, tr.q, tr.v)
        lin, ang = _error_series(P, L, s_p, s_L)
        out.update(t=list(np.linspace(0.0, float(module.HORIZON), len(lin))), err_linear=lin.tolist(),
                   err_angular=ang.tolist(), mine_linear=float(lin.max()), mine_angular=float(ang.max()))
    return out


# ---------------------------------------------------------------------------------------------
# the reference: Hermite–Simpson in minimal coordinates, RNEA in CasADi

def pinocchio_model():
    import pinocchio as pin

    from pyomo_mbdyn import robots

    return pin.buildModelFromUrdf(robots.path("space_robot"), pin.JointModelFreeFlyer())


def _skew(ca, a):
    return ca.vertcat(ca.horzcat(0, -a[2], a[1]), ca.horzcat(a[2], 0, -a[0]), ca.horzcat(-a[1], a[0], 0))


def _quat_matrix(ca, q):
    """Rotation of the quaternion (x, y, z, w) normalised."""
    x, y, z, w = q[0], q[1], q[2], q[3]
    n = x * x + y * y + z * z + w * w
    return ca.vertcat(
        ca.horzcat(w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)),
        ca.horzcat(2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)),
        ca.horzcat(2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z)) / n


def _axis_rotation(ca, axis, angle):
    K = _skew(ca, ca.DM(axis))
    return ca.DM.eye(3) + ca.sin(angle) * K + (1 - ca.cos(angle)) * (K @ K)


def rnea_function(model):
    """CasADi Function (q[14], v[13], a[13]) -> τ[13] of the free-flyer tree (Pinocchio's
    conventions: q = (p, quat xyzw, θ), v = (base twist in the base frame, θ̇))."""
    import casadi as ca

    q, v, a = ca.SX.sym("q", model.nq), ca.SX.sym("v", model.nv), ca.SX.sym("a", model.nv)
    axes = {"JointModelRX": (1, 0, 0), "JointModelRY": (0, 1, 0), "JointModelRZ": (0, 0, 1)}
    cross = ca.cross
    V, A, F, X = {0: (ca.DM.zeros(3), ca.DM.zeros(3))}, {0: (ca.DM.zeros(3), ca.DM.zeros(3))}, {}, {}
    for i in range(1, model.njoints):
        jm = model.joints[i]
        kind, iq, iv = jm.shortname(), jm.idx_q, jm.idx_v
        Mp = model.jointPlacements[i]
        Rp, pp = ca.DM(Mp.rotation), ca.DM(Mp.translation)
        if kind == "JointModelFreeFlyer":
            Rj, pj = _quat_matrix(ca, q[iq + 3:iq + 7]), q[iq:iq + 3]
            vj, wj = v[iv:iv + 3], v[iv + 3:iv + 6]
            aj, bj = a[iv:iv + 3], a[iv + 3:iv + 6]
        else:
            axis = ca.DM(axes[kind])
            Rj, pj = _axis_rotation(ca, axes[kind], q[iq]), ca.DM.zeros(3)
            vj, wj, aj, bj = ca.DM.zeros(3), axis * v[iv], ca.DM.zeros(3), axis * a[iv]
        R, p = Rp @ Rj, pp + Rp @ pj  # parent -> i: x_parent = R x_i + p
        X[i] = (R, p)
        par = model.parents[i]
        vl, w = V[par]
        al, b = A[par]
        # motion from the parent frame into frame i: ω' = Rᵀω, v' = Rᵀ(v − p × ω)
        w_in, vl_in = R.T @ w, R.T @ (vl - cross(p, w))
        b_in, al_in = R.T @ b, R.T @ (al - cross(p, b))
        wi, vli = w_in + wj, vl_in + vj
        # a_i = X a_parent + S q̈ + v_i × (S q̇)
        bi = b_in + bj + cross(wi, wj)
        ali = al_in + aj + cross(wi, vj) + cross(vli, wj)
        V[i], A[i] = (vli, wi), (ali, bi)
        Y = model.inertias[i]
        m, c, Ic = Y.mass, ca.DM(Y.lever), ca.DM(Y.inertia)

        def inertia_times(lin, ang):
            f = m * (lin - cross(c, ang))
            return f, Ic @ ang + cross(c, f)

        f_a, n_a = inertia_times(ali, bi)
        f_v, n_v = inertia_times(vli, wi)
        F[i] = [f_a + cross(wi, f_v), n_a + cross(wi, n_v) + cross(vli, f_v)]
    tau = [None] * model.nv
    for i in reversed(range(1, model.njoints)):
        jm = model.joints[i]
        kind, iv = jm.shortname(), jm.idx_v
        f, n = F[i]
        if kind == "JointModelFreeFlyer":
            for k in range(3):
                tau[iv + k], tau[iv + 3 + k] = f[k], n[k]
        else:
            tau[iv] = ca.dot(ca.DM(axes[kind]), n)
        par = model.parents[i]
        if par > 0:
            R, p = X[i]
            fp = R @ f
            F[par][0] = F[par][0] + fp
            F[par][1] = F[par][1] + R @ n + cross(p, fp)
    return ca.Function("rnea", [q, v, a], [ca.vertcat(*tau)])


def check(samples=20, seed=1):
    """Largest difference of the CasADi RNEA from ``pin.rnea``, and of ``rnea(q, v, aba(q, v, τ))``
    from τ, at random states (gravity zero)."""
    import pinocchio as pin

    model = pinocchio_model()
    model.gravity.setZero()
    data = model.createData()
    f = rnea_function(model)
    rng = np.random.default_rng(seed)
    e_rnea = e_aba = 0.0
    for _ in range(samples):
        q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        q[:3] = rng.normal(size=3)
        v, a, tau = rng.normal(size=model.nv), rng.normal(size=model.nv), rng.normal(size=model.nv)
        ref = pin.rnea(model, data, q, v, a)
        e_rnea = max(e_rnea, float(np.abs(np.asarray(f(q, v, a)).ravel() - ref).max() / np.abs(ref).max()))
        acc = pin.aba(model, data, q, v, tau)
        e_aba = max(e_aba, float(np.abs(np.asarray(f(q, v, acc)).ravel() - tau).max() / np.abs(tau).max()))
    return {"rnea": e_rnea, "aba": e_aba}


def _quat_rate(ca, quat, w):
    """q̇ = ½ q ⊗ (ω, 0) for q = (x, y, z, w) and ω in the body frame."""
    qv, qw = quat[0:3], quat[3]
    return ca.vertcat(0.5 * (qw * w + ca.cross(qv, w)), -0.5 * ca.dot(qv, w))


def solve_reference(N, timelimit=300.0):
    import casadi as ca

    from pyomo_mbdyn.models import space_robot as module

    w0, c0 = time.perf_counter(), time.process_time()
    model = pinocchio_model()
    rnea = rnea_function(model)
    nq, nv, na = model.nq, model.nv, 7
    T, h = float(module.HORIZON), float(module.HORIZON) / N
    start, target = np.asarray(module.START, float), np.asarray(module.TARGET, float)
    lower, upper = model.lowerPositionLimit[7:], model.upperPositionLimit[7:]
    vmax, umax = model.velocityLimit[6:], model.effortLimit[6:]

    # x = (q, v): q̇ = (R ν_lin, ½ q ⊗ ω, θ̇), v̇ = a
    xs, as_ = ca.SX.sym("x", nq + nv), ca.SX.sym("a", nv)
    qq, vv = xs[:nq], xs[nq:]
    qdot = ca.vertcat(_quat_matrix(ca, qq[3:7]) @ vv[0:3], _quat_rate(ca, qq[3:7], vv[3:6]), vv[6:])
    rate = ca.Function("rate", [xs, as_], [ca.vertcat(qdot, as_)])
    us = ca.SX.sym("u", na)
    dyn = ca.Function("dyn", [xs, as_, us], [rnea(qq, vv, as_) - ca.vertcat(ca.DM.zeros(6), us)])
    xk, xc, x1 = (ca.SX.sym(n, nq + nv) for n in ("xk", "xc", "x1"))
    ak, ac, a1 = (ca.SX.sym(n, nv) for n in ("ak", "ac", "a1"))
    fk, fc, f1 = rate(xk, ak), rate(xc, ac), rate(x1, a1)
    defect = ca.Function("defect", [xk, xc, x1, ak, ac, a1],
                         [ca.vertcat(xc - (xk + x1) / 2 - h * (fk - f1) / 8, x1 - xk - h * (fk + 4 * fc + f1) / 6)])

    nx = nq + nv
    X = ca.MX.sym("X", nx, N + 1)
    XC = ca.MX.sym("XC", nx, N)
    A = ca.MX.sym("A", nv, N + 1)
    AC = ca.MX.sym("AC", nv, N)
    U = ca.MX.sym("U", na, N + 1)
    UC = ca.MX.sym("UC", na, N)
    g = [ca.vec(defect.map(N)(X[:, :-1], XC, X[:, 1:], A[:, :-1], AC, A[:, 1:])),
         ca.vec(dyn.map(N + 1)(X, A, U)), ca.vec(dyn.map(N)(XC, AC, UC))]
    J = h / 6 * (0.5 * ca.sumsqr(U[:, :-1]) + 0.5 * ca.sumsqr(U[:, 1:]) + 4 * 0.5 * ca.sumsqr(UC))
    w = ca.veccat(X, XC, A, AC, U, UC)

    # bounds and guess (quintic rest to rest in θ, base at rest)
    def field(shape, value):
        return np.full(shape, value, float)

    inf = np.inf
    lbX, ubX = field((nx, N + 1), -inf), field((nx, N + 1), inf)
    lbXC, ubXC = field((nx, N), -inf), field((nx, N), inf)
    for lb, ub in ((lbX, ubX), (lbXC, ubXC)):
        lb[7:14], ub[7:14] = lower[:, None], upper[:, None]
        lb[nq + 6:], ub[nq + 6:] = -vmax[:, None], vmax[:, None]
    x0 = np.r_[np.zeros(3), 0, 0, 0, 1, start, np.zeros(nv)]
    lbX[:, 0] = ubX[:, 0] = x0
    lbX[7:14, -1] = ubX[7:14, -1] = target
    lbX[nq + 6:, -1] = ubX[nq + 6:, -1] = 0.0
    lbU, ubU = np.tile(-umax[:, None], N + 1), np.tile(umax[:, None], N + 1)
    lbUC, ubUC = np.tile(-umax[:, None], N), np.tile(umax[:, None], N)

    def guess(t):
        s = t / T
        p, dp = 10 * s**3 - 15 * s**4 + 6 * s**5, (30 * s**2 - 60 * s**3 + 30 * s**4) / T
        ddp = (60 * s - 180 * s**2 + 120 * s**3) / T**2
        x = x0.copy()
        x[7:14] = start + (target - start) * p
        x[nq + 6:] = (target - start) * dp
        acc = np.r_[np.zeros(6), (target - start) * ddp]
        return x, acc

    tn, tc = np.linspace(0, T, N + 1), (np.arange(N) + 0.5) * h
    gX, gA = map(np.column_stack, zip(*[guess(t) for t in tn]))
    gXC, gAC = map(np.column_stack, zip(*[guess(t) for t in tc]))
    z = lambda n, k: np.zeros((n, k))  # noqa: E731
    vec = lambda *arrays: np.concatenate([np.asarray(a).ravel(order="F") for a in arrays])  # noqa: E731
    lbw = vec(lbX, lbXC, field((nv, N + 1), -inf), field((nv, N), -inf), lbU, lbUC)
    ubw = vec(ubX, ubXC, field((nv, N + 1), inf), field((nv, N), inf), ubU, ubUC)
    w_guess = vec(gX, gXC, gA, gAC, z(na, N + 1), z(na, N))
    G = ca.vertcat(*g)
    solver = ca.nlpsol("hs", "ipopt", {"x": w, "f": J, "g": G},
                       {"print_time": False, "ipopt": {"print_level": 0, "max_wall_time": timelimit,
                                                       "sb": "yes"}})
    w1, c1 = time.perf_counter(), time.process_time()
    sol = solver(x0=w_guess, lbx=lbw, ubx=ubw, lbg=0, ubg=0)
    w2, c2 = time.perf_counter(), time.process_time()
    stats = solver.stats()
    wopt = np.asarray(sol["x"]).ravel()
    Xopt = wopt[:nx * (N + 1)].reshape((N + 1, nx))
    out = {"kind": "reference", "scheme": "hermite-simpson", "N": N, "status": stats["return_status"],
           "iterations": stats["iter_count"], "objective": float(sol["f"]), "build_s": w1 - w0,
           "solve_s": w2 - w1, "wall_s": w2 - w0, "cpu_s": c2 - c0, "unknowns": int(w.numel()),
           "quaternion_norm_error": float(np.abs(np.linalg.norm(Xopt[:, 3:7], axis=1) - 1).max())}
    P, L, s_p, s_L = pinocchio_momentum(model, Xopt[:, :nq], Xopt[:, nq:])
    lin, ang = _error_series(P, L, s_p, s_L)
    out.update(t=tn.tolist(), err_linear=lin.tolist(), err_angular=ang.tolist(),
               momentum_error_linear=float(lin.max()), momentum_error_angular=float(ang.max()),
               momentum_error=float(max(lin.max(), ang.max())), momentum_scale_linear=s_p,
               momentum_scale_angular=s_L)
    return out


# ---------------------------------------------------------------------------------------------
# driver, tables, figure

def _point(kind, scheme, N):
    out = solve_reference(N) if kind == "reference" else solve_library(scheme, N)
    out["rss_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return out


def run_child(kind, scheme, N, hard_timeout=900):
    import subprocess
    import sys

    from benchmarks.runner import ROOT

    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "benchmarks.space_robot", "--point", kind, scheme, str(N)],
                              cwd=ROOT, capture_output=True, text=True, timeout=hard_timeout)
    except subprocess.TimeoutExpired:
        return {"kind": kind, "scheme": scheme, "N": N, "status": "killed", "wall_s": time.perf_counter() - t0}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {"kind": kind, "scheme": scheme, "N": N, "status": "crashed", "stderr": proc.stderr[-800:]}


def _load_avg():
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


#: errors below this are round-off and the solver's tolerance, not drift: left out of the fit
FIT_FLOOR = 1e-12


def _order(rows):
    """Least-squares slope of log(momentum error) against log(h) over the converged N whose
    error is above :data:`FIT_FLOOR`; ``(order or None, the N used)``."""
    pts = [(r["N"], r["momentum_error"]) for r in rows if (r.get("momentum_error") or 0) > FIT_FLOOR]
    if len(pts) < 2:
        return None, [p[0] for p in pts]
    n, e = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(-np.polyfit(n, e, 1)[0]), [p[0] for p in pts]


LABELS = {"hermite-simpson": "hand-written Hermite–Simpson (CasADi)"}


def _successive(rows):
    """log(e_a / e_b) / log(N_b / N_a) between successive converged N."""
    pts = [(r["N"], r["momentum_error"]) for r in rows if r.get("momentum_error")]
    return ", ".join(f"{a[0]}→{b[0]}: {np.log(a[1] / b[1]) / np.log(b[0] / a[0]):.2f}"
                     for a, b in zip(pts[:-1], pts[1:])) or "–"


def tables(rows):
    ok_status = ("optimal", "locallyOptimal", "Solve_Succeeded")
    groups = {}
    for r in rows:
        groups.setdefault((r["scheme"], r["N"]), []).append(r)
    best = {}
    for key, rs in groups.items():  # the fastest converged run (CPU), with how many converged
        good = [r for r in rs if r.get("status") in ok_status]
        best[key] = dict(min(good, key=lambda r: r["cpu_s"]), repeats=len(good)) if good else rs[-1]
    order = ["hermite-simpson", *SCHEMES]
    # J of the finest converged Hermite–Simpson solve: the reference J (fourth order)
    hs = [r for (sc, _), r in sorted(best.items()) if sc == "hermite-simpson" and r.get("objective") is not None
          and r.get("momentum_error") is not None]
    j_ref = max(hs, key=lambda r: r["N"])["objective"] if hs else None
    lines = ["| method | N | status | it | unknowns | J | J − J_ref | momentum error (linear) "
             "| momentum error (angular) | wall [s] | CPU [s] | runs | load |", "|---" * 13 + "|"]
    orders = [f"| method | fitted order of the momentum error in h (errors above {FIT_FLOOR:.0e}) | N fitted "
              "| order between successive N |", "|---|---|---|---|"]
    for s in order:
        rs = sorted((r for (sc, _), r in best.items() if sc == s), key=lambda r: r["N"])
        for r in rs:
            ok = r.get("momentum_error") is not None
            lines.append(f"| {LABELS.get(s, s)} | {r['N']} | {r['status']} | {r.get('iterations')} "
                         f"| {r.get('unknowns', '–')} | {format(r['objective'], '.6f') if ok else '–'} "
                         f"| {format(r['objective'] - j_ref, '.1e') if ok and j_ref is not None else '–'} "
                         f"| {format(r['momentum_error_linear'], '.1e') if ok else '–'} "
                         f"| {format(r['momentum_error_angular'], '.1e') if ok else '–'} "
                         f"| {r.get('wall_s', 0):.2f} | {r.get('cpu_s', 0):.2f} | {r.get('repeats', 1)} "
                         f"| {format(r['load'], '.1f') if r.get('load') is not None else '–'} |")
        if rs:
            o, used = _order(rs)
            orders.append(f"| {LABELS.get(s, s)} | {'no drift: round-off at every N' if o is None else format(o, '.2f')} "
                          f"| {', '.join(map(str, used)) or '–'} | {'–' if o is None else _successive(rs)} |")
    if j_ref is not None:
        orders.append(f"\nJ_ref = {j_ref:.8f}: the hand-written Hermite–Simpson NLP at its finest N.")
    return lines, orders, best


def figure(best, N=50):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for s in ["hermite-simpson", *SCHEMES]:
        r = best.get((s, N))
        if r is None or "err_angular" not in r:
            continue
        e = np.maximum(np.maximum(r["err_linear"], r["err_angular"]), 1e-17)
        ax.semilogy(r["t"], e, label=LABELS.get(s, s), marker="." if s in ("bem", "rem", "dmocc") else None)
    ax.set_xlabel("t [s]")
    ax.set_ylabel("max(|p(t) − p(0)|/s_p, |L(t) − L(0)|/s_L)")
    ax.set_title(f"space robot, case a, N = {N}: momentum error along the motion")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="center right")
    fig.tight_layout()
    fig.savefig(FIGURE, dpi=110)


def main(argv=None):
    from benchmarks._report import machine_line, write_section
    from benchmarks.runner import load, record

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--point", nargs=3, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--check", action="store_true", help="the CasADi RNEA against pin.rnea and pin.aba")
    parser.add_argument("--methods", nargs="*", default=["hermite-simpson", *SCHEMES])
    parser.add_argument("--steps", nargs="*", type=int, default=list(STEPS))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--table-only", action="store_true")
    args = parser.parse_args(argv)
    if args.point is not None:
        print(json.dumps(_point(*args.point[:2], int(args.point[2]))))
        return
    if args.check:
        print(json.dumps(check()))
        return
    if not args.table_only:
        print(machine_line())
        for N in args.steps:
            for s in args.methods:
                kind = "reference" if s == "hermite-simpson" else "library"
                for _ in range(args.repeat):
                    load_before = _load_avg()
                    r = run_child(kind, s, N)
                    r["load"] = load_before
                    r["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
                    record(SERIES, r)
                    print(json.dumps({k: r.get(k) for k in ("scheme", "N", "status", "iterations", "objective",
                                                            "momentum_error", "wall_s", "cpu_s")}), flush=True)
                    if r.get("status") not in ("optimal", "locallyOptimal", "Solve_Succeeded"):
                        break
    lines, orders, best = tables(load(SERIES))
    text = machine_line() + "\n\n" + "\n".join(lines) + "\n\n" + "\n".join(orders)
    print(text)
    figure(best)
    if args.write:
        write_section("space-robot", text)


if __name__ == "__main__":
    main()
