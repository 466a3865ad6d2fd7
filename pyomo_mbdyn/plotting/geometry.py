"""What a configuration looks like: equivalent boxes, director triads, joints (floats only).

The geometry core shared by the matplotlib figures (:mod:`.snapshots`,
:mod:`.animation`) and the interactive HTML view (:mod:`.html_view`), so that both
draw a system the same way:

* a rigid body is its *equivalent box*: the homogeneous box with the body's
  mass and Euler tensor (half-edges ``a_i = √(3 E_i / m)`` along the directors
  ``d_i``, centred at φ), with the director triad ``φ → φ + a_i d_i`` in red,
  green and blue for d₁, d₂, d₃ (:data:`DIRECTOR_COLORS`); a thin rod is a line,
  a disc a flat box;
* a point mass is a dot at φ;
* a joint is a marker at its joint point on the parent and on the child (they
  coincide while the constraint holds), a line between the two, and thin lines
  from each body's centre of mass to its joint point.

Body colours (:data:`BODY_COLORS`) are matplotlib's tab10 without red, green and
blue, kept for the directors, so that a box never has a director's colour, then
tab20's light shades of the same (13 before one repeats).
"""

# an argument made an array (``q = np.asarray(q, float)``) is typed as the array from there on:
# mypy: allow-redefinition-new, local-partial-types

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..errors import ConfigurationError

if TYPE_CHECKING:
    import numpy.typing as npt

    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["BODY_COLORS", "DIRECTOR_COLORS", "body_color", "as_configurations", "body_geometry", "joint_geometry",
           "box_corners", "box_edges", "points_of", "skeleton", "anchored", "auto_spacing", "grid_shifts",
           "Plane", "motion_plane", "best_plane"]

#: body colours: matplotlib's tab10 without tab:blue, tab:green and tab:red, then tab20's light
#: orange, purple, brown, pink, olive and cyan (13 bodies before a colour repeats: the space robot has 8)
BODY_COLORS = ("#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
               "#ffbb78", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5")
#: d₁, d₂, d₃: tab:red, tab:green, tab:blue
DIRECTOR_COLORS = ("#d62728", "#2ca02c", "#1f77b4")


def body_color(b: int) -> str:
    """Body b's colour (no red, green or blue: those are the directors')."""
    return BODY_COLORS[b % len(BODY_COLORS)]


def drawable(system: ConstrainedSystem) -> bool:
    """Whether ``system`` can be drawn in space: a MultibodySystem, or a system with a
    ``drawing`` (a :class:`~pyomo_mbdyn.mechanics.CoordinateSystem` given one)."""
    from ..mechanics import MultibodySystem

    return isinstance(system, MultibodySystem) or callable(getattr(system, "drawing", None))


def _drawing(system, qk):
    """``(points, segments)`` of a system drawn by its ``drawing``, or None (a MultibodySystem)."""
    from ..mechanics import MultibodySystem

    if isinstance(system, MultibodySystem):
        return None
    points, segments = system.drawing(np.asarray(qk, float))
    return {name: np.asarray(xyz, float) for name, xyz in points.items()}, list(segments)


def by_points(system: ConstrainedSystem) -> bool:
    """Whether ``system`` is drawn by its ``drawing`` (points and segments, not bodies and joints)."""
    return _drawing(system, system.q0) is not None


def drawn_names(system: ConstrainedSystem) -> list[str]:
    """The names of the things drawn, in the order of their colours (bodies or drawing points)."""
    drawn = _drawing(system, system.q0)
    return list(system.bodies) if drawn is None else list(drawn[0])


def as_configurations(system: ConstrainedSystem, q: npt.ArrayLike) -> np.ndarray:
    """``q`` as an (K, n) float array of configurations of ``system``."""
    if not drawable(system):
        raise TypeError(f"expected a MultibodySystem (or a system with a drawing), got {type(system).__name__}")
    q = np.asarray(q, dtype=float)
    if q.ndim == 1:
        q = q[None, :]
    if q.ndim != 2 or q.shape[1] != system.n:
        raise ConfigurationError(
            f"q must have shape (N+1, n) with n = {system.n} coordinates of {system}, got {q.shape}")
    if not np.all(np.isfinite(q)):
        raise ConfigurationError("q holds NaN or infinite values: nothing to draw")
    return q


def body_geometry(system: ConstrainedSystem, qk: npt.ArrayLike) -> list[tuple[str, np.ndarray, np.ndarray | None, np.ndarray | None]]:
    """Per body of ``system`` in configuration ``qk``: ``(name, φ, D, a)`` with D
    the director rows (3×3) and ``a`` the equivalent box's half-edges, or
    ``D = a = None`` for a point mass.

    Examples
    --------
    A rod of mass 1 and length 1 along d₁ (Euler values (mL²/12 ≈ 0.083 along
    d₁, 0, 0)): its box is 1 long and nearly flat.

    >>> from pyomo_mbdyn.mechanics import MultibodySystem, RigidBody
    >>> rod = MultibodySystem("rod")
    >>> rod.add_bodies(RigidBody("rod", 1.0, euler=(1 / 12, 1e-6, 1e-6), position=(0.5, 0, 0)))
    >>> name, phi, D, a = body_geometry(rod, rod.q0)[0]
    >>> name, phi.tolist(), (2 * a).round(3).tolist()
    ('rod', [0.5, 0.0, 0.0], [1.0, 0.003, 0.003])
    """
    drawn = _drawing(system, qk)
    if drawn is not None:  # a system drawn by its points: each a dot
        return [(name, xyz, None, None) for name, xyz in drawn[0].items()]
    out: list[tuple[str, np.ndarray, np.ndarray | None, np.ndarray | None]] = []
    for name, body in system.bodies.items():
        qb = np.asarray(system.body_coordinates(qk, body), float)
        if body.has_orientation:
            a = np.sqrt(3.0 * np.asarray(body.euler, float) / body.mass)
            out.append((name, qb[0:3], qb[3:12].reshape(3, 3), a))
        else:
            out.append((name, qb[0:3], None, None))
    return out


def joint_geometry(system: ConstrainedSystem, qk: npt.ArrayLike) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]]:
    """Per joint: ``(name, parent point, child point, parent φ or None for the
    ground, child φ)``, all spatial, in configuration ``qk``.

    Examples
    --------
    >>> from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody
    >>> link = RigidBody("link", 1.0, (0.1, 0.1, 0.02), position=(0.5, 0, 0))
    >>> arm = MultibodySystem("arm")
    >>> arm.add_bodies(link)
    >>> arm.add_joints(Revolute("hinge", None, link, location=(0, 0, 0), axis=(0, 0, 1)))
    >>> name, s_parent, s_child, phi_parent, phi_child = joint_geometry(arm, arm.q0)[0]
    >>> name, s_child.round(12).tolist(), phi_parent, phi_child.tolist()
    ('hinge', [0.0, 0.0, 0.0], None, [0.5, 0.0, 0.0])
    """
    from ..mechanics.joints import GROUND

    drawn = _drawing(system, qk)
    if drawn is not None:  # a system drawn by its points: its segments, end to end
        points, segments = drawn
        return [(f"{a}–{b}", points[a], points[b], None, None) for a, b in segments]
    out: list[tuple[str, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]] = []
    for name, joint in system.joints.items():
        qp = np.asarray(system.body_coordinates(qk, joint.parent), float)
        qc = np.asarray(system.body_coordinates(qk, joint.child), float)
        sp = np.asarray(joint.parent.point(qp, joint.parent_point), float)
        sc = np.asarray(joint.child.point(qc, joint.child_point), float)
        out.append((name, sp, sc, None if joint.parent is GROUND else qp[0:3], qc[0:3]))
    return out


