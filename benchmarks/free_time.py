"""Free final time: the library's time-optimal problems, the arm beside a hand-written CasADi NLP.

A script, not a test::

    python benchmarks/free_time.py [--repeat 3] [--write]

Rows: the three-link arm in minimum time (``three_link_arm.build(case="time")``,
REM in the chart form, BEM) against :func:`benchmarks.handwritten.arm_rem_time`
(the same REM with h = T/N unknown, written by hand), the pitcher as DMOCC
§7.3 poses it, and ``minimum-time-mass`` (T* = 2 exactly).  In-process,
build + solve with ``casadi_ipopt`` at tol 1e-8 after one warm-up solve (the
compiled formulas are cached per system, as in a session), wall and CPU
seconds, minimum of ``--repeat``.  ``--write`` replaces the table between
``<!-- free-time -->`` markers of its page under benchmarks/pages.
"""

import argparse
import importlib
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks._report import publish  # noqa: E402
from benchmarks.handwritten import solve_handwritten  # noqa: E402

#: (label, model, build options, hand-written problem or None)
POINTS = [
    ("arm min-time REM", "three-link-arm", {"scheme": "rem", "steps": 20, "case": "time"}, "arm-rem-time"),
    ("arm min-time REM", "three-link-arm", {"scheme": "rem", "steps": 80, "case": "time"}, "arm-rem-time"),
    ("arm min-time BEM", "three-link-arm", {"scheme": "bem", "steps": 20, "case": "time"}, None),
    ("pitcher (T free)", "pitcher", {}, None),
    ("minimum-time-mass REM", "minimum-time-mass", {"scheme": "rem", "steps": 20}, None),
    ("minimum-time-mass DMOCC", "minimum-time-mass", {"scheme": "dmocc", "steps": 20}, None),
]


def library_point(model, options):
    import pyomo.environ as pyo

    from pyomo_mbdyn.models import MODELS

    module = importlib.import_module(MODELS[model])
    w0, c0 = time.perf_counter(), time.process_time()
    m = module.build(**options)
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.options["tol"] = 1e-8
    opt.options["max_iter"] = 3000
    result = opt.solve(m)
    w1, c1 = time.perf_counter(), time.process_time()
    return {"status": str(result.solver.termination_condition), "iterations": result.solver.iterations,
            "T": m.dyn.final_time_value, "wall_s": w1 - w0, "cpu_s": c1 - c0,
            "unknowns": sum(1 for v in m.component_data_objects(pyo.Var) if not v.fixed)}


def best(runs):
    return min(runs, key=lambda r: r["cpu_s"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    rows = ["| problem | N | unknowns | library wall / CPU s (it) | T library | hand-written wall / CPU s (it) "
            "| T hand | library / hand (CPU) |", "|---|---|---|---|---|---|---|---|"]
    for label, model, options, hand in POINTS:
        library_point(model, options)  # warm-up: compiled formulas cached per system
        lib = best([library_point(model, options) for _ in range(args.repeat)])
        N = options.get("steps", importlib.import_module("pyomo_mbdyn.models." + model.replace("-", "_")).STEPS)
        cells = [label, str(N), str(lib["unknowns"]),
                 f"{lib['wall_s']:.2f} / {lib['cpu_s']:.2f} ({lib['iterations']} it)", f"{lib['T']:.10f}"]
        if hand is not None:
            h = best([solve_handwritten(hand, N) for _ in range(args.repeat)])
            cells += [f"{h['wall_s']:.2f} / {h['cpu_s']:.2f} ({h['iterations']} it)", f"{h['objective']:.10f}",
                      f"{lib['cpu_s'] / h['cpu_s']:.2f}"]
        else:
            cells += ["–", "–", "–"]
        rows.append("| " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    publish("free-time", rows, args.write)


if __name__ == "__main__":
    main()
