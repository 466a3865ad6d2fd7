"""Robots read from URDF: :meth:`MultibodySystem.from_urdf <pyomo_mbdyn.mechanics.MultibodySystem.from_urdf>`.

The URDF (Unified Robot Description Format) is read with the standard library's
``xml.etree.ElementTree``; meshes (``<visual>``, ``<collision>``) and simulator
tags (``<gazebo>``, ``<transmission>``) are ignored, never loaded.

**Frames (URDF conventions).**  A link has a frame.  A joint's ``<origin xyz rpy>``
is the pose of the child link's frame in the parent link's frame *at joint
coordinate zero*, with ``R = R_z(yaw) R_y(pitch) R_x(roll)`` (fixed axes X, Y, Z).
The joint's ``<axis xyz>`` (default ``1 0 0``, normalised) is in the child (joint)
frame; a revolute joint turns the child frame about it by the joint angle, a
prismatic joint moves it along it.  ``<inertial><origin>`` is the pose of the
centre-of-mass frame in the link frame and ``<inertia>`` the tensor about the
centre of mass in that frame.

**Reference configuration.**  The system's reference configuration ``q0`` is the
robot with every joint coordinate at zero: the world pose ``(p_ℓ, R_ℓ)`` of every
link ℓ is composed down the tree from the joint origins.  Each body is a
:class:`~pyomo_mbdyn.mechanics.RigidBody` at its centre of mass with the world
inertia tensor (see below; the body turns its directors to the principal axes),
and each joint is placed at the world origin of its child link with the world
axis ``R_child · axis``.  The absolute reparametrisation
``q(θ) = system.reparametrise(θ, system.q0)`` is then exactly the robot's forward
kinematics at joint coordinates θ (a revolute angle turns about the axis carried
by the parent; :mod:`pyomo_mbdyn.discretization.charts`).

**Mapping of joint types.**

- ``revolute``, ``continuous`` → :class:`~pyomo_mbdyn.mechanics.Revolute` (coordinate ``name.angle``);
- ``prismatic`` → :class:`~pyomo_mbdyn.mechanics.Prismatic` (``name.slide``);
- ``planar`` → :class:`~pyomo_mbdyn.mechanics.Planar` with the axis as plane normal
  (``name.angle, name.slide1, name.slide2``; the slides along the library's in-plane frame
  of the normal, not the joint frame's x and y);
- ``fixed`` → with ``fixed="lump"`` the child link is merged into its parent body, with
  ``fixed="keep"`` a :class:`~pyomo_mbdyn.mechanics.Fixed` joint;
- ``floating`` → no joint: the child is a free root body (6 twist coordinates).

The URDF's root link is welded to the world (the ground): it and every link fixed
to it do not move, as in Pinocchio's ``buildModelFromXML`` without a root joint.  With
``floating_base=True`` it is instead a free rigid body (the root link and every link fixed
to it, lumped), as Pinocchio's model with a ``JointModelFreeFlyer`` root: a space robot,
whose gravity then defaults to zero.
Joints keep the URDF joint names; bodies are named after their (first) link, except that
URDF keeps links and joints in two namespaces and the library has one: a link whose name is
also a URDF joint's (the SO-100's link and joint ``gripper``) or ``"ground"`` gives the body
``<link>_link`` (``_link_2``, … if that is taken too), and ``system.urdf_links`` says so.
The joint
rates ``ν`` follow the URDF tree depth first, siblings in file order (free bodies'
twists first).

**Lumping (parallel-axis theorem).**  A body made of links ℓ with masses ``m_ℓ``,
world centres of mass ``c_ℓ`` and inertia tensors ``J_ℓ`` (about ``c_ℓ``, in the
centre-of-mass frame ``R_ℓ^c = R_ℓ R_ℓ^inertial``) has::

    m = Σ m_ℓ,    c = Σ m_ℓ c_ℓ / m,
    J = Σ [ R_ℓ^c J_ℓ (R_ℓ^c)ᵀ + m_ℓ (|r_ℓ|² I - r_ℓ r_ℓᵀ) ],   r_ℓ = c_ℓ - c,

the inertia about the body's centre of mass in world axes (Pinocchio's
``Inertia.__add__``).  A massless link (no ``<inertial>`` or mass 0) is merged like
any other; with ``fixed="keep"`` a massless fixed child is still merged (a body needs
mass).  A body's origin links become named body points (``body.points[link]``, the
link frame's origin), so a lumped flange or tool frame stays addressable.

**Limits.**  ``system.urdf_limits`` maps each URDF joint with coordinates to a
:class:`JointLimits` (position limits ``lower/upper``, ``effort``, ``velocity``,
``damping``, ``friction``; ``None`` where the URDF gives none; a continuous joint has
no position limits).  Nothing is applied to the system except, on request,
``damping=True``: Rayleigh friction ``k = damping`` (:meth:`MultibodySystem.add_friction`).
``system.urdf_links`` maps every URDF link to the body that carries it (``"ground"`` for
the welded base).

**Locked joints.**  ``lock={joint: value}`` holds revolute, continuous or prismatic joints at a
coordinate value (Pinocchio's ``buildReducedModel``): each becomes a fixed joint at that
value, lumped (or kept) like any other; ``system.urdf_locked`` lists them.  Used to make a
gripper part of the hand (:func:`pyomo_mbdyn.robots.zoo_arms`).

The source is XML text when its first non-blank character (after a byte-order mark) is
``<``, else a file path; bytes and files go to the XML parser undecoded, so a UTF-8 BOM and
the ``encoding=`` of the XML declaration (e.g. ISO-8859-1) are honoured.

**Refused** with a named error (the link or joint and the bad value): malformed XML
(also bytes that do not fit the declared encoding), a string that is neither XML text nor
a usable path (e.g. 5 000 characters of prose), a root element that is not ``<robot>``
(:class:`~pyomo_mbdyn.errors.ConfigurationError`), unknown joint types, a ``<mimic>`` on a
moving joint that is not locked (on a fixed joint it moves nothing and is ignored, as in
Pinocchio), a zero or non-finite axis (a huge finite one is a direction), bad numbers, a
number beyond ±:data:`MAX_MAGNITUDE` (1e100: a mass, an inertia or an origin whose
products would overflow), an
inertia that is not positive semi-definite or violates the triangle inequality
``J_i ≤ J_j + J_k`` (ConfigurationError; a *body's* inertia must be positive definite
and satisfy it strictly); a joint naming an unknown link, a link with two parents,
several roots or a cycle, a massless link carried by a moving joint (between two
moving joints, or at the end of one) (:class:`~pyomo_mbdyn.errors.AssemblyError`).

Examples
--------
>>> from pyomo_mbdyn.mechanics import MultibodySystem
>>> arm = MultibodySystem.from_urdf('''<robot name="arm">
...   <link name="base"/>
...   <link name="upper"><inertial><origin xyz="0.5 0 0"/><mass value="1"/>
...     <inertia ixx="0.01" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
...   <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
...     <axis xyz="0 0 1"/><limit lower="-1.5" upper="1.5" effort="20" velocity="2"/></joint>
... </robot>''')
>>> arm.name, list(arm.bodies), arm.velocities, arm.actuated
('arm', ['upper'], ['shoulder.angle'], ['shoulder.angle'])
>>> arm.urdf_limits["shoulder"].upper, arm.urdf_limits["shoulder"].effort
(1.5, 20.0)
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np

from ..errors import AssemblyError, ConfigurationError, InputTypeError, MissingFileError
from .bodies import RigidBody
from .joint_kinds import Fixed, Planar, Prismatic, Revolute
from .joints import GROUND

if TYPE_CHECKING:
    import numpy.typing as npt
    from .system import MultibodySystem

__all__ = ["JointLimits", "angles_in_limits", "range_start", "range_starts", "build_from_urdf", "rpy_matrix", "lump_inertia"]

#: URDF joint types that are read
JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")
_MOVING = ("revolute", "continuous", "prismatic", "planar", "floating")
_INERTIA_TOL = 1e-9  # relative to the trace, for the checks of a declared tensor


@dataclass(frozen=True)
class JointLimits:
    """What a URDF says about one joint's coordinates, kept for an OCP to apply.

    Fields:

    - ``joint``: the URDF joint name (= the library joint name); ``type``: the URDF type;
    - ``dofs``: the library coordinate names (``'shoulder.angle'``, …);
    - ``lower``, ``upper``: position limits (rad or m) of a revolute or prismatic joint
      with a ``<limit>`` (URDF default 0); None for continuous and planar joints;
    - ``effort`` (N·m or N), ``velocity`` (rad/s or m/s): from ``<limit>``, None if absent;
    - ``damping`` (N·m·s/rad or N·s/m), ``friction`` (N·m or N): from ``<dynamics>``, default 0.

    >>> elbow = JointLimits("elbow", "revolute", ("elbow.angle",), -2.0, 2.0, 40.0, 3.0)
    >>> elbow.lower, elbow.upper, elbow.effort, elbow.velocity, elbow.damping, elbow.friction
    (-2.0, 2.0, 40.0, 3.0, 0.0, 0.0)
    """

    joint: str
    type: str
    dofs: tuple[str, ...]
    lower: float | None = None
    upper: float | None = None
    effort: float | None = None
    velocity: float | None = None
    damping: float = 0.0
    friction: float = 0.0


def angles_in_limits(system: object, theta: npt.ArrayLike, tol: float = 1e-9) -> np.ndarray:
    """``θ`` with each revolute or continuous joint angle read on the URDF's branch: its principal value
    on (−π, π] if that lies in the joint's URDF range ``[lower, upper]`` (or the joint is continuous),
    else shifted from there by the fewest whole turns 2πn into the range; other coordinates, angles no
    turn puts in range, and systems without ``urdf_limits`` unchanged (angles outside a range: their
    principal value).

    A configuration fixes a joint angle only up to whole turns: the chart's inverse lands on whichever
    branch Gauss–Newton reaches, and a URDF range may lie past π (the Kinova's second joint:
    [0.820, 5.463] rad) or be wider than a turn (the xArm7's [−2π, 2π]: the principal value).

    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> arm = SimpleNamespace(velocities=["j2.angle"], urdf_limits={
    ...     "j2": JointLimits("j2", "revolute", ("j2.angle",), 0.820304748437, 5.46288055874)})
    >>> angles_in_limits(arm, np.array([-3.14327]))
    array([3.13991531])
    """
    theta = np.array(theta, float)
    limits = getattr(system, "urdf_limits", None)
    names = list(getattr(system, "velocities", ()))
    if not limits or theta.shape != (len(names),):
        return theta
    index = {name: i for i, name in enumerate(names)}
    turn = 2.0 * np.pi
    for lim in limits.values():
        if lim.type not in ("revolute", "continuous"):
            continue
        for dof in lim.dofs:
            i = index.get(dof)
            if i is None:
                continue
            theta[i] = np.pi - np.mod(np.pi - theta[i], turn)  # the principal value, on (−π, π]
            if lim.lower is None or lim.upper is None or lim.lower - tol <= theta[i] <= lim.upper + tol:
                continue
            first, last = np.ceil((lim.lower - tol - theta[i]) / turn), np.floor((lim.upper + tol - theta[i]) / turn)
            if first <= last:
                theta[i] += turn * min(max(0.0, first), last)
    return theta


def range_start(system: object) -> np.ndarray:
    """A start for inverting the chart onto the URDF's branch: per coordinate 0, or the midpoint of a
    revolute joint's URDF range that excludes 0 (the Kinova's [0.820, 5.463] → 3.14): a Gauss–Newton step
    on an angle reaches every angle within π of its start, and a range is at most a turn wide there."""
    names = list(getattr(system, "velocities", ()))
    start = np.zeros(len(names))
    index = {name: i for i, name in enumerate(names)}
    for lim in (getattr(system, "urdf_limits", None) or {}).values():
        if lim.type == "revolute" and lim.lower is not None and lim.upper is not None \
                and not lim.lower <= 0.0 <= lim.upper:
            for dof in lim.dofs:
                if dof in index:
                    start[index[dof]] = 0.5 * (lim.lower + lim.upper)
    return start


def range_starts(system: object, count: int, seed: int = 0) -> list[np.ndarray]:
    """``count`` seeded starts for the chart's inverse: each revolute angle drawn uniformly in its URDF range
    (a continuous joint's in (−π, π]), other coordinates 0."""
    names = list(getattr(system, "velocities", ()))
    rng = np.random.default_rng(seed)
    low, high = np.zeros(len(names)), np.zeros(len(names))
    index = {name: i for i, name in enumerate(names)}
    for lim in (getattr(system, "urdf_limits", None) or {}).values():
        if lim.type in ("revolute", "continuous"):
            for dof in lim.dofs:
                if dof in index:
                    bounded = lim.lower is not None and lim.upper is not None
                    low[index[dof]], high[index[dof]] = (lim.lower, lim.upper) if bounded else (-np.pi, np.pi)
    return [rng.uniform(low, high) for _ in range(count)]


def rpy_matrix(rpy: Sequence[float]) -> np.ndarray:
    """``R = R_z(yaw) R_y(pitch) R_x(roll)`` of a URDF ``rpy="roll pitch yaw"``.

    >>> np.round(rpy_matrix((0, 0, np.pi / 2)) @ [1, 0, 0], 12).tolist()
    [0.0, 1.0, 0.0]
    """
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    Rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    Ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    Rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return Rz @ Ry @ Rx


def lump_inertia(parts: Iterable[Any]) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, centre of mass and inertia about it of rigidly joined parts.

    ``parts``: iterable of ``(m_ℓ, c_ℓ, J_ℓ)`` with ``J_ℓ`` about ``c_ℓ``, all in one
    frame.  Returns ``(m, c, J)`` with ``m = Σ m_ℓ``, ``c = Σ m_ℓ c_ℓ / m`` and the
    parallel-axis theorem ``J = Σ [J_ℓ + m_ℓ (|r_ℓ|² I - r_ℓ r_ℓᵀ)]``, ``r_ℓ = c_ℓ - c``;
    ``(0, 0, 0)`` for no mass.

    >>> m, c, J = lump_inertia([(1.0, (1, 0, 0), np.zeros((3, 3))), (1.0, (-1, 0, 0), np.zeros((3, 3)))])
    >>> m, c.tolist(), np.diag(J).tolist()
    (2.0, [0.0, 0.0, 0.0], [0.0, 2.0, 2.0])
    """
    parts = [(float(m), np.asarray(c, dtype=float), np.asarray(J, dtype=float)) for m, c, J in parts]
    m = sum(p[0] for p in parts)
    if m <= 0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    c = sum(mi * ci for mi, ci, _ in parts) / m
    J = np.zeros((3, 3))
    for mi, ci, Ji in parts:
        r = ci - c
        J += Ji + mi * (r @ r * np.eye(3) - np.outer(r, r))
    return m, c, 0.5 * (J + J.T)


# -- reading ----------------------------------------------------------------------------
def _read_root(source):
    """The ``<robot>`` element of a URDF file path or XML text.

    Text is a ``str``/``bytes`` whose first non-blank character (after a byte-order mark) is
    ``<``; anything else is a path.  Bytes and files are handed to the XML parser undecoded,
    so a UTF-8 BOM and the encoding of the ``<?xml ... encoding=...?>`` declaration (e.g.
    ISO-8859-1) are honoured; bytes that do not fit the encoding are malformed XML.  A string
    that is neither XML nor a usable path (too long, a NUL, a line break) is refused saying so.
    """
    if isinstance(source, (bytes, bytearray)):
        head = bytes(source[:4096]).lstrip(b"\xef\xbb\xbf").lstrip()
        if not head.startswith(b"<"):
            raise ConfigurationError(f"from_urdf: the {len(source)} bytes given are not XML text (the first "
                                     f"character is not '<'): {bytes(source[:40])!r}…")
        text, where = bytes(source), "URDF text"
    elif isinstance(source, str) and source.lstrip("\ufeff").lstrip().startswith("<"):
        text, where = source.lstrip("\ufeff"), "URDF text"
    elif isinstance(source, (str, os.PathLike)):
        shown = os.fspath(source)
        shown = repr(shown) if len(shown) <= 80 else f"{shown[:60]!r}… ({len(shown)} characters)"
        try:
            path = Path(source)
            is_file = path.is_file()
        except (OSError, ValueError) as exc:  # ENAMETOOLONG, an embedded NUL, …
            raise ConfigurationError(f"from_urdf: {shown} is neither URDF text (it does not start with '<') "
                                     f"nor a usable file path ({getattr(exc, 'strerror', None) or exc})") from None
        if not is_file:
            raise MissingFileError(f"from_urdf: no URDF file {shown} (and it is not URDF text: it does not "
                                   f"start with '<')")
        try:
            text = path.read_bytes()
        except OSError as exc:
            raise ConfigurationError(f"from_urdf: cannot read the URDF file {shown}: {exc}") from None
        where = f"URDF file {str(path)!r}"
    else:
        raise InputTypeError(f"from_urdf: expected a URDF file path or XML text, got "
                             f"{type(source).__name__} {source!r}")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        hint = ("; bytes outside UTF-8 need an <?xml ... encoding=...?> declaration"
                if isinstance(text, bytes) and "invalid token" in str(exc) else "")
        raise ConfigurationError(f"from_urdf: malformed XML in {where}: {exc}{hint}") from None
    if root.tag != "robot":
        raise ConfigurationError(f"from_urdf: the root element of {where} is <{root.tag}>, not <robot>")
    return root


#: Largest magnitude accepted for a number in a URDF (masses, inertias, lengths, limits), in SI
#: units.  Far beyond anything physical (the observable universe is ~1e53 kg, ~1e27 m), and
#: small enough that the products the equations form (m·g·h, m·v², J·ω², sums over the tree)
#: stay below the float range (~1.8e308), so a value like ``mass="1e308"`` is refused here,
#: by name, not by an overflow in a later simulation.
MAX_MAGNITUDE = 1e100


def _numbers(element, attribute, n, what, default=None, bound=MAX_MAGNITUDE):
    """``n`` finite floats from ``element.get(attribute)`` (``default`` if absent), each of
    magnitude at most ``bound`` (:data:`MAX_MAGNITUDE`; None: any finite number)."""
    text = None if element is None else element.get(attribute)
    if text is None:
        if default is None:
            raise ConfigurationError(f"{what}: missing {attribute}=")
        return np.asarray(default, dtype=float)
    try:
        values = np.array([float(t) for t in text.split()])
    except ValueError:
        raise ConfigurationError(f"{what}: {attribute}={text!r} is not {n} number(s)") from None
    if values.shape != (n,) or not np.all(np.isfinite(values)):
        raise ConfigurationError(f"{what}: {attribute}={text!r} must be {n} finite number(s)")
    if bound is not None and np.abs(values).max() > bound:
        raise ConfigurationError(f"{what}: {attribute}={text!r} is beyond ±{bound:g}, the largest magnitude "
                                 f"accepted (products such as m·g·h would overflow)")
    return values


def _optional(element, attribute, what):
    if element is None or element.get(attribute) is None:
        return None
    return float(_numbers(element, attribute, 1, what)[0])


def _origin(element, what):
    """(R, p) of an ``<origin>`` child of ``element`` (identity if absent)."""
    origin = element.find("origin")
    if origin is None:
        return np.eye(3), np.zeros(3)
    xyz = _numbers(origin, "xyz", 3, f"{what} <origin>", (0, 0, 0))
    rpy = _numbers(origin, "rpy", 3, f"{what} <origin>", (0, 0, 0))
    return rpy_matrix(rpy), xyz


def _name(element, kind):
    name = element.get("name")
    if not name:
        raise ConfigurationError(f"from_urdf: a <{kind}> without a name= attribute")
    return name


def _inertial(link, name):
    """(mass, centre in link frame, J in link frame) of a link's ``<inertial>`` (mass 0 if none)."""
    what = f"URDF link {name!r}"
    inertial = link.find("inertial")
    if inertial is None:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    R, c = _origin(inertial, f"{what} <inertial>")
    mass_el = inertial.find("mass")
    mass = 0.0 if mass_el is None else float(_numbers(mass_el, "value", 1, f"{what} <mass>")[0])
    if mass < 0:
        raise ConfigurationError(f"{what}: negative mass {mass!r}")
    el = inertial.find("inertia")
    k = {a: (0.0 if el is None or el.get(a) is None else float(_numbers(el, a, 1, f"{what} <inertia>")[0]))
         for a in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
    J = np.array([[k["ixx"], k["ixy"], k["ixz"]], [k["ixy"], k["iyy"], k["iyz"]], [k["ixz"], k["iyz"], k["izz"]]])
    eig = np.linalg.eigvalsh(J)
    tol = _INERTIA_TOL * max(np.abs(eig).max(), 1e-300)
    shown = "(" + ", ".join(f"{a}={v:g}" for a, v in k.items()) + ")"
    if eig.min() < -tol:
        raise ConfigurationError(f"{what}: inertia {shown} is not positive definite "
                                 f"(principal moments {eig.tolist()})")
    if eig[2] > eig[0] + eig[1] + tol:
        raise ConfigurationError(f"{what}: inertia {shown} violates the triangle inequality: principal "
                                 f"moment {eig[2]:g} > {eig[0]:g} + {eig[1]:g}")
    return mass, c, R @ J @ R.T


def _axis(joint, name):
    """The unit axis of a joint: any finite non-zero ``xyz`` is a direction (scaled by its
    largest entry before normalising, so ``1e308 1e308 0`` is (1, 1, 0)/√2, not an overflow)."""
    axis = _numbers(joint.find("axis"), "xyz", 3, f"URDF joint {name!r} <axis>", (1, 0, 0), bound=None)
    scale = float(np.abs(axis).max())
    if scale < 1e-12:
        raise ConfigurationError(f"URDF joint {name!r}: zero <axis xyz={joint.find('axis').get('xyz')!r}>")
    axis = axis / scale
    return axis / np.linalg.norm(axis)


# -- building ---------------------------------------------------------------------------
def _lock_values(lock: Any) -> dict[str, float]:
    """``{joint: float}`` of the ``lock=`` option (a mapping, or names locked at 0)."""
    if lock is None:
        return {}
    if isinstance(lock, (str, bytes)) or not hasattr(lock, "__iter__"):
        raise ConfigurationError(f"from_urdf: lock must be a mapping {{joint: value}} or joint names, got {lock!r}")
    items = lock.items() if hasattr(lock, "items") else ((jname, 0.0) for jname in lock)
    values = {}
    for jname, value in items:
        if not isinstance(jname, str):
            raise ConfigurationError(f"from_urdf: lock: a joint name must be a string, got {jname!r}")
        try:
            values[jname] = float(value)
        except (TypeError, ValueError):
            values[jname] = math.nan
        if not math.isfinite(values[jname]) or isinstance(value, bool):
            raise ConfigurationError(f"from_urdf: lock: {jname!r} = {value!r} is not a finite number")
    return values


def _body_names(keys, links, joints):
    """The library name of each body (keyed by its first link): the link's name, or
    ``<link>_link`` where the link's name is also a URDF joint's or ``"ground"`` (the library
    needs one namespace for bodies and joints; URDF has two), then ``_2``, ``_3``, … until free."""
    used = set(links) | set(joints) | {"ground"}
    names = {}
    for key in keys:
        name = key
        if key in joints or key == "ground":
            name, k = f"{key}_link", 1
            while name in used:
                k += 1
                name = f"{key}_link_{k}"
            used.add(name)
        names[key] = name
    return names


def build_from_urdf(source: str | os.PathLike[str], fixed: str = "lump", *, cls: type[MultibodySystem], gravity: Sequence[float] | None = None, actuated: bool = True,
                    damping: bool = False, name: str | None = None, lock: Mapping[str, float] | Iterable[str] | None = None, floating_base: bool = False) -> MultibodySystem:
    """Read a URDF into a :class:`~pyomo_mbdyn.mechanics.MultibodySystem` (see the module text).

    Parameters
    ----------
    source : str or path-like
        A URDF file, or the XML text itself (a string starting with ``<``).
    fixed : {"lump", "keep"}
        ``"lump"`` (default, as Pinocchio): a fixed joint's child link is merged into its
        parent body by the parallel-axis theorem; ``"keep"``: it stays a body welded by a
        :class:`~pyomo_mbdyn.mechanics.Fixed` joint (massless links are still merged).
    gravity : 3 numbers, optional
        Default ``(0, 0, -9.81)`` (URDF's z is up) for a welded base, ``(0, 0, 0)`` for a
        floating base (a robot in orbit); give it to turn gravity on for a floating base.
    actuated : bool
        Actuate every revolute, continuous and prismatic joint (default True).
    damping : bool
        Apply each joint's ``<dynamics damping>`` as Rayleigh friction (default False:
        only stored in ``system.urdf_limits``).
    name : str, optional
        The system's name; default the ``<robot name>``.
    lock : mapping or iterable of joint names, optional
        Revolute, continuous or prismatic joints held at a coordinate value
        (``{joint: value}``; a bare name: 0), as Pinocchio's ``buildReducedModel``: the
        joint becomes a fixed joint whose origin is the URDF origin composed with the
        joint's motion at that value (``R·exp(value·â)``, or ``p + value·R a``), and is
        lumped or kept by ``fixed=``.  A locked joint has no coordinate and no
        ``urdf_limits`` entry; its ``<mimic>``, if any, is not read (lock the joint it
        follows at the consistent value).  Unknown names, other joint types, non-finite
        values and values outside the joint's URDF position limits are refused by name.
    floating_base : bool
        ``False`` (default): the root link is welded to the world.  ``True``: the root link
        (with every link fixed to it) is a free rigid body in natural coordinates — position of
        its centre of mass and three directors, as the satellites' main body — with its URDF
        inertia; its twist (``<base>.vx … <base>.wz``: the centre of mass's velocity and the
        angular velocity, world axes) comes first in ``ν`` and is not actuated (a free-floating
        robot moves by its joints; ``system.actuate(base)`` drives the base).  Refused by name:
        a root link called ``world`` (the URDF welds or joints the robot to the world: remove
        that link and its joint), and a root body without mass.

    Returns
    -------
    MultibodySystem
        with the extra attributes ``urdf_limits`` (``{joint: JointLimits}``),
        ``urdf_links`` (``{link: body name or "ground"}``), ``urdf_locked``
        (``{joint: value}``) and ``floating_base`` (the free root body's name, or None).
    """
    if fixed not in ("lump", "keep"):
        raise ConfigurationError(f"from_urdf: fixed must be 'lump' or 'keep', got {fixed!r}")
    for option, value in (("actuated", actuated), ("damping", damping)):
        if not isinstance(value, bool):
            raise ConfigurationError(f"from_urdf: {option} must be True or False, got {value!r}")
    if not isinstance(floating_base, bool):
        raise ConfigurationError(f"from_urdf: floating_base must be True or False, got {floating_base!r}")
    if gravity is None:
        gravity = (0.0, 0.0, 0.0) if floating_base else (0.0, 0.0, -9.81)
    if name is not None and (not isinstance(name, str) or not name):
        raise ConfigurationError(f"from_urdf: name must be a non-empty string, got {name!r}")
    lock = _lock_values(lock)
    robot = _read_root(source)

    # links and joints (direct children of <robot> only: <transmission> also has <joint>s)
    links = {}
    for el in robot.findall("link"):
        lname = _name(el, "link")
        if lname in links:
            raise ConfigurationError(f"from_urdf: two links named {lname!r}")
        links[lname] = _inertial(el, lname)
    parent_of: dict[str, Any]
    children: dict[str, list[Any]]
    joints, parent_of, children = {}, {}, {lname: [] for lname in links}
    for el in robot.findall("joint"):
        jname = _name(el, "joint")
        what = f"URDF joint {jname!r}"
        if jname in joints:
            raise ConfigurationError(f"from_urdf: two joints named {jname!r}")
        jtype = el.get("type")
        if jtype not in JOINT_TYPES:
            raise ConfigurationError(f"{what}: unknown joint type {jtype!r}; known: {', '.join(JOINT_TYPES)}")
        if jname in lock and jtype not in ("revolute", "continuous", "prismatic"):
            raise ConfigurationError(f"from_urdf: lock: joint {jname!r} is {jtype}; only revolute, continuous "
                                     f"and prismatic joints can be locked")
        if el.find("mimic") is not None and jtype != "fixed" and jname not in lock:
            raise ConfigurationError(f"{what}: mimic joints (following {el.find('mimic').get('joint')!r}) "
                                     f"are not supported; lock it (from_urdf(..., lock={{{jname!r}: value}})) or "
                                     f"model the coupling as a constraint")
        ends: dict[str, Any] = {}
        for role in ("parent", "child"):
            sub = el.find(role)
            ends[role] = None if sub is None else sub.get("link")
            if not ends[role]:
                raise AssemblyError(f"{what}: missing <{role} link=...>")
            if ends[role] not in links:
                raise AssemblyError(f"{what}: {role} link {ends[role]!r} is not a <link> of the robot")
        parent, child = ends["parent"], ends["child"]
        if parent == child:
            raise AssemblyError(f"{what}: parent and child are the same link {child!r}")
        if child in parent_of:
            raise AssemblyError(f"URDF link {child!r} has two parents: joints {parent_of[child]!r} and {jname!r}")
        R, p = _origin(el, what)
        axis = _axis(el, jname) if jtype in ("revolute", "continuous", "prismatic", "planar") else None
        limit, dyn = el.find("limit"), el.find("dynamics")
        has_position_limits = jtype in ("revolute", "prismatic") and limit is not None
        info = dict(lower=_optional(limit, "lower", f"{what} <limit>") if has_position_limits else None,
                    upper=_optional(limit, "upper", f"{what} <limit>") if has_position_limits else None,
                    effort=_optional(limit, "effort", f"{what} <limit>"),
                    velocity=_optional(limit, "velocity", f"{what} <limit>"),
                    damping=_optional(dyn, "damping", f"{what} <dynamics>") or 0.0,
                    friction=_optional(dyn, "friction", f"{what} <dynamics>") or 0.0)
        for key in ("effort", "velocity", "damping", "friction"):
            if info[key] is not None and info[key] < 0:
                raise ConfigurationError(f"{what}: negative {key} {info[key]!r}")
        if has_position_limits:  # URDF defaults: lower = upper = 0
            info["lower"] = 0.0 if info["lower"] is None else info["lower"]
            info["upper"] = 0.0 if info["upper"] is None else info["upper"]
            if info["lower"] > info["upper"]:
                raise ConfigurationError(f"{what}: <limit lower={info['lower']!r}> above upper={info['upper']!r}")
        if jname in lock:  # a fixed joint at the locked coordinate
            value = lock[jname]  # type: ignore[assignment]  # the name held a bool option above; here a coordinate
            if has_position_limits and not info["lower"] <= value <= info["upper"]:
                raise ConfigurationError(f"from_urdf: lock: {jname!r} = {value!r} lies outside its URDF limits "
                                         f"[{info['lower']!r}, {info['upper']!r}]")
            assert axis is not None  # a revolute, continuous or prismatic joint has one (checked above)
            if jtype == "prismatic":
                p = p + value * (R @ axis)
            else:
                A = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
                R = R @ (np.eye(3) + math.sin(value) * A + (1.0 - math.cos(value)) * (A @ A))
            jtype, axis = "fixed", None
        joints[jname] = dict(type=jtype, parent=parent, child=child, R=R, p=p, axis=axis, info=info)
        parent_of[child] = jname
        children[parent].append(jname)
    if not links:
        raise AssemblyError("from_urdf: the robot has no <link>")
    unknown = sorted(set(lock) - set(joints))
    if unknown:
        raise ConfigurationError(f"from_urdf: lock: no URDF joint named {', '.join(map(repr, unknown))}")
    roots = [lname for lname in links if lname not in parent_of]
    if len(roots) != 1:
        raise AssemblyError(f"from_urdf: the links must form one tree; roots (links without a parent): "
                            f"{roots or 'none (a cycle)'}")

    base = roots[0]  # body_of maps a link to the first link of its body (base: the welded ground)
    if floating_base and base.lower() == "world":
        below = ", ".join(f"{joints[j]['type']} joint {j!r} to {joints[j]['child']!r}" for j in children[base])
        raise ConfigurationError(
            f"from_urdf(floating_base=True): the root link is {base!r}, the world itself ({below or 'no joint'}); "
            f"a floating base is the robot's own root link: remove the link {base!r} and its joint, or read the "
            f"URDF with floating_base=False")
    # depth-first: world poses at joint coordinates zero and the body of every link
    pose = {base: (np.eye(3), np.zeros(3))}
    body_of = {base: base}
    order, stack = [], list(reversed(children[roots[0]]))
    while stack:
        jname = stack.pop()
        j = joints[jname]
        Rp, pp = pose[j["parent"]]
        pose[j["child"]] = (Rp @ j["R"], pp + Rp @ j["p"])
        lumped = j["type"] == "fixed" and (fixed == "lump" or links[j["child"]][0] == 0.0)
        body_of[j["child"]] = body_of[j["parent"]] if lumped else j["child"]
        order.append(jname)
        stack.extend(reversed(children[j["child"]]))
    unreached = [lname for lname in links if lname not in pose]
    if unreached:
        raise AssemblyError(f"from_urdf: links {unreached} are not connected to the root {roots[0]!r} (a cycle)")
    # bodies: mass, centre and inertia of each group (world axes at the reference)
    members: dict[str, Any] = {}
    for lname in pose:
        members.setdefault(body_of[lname], []).append(lname)
    moving_into = {}  # body -> the joint that carries it
    for jname in order:
        j = joints[jname]
        if body_of[j["child"]] == j["child"]:
            moving_into[j["child"]] = jname
    body_name = _body_names([b for b in members if b != base or floating_base], links, joints)
    bodies = {}
    for bname, group in members.items():
        if bname == base and not floating_base:
            continue
        parts = []
        for lname in group:
            m, c, J = links[lname]
            if m > 0:
                R, p = pose[lname]
                parts.append((m, p + R @ c, R @ J @ R.T))
        m, c, J = lump_inertia(parts)
        if bname == base and m == 0.0:
            lumped = f" (nor the links fixed to it: {group[1:]})" if len(group) > 1 else ""
            kept = [joints[jn]["child"] for jn in children[base]
                    if joints[jn]["type"] == "fixed" and body_of[joints[jn]["child"]] != base]
            hint = (f"; with fixed='keep' the links fixed to it ({', '.join(map(repr, kept))}) stay bodies of "
                    f"their own: read it with fixed='lump' to make them the base") if kept else ""
            raise AssemblyError(f"from_urdf(floating_base=True): the root link {base!r} has no mass{lumped}: a "
                                f"floating base is a free body and needs an <inertial> with a mass and an "
                                f"inertia{hint}")
        carrier = moving_into.get(bname)
        if m == 0.0:
            onward = [jn for lname in group for jn in children[lname] if body_of[joints[jn]["child"]] != bname]
            if onward:
                raise AssemblyError(
                    f"URDF link {bname!r}: massless (no <inertial> or mass 0) between the moving joints "
                    f"{carrier!r} and {onward[0]!r}; give it an <inertial> or lump it by a fixed joint")
            raise AssemblyError(
                f"URDF link {bname!r}: massless (no <inertial> or mass 0) but carried by the "
                f"{joints[carrier]['type']} joint {carrier!r}, so it cannot be lumped; give it an <inertial>")
        points = {lname: pose[lname][1] - c for lname in group}
        try:
            body = RigidBody(body_name[bname], m, inertia=J, position=c, directors=np.eye(3), points=points)
        except ConfigurationError as exc:
            lumped = f" (with the lumped links {group[1:]})" if len(group) > 1 else ""
            lumped += " (the floating base)" if bname == base else ""
            raise ConfigurationError(f"URDF link {bname!r}{lumped}: {exc}") from None
        bodies[bname] = body

    system = cls(name or robot.get("name") or "robot", gravity=gravity)
    system.add_bodies(*bodies.values())
    placed, limits = [], {}
    for jname in order:
        j = joints[jname]
        child = body_of[j["child"]]
        if child != j["child"] or j["type"] == "floating":
            continue  # lumped, or a free root body
        parent = GROUND if body_of[j["parent"]] == base and not floating_base else bodies[body_of[j["parent"]]]
        Rc, pc = pose[j["child"]]
        kind = {"revolute": Revolute, "continuous": Revolute, "prismatic": Prismatic,
                "planar": Planar, "fixed": Fixed}[j["type"]]
        kwds = {} if j["axis"] is None else {"axis": Rc @ j["axis"]}
        joint = kind(jname, parent, bodies[child], location=pc, **kwds)
        placed.append(joint)
    system.add_joints(*placed)
    for joint in placed:
        if joint.n_dofs:
            limits[joint.name] = JointLimits(joint.name, joints[joint.name]["type"], joint.dofs,
                                             **joints[joint.name]["info"])
            if actuated and joint.axis_motion is not None:   # a motor turns or slides one axis
                system.actuate(joint)
            if damping and limits[joint.name].damping > 0:
                system.add_friction(joint, limits[joint.name].damping)
    system.urdf_limits = limits
    welded = None if floating_base else base
    system.urdf_links = {lname: "ground" if body_of[lname] == welded else body_name[body_of[lname]] for lname in links}
    system.floating_base = body_name[base] if floating_base else None
    system.urdf_locked = {jname: lock[jname] for jname in joints if jname in lock}
    return system
