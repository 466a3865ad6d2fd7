"""Robots read from URDF (``MultibodySystem.from_urdf``), cross-checked against Pinocchio.

At 20 seeded random joint states q(θ) = F(θ, q0) (the absolute reparametrisation), the
reduced mass matrix ``Pᵀ M P`` equals ``pinocchio.crba``, the generalised gravity ``Pᵀ ∇V``
equals ``computeGeneralizedGravity`` and the kinetic energy ``½ (Pν)ᵀ M (Pν)`` equals
``computeKineticEnergy``, to 1e-12 relative, for a small fixture (non-diagonal, rotated
inertias; a fixed joint carrying a mass; prismatic and continuous joints), the Franka Panda
and the UR5 shipped in ``pyomo_mbdyn/robots``.  Pinocchio lumps fixed joints too.
"""

import warnings

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn import robots
from pyomo_mbdyn.errors import AssemblyError, ConfigurationError, InputTypeError, MissingFileError
from pyomo_mbdyn.mechanics import MultibodySystem
from pyomo_mbdyn.mechanics.urdf import JointLimits, lump_inertia

import pinocchio as pin  # the test extra installs `pin`
from pinocchio_check import pin_model, pinocchio_errors

TOL = 1e-12


def _inertial(mass, xyz, rpy, ixx, iyy, izz, ixy, ixz, iyz):
    return (f'<inertial><origin xyz="{xyz}" rpy="{rpy}"/><mass value="{mass}"/>'
            f'<inertia ixx="{ixx}" iyy="{iyy}" izz="{izz}" ixy="{ixy}" ixz="{ixz}" iyz="{iyz}"/></inertial>')


#: base (welded) → link1 (revolute, unaligned origin) → link2 (continuous, unaligned axis)
#: → tool (fixed, carries 0.5 kg) → link3 (prismatic, on the lumped tool) → tip (massless frame)
FIXTURE = f"""<?xml version="1.0"?>
<robot name="fixture">
  <link name="base">{_inertial(2.0, "0 0 0.05", "0 0 0", 0.02, 0.02, 0.03, 0, 0, 0)}</link>
  <link name="link1">{_inertial(1.3, "0.1 0.02 0.15", "0.4 -0.3 0.2", 0.05, 0.04, 0.02, 0.003, -0.002, 0.001)}</link>
  <link name="link2">{_inertial(0.9, "0.2 -0.01 0.03", "-0.5 0.1 0.7", 0.01, 0.03, 0.025, -0.002, 0.001, 0.004)}</link>
  <link name="tool">{_inertial(0.5, "0.02 0.03 -0.04", "0.2 0.6 -0.3",
                              0.002, 0.003, 0.004, 0.0003, -0.0002, 0.0001)}</link>
  <link name="link3">{_inertial(0.7, "0.05 0 0.01", "0.1 0.2 0.3", 0.004, 0.006, 0.005, 0.0005, 0.0004, -0.0003)}</link>
  <link name="tip"/>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="link1"/>
    <origin xyz="0.01 0.02 0.3" rpy="0.1 -0.2 0.3"/><axis xyz="0 0 1"/>
    <limit lower="-2.5" upper="2.5" effort="40" velocity="3"/><dynamics damping="0.7" friction="0.2"/>
  </joint>
  <joint name="j2" type="continuous">
    <parent link="link1"/><child link="link2"/>
    <origin xyz="0.4 0.05 0.1" rpy="1.2 0.3 -0.4"/><axis xyz="0 0.6 0.8"/>
    <limit effort="20" velocity="4"/>
  </joint>
  <joint name="weld" type="fixed">
    <parent link="link2"/><child link="tool"/>
    <origin xyz="0.3 0.1 -0.05" rpy="0.3 0.2 -0.1"/>
  </joint>
  <joint name="j3" type="prismatic">
    <parent link="tool"/><child link="link3"/>
    <origin xyz="0.05 -0.02 0.1" rpy="-0.2 0.5 0.1"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.2" effort="100" velocity="0.5"/>
  </joint>
  <joint name="tip_joint" type="fixed">
    <parent link="link3"/><child link="tip"/><origin xyz="0.1 0 0.02" rpy="0 0 1.0"/>
  </joint>
</robot>
"""


def _pin_model(source):
    return pin_model(source)


