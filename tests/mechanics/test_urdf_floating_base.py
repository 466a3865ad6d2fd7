"""``from_urdf(..., floating_base=True)`` against Pinocchio's model of the same URDF with a
``JointModelFreeFlyer`` root, its behaviour, and its refusals of bad input (issue 49).

**The coordinate map (exact, no fitting).**  Pinocchio's free-flyer coordinates belong to the
root LINK frame: ``q = (origin o, quaternion xyzw of R)``, ``v = (Rᵀ ȯ, Rᵀ ω)`` (local axes).
The library's base body is the lumped root (root link and every link fixed to it) at its
centre of mass ``c``, with ``ν_base = (ċ, ω)`` in world axes.  The library's state is drawn as
absolute increments ``w = (base displacement, base rotation vector, joint angles)``,
``q = system.reparametrise(w, system.q0)``, ``v = P(q) ν``; the root link's ``(R, o)`` is read off
the base body's directors and the body point of the root link; then ``ν = S v_pin`` with
``S = [[R, −R r_l^×], [0, R]]`` on the base (``r_l = Rᵀ (c − o)``) and the identity on the joints
(matched by name) — :class:`pinocchio_check.FreeFlyerMap`.

**Compared** at seeded random states (:func:`pinocchio_check.free_flyer_errors`), each relative to
the largest entry of Pinocchio's value, to 1e-12: every link frame's placement; the mass matrix
``Sᵀ (Pᵀ M P) S`` against ``crba``; the kinetic energy; the total linear momentum and the angular
momentum about the world origin (Pinocchio's centroidal momentum shifted, ``L_O = L_G + c × p``);
the forward dynamics under random joint torques, with gravity off (the floating default) and on.

**Forward dynamics: which.**  The library has no reduced forward dynamics for a tree with a free
root (:class:`~pyomo_mbdyn.simulate.recursive.Chain` is a fixed-base serial chain), so the test
solves the library's own equations of motion ``M q̈ + ∇V + Gᵀγ = Bᵀu`` with ``G q̈ = −Ġ q̇``
(:func:`pinocchio_check.library_accelerations`, built from ``mass_matrix``,
``constraint_jacobian``, ``potential_gradient`` and ``control_matrix``) and maps Pinocchio's
``aba`` acceleration to q̈ by rigid-body kinematics (per body ``c̈ = a_o + α × r + ω × (ω × r)``,
``d̈_i = α × d_i + ω × (ω × d_i)`` from the classical acceleration of one of its link frames); the
base's ``(c̈, α)`` is also compared with ``S a + (ω × ċ, 0)``.  (The Udwadia–Kalaba solver
``UdwadiaKalabaSystem.from_multibody`` gives the same q̈ only to ~1e-8 relative, its
pseudo-inverse of ``G M⁻¹ Gᵀ`` being ill-conditioned — on the fixed-base Panda as well — so it is
not used here.)  The library's accelerations also balance momentum: the joint torques are
internal, so ``ṗ = m g`` and ``L̇_O = c × m g``.

**Robots.**  The shipped space robot; the shipped Panda with a floating ``panda_link0``; the
shipped UR5 without its ``world`` link (the URDF welds ``base_link`` to a link ``world``, which a
floating base refuses by name); two small hand-written URDFs: a base whose inertial frame is
offset and turned, with a massive payload fixed to it (a joint hangs off the payload: lumping
and the centre-of-mass offset), a continuous joint and a branch; and a massless root link that
a massive link, fixed to it, gives its mass.
"""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pyomo_mbdyn import robots
from pyomo_mbdyn.errors import AssemblyError, ConfigurationError
from pyomo_mbdyn.mechanics import MultibodySystem

from pinocchio_check import FreeFlyerMap, free_flyer_errors, library_accelerations, pin_free_flyer_model

import pinocchio as pin  # the test extra installs `pin`

TOL = 1e-12
GRAVITY = (0.0, 0.0, -9.81)
TWIST = ("vx", "vy", "vz", "wx", "wy", "wz")


