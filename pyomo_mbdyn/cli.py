"""Command line: ``pyomo-mbdyn list | solvers | run``.

The names are a contract (see ARCHITECTURE.md); ``run`` arrives with the models.
"""

import argparse
import sys

__all__ = ["main"]


def _cmd_solvers(args):
    from .solvers import available_solvers

    rows = available_solvers()
    if not rows:
        print("no solver available")
        return 1
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        print(f"{r['name']:<{width}}  {r['kind']:<5}  {r['version']:<10}  {r['source']}")
    return 0


def _cmd_list(args):
    from pyomo_mbdyn.models import MODELS

    if not MODELS:
        print("no models installed yet")
    for name, (_, description) in MODELS.items():
        print(f"{name:<24}  {description}")
    return 0


def build_parser():
    parser = argparse.ArgumentParser(
        prog="pyomo-mbdyn",
        description="Structure-preserving optimal control of multibody systems in Pyomo.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="models with one-line descriptions").set_defaults(func=_cmd_list)
    sub.add_parser("solvers", help="available solvers and versions").set_defaults(
        func=_cmd_solvers
    )
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