def box_corners(phi: np.ndarray, D: np.ndarray, a: np.ndarray) -> dict[tuple[int, ...], np.ndarray]:
    """The 8 corners ``φ + Σ s_i a_i d_i`` (s_i = ±1) by sign tuple."""
    return {s: phi + (np.array(s) * a) @ D for s in
            (tuple(2 * np.array(i) - 1) for i in np.ndindex(2, 2, 2))}


def box_edges(phi: np.ndarray, D: np.ndarray, a: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The 12 edges of the box: pairs of corners that differ in one sign."""
    corners = box_corners(phi, D, a)
    edges = []
    for s, c in corners.items():
        for i in range(3):
            if s[i] < 0:
                other = list(s)
                other[i] = 1
                edges.append((c, corners[tuple(other)]))
    return edges


def points_of(system: ConstrainedSystem, q: np.ndarray, shifts: Sequence[npt.ArrayLike] | None = None) -> np.ndarray:
    """Every point drawn for the configurations ``q`` (for the axes limits)."""
    pts = []
    for i, qk in enumerate(q):
        shift = 0.0 if shifts is None else shifts[i]
        for _, phi, D, a in body_geometry(system, qk):
            pts.append(phi + shift)
            if D is not None:
                pts.extend(c + shift for c in box_corners(phi, D, a).values())  # type: ignore[arg-type]  # a is set where D is
        for _, sp, sc, _, _ in joint_geometry(system, qk):
            pts.extend((sp + shift, sc + shift))
    return np.array(pts)


def plane_normal(points: npt.ArrayLike) -> int | None:
    """The coordinate axis normal to the plane the ``points`` (a skeleton: centres and joint
    points) lie in, or None when they span space (or a line, or a point)."""
    span = np.ptp(np.asarray(points, float), axis=0)
    if span.max() == 0:
        return None
    flat = [i for i in range(3) if span[i] <= 1e-9 * span.max()]
    return flat[0] if len(flat) == 1 else None


def skeleton(system: ConstrainedSystem, q: np.ndarray) -> np.ndarray:
    """Centres of mass and joint points of the configurations ``q`` (not the boxes)."""
    pts = [phi for qk in q for _, phi, _, _ in body_geometry(system, qk)]
    pts += [p for qk in q for _, sp, sc, _, _ in joint_geometry(system, qk) for p in (sp, sc)]
    return np.array(pts)


def anchored(system: ConstrainedSystem) -> bool:
    """True when a joint ties the system to the ground (its snapshots are drawn in place)."""
    from ..mechanics.joints import GROUND

    if by_points(system):  # in place
        return True
    return any(joint.parent is GROUND for joint in system.joints.values())


def auto_spacing(system: ConstrainedSystem, q: np.ndarray) -> float:
    """The spacing of a grid of snapshots when a free system's motion stays in
    place (a spinning satellite), so that the snapshots do not overlap: 1.25
    times the system's size; else 0.  A system jointed to the ground is drawn
    in place (stroboscopic)."""
    if anchored(system):
        return 0.0
    extents = [np.ptp(points_of(system, qk[None, :]), axis=0).max() for qk in q]
    centres = np.array([np.mean([phi for _, phi, _, _ in body_geometry(system, qk)], axis=0) for qk in q])
    extent = max(extents)
    if extent > 0 and np.ptp(centres, axis=0).max() < 0.5 * extent:
        return 1.25 * extent
    return 0.0


def grid_shifts(count: int, spacing: float, right: Sequence[float] = (1.0, 0.0, 0.0),
                down: Sequence[float] = (0.0, 0.0, -1.0)) -> list[np.ndarray]:
    """Shifts of ``count`` snapshots in reading order on a grid of about √count columns:
    left to right along ``right`` (x), rows downwards along ``down`` (−z; a 3-D axes is square:
    a long strip would be tiny)."""
    columns = int(np.ceil(np.sqrt(count)))
    right, down = np.asarray(right, float), np.asarray(down, float)
    return [spacing * ((i % columns) * right + (i // columns) * down) for i in range(count)]


_AXES = "xyz"


class Plane:
    """A plane of drawing: unit ``normal``, in-plane unit vectors ``right`` and ``up`` (``right × up =
    normal``), ``level`` = normal · point [m], and whether the motion was ``projected`` onto it
    (not planar).  ``coordinates(points)`` gives the (K, 2) in-plane coordinates; ``labels`` the
    axis labels (the world axes when the plane is a coordinate plane: ``"x [m]"``)."""

    def __init__(self, normal: npt.ArrayLike, level: float, projected: bool = False) -> None:
        normal = np.asarray(normal, float) / np.linalg.norm(normal)
        axis = int(np.argmax(np.abs(normal)))
        if abs(abs(normal[axis]) - 1.0) < 1e-9:  # a coordinate plane, seen as the 3-D view saw it
            right, up = {2: ((1, 0, 0), (0, 1, 0)), 1: ((1, 0, 0), (0, 0, 1)), 0: ((0, 1, 0), (0, 0, 1))}[axis]
            right, up = np.array(right, float), np.array(up, float)
            level = level * np.sign(normal[axis])
            normal = np.cross(right, up)
            self.labels = (f"{_AXES[int(np.argmax(right))]} [m]", f"{_AXES[int(np.argmax(up))]} [m]")
            self.name = (f"the {_AXES[int(np.argmax(right))]}–{_AXES[int(np.argmax(up))]} plane"
                         f" ({_AXES[axis]} = {_round(level)} m)")
        else:  # upwards: world z in the plane (else y), right-handed about the normal
            up = np.array([0.0, 0.0, 1.0]) - normal[2] * normal
            if np.linalg.norm(up) < 1e-6:
                up = np.array([0.0, 1.0, 0.0]) - normal[1] * normal
            up /= np.linalg.norm(up)
            right = np.cross(up, normal)
            if right[np.argmax(np.abs(right))] < 0:
                right, normal, level = -right, -normal, -level
            self.labels = (f"along {_vector(right)} [m]", f"along {_vector(up)} [m]")
            self.name = f"the plane normal to {_vector(normal)} (at {_round(level)} m)"
        self.normal, self.right, self.up, self.level, self.projected = normal, right, up, float(level), projected

    def coordinates(self, points: npt.ArrayLike) -> np.ndarray:
        """In-plane coordinates (right, up) of the (K, 3) ``points``."""
        points = np.asarray(points, float)
        return np.column_stack([points @ self.right, points @ self.up])

    def __repr__(self):
        return f"Plane({self.name}{', projected' if self.projected else ''})"


def _round(x):
    return f"{0.0 if abs(x) < 5e-13 else x:.3g}"


def _vector(v):
    return "(" + ", ".join(_round(x) for x in v) + ")"


def _body_points(system, q):
    """(K, P, 3): every drawn point (box corners, centres, joint points) per configuration, in a
    fixed order, so that a point is followed from node to node."""
    out = []
    for qk in q:
        pts = []
        for _, phi, D, a in body_geometry(system, qk):
            pts.append(phi)
            if D is not None:
                pts.extend(box_corners(phi, D, a).values())
        for _, sp, sc, _, _ in joint_geometry(system, qk):
            pts.extend((sp, sc))
        out.append(pts)
    return np.array(out, float)


def motion_plane(system: ConstrainedSystem, q: npt.ArrayLike, tol: float = 1e-6) -> Plane | None:
    """The plane a motion stays in, or None: a :class:`Plane` when every drawn point
    (box corners, centres of mass, joint points) of the configurations ``q`` keeps its
    distance to one plane, which holds the centres and joint points (a planar motion:
    bodies turning only about the plane's normal), to ``tol`` times the motion's size.

    The plane comes from the points themselves (their principal directions); when the
    centres and joint points lie on a line (an arm stretched out, a block sliding), from the
    joints' axes (all parallel, at right angles to the line), else it is a coordinate plane
    holding the line (x–z first: a side view).  Decided numerically, for any system.

    Examples
    --------
    >>> from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody
    >>> link = RigidBody("link", 1.0, (0.1, 0.1, 0.02), position=(0.5, 0, 0))
    >>> arm = MultibodySystem("arm")
    >>> arm.add_bodies(link)
    >>> arm.add_joints(Revolute("hinge", None, link, location=(0, 0, 0), axis=(0, 0, 1)))
    >>> motion_plane(arm, arm.q0)
    Plane(the x–y plane (z = 0 m))
    """
    q = np.atleast_2d(np.asarray(q, float))
    bones = skeleton(system, q)
    points = _body_points(system, q)
    size = max(np.ptp(points.reshape(-1, 3), axis=0).max(), np.ptp(bones, axis=0).max())
    if size == 0:
        return None
    centred = bones - bones.mean(axis=0)
    _, s, vt = np.linalg.svd(centred, full_matrices=True)
    s = np.concatenate([s, np.zeros(3 - len(s))])
    if s[1] > tol * max(s[0], 1e-300):  # the centres and joints span a plane
        normal = vt[2]
    else:  # on a line (or a point): the joints' common axis, else a coordinate axis across the line
        line = vt[0] if s[0] > 0 else np.zeros(3)
        axes = [getattr(joint, "axis", None) for joint in getattr(system, "joints", {}).values()]
        normal = None
        if axes and all(a is not None for a in axes):
            first = np.asarray(axes[0], float)
            # (no axis is None here: checked above)
            if all(np.linalg.norm(np.cross(first, a)) <= tol for a in axes) and abs(line @ first) <= tol:  # type: ignore[arg-type]
                normal = first
        for axis in (1, 2, 0):  # y first: a side view, z up
            if normal is None and s[0] > 0 and abs(line[axis]) <= tol:
                normal = np.eye(3)[axis]
        if normal is None:
            return None
    normal = np.where(np.abs(normal) < tol, 0.0, normal)
    normal /= np.linalg.norm(normal)
    if np.abs(bones @ normal - (bones @ normal).mean()).max() > tol * size:
        return None
    if np.ptp(points @ normal, axis=0).max() > tol * size:  # some point leaves its plane: not planar
        return None
    if len(q) == 1:  # one configuration is no motion: planar when every joint turns about the normal
        axes = [getattr(joint, "axis", None) for joint in getattr(system, "joints", {}).values()]
        if not axes or any(a is None or np.linalg.norm(np.cross(normal, a)) > tol for a in axes):
            return None
    return Plane(normal, float(np.mean(bones @ normal)))


def best_plane(system: ConstrainedSystem, q: npt.ArrayLike) -> Plane:
    """The plane a (non-planar) motion is best seen in: normal to the centres' and joint
    points' least principal direction (snapped to a coordinate axis when within 10°),
    marked ``projected``."""
    bones = skeleton(system, np.atleast_2d(np.asarray(q, float)))
    _, _, vt = np.linalg.svd(bones - bones.mean(axis=0), full_matrices=True)
    normal = vt[2]
    axis = int(np.argmax(np.abs(normal)))
    if abs(normal[axis]) > np.cos(np.radians(10)):
        normal = np.eye(3)[axis]
    return Plane(normal, float(np.mean(bones @ normal)), projected=True)
