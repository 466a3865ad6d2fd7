"""How many optima the zoo's problems have (issue 47, point 6): every arm of
:mod:`benchmarks.robot_zoo` (pose pair 0, velocity limits on), GC at N = 50, solved from 8 starts by
:func:`pyomo_mbdyn.studies.multistart` (start 0 the model's guess, starts 1–7 its joint angles moved by
up to ``--radius`` rad at the interior nodes, ``perturb="chart"``).

    python -m benchmarks.zoo_multistart               # every arm, radius 0.3 rad
    python -m benchmarks.zoo_multistart --robots kinova xarm7 --radius 0.5

Prints a Markdown table: per arm the distinct optima found, J of the default start, the best, the
median and the worst optimal J, and the spread (worst − best) / best.
"""

import argparse
import functools
import json
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).parent / "results" / "zoo_multistart.jsonl"


def build(name, seed=0, steps=50, scheme="gc"):
    """The zoo problem of ``benchmarks.robot_zoo`` as a model (picklable through functools.partial)."""
    from benchmarks.robot_zoo import problem
    from pyomo_mbdyn.models import robot_arm

    system, start, target, T = problem(name, seed)
    return robot_arm.rest_to_rest(name, system, scheme, steps, T, start, target)


def main(argv=None):
    from pyomo_mbdyn.robots import zoo_arms
    from pyomo_mbdyn.studies import multistart

    parser = argparse.ArgumentParser(prog="python -m benchmarks.zoo_multistart")
    parser.add_argument("--robots", nargs="*")
    parser.add_argument("--starts", type=int, default=8)
    parser.add_argument("--radius", type=float, default=0.3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    RESULTS.parent.mkdir(exist_ok=True)
    lines = ["| robot | optimal starts | distinct optima | J default start | J best | J median | J worst | "
             "spread | wall [s] |", "|---|---|---|---|---|---|---|---|---|"]
    for name in args.robots or list(zoo_arms()):
        t0 = time.perf_counter()
        table = multistart(functools.partial(build, name), args.starts, perturb="chart", radius=args.radius,
                           workers=args.workers)
        wall = time.perf_counter() - t0
        ok = table[table["status"] == "optimal"]
        J = ok["objective"].to_numpy(float)
        row = {"robot": name, "starts": args.starts, "radius": args.radius, "optimal": int(len(ok)),
               "optima": int(ok["optimum"].nunique()), "J": table["objective"].tolist(),
               "status": table["status"].tolist(), "wall_s": wall}
        with RESULTS.open("a") as f:
            f.write(json.dumps(row) + "\n")
        default = table.loc[0, "objective"] if table.loc[0, "status"] == "optimal" else float("nan")
        if len(J):
            lines.append(f"| {name} | {len(ok)}/{args.starts} | {row['optima']} | {default:.5g} | {J.min():.5g} | "
                         f"{np.median(J):.5g} | {J.max():.5g} | {(J.max() - J.min()) / J.min():.1%} | {wall:.0f} |")
        else:
            lines.append(f"| {name} | 0/{args.starts} | – | – | – | – | – | – | {wall:.0f} |")
        print(lines[-1], flush=True)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
