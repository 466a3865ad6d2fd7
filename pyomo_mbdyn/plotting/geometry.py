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
blue, kept for the directors, so that a box never has a director's colour.
"""

import numpy as np

from ..errors import ConfigurationError

__all__ = ["BODY_COLORS", "DIRECTOR_COLORS", "body_color", "as_configurations", "body_geometry", "joint_geometry",
           "box_corners", "box_edges", "points_of", "skeleton", "anchored", "auto_spacing", "grid_shifts"]

#: body colours: matplotlib's tab10 without tab:blue, tab:green and tab:red
BODY_COLORS = ("#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
#: d₁, d₂, d₃: tab:red, tab:green, tab:blue
DIRECTOR_COLORS = ("#d62728", "#2ca02c", "#1f77b4")


def body_color(b):
    """Body b's colour (no red, green or blue: those are the directors')."""
    return BODY_COLORS[b % len(BODY_COLORS)]


def drawable(system):
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


def by_points(system):
    """Whether ``system`` is drawn by its ``drawing`` (points and segments, not bodies and joints)."""
    return _drawing(system, system.q0) is not None


def drawn_names(system):
    """The names of the things drawn, in the order of their colours (bodies or drawing points)."""
    drawn = _drawing(system, system.q0)
    return list(system.bodies) if drawn is None else list(drawn[0])


def as_configurations(system, q):
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


def body_geometry(system, qk):
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
    out = []
    for name, body in system.bodies.items():
        qb = np.asarray(system.body_coordinates(qk, body), float)
        if body.has_orientation:
            a = np.sqrt(3.0 * np.asarray(body.euler, float) / body.mass)
            out.append((name, qb[0:3], qb[3:12].reshape(3, 3), a))
        else:
            out.append((name, qb[0:3], None, None))
    return out


def joint_geometry(system, qk):
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
    out = []
    for name, joint in system.joints.items():
        qp = np.asarray(system.body_coordinates(qk, joint.parent), float)
        qc = np.asarray(system.body_coordinates(qk, joint.child), float)
        sp = np.asarray(joint.parent.point(qp, joint.parent_point), float)
        sc = np.asarray(joint.child.point(qc, joint.child_point), float)
        out.append((name, sp, sc, None if joint.parent is GROUND else qp[0:3], qc[0:3]))
    return out


def box_corners(phi, D, a):
    """The 8 corners ``φ + Σ s_i a_i d_i`` (s_i = ±1) by sign tuple."""
    return {s: phi + (np.array(s) * a) @ D for s in
            (tuple(2 * np.array(i) - 1) for i in np.ndindex(2, 2, 2))}


def box_edges(phi, D, a):
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


def points_of(system, q, shifts=None):
    """Every point drawn for the configurations ``q`` (for the axes limits)."""
    pts = []
    for i, qk in enumerate(q):
        shift = 0.0 if shifts is None else shifts[i]
        for _, phi, D, a in body_geometry(system, qk):
            pts.append(phi + shift)
            if D is not None:
                pts.extend(c + shift for c in box_corners(phi, D, a).values())
        for _, sp, sc, _, _ in joint_geometry(system, qk):
            pts.extend((sp + shift, sc + shift))
    return np.array(pts)


def plane_normal(points):
    """The coordinate axis normal to the plane the ``points`` (a skeleton: centres and joint
    points) lie in, or None when they span space (or a line, or a point)."""
    span = np.ptp(np.asarray(points, float), axis=0)
    if span.max() == 0:
        return None
    flat = [i for i in range(3) if span[i] <= 1e-9 * span.max()]
    return flat[0] if len(flat) == 1 else None


def skeleton(system, q):
    """Centres of mass and joint points of the configurations ``q`` (not the boxes)."""
    pts = [phi for qk in q for _, phi, _, _ in body_geometry(system, qk)]
    pts += [p for qk in q for _, sp, sc, _, _ in joint_geometry(system, qk) for p in (sp, sc)]
    return np.array(pts)


def anchored(system):
    """True when a joint ties the system to the ground (its snapshots are drawn in place)."""
    from ..mechanics.joints import GROUND

    if by_points(system):  # in place
        return True
    return any(joint.parent is GROUND for joint in system.joints.values())


def auto_spacing(system, q):
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


def grid_shifts(count, spacing):
    """Shifts of ``count`` snapshots in reading order on a grid of about √count columns:
    left to right along x, rows downwards along z (a 3-D axes is square: a long strip would be tiny)."""
    columns = int(np.ceil(np.sqrt(count)))
    return [spacing * np.array([i % columns, 0.0, -(i // columns)]) for i in range(count)]
