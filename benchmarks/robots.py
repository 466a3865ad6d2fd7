"""Robots at scale (issue 31): the library's panda and ur5 models beside a hand-written
CasADi NLP of the same problem in joint space, in one run.

    python -m benchmarks.robots            # N = 50, 100, 200; every point in its own process
    python -m benchmarks.robots --steps 50 # one grid
    python -m benchmarks.robots --table-only  # the table of benchmarks/results/robots.jsonl

Benchmark code, not library code.  The hand-written NLP is the implicit midpoint
rule in joint angles — the library's GC scheme written independently: unknowns θ_k,
ṽ_k (k = 0..N) and u_k (k < N), rows

    θ_{k+1} - θ_k - h ṽ_{k+½} = 0
    h [RNEA(θ_{k+½}, ṽ_{k+½}, (ṽ_{k+1} - ṽ_k)/h) + u_k] = 0      (u = minus the torque)

with the recursive Newton–Euler algorithm (Featherstone, spatial vectors as in
Pinocchio) written out in CasADi SX from Pinocchio's model of the same URDF (joint
placements, lumped link inertias, axes, gravity) — checked against ``pinocchio.rnea``
at random states before every run.  Problem as the models state it
(:mod:`pyomo_mbdyn.models.robot_arm`): θ_0, ṽ_0 = 0 fixed; θ_N = target, ṽ_N = 0;
URDF position limits on θ_k, effort limits on u_k; J = h Σ ½|u_k|²; guess the
quintic rest-to-rest interpolation of the joint angles with the torques that make
the rows hold; IPOPT with the library's defaults (``IPOPT_DEFAULTS``), exact Hessian.
"""

import argparse
import json
import time

import numpy as np

ROBOTS = ("panda", "ur5")
NS = (50, 100, 200)
#: the library's points: (scheme, configurations form; None = the model's choice)
LIBRARY = [("gc", None), ("rem", None), ("bem", None)]


def _spatial_rnea(model):
    """``rnea(q, v, a)`` of a Pinocchio fixed-base model of revolute joints as CasADi SX."""
    import casadi as ca

    axes = []
    for joint in model.joints[1:]:
        name = joint.shortname()
        if name in ("JointModelRX", "JointModelRY", "JointModelRZ"):
            axes.append(np.eye(3)["XYZ".index(name[-1])])
        elif name == "JointModelRevoluteUnaligned":
            axes.append(np.asarray(joint.extract().axis, float))
        else:
            raise ValueError(f"joint type {name} not written here")

    def rot(axis, angle):  # Rodrigues
        K = ca.SX(np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]]))
        return ca.SX.eye(3) + ca.sin(angle) * K + (1 - ca.cos(angle)) * (K @ K)

    def rnea(q, v, a):
        n = model.nv
        R, p, w, vl, dw, dvl = [None] * (n + 1), [None] * (n + 1), [None] * (n + 1), [None] * (n + 1), \
            [None] * (n + 1), [None] * (n + 1)
        w[0], vl[0] = ca.SX.zeros(3), ca.SX.zeros(3)
        dw[0], dvl[0] = ca.SX.zeros(3), ca.SX(-np.asarray(model.gravity.linear, float))
        f, tau_n = [None] * (n + 1), [None] * (n + 1)
        for i in range(1, n + 1):
            placement = model.jointPlacements[i]
            R[i] = ca.SX(placement.rotation) @ rot(axes[i - 1], q[i - 1])   # parent ← child
            p[i] = ca.SX(placement.translation)
            par = model.parents[i]
            s = ca.SX(axes[i - 1])
            # motion of the parent expressed in the child frame (actInv), plus the joint's
            wp = R[i].T @ w[par]
            vp = R[i].T @ (vl[par] - ca.cross(p[i], w[par]))
            dwp = R[i].T @ dw[par]
            dvp = R[i].T @ (dvl[par] - ca.cross(p[i], dw[par]))
            w[i], vl[i] = wp + s * v[i - 1], vp
            dw[i] = dwp + s * a[i - 1] + ca.cross(w[i], s * v[i - 1])
            dvl[i] = dvp + ca.cross(vl[i], s * v[i - 1])
            inertia = model.inertias[i]
            m, c, Ic = inertia.mass, ca.SX(inertia.lever), ca.SX(inertia.inertia)

            def times(om, lin):   # spatial inertia × motion (Pinocchio's Inertia * Motion)
                fl = m * (lin - ca.cross(c, om))
                return fl, Ic @ om + ca.cross(c, fl)

            fl, fa = times(dw[i], dvl[i])
            hl, ha = times(w[i], vl[i])
            f[i] = fl + ca.cross(w[i], hl)
            tau_n[i] = fa + ca.cross(w[i], ha) + ca.cross(vl[i], hl)
        tau = [None] * n
        for i in range(n, 0, -1):
            tau[i - 1] = ca.dot(ca.SX(axes[i - 1]), tau_n[i])
            par = model.parents[i]
            if par > 0:
                f[par] = f[par] + R[i] @ f[i]
                tau_n[par] = tau_n[par] + R[i] @ tau_n[i] + ca.cross(p[i], R[i] @ f[i])
        return ca.vertcat(*tau)

    return rnea