def _cross_check(source, fixed="lump", states=20, seed=0):
    """Max relative errors (mass matrix, gravity, kinetic energy) over seeded random states
    (:func:`pinocchio_check.pinocchio_errors`)."""
    system = MultibodySystem.from_urdf(source, fixed=fixed)
    return system, pinocchio_errors(system, pin_model(source), states, seed)


# -- the fixture -----------------------------------------------------------------------
@pytest.mark.parametrize("fixed", ["lump", "keep"])
def test_fixture_matches_pinocchio(fixed):
    system, errors = _cross_check(FIXTURE, fixed)
    assert all(e < TOL for e in errors.values()), errors


def test_fixture_structure_names_and_limits():
    system = MultibodySystem.from_urdf(FIXTURE)
    assert system.name == "fixture"
    assert list(system.bodies) == ["link1", "link2", "link3"]
    assert list(system.joints) == ["j1", "j2", "j3"]
    assert system.velocities == ["j1.angle", "j2.angle", "j3.slide"]
    assert system.actuated == system.velocities
    assert system.urdf_links == {"base": "ground", "link1": "link1", "link2": "link2", "tool": "link2",
                                 "link3": "link3", "tip": "link3"}
    assert system.bodies["link2"].mass == pytest.approx(1.4)  # 0.9 + the lumped 0.5 kg
    assert system.urdf_limits["j1"] == JointLimits("j1", "revolute", ("j1.angle",), -2.5, 2.5, 40.0, 3.0, 0.7, 0.2)
    assert system.urdf_limits["j2"] == JointLimits("j2", "continuous", ("j2.angle",), None, None, 20.0, 4.0)
    assert system.urdf_limits["j3"] == JointLimits("j3", "prismatic", ("j3.slide",), 0.0, 0.2, 100.0, 0.5)
    assert not system.friction.any()
    damped = MultibodySystem.from_urdf(FIXTURE, damping=True, actuated=False)
    assert damped.friction.tolist() == [0.7, 0.0, 0.0] and damped.actuated == []
    kept = MultibodySystem.from_urdf(FIXTURE, fixed="keep")
    assert list(kept.bodies) == ["link1", "link2", "tool", "link3"]  # the massless tip is merged
    assert kept.joints["weld"].kind == "fixed" and kept.urdf_links["tip"] == "link3"


def test_lumped_link_frames_are_body_points():
    """The origins of lumped links (tool, tip) are body points that follow Pinocchio's frames."""
    system = MultibodySystem.from_urdf(FIXTURE)
    model = _pin_model(FIXTURE)
    data = model.createData()
    theta = np.array([0.7, -1.9, 0.13])
    q = np.asarray(system.reparametrise(theta, system.q0), dtype=float)
    pin.framesForwardKinematics(model, data, pin.integrate(model, pin.neutral(model), theta))
    for link in ("tool", "tip", "link2", "link3"):
        body = system.bodies[system.urdf_links[link]]
        x = np.asarray(body.point(system.body_coordinates(q, body), body.points[link]), dtype=float)
        assert np.abs(x - data.oMf[model.getFrameId(link)].translation).max() < 1e-14


def test_lump_inertia_is_the_parallel_axis_theorem():
    """Two parts against the inertia of the point cloud they stand for."""
    rng = np.random.default_rng(3)
    clouds = [rng.normal(size=(5, 3)) + shift for shift in ((1, 0, 0), (0, 2, -1))]
    masses = [rng.uniform(0.5, 2, 5) for _ in clouds]

    def inertia(points, m, centre):
        r = points - centre
        return sum(mi * (ri @ ri * np.eye(3) - np.outer(ri, ri)) for mi, ri in zip(m, r))

    parts = []
    for x, m in zip(clouds, masses):
        c = m @ x / m.sum()
        parts.append((m.sum(), c, inertia(x, m, c)))
    m, c, J = lump_inertia(parts)
    x_all, m_all = np.vstack(clouds), np.concatenate(masses)
    assert m == pytest.approx(m_all.sum())
    assert np.allclose(c, m_all @ x_all / m_all.sum(), rtol=0, atol=1e-14)
    assert np.abs(J - inertia(x_all, m_all, c)).max() < 1e-13


