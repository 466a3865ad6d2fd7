"""Run measured points in child processes and keep their results.

Each point is ``python -m benchmarks._point ...`` in a fresh interpreter (its
own peak memory, no state shared between points); results are appended as
JSON lines to ``benchmarks/results/<series>.jsonl`` so that tables can be
printed again without rerunning (``python -m benchmarks --tables-only``).
"""

import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results")


def run_point(args, hard_timeout=400):
    """One point; a dict (with ``status`` 'crashed'/'killed' when the child failed)."""
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "benchmarks._point", *map(str, args)], cwd=ROOT,
                              capture_output=True, text=True, timeout=hard_timeout)
    except subprocess.TimeoutExpired:
        return {"status": "killed", "wall_s": time.perf_counter() - t0, "args": list(map(str, args))}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            out = json.loads(line)
            out["args"] = list(map(str, args))
            return out
    return {"status": "crashed", "stderr": proc.stderr[-500:], "args": list(map(str, args))}


def record(series, result):
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, f"{series}.jsonl"), "a") as f:
        f.write(json.dumps(result) + "\n")


def load(series):
    path = os.path.join(RESULTS, f"{series}.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def series_run(series, points, stop_after=120.0, verbose=True):
    """Run ``points`` (lists of _point arguments) in order; stop once a solve's wall time
    exceeds ``stop_after`` or fails to converge at the time limit.  Returns the results."""
    out = []
    for args in points:
        r = run_point(args)
        record(series, r)
        out.append(r)
        if verbose:
            print(series, " ".join(map(str, args)), r.get("status"), f"{r.get('wall_s', 0):.1f} s",
                  r.get("objective"), flush=True)
        if r.get("wall_s", 0) > stop_after or r.get("status") not in ("optimal", "locallyOptimal",
                                                                      "Solve_Succeeded"):
            break
    return out
