"""Joint coordinates that follow the URDF (issue 47, point 1): a joint angle lives in the URDF's range,
whatever it is (past π, or wider than a turn), and a pose given in the URDF's convention is taken exactly.

A configuration fixes a joint angle only up to whole turns; the chart's inverse from θ = 0 lands near
(−π, π].  Two arms of the example-robot-data zoo need more: the Kinova's second joint lives in
[0.820, 5.463] rad, the xArm7's first in [−2π, 2π].  The arm below has one of each."""

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings, strategies as st

from pyomo_mbdyn.discretization import chart, chart_coordinates
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.mechanics import MultibodySystem
from pyomo_mbdyn.mechanics.urdf import angles_in_limits
from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
from pyomo_mbdyn.schemes import scheme_block

TURN = 2 * np.pi
ARM = """<robot name="ranges">
  <link name="base"/>
  <link name="upper"><inertial><origin xyz="0.5 0 0"/><mass value="1"/>
    <inertia ixx="0.001" iyy="0.085" izz="0.085" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="fore"><inertial><origin xyz="0.5 0 0"/><mass value="1"/>
    <inertia ixx="0.001" iyy="0.085" izz="0.085" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="wide" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 0 1"/><limit lower="-6.283185307179586" upper="6.283185307179586" effort="50" velocity="3"/></joint>
  <joint name="past_pi" type="revolute"><origin xyz="1 0 0"/><parent link="upper"/><child link="fore"/>
    <axis xyz="0 1 0"/><limit lower="0.820304748437" upper="5.46288055874" effort="50" velocity="3"/></joint>
</robot>"""
PAST_PI = (0.820304748437, 5.46288055874)
#: a pose whose angles the chart's inverse from 0 would give 2π away: 4.0 (→ −2.28) and π + 0.9 (→ −2.24)
START = np.array([4.0, np.pi + 0.9])
STEPS, HORIZON = 10, 1.0


@pytest.fixture(scope="module")
def arm():
    return MultibodySystem.from_urdf(ARM)


@settings(max_examples=40, deadline=None)
@given(st.floats(-3.0, 3.0), st.floats(*PAST_PI))
def test_inverse_chart_lands_in_the_urdf_range(wide, past_pi):
    system = MultibodySystem.from_urdf(ARM)
    theta = chart_coordinates(system, chart(system, [wide, past_pi]))
    assert theta[1] == pytest.approx(past_pi, abs=1e-9)        # one branch in [0.82, 5.46]: exactly the pose, π too
    assert theta[0] == pytest.approx(wide, abs=1e-9)           # inside (−π, π]: never shifted (a half turn from
    #                                                            θ = 0 is the inverse's blind spot: not drawn)


def test_angles_in_limits_reads_the_principal_value_or_the_fewest_turns_from_it(arm):
    assert angles_in_limits(arm, [-2.0, -3.0]) == pytest.approx([-2.0, -3.0 + TURN])
    assert angles_in_limits(arm, [7.0, 1.0]) == pytest.approx([7.0 - TURN, 1.0])
    assert angles_in_limits(arm, [4.0, 1.0]) == pytest.approx([4.0 - TURN, 1.0])   # wide range: the principal value
    assert angles_in_limits(arm, [0.0, 0.5]) == pytest.approx([0.0, 0.5])     # no turn puts 0.5 in range: kept
    assert angles_in_limits(arm, [20.0, 0.3 - TURN]) == pytest.approx([20.0 - 3 * TURN, 0.3])


@settings(max_examples=30, deadline=None)
@given(st.floats(-3.1, 3.1), st.floats(*PAST_PI), st.integers(-3, 3), st.integers(-3, 3))
def test_angles_in_limits_does_not_depend_on_the_branch_given(wide, past_pi, n, m):
    system = MultibodySystem.from_urdf(ARM)
    assert angles_in_limits(system, [wide + n * TURN, past_pi + m * TURN]) == pytest.approx([wide, past_pi], abs=1e-9)


@pytest.mark.parametrize("scheme, form", [("gc", None), ("lobatto_gc", None), ("rem", "absolute"), ("rem", "lifted"),
                                          ("bem", "absolute"), ("bem", "lifted"), ("dmocc", "absolute")])