def test_floating_and_planar_joints():
    link = _inertial(1.0, "0 0 0", "0 0 0", 0.01, 0.02, 0.025, 0, 0, 0)
    text = f"""<robot name="mixed"><link name="world"/><link name="drone">{link}</link>
      <link name="puck">{link}</link>
      <joint name="free" type="floating"><parent link="world"/><child link="drone"/>
        <origin xyz="1 2 3"/></joint>
      <joint name="table" type="planar"><parent link="world"/><child link="puck"/>
        <axis xyz="0 0 1"/></joint></robot>"""
    system = MultibodySystem.from_urdf(text)
    assert list(system.joints) == ["table"] and system.joints["table"].kind == "planar"
    assert system.velocities[:6] == [f"drone.{d}" for d in ("vx", "vy", "vz", "wx", "wy", "wz")]
    assert system.velocities[6:] == ["table.angle", "table.slide1", "table.slide2"]
    assert system.bodies["drone"].q0[:3].tolist() == [1.0, 2.0, 3.0]
    assert system.urdf_limits["table"].lower is None and "free" not in system.urdf_limits
    assert system.actuated == []  # only revolute, continuous and prismatic joints are actuated


# -- shipped robots ----------------------------------------------------------------------
@pytest.mark.parametrize("robot, dof", [("panda", 7), ("ur5", 6)])
def test_shipped_robot_matches_pinocchio(robot, dof):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ModellingWarning on a real robot
        system, errors = _cross_check(robots.path(robot))
    assert system.dof == dof and len(system.urdf_limits) == dof
    assert all(e < TOL for e in errors.values()), errors


def test_shipped_files_are_stripped():
    for name in robots.ROBOTS:
        text = robots.path(name).read_text()
        assert "<mesh" not in text and "Source: example-robot-data" in text
    assert "finger" not in robots.path("panda").read_text()
    with pytest.raises(ConfigurationError, match="'kuka'"):
        robots.path("kuka")


# -- refused URDFs -------------------------------------------------------------------------
_LINK = _inertial(1.0, "0.1 0 0", "0 0 0", 0.01, 0.02, 0.025, 0, 0, 0)


def _robot(body, links=("base", "a", "b")):
    declared = "".join(f'<link name="{n}">{_LINK}</link>' for n in links)
    return f'<robot name="bad">{declared}{body}</robot>'


def _joint(name, parent, child, kind="revolute", extra=""):
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<axis xyz="0 0 1"/>{extra}</joint>')


@pytest.mark.parametrize("text, error, match", [
    ('<robot name="x"><link name="a"></robot>', ConfigurationError, "malformed XML"),
    ('<model name="x"/>', ConfigurationError, "<model>, not <robot>"),
    (_robot(_joint("j1", "base", "a", "ball")), ConfigurationError, "'j1': unknown joint type 'ball'"),
    (_robot(_joint("j1", "base", "a") + _joint("j2", "a", "b", extra='<mimic joint="j1"/>')),
     ConfigurationError, "'j2': mimic joints"),
    (_robot(_joint("j1", "base", "a") + _joint("j2", "base", "a")), AssemblyError,
     "link 'a' has two parents: joints 'j1' and 'j2'"),
    (_robot(_joint("j1", "base", "ghost")), AssemblyError, "'j1': child link 'ghost' is not a <link>"),
    (_robot(_joint("j1", "base", "a")), AssemblyError, r"roots.*\['base', 'b'\]"),
    (_robot(_joint("j1", "base", "a") + _joint("j2", "a", "b") + _joint("j3", "b", "base")), AssemblyError,
     r"roots \(links without a parent\): none \(a cycle\)"),
    (_robot(_joint("j1", "a", "b") + _joint("j2", "b", "a")), AssemblyError,
     r"links \['a', 'b'\] are not connected to the root 'base'"),
    ('<robot name="x"><link name="base"/><link name="a"/>' + _joint("j1", "base", "a") + "</robot>",
     AssemblyError, "link 'a': massless.*revolute joint 'j1'.*cannot be lumped"),
    (f'<robot name="x"><link name="base"/><link name="a"/><link name="b">{_LINK}</link>'
     + _joint("j1", "base", "a") + _joint("j2", "a", "b", "prismatic") + "</robot>",
     AssemblyError, "link 'a': massless.*between the moving joints 'j1' and 'j2'"),
    (_robot(_joint("j1", "base", "a", extra="")).replace(
        'ixx="0.01" iyy="0.02" izz="0.025"', 'ixx="0.01" iyy="0.02" izz="0.05"', 1),
     ConfigurationError, "link 'base'.*triangle inequality"),
    (_robot(_joint("j1", "base", "a")).replace('ixy="0"', 'ixy="0.05"', 1),
     ConfigurationError, "link 'base'.*not positive definite"),
    (_robot(_joint("j1", "base", "a").replace('xyz="0 0 1"', 'xyz="0 0 0"')), ConfigurationError,
     "joint 'j1': zero <axis"),
    (_robot(_joint("j1", "base", "a").replace('xyz="0 0 1"', 'xyz="0 nan 1"')), ConfigurationError,
     "joint 'j1' <axis>: xyz='0 nan 1' must be 3 finite"),
    (_robot(_joint("j1", "base", "a", extra='<origin rpy="0 x 0"/>')), ConfigurationError,
     "joint 'j1' <origin>: rpy='0 x 0' is not 3 number"),
    (_robot(_joint("j1", "base", "a", extra='<limit lower="1" upper="-1"/>')), ConfigurationError,
     "joint 'j1': <limit lower=1.0> above upper=-1.0"),
])
def test_bad_urdf_is_refused_by_name(text, error, match):
    # the last link of the 'roots' cases is unattached; elsewhere attach it to keep one tree
    if "roots" not in match and "<link name=\"b\">" in text and 'child link="b"' not in text:
        text = text.replace("</robot>", _joint("jb", "base", "b", "fixed") + "</robot>")
    with pytest.raises(error, match=match):
        MultibodySystem.from_urdf(text)


