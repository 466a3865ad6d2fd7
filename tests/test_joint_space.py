"""Joint-space readouts by one definition for every scheme (issue 47, point 3): joint angles, joint
rates as the M-orthogonal projection of the node velocity, the kinetic energy of the motion and the part
of the node velocity off the tangent space, with ½vᵀMv = T + T_off exactly; final rest read in these terms."""

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings, strategies as st

from pyomo_mbdyn.discretization import chart_velocity
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.joint_space import joint_rates, joint_space_table
from pyomo_mbdyn.mechanics import MultibodySystem, examples
from pyomo_mbdyn.models import robot_arm

ARM = """<robot name="arm3">
  <link name="base"/>
  <link name="a"><inertial><origin xyz="0 0 0.2"/><mass value="2"/>
    <inertia ixx="0.03" iyy="0.03" izz="0.004" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><origin xyz="0.25 0 0"/><mass value="1"/>
    <inertia ixx="0.001" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="c"><inertial><origin xyz="0.2 0 0"/><mass value="0.5"/>
    <inertia ixx="0.0005" iyy="0.007" izz="0.007" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="yaw" type="continuous"><origin xyz="0 0 0"/><parent link="base"/><child link="a"/>
    <axis xyz="0 0 1"/><limit effort="30" velocity="3"/></joint>
  <joint name="shoulder" type="revolute"><origin xyz="0 0 0.4"/><parent link="a"/><child link="b"/>
    <axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="30" velocity="3"/></joint>
  <joint name="elbow" type="revolute"><origin xyz="0.5 0 0"/><parent link="b"/><child link="c"/>
    <axis xyz="0 1 0"/><limit lower="-2.5" upper="2.5" effort="15" velocity="3"/></joint>
</robot>"""
START, TARGET = (0.0, -0.3, 0.6), (0.8, 0.2, 1.2)


@pytest.fixture(scope="module")
def arm():
    return MultibodySystem.from_urdf(ARM)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=3, max_size=3), st.lists(st.floats(-5, 5), min_size=3, max_size=3),
       st.lists(st.floats(-2, 2), min_size=36, max_size=36))
def test_projection_returns_the_joint_rates_of_a_tangent_velocity_and_splits_the_energy(theta, rates, off):
    """v = P̃θ̇ + δ: the projection gives θ̇ back when δ = 0, and ½vᵀMv = T + T_off for any δ."""
    system = MultibodySystem.from_urdf(ARM)
    tangent = np.asarray(chart_velocity(system, theta, rates)[1], float)
    got, T, T_off = joint_rates(system, theta, tangent)
    assert got == pytest.approx(rates, abs=1e-9 * (1 + np.abs(rates).max()))
    assert T_off <= 1e-18 * (1 + T)
    M = np.asarray(system.mass_matrix(), float)
    v = tangent + np.asarray(off)
    _, T, T_off = joint_rates(system, theta, v)
    assert T + T_off == pytest.approx(0.5 * v @ M @ v, rel=1e-10, abs=1e-14)


@pytest.mark.parametrize("scheme, form", [("gc", None), ("rem", "absolute"), ("bem", "absolute"), ("bem", "lifted")])
def test_every_scheme_reads_its_rest_to_rest_motion_in_joint_space(arm, scheme, form):
    m = robot_arm.rest_to_rest("arm3", arm, scheme, 24, 1.0, START, TARGET, configurations=form)
    assert pyo.check_optimal_termination(m.problem.solve("casadi_ipopt"))
    trajectory = m.dyn.trajectory()
    table = joint_space_table(trajectory)
    names = list(arm.velocities)
    M = np.asarray(arm.mass_matrix(), float)
    node_energy = np.array([0.5 * v @ M @ v for v in trajectory.v])
    assert (table["T"] + table["T_off"]).to_numpy() == pytest.approx(node_energy, rel=1e-9, abs=1e-12)
    angles = m.problem.joint_coordinates()             # the problem's joint angles: the same numbers
    theta = np.array([[pyo.value(angles[k, j]) for j in names] for k in m.dyn.nodes])
    assert table[names].to_numpy() == pytest.approx(theta, abs=1e-7)
    rates = table[[f"{n}.rate" for n in names]].to_numpy()
    assert np.abs(rates[0]).max() < 1e-9 and np.abs(rates[-1]).max() < 1e-6    # at rest at both ends
    assert table["T"].iloc[-1] < 1e-10
    if scheme == "gc":                                    # tangent node velocities: nothing off, θ̇ = ṽ
        assert table["T_off"].max() < 1e-12
        assert rates == pytest.approx(np.asarray(trajectory.vt, float), abs=1e-8)


def test_bad_input_is_named():
    from pyomo_mbdyn.trajectory import Trajectory

    t = np.linspace(0, 1, 3)
    pendulum = examples.pendulum()
    bare = Trajectory.of_system(pendulum, t, np.tile(pendulum.q0, (3, 1)), np.zeros((3, pendulum.n)),
                                np.zeros((2, 1)), np.zeros((2, 1)))
    bare.system = None                                   # e.g. read back from a file
    with pytest.raises(ConfigurationError, match="no system"):
        joint_space_table(bare)
    four_bar = examples.four_bar()
    tr = Trajectory.of_system(four_bar, t, np.tile(four_bar.q0, (3, 1)), np.zeros((3, four_bar.n)),
                              np.zeros((2, len(four_bar.actuated))), np.zeros((2, four_bar.n_velocities)))
    with pytest.raises(ConfigurationError, match="closed loops"):
        joint_space_table(tr)
