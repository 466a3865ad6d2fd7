"""Configurations drawn in one 3-D axes: snapshots of a motion.

The axes have equal scales (limits from the drawn geometry plus a margin); a
motion in a coordinate plane is seen square-on.  Bodies and joints are drawn as
:mod:`.geometry` describes.
"""

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from ..errors import ConfigurationError
from .geometry import (DIRECTOR_COLORS, as_configurations, auto_spacing, body_color, body_geometry, box_edges,
                       by_points, drawn_names, grid_shifts, joint_geometry, plane_normal, points_of, skeleton)
from .canvas import new_figure, styled

__all__ = ["plot_snapshots", "set_equal_limits", "plane_view", "draw_configuration"]

def set_equal_limits(ax, points, margin=0.06, floor=0.2):
    """Limits around ``points`` with a margin, and equal scales on x, y, z.

    Each axis spans its own range of the points plus ``margin`` times the
    largest range (at least ``floor`` times the largest range, so that a flat
    system keeps some depth); the box aspect is set to the three spans, so one
    metre has the same length along every axis.  Returns the (3, 2) limits.
    """
    lo, hi = points.min(axis=0), points.max(axis=0)
    centre, span = (lo + hi) / 2, hi - lo
    size = span.max() if span.max() > 0 else 1.0
    half = np.maximum(span, floor * size) / 2 + margin * size
    limits = np.column_stack([centre - half, centre + half])
    ax.set_xlim(*limits[0])
    ax.set_ylim(*limits[1])
    ax.set_zlim(*limits[2])
    ax.set_box_aspect(tuple(2 * half))
    for axis, extent in zip((ax.xaxis, ax.yaxis, ax.zaxis), half):
        axis.set_major_locator(MaxNLocator(3 if extent < 0.35 * half.max() else 6))
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_zlabel("z [m]")
    return limits


def plane_view(ax, skeleton):
    """Look square-on at a motion that stays in a coordinate plane: returns the plane's normal axis or None."""
    flat = plane_normal(skeleton)
    if flat is None:
        return None
    # view from +z (x right, y up), from -y (x right, z up), from +x (y right, z up)
    ax.view_init(*{2: (90, -90), 1: (0, -90), 0: (0, 0)}[flat])
    normal = (ax.xaxis, ax.yaxis, ax.zaxis)[flat]
    normal.set_ticks([])  # seen edge-on: no ticks, no label
    normal.set_label_text("")
    return flat


def draw_configuration(ax, system, qk, alpha=1.0, box=True, shift=np.zeros(3), directors=True):
    """Draw one configuration (moved by ``shift``; the director triads with ``directors``);
    return the number of line segments drawn."""
    from mpl_toolkits.mplot3d.art3d import Line3DCollection

    segments, colors, widths = [], [], []
    dots = []
    for b, (_, phi, D, a) in enumerate(body_geometry(system, qk)):
        phi = phi + shift
        color = body_color(b)
        if D is None:
            dots.append((phi, color))
            continue
        if box:
            for edge in box_edges(phi, D, a):
                segments.append(edge)
                colors.append(color)
                widths.append(1.0)
        for i in range(3 if directors else 0):
            segments.append((phi, phi + a[i] * D[i]))
            colors.append(DIRECTOR_COLORS[i])
            widths.append(2.0)
        dots.append((phi, color))
    for _, sp, sc, cp, cc in joint_geometry(system, qk):
        sp, sc = sp + shift, sc + shift
        cp, cc = (None if cp is None else cp + shift), (None if cc is None else cc + shift)
        for centre, point in ((cp, sp), (cc, sc)):
            if centre is not None:
                segments.append((centre, point))
                colors.append("0.2")
                widths.append(0.8)
        segments.append((sp, sc))
        colors.append("k")
        widths.append(1.5)
        ax.scatter(*np.array([sp, sc]).T, marker="o", s=28, facecolors="white", edgecolors="k",
                   alpha=alpha, depthshade=False)
    if segments:
        ax.add_collection3d(Line3DCollection(np.array(segments), colors=colors, linewidths=widths,
                                             alpha=alpha))
    if dots:
        ax.scatter(*np.array([p for p, _ in dots]).T, c=[c for _, c in dots], s=18, alpha=alpha,
                   depthshade=False)
    return len(segments)


