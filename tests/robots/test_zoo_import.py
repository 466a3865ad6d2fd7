"""The zoo (issue 47.5): every fixed-base serial arm of the installed example-robot-data, read by
``MultibodySystem.from_urdf`` with its grippers locked, has Pinocchio's dynamics.

For every arm (listed by :func:`pyomo_mbdyn.robots.zoo_survey`, not by hand), at 20 seeded random
states within the URDF's position limits: the reduced mass matrix, the generalised gravity, the
kinetic energy and the recursive Newton–Euler torques agree with ``pinocchio`` (``crba``,
``computeGeneralizedGravity``, ``computeKineticEnergy``, ``rnea``) on the model of the same file with
the same joints locked (``buildReducedModel``) to 1e-12 relative (measured: ≤ 5e-15).  The survey
itself is checked on small URDFs written here (each rule, each reason, the names) and on the
installed package (≥ 10 arms with the Kinova and the xArm7; every URDF is an arm or has a reason).

The test extra installs ``example-robot-data>=6`` (data only); without it collection fails with
the survey's :class:`~pyomo_mbdyn.errors.MissingFileError` naming the package.
"""

import warnings

import numpy as np
import pytest

from pyomo_mbdyn.errors import ConfigurationError, MissingFileError
from pyomo_mbdyn.mechanics import MultibodySystem
from pyomo_mbdyn.robots import data_roots, zoo_arm, zoo_arms, zoo_survey
from pyomo_mbdyn.robots.zoo import classify

from pinocchio_check import pin_model, pinocchio_errors

TOL = 1e-12
SURVEY = zoo_survey()  # MissingFileError here: pip install 'example-robot-data>=6' (the test extra)


