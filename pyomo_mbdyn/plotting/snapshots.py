"""Configurations drawn in one axes: snapshots of a motion.

A planar motion (:func:`~.geometry.motion_plane`, decided from the
configurations) is drawn on 2-D axes in its plane; any other motion on 3-D
axes (a planar one asked for in 3-D is seen square-on).  The axes have equal
scales (limits from the drawn geometry plus a margin).  Bodies and joints are
drawn as :mod:`.geometry` describes; the time labels are placed so that no two
overlap (:func:`place_labels`).
"""

# an argument made an array (``q = np.asarray(q, float)``) is typed as the array from there on:
# mypy: allow-redefinition-new, local-partial-types

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from ..errors import ConfigurationError
from .geometry import (DIRECTOR_COLORS, as_configurations, auto_spacing, best_plane, body_color, body_geometry,
                       box_edges, by_points, drawn_names, grid_shifts, joint_geometry, motion_plane, plane_normal,
                       points_of, skeleton)
from .canvas import new_figure, styled

if TYPE_CHECKING:
    import numpy.typing as npt
    from matplotlib.collections import PathCollection
    from matplotlib.text import Text
    from mpl_toolkits.mplot3d import Axes3D

    from ..mechanics.protocol import ConstrainedSystem
    from .geometry import Plane

__all__ = ["plot_snapshots", "place_labels", "PlaneAxes", "set_equal_limits", "plane_view", "draw_configuration"]

def set_equal_limits(ax: Axes3D, points: np.ndarray, margin: float = 0.06, floor: float = 0.2) -> np.ndarray:
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


def plane_view(ax: Axes3D, skeleton: npt.ArrayLike) -> int | None:
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


def _parts(system, qk, box=True, shift=np.zeros(3), directors=True):
    """What one configuration draws, in space: ``(segments, colours, widths, dots, joint points)``
    (dots: ``(φ, colour)``; joint points: the parent's and child's point of every joint)."""
    segments, colors, widths, dots, joints = [], [], [], [], []
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
        joints.append((sp, sc))
    return segments, colors, widths, dots, joints


def draw_configuration(ax: Any, system: ConstrainedSystem, qk: npt.ArrayLike, alpha: float = 1.0, box: bool = True,
                       shift: np.ndarray = np.zeros(3), directors: bool = True, plane: Plane | None = None) -> int:
    """Draw one configuration (moved by ``shift``; the director triads with ``directors``);
    return the number of line segments drawn.

    On a 3-D axes the parts are drawn in space; with ``plane`` (a
    :class:`~.geometry.Plane`, on a 2-D axes) their projections onto the plane
    (an edge along the plane's normal becomes a point)."""
    segments, colors, widths, dots, joints = _parts(system, qk, box, shift, directors)
    if plane is None:
        from mpl_toolkits.mplot3d.art3d import Line3DCollection

        for sp, sc in joints:
            ax.scatter(*np.array([sp, sc]).T, marker="o", s=28, facecolors="white", edgecolors="k",
                       alpha=alpha, depthshade=False)
        if segments:
            ax.add_collection3d(Line3DCollection(np.array(segments), colors=colors, linewidths=widths,
                                                 alpha=alpha))
        if dots:
            ax.scatter(*np.array([p for p, _ in dots]).T, c=[c for _, c in dots], s=18, alpha=alpha,
                       depthshade=False)
        return len(segments)
    from matplotlib.collections import LineCollection

    if segments:
        flat = plane.coordinates(np.array(segments).reshape(-1, 3)).reshape(-1, 2, 2)
        ax.add_collection(LineCollection(flat, colors=colors, linewidths=widths, alpha=alpha, zorder=2))  # type: ignore[arg-type]  # an array (K, 2, 2) of segments
    if dots:
        xy = plane.coordinates([p for p, _ in dots])
        ax.scatter(*xy.T, c=[c for _, c in dots], s=18, alpha=alpha, zorder=3)
    if joints:
        xy = plane.coordinates([p for pair in joints for p in pair])
        ax.scatter(*xy.T, marker="o", s=28, facecolors="white", edgecolors="k", alpha=alpha, zorder=4)
    return len(segments)


