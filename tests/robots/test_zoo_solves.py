"""The zoo solved (issue 47, point 5): every fixed-base serial arm of example-robot-data
(:func:`pyomo_mbdyn.robots.zoo_arms`, not hand-picked) rest to rest between a seeded random pose
pair within its position limits (:func:`~pyomo_mbdyn.models.robot_arm.random_pose_pair`), in the
horizon at which the quintic between them peaks at 80 % of the velocity limits
(:func:`~pyomo_mbdyn.models.robot_arm.paced_horizon`), by gc, rem, bem and lobatto_gc from the
models' default start, with the URDF's position, velocity and effort limits.

Asserted: what holds at every optimum — the status, the limits on every node and step, the final
pose and rest in joint space (:mod:`pyomo_mbdyn.joint_space`).  Which local optimum a scheme lands in
is not asserted (these problems have many; benchmarks/pages/robot_zoo.md).  The default run solves a
fast subset at N = 16 — the SO-100 and Z1 (gripper joints locked) in every scheme, the Kinova
(continuous joints, ranges past π) in gc, rem and lobatto_gc (bem there takes a minute); the xArm7
is tests/ocp/test_robot_rem_converges.py's — and ``-m slow`` every arm in every scheme at N = 50.
"""

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.mechanics import MultibodySystem
from pyomo_mbdyn.models import robot_arm
from pyomo_mbdyn.robots import zoo_arm, zoo_arms

SCHEMES = ("gc", "rem", "bem", "lobatto_gc")
FAST = [("so100", s) for s in SCHEMES] + [("z1", s) for s in SCHEMES] + \
       [("kinova", s) for s in ("gc", "rem", "lobatto_gc")]


def solve_pair(name, scheme, steps, seed=0):
    arm = zoo_arm(name)
    system = MultibodySystem.from_urdf(arm.path, lock=arm.lock)
    start, target = robot_arm.random_pose_pair(system, seed)
    horizon = robot_arm.paced_horizon(system, start, target)
    m = robot_arm.rest_to_rest(name, system, scheme, steps, horizon, start, target)
    results = m.problem.solve("casadi_ipopt")
    return m, results, system, start, target, horizon


def check_within_limits_and_at_rest(m, results, system, start, target, horizon):
    assert pyo.check_optimal_termination(results)
    names = list(m.dyn.velocities)
    limits = [system.urdf_limits[j.rsplit(".", 1)[0]] for j in names]
    angles = m.problem.joint_coordinates()
    theta = np.array([[pyo.value(angles[k, j]) for j in names] for k in m.dyn.nodes])
    assert theta[0] == pytest.approx(start, abs=1e-9) and theta[-1] == pytest.approx(target, abs=1e-6)
    # position limits (IPOPT relaxes a bound by 1e-8 max(1, |bound|))
    for j, lim in enumerate(limits):
        if lim.lower is not None:
            slack = 1e-8 * max(1.0, abs(lim.lower), abs(lim.upper)) + 1e-9
            assert theta[:, j].min() >= lim.lower - slack and theta[:, j].max() <= lim.upper + slack, names[j]
    # velocity limits on the documented measure: every step's mean joint rate
    h = horizon / m.dyn.config.steps
    vmax = np.array([lim.velocity or np.inf for lim in limits])
    assert (np.abs(np.diff(theta, axis=0)) / h <= vmax * (1 + 1e-6) + 1e-9).all()
    # effort limits on every control
    ev = robot_arm.evaluate(m)
    assert ev["effort_ratio_max"] <= 1 + 1e-7
    # at rest at the end, read in joint space (θ̇_N, T_N of joint_space_table)
    assert ev["final_joint_rate_max"] < 1e-6 and ev["final_kinetic_energy"] < 1e-9


def test_the_fast_subset_is_in_the_zoo():
    assert {name for name, _ in FAST} <= set(zoo_arms())


@pytest.mark.parametrize("name, scheme", FAST)
def test_fast_subset_solves_within_the_limits_and_ends_at_rest(name, scheme):
    check_within_limits_and_at_rest(*solve_pair(name, scheme, 16))


@pytest.mark.slow
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("name", sorted(zoo_arms()))
def test_every_arm_every_scheme_solves_within_the_limits_and_ends_at_rest(name, scheme):
    check_within_limits_and_at_rest(*solve_pair(name, scheme, 50))
