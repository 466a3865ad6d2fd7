"""One robot problem, every tool (issue 48): the library's gc / rem / bem / lobatto_gc, a hand-written
stage-wise CasADi NLP solved with IPOPT and with fatrop, and crocoddyl, in one run.

    python -m benchmarks.robot_tools                        # Panda N = 50, 3 interleaved rounds
    python -m benchmarks.robot_tools --robots panda ur5 --write   # and put the table on pages/robots.md
    python -m benchmarks.robot_tools --croc-python /path/to/python   # crocoddyl's interpreter

Benchmark code, not library code.  The problem is the models' (:mod:`pyomo_mbdyn.models.panda`,
``ur5``): rest to rest from ``START`` to ``TARGET`` in ``HORIZON`` s, N steps, the URDF's position,
velocity and effort limits, J = h Σ ½|u|².  Every point runs in a fresh process
(``python -m benchmarks.robot_tools --point TOOL ROBOT N``) that reports wall and CPU seconds of
build + solve, iterations, J and its peak resident memory (``getrusage`` ``ru_maxrss``).

The stage-wise NLP (:func:`stagewise_nlp`) is GC's discrete problem written independently: state
x_k = (θ_k, ṽ_k), controls (a_k, u_k) with a_k = (ṽ_{k+1} − ṽ_k)/h the step's acceleration and u_k
minus the joint torque, the implicit midpoint rule written explicitly in the state,

    θ_{k+1} = θ_k + h ṽ_k + ½ h² a_k,  ṽ_{k+1} = ṽ_k + h a_k,     (⇔ θ_{k+1} − θ_k = h ṽ_{k+½})
    h [RNEA(θ_k + ½ h ṽ_k + ¼ h² a_k, ṽ_k + ½ h a_k, a_k) + u_k] = 0    (the step's momentum rows),

RNEA in CasADi SX from Pinocchio's model (:func:`benchmarks.robots._spatial_rnea`, checked against
``pinocchio.rnea``); unknowns ordered stage by stage (x_0, u_0, x_1, …, x_N), each stage's
constraints after its dynamics; position and velocity limits on θ_k, ṽ_k and effort limits on u_k
as bounds, θ_0, ṽ_0 and θ_N, ṽ_N fixed by equality rows.  Its solution set is GC's (the midpoint
rows with a_k eliminated), so IPOPT and fatrop reach GC's J where they reach the same local optimum.

crocoddyl (:mod:`benchmarks._croc_point`, run by a separate interpreter: the pip pair crocoddyl
3.2.1 + pin 4.1.0 drops gravity from the forward dynamics, 3.2.0 + pin 3.9.0 does not) solves a
different discretisation of the same problem: see that module.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
ROBOTS = ("panda", "ur5")
LIBRARY = ("gc", "rem", "bem", "lobatto_gc")
TOOLS = LIBRARY + ("stage-ipopt", "stage-fatrop", "crocoddyl")
CROC_PYTHON = "/work/croc-venv/bin/python"
TIMELIMIT = 600.0
OK = ("optimal", "locallyOptimal", "Solve_Succeeded", "converged")


def _problem(robot):
    """``(pinocchio model, start, target, T)`` of the library's model ``robot``."""
    import importlib

    from benchmarks.robots import pinocchio_model
    from pyomo_mbdyn.models import MODELS

    module = importlib.import_module(MODELS[robot])
    return pinocchio_model(robot), np.asarray(module.START, float), np.asarray(module.TARGET, float), \
        float(module.HORIZON)