def test_initial_coordinates_are_taken_exactly_in_every_scheme(arm, scheme, form):
    m = pyo.ConcreteModel()
    options = {} if form is None else {"configurations": form}
    m.dyn = scheme_block(scheme, system=arm, steps=4, horizon=1.0, initial_coordinates=START, **options)
    p = OptimalControlProblem(m.dyn)
    angles = p.joint_coordinates()
    assert [pyo.value(angles[0, j]) for j in m.dyn.velocities] == pytest.approx(START, abs=1e-9)
    assert m.dyn.q_initial == pytest.approx(np.asarray(chart(arm, START), float), abs=1e-12)
    p.apply_joint_limits()                        # the start lies within the limits: accepted


def test_the_same_configuration_as_q0_reads_on_the_urdf_branch(arm):
    """Given as q0 the 4.0 rad of the wide joint is ambiguous (−2.28 is in range too): the inverse's
    branch is kept; the joint past π has one branch and is read on it."""
    m = pyo.ConcreteModel()
    m.dyn = scheme_block("gc", system=arm, steps=4, horizon=1.0, initial_configuration=chart(arm, START))
    angles = OptimalControlProblem(m.dyn).joint_coordinates()
    assert [pyo.value(angles[0, j]) for j in m.dyn.velocities] == pytest.approx([START[0] - TURN, START[1]])


@pytest.mark.parametrize("scheme, form", [("gc", None), ("rem", "absolute"), ("bem", "absolute")])
def test_a_short_motion_past_pi_stays_short_and_within_the_range(arm, scheme, form):
    """From θ = (4.0, π + 0.9) to (4.4, π + 1.3): each joint turns 0.4 rad, inside its range —
    not 0.4 − 2π (as from the inverse's branch of the start) nor out of [0.82, 5.46]."""
    target = START + 0.4
    m = pyo.ConcreteModel()
    options = {} if form is None else {"configurations": form}
    m.dyn = scheme_block(scheme, system=arm, steps=STEPS, horizon=HORIZON, initial_coordinates=START, **options)
    p = OptimalControlProblem(m.dyn)
    p.minimise_control_effort({a: 0.5 for a in m.dyn.actuated})
    p.fix_final_configuration(dict(zip(["wide", "past_pi"], target)))
    p.require_final_rest()
    p.apply_joint_limits()
    m.dyn.initialize_from(interpolated_trajectory(arm, HORIZON / STEPS, STEPS, target, theta_initial=START))
    p.solve("casadi_ipopt")
    angles = p.joint_coordinates()
    theta = np.array([[pyo.value(angles[k, j]) for j in m.dyn.velocities] for k in m.dyn.nodes])
    assert theta[0] == pytest.approx(START, abs=1e-9) and theta[-1] == pytest.approx(target, abs=1e-7)
    assert np.all(np.abs(np.diff(theta, axis=0)) < 0.4)       # no step turns the long way round
    assert np.all(theta[:, 1] >= PAST_PI[0] - 1e-7) and np.all(theta[:, 1] <= PAST_PI[1] + 1e-7)


def test_initial_configuration_and_coordinates_exclude_each_other(arm):
    m = pyo.ConcreteModel()
    with pytest.raises(ConfigurationError, match="initial_configuration .* initial_coordinates"):
        m.dyn = scheme_block("gc", system=arm, steps=4, horizon=1.0, initial_coordinates=START,
                             initial_configuration=chart(arm, START))
    with pytest.raises(ConfigurationError, match="expected 2 finite joint coordinates"):
        m.dyn = scheme_block("rem", system=arm, steps=4, horizon=1.0, initial_coordinates=[1.0, np.nan])
    with pytest.raises(ConfigurationError, match="q_initial or theta_initial"):
        interpolated_trajectory(arm, 0.1, 4, START, q_initial=arm.q0, theta_initial=START)


@pytest.mark.parametrize("scheme", ["gc", "rem"])
def test_robot_models_take_the_pose_in_the_urdf_convention(arm, scheme):
    """``models.robot_arm.rest_to_rest`` states the start as joint angles: θ_0 is the pose given."""
    from pyomo_mbdyn.models import robot_arm

    m = robot_arm.rest_to_rest("ranges", arm, scheme, 4, 1.0, START, START + 0.4)
    angles = m.problem.joint_coordinates()
    assert [pyo.value(angles[0, j]) for j in m.dyn.velocities] == pytest.approx(START, abs=1e-9)
    assert m.dyn.trajectory().q[0] == pytest.approx(np.asarray(chart(arm, START), float), abs=1e-12)