def _inertial(mass, xyz, rpy, ixx, iyy, izz, ixy, ixz, iyz):
    return (f'<inertial><origin xyz="{xyz}" rpy="{rpy}"/><mass value="{mass}"/>'
            f'<inertia ixx="{ixx}" iyy="{iyy}" izz="{izz}" ixy="{ixy}" ixz="{ixz}" iyz="{iyz}"/></inertial>')


#: hub (the root: inertial frame offset and turned) + payload (fixed, lumped) → link1 (revolute, on
#: the payload) → link2 (continuous, unaligned axis); hub → side (revolute, a branch)
ROVER = f"""<robot name="rover">
  <link name="hub">{_inertial(12.0, "0.05 -0.03 0.02", "0.3 -0.2 0.5", 0.4, 0.5, 0.6, 0.02, -0.01, 0.03)}</link>
  <link name="payload">{_inertial(3.0, "0.1 0.2 -0.1", "-0.4 0.1 0.2", 0.05, 0.04, 0.03, 0.002, 0, -0.001)}</link>
  <link name="link1">{_inertial(1.3, "0.1 0.02 0.15", "0.4 -0.3 0.2", 0.05, 0.04, 0.02, 0.003, -0.002, 0.001)}</link>
  <link name="link2">{_inertial(0.9, "0.2 -0.01 0.03", "-0.5 0.1 0.7", 0.01, 0.03, 0.025, -0.002, 0.001, 0.004)}</link>
  <link name="side">{_inertial(0.6, "0 0.1 0", "0 0 0.3", 0.004, 0.002, 0.005, 0, 0, 0.0002)}</link>
  <joint name="bolt" type="fixed"><parent link="hub"/><child link="payload"/>
    <origin xyz="0.3 0.1 0.2" rpy="0.2 0.4 -0.3"/></joint>
  <joint name="j1" type="revolute"><parent link="payload"/><child link="link1"/>
    <origin xyz="0.05 0.02 0.3" rpy="0.1 -0.2 0.3"/><axis xyz="0 0 1"/>
    <limit lower="-2.5" upper="2.5" effort="40" velocity="3"/></joint>
  <joint name="j2" type="continuous"><parent link="link1"/><child link="link2"/>
    <origin xyz="0.4 0.05 0.1" rpy="1.2 0.3 -0.4"/><axis xyz="0 0.6 0.8"/><limit effort="20" velocity="4"/></joint>
  <joint name="j3" type="revolute"><parent link="hub"/><child link="side"/>
    <origin xyz="-0.2 0.3 0" rpy="0 0.5 0"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="5" velocity="2"/></joint>
</robot>"""

#: a massless root link 'frame' and the 5 kg 'chassis' fixed to it, then a revolute 'elbow'
MASSLESS_ROOT = f"""<robot name="frame-bot"><link name="frame"/>
  <link name="chassis">{_inertial(5.0, "0.02 0.01 -0.03", "0.3 0.1 -0.2", 0.08, 0.1, 0.12, 0.004, 0, -0.002)}</link>
  <link name="arm">{_inertial(0.8, "0.15 0 0", "0 0 0", 0.002, 0.01, 0.01, 0, 0, 0)}</link>
  <joint name="weld" type="fixed"><parent link="frame"/><child link="chassis"/>
    <origin xyz="0.2 -0.1 0.3" rpy="0.1 0.2 0.3"/></joint>
  <joint name="elbow" type="revolute"><parent link="chassis"/><child link="arm"/>
    <origin xyz="0.1 0.1 0.1" rpy="0 0 0.4"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="5" velocity="2"/></joint>
</robot>"""


def ur5_without_world():
    """The shipped UR5's XML with its link ``world`` and the fixed joint to it removed."""
    root = ET.parse(robots.path("ur5")).getroot()
    for el in list(root):
        if (el.tag == "link" and el.get("name") == "world") or (el.tag == "joint" and el.get("name") == "world_joint"):
            root.remove(el)
    return ET.tostring(root, encoding="unicode")


SOURCES = {"space_robot": lambda: robots.path("space_robot"), "panda": lambda: robots.path("panda"),
           "ur5": ur5_without_world, "rover": lambda: ROVER, "massless_root": lambda: MASSLESS_ROOT}