def stagewise_nlp(model, start, target, T, N):
    """The stage-wise NLP of the module docstring on the Pinocchio ``model``:
    ``(nlp, x0, bounds, equality)`` with ``bounds`` the dict of lbx, ubx, lbg, ubg and
    ``equality`` a flag per row (fatrop's ``equality`` option)."""
    import casadi as ca

    from benchmarks.robots import _spatial_rnea

    rnea = _spatial_rnea(model)
    n, h = model.nv, T / N
    th, vt, a, u = (ca.SX.sym(s, n) for s in ("th", "vt", "a", "u"))
    step = ca.Function("step", [th, vt, a], [th + h * vt + 0.5 * h**2 * a, vt + h * a])
    momentum = ca.Function("momentum", [th, vt, a, u],
                           [h * (rnea(th + 0.5 * h * vt + 0.25 * h**2 * a, vt + 0.5 * h * a, a) + u)])
    X = [ca.MX.sym(f"x{k}", 2 * n) for k in range(N + 1)]
    U = [ca.MX.sym(f"u{k}", 2 * n) for k in range(N)]
    x, g, equality, lbg, ubg = [], [], [], [], []
    rest = lambda pose: np.concatenate([pose, np.zeros(n)])  # noqa: E731
    for k in range(N):
        x += [X[k], U[k]]
        th_k, vt_k, a_k, u_k = X[k][:n], X[k][n:], U[k][:n], U[k][n:]
        if k == 0:
            g.append(X[0] - rest(start))
            lbg.append(np.zeros(2 * n)), ubg.append(np.zeros(2 * n))
        # fatrop's structure detection wants x_{k+1} − F(x_k, u_k) and the stage's other rows
        # after it: the momentum rows first (linear in u_k with h·I) are taken for a gap row
        g.append(X[k + 1] - ca.vertcat(*step(th_k, vt_k, a_k)))
        lbg.append(np.zeros(2 * n)), ubg.append(np.zeros(2 * n))
        g.append(momentum(th_k, vt_k, a_k, u_k))
        lbg.append(np.zeros(n)), ubg.append(np.zeros(n))
    x.append(X[N])
    g.append(X[N] - rest(target))
    lbg.append(np.zeros(2 * n)), ubg.append(np.zeros(2 * n))
    J = h * 0.5 * sum(ca.sumsqr(Uk[n:]) for Uk in U)
    vmax = np.asarray(model.velocityLimit, float)
    effort = np.asarray(model.effortLimit, float)
    xlo, xhi = np.concatenate([model.lowerPositionLimit, -vmax]), np.concatenate([model.upperPositionLimit, vmax])
    ulo, uhi = np.concatenate([np.full(n, -np.inf), -effort]), np.concatenate([np.full(n, np.inf), effort])
    lbx = np.concatenate([np.concatenate([xlo, ulo])] * N + [xlo])
    ubx = np.concatenate([np.concatenate([xhi, uhi])] * N + [xhi])
    # guess: the quintic rest to rest (as benchmarks.robots.solve_joint_space), accelerations
    # from its node rates, torques from the momentum rows
    s = np.linspace(0, 1, N + 1)
    shape, rate = 10 * s**3 - 15 * s**4 + 6 * s**5, (30 * s**2 - 60 * s**3 + 30 * s**4) / T
    th0 = start[:, None] + (target - start)[:, None] * shape
    vt0 = (target - start)[:, None] * rate
    acc = np.diff(vt0, axis=1) / h
    x0 = []
    for k in range(N):
        tau = -np.asarray(momentum(th0[:, k], vt0[:, k], acc[:, k], np.zeros(n))).ravel() / h
        x0 += [th0[:, k], vt0[:, k], acc[:, k], tau]
    x0 += [th0[:, N], vt0[:, N]]
    g = ca.vertcat(*g)
    nlp = {"x": ca.vertcat(*x), "f": J, "g": g}
    bounds = {"lbx": lbx, "ubx": ubx, "lbg": np.concatenate(lbg), "ubg": np.concatenate(ubg)}
    return nlp, np.concatenate(x0), bounds, [True] * g.shape[0]


def solve_stagewise(robot, N, solver):
    """The stage-wise NLP of ``robot`` solved by ``solver`` ('ipopt' or 'fatrop'); the point's figures."""
    import casadi as ca

    from pyomo_mbdyn.solvers.ampl_driver import IPOPT_DEFAULTS
    from pyomo_mbdyn.solvers.threads import blas_threads

    model, start, target, T = _problem(robot)
    nlp, x0, bounds, equality = stagewise_nlp(model, start, target, T, N)
    if solver == "ipopt":
        options = {"ipopt": {**IPOPT_DEFAULTS, "print_level": 0, "max_wall_time": TIMELIMIT},
                   "print_time": False}
    else:
        options = {"structure_detection": "auto", "equality": equality, "expand": False, "print_time": False,
                   "fatrop": {"print_level": int(os.environ.get("FATROP_PRINT", 0)), "tol": 1e-8, "max_iter": 3000}}
    t0 = time.perf_counter()
    nlpsolver = ca.nlpsol("stage", solver, nlp, options)
    t1 = time.perf_counter()
    with blas_threads():
        sol = nlpsolver(x0=x0, **bounds)
    t2 = time.perf_counter()
    stats = nlpsolver.stats()
    status = stats.get("return_status") or ("Solve_Succeeded" if stats.get("success") else "failed")
    if solver == "fatrop" and stats.get("success"):
        status = "Solve_Succeeded"
    residual = float(np.max(np.abs(np.asarray(sol["g"]).ravel()))) if sol["g"].numel() else 0.0
    return {"status": status, "iterations": stats.get("iter_count"), "objective": float(sol["f"]),
            "nlpsol_s": t1 - t0, "solve_s": t2 - t1, "max_row_residual": residual,
            # CasADi's evaluation times inside the solve (the rest is the solver's own linear algebra)
            "hess_s": stats.get("t_wall_nlp_hess_l"), "jac_s": stats.get("t_wall_nlp_jac_g"),
            "eval_s": sum(v for k, v in stats.items() if k.startswith("t_wall_nlp_")),
            "unknowns": int(nlp["x"].numel())}


