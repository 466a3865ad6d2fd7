"""A planar chain of k revolute links for the scaling in the number of bodies.

Built with :mod:`pyomo_mbdyn.mechanics` like the three-link arm: k slender
links (m = 1, length 1, Euler values (1/12, 0.005, 0.005)) in a line along e1,
hinged about e3 (the first to the ground), every joint actuated, no gravity.
Rest to rest from α = 0 to α_i = 0.05 rad (small angles), T = 1, N = 20,
J = h Σ ½|u|², the library's interpolated guess.
"""

import numpy as np

from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody

STEPS, HORIZON, ANGLE = 20, 1.0, 0.05


def build_system(k):
    system = MultibodySystem(f"chain-{k}", gravity=(0.0, 0.0, 0.0))
    links = []
    for i in range(k):
        links.append(RigidBody(f"link{i + 1}", 1.0, euler=(1.0 / 12, 0.005, 0.005), position=(i + 0.5, 0.0, 0.0),
                               directors=np.eye(3), points={"base": (-0.5, 0, 0), "tip": (0.5, 0, 0)}))
    system.add_bodies(*links)
    for i, (parent, child) in enumerate(zip([None] + links[:-1], links)):
        system.add_joints(Revolute(f"j{i + 1}", parent, child, location=(float(i), 0.0, 0.0), axis=(0, 0, 1)))
    for i in range(k):
        system.actuate(f"j{i + 1}")
    return system


def build_chain(k, scheme="rem", steps=STEPS):
    import pyomo.environ as pyo

    from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
    from pyomo_mbdyn.schemes import scheme_block

    system = build_system(k)
    m = pyo.ConcreteModel(f"chain-{k}")
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=HORIZON)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({name: 0.5 for name in m.dyn.actuated})
    theta_f = np.full(k, ANGLE)
    problem.fix_final_configuration(theta_f)
    problem.require_final_rest()
    m.dyn.initialize_from(interpolated_trajectory(system, m.dyn.h, steps, theta_f))
    m.problem = problem
    return m