#: above everything drawn (a 3-D axes orders its collections by depth, from the axes' own zorder up)
_LABEL_ZORDER = 10_000
#: offsets of a label from its pose [points], tried in this order: nearest first
_RINGS = (12, 24, 38, 54, 72, 95)
_TURNS = (0, 20, -20, 40, -40, 60, -60, 80, -80, 100, -100, 120, -120, 140, -140, 160, -160, 180)


def _leader(ax, label, anchor, renderer):
    """A thin line from the labelled point (display ``anchor``) to the edge of ``label``'s box,
    fixed to the point in data and to the label in points (so it follows both), or None when
    the point lies under the label."""
    from matplotlib.transforms import Affine2D, ScaledTranslation

    box = label.get_window_extent(renderer)
    centre = np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2])
    d = np.asarray(anchor, float) - centre
    with np.errstate(divide="ignore"):
        s = min(box.width / 2 / abs(d[0]) if d[0] else np.inf, box.height / 2 / abs(d[1]) if d[1] else np.inf)
    if s >= 1:
        return None
    end = (centre + s * d - anchor) * 72 / ax.figure.dpi  # points from the anchor
    transform = (Affine2D().scale(1 / 72) + ax.figure.dpi_scale_trans
                 + ScaledTranslation(*label.xy, ax.transData))
    line = Line2D([0, end[0]], [0, end[1]], transform=transform, color="0.45", lw=0.6, zorder=_LABEL_ZORDER - 1)
    line.set_clip_on(False)
    ax.add_artist(line)
    return line


def _tips(system, qk):
    """The ends ``φ ± a_i d_i`` of each elongated body (a link: its longest half-edge at least 1.5
    times the next), where a label reads as the link's."""
    tips = []
    for _, phi, D, a in body_geometry(system, qk):
        if D is None:
            continue
        order = np.argsort(a)[::-1]
        if a[order[0]] >= 1.5 * a[order[1]]:
            tips += [phi + a[order[0]] * D[order[0]], phi - a[order[0]] * D[order[0]]]
    return np.array(tips).reshape(-1, 3)


def _anchors(ax, system, q, nodes, shifts, plane):
    """Per snapshot the centre of mass, joint point or link tip (:func:`_tips`) that sets its pose
    apart: the one farthest from every other snapshot's (the tip of an arm, the end of a swing; ties: the farthest from the centre
    of all snapshots), in space, and in the axes' data coordinates (projected on a 3-D axes);
    and every drawn point in those coordinates."""
    poses = [np.vstack([skeleton(system, q[k][None, :]), _tips(system, q[k])]) + shift
             for k, shift in zip(nodes, shifts)]
    everything = np.vstack(poses)
    centre = everything.mean(axis=0)
    size = max(np.ptp(everything, axis=0).max(), 1e-12)
    far = []
    for i, pose in enumerate(poses):
        others = [p for j, p in enumerate(poses) if j != i]
        apart = (np.min([np.linalg.norm(pose[:, None] - p[None], axis=2).min(axis=1) for p in others], axis=0)
                 if others else np.zeros(len(pose)))
        score = np.round(apart / size, 3) + 1e-3 * np.linalg.norm(pose - centre, axis=1) / size
        far.append(pose[np.argmax(score)])
    far = np.array(far)
    everything = points_of(system, q[nodes], shifts)  # what a label should not cover
    if plane is not None:
        return far, plane.coordinates(far), plane.coordinates(everything)
    from mpl_toolkits.mplot3d import proj3d

    def flat(points):
        x, y, _ = proj3d.proj_transform(*np.asarray(points).T, ax.get_proj())
        return np.column_stack([x, y])

    return far, flat(far), flat(everything)


