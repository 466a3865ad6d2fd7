"""Convergence at scale (issue 14): the paper models up to N = 640, one point per process.

A script, not a test::

    python -m benchmarks.convergence [--only LABEL ...] [--cap S] [--table] [--write]

Each point runs in a child process (``python -m benchmarks.convergence --point
JSON``), so that its time and memory are its own, and is appended to
``benchmarks/results/convergence.jsonl``; ``--table`` prints (``--write``
stores on its page, benchmarks/pages/convergence.md) the table of the stored points.  Starts:

* ``guess`` — :func:`pyomo_mbdyn.ocp.solve` on ``build(scheme, steps=N)`` from
  the model's interpolated guess;
* ``refined`` — :func:`pyomo_mbdyn.ocp.solve_refined` from N = 80 (``pyomo-mbdyn
  run`` does this from N = 160), one row per stage; ``refined8``: the same with
  ``ratio=8`` (N = 80, then 640).

Configurations: the points of ``POINTS`` (arm and crane) state node
configurations as variables (``configurations="lifted"``, the models' form
when they were first measured); those of ``MODEL_POINTS`` (every paper model,
label suffix ``-default``) use each model's own choice (since issue 14 the
chart forms for the arm and the crane).

``variant`` overrides the library's IPOPT options to show what each one does:
``old-pivtol`` is MUMPS's pivot tolerance before this change (1e-6, IPOPT's
default), ``zero-mult`` the refined stages without least-squares multipliers
(IPOPT's default ``constr_mult_init_max`` 1e3 discards them).  Solver
``casadi_ipopt``, tol 1e-8, IPOPT ``max_wall_time`` = ``--cap`` per stage (the
CasADi set-up before IPOPT is not capped).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results", "convergence.jsonl")

VARIANTS = {"": {}, "old-pivtol": {"mumps_pivtol": 1e-6}, "zero-mult": {"constr_mult_init_max": 1e3}}
MODULES = {"arm": "pyomo_mbdyn.models.three_link_arm", "crane": "pyomo_mbdyn.models.crane",
           "sphere": "pyomo_mbdyn.models.sphere", "satellite": "pyomo_mbdyn.models.satellite",
           "satellite-underactuated": "pyomo_mbdyn.models.satellite_underactuated",
           "pitcher": "pyomo_mbdyn.models.pitcher"}
#: models whose build takes ``configurations`` (the POINTS below are measured lifted)
LIFTED = {"arm", "crane"}

#: (model, scheme, N, start, variant), in the order they run
POINTS = ([("crane", scheme, n, start, "") for scheme in ("bem", "rem") for n in (160, 320, 640)
           for start in ("guess", "refined")]
          + [("crane", scheme, 640, "refined", "zero-mult") for scheme in ("bem", "rem")]
          + [("arm", scheme, n, "refined", "") for scheme in ("rem", "bem") for n in (160, 320, 640)]
          + [("arm", scheme, n, "guess", "") for scheme in ("rem", "bem") for n in (160, 320, 640)]
          + [("arm", "bem", 320, "refined", "zero-mult"), ("arm", "rem", 320, "guess", "old-pivtol"),
             ("arm", "rem", 160, "guess", "old-pivtol"),
             ("arm", "rem", 640, "refined8", ""), ("arm", "bem", 640, "refined8", ""),
             ("arm", "rem", 640, "refined8", "zero-mult")]
          + [("crane", scheme, 640, "refined8", "") for scheme in ("bem", "rem")]
          + [("arm", scheme, 320, "refined8", "") for scheme in ("rem", "bem")])

#: every paper model at N = 640 in the model's own configuration form: from its guess
#: (``solve``) and as ``pyomo-mbdyn run --steps 640`` solves it (refined ≤×8 from 80)
MODEL_POINTS = ([("arm", scheme, 640, start, "", "default") for scheme in ("rem", "bem", "dmocc", "gc")
                 for start in ("guess", "refined8")]
                + [("crane", scheme, 640, start, "", "default") for scheme in ("bem", "rem", "gc")
                   for start in ("guess", "refined8")]
                + [(model, "dmocc", 640, start, "", "default")
                   for model in ("sphere", "pitcher", "satellite", "satellite-underactuated")
                   for start in ("guess", "refined8")])


def label(point):
    model, scheme, n, start, variant = point[:5]
    form = point[5] if len(point) > 5 else None
    return f"{model}-{scheme}-{n}-{start}" + (f"-{variant}" if variant else "") + (f"-{form}" if form else "")


def run_point(model, scheme, n, start, variant, form=None, cap=300.0):
    """Solve one point in this process; the list of stage rows (``form`` None: the
    lifted configurations of the first measurements; ``"default"``: the model's own)."""
    import importlib

    import pyomo.environ as pyo

    import pyomo_mbdyn  # noqa: F401
    from pyomo_mbdyn.errors import SolveFailedError
    from pyomo_mbdyn.ocp import solve, solve_refined
    from pyomo_mbdyn.solvers import get_solver

    module = importlib.import_module(MODULES[model])
    options = {"tol": 1e-8, "max_wall_time": float(cap), **VARIANTS[variant]}
    kwds = {"configurations": "lifted"} if form is None and model in LIFTED else {}
    rows = []

    def report(stage):
        rows.append(stage)

    opt = get_solver("casadi_ipopt")
    t0 = time.perf_counter()
    try:
        if start == "guess":
            m = module.build(scheme, steps=n, **kwds)
            t1 = time.perf_counter()
            results = solve(m, solver=opt, options=options)
            report({"steps": n, "start": "guess", "status": str(results.solver.termination_condition),
                    "iterations": results.solver.iterations,
                    "objective": pyo.value(next(m.component_data_objects(pyo.Objective, active=True))),
                    "build_seconds": t1 - t0, "solve_seconds": time.perf_counter() - t1,
                    "solver_seconds": results.solver.wallclock_time})
        else:
            solve_refined(lambda k: module.build(scheme, steps=k, **kwds), n, solver=opt, options=options,
                          report=report, ratio=8 if start == "refined8" else 2)
    except SolveFailedError as err:
        stage = re.search(r"stage N = (\d+)", str(err))
        rows.append({"steps": int(stage.group(1)) if stage else n,
                     "start": "guess" if not rows and start == "guess" else start,
                     "status": err.status, "error": str(err)[:300]})
    for row in rows:
        row["timings"] = dict(getattr(opt, "timings", {})) if row is rows[-1] else None
    return rows


def _measure(point, cap):
    """Run ``point`` in a child process; append its rows to the results file."""
    cmd = [sys.executable, "-m", "benchmarks.convergence", "--point", json.dumps(point),
           "--cap", str(cap)]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=os.path.dirname(HERE), env=env, capture_output=True,
                              text=True, timeout=4 * cap)
        rows = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else \
            [{"status": "crashed", "error": proc.stderr[-300:]}]
    except subprocess.TimeoutExpired:
        rows = [{"status": "killed", "error": f"process killed after {4 * cap} s"}]
    wall = time.perf_counter() - t0
    load = os.getloadavg()[0]
    with open(RESULTS, "a") as f:
        f.write(json.dumps({"label": label(point), "point": point, "rows": rows,
                            "process_seconds": wall, "load": load}) + "\n")
    return rows