def _pair(robot, gravity=None):
    source = SOURCES[robot]()
    options = {} if gravity is None else {"gravity": gravity}
    system = MultibodySystem.from_urdf(source, floating_base=True, **options)
    return system, pin_free_flyer_model(source, (0.0, 0.0, 0.0) if gravity is None else gravity)


# -- against Pinocchio --------------------------------------------------------------------
@pytest.mark.parametrize("gravity", [None, GRAVITY], ids=["gravity-off", "gravity-on"])
@pytest.mark.parametrize("robot", list(SOURCES))
def test_floating_base_matches_pinocchio_free_flyer(robot, gravity):
    system, model = _pair(robot, gravity)
    errors = free_flyer_errors(system, model, states=8, seed=1)
    assert all(e < TOL for e in errors.values()), errors


@pytest.mark.parametrize("robot", ["space_robot", "rover"])
def test_kept_fixed_joints_match_pinocchio(robot):
    """``fixed="keep"``: the base is the root link alone, the links fixed to it bodies welded by
    Fixed joints (Pinocchio lumps them: the same dynamics)."""
    source = SOURCES[robot]()
    system = MultibodySystem.from_urdf(source, floating_base=True, fixed="keep")
    assert system.urdf_links[{"space_robot": "panda_link0", "rover": "payload"}[robot]] != system.floating_base
    errors = free_flyer_errors(system, pin_free_flyer_model(source), states=4, seed=2)
    assert all(e < TOL for e in errors.values()), errors


@pytest.mark.parametrize("robot", ["space_robot", "rover"])
def test_library_accelerations_balance_momentum(robot):
    """Joint torques are internal: ``ṗ = m g``, ``L̇_O = c × m g`` (``c`` the system's centre of
    mass), each relative to the sum of the bodies' magnitudes ``Σ m_b |c̈_b|`` (and
    ``Σ |m_b c_b × c̈_b| + Σ_i E_i |d_i × d̈_i|``)."""
    system = MultibodySystem.from_urdf(SOURCES[robot](), floating_base=True, gravity=GRAVITY)
    g = np.asarray(GRAVITY)
    rng = np.random.default_rng(5)
    for _ in range(4):
        w = np.concatenate([rng.uniform(-1, 1, 3), rng.uniform(-np.pi, np.pi, system.dof - 3)])
        q = np.asarray(system.reparametrise(w, system.q0), float)
        v = np.asarray(system.null_space(q), float) @ rng.normal(size=system.dof)
        qdd = library_accelerations(system, q, v, rng.normal(size=len(system.actuated)))
        mass, moment, p_scale, L_scale = 0.0, np.zeros(3), 0.0, 0.0
        for name, body in system.bodies.items():
            qb, ab = (np.asarray(system.body_coordinates(x, name), float) for x in (q, qdd))
            mass, moment = mass + body.mass, moment + body.mass * qb[0:3]
            p_scale += body.mass * np.linalg.norm(ab[0:3])
            L_scale += body.mass * np.linalg.norm(np.cross(qb[0:3], ab[0:3]))
            L_scale += sum(E * np.linalg.norm(np.cross(qb[3 + 3 * i:6 + 3 * i], ab[3 + 3 * i:6 + 3 * i]))
                           for i, E in enumerate(body.euler))
        p_dot = np.asarray(system.linear_momentum(qdd), float)          # Σ m c̈
        L_dot = np.asarray(system.angular_momentum(q, qdd), float)      # Σ m c × c̈ + E_i d_i × d̈_i
        assert np.abs(p_dot - mass * g).max() < TOL * p_scale
        assert np.abs(L_dot - np.cross(moment, g)).max() < TOL * L_scale


SPACE_ROBOT = MultibodySystem.from_urdf(robots.path("space_robot"), floating_base=True)
SPACE_MAP = FreeFlyerMap(SPACE_ROBOT, pin_free_flyer_model(robots.path("space_robot")))
angles = st.floats(-np.pi, np.pi, allow_nan=False)


@settings(max_examples=25, derandomize=True, deadline=None)
@given(position=st.lists(st.floats(-2.0, 2.0), min_size=3, max_size=3),
       angles=st.lists(angles, min_size=SPACE_ROBOT.dof - 3, max_size=SPACE_ROBOT.dof - 3),
       rates=st.lists(st.floats(-3.0, 3.0), min_size=SPACE_ROBOT.dof, max_size=SPACE_ROBOT.dof))