def _relayout(ax, bottom=0.0):
    """Lay out a figure of :func:`plot_snapshots`' own: room for the legend at the right (and
    ``bottom``, a fraction of the height, for a caption), then the labels placed anew."""
    fig = ax.figure
    legend = ax.get_legend()
    right = 1.0
    if legend is not None:
        width = legend.get_window_extent(_renderer(fig)).width / fig.dpi
        right = 1.0 - (width + 0.15) / fig.get_figwidth()
    for _ in range(2):  # twice: the tick labels as drawn in the first layout (an equal-aspect box moves them)
        fig.canvas.draw()
        fig.tight_layout(rect=(0, bottom, right, 1))
    place_labels(ax)


def _fit_figure(ax, limits):
    """Size a new 2-D figure to the drawing's aspect, so that the plane fills the axes."""
    fig = ax.figure
    legend = ax.get_legend()
    width = 9.0
    legend_width = legend.get_window_extent(_renderer(fig)).width / fig.dpi if legend else 0.0
    available = width - legend_width - 1.2
    aspect = np.diff(limits[1]).item() / max(np.diff(limits[0]).item(), 1e-12)
    height = float(np.clip(available * aspect, 2.6, 7.0))
    if height / aspect < available:  # a tall drawing: a narrower figure
        width = max(6.0, width - (available - height / aspect))
    fig.set_size_inches(width, height + 1.5)


def _renderer(fig):
    """A renderer for measuring text: the canvas's (Agg), or one made for a figure without
    (``Figure()`` of the user's own)."""
    get = getattr(fig.canvas, "get_renderer", None)
    return get() if get is not None else fig._get_renderer()


def place_labels(ax: Axes) -> list[tuple[str, np.ndarray]]:
    """(Re)place the snapshot labels of ``ax`` (drawn by :func:`plot_snapshots`) for the figure's
    current layout, so that no two overlap; returns the labels kept.

    Each label sits a few points from its pose's outermost point (joined to it by a thin
    leader line), in the first free spot found on rings of growing radius, starting
    outwards from the centre of the motion and turning both ways; a spot must keep the
    label inside the axes and clear of the other labels (and, if possible, of the drawn
    points).  The first and the last snapshot are placed first; a label with no free spot
    is left out (``ax.snapshot_labels`` lists those drawn).  Call it again after changing
    the figure's layout (``tight_layout``, a caption): :mod:`pyomo_mbdyn.figures` does.
    """
    request = getattr(ax, "_snapshot_label_request", None)
    if request is None:
        return []
    texts, far, anchors, drawn = request
    for artist in getattr(ax, "_snapshot_label_artists", []) + getattr(ax, "_snapshot_leaders", []):
        artist.remove()
    fig = ax.figure
    renderer = _renderer(fig)
    ax.apply_aspect()  # where the axes will be drawn (an equal-aspect box shrinks)
    to_display = ax.transData.transform
    shown = to_display(anchors)
    points = to_display(drawn)
    centre = points.mean(axis=0)
    frame = ax.get_window_extent(renderer)
    pad = 3.0 * fig.dpi / 72  # points between two labels
    order = [0, len(texts) - 1] + list(range(1, len(texts) - 1)) if len(texts) > 1 else [0]
    boxes: list[Any]
    placed, boxes = {}, []
    for i in dict.fromkeys(order):
        away = shown[i] - centre
        heading = np.degrees(np.arctan2(away[1], away[0])) if np.linalg.norm(away) > 1e-9 else 90.0
        best = None
        for radius in _RINGS:
            for turn in _TURNS:
                angle = np.radians(heading + turn)
                offset = radius * np.array([np.cos(angle), np.sin(angle)])
                # (xytext: a pair, as an array)
                label = ax.annotate(texts[i], xy=anchors[i], xytext=offset, textcoords="offset points",  # type: ignore[arg-type]
                                    ha="center", va="center", fontsize="small", color="0.15",
                                    bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85),
                                    annotation_clip=False, zorder=_LABEL_ZORDER)
                box = label.get_window_extent(renderer)
                inside = (box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y0 >= frame.y0 and box.y1 <= frame.y1)
                free = inside and not any(box.x0 < b.x1 + pad and b.x0 < box.x1 + pad and
                                          box.y0 < b.y1 + pad and b.y0 < box.y1 + pad for b in boxes)
                if free:
                    covered = int(np.sum((points[:, 0] > box.x0) & (points[:, 0] < box.x1) &
                                         (points[:, 1] > box.y0) & (points[:, 1] < box.y1)))
                    if best is None or covered < best[0]:
                        if best is not None:
                            best[1].remove()
                        best = (covered, label, box)
                        if covered == 0:
                            break
                        continue
                label.remove()
            if best is not None and best[0] == 0:
                break
        if best is not None:
            placed[i] = best[1]
            boxes.append(best[2])
    # the labels are kept on the axes (attributes of this module's own)
    ax._snapshot_label_artists = [placed[i] for i in sorted(placed)]  # type: ignore[attr-defined]
    ax._snapshot_leaders = [leader for i in sorted(placed)  # type: ignore[attr-defined]
                            if (leader := _leader(ax, placed[i], shown[i], renderer)) is not None]
    ax.snapshot_labels = [(texts[i], far[i]) for i in sorted(placed)]  # type: ignore[attr-defined]
    return ax.snapshot_labels  # type: ignore[attr-defined]


