"""Which Hessian of the Lagrangian (issue 48): exact, Gauss–Newton, limited memory, per scheme.

The Panda's model (N = 50, velocity limits) and the papers' cases (``--papers``: the crane and the
three-link arm with BEM and REM, the sphere with DMOCC, at their papers' N), each point in a fresh
process, compiled step derivatives (``compiled="always"``; the cache filled first):

* **exact** — the library's default: ∇²L from the per-step Hessians (:mod:`pyomo_mbdyn.solvers.mapped`);
* **gn** — Gauss–Newton for the least-squares objective ``h Σ ½|u|²``: the objective's Hessian alone,
  the constraints' curvature dropped (``hess_lag`` replaced after the translation);
* **lbfgs** — IPOPT's ``hessian_approximation=limited-memory``.

``python -m benchmarks.hessians [--schemes gc rem] [--max-iter 500] [--write]`` (pages/hessians.md, the Panda);
``python -m benchmarks.hessians --papers [--write]`` (the same page, the papers' cases).
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from benchmarks._report import publish  # noqa: E402

POINT = """
import json, sys, time
import casadi as ca
import pyomo.environ as pyo
from pyomo_mbdyn.plugins import model_spec
from pyomo_mbdyn.solvers import pyomo_to_casadi
scheme, variant, max_iter, model = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
translate = pyomo_to_casadi.translate

def gauss_newton(*args, **kwds):
    nlp = translate(*args, **kwds)
    X, P = nlp.x, ca.MX.sym("p", 0, 1)
    lam_f, lam_g = ca.MX.sym("lam_f"), ca.MX.sym("lam_g", nlp.g.size1())
    H = ca.hessian(nlp.f, X)[0]
    nlp.extras["functions"]["hess_lag"] = ca.Function(
        "nlp_hess_l", [X, P, lam_f, lam_g], [ca.triu(lam_f * H)], ["x", "p", "lam_f", "lam_g"],
        ["triu_hess_gamma_x_x"])
    return nlp

if variant == "gn":
    pyomo_to_casadi.translate = gauss_newton
m = model_spec(model).build(scheme=scheme)
s = pyo.SolverFactory("casadi_ipopt", compiled="always")
s.options["tol"] = 1e-8
s.options["max_iter"] = max_iter
if variant == "lbfgs":
    s.options["hessian_approximation"] = "limited-memory"
t, c = time.perf_counter(), time.process_time()
r = s.solve(m)
J = pyo.value(next(m.component_data_objects(pyo.Objective, active=True)))
print(json.dumps({"status": str(r.solver.termination_condition), "iterations": r.solver.iterations, "J": J,
                  "wall": time.perf_counter() - t, "cpu": time.process_time() - c}))
"""


#: the papers' cases: (model, scheme) at the model's default N (the paper's)
PAPERS = (("crane", "bem"), ("crane", "rem"), ("three-link-arm", "bem"), ("three-link-arm", "rem"),
          ("sphere", "dmocc"))


def point(scheme, variant, max_iter, model="panda"):
    out = subprocess.run([sys.executable, "-c", POINT, scheme, variant, str(max_iter), model], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schemes", nargs="*", default=["gc", "rem"])
    parser.add_argument("--max-iter", type=int, default=500)
    parser.add_argument("--papers", action="store_true", help="the papers' cases instead of the Panda")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    cases = PAPERS if args.papers else [("panda", scheme) for scheme in args.schemes]
    rows = ["| model | scheme | Hessian | status | iterations | J | solve wall [s] | CPU [s] |",
            "|---|---|---|---|---|---|---|---|"]
    for model, scheme in cases:
        point(scheme, "exact", 1, model)  # fills the compiled cache
        for variant in ("exact", "gn", "lbfgs"):
            p = point(scheme, variant, args.max_iter, model)
            rows.append(f"| {model} | {scheme} | {variant} | {p['status']} | {p['iterations']} | {p['J']:.10g} "
                        f"| {p['wall']:.2f} | {p['cpu']:.2f} |")
            print(rows[-1], flush=True)
    publish("hessians-papers" if args.papers else "hessians", rows, args.write)


if __name__ == "__main__":
    main()