def test_energy_and_momenta_agree_at_any_pose(position, angles, rates):
    """Kinetic energy and momenta of the space robot against Pinocchio at any base pose, joint
    angles and rates (hypothesis).  The energy relative to Pinocchio's; the momenta relative to
    the sum of the bodies' magnitudes (``Σ |p_b|``, ``Σ |L_b|``), since rates hypothesis chooses may
    make a total vanish by cancellation."""
    system, flyer = SPACE_ROBOT, SPACE_MAP
    q, nu, q_pin, v_pin, _ = flyer.state(np.array(position + angles), np.array(rates))
    v = np.asarray(system.null_space(q), float) @ nu
    T = float(system.kinetic_energy(v))
    T_pin = pin.computeKineticEnergy(flyer.model, flyer.data, q_pin, v_pin)
    assert abs(T - T_pin) <= TOL * T_pin
    h = pin.computeCentroidalMomentum(flyer.model, flyer.data, q_pin, v_pin)
    L_pin = h.angular + np.cross(flyer.data.com[0], h.linear)
    p_scale = L_scale = 0.0
    for name, body in system.bodies.items():
        qb, vb = (np.asarray(system.body_coordinates(x, name), float) for x in (q, v))
        p_scale += np.linalg.norm(np.asarray(body.linear_momentum(vb), float))
        L_scale += np.linalg.norm(np.asarray(body.angular_momentum(qb, vb), float))
    assert np.abs(np.asarray(system.linear_momentum(v), float) - h.linear).max() <= TOL * p_scale
    assert np.abs(np.asarray(system.angular_momentum(q, v), float) - L_pin).max() <= TOL * L_scale


# -- behaviour ----------------------------------------------------------------------------
def test_floating_base_structure():
    system = SPACE_ROBOT
    joints = [f"panda_joint{i}.angle" for i in range(1, 8)]
    assert system.floating_base == "satellite" and system.dof == 6 + 7
    assert system.velocities == [f"satellite.{d}" for d in TWIST] + joints
    assert system.actuated == joints                     # the base is not actuated
    assert system.gravity.tolist() == [0.0, 0.0, 0.0]    # in orbit by default
    assert list(system.bodies)[0] == "satellite"
    assert system.urdf_links["panda_link0"] == "satellite"  # fixed by 'mount': lumped into the base
    assert system.bodies["satellite"].mass == pytest.approx(300.0 + 0.629769, rel=1e-15)
    on = MultibodySystem.from_urdf(robots.path("space_robot"), floating_base=True, gravity=GRAVITY)
    assert on.gravity.tolist() == list(GRAVITY) and on.velocities == system.velocities
    driven = MultibodySystem.from_urdf(robots.path("space_robot"), floating_base=True)
    driven.actuate("satellite")                          # the base can be driven on request
    assert driven.actuated == system.velocities


def test_floating_base_false_is_unchanged():
    welded = MultibodySystem.from_urdf(robots.path("panda"))
    assert MultibodySystem.from_urdf(robots.path("panda"), floating_base=False).velocities == welded.velocities
    assert welded.dof == 7 and welded.floating_base is None
    assert welded.gravity.tolist() == [0.0, 0.0, -9.81] and welded.urdf_links["panda_link0"] == "ground"
    free = MultibodySystem.from_urdf(robots.path("panda"), floating_base=True)
    assert free.dof == 13 and free.floating_base == "panda_link0"
    assert free.velocities == [f"panda_link0.{d}" for d in TWIST] + welded.velocities
    assert free.actuated == welded.actuated


def test_a_massless_root_takes_the_mass_of_the_links_fixed_to_it():
    system = MultibodySystem.from_urdf(MASSLESS_ROOT, floating_base=True)
    assert system.floating_base == "frame" and list(system.bodies) == ["frame", "arm"]
    assert system.urdf_links == {"frame": "frame", "chassis": "frame", "arm": "arm"}
    assert system.bodies["frame"].mass == 5.0
    # the body's centre is the chassis's centre of mass: weld origin + R_weld · inertial origin
    c = np.asarray(system.body_coordinates(system.q0, "frame"), float)[0:3]
    weld = pin.SE3(pin.rpy.rpyToMatrix(0.1, 0.2, 0.3), np.array([0.2, -0.1, 0.3]))
    assert np.abs(c - weld.act(np.array([0.02, 0.01, -0.03]))).max() < 1e-15