def pinocchio_model(robot):
    import pinocchio as pin

    from pyomo_mbdyn import robots

    return pin.buildModelFromUrdf(robots.path(robot))


def check_rnea(model, rnea, samples=5, seed=0):
    """max relative difference of the SX RNEA to ``pinocchio.rnea`` at random states."""
    import casadi as ca
    import pinocchio as pin

    n = model.nv
    q, v, a = ca.SX.sym("q", n), ca.SX.sym("v", n), ca.SX.sym("a", n)
    f = ca.Function("rnea", [q, v, a], [rnea(q, v, a)])
    data, rng, worst = model.createData(), np.random.default_rng(seed), 0.0
    for _ in range(samples):
        x = [rng.uniform(-2, 2, n) for _ in range(3)]
        ref = pin.rnea(model, data, *x)
        worst = max(worst, float(np.abs(np.asarray(f(*x)).ravel() - ref).max() / np.abs(ref).max()))
    return worst


def solve_handwritten(robot, N, ipopt_options=None):
    """The joint-space midpoint NLP of the module docstring for the model ``robot``;
    phases, iterations, J."""
    import importlib

    from pyomo_mbdyn.models import MODELS

    module = importlib.import_module(MODELS[robot])
    t0 = time.perf_counter()
    out = solve_joint_space(pinocchio_model(robot), module.START, module.TARGET, module.HORIZON, N, ipopt_options)
    out["build_s"] += out.pop("model_s") + (time.perf_counter() - t0 - out["wall_s"])
    out["wall_s"] = out["build_s"] + out["solve_s"]
    return out


