"""Build and solve times of every model, as a markdown table.

A script, not a test: ``python benchmarks/models.py [--write] [--skip NAME ...]``
runs ``pyomo-mbdyn run`` for each model (default scheme and steps, plus the
variants in ``VARIANTS``) and records build seconds, the seconds spent writing
and importing the model (NL file, CasADi graph and derivatives: solve seconds
minus solver seconds), the solver's own seconds, iterations, variables and
constraints, in benchmarks/README.md.
"""

import argparse
import sys

from pyomo_mbdyn.cli import run_model
from pyomo_mbdyn.models import MODELS
from _report import machine_line, write_section  # benchmarks/ is sys.path[0]


#: further (model, scheme, steps, build options) rows: the formulations the issues compare
LIFTED = {"configurations": "lifted", "exclude_half_turns": False}
VARIANTS = [("three-link-arm", "bem", None, None), ("three-link-arm", "gc", None, None),
            ("three-link-arm", "rattle", None, None),
            ("crane", "rem", None, None), ("crane", "gc", None, None),
            ("sphere", None, 60, None), ("three-link-arm", "rem", 40, None), ("three-link-arm", "rem", 80, None),
            ("satellite", None, None, LIFTED), ("pitcher", None, None, {"configurations": "absolute"})]


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--skip", nargs="*", default=[])
    args = parser.parse_args(argv)
    lines = [machine_line(), "",
             "| model | scheme | N | status | objective | variables | constraints | iterations "
             "| build s | write+import s | solver s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    runs = [(name, None, None, None) for name in MODELS] + VARIANTS
    for name, scheme, steps, options in runs:
        if name in args.skip:
            continue
        label = name if not options else f"{name} ({', '.join(f'{k}={v}' for k, v in options.items())})"
        try:
            r = run_model(name, scheme, steps, options=options)
        except Exception as err:  # a benchmark records failures instead of stopping
            lines.append(f"| {label} | {scheme} | {steps} | failed: {type(err).__name__} | | | | | | | |")
            print(lines[-1], flush=True)
            continue
        objective = "" if r["objective"] is None else f"{r['objective']:.6g}"
        solver_s = r.get("solver_seconds")
        overhead = "" if solver_s is None else f"{r['solve_seconds'] - solver_s:.1f}"
        solver_s = "" if solver_s is None else f"{solver_s:.1f}"
        lines.append(f"| {label} | {r['scheme']} | {r['steps']} | {r['status']} | {objective} | "
                     f"{r['n_variables']} | {r['n_constraints']} | {r['iterations']} | "
                     f"{r['build_seconds']:.1f} | {overhead} | {solver_s} |")
        print(lines[-1], flush=True)
    table = "\n".join(lines)
    if args.write:
        write_section("models", table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
