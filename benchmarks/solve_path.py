"""The AMPL-protocol path against the in-process path, on the same models, in one run.

A script, not a test: ``python benchmarks/solve_path.py [--write] [--repeat R]``.
For each problem the model is built once per solve (``module.build(...)``, not
timed) and solved with ``casadi_ipopt_nl`` (Pyomo's .nl writer, a child process
running the AMPL driver, .sol file) and with ``casadi_ipopt`` (in process:
Pyomo → CasADi SX, ``nlpsol``, IPOPT, loading), alternating, ``R`` times; the
table shows the minimum over the repeats of

* wall seconds of ``solver.solve(model)`` and CPU seconds including child
  processes (``os.times()``: user + system of this process and of the
  children it waited for);
* the phases each plugin records in ``solver.timings``: for the AMPL path
  ``write`` (Pyomo's .nl writer), ``read`` (the driver reading/importing the .nl
  file into CasADi; the rest of the child's time is starting Python and
  importing casadi), ``nlpsol``, ``IPOPT`` and ``load`` (reading the .sol and
  loading the model); for the in-process path ``translate`` (Pyomo → SX),
  ``nlpsol``, ``IPOPT`` and ``load`` (results and loading the model).

``nlpsol`` is CasADi's solver set-up (sparsity patterns, exact Hessian of the
Lagrangian); ``IPOPT`` the solver call itself, with CasADi's function
evaluations.  With ``--write`` the table goes to benchmarks/pages/solve_path.md.
"""

import argparse
import os
import sys
import time

import pyomo.environ as pyo
from pyomo.version import version as pyomo_version

import pyomo_mbdyn  # noqa: F401  (registers the plugins)
from pyomo_mbdyn.models import crane, heavy_top, sphere, three_link_arm
from _report import machine_line, write_section  # benchmarks/ is sys.path[0]

#: (label, module, build keywords)
PROBLEMS = [
    ("crane bem N=40", crane, {"scheme": "bem", "steps": 40}),
    ("crane rem N=40", crane, {"scheme": "rem", "steps": 40}),
    ("three-link-arm rem N=20", three_link_arm, {"scheme": "rem", "steps": 20}),
    ("three-link-arm bem N=20", three_link_arm, {"scheme": "bem", "steps": 20}),
    ("heavy-top (quaternion N=100)", heavy_top, {}),
    ("sphere (dmocc N=30)", sphere, {}),
]

PATHS = ("casadi_ipopt_nl", "casadi_ipopt")


def _cpu():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def solve_once(module, build_kwds, path):
    """Build, then time one solve; return a dict of the measurements."""
    model = module.build(**build_kwds)
    opt = pyo.SolverFactory(path)
    opt.options["tol"] = 1e-8
    c0, w0 = _cpu(), time.perf_counter()
    results = opt.solve(model)
    wall, cpu = time.perf_counter() - w0, _cpu() - c0
    objective = None
    for obj in model.component_data_objects(pyo.Objective, active=True):
        objective = pyo.value(obj)
    t = dict(opt.timings)
    if path.endswith("_nl"):
        first = t.get("write", 0.0)
        read = t.get("driver_read", 0.0)
    else:
        first = t.get("translate", 0.0)
        read = None
    return {
        "status": str(results.solver.termination_condition),
        "objective": objective,
        "iterations": results.solver.iterations,
        "wall": wall,
        "cpu": cpu,
        "first": first,
        "read": read,
        "nlpsol": t.get("nlpsol", 0.0),
        "ipopt": t.get("solve", 0.0),
        "load": t.get("load", 0.0),
    }


def _warm_up():
    """Load the IPOPT plugin and import everything once, outside the measurements."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(initialize=0.0)
    m.obj = pyo.Objective(expr=(m.x - 1) ** 2)
    for path in PATHS:
        pyo.SolverFactory(path).solve(m)


def _fmt(v, digits=3):
    return "" if v is None else f"{v:.{digits}f}"


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None, help="labels (prefixes) to run")
    args = parser.parse_args(argv)
    _warm_up()
    lines = [
        machine_line() + f", casadi {__import__('casadi').__version__}, "
        f"Pyomo {pyomo_version}; minimum of {args.repeat} solves, tol 1e-8",
        "",
        "| problem | path | status | objective | it | wall s | CPU s (incl. children) "
        "| write / translate s | .nl read s | nlpsol s | IPOPT s | load s | wall speed-up |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, module, kwds in PROBLEMS:
        if args.only and not any(label.startswith(o) for o in args.only):
            continue
        runs = {path: [] for path in PATHS}
        for _ in range(args.repeat):
            for path in PATHS:
                runs[path].append(solve_once(module, kwds, path))
        best = {}
        for path in PATHS:
            rs = runs[path]
            best[path] = {k: (min(r[k] for r in rs) if isinstance(rs[0][k], float) else rs[0][k])
                          for k in rs[0]}
        for path in PATHS:
            b = best[path]
            speedup = (f"{best[PATHS[0]]['wall'] / b['wall']:.1f}×" if path != PATHS[0] else "")
            objective = "" if b["objective"] is None else f"{b['objective']:.9g}"
            lines.append(
                f"| {label} | {path} | {b['status']} | {objective} | {b['iterations']} | "
                f"{_fmt(b['wall'])} | {_fmt(b['cpu'])} | {_fmt(b['first'])} | {_fmt(b['read'])} | "
                f"{_fmt(b['nlpsol'])} | {_fmt(b['ipopt'])} | {_fmt(b['load'])} | {speedup} |"
            )
            print(lines[-1], flush=True)
    table = "\n".join(lines)
    if args.write:
        write_section("solve_path", table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
