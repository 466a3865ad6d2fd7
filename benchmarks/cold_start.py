"""Cold start (issue 48): `pyomo-mbdyn run MODEL --json` in a fresh process against the same
build, solve and evaluation warm in one process.

For each model (default: panda with gc, the three-link arm with its default scheme):

* **cold** — the console script in a fresh process, min of ``--repeat``: the process's wall and
  CPU time (user + system, from ``getrusage`` of the child), and the fields it reports itself:
  ``import_seconds`` (console script start → command line ready), ``build_seconds``,
  ``solve_seconds``, ``wall_seconds`` (→ the result printed; the rest after import, build and
  solve is the evaluation: the diagnostics columns and the model's ``evaluate``);
* **warm** — in one process, :func:`pyomo_mbdyn.studies.run.solve_model` (what ``run`` calls: the
  same build, solve and evaluation) three times in a row, the best by wall time (imports done,
  CasADi Functions and derivative caches filled), with its CPU time (``time.process_time``); the
  best of ``--repeat`` such processes, each run after one of the cold ones.

The cold/warm ratios are of wall times and of CPU times (the machine is shared: the CPU ratio is
the one that load moves least).  The compiled step cache is whatever the machine has
(``PYOMO_MBDYN_COMPILE`` is not set: the default ``auto``); run once before measuring so that
both sides load the compiled steps; the package's bytecode is compiled first.
``python -m benchmarks.cold_start [--repeat 3] [--write]``
(``--write``: pages/cold_start.md).
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from benchmarks._report import publish  # noqa: E402

POINTS = [("panda", "gc"), ("three-link-arm", None)]

WARM = """
import json, sys, time
from pyomo_mbdyn.studies.run import solve_model
name, scheme = sys.argv[1], (sys.argv[2] if sys.argv[2] != "-" else None)
best = None
for _ in range(3):
    t0, c0 = time.perf_counter(), time.process_time()
    result, _ = solve_model(name, scheme)
    total, cpu = time.perf_counter() - t0, time.process_time() - c0
    point = {"build": result["build_seconds"], "solve": result["solve_seconds"],
             "evaluate": total - result["build_seconds"] - result["solve_seconds"], "total": total, "cpu": cpu}
    best = point if best is None or point["total"] < best["total"] else best
print(json.dumps(best))
"""


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cold(model, scheme):
    script = os.path.join(os.path.dirname(sys.executable), "pyomo-mbdyn")
    argv = [script, "run", model, "--json"] + ([] if scheme is None else ["--scheme", scheme])
    t0, c0 = time.perf_counter(), _children_cpu()
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    process, cpu = time.perf_counter() - t0, _children_cpu() - c0
    return {"process": process, "cpu": cpu, **json.loads(out.stdout)}


def warm(model, scheme):
    out = subprocess.run([sys.executable, "-c", WARM, model, scheme or "-"], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    rows = ["| model | scheme | cold: process [s] | CPU [s] | import | build | solve | evaluation "
            "| warm: build | solve | evaluation | total [s] | CPU [s] | cold / warm (wall) | (CPU) |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    # the package's bytecode compiled first, as pip compiles it at install: with
    # PYTHONDONTWRITEBYTECODE set and stale caches every cold process would compile modules again
    import compileall

    root = os.path.dirname(HERE)
    compileall.compile_dir(os.path.join(root, "pyomo_mbdyn"), quiet=1)
    compileall.compile_file(os.path.join(root, "_pyomo_mbdyn_launch.py"), quiet=1)
    load = os.getloadavg()[0]
    for model, scheme in POINTS:
        runs, warms = [], []
        for _ in range(args.repeat):  # interleaved: a burst of load on the machine hits both sides
            runs.append(cold(model, scheme))
            warms.append(warm(model, scheme))
        c = min(runs, key=lambda p: p["process"])
        cpu = min(p["cpu"] for p in runs)
        w = min(warms, key=lambda p: p["total"])
        rest = c["wall_seconds"] - c["import_seconds"] - c["build_seconds"] - c["solve_seconds"]
        rows.append(f"| {model} | {c['scheme']} | {c['process']:.2f} | {cpu:.2f} | {c['import_seconds']:.2f} "
                    f"| {c['build_seconds']:.2f} | {c['solve_seconds']:.2f} | {rest:.2f} | {w['build']:.2f} "
                    f"| {w['solve']:.2f} | {w['evaluate']:.2f} | {w['total']:.2f} | {w['cpu']:.2f} "
                    f"| {c['process'] / w['total']:.1f} | {cpu / w['cpu']:.1f} |")
        print(rows[-1], flush=True)
    rows += ["", f"Load average (1 min) {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end."]
    publish("cold-start", rows, args.write)


if __name__ == "__main__":
    main()
