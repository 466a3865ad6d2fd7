"""``from_urdf``: one namespace for bodies and joints, locked joints, mimics on fixed joints (issue 47.5).

URDF keeps links and joints apart; the library names bodies and joints in one namespace.  Joints keep
their URDF names (users name joints); a link that shares a joint's name, or is named ``ground``,
becomes the body ``<link>_link`` and ``urdf_links`` says so.  ``lock={joint: value}`` holds joints at
a coordinate as Pinocchio's ``buildReducedModel`` (the dynamics: tests/robots/test_zoo_import.py;
here the placement of the locked child and the refusals).
"""

import numpy as np
import pytest

from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.mechanics import MultibodySystem

from pinocchio_check import pin_model, pinocchio_errors

_IN = ('<inertial><origin xyz="0.1 0.02 0"/><mass value="1"/>'
       '<inertia ixx="0.01" iyy="0.02" izz="0.025" ixy="0" ixz="0" iyz="0"/></inertial>')


def _robot(*joints, links=("base", "a", "b", "c")):
    text = "".join(f'<link name="{n}">{_IN}</link>' for n in links)
    for name, kind, parent, child, extra in joints:
        text += (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
                 f'<origin xyz="0.3 0.1 0.05" rpy="0.2 -0.1 0.4"/><axis xyz="0 0.6 0.8"/>{extra}</joint>')
    return f'<robot name="r">{text}</robot>'


_LIM = '<limit lower="-1" upper="1" effort="5" velocity="2"/>'


def test_a_link_named_like_a_joint_or_ground_gets_a_body_name_of_its_own():
    text = _robot(("a", "revolute", "base", "a", _LIM), ("b", "revolute", "a", "b", _LIM),
                  ("b_link", "revolute", "b", "ground", _LIM), links=("base", "a", "b", "ground"))
    system = MultibodySystem.from_urdf(text)
    assert list(system.joints) == ["a", "b", "b_link"]
    assert system.urdf_links == {"base": "ground", "a": "a_link", "b": "b_link_2", "ground": "ground_link"}
    assert list(system.bodies) == ["a_link", "b_link_2", "ground_link"]
    errors = pinocchio_errors(system, pin_model(text), states=5, rnea=True)
    assert all(e < 1e-12 for e in errors.values()), errors


def test_a_fixed_link_named_ground_is_lumped_into_the_base():
    """example-robot-data's TwoDofs: world —fixed→ ground —revolute→ … (was KeyError: 'ground')."""
    text = _robot(("weld", "fixed", "base", "ground", ""), ("j1", "revolute", "ground", "a", _LIM),
                  ("j2", "revolute", "a", "b", _LIM), links=("base", "ground", "a", "b"))
    system = MultibodySystem.from_urdf(text)
    assert system.urdf_links["ground"] == "ground" and list(system.bodies) == ["a", "b"]
    errors = pinocchio_errors(system, pin_model(text), states=5)
    assert all(e < 1e-12 for e in errors.values()), errors


def test_a_locked_joint_places_its_child_at_the_locked_value():
    """Locking j2 at 0.7 is the robot with j2 at 0.7: the mass matrix of (j1, j3) is the
    unlocked one's rows and columns of j1, j3 at θ2 = 0.7."""
    text = _robot(("j1", "revolute", "base", "a", _LIM), ("j2", "continuous", "a", "b", ""),
                  ("j3", "prismatic", "b", "c", _LIM))
    full = MultibodySystem.from_urdf(text)
    locked = MultibodySystem.from_urdf(text, lock={"j2": 0.7})
    assert locked.velocities == ["j1.angle", "j3.slide"] and locked.urdf_locked == {"j2": 0.7}
    assert "j2" not in locked.urdf_limits and locked.urdf_links["b"] == "a"
    for theta in ([0.3, -0.2], [-1.0, 0.4]):
        q_full = np.asarray(full.reparametrise([theta[0], 0.7, theta[1]], full.q0), float)
        P = np.asarray(full.null_space(q_full), float)[:, [0, 2]]
        q = np.asarray(locked.reparametrise(theta, locked.q0), float)
        Pl = np.asarray(locked.null_space(q), float)
        assert np.allclose(Pl.T @ locked.mass_matrix() @ Pl, P.T @ full.mass_matrix() @ P, rtol=0, atol=1e-14)
    assert MultibodySystem.from_urdf(text, lock=["j3"]).urdf_locked == {"j3": 0.0}
    kept = MultibodySystem.from_urdf(text, fixed="keep", lock={"j2": 0.7})
    assert kept.joints["j2"].kind == "fixed"


def test_a_mimic_on_a_fixed_or_locked_joint_is_not_refused():
    mimic = '<mimic joint="j1" multiplier="2"/>'
    fixed = _robot(("j1", "revolute", "base", "a", _LIM), ("j2", "revolute", "a", "b", _LIM),
                   ("m", "fixed", "b", "c", mimic))
    assert MultibodySystem.from_urdf(fixed).dof == 2
    moving = fixed.replace('name="m" type="fixed"', 'name="m" type="revolute"')
    with pytest.raises(ConfigurationError, match="'m': mimic joints"):
        MultibodySystem.from_urdf(moving)
    assert MultibodySystem.from_urdf(moving, lock={"m": 0.5}).dof == 2


@pytest.mark.parametrize("lock, match", [
    ({"ghost": 0.0}, "lock: no URDF joint named 'ghost'"),
    ({"j1": 1.5}, r"lock: 'j1' = 1.5 lies outside its URDF limits \[-1.0, 1.0\]"),
    ({"j1": float("nan")}, "lock: 'j1' = nan is not a finite number"),
    ({"j1": "open"}, "lock: 'j1' = 'open' is not a finite number"),
    ({"weld": 0.0}, "lock: joint 'weld' is fixed; only revolute, continuous and prismatic"),
    ("j1", "lock must be a mapping"),
    ({1: 0.0}, "lock: a joint name must be a string, got 1"),
])
def test_bad_locks_are_refused_by_name(lock, match):
    text = _robot(("j1", "revolute", "base", "a", _LIM), ("j2", "revolute", "a", "b", _LIM),
                  ("weld", "fixed", "b", "c", ""))
    with pytest.raises(ConfigurationError, match=match):
        MultibodySystem.from_urdf(text, lock=lock)