#: what each director is, for the legend
DIRECTOR_NAMES = ("d₁: body axis 1 (director)", "d₂: body axis 2 (director)", "d₃: body axis 3 (director)")


def _legend(ax, system, box=True, outside=False, directors=(0, 1, 2)):
    """Bodies by colour; the directors drawn (indices ``directors``); joints."""
    handles = [Line2D([], [], color=body_color(b), marker="o", lw=1 if box else 0,
                      label=name)
               for b, name in enumerate(drawn_names(system))]
    handles += [Line2D([], [], color=DIRECTOR_COLORS[i], lw=2, label=DIRECTOR_NAMES[i]) for i in directors]
    if joint_geometry(system, system.q0):  # a drawing's segments are not joints (the crane's rope)
        label = "segment between drawn points" if by_points(system) else "joint (○ its point on each body)"
        handles.append(Line2D([], [], color="k", marker="o", markerfacecolor="white", lw=0 if not by_points(system)
                              else 1.5, label=label))
    if outside:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
        ax.get_legend().set_in_layout(False)  # its room is kept by _relayout
    else:
        ax.legend(handles=handles, loc="upper left", fontsize="small")


def _shown_directors(system, q, nodes, directors, plane):
    """The directors (0, 1, 2) drawn visibly on some snapshot with a triad: longer than 1 % of
    the figure's size once projected (a rod's d₂, d₃ or a director along the plane's normal
    are not)."""
    if directors == "none":
        return ()
    with_triad = nodes if directors == "all" else nodes[-1:]
    size = max(np.ptp(points_of(system, q[nodes]), axis=0).max(), 1e-12)
    seen = set()
    for k in with_triad:
        for _, _, D, a in body_geometry(system, q[k]):
            if D is None:
                continue
            for i in range(3):
                arm = a[i] * D[i]
                if plane is not None:
                    arm = arm - (arm @ plane.normal) * plane.normal
                if np.linalg.norm(arm) > 0.01 * size:
                    seen.add(i)
    return tuple(sorted(seen))


