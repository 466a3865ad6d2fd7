"""One BLAS thread against the library's own (two on this machine): time and bits, in one run.

A script, not a test: ``python benchmarks/determinism.py [--write] [--repeat R]``.
Issue 29 pins the solver's BLAS to one thread (:mod:`pyomo_mbdyn.solvers.threads`)
so that a model gives the same iterates on every machine.  For each problem the
model is built once per solve (not timed) and solved in process with
``BLAS_THREADS = 1`` (the default) and ``None`` (the casadi wheel's OpenBLAS on its
own thread count: one per core), alternating, ``R`` times; the table shows the
minimum over the repeats of the IPOPT call (``solver.timings["solve"]``: wall
seconds, with CasADi's function evaluations) and of the CPU seconds of the whole
solve, the iterations, and whether the solutions of the two settings agree bit for
bit.  A perturbed start (the arm's multistart start 3 at radius 0.1) is included:
there the thread count changes the last bits of the solution.
"""

import argparse
import hashlib
import os
import sys
import time

import numpy as np
import pyomo.environ as pyo

import pyomo_mbdyn  # noqa: F401  (registers the plugins)
from pyomo_mbdyn.models import crane, satellite, three_link_arm
from pyomo_mbdyn.ocp.guess import perturb_start
from pyomo_mbdyn.solvers import threads
from _report import publish  # benchmarks/ is sys.path[0]


def _perturbed_arm(**kwds):
    m = three_link_arm.build(**kwds)
    perturb_start(m, 0.1, np.random.default_rng([0, 3]))
    return m


#: (label, build)
PROBLEMS = [
    ("arm rem N=20, perturbed start", lambda: _perturbed_arm()),
    ("arm rem N=160", lambda: three_link_arm.build(steps=160)),
    ("arm rem N=640", lambda: three_link_arm.build(steps=640)),
    ("arm bem N=160", lambda: three_link_arm.build("bem", steps=160)),
    ("crane bem N=400", lambda: crane.build("bem", steps=400)),
    ("satellite dmocc N=50", lambda: satellite.build()),
]

SETTINGS = (("1 thread (pinned)", 1), ("library's own", None))


def _cpu():
    t = os.times()
    return t.user + t.system


def solve_once(build, blas):
    model = build()
    threads.BLAS_THREADS = blas
    opt = pyo.SolverFactory("casadi_ipopt")
    c0 = _cpu()
    results = opt.solve(model)
    cpu = _cpu() - c0
    x = np.array([v.value for v in model.component_data_objects(pyo.Var, active=True)], dtype=float)
    return {"status": str(results.solver.termination_condition), "iterations": results.solver.iterations,
            "ipopt": opt.timings["solve"], "cpu": cpu, "digest": hashlib.md5(x.tobytes()).hexdigest()}


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    solve_once(PROBLEMS[0][1], 1)  # load IPOPT and its OpenBLAS once
    own = threads.bundled_openblas()[0].openblas_get_num_threads()
    rows = [f"casadi {__import__('casadi').__version__}; the wheel's OpenBLAS on its own: {own} threads; "
            f"minimum of {args.repeat} solves each, alternating", "",
            "| problem | BLAS | status | it | IPOPT wall s | solve CPU s | same bits as pinned |",
            "|---|---|---|---|---|---|---|"]
    try:
        for label, build in PROBLEMS:
            runs = {name: [] for name, _ in SETTINGS}
            for _ in range(args.repeat):
                for name, blas in SETTINGS:
                    runs[name].append(solve_once(build, blas))
            pinned = runs[SETTINGS[0][0]][0]["digest"]
            for name, _ in SETTINGS:
                rs = runs[name]
                same = all(r["digest"] == pinned for r in rs)
                rows.append(f"| {label} | {name} | {rs[0]['status']} | {rs[0]['iterations']} | "
                            f"{min(r['ipopt'] for r in rs):.3f} | {min(r['cpu'] for r in rs):.3f} | "
                            f"{'yes' if same else 'no'} |")
                print(rows[-1], flush=True)
    finally:
        threads.BLAS_THREADS = 1
    publish("determinism", rows, args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
