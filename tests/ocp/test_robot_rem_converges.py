"""REM on an arm nobody here tuned for (issue 47.4): example-robot-data's UFactory xArm7, rest to
rest between a seeded pose pair within its limits, N = 16.

Why REM diverged: bem and rem in the absolute chart see a joint's step only through the chord
q(θ_{k+1}) − q(θ_k).  Their dynamics are projected by P at the chord's midpoint, whose directors
shrink by cos(Δθ/2): the reduced mass of a step of the last joint is cos²(Δθ/2) times its value
(tested below), zero at Δθ = π, and past π a larger turn is a shorter chord.  Without velocity
limits the least-effort iterates whip the xArm7's light wrist (link 7: 0.17 kg, E₃ = 1e-5 kg m²)
towards a turn per step; they reach that fold and IPOPT's infeasibility grows to 1e2–1e3 while J
falls.  ``rest_to_rest`` keeps every joint step of bem/rem within π/2 (rows ``ocp.angle_step``,
where the velocity limits do not bound it already).

Asserted: what holds at any optimum (status, the final pose, rest, the limits, the steps within
π/2), and agreement with GC where REM is started from GC's solution (the same optimum): the
difference of the two second-order schemes' J falls like h².
"""

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.discretization import chart
from pyomo_mbdyn.mechanics import MultibodySystem
from pyomo_mbdyn.models import robot_arm
from pyomo_mbdyn.robots import zoo_arm

STEPS, SEED = 16, 0


@pytest.fixture(scope="module")
def xarm7():
    arm = zoo_arm("xarm7")
    system = MultibodySystem.from_urdf(arm.path, lock=arm.lock)
    start, target = robot_arm.random_pose_pair(system, SEED)
    return system, start, target


def solved(m):
    result = m.problem.solve("casadi_ipopt")
    assert str(result.solver.termination_condition) == "optimal"
    return m


def angles(m):
    return np.array([m.dyn.theta_values(k) if m.dyn.scheme != "gc" else
                     [pyo.value(m.dyn.theta[k, j]) for j in m.dyn.velocities] for k in m.dyn.nodes])


def assert_rest_to_rest_within_the_limits(m, system, target, velocity_limits=True):
    theta = angles(m)
    np.testing.assert_allclose(theta[-1], target, atol=1e-12)
    ev = robot_arm.evaluate(m)
    assert ev["final_momentum"] < 1e-9
    assert ev["final_joint_rate_max"] < 1e-8
    assert ev["effort_ratio_max"] <= 1 + 1e-8
    assert ev["joint_limit_margin_min"] >= -1e-8 * 2 * np.pi  # IPOPT's bound relaxation (|limit| ≤ 2π)
    steps = np.abs(np.diff(theta, axis=0))
    assert steps.max() <= robot_arm.ANGLE_STEP_LIMIT + 1e-7
    if velocity_limits:
        h = float(m.dyn.step_length)
        vmax = np.array([system.urdf_limits[j.rsplit(".", 1)[0]].velocity for j in m.dyn.velocities])
        assert (steps / h <= vmax * (1 + 1e-6)).all()


def test_the_reduced_mass_of_a_chord_falls_as_cos_squared_of_half_the_step(xarm7):
    """The cause: P(q_{k+½})ᵀ M P(q_{k+½}) for a step Δθ of the last joint (only link 7 turns)."""
    system = xarm7[0]
    M = np.asarray(system.mass_matrix(), float)
    theta0 = np.array([0.3, -0.5, 0.2, 1.0, 0.1, 1.2, 0.0])

    def reduced_mass(step):
        theta1 = theta0 + step * np.eye(7)[6]
        midpoint = (np.asarray(chart(system, theta0), float) + np.asarray(chart(system, theta1), float)) / 2
        P = np.asarray(system.null_space(midpoint), float)
        return (P.T @ M @ P)[6, 6]

    on_manifold = reduced_mass(0.0)
    for step in (0.5, np.pi / 2, 3.0, np.pi, 4.0, 2 * np.pi - 0.5):
        assert reduced_mass(step) == pytest.approx(np.cos(step / 2) ** 2 * on_manifold, rel=1e-9, abs=1e-15)


