"""Compiled step derivatives (issue 48): compile time, first solve, later solves.

For each model and scheme, fresh processes (``python -m benchmarks._point library ...``)
with ``PYOMO_MBDYN_COMPILE`` and a cache folder of their own:

* ``never``: the interpreter (min of ``--repeat``);
* ``always`` on an empty cache: the solve waits for the compiler — the compile time
  is its translation time less the interpreter's;
* ``always`` on the filled cache: every later solve (min of ``--repeat``);
* ``auto`` on an empty cache: what the first solve of a new family costs by default
  (the compiler runs in a background process; the script waits for it before the
  next point, so that no point shares the CPU with a compile).

The table gives the step Hessian's size (SX instructions: what ``"auto"`` decides on),
the seconds of each, the iterations and J of both paths (they must agree) and the
speed-up of a solve.  ``python -m benchmarks.compiled [--write] [--repeat 3]``
(``--write``: into pages/compiled.md).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from benchmarks._report import publish  # noqa: E402

POINTS = [("panda", "gc", 50), ("panda", "rem", 50), ("panda", "bem", 50), ("panda", "lobatto_gc", 50),
          ("ur5", "gc", 50), ("ur5", "rem", 50),
          ("three-link-arm", "rem", 20), ("three-link-arm", "bem", 20),
          ("crane", "bem", 40), ("crane", "rem", 40)]


def _point(model, scheme, N, mode, cache):
    env = dict(os.environ, PYOMO_MBDYN_COMPILE=mode, PYOMO_MBDYN_CACHE=cache, OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-m", "benchmarks._point", "library", model, scheme, str(N)],
                         cwd=os.path.dirname(HERE), env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _instructions(model, scheme, N):
    code = (
        "import sys, importlib\n"
        "from pyomo_mbdyn.models import MODELS\n"
        "from pyomo_mbdyn.solvers import mapped\n"
        "from pyomo_mbdyn.solvers.pyomo_to_casadi import translate\n"
        "sizes = []\n"
        "native = mapped.native\n"
        "mapped.native = lambda F, J, H, mode, pending=None: (sizes.append(H.n_instructions()), (F, J, H))[1]\n"
        f"m = importlib.import_module(MODELS[{model!r}]).build({scheme!r}, steps={N})\n"
        "translate(m, compiled='never')\n"
        "print(max(sizes) if sizes else 0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


def _wait_for_background(cache, limit=900):
    t0 = time.perf_counter()
    while os.path.isdir(cache) and any(p.endswith(".lock") for p in os.listdir(cache)):
        if time.perf_counter() - t0 > limit:
            raise RuntimeError(f"the background compile in {cache} did not finish in {limit} s")
        time.sleep(0.5)
    return time.perf_counter() - t0


def measure(model, scheme, N, repeat):
    instructions = _instructions(model, scheme, N)
    root = tempfile.mkdtemp(prefix="compiled-bench-")
    try:
        never = min((_point(model, scheme, N, "never", root + "/none") for _ in range(repeat)),
                    key=lambda p: p["solve_s"])
        cold = _point(model, scheme, N, "always", root + "/always")
        warm = min((_point(model, scheme, N, "always", root + "/always") for _ in range(repeat)),
                   key=lambda p: p["solve_s"])
        auto = _point(model, scheme, N, "auto", root + "/auto")
        background = _wait_for_background(root + "/auto")
        return dict(model=model, scheme=scheme, N=N, instructions=instructions,
                    never=never, cold=cold, warm=warm, auto=auto, background=background)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--only", nargs="*", help="MODEL:SCHEME points (default: all)")
    args = parser.parse_args(argv)
    points = POINTS if not args.only else [p for p in POINTS if f"{p[0]}:{p[1]}" in args.only]
    rows = ["| model | scheme | N | ∇²(λᵀF) instructions | compile [s] | solve interpreted [s] | solve compiled [s] "
            "| × faster | first solve, auto [s] | iterations (interp. / comp.) | J equal |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for model, scheme, N in points:
        r = measure(model, scheme, N, args.repeat)
        n, c, w, a = r["never"], r["cold"], r["warm"], r["auto"]
        compile_s = c["translate_s"] - n["translate_s"]
        same = n["objective"] == w["objective"] and n["iterations"] == w["iterations"]
        rows.append(f"| {model} | {scheme} | {N} | {r['instructions']:,} | {compile_s:.1f} | {n['solve_s']:.2f} "
                    f"| {w['solve_s']:.2f} | {n['solve_s'] / w['solve_s']:.1f} | {a['solve_s']:.2f} "
                    f"| {n['iterations']} / {w['iterations']} | {'yes' if same else 'NO'} |")
        print(rows[-1], flush=True)
    publish("compiled", rows, args.write)


if __name__ == "__main__":
    main()
