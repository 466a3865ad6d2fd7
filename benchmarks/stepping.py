"""Steps per second of the Newton stepper, beside IPOPT on the whole square block.

A script, not a test: ``python benchmarks/stepping.py [--write]`` prints a
markdown table (and with ``--write`` stores it in benchmarks/pages/stepping.md).  The
system is the free-floating 4-body chain of the scheme tests (revolute,
spherical and universal joints, gravity, friction, joint torques).
"""

import argparse
import sys
import time

import numpy as np
import pyomo.environ as pyo

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.mechanics import Revolute, RigidBody, MultibodySystem, Spherical, Universal
from pyomo_mbdyn.schemes import scheme_block
from pyomo_mbdyn.simulate import Stepper, simulate
from _report import machine_line, write_section  # benchmarks/ is sys.path[0]


def four_body_system():
    rng = np.random.default_rng(4)
    bodies = [RigidBody(f"b{i}", 1.0 + i, (0.3, 0.4, 0.5), position=(i, 0.2 * i, 0)) for i in range(4)]
    system = MultibodySystem("four-body chain", gravity=(0, -9.81, 0))
    system.add_bodies(*bodies)
    system.add_joints(
        Revolute("j0", bodies[0], bodies[1], location=(0.5, 0.1, 0), axis=(0, 0, 1)),
        Spherical("j1", bodies[1], bodies[2], location=(1.5, 0.3, 0)),
        Universal("j2", bodies[2], bodies[3], location=(2.5, 0.5, 0), axis=(0, 0, 1), child_axis=(1, 0, 0)),
    )
    for j in system.joints:
        system.actuate(j)
        system.add_friction(j, 1.0)
    q0 = system.reparametrise(rng.uniform(-0.3, 0.3, system.n_velocities), system.q0)
    v0 = system.null_space(q0) @ rng.uniform(-1, 1, system.n_velocities)
    return system, q0, v0


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    system, q0, v0 = four_body_system()
    h = 0.01
    rows = []
    for scheme in ("bem", "rem"):
        t0 = time.perf_counter()
        stepper = Stepper(system, h, scheme)
        setup = time.perf_counter() - t0
        steps = 1000
        U = np.zeros((steps, len(system.actuated)))
        t0 = time.perf_counter()
        tr = stepper.simulate(q0, v0, steps, U)
        run = time.perf_counter() - t0
        rows.append((f"stepper {scheme}", steps, setup, run, steps / run,
                     float(np.mean(tr.newton_iterations))))
        for steps in (10, 40):
            U = np.zeros((steps, len(system.actuated)))
            guess = simulate(system, q0, v0, h, steps, U, scheme="bem", contravariant=False)
            m = pyo.ConcreteModel()
            t0 = time.perf_counter()
            m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=steps * h,
                                 initial_configuration=q0, initial_velocity=v0, controls=U)
            m.dyn.initialize_from(guess)
            build = time.perf_counter() - t0
            t0 = time.perf_counter()
            res = pyo.SolverFactory("casadi_ipopt").solve(m)
            run = time.perf_counter() - t0
            rows.append((f"IPOPT block {scheme}", steps, build, run, steps / run,
                         res.solver.iterations))
    lines = [
        machine_line(),
        "",
        "| method | steps | setup/build s | run s | steps per second | iterations (mean Newton / IPOPT) |",
        "|---|---|---|---|---|---|",
    ]
    lines += [f"| {r[0]} | {r[1]} | {r[2]:.2f} | {r[3]:.2f} | {r[4]:.0f} | {r[5]} |" for r in rows]
    table = "\n".join(lines)
    print(table)
    if args.write:
        write_section("stepping", table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