class PlaneAxes(Axes):
    """The 2-D axes :func:`plot_snapshots` draws a planar motion on, which also takes the
    calls written for its 3-D snapshots: ``plot(xs, ys, zs, …)``, ``scatter(xs, ys, zs, …)``
    and ``text(x, y, z, s, …)`` with points in space draw their projections onto the
    motion's plane (``ax.snapshot_plane``), and ``view_init`` does nothing (the plane is
    seen square-on).  Code that adds a target or an obstacle to the 3-D snapshots runs on.

    Examples
    --------
    >>> import numpy as np
    >>> from pyomo_mbdyn.plotting.canvas import new_figure
    >>> from pyomo_mbdyn.plotting.geometry import Plane
    >>> ax = new_figure().add_subplot(axes_class=PlaneAxes)
    >>> ax.snapshot_plane = Plane((0, 1, 0), 0.0)         # the x–z plane
    >>> ax.view_init(elev=90, azim=-90) is None, ax.name
    (True, 'rectilinear')
    >>> ax.plot([0, 1], [0, 0], [2, 3])[0].get_xydata().tolist()  # (x, y, z) drawn at (x, z)
    [[0.0, 2.0], [1.0, 3.0]]
    """

    snapshot_plane = None

    def view_init(self, *args: Any, **kwds: Any) -> None:
        """Nothing to do: a plane drawn in 2-D is seen square-on."""
        return None

    def _flat(self, xs, ys, zs):
        points = np.column_stack(np.broadcast_arrays(*(np.atleast_1d(np.asarray(c, float)) for c in (xs, ys, zs))))
        plane = self.snapshot_plane
        return points[:, :2] if plane is None else plane.coordinates(points)

    def plot(self, *args: Any, **kwds: Any) -> list[Line2D]:
        """``plot(xs, ys, zs, [fmt], …)``: points in space, projected; else a 2-D ``plot``."""
        if len(args) >= 3 and not isinstance(args[2], str):
            xy = self._flat(*args[:3])
            return super().plot(xy[:, 0], xy[:, 1], *args[3:], **kwds)
        return super().plot(*args, **kwds)

    # scatter and text take Axes3D's arguments (x, y, z, …) on 2-D axes: the stand-in's override
    def scatter(self, xs: npt.ArrayLike, ys: npt.ArrayLike, zs: npt.ArrayLike | None = None,  # type: ignore[override]
                *args: Any, **kwds: Any) -> PathCollection:
        """``scatter(xs, ys, zs, …)``: points in space, projected (a 4th positional argument,
        3-D's ``zdir``, is ignored); with ``zs`` None a 2-D ``scatter``."""
        if zs is None:
            return super().scatter(xs, ys, *args, **kwds)
        kwds.pop("zdir", None)
        kwds.pop("depthshade", None)
        xy = self._flat(xs, ys, zs)
        return super().scatter(xy[:, 0], xy[:, 1], **kwds)

    def text(self, x: float, y: float, z: float | str, s: str | None = None, *args: Any,  # type: ignore[override]
             **kwds: Any) -> Text:
        """``text(x, y, z, s, …)`` at a point in space, projected; ``text(x, y, s)`` in 2-D."""
        if s is None or isinstance(z, str):
            return super().text(x, y, z, *((s,) if s is not None else ()), *args, **kwds)  # type: ignore[arg-type]  # z: the text
        kwds.pop("zdir", None)
        (xy,) = self._flat(x, y, z)
        return super().text(xy[0], xy[1], s, *args, **kwds)


