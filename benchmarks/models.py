"""Build and solve times of every model, as a markdown table.

A script, not a test: ``python benchmarks/models.py [--write] [--skip NAME ...]``
runs ``pyomo-mbdyn run`` for each model (default scheme and steps) and records
build seconds, solve seconds (NL writing, CasADi import and IPOPT), IPOPT
iterations, variables and constraints, in benchmarks/README.md.
"""

import argparse
import sys

from pyomo_mbdyn.cli import run_model
from pyomo_mbdyn.models import MODELS
from _report import machine_line, write_section  # benchmarks/ is sys.path[0]


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--skip", nargs="*", default=[])
    args = parser.parse_args(argv)
    lines = [machine_line(), "",
             "| model | scheme | N | status | objective | variables | constraints | iterations | build s | solve s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name in MODELS:
        if name in args.skip:
            continue
        r = run_model(name)
        objective = "" if r["objective"] is None else f"{r['objective']:.6g}"
        lines.append(f"| {name} | {r['scheme']} | {r['steps']} | {r['status']} | {objective} | "
                     f"{r['n_variables']} | {r['n_constraints']} | {r['iterations']} | "
                     f"{r['build_seconds']:.1f} | {r['solve_seconds']:.1f} |")
        print(lines[-1], flush=True)
    table = "\n".join(lines)
    if args.write:
        write_section("models", table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