def test_body_inertia_after_lumping_must_be_positive_definite():
    """A point mass (zero inertia) is fine lumped, refused as a body of its own."""
    point = _inertial(1.0, "0 0 0", "0 0 0", 0, 0, 0, 0, 0, 0)
    text = (f'<robot name="x"><link name="base"/><link name="a">{point}</link>'
            + _joint("j1", "base", "a") + "</robot>")
    with pytest.raises(ConfigurationError, match="URDF link 'a'.*principal moments of inertia must be positive"):
        MultibodySystem.from_urdf(text)


def test_bad_sources_and_options():
    with pytest.raises(MissingFileError, match="no-such.urdf"):
        MultibodySystem.from_urdf("no-such.urdf")
    with pytest.raises(InputTypeError, match="URDF file path or XML text"):
        MultibodySystem.from_urdf(42)
    with pytest.raises(ConfigurationError, match="fixed must be 'lump' or 'keep', got 'weld'"):
        MultibodySystem.from_urdf(FIXTURE, fixed="weld")
    with pytest.raises(ConfigurationError, match="actuated must be True or False, got 'yes'"):
        MultibodySystem.from_urdf(FIXTURE, actuated="yes")
    with pytest.raises(ConfigurationError, match="joint 'j1': negative damping -0.7"):
        MultibodySystem.from_urdf(FIXTURE.replace('damping="0.7"', 'damping="-0.7"'))


# -- sources: encodings, text or path, magnitudes (issue 46.8) ----------------------------
def test_a_byte_order_mark_and_a_declared_encoding_are_read():
    """A UTF-8 BOM (as text or bytes) and Latin-1 bytes declared as ISO-8859-1 give the same
    robot as the plain text; Latin-1 bytes without the declaration are malformed XML, named."""
    plain = MultibodySystem.from_urdf(FIXTURE)
    latin = FIXTURE.replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="ISO-8859-1"?>')
    latin = latin.replace('name="fixture"', 'name="fixtur\u00e9"')
    for source in ("\ufeff" + FIXTURE, b"\xef\xbb\xbf" + FIXTURE.encode(), latin.encode("latin-1")):
        system = MultibodySystem.from_urdf(source)
        assert system.velocities == plain.velocities
        assert np.allclose(system.mass_matrix(), plain.mass_matrix(), rtol=0, atol=1e-15)
    assert MultibodySystem.from_urdf(latin.encode("latin-1")).name == "fixtur\u00e9"
    undeclared = FIXTURE.replace('name="fixture"', 'name="fixtur\u00e9"').encode("latin-1")
    with pytest.raises(ConfigurationError, match="malformed XML in URDF text.*encoding="):
        MultibodySystem.from_urdf(undeclared)


