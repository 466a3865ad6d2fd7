"""The sphere (DMOCC §7.1) in the paper's minimal form against the lifted form, in N.

The minimal form (the paper's: increments and controls, 12 N unknowns) nests every node
configuration in all earlier increments, so the walked rows and their exact Hessian are
dense; the lifted form adds the node configurations as unknowns and their definitions as
rows (sparse).  Both give the same optimum.  Each point in a fresh process (the package
byte-compiled first), CPU seconds of build + solve, IPOPT tol 1e-8.

``python -m benchmarks.sphere_forms [--steps 10 20 30 40 50] [--repeat 3] [--write]``
(pages/sphere_forms.md).
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from benchmarks._report import byte_compile, publish  # noqa: E402

POINT = """
import json, sys, time
import pyomo.environ as pyo
from pyomo_mbdyn.models import sphere
form, steps = sys.argv[1], int(sys.argv[2])
c0 = time.process_time()
m = sphere.build(steps=steps, configurations=form)
opt = pyo.SolverFactory("casadi_ipopt")
opt.options["tol"] = 1e-8
r = opt.solve(m)
c1 = time.process_time()
J = pyo.value(next(m.component_data_objects(pyo.Objective, active=True)))
print(json.dumps({"status": str(r.solver.termination_condition), "iterations": r.solver.iterations, "J": J,
                  "cpu": c1 - c0, "translate": opt.timings["translate"], "nlpsol": opt.timings["nlpsol"],
                  "ipopt": opt.timings["solve"]}))
"""


def point(form, steps):
    out = subprocess.run([sys.executable, "-c", POINT, form, str(steps)], capture_output=True, text=True,
                         check=True, cwd="/")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", nargs="*", type=int, default=[10, 20, 30, 40, 50])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    byte_compile()
    rows = ["| N | form | status | iterations | J | CPU s (build + solve) | translate s | nlpsol s | IPOPT s |",
            "|---|---|---|---|---|---|---|---|---|"]
    for steps in args.steps:
        for form in ("minimal", "lifted"):
            p = min((point(form, steps) for _ in range(args.repeat)), key=lambda q: q["cpu"])
            rows.append(f"| {steps} | {form} | {p['status']} | {p['iterations']} | {p['J']:.7f} | {p['cpu']:.2f} "
                        f"| {p['translate']:.2f} | {p['nlpsol']:.3f} | {p['ipopt']:.3f} |")
            print(rows[-1], flush=True)
    publish("sphere-forms", rows, args.write)


if __name__ == "__main__":
    main()
