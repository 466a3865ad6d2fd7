"""Grid refinement by default in ``OptimalControlProblem.solve`` (issue 51): J and iterations
with ``refine=True`` (default) and ``refine=False`` on an acrobot and a cart-pole swing-up.

Run: ``python benchmarks/refinement.py [acrobot|cartpole] [scheme ...]``; one line per
(problem, scheme, N, refine) with J, the stages, IPOPT iterations (summed over the stages),
wall and CPU seconds.  Results: benchmarks/pages/refinement.md.  The robots (panda, ur5) go
through the command line's own refinement, which this change shares: ``pyomo-mbdyn run panda``.
"""

import sys
import time
import warnings

import numpy as np
import pyomo.environ as pyo

from pyomo_mbdyn.errors import GridDependenceWarning, SolveFailedError
from pyomo_mbdyn.mechanics import MultibodySystem, Prismatic, Revolute, RigidBody, examples
from pyomo_mbdyn.ocp import OptimalControlProblem
from pyomo_mbdyn.schemes import scheme_block

ROD = (1 / 12, 1e-3, 1 / 12)  # a 1 m, 1 kg rod along y: small axial moment


def cart_pole():
    """A 1 kg cart on a rail along x, pushed; a 1 m, 0.5 kg pole hanging from it, unactuated."""
    cart = RigidBody("cart", 1.0, (0.1, 0.1, 0.1))
    pole = RigidBody("pole", 0.5, tuple(0.5 * np.array(ROD)), position=(0, -0.5, 0))
    system = MultibodySystem("cart-pole", gravity=(0, -9.81, 0))
    system.add_bodies(cart, pole)
    system.add_joints(Prismatic("rail", None, cart, location=(0, 0, 0), axis=(1, 0, 0)),
                      Revolute("hinge", cart, pole, location=(0, 0, 0), axis=(0, 0, 1)))
    system.actuate("rail")
    return system


#: problem: (system, horizon T, final joint coordinates): swing-up from hanging to upright, rest to rest
PROBLEMS = {
    "acrobot": (examples.acrobot, 4.0, {"shoulder": np.pi, "elbow": 0.0}),
    "cartpole": (cart_pole, 2.0, {"rail": 0.0, "hinge": np.pi}),
}


def build(problem, scheme, steps):
    make, horizon, target = PROBLEMS[problem]
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=make(), steps=steps, horizon=horizon)
    ocp = OptimalControlProblem(m.dyn)
    ocp.minimise_control_effort()
    ocp.fix_final_configuration(target)
    ocp.require_final_rest()
    return m, ocp


def measure(problem, scheme, steps, refine):
    m, ocp = build(problem, scheme, steps)
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", GridDependenceWarning)
        try:
            ocp.solve(refine=refine, options={"max_iter": 3000})
            J = pyo.value(m.ocp.control_effort)
        except SolveFailedError as err:
            J = f"failed ({err.status})"
    return {"problem": problem, "scheme": scheme, "N": steps, "refine": refine, "J": J,
            "stages": [(s["steps"], s["start"], s.get("objective")) for s in ocp.stages],
            "iterations": sum(s["iterations"] or 0 for s in ocp.stages),
            "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
            "warned": any(issubclass(w.category, GridDependenceWarning) for w in caught)}


def main(argv):
    problems = [a for a in argv if a in PROBLEMS] or list(PROBLEMS)
    schemes = [a for a in argv if a not in PROBLEMS] or ["rem", "gc"]
    for problem in problems:
        for scheme in schemes:
            for steps in (50, 100, 200):
                for refine in (True, False):
                    r = measure(problem, scheme, steps, refine)
                    J = r["J"] if isinstance(r["J"], str) else f"{r['J']:.6g}"
                    stages = " → ".join(f"{n}" + ("" if j is None else f" (J {j:.5g})") for n, _, j in r["stages"])
                    print(f"{problem:8} {scheme:4} N={steps:<4} refine={refine!s:5} J={J:<12} "
                          f"stages: {stages:<30} it={r['iterations']:<5} wall={r['wall']:.1f}s "
                          f"cpu={r['cpu']:.1f}s warned={r['warned']}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