def test_a_long_string_that_is_not_xml_is_neither_text_nor_path(tmp_path):
    with pytest.raises(ConfigurationError, match=r"'xxxx.*… \(5000 characters\) is neither URDF text .*"
                                                 r"nor a usable file path"):
        MultibodySystem.from_urdf("x" * 5000)
    with pytest.raises(ConfigurationError, match="not XML text"):
        MultibodySystem.from_urdf(b"robot")
    with pytest.raises(MissingFileError, match="no URDF file 'robot.urdf' .*not URDF text"):
        MultibodySystem.from_urdf("robot.urdf")
    path = tmp_path / "fixture.urdf"
    path.write_bytes(b"\xef\xbb\xbf" + FIXTURE.encode())
    assert MultibodySystem.from_urdf(path).velocities == MultibodySystem.from_urdf(FIXTURE).velocities


def test_a_huge_axis_is_a_direction():
    """``xyz="1e308 1e308 0"`` is finite: the axis (1, 1, 0)/√2, not an overflow to 'got (0, 0, 0)'."""
    huge = MultibodySystem.from_urdf(_robot(_joint("j1", "base", "a").replace('xyz="0 0 1"', 'xyz="1e308 1e308 0"')
                                            + _joint("jb", "base", "b", "fixed")))
    small = MultibodySystem.from_urdf(_robot(_joint("j1", "base", "a").replace('xyz="0 0 1"', 'xyz="1 1 0"')
                                             + _joint("jb", "base", "b", "fixed")))
    assert np.allclose(huge.joints["j1"].axis, small.joints["j1"].axis, rtol=0, atol=1e-15)
    assert np.allclose(huge.joints["j1"].axis, np.array([1, 1, 0]) / np.sqrt(2), rtol=0, atol=1e-15)


@pytest.mark.parametrize("old, new, match", [
    ('<mass value="1.0"/>', '<mass value="1e308"/>', r"link 'base' <mass>: value='1e308' is beyond ±1e\+100"),
    ('ixx="0.01"', 'ixx="1e200"', r"link 'base' <inertia>: ixx='1e200' is beyond"),
    ('<axis xyz="0 0 1"/>', '<axis xyz="0 0 1"/><origin xyz="1e308 1e308 1e308"/>',
     r"joint 'j1' <origin>: xyz='1e308 1e308 1e308' is beyond ±1e\+100"),
])
def test_magnitudes_whose_products_overflow_are_refused_by_name(old, new, match):
    text = _robot(_joint("j1", "base", "a") + _joint("jb", "base", "b", "fixed")).replace(old, new, 1)
    with pytest.raises(ConfigurationError, match=match):
        MultibodySystem.from_urdf(text)


def test_joints_named_with_dots_reach_the_robot_arm_model():
    """Coordinate names are ``<joint>.<coordinate>``; a joint ``arm.1`` is split at the last dot
    (was ``KeyError: 'arm'`` in ``models.robot_arm.rest_to_rest``)."""
    from pyomo_mbdyn.models import robot_arm

    limit = '<limit lower="-3" upper="3" effort="50" velocity="5"/>'
    system = MultibodySystem.from_urdf(_robot(_joint("arm.1", "base", "a", extra=limit)
                                              + _joint("arm.2", "a", "b", extra=limit)))
    assert system.velocities == ["arm.1.angle", "arm.2.angle"]
    m = robot_arm.rest_to_rest("arm", system, "rem", 10, 1.0, [0.0, 0.0], [0.5, -0.5])
    assert list(m.dyn.actuated) == ["arm.1.angle", "arm.2.angle"]
    m.problem.solve("casadi_ipopt")
    angles = m.problem.joint_coordinates()
    assert [pyo.value(angles[m.dyn.nodes.last(), j]) for j in m.dyn.velocities] == pytest.approx([0.5, -0.5], abs=1e-8)
    assert robot_arm.evaluate(m)["effort_ratio_max"] <= 1 + 1e-8
    bare = MultibodySystem.from_urdf(_robot(_joint("arm.1", "base", "a") + _joint("jb", "base", "b", "fixed")),
                                     actuated=False)
    bare.actuate("arm.1", dofs="angle")
    assert bare.actuated == ["arm.1.angle"]