def library_solve(robot, scheme, N):
    """The library's model ``robot`` in ``scheme`` (the model's defaults: velocity limits on) by
    ``casadi_ipopt``; :func:`benchmarks._measure.library_point`'s figures."""
    import importlib

    from benchmarks._measure import library_point
    from pyomo_mbdyn.models import MODELS

    module = importlib.import_module(MODELS[robot])
    out = library_point(lambda: module.build(scheme=scheme, steps=N), timelimit=TIMELIMIT, energy=False)
    out["ipopt_per_iteration_ms"] = (1e3 * out["ipopt_s"] / out["iterations"]
                                     if out.get("ipopt_s") and out.get("iterations") else None)
    return out


def point(tool, robot, N):
    """One point in this process: wall and CPU seconds from the first import of the tool's stack."""
    w0, c0 = time.perf_counter(), time.process_time()
    if tool in LIBRARY:
        out = library_solve(robot, tool, N)
    else:
        out = solve_stagewise(robot, N, tool.split("-", 1)[1])
    out.update(wall_s=time.perf_counter() - w0, cpu_s=time.process_time() - c0,
               rss_peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
    return out


def croc_problem(robot, N):
    """The JSON argument of :mod:`benchmarks._croc_point` for the library's model ``robot``."""
    from pyomo_mbdyn import robots

    _, start, target, T = _problem(robot)
    return {"urdf": str(robots.path(robot)), "start": start.tolist(), "target": target.tolist(), "T": T, "N": N}


def run_point(tool, robot, N, croc_python, compile_mode="auto"):
    """``tool`` at (``robot``, N) in a fresh process (the library's compiled evaluation
    ``PYOMO_MBDYN_COMPILE=compile_mode``); its JSON figures (``status`` says a failure)."""
    root = HERE.parent
    if tool == "crocoddyl":
        if not croc_python or not Path(croc_python).exists():
            return {"status": f"skipped: no crocoddyl interpreter at {croc_python!r} (--croc-python)"}
        command = [croc_python, str(HERE / "_croc_point.py"), json.dumps(croc_problem(robot, N))]
    else:
        command = [sys.executable, "-m", "benchmarks.robot_tools", "--point", tool, robot, str(N)]
    t0 = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMELIMIT + 120, cwd=root,
                              env={**os.environ, "PYTHONWARNINGS": "ignore",
                                                                     "PYOMO_MBDYN_COMPILE": compile_mode})
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "wall_s": time.perf_counter() - t0}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else {"status": f"crashed: {done.stderr.strip()[-400:]}"}


def best(rows):
    """Per (robot, N, tool) the round with the least wall time (CPU and memory of that round)."""
    out = {}
    for r in rows:
        key = (r["robot"], r["N"], r["tool"])
        if key not in out or (r.get("wall_s") or np.inf) < (out[key].get("wall_s") or np.inf):
            out[key] = r
    return out


