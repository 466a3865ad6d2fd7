"""Cold start (issue 48): `pyomo-mbdyn run MODEL --json` in a fresh process against the same
build, solve and evaluation warm in one process.

For each model (default: panda with gc, the three-link arm with its default scheme):

* **cold** — the console script in a fresh process, min of ``--repeat``: the process's wall time
  (``/usr/bin/time``-like, from ``subprocess``), and the fields it reports itself: ``import_seconds``
  (console script start → command line ready), ``build_seconds``, ``solve_seconds``,
  ``wall_seconds`` (→ the result printed; the rest after import, build and solve is the
  evaluation: diagnostics and the model's ``evaluate``);
* **warm** — in one process, the third ``build`` + ``solve`` + ``evaluate`` (imports done, CasADi
  Functions and derivative caches filled), min over three.

The compiled step cache is whatever the machine has (``PYOMO_MBDYN_COMPILE`` is not set: the
default ``auto``); run once before measuring so that both sides load the compiled steps.
``python -m benchmarks.cold_start [--repeat 3] [--write]`` (``--write``: pages/cold_start.md).
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from benchmarks._report import publish  # noqa: E402

POINTS = [("panda", "gc"), ("three-link-arm", None)]

WARM = """
import json, sys, time
import pyomo.environ as pyo
from pyomo_mbdyn.plugins import model_module
from pyomo_mbdyn.ocp.solve import solve
from pyomo_mbdyn.solvers import get_solver
name, scheme = sys.argv[1], (sys.argv[2] if sys.argv[2] != "-" else None)
module = model_module(name)
kwds = {} if scheme is None else {"scheme": scheme}
best = None
for _ in range(3):
    t0 = time.perf_counter()
    m = module.build(**kwds)
    t1 = time.perf_counter()
    solve(m, get_solver(None, model=m))
    t2 = time.perf_counter()
    m.dyn.diagnostics()
    if hasattr(module, "evaluate"):
        module.evaluate(m)
    t3 = time.perf_counter()
    point = {"build": t1 - t0, "solve": t2 - t1, "evaluate": t3 - t2, "total": t3 - t0}
    best = point if best is None or point["total"] < best["total"] else best
print(json.dumps(best))
"""


def cold(model, scheme):
    script = os.path.join(os.path.dirname(sys.executable), "pyomo-mbdyn")
    argv = [script, "run", model, "--json"] + ([] if scheme is None else ["--scheme", scheme])
    t0 = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    process = time.perf_counter() - t0
    return {"process": process, **json.loads(out.stdout)}


def warm(model, scheme):
    out = subprocess.run([sys.executable, "-c", WARM, model, scheme or "-"], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    rows = ["| model | scheme | cold: process [s] | import | build | solve | evaluation | warm: build | solve "
            "| evaluation | warm total [s] | cold / warm |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for model, scheme in POINTS:
        c = min((cold(model, scheme) for _ in range(args.repeat)), key=lambda p: p["process"])
        w = warm(model, scheme)
        rest = c["wall_seconds"] - c["import_seconds"] - c["build_seconds"] - c["solve_seconds"]
        rows.append(f"| {model} | {c['scheme']} | {c['process']:.2f} | {c['import_seconds']:.2f} "
                    f"| {c['build_seconds']:.2f} | {c['solve_seconds']:.2f} | {rest:.2f} | {w['build']:.2f} "
                    f"| {w['solve']:.2f} | {w['evaluate']:.2f} | {w['total']:.2f} | {c['process'] / w['total']:.1f} |")
        print(rows[-1], flush=True)
    publish("cold-start", rows, args.write)


if __name__ == "__main__":
    main()