def solve_joint_space(model, start, target, T, N, ipopt_options=None, velocity=None):
    """The joint-space midpoint NLP on the Pinocchio ``model`` (fixed base, revolute
    joints): rest to rest from ``start`` to ``target`` in ``T`` within the model's
    position and effort limits, J = h Σ ½|u|²; ``velocity`` (per joint, rad/s) bounds the
    node rates |ṽ_k| (and so the steps' mean rates (θ_{k+1} − θ_k)/h = (ṽ_k + ṽ_{k+1})/2)."""
    import casadi as ca

    from pyomo_mbdyn.solvers.ampl_driver import IPOPT_DEFAULTS
    from pyomo_mbdyn.solvers.threads import blas_threads

    start, target = np.asarray(start, float), np.asarray(target, float)
    t0 = time.perf_counter()
    rnea = _spatial_rnea(model)
    n, h = model.nv, T / N
    lower, upper, effort = model.lowerPositionLimit, model.upperPositionLimit, model.effortLimit
    # MX unknowns: the mapped step stays one call node, its derivatives generated once
    th, vt, u = ca.MX.sym("th", n, N + 1), ca.MX.sym("vt", n, N + 1), ca.MX.sym("u", n, N)
    # one step as a Function mapped over the intervals (as the library's structured path does)
    a0, b0, a1, b1, uk = (ca.SX.sym(s, n) for s in ("a0", "b0", "a1", "b1", "uk"))
    step = ca.Function("step", [a0, b0, a1, b1, uk],
                       [ca.vertcat(a1 - a0 - h * (b0 + b1) / 2,
                                   h * (rnea((a0 + a1) / 2, (b0 + b1) / 2, (b1 - b0) / h) + uk))])
    g = ca.vec(step.map(N)(th[:, :-1], vt[:, :-1], th[:, 1:], vt[:, 1:], u))
    x = ca.vertcat(ca.vec(th), ca.vec(vt), ca.vec(u))
    J = h * 0.5 * ca.sumsqr(u)
    # bounds: θ_0 = start, ṽ_0 = 0, θ_N = target, ṽ_N = 0, limits elsewhere
    lth, uth = np.tile(lower[:, None], (1, N + 1)), np.tile(upper[:, None], (1, N + 1))
    lth[:, 0] = uth[:, 0] = start
    lth[:, -1] = uth[:, -1] = target
    vmax = np.full(n, np.inf) if velocity is None else np.asarray(velocity, float)
    lvt, uvt = np.tile(-vmax[:, None], (1, N + 1)), np.tile(vmax[:, None], (1, N + 1))
    lvt[:, [0, -1]] = uvt[:, [0, -1]] = 0.0
    lu, uu = np.tile(-effort[:, None], (1, N)), np.tile(effort[:, None], (1, N))
    lbx = np.concatenate([lth.ravel("F"), lvt.ravel("F"), lu.ravel("F")])
    ubx = np.concatenate([uth.ravel("F"), uvt.ravel("F"), uu.ravel("F")])
    # guess: quintic rest to rest in the joint angles, torques from the rows
    s = np.linspace(0, 1, N + 1)
    shape, rate = 10 * s**3 - 15 * s**4 + 6 * s**5, (30 * s**2 - 60 * s**3 + 30 * s**4) / T
    th0 = start[:, None] + (target - start)[:, None] * shape
    vt0 = (target - start)[:, None] * rate
    zero = np.zeros((n, N))
    residual = np.asarray(step.map(N)(th0[:, :-1], vt0[:, :-1], th0[:, 1:], vt0[:, 1:], zero))
    u0 = -residual[n:] / h
    x0 = np.concatenate([th0.ravel("F"), vt0.ravel("F"), u0.ravel("F")])
    options = {**IPOPT_DEFAULTS, **(ipopt_options or {}), "print_level": 0}
    solver = ca.nlpsol("hand", "ipopt", {"x": x, "f": J, "g": g}, {"ipopt": options, "print_time": False})
    t1 = time.perf_counter()
    with blas_threads():
        sol = solver(x0=x0, lbx=lbx, ubx=ubx, lbg=0, ubg=0)
    t2 = time.perf_counter()
    stats = solver.stats()
    return {"status": stats["return_status"], "iterations": stats["iter_count"], "objective": float(sol["f"]),
            "build_s": t1 - t0, "solve_s": t2 - t1, "wall_s": t2 - t0, "model_s": 0.0,
            "unknowns": int(x.numel()) - 4 * n,
            "theta": np.asarray(sol["x"][: n * (N + 1)]).reshape(N + 1, n).tolist()}