def _stored():
    out = {}
    if os.path.exists(RESULTS):
        with open(RESULTS) as f:
            for line in f:
                rec = json.loads(line)
                out[rec["label"]] = rec  # the last run of a point
    return out


def table():
    """One row per stored point: stages' iterations joined by '+', seconds summed over stages."""
    starts = {"guess": "guess", "refined": "refined ×2", "refined8": "refined ≤×8"}
    lines = ["| model | scheme | configurations | N | start | grids | status | iterations | s (all stages) "
             "| IPOPT s (last stage) | J |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    stored = _stored()
    for point in POINTS + MODEL_POINTS:
        rec = stored.get(label(point))
        if rec is None:
            continue
        model, scheme, n, start, variant = point[:5]
        form = "lifted" if len(point) == 5 else "model's"
        rows = rec["rows"]
        what = starts[start] + (f", {variant}" if variant else "")
        last = rows[-1]
        iterations = [str(r.get("iterations")) for r in rows if r.get("iterations") is not None]
        if last.get("iterations") is None:  # a failed solve: the count is in the message
            found = re.search(r"after (\d+) iterations", last.get("error", ""))
            iterations.append(f"{found.group(1) if found else '?'} (stopped)")
            ipopt = (last.get("timings") or {}).get("solve")
            secs = f"{rec['process_seconds']:.0f} (process)"
        else:
            ipopt = last.get("solver_seconds")
            secs = f"{sum(r['build_seconds'] + r['solve_seconds'] for r in rows):.1f}"
        grids = ", ".join(str(r.get("steps", "?")) for r in rows)
        J = "" if last.get("objective") is None else f"{last['objective']:.5f}"
        lines.append(f"| {model} | {scheme} | {form} | {n} | {what} | {grids} | {last['status']} | "
                     f"{' + '.join(iterations)} | {secs} | "
                     f"{'' if ipopt is None else f'{ipopt:.1f}'} | {J} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--point", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--cap", type=float, default=300.0)
    parser.add_argument("--only", nargs="*", default=None, help="labels (prefixes) to run")
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    if args.point is not None:
        point = json.loads(args.point)
        print(json.dumps(run_point(*point[:5], form=point[5] if len(point) > 5 else None, cap=args.cap)))
        return 0
    if not args.table:
        for point in POINTS + MODEL_POINTS:
            if args.only is not None and not any(label(point).startswith(o) for o in args.only):
                continue
            rows = _measure(point, args.cap)
            print(label(point), json.dumps(rows), flush=True)
    text = table()
    print(text)
    if args.write:
        from benchmarks._report import write_section

        write_section("convergence", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