def _label_poses(ax, system, q, nodes, shifts, texts):
    """Write ``texts[i]`` beside snapshot i, just beyond its drawn point farthest from the
    centre of all snapshots (the tip of an arm, the end of a swing), so that each label
    sits at its own pose.  Returns ``[(text, position)]``."""
    poses = [points_of(system, q[k][None, :]) + shift for k, shift in zip(nodes, shifts)]
    everything = np.vstack(poses)
    centre = everything.mean(axis=0)
    size = max(np.ptp(everything, axis=0).max(), 1e-9)
    placed = []
    for pose, text in zip(poses, texts):
        far = pose[np.argmax(np.linalg.norm(pose - centre, axis=1))]
        away = far - centre
        position = far + 0.06 * size * away / max(np.linalg.norm(away), 1e-12)
        ax.text(*position, text, fontsize="small", color="0.2", ha="center", va="center")
        placed.append((text, position))
    return placed


def _legend(ax, system, box=True, outside=False, directors=True):
    handles = [Line2D([], [], color=body_color(b), marker="o", lw=1 if box else 0, label=name)
               for b, name in enumerate(drawn_names(system))]
    if directors and any(getattr(b, "has_orientation", False) for b in system.bodies.values()):
        handles += [Line2D([], [], color=c, lw=2, label=f"d{i + 1}") for i, c in enumerate(DIRECTOR_COLORS)]
    if joint_geometry(system, system.q0):  # a drawing's segments are not joints (the crane's rope)
        label = "segment" if by_points(system) else "joint"
        handles.append(Line2D([], [], color="k", marker="o", markerfacecolor="white", lw=0, label=label))
    if outside:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), borderaxespad=0.0)
    else:
        ax.legend(handles=handles, loc="upper left", fontsize="small")


def _axes3d(ax, figsize=(7.5, 6)):
    if ax is None:
        fig = new_figure(figsize=figsize)
        return fig.add_subplot(projection="3d")
    if getattr(ax, "name", None) != "3d":
        raise ConfigurationError(f"ax must be a 3-D axes (projection='3d'), got {type(ax).__name__}")
    return ax


def _select_nodes(times, N, t, count):
    if times is None:
        return sorted(set(np.linspace(0, N, min(count, N + 1)).round().astype(int).tolist()))
    times = np.atleast_1d(np.asarray(times, dtype=float))
    if times.size == 0:
        raise ConfigurationError("times is empty: give at least one node to draw")
    if t is None:
        if np.any(times != np.round(times)) or np.any(times < 0) or np.any(times > N):
            bad = [x for x in times if x != round(x) or not 0 <= x <= N][0]
            raise ConfigurationError(
                f"times are node indices 0..{N} unless t= is given; got {bad!r}")
        return [int(k) for k in times]
    t = np.asarray(t, dtype=float)
    if t.shape != (N + 1,):
        raise ConfigurationError(f"t must have N+1 = {N + 1} node times, got shape {t.shape}")
    h = (t[-1] - t[0]) / max(N, 1)
    nodes = []
    for x in times:
        k = int(np.argmin(np.abs(t - x)))
        if abs(t[k] - x) > h / 2 + 1e-12 * max(1.0, abs(x)):
            raise ConfigurationError(f"time {x!r} lies outside the grid [{t[0]}, {t[-1]}]")
        nodes.append(k)
    return nodes


