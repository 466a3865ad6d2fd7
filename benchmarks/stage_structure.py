"""Stage structure (issue 48): ``casadi_fatrop`` against ``casadi_ipopt`` on the library's models.

Each point in a fresh process: the model at its default options, solved by

* **ipopt** — ``casadi_ipopt``, the default path (mapped step derivatives, MUMPS);
* **ipopt-flat** — ``casadi_ipopt`` with ``structured=False``: the flat SX graph whose derivatives
  CasADi generates, the evaluation fatrop gets;
* **fatrop** — ``casadi_fatrop``: the NLP lifted into stage form (:mod:`pyomo_mbdyn.solvers.stages`),
  flat SX (CasADi's fatrop interface takes no derivative Functions), Riccati recursion.

tol 1e-8 for both solvers (fatrop's default here), ``max_iter`` as given (default 500).  Reported:
status, iterations, J, the CPU seconds of the whole ``solve`` (translation, ``nlpsol`` set-up, solve,
loading) and, inside the solve, the wall seconds of CasADi's function evaluations (IPOPT: CasADi's
``t_wall_nlp_*``; fatrop: its own ``eval_*_time``) and of the rest (the solver's linear algebra
and iteration logic).

``python -m benchmarks.stage_structure [--cases panda:gc:50 crane:bem] [--max-iter 500] [--write]``
(pages/stage_structure.md).
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
import pyomo.environ as pyo
from pyomo_mbdyn.plugins import model_spec
model, scheme, steps, variant, max_iter = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
kw = {} if steps == "-" else {"steps": int(steps)}
m = model_spec(model).build(scheme=scheme, **kw)
name = "casadi_fatrop" if variant == "fatrop" else "casadi_ipopt"
s = pyo.SolverFactory(name, structured=(variant != "ipopt-flat"))
s.options["tol"] = 1e-8
s.options["max_iter"] = max_iter
t, c = time.perf_counter(), time.process_time()
r = s.solve(m, load_solutions=False)
cpu, wall = time.process_time() - c, time.perf_counter() - t
stats = s._solution[1]
if variant == "fatrop":
    evaluation = sum(v for k, v in stats["fatrop"].items() if k.startswith("eval_") and k.endswith("_time"))
else:
    evaluation = sum(v for k, v in stats.items() if k.startswith("t_wall_nlp_"))
J = r.solution[0].objective[next(iter(r.solution[0].objective))]["Value"] if len(r.solution) else float("nan")
print(json.dumps({"status": str(r.solver.termination_condition), "iterations": r.solver.iterations, "J": J,
                  "cpu": cpu, "wall": wall, "nlpsol": s.timings.get("nlpsol"), "solve": s.timings.get("solve"),
                  "eval": evaluation, "unknowns": r.problem.number_of_variables,
                  "stages": list(s._nlp.extras["stages"].nx[:2]) + [s._nlp.extras["stages"].nu[1]]
                  if variant == "fatrop" else None}))
"""

#: (model, scheme, N or "-" for the model's default)
CASES = ("panda:gc:50", "panda:rem:50", "three-link-arm:gc:-", "three-link-arm:rem:-", "three-link-arm:bem:-",
         "crane:gc:-", "crane:rem:-", "crane:bem:-")
VARIANTS = ("ipopt", "ipopt-flat", "fatrop")


def point(model, scheme, steps, variant, max_iter):
    out = subprocess.run([sys.executable, "-c", POINT, model, scheme, steps, variant, str(max_iter)],
                         capture_output=True, text=True)
    if out.returncode:
        return {"status": "error: " + (out.stderr.strip().splitlines() or ["?"])[-1][:120]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", nargs="*", default=list(CASES), help="model:scheme:N (N '-': the model's)")
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS))
    parser.add_argument("--max-iter", type=int, default=500)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    rows = ["| model | scheme | N | solver | status | iterations | J | CPU [s] | nlpsol [s] | solve [s] "
            "| evaluations [s] | rest of solve [s] |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for case in args.cases:
        model, scheme, steps = case.split(":")
        for variant in args.variants:
            p = point(model, scheme, steps, variant, args.max_iter)
            if "J" not in p:
                rows.append(f"| {model} | {scheme} | {steps} | {variant} | {p['status']} | | | | | | | |")
            else:
                rest = p["solve"] - p["eval"]
                rows.append(f"| {model} | {scheme} | {steps} | {variant} | {p['status']} | {p['iterations']} "
                            f"| {p['J']:.10g} | {p['cpu']:.2f} | {p['nlpsol']:.2f} | {p['solve']:.2f} "
                            f"| {p['eval']:.2f} | {rest:.2f} |")
            print(rows[-1], flush=True)
    publish("stage-structure", rows, args.write)


if __name__ == "__main__":
    main()
