"""The library before and after a change, beside the hand-written CasADi NLPs, in one run.

A script, not a test::

    python benchmarks/before_after.py --before PYTHON [--repeat 3] [--write]

``PYTHON`` is the interpreter of an environment with the *old* library installed
(e.g. ``pip install -e`` of a ``git worktree`` at the base commit).  Every point
runs in a fresh child process (``-c`` from a neutral directory, so the installed
library is imported; both libraries byte-compiled first, as pip installs a wheel —
:func:`benchmarks._report.byte_compile`): build the model, solve it with ``casadi_ipopt`` at tol 1e-8,
and report wall and CPU seconds (CPU including children, so the AMPL path's
subprocess counts); then build and solve again in the same process ("warm": the
imports and first-time costs paid, as in a notebook or a sweep), on both sides.  The hand-written NLPs are :mod:`benchmarks.handwritten`'s,
solved in the same run.  The table is the minimum over ``--repeat`` solves.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks._report import byte_compile, machine_line, write_section  # noqa: E402
from benchmarks.handwritten import PROBLEMS  # noqa: E402

LIBRARY_POINT = """
import json, resource, sys, time
import pyomo.environ as pyo
import pyomo_mbdyn
from pyomo_mbdyn.models import MODELS
import importlib
model, scheme, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])

def cpu():
    r = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(x.ru_utime + x.ru_stime for x in r)

module = importlib.import_module(MODELS[model] if isinstance(MODELS[model], str) else MODELS[model][0])
def point():
    w0, c0 = time.perf_counter(), cpu()
    m = module.build(scheme=scheme, steps=steps)
    w1 = time.perf_counter()
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.options["tol"] = 1e-8
    res = opt.solve(m)
    w2, c2 = time.perf_counter(), cpu()
    J = [pyo.value(o) for o in m.component_data_objects(pyo.Objective, active=True)][-1]
    return {"status": str(res.solver.termination_condition), "objective": J,
            "iterations": getattr(res.solver, "iterations", None),
            "build_s": w1 - w0, "solve_s": w2 - w1, "wall_s": w2 - w0, "cpu_s": c2 - c0}

first = point()
warm = point()  # the same build and solve again in this process: imports and first-time costs paid
print(json.dumps({**first, "warm_wall_s": warm["wall_s"], "warm_cpu_s": warm["cpu_s"]}))
"""

HAND_POINT = """
import json, sys
sys.path.insert(0, {root!r})
from benchmarks.handwritten import solve_handwritten
first = solve_handwritten(sys.argv[1])
warm = solve_handwritten(sys.argv[1])
print(json.dumps({{**first, "warm_wall_s": warm["wall_s"], "warm_cpu_s": warm["cpu_s"]}}))
"""


def _run(python, code, args):
    with tempfile.TemporaryDirectory() as cwd:
        out = subprocess.run([python, "-c", code, *map(str, args)], cwd=cwd, capture_output=True, text=True,
                             timeout=900, env={**os.environ, "PYTHONPATH": ""})
    if out.returncode:
        return {"status": "error", "error": out.stderr.strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _best(points):
    ok = [p for p in points if "cpu_s" in p]
    return min(ok, key=lambda p: p["cpu_s"]) if ok else points[0]


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True, help="interpreter with the old library installed")
    parser.add_argument("--after", default=sys.executable, help="interpreter with the new library")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--problems", nargs="*", default=["crane-bem", "crane-rem", "arm-rem", "arm-bem", "sphere"])
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    for python in (args.before, args.after):  # as a wheel is installed: the package compiled
        byte_compile(python)
    rows = []
    for name in args.problems:
        _, N, model, scheme = PROBLEMS[name]
        hand = _best([_run(args.after, HAND_POINT.format(root=str(HERE.parent)), [name])
                      for _ in range(args.repeat)])
        before = _best([_run(args.before, LIBRARY_POINT, [model, scheme, N]) for _ in range(args.repeat)])
        after = _best([_run(args.after, LIBRARY_POINT, [model, scheme, N]) for _ in range(args.repeat)])
        rows.append((name, N, hand, before, after))
        print(name, json.dumps({"hand": hand, "before": before, "after": after}), flush=True)

    def cell(p):
        if "cpu_s" not in p:
            return f"{p.get('status')}"
        return f"{p['wall_s']:.2f} / {p['cpu_s']:.2f} ({p['iterations']} it)"

    lines = [machine_line(), "",
             "| problem | N | hand-written CasADi wall / CPU s | library before | library after | "
             "after / before (CPU) | after / hand (CPU) | warm CPU s: hand / after | warm after / hand | J after |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, N, hand, before, after in rows:
        def ratio(a, b, key="cpu_s"):
            return f"{a[key] / b[key]:.2f}" if key in a and key in b else "—"

        warm = (f"{hand['warm_cpu_s']:.2f} / {after['warm_cpu_s']:.2f}"
                if "warm_cpu_s" in hand and "warm_cpu_s" in after else "—")
        lines.append(f"| {name} | {N} | {cell(hand)} | {cell(before)} | {cell(after)} | "
                     f"{ratio(after, before)} | {ratio(after, hand)} | {warm} | "
                     f"{ratio(after, hand, 'warm_cpu_s')} | {after.get('objective', float('nan')):.10g} |")
    table = "\n".join(lines)
    print(table)
    if args.write:
        write_section("before-after", table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