def table(rows):
    """Markdown lines: one row per tool, the round with the least wall time, the ratios to library GC
    (wall and CPU); "solve per iteration" is the solver's own time (IPOPT with the function
    evaluations, fatrop's, BoxFDDP's) over its iterations."""
    lines = ["| robot | N | tool | status | iterations | J | wall [s] | CPU [s] | solve per iteration [ms] | "
             "× gc wall | × gc CPU | peak RSS [MB] | compiled steps |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    chosen = best(rows)
    for (robot, N, tool), r in chosen.items():
        gc = chosen.get((robot, N, "gc"), {})
        ok = r.get("status") in OK
        ratio = r["wall_s"] / gc["wall_s"] if ok and gc.get("wall_s") else float("nan")
        cpu = r["cpu_s"] / gc["cpu_s"] if ok and gc.get("cpu_s") else float("nan")
        its = r.get("iterations")
        solve = r.get("ipopt_s") if tool in LIBRARY else r.get("solve_s")
        per = 1e3 * solve / its if ok and its and solve else float("nan")
        J = f"{r['objective']:.6f}" if ok and r.get("objective") is not None else "–"
        name = f"library {tool}" if tool in LIBRARY else tool
        lines.append(f"| {robot} | {N} | {name} | {str(r.get('status'))[:70]} | {its if its is not None else '–'} | "
                     f"{J} | {r.get('wall_s', float('nan')):.2f} | {r.get('cpu_s', float('nan')):.2f} | "
                     f"{per:.1f} | {ratio:.2f} | {cpu:.2f} | {r.get('rss_peak_mb', float('nan')):.0f} | "
                     f"{'/'.join(map(str, r['native_groups'])) if r.get('native_groups') else '–'} |")
    return lines


def run_line(rows, started, commit):
    """Markdown: when, at which commit, under which load the rows were measured."""
    loads = [r["load"] for r in rows if "load" in r]
    rounds = 1 + max((r.get("round", 0) for r in rows), default=0)
    return (f"Run {started}–{time.strftime('%H:%M', time.gmtime())} UTC at {commit}, {rounds} interleaved "
            f"round(s), every point a fresh process; the minimum wall time of the rounds (with that round's CPU "
            f"and memory); load average (1 min) {min(loads, default=float('nan')):.1f}–"
            f"{max(loads, default=float('nan')):.1f} on the machine's 2 cores.")


def main(argv=None):
    from benchmarks._report import publish

    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--point":
        print(json.dumps(point(argv[1], argv[2], int(argv[3]))))
        return None
    parser = argparse.ArgumentParser(prog="python -m benchmarks.robot_tools", description=__doc__.splitlines()[0])
    parser.add_argument("--robots", nargs="*", default=["panda"], choices=ROBOTS)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--tools", nargs="*", default=list(TOOLS), choices=TOOLS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--croc-python", default=CROC_PYTHON,
                        help=f"the interpreter with crocoddyl 3.2.0 and pin 3.9.0 (default {CROC_PYTHON})")
    parser.add_argument("--compile", default="auto", choices=("auto", "never", "always"),
                        help="the library's compiled evaluation (PYOMO_MBDYN_COMPILE) in the library points")
    parser.add_argument("--section", default="robot-tools",
                        help="the marker on benchmarks/pages/robots.md that --write replaces")
    parser.add_argument("--write", action="store_true", help="put the table on benchmarks/pages/robots.md")
    args = parser.parse_args(argv)
    if args.steps < 2:
        parser.error(f"--steps must be at least 2, got {args.steps}")
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    from benchmarks.robots import _spatial_rnea, check_rnea, pinocchio_model

    for robot in args.robots:  # the stage-wise NLP's RNEA against Pinocchio's before any point
        model = pinocchio_model(robot)
        mismatch = check_rnea(model, _spatial_rnea(model))
        print(f"{robot}: SX RNEA against pinocchio.rnea, max relative difference {mismatch:.1e}", file=sys.stderr)
        if mismatch > 1e-12:
            raise SystemExit(f"{robot}: the hand-written RNEA differs from pinocchio.rnea by {mismatch:.1e}")
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())

    def git(*words):
        return subprocess.run(["git", *words], capture_output=True, text=True, cwd=HERE.parent).stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or "unknown commit"
    if git("status", "--porcelain", "--", "pyomo_mbdyn"):
        commit += " (the working tree: with uncommitted changes to pyomo_mbdyn)"
    rows = []
    for rnd in range(args.rounds):  # interleaved: every tool once per round
        for robot in args.robots:
            for tool in args.tools:
                r = run_point(tool, robot, args.steps, args.croc_python, args.compile)
                r.update(robot=robot, N=args.steps, tool=tool, round=rnd, load=os.getloadavg()[0])
                rows.append(r)
                print(json.dumps(r), file=sys.stderr, flush=True)
    publish(args.section, table(rows) + ["", run_line(rows, started, commit) +
                                         f" Library: PYOMO_MBDYN_COMPILE={args.compile}."], args.write)
    return rows


if __name__ == "__main__":
    main()