def table(rows):
    """Markdown: one line per point, the total wall time against the hand-written NLP's."""
    hand = {(r["robot"], r["N"]): r["wall_s"] for r in rows if r["label"] == "hand"}
    lines = ["| robot | N | NLP | status | iterations | J | build [s] | solve [s] | total [s] | × hand | "
             "peak RSS [MB] |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ok = r.get("status") in ("optimal", "locallyOptimal", "Solve_Succeeded")
        ratio = r["wall_s"] / hand[r["robot"], r["N"]] if ok and (r["robot"], r["N"]) in hand else float("nan")
        J = f"{r['objective']:.6f}" if r.get("objective") is not None else "–"
        label = "hand-written" if r["label"] == "hand" else f"library {r['label']}"
        lines.append(f"| {r['robot']} | {r['N']} | {label} | {r.get('status')} | {r.get('iterations')} | {J} | "
                     f"{r.get('build_s', float('nan')):.2f} | {r.get('solve_s', float('nan')):.2f} | "
                     f"{r.get('wall_s', float('nan')):.2f} | {ratio:.1f} | {r.get('rss_peak_mb', float('nan')):.0f} |")
    return "\n".join(lines)


def phases(rows):
    """Markdown: the library points' phases (build, translation, nlpsol with the derivative
    Functions, IPOPT, loading the solution) and IPOPT's time per iteration, beside the
    hand-written NLP's (its build includes its nlpsol)."""
    lines = ["| robot | N | NLP | build [s] | translate [s] | nlpsol [s] | IPOPT [s] | load [s] | "
             "IPOPT per iteration [ms] |", "|---|---|---|---|---|---|---|---|---|"]

    def cell(x):
        return "–" if x is None else f"{x:.2f}"

    for r in rows:
        hand = r["label"] == "hand"
        ipopt = r.get("solve_s") if hand else r.get("ipopt_s")
        per_iteration = 1e3 * ipopt / r["iterations"] if ipopt is not None and r.get("iterations") else None
        lines.append(f"| {r['robot']} | {r['N']} | {'hand-written' if hand else 'library ' + r['label']} | "
                     f"{cell(r.get('build_s'))} | {cell(None if hand else r.get('translate_s'))} | "
                     f"{cell(None if hand else r.get('nlpsol_s'))} | {cell(ipopt)} | "
                     f"{cell(None if hand else r.get('load_s'))} | "
                     f"{'–' if per_iteration is None else format(per_iteration, '.1f')} |")
    return "\n".join(lines)


def exponents(rows):
    """Markdown lines: the least-squares exponent p of total ~ N^p (and of IPOPT's time
    per iteration) for each robot and NLP over the converged points."""
    ok = ("optimal", "locallyOptimal", "Solve_Succeeded")
    lines = []
    for robot in dict.fromkeys(r["robot"] for r in rows):
        for label in dict.fromkeys(r["label"] for r in rows):
            pts = [r for r in rows if r["robot"] == robot and r["label"] == label and r.get("status") in ok]
            if len(pts) < 2:
                continue
            N = np.log([r["N"] for r in pts])
            total = np.polyfit(N, np.log([r["wall_s"] for r in pts]), 1)[0]
            ipopt = [r.get("solve_s") if label == "hand" else r.get("ipopt_s") for r in pts]
            per_it = (np.polyfit(N, np.log([t / r["iterations"] for t, r in zip(ipopt, pts)]), 1)[0]
                      if all(t is not None and r.get("iterations") for t, r in zip(ipopt, pts)) else float("nan"))
            name = "hand-written" if label == "hand" else f"library {label}"
            lines.append(f"{robot} {name}: total ~ N^{total:.2f}, IPOPT per iteration ~ N^{per_it:.2f} "
                         f"(N = {', '.join(str(r['N']) for r in pts)})")
    return "\n".join(lines)


def latest(rows):
    """The last stored result per (robot, N, NLP), in the benchmark's order."""
    out = {}
    for r in rows:
        out[(r["robot"], r["N"], r["label"])] = r
    order = {label: i for i, label in enumerate(["hand"] + [s for s, _ in LIBRARY])}
    return sorted(out.values(), key=lambda r: (ROBOTS.index(r["robot"]) if r["robot"] in ROBOTS else 99,
                                               r["N"], order.get(r["label"], 99)))


def main(argv=None):
    from benchmarks._report import machine_line
    from benchmarks.runner import load, record, run_point

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="*", default=list(NS))
    parser.add_argument("--robots", nargs="*", default=list(ROBOTS))
    parser.add_argument("--table-only", action="store_true", help="print the table of the stored results")
    args = parser.parse_args(argv)
    if args.table_only:
        rows = latest(load("robots"))
        print(table(rows))
        print()
        print(phases(rows))
        print()
        print(exponents(rows))
        return None
    print(machine_line())
    for robot in args.robots:
        model = pinocchio_model(robot)
        print(f"{robot}: SX RNEA against pinocchio.rnea, max relative difference "
              f"{check_rnea(model, _spatial_rnea(model)):.1e}")
    rows = []
    for robot in args.robots:
        for N in args.steps:
            points = [("hand", ["hand-robot", robot, N])] + \
                     [(f"{s}" + (f" {f}" if f else ""), ["library", robot, s, N] + ([f] if f else []))
                      for s, f in LIBRARY]
            for label, point in points:
                result = run_point(point, hard_timeout=900)
                result.update(robot=robot, N=N, label=label)
                record("robots", result)
                rows.append(result)
                print(json.dumps({k: result.get(k) for k in ("robot", "N", "label", "status", "iterations",
                                                             "objective", "build_s", "solve_s", "wall_s",
                                                             "rss_peak_mb")}), flush=True)
    print(table(rows))
    print()
    print(phases(rows))
    print()
    print(exponents(rows))
    return rows


if __name__ == "__main__":
    main()