@pytest.mark.parametrize("name", list(SURVEY.arms))
def test_every_zoo_arm_matches_pinocchio(name):
    arm = SURVEY.arms[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ModellingWarning on a real robot
        system = MultibodySystem.from_urdf(arm.path, lock=arm.lock)
    assert [v.rsplit(".", 1)[0] for v in system.velocities] == list(arm.joints)
    assert system.urdf_locked == arm.lock and not set(arm.lock) & set(system.urdf_limits)
    errors = pinocchio_errors(system, pin_model(arm.path, arm.lock), states=20, within_limits=True, rnea=True)
    assert all(e < TOL for e in errors.values()), errors


def test_the_zoo_holds_the_known_arms():
    """A change of the package's layout (or of the rules) that loses arms is caught here."""
    arms = zoo_arms()
    assert len(arms) >= 10 and {"kinova", "xarm7", "ur5", "panda", "z1", "so100"} <= set(arms), list(arms)
    assert arms["kinova"].name == "kinova.urdf" and arms["xarm7"].name == "xarm7.urdf"
    assert zoo_arm("kinova").dof == 6 and zoo_arm("xarm7").dof == 7
    # grippers are locked (at 0, inside their ranges): the arm is an arm
    assert zoo_arm("panda").lock == {"panda_finger_joint1": 0.0, "panda_finger_joint2": 0.0}
    assert zoo_arm("z1").lock == {"jointGripper": 0.0} and zoo_arm("z1").dof == 6
    assert zoo_arm("so100").lock == {"gripper": 0.0} and zoo_arm("so100").dof == 5
    # nothing is dropped silently: every URDF of the package is an arm or has a reason
    files = {p.relative_to(root).as_posix() for root in SURVEY.roots for p in root.glob("*/*/*.urdf")}
    assert len(files) == len(SURVEY.arms) + len(SURVEY.rejected)
    assert set(SURVEY.rejected) <= files and all(SURVEY.rejected.values())
    assert "floating root" in SURVEY.rejected["a1_description/urdf/a1.urdf"]
    assert "branch" in SURVEY.rejected["baxter_description/urdf/baxter.urdf"]
    with pytest.raises(ConfigurationError, match=r"'baxter' is not an arm of the zoo \(baxter_description.*branch"):
        zoo_arm("baxter")


def test_so100_unlocked_keeps_the_joint_name_and_renames_the_link():
    """URDF links and joints have two namespaces, the library one: the SO-100's link 'gripper'
    (also a joint's name) is the body 'gripper_link'; the joint keeps its URDF name."""
    path = zoo_arms()["so100"]
    system = MultibodySystem.from_urdf(path)
    assert "gripper" in system.joints and system.dof == 6
    assert system.urdf_links["gripper"] == "gripper_link" and "gripper_link" in system.bodies
    assert system.joints["gripper"].parent is system.bodies["gripper_link"]
    errors = pinocchio_errors(system, pin_model(path), states=5, within_limits=True, rnea=True)
    assert all(e < TOL for e in errors.values()), errors


@pytest.mark.parametrize("arm, lock", [
    ("kinova", {"j2s6s200_joint_1": 2.0, "j2s6s200_joint_3": 1.1}),  # continuous and revolute, non-zero
    ("panda", {"panda_finger_joint1": 0.02, "panda_finger_joint2": 0.035, "panda_joint7": -0.4}),  # prismatic
])
def test_joints_locked_at_values_match_pinocchios_reduced_model(arm, lock):
    path = zoo_arms()[arm]
    system = MultibodySystem.from_urdf(path, lock=lock)
    assert system.urdf_locked == lock and system.dof == len(zoo_arm(arm).joints) - sum(
        j in zoo_arm(arm).joints for j in lock)
    errors = pinocchio_errors(system, pin_model(path, lock), states=5, within_limits=True, rnea=True)
    assert all(e < TOL for e in errors.values()), errors


# -- the rules, on small URDFs --------------------------------------------------------------------
_INERTIAL = ('<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" '
             'ixy="0" ixz="0" iyz="0"/></inertial>')


def _urdf(joints, extra_links=()):
    """A robot 'base' + one link per joint child; ``joints``: (name, type, parent, child, inner XML)."""
    links = ["base"] + [j[3] for j in joints] + list(extra_links)
    text = "".join(f'<link name="{n}">{_INERTIAL}</link>' for n in links)
    for name, kind, parent, child, inner in joints:
        text += (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
                 f'<axis xyz="0 0 1"/>{inner}</joint>')
    return f'<robot name="r">{text}</robot>'


def _chain(n, kind="revolute", prefix="j"):
    limit = '<limit lower="-1" upper="1" effort="1" velocity="1"/>'
    return [(f"{prefix}{i}", kind, "base" if i == 1 else f"l{i - 1}", f"l{i}", limit) for i in range(1, n + 1)]


def _write(tmp_path, text, rel="bot_description/urdf/bot.urdf", srdf=None):
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if srdf is not None:
        (path.parent.parent / "srdf").mkdir(exist_ok=True)
        (path.parent.parent / "srdf" / (path.stem + ".srdf")).write_text(srdf)
    return path


_LIMIT = '<limit lower="{}" upper="{}" effort="1" velocity="1"/>'


@pytest.mark.parametrize("text, srdf, reason", [
    ('<robot name="stub"/>', None, "no <link>"),
    (_urdf(_chain(3) + [("fly", "floating", "base", "drone", "")]), None, "floating root: joint 'fly' is floating"),
    (_urdf(_chain(3)), '<robot><virtual_joint name="root_joint" type="floating" parent_frame="w" child_link="base"/>'
     '</robot>', "floating root: the SRDF's virtual joint 'root_joint'"),
    (_urdf(_chain(3) + [("wheel", "revolute", "base", "w", "")]), None,
     "movable joints branch: 'j1' and 'wheel' both follow the base"),
    (_urdf(_chain(3) + [("j4", "revolute", "l2", "x", "")]), None,
     "movable joints branch: 'j3' and 'j4' both follow 'j2'"),
    (_urdf(_chain(2)), None, r"2 movable joint\(s\), fewer than 3"),
    (_urdf(_chain(3) + [("j4", "revolute", "l3", "l4", '<mimic joint="j3"/>')]), None,
     "joint 'j4' is a <mimic> of 'j3'"),
])
def test_a_urdf_that_is_not_a_fixed_base_serial_arm_is_rejected_saying_why(tmp_path, text, srdf, reason):
    with pytest.raises(ConfigurationError, match=reason):
        classify(_write(tmp_path, text, srdf=srdf))


def test_fixed_branches_are_lumped_and_grippers_locked(tmp_path):
    """A sensor on a fixed joint and a two-finger gripper (one finger a mimic, one out of range at 0)
    at the end of a 3-joint chain: an arm of 3 joints, the gripper locked at 0 / the nearer limit / the
    mimic's multiplier × leader + offset."""
    joints = _chain(3) + [
        ("camera_joint", "fixed", "l2", "camera", ""),
        ("gripper_joint", "revolute", "l3", "palm", _LIMIT.format(0.1, 0.5)),
        ("finger_left", "prismatic", "palm", "left", _LIMIT.format(-0.04, 0.0)),
        ("finger_right", "prismatic", "palm", "right", '<mimic joint="gripper_joint" multiplier="-2" offset="0.3"/>'),
    ]
    lock, chain = classify(_write(tmp_path, _urdf(joints)))
    assert chain == ("j1", "j2", "j3")
    assert lock == {"gripper_joint": 0.1, "finger_left": 0.0, "finger_right": pytest.approx(-2 * 0.1 + 0.3)}
    # a chain of 'finger' joints from the base is the robot itself, not a hand: nothing locked
    lock, chain = classify(_write(tmp_path, _urdf(_chain(3, prefix="finger_")), rel="f_description/urdf/f.urdf"))
    assert lock == {} and chain == ("finger_1", "finger_2", "finger_3")


def test_names_roots_and_the_missing_package(tmp_path, monkeypatch):
    arm = _urdf(_chain(3))
    _write(tmp_path, arm, "ur_description/urdf/ur9_robot.urdf")
    _write(tmp_path, '<robot name="stub"/>', "ur_description/urdf/ur9.urdf")
    _write(tmp_path, arm, "a_description/urdf/twin.urdf")
    _write(tmp_path, arm, "b_description/robots/twin.urdf")
    survey = zoo_survey([tmp_path])
    assert list(survey.arms) == ["a_twin", "b_twin", "ur9"]
    assert survey.rejected == {"ur_description/urdf/ur9.urdf": "no <link>: not a robot description (an empty "
                                                                "xacro stub)"}
    monkeypatch.setenv("EXAMPLE_ROBOT_DATA", str(tmp_path))
    assert data_roots()[0] == tmp_path.resolve()
    with pytest.raises(MissingFileError, match=r"example-robot-data is not installed.*pip install 'example-robot-data>=6'"):
        zoo_survey([])
    with pytest.raises(ConfigurationError, match="'ur9x' is not an arm of the zoo; arms: a_twin, b_twin, ur9"):
        zoo_arm("ur9x", roots=[tmp_path])
    # every arm written here reads, and its joints are the chain's
    system = MultibodySystem.from_urdf(survey.arms["ur9"].path)
    assert [v.rsplit(".", 1)[0] for v in system.velocities] == list(survey.arms["ur9"].joints)
    assert np.isfinite(system.mass_matrix()).all()
