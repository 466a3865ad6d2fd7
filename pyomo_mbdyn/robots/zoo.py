"""The zoo: every fixed-base serial arm of the installed ``example-robot-data``.

Nothing is hand-picked: every URDF of the package is read (standard-library XML, no
meshes) and classified by its structure.  A URDF is an **arm** when

1. it describes a robot (at least one ``<link>``; the UR3's ``ur3.urdf`` is an empty xacro stub);
2. its root is not floating: no ``floating`` or ``planar`` joint, and no floating or planar
   ``<virtual_joint>`` in the package's SRDF of the same name (legged robots, PR2);
3. every joint is revolute, continuous, prismatic or fixed;
4. after locking the **end-effector joints** (below), its movable joints form *one serial
   chain*: each follows the previous one, no two of them hang from the same movable joint
   or from the base (a hand, a sensor or a tool attached by fixed joints is lumped and
   allowed);
5. at least 3 movable joints remain, none with a ``<mimic>``.

**End-effector joints are locked.**  A movable joint whose name contains ``gripper`` or
``finger`` (any case) and that follows a movable joint whose name does not (a hand needs an
arm: the 3-joint ``finger_edu``, all "finger", stays whole), and every movable joint below
it, belong to the hand: the zoo holds them at a fixed value, so an arm is an arm (the Panda's two finger
slides, one a ``<mimic>`` of the other; the Z1's ``jointGripper``; the SO-100's ``gripper``;
Talos' gripper).  The value is 0 where 0 lies in the joint's URDF range, else the nearer
limit; a ``<mimic>`` joint is locked at ``multiplier × (its leader's value) + offset``.
Read an arm with ``MultibodySystem.from_urdf(arm.path, lock=arm.lock)``
(:meth:`~pyomo_mbdyn.mechanics.MultibodySystem.from_urdf`), as Pinocchio's
``buildReducedModel`` would.

**Where the package is found** (:func:`data_roots`): the directory ``$EXAMPLE_ROBOT_DATA``
(itself a ``robots`` directory, or holding ``robots/`` or ``share/example-robot-data/robots``),
the 6.x wheel's layout ``<site-packages>/cmeel.prefix/share/example-robot-data/robots``
(example-robot-data 6 is data only), ``<sys.prefix>/share/example-robot-data/robots``
(conda, ROS), and the 5.x Python module ``example_robot_data`` (``getModelPath``).

Names: an arm is named by its file's stem without ``_robot`` (``ur5_joint_limited_robot.urdf`` →
``ur5_joint_limited``); where two arms would share a name, both are prefixed by their
package directory without ``_description``.  A rejected URDF is named by its path below the
``robots`` directory (``ur_description/urdf/ur3.urdf``).

>>> from pyomo_mbdyn.robots import zoo_arm, zoo_arms, zoo_survey
>>> arms = zoo_arms()                      # example-robot-data 6.0.0
>>> len(arms) >= 10, arms["kinova"].name
(True, 'kinova.urdf')
>>> zoo_arm("z1").lock, zoo_arm("z1").dof
({'jointGripper': 0.0}, 6)
>>> zoo_survey().rejected["baxter_description/urdf/baxter.urdf"]
"movable joints branch: 'head_pan' and 'right_s0' both follow the base"
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import os
import site
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigurationError, MissingFileError

__all__ = ["ZooArm", "ZooSurvey", "data_roots", "zoo_arms", "zoo_arm", "zoo_survey", "classify"]

#: the layout of example-robot-data's data below an installation prefix
LAYOUT = Path("share", "example-robot-data", "robots")
#: what marks an end-effector joint (in the joint's or its child link's name, any case)
END_EFFECTOR_WORDS = ("gripper", "finger")
_MOVABLE = ("revolute", "continuous", "prismatic")
MIN_JOINTS = 3


@dataclass(frozen=True)
class ZooArm:
    """One arm of the zoo: its URDF ``path``, the end-effector joints it ``lock`` s
    (``{joint: value}``, for ``from_urdf(path, lock=lock)``) and its movable ``joints``
    from the base out (the system's joints, in order)."""

    name: str
    path: Path
    lock: dict[str, float] = field(default_factory=dict)
    joints: tuple[str, ...] = ()

    @property
    def dof(self) -> int:
        return len(self.joints)


@dataclass(frozen=True)
class ZooSurvey:
    """Every URDF of the package: ``arms`` (name → :class:`ZooArm`, sorted by name),
    ``rejected`` (path below the ``robots`` directory → the reason) and the ``roots`` read."""

    arms: dict[str, ZooArm]
    rejected: dict[str, str]
    roots: tuple[Path, ...]


def _candidates():
    """Directories that may hold example-robot-data's ``robots`` directory, in search order."""
    env = os.environ.get("EXAMPLE_ROBOT_DATA")
    if env:
        env = Path(env)
        yield from (env, env / "robots", env / LAYOUT)
    prefixes = []
    try:
        prefixes += site.getsitepackages()
    except AttributeError:  # virtualenv's old site.py
        pass
    try:
        prefixes.append(site.getusersitepackages())
    except AttributeError:
        pass
    prefixes += [p for p in sys.path if p.endswith("site-packages")]
    for sp in prefixes:
        yield Path(sp, "cmeel.prefix") / LAYOUT
    yield Path(sys.prefix) / LAYOUT
    try:  # example-robot-data 5.x: a Python module
        from example_robot_data import getModelPath  # noqa: PLC0415
    except ImportError:
        return
    for probe in ("ur_description", "panda_description", "kinova_description"):
        try:
            yield Path(getModelPath(probe))
        except Exception:  # noqa: BLE001 - the 5.x module raises OSError/IOError when absent
            continue


def data_roots() -> tuple[Path, ...]:
    """The ``robots`` directories of the installed example-robot-data (each holds
    ``<robot>_description/.../*.urdf``), without duplicates; empty if none is installed."""
    found, seen = [], set()
    for path in _candidates():
        try:
            real = path.resolve()
        except OSError:
            continue
        if real in seen or not real.is_dir() or not any(real.glob("*/*/*.urdf")):
            continue
        seen.add(real)
        found.append(real)
    return tuple(found)


def _srdf_root_is_floating(path):
    srdf = path.parent.parent / "srdf" / (path.stem + ".srdf")
    if not srdf.is_file():
        return None
    try:
        root = ET.parse(srdf).getroot()
    except ET.ParseError:
        return None
    for vj in root.iter("virtual_joint"):
        if vj.get("type") in ("floating", "planar"):
            return vj.get("name")
    return None


def _is_end_effector(joint):
    return any(word in joint.get("name", "").lower() for word in END_EFFECTOR_WORDS)


def _lock_value(joint, locked):
    mimic = joint.find("mimic")
    if mimic is not None and locked.get(mimic.get("joint")) is not None:
        return (float(mimic.get("multiplier", 1.0)) * locked[mimic.get("joint")]
                + float(mimic.get("offset", 0.0)))
    limit = joint.find("limit")
    if joint.get("type") == "continuous" or limit is None:
        return 0.0
    lower, upper = float(limit.get("lower", 0.0)), float(limit.get("upper", 0.0))
    return min(max(0.0, lower), upper)


def classify(path: str | os.PathLike[str]) -> tuple[dict[str, float], tuple[str, ...]]:
    """``(lock, joints)`` of the URDF at ``path`` if it is a fixed-base serial arm (the module
    text: locked end-effector joints ``{joint: value}``, movable joints from the base out), else
    a :class:`~pyomo_mbdyn.errors.ConfigurationError` saying why not (the reason the survey keeps)."""
    path = Path(path)
    try:
        robot = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise ConfigurationError(f"malformed XML: {exc}") from None
    links = [el.get("name") for el in robot.findall("link")]
    if not links:
        raise ConfigurationError("no <link>: not a robot description (an empty xacro stub)")
    # name -> <joint> element (Any: a URDF joint has the <child> and <parent> that ET finds as Optional)
    joints: dict[Any, Any] = {el.get("name"): el for el in robot.findall("joint")}
    for name, el in joints.items():
        if el.get("type") in ("floating", "planar"):
            raise ConfigurationError(f"floating root: joint {name!r} is {el.get('type')}")
    virtual = _srdf_root_is_floating(path)
    if virtual:
        raise ConfigurationError(f"floating root: the SRDF's virtual joint {virtual!r} is floating")
    for name, el in joints.items():
        if el.get("type") not in _MOVABLE + ("fixed",):
            raise ConfigurationError(f"joint {name!r} is {el.get('type')!r}")
    child_of = {name: el.find("child").get("link") for name, el in joints.items()}
    parent_of = {name: el.find("parent").get("link") for name, el in joints.items()}
    below: dict[str | None, list[str]] = {}  # link -> joints hanging from it
    for name in joints:
        below.setdefault(parent_of[name], []).append(name)
    roots = [link for link in links if link not in set(child_of.values())]
    if len(roots) != 1:
        raise ConfigurationError(f"the links form no single tree (roots {roots})")

    # walk the tree from the root: lock end-effector subtrees, and the nearest movable ancestor
    lock: dict[str, Any] = {}
    follows: dict[str, str | None] = {}
    stack: list[tuple[str, str | None, bool, bool]] = [
        (j, None, False, False) for j in reversed(below.get(roots[0], []))]
    while stack:  # (joint, nearest movable joint above, in the hand, an unmarked movable joint above)
        name, movable_above, in_hand, arm_above = stack.pop()
        el = joints[name]
        moving, marked = el.get("type") in _MOVABLE, _is_end_effector(el)
        in_hand = in_hand or (moving and marked and arm_above)
        if moving and in_hand:
            lock[name] = None
        elif moving:
            follows[name] = movable_above
        above = name if moving and not in_hand else movable_above
        arm_above = arm_above or (moving and not marked)
        stack.extend((j, above, in_hand, arm_above) for j in reversed(below.get(child_of[name], [])))
    for name in joints:  # values in file order, so a mimic's leader comes first where it can
        if name in lock and lock[name] is None:
            lock[name] = _lock_value(joints[name], lock)
    for name in lock:  # a mimic follower listed before its leader
        lock[name] = _lock_value(joints[name], lock)

    children: dict[str | None, list[str]] = {}
    for name, above in follows.items():
        children.setdefault(above, []).append(name)
    for above, group in children.items():
        if len(group) > 1:
            where = "the base" if above is None else repr(above)
            raise ConfigurationError(f"movable joints branch: {group[0]!r} and {group[1]!r} both follow {where}")
    if len(follows) < MIN_JOINTS:
        raise ConfigurationError(f"{len(follows)} movable joint(s), fewer than {MIN_JOINTS}")
    for name in follows:
        if joints[name].find("mimic") is not None:
            raise ConfigurationError(f"joint {name!r} is a <mimic> of {joints[name].find('mimic').get('joint')!r}")
    chain, above = [], None
    while above in children:
        above = children[above][0]
        chain.append(above)
    return lock, tuple(chain)


#: (path, size, mtime) -> classify's result or the reason it refused
_VERDICTS: dict[tuple[str, int, int], tuple[dict[str, float], tuple[str, ...]] | str] = {}


def _classified(path):
    """:func:`classify` of ``path`` (its reason as a string if refused), read once per file version:
    a survey parses about 70 URDFs (0.3 s), and every :func:`zoo_arm` surveys."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _VERDICTS:
        try:
            _VERDICTS[key] = classify(path)
        except ConfigurationError as exc:
            _VERDICTS[key] = str(exc)
    return _VERDICTS[key]


def _name(path):
    stem = path.stem
    return stem[: -len("_robot")] if stem.endswith("_robot") else stem


def zoo_survey(roots: Iterable[str | os.PathLike[str]] | None = None) -> ZooSurvey:
    """Classify every URDF below ``roots`` (default :func:`data_roots`): a
    :class:`ZooSurvey`.  Raises :class:`~pyomo_mbdyn.errors.MissingFileError` if
    example-robot-data is not installed (``pip install example-robot-data``)."""
    roots = data_roots() if roots is None else tuple(Path(r) for r in roots)
    if not roots:
        raise MissingFileError(
            "robots.zoo: example-robot-data is not installed (no share/example-robot-data/robots under "
            f"{sys.prefix!r}, its site-packages' cmeel.prefix or $EXAMPLE_ROBOT_DATA, and no module "
            "example_robot_data); pip install 'example-robot-data>=6'")
    paths: dict[str, Path] = {}
    for root in roots:
        for path in sorted(root.glob("*/*/*.urdf")):
            paths.setdefault(path.relative_to(root).as_posix(), path)  # the first root wins
    found, rejected = {}, {}
    for rel, path in sorted(paths.items()):
        verdict = _classified(path)
        if isinstance(verdict, str):
            rejected[rel] = verdict
        else:
            found[rel] = verdict
    names: dict[str, list[str]] = {}
    for rel in found:
        names.setdefault(_name(paths[rel]), []).append(rel)
    arms = {}
    for name, group in names.items():
        for rel in group:
            package = paths[rel].parent.parent.name.removesuffix("_description")
            unique = name if len(group) == 1 else f"{package}_{name}"
            lock, joints = found[rel]
            arms[unique] = ZooArm(unique, paths[rel], dict(lock), joints)
    return ZooSurvey(dict(sorted(arms.items())), rejected, roots)


def zoo_arms(roots: Iterable[str | os.PathLike[str]] | None = None) -> dict[str, Path]:
    """name → URDF path of every arm of the zoo (:func:`zoo_survey`), sorted by name."""
    return {name: arm.path for name, arm in zoo_survey(roots).arms.items()}


def zoo_arm(name: str, roots: Iterable[str | os.PathLike[str]] | None = None) -> ZooArm:
    """The :class:`ZooArm` ``name`` (path, locked end-effector joints, movable joints)."""
    survey = zoo_survey(roots)
    if name not in survey.arms:
        why = "".join(f" ({rel}: {reason})" for rel, reason in survey.rejected.items()
                      if Path(rel).stem.removesuffix("_robot") == name)
        raise ConfigurationError(f"robots.zoo_arm: {name!r} is not an arm of the zoo{why}; "
                                 f"arms: {', '.join(survey.arms)}")
    return survey.arms[name]
