"""Run time of the recursive chain dynamics against the global mass-matrix solve.

A script, not a test: ``python benchmarks/recursive.py [--write]``.  Revolute
chains of N = 4 … 256 links (pure Python/numpy, kinematics included); the
recursion's time per link should stay constant (O(N)), the global solve grows
like N³ eventually.
"""

import argparse
import sys
import time

import numpy as np

from pyomo_mbdyn.simulate.recursive import Chain, ChainBody, ChainJoint
from _report import machine_line, write_section  # benchmarks/ is sys.path[0]


def revolute_chain(n):
    joint = ChainJoint.revolute((1.0, 0.0, 0.0), axis=(0, 0, 1))
    first = ChainJoint.revolute((0.0, 0.0, 0.0), axis=(0, 0, 1))
    body = ChainBody(1.0, np.array([0.5, 0.0, 0.0]), np.diag([0.01, 0.08, 0.08]))
    return Chain([first] + [joint] * (n - 1), [body] * n, gravity=np.array([0, -9.81, 0]))


def best_of(fun, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fun()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    rows = []
    for n in (4, 16, 64, 256):
        chain = revolute_chain(n)
        g, gd, tau = (rng.uniform(-1, 1, n) for _ in range(3))
        t_rec = best_of(lambda: chain.forward_dynamics(g, gd, tau))
        t_glob = best_of(lambda: chain.mass_matrix_solution(g, gd, tau))
        diff = np.abs(chain.forward_dynamics(g, gd, tau) - chain.mass_matrix_solution(g, gd, tau)[0]).max()
        rows.append((n, t_rec, t_rec / n * 1e6, t_glob, diff))
    lines = [machine_line(), "",
             "| links | recursive s | µs per link | global s | max difference |", "|---|---|---|---|---|"]
    lines += [f"| {r[0]} | {r[1]:.4f} | {r[2]:.0f} | {r[3]:.4f} | {r[4]:.1e} |" for r in rows]
    table = "\n".join(lines)
    print(table)
    if args.write:
        write_section("recursive", table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
