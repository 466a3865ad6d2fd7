"""A URDF's position and effort limits applied by the OCP in one call each
(`apply_joint_limits`, `apply_effort_limits`), and the solved motion within them."""

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.discretization import chart
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.mechanics import MultibodySystem, examples
from pyomo_mbdyn.mechanics.urdf import JointLimits
from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
from pyomo_mbdyn.schemes import scheme_block

ARM = """<robot name="arm">
  <link name="base"/>
  <link name="upper"><inertial><origin xyz="0.5 0 0"/><mass value="1"/>
    <inertia ixx="0.001" iyy="0.085" izz="0.085" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="fore"><inertial><origin xyz="0.5 0 0"/><mass value="1"/>
    <inertia ixx="0.001" iyy="0.085" izz="0.085" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 0 1"/><limit lower="-0.5" upper="1.2" effort="16" velocity="3"/></joint>
  <joint name="elbow" type="revolute"><origin xyz="1 0 0"/><parent link="upper"/><child link="fore"/>
    <axis xyz="0 0 1"/><limit lower="-0.2" upper="1.0" effort="8" velocity="3"/></joint>
</robot>"""
START, TARGET = np.array([0.0, 0.0]), np.array([1.0, 0.4])
STEPS, HORIZON = 16, 1.0


def problem(scheme, system=None, start=START):
    system = system or MultibodySystem.from_urdf(ARM)
    q0 = np.asarray(chart(system, start), float)
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=system, steps=STEPS, horizon=HORIZON, initial_configuration=q0)
    p = OptimalControlProblem(m.dyn)
    p.minimise_control_effort({a: 0.5 for a in m.dyn.actuated})
    p.fix_final_configuration(dict(zip(["shoulder", "elbow"], TARGET)))
    p.require_final_rest()
    m.dyn.initialize_from(interpolated_trajectory(system, HORIZON / STEPS, STEPS, TARGET, q_initial=q0))
    return m, p


def joint_angles(p):
    angles = p.joint_coordinates()
    return np.array([[pyo.value(angles[k, j]) for j in p.dyn.velocities] for k in p.dyn.nodes])


@pytest.mark.parametrize("scheme", ["rem", "bem", "gc"])
def test_limits_applied_in_one_call_each_hold_on_the_solution(scheme):
    m, p = problem(scheme)
    assert p.apply_joint_limits() == ["shoulder", "elbow"]
    assert p.apply_effort_limits() == ["shoulder.angle", "elbow.angle"]
    free, free_problem = problem(scheme)
    free_problem.solve("casadi_ipopt")
    p.solve("casadi_ipopt")
    tr = m.dyn.trajectory()
    assert np.all(np.abs(tr.u) <= np.array([16.0, 8.0]) + 1e-7)
    assert np.abs(tr.u[:, 1]).max() == pytest.approx(8.0, abs=1e-6)          # the elbow's effort limit is active
    theta = joint_angles(p)
    assert np.all(theta >= np.array([-0.5, -0.2]) - 1e-7) and np.all(theta <= np.array([1.2, 1.0]) + 1e-7)
    assert joint_angles(free_problem)[:, 1].max() > 1.1 and theta[:, 1].max() == pytest.approx(1.0, abs=1e-6)


def test_limits_given_explicitly_and_refused_by_name():
    m, p = problem("rem")
    elbow = JointLimits("elbow", "revolute", ("elbow.angle",), -0.2, 1.0, 9.0)
    assert p.apply_joint_limits({"elbow": elbow}) == ["elbow"]
    with pytest.raises(ConfigurationError, match="'wrist'"):
        p.apply_effort_limits({"wrist": elbow})
    with pytest.raises(ConfigurationError, match="JointLimits"):
        p.apply_effort_limits({"elbow": (0, 1)})
    pendulum = examples.pendulum()
    m = pyo.ConcreteModel()
    m.dyn = scheme_block("rem", system=pendulum, steps=4, horizon=1.0)
    with pytest.raises(ConfigurationError, match="urdf_limits"):
        OptimalControlProblem(m.dyn).apply_joint_limits()


def test_effort_limit_on_a_joint_without_actuator_is_refused():
    system = MultibodySystem.from_urdf(ARM, actuated=False)
    system.actuate("shoulder")
    m, p = problem("rem", system=system)
    with pytest.raises(ConfigurationError, match="'elbow'.*none of its coordinates"):
        p.apply_effort_limits()


def test_a_start_outside_the_limits_is_refused():
    m, p = problem("rem", start=np.array([0.0, 1.1]))
    with pytest.raises(ConfigurationError, match="outside"):
        p.apply_joint_limits()