def test_rem_converges_on_the_xarm7_from_the_default_start(xarm7):
    system, start, target = xarm7
    m = robot_arm.rest_to_rest("xarm7", system, "rem", STEPS, robot_arm.paced_horizon(system, start, target),
                               start, target)
    assert_rest_to_rest_within_the_limits(solved(m), system, target)


def test_rem_without_velocity_limits_keeps_its_steps_within_a_quarter_turn(xarm7):
    system, start, target = xarm7
    m = robot_arm.rest_to_rest("xarm7", system, "rem", STEPS, 1.5, start, target, velocity_limits=False)
    # no velocity limit bounds a step here: every joint's steps are rows, of a turn (target > π away) or not
    rows = [c for c in (m.ocp.component("turn_increment"), m.ocp.angle_step) if c is not None]
    assert sorted(name for c in rows for _, name in c.index_set()) == sorted(list(m.dyn.velocities) * STEPS)
    assert_rest_to_rest_within_the_limits(solved(m), system, target, velocity_limits=False)


def test_rem_started_from_gc_agrees_with_gc_to_second_order(xarm7):
    """REM from GC's solution, on the pair's first 30 % (a motion with one optimum near the quintic;
    the whole pair's optima lie radians apart at N = 16–32): J of the two second-order schemes
    differs by their discretisation errors, which fall by more than 2.5 when h halves (measured:
    4.8 % at N = 12, 0.94 % at 24, 0.11 % at 48)."""
    system, start, target = xarm7
    target = start + 0.3 * (target - start)
    horizon = robot_arm.paced_horizon(system, start, target)
    differences = []
    for steps in (12, 24):
        gc = solved(robot_arm.rest_to_rest("xarm7", system, "gc", steps, horizon, start, target))
        rem = robot_arm.rest_to_rest("xarm7", system, "rem", steps, horizon, start, target)
        rem.dyn.initialize_from(gc.dyn.trajectory())
        solved(rem)
        assert_rest_to_rest_within_the_limits(rem, system, target)
        J_gc, J_rem = pyo.value(gc.ocp.control_effort), pyo.value(rem.ocp.control_effort)
        differences.append(abs(J_rem - J_gc) / J_gc)
    assert differences[1] < differences[0] / 2.5, differences


@pytest.mark.parametrize("scheme", ["rem", "bem"])
def test_the_lifted_forms_bound_every_joint_step_too(xarm7, scheme):
    """rem lifted: the increments w_k within ±π/2 (variable bounds); bem lifted: rows on the
    half-angle step of the node configurations, which read a step of 1.2 rad as 1.2 rad."""
    system, start, target = xarm7
    m = robot_arm.rest_to_rest("xarm7", system, scheme, 4, 1.5, start, target, velocity_limits=False,
                               configurations="lifted")
    turning = m.ocp.component("turn_increment")
    turns = set() if turning is None else {name for _, name in turning.index_set()}
    if scheme == "rem":
        for i in m.dyn.intervals:
            for name in m.dyn.velocities:
                w = m.dyn.w[i, name]
                assert w.lb >= -robot_arm.ANGLE_STEP_LIMIT and w.ub <= robot_arm.ANGLE_STEP_LIMIT
        return
    rows = m.ocp.angle_step
    assert sorted({name for _, name in rows.index_set()} | turns) == sorted(m.dyn.velocities)
    theta = np.array([start + k * 1.2 * np.eye(7)[6] for k in m.dyn.nodes])
    for k in m.dyn.nodes:
        for value, var in zip(np.asarray(chart(system, theta[k]), float), m.dyn.q_array(k)):
            if not var.fixed:
                var.set_value(value)
    last = list(m.dyn.velocities)[6]
    assert last not in turns
    for i in list(m.dyn.intervals)[:-1]:  # the last node is fixed at the target
        assert pyo.value(rows[i, last].body) == pytest.approx(1.2, abs=1e-12)
    assert rows[0, last].lower == -robot_arm.ANGLE_STEP_LIMIT and rows[0, last].upper == robot_arm.ANGLE_STEP_LIMIT