def _axes(ax, view, plane, figsize):
    """The axes to draw on: a new 2-D (with a plane) or 3-D one, or ``ax`` checked."""
    if ax is None:
        fig = new_figure(figsize=figsize)
        return fig.add_subplot(axes_class=PlaneAxes) if plane is not None else fig.add_subplot(projection="3d")
    if plane is None and getattr(ax, "name", None) != "3d":
        raise ConfigurationError(f"ax must be a 3-D axes (projection='3d') for a motion that is not planar "
                                 f"(or pass view='2d' to project it), got {type(ax).__name__}")
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
def plot_snapshots(system: ConstrainedSystem, q: npt.ArrayLike, times: Sequence[float] | None = None,
                   ax: Axes | None = None, *, t: npt.ArrayLike | None = None, count: int = 6, box: bool = True,
                   offset: npt.ArrayLike | str | None = None, directors: str = "last", labels: bool = True,
                   view: str = "auto") -> Axes:
    """Draw configurations of ``system`` at chosen nodes in one axes: 2-D for a planar motion, else 3-D.

    Bodies, joints and directors are drawn as described in the module
    docstring; later snapshots are more opaque, and each is labelled with its
    time (``t = 0.4 s``, or its node ``k = 4`` without ``t``) a few points from
    its outermost point, no two labels overlapping (:func:`place_labels`).  A
    motion that stays in one plane (:func:`~.geometry.motion_plane`: every
    drawn point keeps its distance to the plane of the centres and joint
    points — decided from ``q``, for any system) is drawn in that plane on 2-D
    axes, the axes labelled with the world axes (``x [m]``, ``y [m]``), the
    plane named in the title; any other motion on 3-D axes.  The axes have
    equal scales and limits from everything drawn plus a margin
    (``ax.drawn_limits``: (2, 2) in the plane, (3, 2) in space).

    Parameters
    ----------
    system : MultibodySystem, or a CoordinateSystem with a ``drawing``
    q : (N+1, n) or (n,) array
        Node configurations in the system's coordinate layout.
    times : sequence, optional
        Node indices k to draw, or with ``t`` given times (each drawn at the
        nearest node).  Default: ``count`` nodes evenly spaced from 0 to N.
    ax : axes, optional
        A 3-D axes (``projection='3d'``: the motion drawn in space, a planar
        one seen square-on) or a 2-D one (for a planar motion, or with
        ``view='2d'``).  Default: a new figure (``ax.figure``) with the axes
        ``view`` asks for.
    t : (N+1,) array, optional
        Node times [s], to pick snapshots by time.
    box : bool
        Draw the equivalent boxes (else only the director triads).
    offset : 3 numbers or "auto", optional
        Draw the i-th snapshot moved by ``i * offset`` [m] (a film strip, for
        motions that stay in place); ``"auto"``, when the system is not
        jointed to the ground and its centres of mass move less than half of
        its size, lays the snapshots out in reading order on a grid (left to
        right, rows downwards: along x and z, or in a planar motion's plane)
        1.25 times the system's size apart.  The title then states the shift.
        Default: no shift.
    directors : "last", "all" or "none"
        Which snapshots show their director triads (d₁, d₂, d₃: the body's
        axes); by default the last only — the boxes show every pose's
        orientation, and triads on every pose clutter the figure.  The legend
        lists the directors that are visible (not a rod's d₂, d₃, nor one
        along a planar motion's normal).
    labels : bool
        Label each snapshot with its time or node (``ax.snapshot_labels``:
        ``[(text, the pose's point it labels)]``, the labels drawn).
    view : "auto", "2d" or "3d"
        ``"auto"``: 2-D for a planar motion, else 3-D (or the kind of ``ax``
        given); ``"3d"`` always in space; ``"2d"`` always in a plane — a
        motion that is not planar is projected onto the plane normal to its
        least principal direction, and the title says "projected".

    Returns
    -------
    The axes drawn on; ``ax.snapshot_nodes`` lists the nodes drawn,
    ``ax.snapshot_plane`` the :class:`~.geometry.Plane` drawn in (None in 3-D).

    Examples
    --------
    A two-link arm turning about z moves in the plane z = 0: it is drawn on 2-D axes.

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody
    >>> upper = RigidBody("upper", 1.0, (1e-9, 1 / 12, 1 / 12), position=(0.5, 0, 0))
    >>> fore = RigidBody("fore", 1.0, (1e-9, 1 / 12, 1 / 12), position=(1.5, 0, 0))
    >>> arm = MultibodySystem("arm")
    >>> arm.add_bodies(upper, fore)
    >>> arm.add_joints(Revolute("shoulder", None, upper, location=(0, 0, 0), axis=(0, 0, 1)),
    ...                Revolute("elbow", upper, fore, location=(1, 0, 0), axis=(0, 0, 1)))
    >>> ax = plot_snapshots(arm, arm.q0)
    >>> ax.name, ax.get_xlabel(), ax.get_ylabel(), ax.snapshot_plane.name
    ('rectilinear', 'x [m]', 'y [m]', 'the x–y plane (z = 0 m)')
    >>> plot_snapshots(arm, arm.q0, view="3d").name
    '3d'
    """
    q = as_configurations(system, q)
    N = q.shape[0] - 1
    nodes = _select_nodes(times, N, t, count)
    if directors not in ("last", "all", "none"):
        raise ConfigurationError(f"directors must be 'last', 'all' or 'none', got {directors!r}")
    if view not in ("auto", "2d", "3d"):
        raise ConfigurationError(f"view must be 'auto', '2d' or '3d', got {view!r}")
    if view == "auto" and ax is not None:
        view = "3d" if getattr(ax, "name", None) == "3d" else "2d"
    plane = None
    if view != "3d":
        plane = motion_plane(system, q)
        if plane is None and view == "2d":
            plane = best_plane(system, q)
    if ax is not None and plane is not None and getattr(ax, "name", None) == "3d":
        raise ConfigurationError("view='2d' draws on 2-D axes; ax is a 3-D axes (projection='3d')")
    if offset is None:
        shifts, moved = [np.zeros(3)] * len(nodes), ""
    elif isinstance(offset, str) and offset == "auto":
        spacing = auto_spacing(system, q[nodes])
        shifts = grid_shifts(len(nodes), spacing, *(() if plane is None else (plane.right, -plane.up)))
        moved = f"snapshots in reading order, {spacing:.3g} m apart" if spacing else ""
    else:
        offset = np.asarray(offset, dtype=float)
        if offset.shape != (3,) or not np.all(np.isfinite(offset)):
            raise ConfigurationError(f"offset must be 3 finite numbers or 'auto', got {offset!r}")
        shifts = [i * offset for i in range(len(nodes))]
        moved = ("snapshot i drawn moved by i·(" + ", ".join(f"{x:.3g}" for x in offset) + ") m"
                 if np.any(offset) else "")
    own = ax is None
    ax = _axes(ax, view, plane, figsize=(8, 6.5))
    for i, k in enumerate(nodes):
        alpha = 0.25 + 0.75 * (i + 1) / len(nodes)
        triads = directors == "all" or (directors == "last" and i == len(nodes) - 1)
        draw_configuration(ax, system, q[k], alpha=alpha, box=box, shift=shifts[i], directors=triads, plane=plane)
    points = points_of(system, q[nodes], shifts)
    if plane is None:
        ax.drawn_limits = set_equal_limits(ax, points, margin=0.1)
        if plane_view(ax, skeleton(system, q[nodes])) is None and moved:
            ax.view_init(elev=15, azim=-75)  # nearly square-on to the grid of snapshots
    else:
        ax.drawn_limits = _equal_limits_2d(ax, plane.coordinates(points), plane)
    _legend(ax, system, box, outside=own, directors=_shown_directors(system, q, nodes, directors, plane))
    title = (f"{system.name}: nodes k = " + ", ".join(str(k) for k in nodes) if t is None else
             f"{system.name}: t = " + ", ".join(f"{np.asarray(t, float)[k]:.3g}" for k in nodes) + " s")
    if plane is not None:
        title += ("\n(projected onto " if plane.projected else "\n(motion in ") + plane.name + ")"
    if moved:
        title += f"\n({moved})"
    ax.set_title(title)
    ax.snapshot_nodes = list(nodes)
    ax.snapshot_plane = plane
    ax.snapshot_labels = []
    if own and plane is not None:
        _fit_figure(ax, ax.drawn_limits)
    if labels and len(nodes) > 1:
        times_of = None if t is None else np.asarray(t, float)
        texts = [f"k = {k}" if times_of is None else f"t = {times_of[k]:.3g} s" for k in nodes]
        ax._snapshot_label_request = (texts, *_anchors(ax, system, q, nodes, shifts, plane))
    if own:
        _relayout(ax)
    else:
        place_labels(ax)
    return ax


def _equal_limits_2d(ax, xy, plane, margin=0.1):
    """Limits around the in-plane points ``xy`` with a margin (room for the labels), equal
    aspect, axis labels naming the world axes.  Returns the (2, 2) limits."""
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    size = (hi - lo).max() if (hi - lo).max() > 0 else 1.0
    limits = np.column_stack([lo - margin * size, hi + margin * size])
    ax.set_xlim(*limits[0])
    ax.set_ylim(*limits[1])
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel(plane.labels[0])
    ax.set_ylabel(plane.labels[1])
    return limits