@styled
def plot_snapshots(system, q, times=None, ax=None, *, t=None, count=6, box=True, offset=None,
                   directors="last", labels=True):
    """Draw configurations of ``system`` at chosen nodes in one 3-D axes.

    Bodies, joints and directors are drawn as described in the module
    docstring; later snapshots are more opaque, and each is labelled with its
    time (``t = 0.4 s``, or its node ``k = 4`` without ``t``) beside its outermost
    point.  The axes have equal scales
    and limits from everything drawn plus a margin (``ax.drawn_limits``); a
    motion in a coordinate plane is seen square-on.

    Parameters
    ----------
    system : MultibodySystem, or a CoordinateSystem with a ``drawing``
    q : (N+1, n) or (n,) array
        Node configurations in the system's coordinate layout.
    times : sequence, optional
        Node indices k to draw, or with ``t`` given times (each drawn at the
        nearest node).  Default: ``count`` nodes evenly spaced from 0 to N.
    ax : 3-D axes, optional
        Default: a new figure (``ax.figure``).
    t : (N+1,) array, optional
        Node times [s], to pick snapshots by time.
    box : bool
        Draw the equivalent boxes (else only the director triads).
    offset : 3 numbers or "auto", optional
        Draw the i-th snapshot moved by ``i * offset`` [m] (a film strip, for
        motions that stay in place); ``"auto"``, when the system is not
        jointed to the ground and its centres of mass move less than half of
        its size, lays the snapshots out in reading order on a grid (left to
        right along x, rows downwards along z) 1.25 times the system's size
        apart.  The title then states the shift.  Default: no shift.
    directors : "last", "all" or "none"
        Which snapshots show their director triads (d₁, d₂, d₃); by default the
        last only — the boxes show every pose's orientation, and triads on every
        pose clutter the figure.
    labels : bool
        Label each snapshot with its time or node (``ax.snapshot_labels``).

    Returns
    -------
    The 3-D axes drawn on; ``ax.snapshot_nodes`` lists the nodes drawn.
    """
    q = as_configurations(system, q)
    N = q.shape[0] - 1
    nodes = _select_nodes(times, N, t, count)
    if directors not in ("last", "all", "none"):
        raise ConfigurationError(f"directors must be 'last', 'all' or 'none', got {directors!r}")
    if offset is None:
        shifts, moved = [np.zeros(3)] * len(nodes), ""
    elif isinstance(offset, str) and offset == "auto":
        spacing = auto_spacing(system, q[nodes])
        shifts = grid_shifts(len(nodes), spacing)
        moved = f"snapshots in reading order, {spacing:.3g} m apart" if spacing else ""
    else:
        offset = np.asarray(offset, dtype=float)
        if offset.shape != (3,) or not np.all(np.isfinite(offset)):
            raise ConfigurationError(f"offset must be 3 finite numbers or 'auto', got {offset!r}")
        shifts = [i * offset for i in range(len(nodes))]
        moved = ("snapshot i drawn moved by i·(" + ", ".join(f"{x:.3g}" for x in offset) + ") m"
                 if np.any(offset) else "")
    own = ax is None
    ax = _axes3d(ax, figsize=(8, 6.5))
    for i, k in enumerate(nodes):
        alpha = 0.25 + 0.75 * (i + 1) / len(nodes)
        triads = directors == "all" or (directors == "last" and i == len(nodes) - 1)
        draw_configuration(ax, system, q[k], alpha=alpha, box=box, shift=shifts[i], directors=triads)
    times_of = None if t is None else np.asarray(t, float)
    texts = [f"k = {k}" if times_of is None else f"t = {times_of[k]:.3g} s" for k in nodes]
    ax.snapshot_labels = _label_poses(ax, system, q, nodes, shifts, texts) if labels and len(nodes) > 1 else []
    points = points_of(system, q[nodes], shifts)
    if ax.snapshot_labels:  # the labels inside the axes too
        points = np.vstack([points, [position for _, position in ax.snapshot_labels]])
    ax.drawn_limits = set_equal_limits(ax, points)
    if plane_view(ax, skeleton(system, q[nodes])) is None and moved:
        ax.view_init(elev=15, azim=-75)  # nearly square-on to the grid of snapshots
    _legend(ax, system, box, outside=own, directors=directors != "none")
    shown = ", ".join(str(k) for k in nodes)
    title = (f"{system.name}: nodes k = {shown}" if t is None else
             f"{system.name}: t = " + ", ".join(f"{np.asarray(t, float)[k]:.3g}" for k in nodes) + " s")
    if moved:
        title += f"\n({moved})"
    ax.set_title(title)
    ax.snapshot_nodes = list(nodes)
    if own:
        ax.figure.tight_layout()
    return ax