def test_locked_joints_with_a_floating_base():
    system = MultibodySystem.from_urdf(robots.path("space_robot"), floating_base=True, lock={"panda_joint7": 0.5})
    assert system.dof == 12 and system.urdf_locked == {"panda_joint7": 0.5}
    assert system.velocities[:6] == SPACE_ROBOT.velocities[:6]


# -- bad input ----------------------------------------------------------------------------
MASS = _inertial(2.0, "0 0 0", "0 0 0", 0.1, 0.1, 0.1, 0, 0, 0)
ARM = f"""<link name="arm">{MASS}</link><joint name="hinge" type="revolute"><parent link="base"/>
  <child link="arm"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>"""


@pytest.mark.parametrize("value", ["yes", 1, 0, None, 1.0, "True"])
def test_floating_base_must_be_a_bool(value):
    with pytest.raises(ConfigurationError, match=rf"floating_base must be True or False, got {value!r}"):
        MultibodySystem.from_urdf(robots.path("panda"), floating_base=value)


@pytest.mark.parametrize("world, kind", [("world", "fixed"), ("world", "floating"), ("World", "fixed")])
def test_a_root_link_called_world_is_refused(world, kind):
    text = (f'<robot name="r"><link name="{world}"/><link name="base">{MASS}</link>{ARM}'
            f'<joint name="anchor" type="{kind}"><parent link="{world}"/><child link="base"/></joint></robot>')
    with pytest.raises(ConfigurationError,
                       match=rf"floating_base=True.*root link is '{world}'.*{kind} joint 'anchor' to 'base'.*remove"):
        MultibodySystem.from_urdf(text, floating_base=True)
    assert MultibodySystem.from_urdf(text).dof == (1 if kind == "fixed" else 7)  # welded: as before


def test_the_shipped_ur5_names_its_world_link():
    with pytest.raises(ConfigurationError, match=r"root link is 'world'.*fixed joint 'world_joint' to 'base_link'"):
        MultibodySystem.from_urdf(robots.path("ur5"), floating_base=True)


def test_a_root_without_mass_is_refused():
    text = f'<robot name="r"><link name="base"/>{ARM}</robot>'
    with pytest.raises(AssemblyError, match=r"floating_base=True.*root link 'base' has no mass.*<inertial>"):
        MultibodySystem.from_urdf(text, floating_base=True)
    plate = ('<link name="plate"/><joint name="screw" type="fixed"><parent link="base"/>'
             '<child link="plate"/></joint>')
    text = f'<robot name="r"><link name="base"/>{plate}{ARM}</robot>'
    with pytest.raises(AssemblyError, match=r"root link 'base' has no mass \(nor the links fixed to it: \['plate'\]\)"):
        MultibodySystem.from_urdf(text, floating_base=True)
    assert MultibodySystem.from_urdf(text).dof == 1   # welded, a massless root is the ground


def test_unknown_locked_joints_are_named_with_a_floating_base():
    with pytest.raises(ConfigurationError, match=r"lock: no URDF joint named 'elbow', 'nope'"):
        MultibodySystem.from_urdf(robots.path("space_robot"), floating_base=True, lock={"nope": 0.0, "elbow": 0.1})


def test_a_massless_root_with_kept_fixed_joints_names_the_cause():
    """fixed="keep" leaves the 5 kg chassis fixed to the massless root a body of its own, so the
    floating base has no mass: the error says so and points to fixed="lump" (which works)."""
    with pytest.raises(AssemblyError, match=r"no mass.*fixed='keep'.*'chassis'.*fixed='lump'"):
        MultibodySystem.from_urdf(MASSLESS_ROOT, floating_base=True, fixed="keep")
    assert MultibodySystem.from_urdf(MASSLESS_ROOT, floating_base=True).bodies["frame"].mass == 5.0
