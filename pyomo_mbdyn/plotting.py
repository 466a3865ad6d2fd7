"""Figures of solved models: snapshots, controls, conservation, costates, animation.

Everything here reads arrays (or a solved model) and draws with matplotlib's
object API (:class:`matplotlib.figure.Figure`, never ``pyplot``), so it runs
under any backend, in a notebook or headless, and leaves no global figure
state behind.  Each function returns what it drew on (an axes or a figure); the
standard figures of a named model are written by :mod:`pyomo_mbdyn.figures`.
Every function draws inside :func:`style` (font sizes, grid, line widths,
colour cycle), and every axis carries its unit in brackets: m, rad, s, N, N m,
J, N s, N m s (``[1]`` for a dimensionless quantity).

What is drawn
-------------
* A rigid body is its *equivalent box*: the homogeneous box with the body's
  mass and Euler tensor (half-edges ``a_i = √(3 E_i / m)`` along the directors
  ``d_i``, centred at φ), with the director triad ``φ → φ + a_i d_i`` in red,
  green and blue for d₁, d₂, d₃.  A thin rod is a line, a disc a flat box.
* A point mass is a dot at φ.
* A joint is a marker at its joint point on the parent and on the child (they
  coincide while the constraint holds), a line between the two, and thin
  lines from each body's centre of mass to its joint point.
* The 3-D axes have equal scales (limits from the drawn geometry plus a
  margin); a motion in a coordinate plane is seen square-on.

Conservation
------------
The energy terms T, V, W, D, E and the momenta L, p come from
:mod:`pyomo_mbdyn.diagnostics` (``dyn.diagnostics()``); nothing here
recomputes them.  :func:`momentum_balance` adds what changes a momentum: for a
rotation about a coordinate axis through the origin (or a translation along
it) that the joints to the ground allow (``G(q) ξ(q) = 0``, ξ the motion's
velocity field on the coordinates), the impulse of gravity ``-h ∇V·ξ`` and of
the controls and joint friction ``-h (u + Kν)·B ξ`` (the pairing of the power
``u·ν`` with the motion's joint rates ``B ξ`` instead of ν), evaluated where the
scheme applies its loads.  The balance ``J_k − J_0 − impulse`` is then flat to
solver tolerance for a momentum-consistent scheme (DMOCC paper Prop. 4.1,
Fig. 7.6; thesis §2.3).
"""

import functools
import numbers
from pathlib import Path

import numpy as np
from cycler import cycler
from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from .atomic import atomic_path, probe_directory
from .errors import ConfigurationError, DestinationError
from .html_view import animate_html  # the interactive HTML view (plotly); it imports this module lazily
from .balance import _scheme_record, energy_statement, momentum_balance
from .trajectory import check_destination, unit

__all__ = ["plot_snapshots", "plot_coordinates", "plot_controls", "plot_conservation", "plot_costates",
           "plot_discrete_hamiltonian", "style", "STYLE",
           "animate", "animate_html", "body_geometry", "joint_geometry", "output_directory"]

DIRECTOR_COLORS = ("tab:red", "tab:green", "tab:blue")  # d₁, d₂, d₃

#: the colour cycle of every figure (Okabe & Ito's colour-blind-safe palette, yellow last)
COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")

#: the rcParams every plotting function draws with (:func:`style`)
STYLE = {
    "font.size": 10,
    "axes.titlesize": 10.5,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 8.5,
    "legend.framealpha": 0.85,
    "figure.titlesize": 11,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "lines.linewidth": 1.5,
    "lines.markersize": 4,
    "axes.prop_cycle": cycler(color=COLORS),
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "axes.formatter.limits": (-3, 4),
    "axes.formatter.use_mathtext": True,
}

#: energy terms of the conservation table and what each one is
ENERGY_TERMS = {
    "T": "T  kinetic energy",
    "V": "V  potential energy (gravity)",
    "W": "W  = −(work done by the controls)",
    "D": "D  energy dissipated by joint friction/damping",
}
_MOMENTA = ("Lx", "Ly", "Lz", "px", "py", "pz")
_MOMENTUM_UNIT = {"L": "N m s", "p": "N s"}


def style(**overrides):
    """The library's figure style as a context manager (``matplotlib.rc_context``).

    Every plotting function draws inside it; use it for figures of your own::

        with plotting.style():
            fig = Figure(); ax = fig.add_subplot(); ...

    ``overrides`` are rcParams that replace those of :data:`STYLE` (dots as
    underscores are not translated: pass ``**{"font.size": 12}``).
    """
    return rc_context({**STYLE, **overrides})


def _styled(function):
    @functools.wraps(function)
    def draw(*args, **kwds):
        with style():
            return function(*args, **kwds)

    return draw


def _color(i):
    """The i-th colour of the cycle, resolved now (a "C0" string would be resolved when the figure is saved,
    outside the style)."""
    return COLORS[i % len(COLORS)]


def _body_color(b):
    """Body b's colour, as in the HTML view (no red, green or blue: those are the directors')."""
    from .html_view import BODY_COLORS

    return BODY_COLORS[b % len(BODY_COLORS)]


def _new_figure(**kwds):
    fig = Figure(**kwds)
    FigureCanvasAgg(fig)
    return fig


def _bracket(unit_text):
    """``[unit]``; ``[1]`` for a dimensionless quantity, ``[unit not known]`` when the name does not tell."""
    return f"[{unit_text}]" if unit_text else "[unit not known]"


def _units_of(names, quantity, units):
    """One unit per column: ``units`` (a string for all, or a sequence), else from the names
    (the library's column names ``owner.part``; another name tells nothing: "wrist" is no ``wx``)."""
    if units is None:
        return [unit(name, quantity) if "." in name else "" for name in names]
    if isinstance(units, str):
        return [units] * len(names)
    units = [str(u) for u in units]
    if len(units) != len(names):
        raise ConfigurationError(f"units has {len(units)} entries for {len(names)} columns")
    return units


def _groups(units):
    """``{unit: [column, …]}`` in the order of first appearance."""
    groups = {}
    for j, u in enumerate(units):
        groups.setdefault(u, []).append(j)
    return groups


# -- geometry (floats only) -----------------------------------------------------
def _configurations(system, q):
    """``q`` as an (K, n) float array of configurations of ``system``."""
    from .mechanics import MultibodySystem

    if not isinstance(system, MultibodySystem):
        raise TypeError(f"expected a MultibodySystem, got {type(system).__name__}")
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
    from .mechanics.joints import GROUND

    out = []
    for name, joint in system.joints.items():
        qp = np.asarray(system.body_coordinates(qk, joint.parent), float)
        qc = np.asarray(system.body_coordinates(qk, joint.child), float)
        sp = np.asarray(joint.parent.point(qp, joint.parent_point), float)
        sc = np.asarray(joint.child.point(qc, joint.child_point), float)
        out.append((name, sp, sc, None if joint.parent is GROUND else qp[0:3], qc[0:3]))
    return out


def _box_corners(phi, D, a):
    """The 8 corners ``φ + Σ s_i a_i d_i`` (s_i = ±1) by sign tuple."""
    return {s: phi + (np.array(s) * a) @ D for s in
            (tuple(2 * np.array(i) - 1) for i in np.ndindex(2, 2, 2))}


def _box_edges(phi, D, a):
    """The 12 edges of the box: pairs of corners that differ in one sign."""
    corners = _box_corners(phi, D, a)
    edges = []
    for s, c in corners.items():
        for i in range(3):
            if s[i] < 0:
                other = list(s)
                other[i] = 1
                edges.append((c, corners[tuple(other)]))
    return edges


def _points_of(system, q, shifts=None):
    """Every point drawn for the configurations ``q`` (for the axes limits)."""
    pts = []
    for i, qk in enumerate(q):
        shift = 0.0 if shifts is None else shifts[i]
        for _, phi, D, a in body_geometry(system, qk):
            pts.append(phi + shift)
            if D is not None:
                pts.extend(c + shift for c in _box_corners(phi, D, a).values())
        for _, sp, sc, _, _ in joint_geometry(system, qk):
            pts.extend((sp + shift, sc + shift))
    return np.array(pts)


def _skeleton(system, q):
    """Centres of mass and joint points of the configurations ``q`` (not the boxes)."""
    pts = [phi for qk in q for _, phi, _, _ in body_geometry(system, qk)]
    pts += [p for qk in q for _, sp, sc, _, _ in joint_geometry(system, qk) for p in (sp, sc)]
    return np.array(pts)


def _anchored(system):
    from .mechanics.joints import GROUND

    return any(joint.parent is GROUND for joint in system.joints.values())


def _auto_spacing(system, q):
    """The spacing of a grid of snapshots when a free system's motion stays in
    place (a spinning satellite), so that the snapshots do not overlap: 1.25
    times the system's size; else 0.  A system jointed to the ground is drawn
    in place (stroboscopic)."""
    if _anchored(system):
        return 0.0
    extents = [np.ptp(_points_of(system, qk[None, :]), axis=0).max() for qk in q]
    centres = np.array([np.mean([phi for _, phi, _, _ in body_geometry(system, qk)], axis=0) for qk in q])
    extent = max(extents)
    if extent > 0 and np.ptp(centres, axis=0).max() < 0.5 * extent:
        return 1.25 * extent
    return 0.0


def _grid_shifts(count, spacing):
    """Shifts of ``count`` snapshots in reading order on a grid of about √count columns:
    left to right along x, rows downwards along z (a 3-D axes is square: a long strip would be tiny)."""
    columns = int(np.ceil(np.sqrt(count)))
    return [spacing * np.array([i % columns, 0.0, -(i // columns)]) for i in range(count)]


def _set_equal_limits(ax, points, margin=0.06, floor=0.2):
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


def _plane_view(ax, skeleton):
    """Look square-on at a motion that stays in a coordinate plane: returns the plane's normal axis or None."""
    span = np.ptp(skeleton, axis=0)
    if span.max() == 0:
        return None
    flat = [i for i in range(3) if span[i] <= 1e-9 * span.max()]
    if len(flat) != 1:
        return None
    # view from +z (x right, y up), from -y (x right, z up), from +x (y right, z up)
    ax.view_init(*{2: (90, -90), 1: (0, -90), 0: (0, 0)}[flat[0]])
    normal = (ax.xaxis, ax.yaxis, ax.zaxis)[flat[0]]
    normal.set_ticks([])  # seen edge-on: no ticks, no label
    normal.set_label_text("")
    return flat[0]


def _draw_configuration(ax, system, qk, alpha=1.0, box=True, shift=np.zeros(3)):
    """Draw one configuration (moved by ``shift``); return the number of line segments drawn."""
    from mpl_toolkits.mplot3d.art3d import Line3DCollection

    segments, colors, widths = [], [], []
    dots = []
    for b, (_, phi, D, a) in enumerate(body_geometry(system, qk)):
        phi = phi + shift
        color = _body_color(b)
        if D is None:
            dots.append((phi, color))
            continue
        if box:
            for edge in _box_edges(phi, D, a):
                segments.append(edge)
                colors.append(color)
                widths.append(1.0)
        for i in range(3):
            segments.append((phi, phi + a[i] * D[i]))
            colors.append(DIRECTOR_COLORS[i])
            widths.append(2.0)
        dots.append((phi, color))
    for _, sp, sc, cp, cc in joint_geometry(system, qk):
        sp, sc = sp + shift, sc + shift
        cp, cc = (None if cp is None else cp + shift), cc + shift
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


def _legend(ax, system, box=True, outside=False):
    handles = [Line2D([], [], color=_body_color(b), marker="o", lw=1 if box else 0, label=name)
               for b, name in enumerate(system.bodies)]
    if any(b.has_orientation for b in system.bodies.values()):
        handles += [Line2D([], [], color=c, lw=2, label=f"d{i + 1}") for i, c in enumerate(DIRECTOR_COLORS)]
    if system.joints:
        handles.append(Line2D([], [], color="k", marker="o", markerfacecolor="white", lw=0, label="joint"))
    if outside:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), borderaxespad=0.0)
    else:
        ax.legend(handles=handles, loc="upper left", fontsize="small")


def _axes3d(ax, figsize=(7.5, 6)):
    if ax is None:
        fig = _new_figure(figsize=figsize)
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


@_styled
def plot_snapshots(system, q, times=None, ax=None, *, t=None, count=6, box=True, offset=None):
    """Draw configurations of ``system`` at chosen nodes in one 3-D axes.

    Bodies, joints and directors are drawn as described in the module
    docstring; later snapshots are more opaque.  The axes have equal scales
    and limits from everything drawn plus a margin (``ax.drawn_limits``); a
    motion in a coordinate plane is seen square-on.

    Parameters
    ----------
    system : MultibodySystem
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

    Returns
    -------
    The 3-D axes drawn on; ``ax.snapshot_nodes`` lists the nodes drawn.
    """
    q = _configurations(system, q)
    N = q.shape[0] - 1
    nodes = _select_nodes(times, N, t, count)
    if offset is None:
        shifts, moved = [np.zeros(3)] * len(nodes), ""
    elif isinstance(offset, str) and offset == "auto":
        spacing = _auto_spacing(system, q[nodes])
        shifts = _grid_shifts(len(nodes), spacing)
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
        _draw_configuration(ax, system, q[k], alpha=alpha, box=box, shift=shifts[i])
    points = _points_of(system, q[nodes], shifts)
    ax.drawn_limits = _set_equal_limits(ax, points)
    if _plane_view(ax, _skeleton(system, q[nodes])) is None and moved:
        ax.view_init(elev=15, azim=-75)  # nearly square-on to the grid of snapshots
    _legend(ax, system, box, outside=own)
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


@_styled
def plot_coordinates(t, q, names=None, ax=None, *, units=None, time_unit="s"):
    """Draw the node coordinates ``q[k, i]`` over ``t``, one line per column named
    by ``names`` (for systems without a geometry to draw, such as a
    :class:`~pyomo_mbdyn.mechanics.CoordinateSystem`).

    ``units`` (one string for all columns, or one per column) default to the
    units the names tell (:func:`pyomo_mbdyn.trajectory.unit`: m, rad, 1).
    Coordinates of different units go to stacked panels of a new figure (with
    ``ax`` given, to that one axes, each legend entry naming its unit).
    Returns the (first) axes.
    """
    q = np.asarray(q, dtype=float)
    if q.ndim == 1:
        q = q[:, None]
    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or q.ndim != 2 or t.shape[0] != q.shape[0] or q.shape[1] == 0:
        raise ConfigurationError(f"q must be (N+1, n ≥ 1) for N+1 node times; got t {t.shape}, q {q.shape}")
    names = _column_names(names, q.shape[1], "q", "coordinates")
    return _draw_by_unit(ax, names, _units_of(names, "q", units),
                         lambda panel, j, label: panel.plot(t, q[:, j], marker=".", color=_color(j), label=label),
                         lambda _: "q", time_unit, "coordinates at the nodes")


def _column_names(names, count, prefix, what):
    """``names`` as a list of ``count`` entries (default ``prefix0, prefix1, …``)."""
    names = [f"{prefix}{i}" for i in range(count)] if names is None else list(names)
    if len(names) != count:
        raise ConfigurationError(f"names has {len(names)} entries for {count} {what}")
    return names


def _draw_by_unit(ax, names, units, draw, quantity, time_unit, title):
    """One panel per unit (stacked in a new figure, or all on ``ax``): ``draw(panel, column, label)``
    for every column, legend entries naming the unit when units are mixed; y labels by
    ``quantity(unit)``.  Returns the (first) axes."""
    groups = _groups(units)
    axes = _panels(ax, len(groups), (7.5, 4))
    mixed = len(groups) > 1
    for panel, (unit_, columns) in zip(axes, groups.items()):
        for j in columns:
            draw(panel, j, f"{names[j]} [{unit_ or '?'}]" if mixed else names[j])
        panel.legend()
    _label_panels(axes, groups, quantity, time_unit)
    axes[0].set_title(title)
    if ax is None:
        axes[0].figure.tight_layout()
    return axes[0]


def _panels(ax, count, size):
    """``count`` axes stacked over a shared time axis in a new figure, or ``[ax]`` repeated."""
    if ax is not None:
        return [ax] * count
    fig = _new_figure(figsize=(size[0], size[1] if count == 1 else 2.6 * count + 0.6))
    axes = fig.subplots(count, 1, sharex=True, squeeze=False)[:, 0]
    return list(axes)


def _label_panels(axes, groups, quantity, time_unit):
    """y labels ``quantity(unit) [unit]`` per panel (one axes holding every unit lists them all),
    the time axis on the bottom panel."""
    if len(set(map(id, axes))) == 1 and len(groups) > 1:
        axes[0].set_ylabel(f"{quantity(None)} [" + ", ".join(u or "unit not known" for u in groups) + "]")
    else:
        for panel, u in zip(axes, groups):
            panel.set_ylabel(f"{quantity(u)} {_bracket(u)}")
    axes[-1].set_xlabel(f"t {_bracket(time_unit)}")


#: the name of a generalised force by its unit
_FORCE_NAMES = {"N": "force", "N m": "torque"}


def _control_label(u):
    if u is None:
        return "u = −(applied generalised force)"
    return f"u = −(applied {_FORCE_NAMES.get(u, 'generalised force')})"


@_styled
def plot_controls(t, u, names=None, ax=None, *, units=None, time_unit="s"):
    """Draw interval-constant controls as staircases: ``u[i, a]`` on [t_i, t_{i+1}].

    ``u`` is minus the applied generalised force (the library's convention),
    one column per actuated coordinate named by ``names``.  ``units`` (one
    string, or one per column) default to what the names tell: a control on a
    rotation (``elbow.angle``, a spherical joint's ``wx``, a body's ``wz``) is
    a torque [N m], on a translation (``trolley.s``, ``slide``, ``vx``) a force
    [N].  Forces and torques go to stacked panels of a new figure (with ``ax``
    given, to that one axes, each legend entry naming its unit).  Returns the
    (first) axes.
    """
    t = np.asarray(t, dtype=float)
    u = np.asarray(u, dtype=float)
    if u.ndim == 1:
        u = u[:, None]
    if t.ndim != 1 or u.ndim != 2 or t.shape[0] != u.shape[0] + 1:
        raise ConfigurationError(
            f"t must hold N+1 node times for u of shape (N, n_act); got t {t.shape}, u {u.shape}")
    if u.shape[1] == 0:
        raise ConfigurationError("u has no columns: the system has no actuated coordinates to plot")
    names = _column_names(names, u.shape[1], "u", "control columns")
    return _draw_by_unit(ax, names, _units_of(names, "u", units),
                         lambda panel, a, label: panel.stairs(u[:, a], t, label=label, baseline=None, color=_color(a)),
                         _control_label, time_unit, "controls (constant on each interval)")


def _momentum_label(column, info):
    name = f"{column[0]}_{column[1]}"
    motion = (f"rotation about {info['axis']}" if info["motion"] == "rotation"
              else f"translation along {info['axis']}")
    why = f"{motion} symmetry" if not info["gravity"] else f"{motion} free at the joints"
    acting = (["gravity"] if info["gravity"] else []) + info["actuators"] + (["friction"] if info["friction"] else [])
    if not acting:
        return f"{name}: conserved ({why})"
    if len(acting) > 3:
        acting = acting[:2] + [f"{len(acting) - 2} more"]
    return f"{name} ({why}): changed by " + ", ".join(acting)


def _energy_panels(ax, balance_ax, table, t, scheme, energy_unit, time_unit):
    present = [c for c in ENERGY_TERMS if c in table.columns]
    drawn = [c for c in present if np.any(table[c].to_numpy(float) != 0)] or present[:1]
    for c in drawn:
        ax.plot(t, table[c].to_numpy(float), label=ENERGY_TERMS[c])
    E = table["E"].to_numpy(float)
    ax.plot(t, E, label="E = " + " + ".join(present), lw=2.6, color="k")
    zero = [c for c in present if c not in drawn]
    ax.set_title("energy: " + " + ".join(present) + " = E" + (f"  ({' = '.join(zero)} = 0)" if zero else ""))
    ax.set_ylabel(f"energy {_bracket(energy_unit)}")
    _legend_below(ax)
    drift = E - E[0]
    balance_ax.plot(t, drift, color="k", marker=".")
    statement = energy_statement(scheme)
    scale = max(np.abs(table[present].to_numpy(float)).max(initial=0.0), np.abs(E).max(), 1e-300)
    balance_ax.set_title((statement or "E − E₀ (scheme not given: no conservation claim)").replace(": ", ":\n", 1)
                         + f"\nmax |E − E₀| = {np.abs(drift).max():.2e} {energy_unit}"
                         f" = {np.abs(drift).max() / scale:.1e} × the largest term")
    balance_ax.set_ylabel(f"E − E₀ {_bracket(energy_unit)}")


def _legend_below(ax, columns=2):
    """The legend under the axes (long labels would hide the curves)."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=columns, frameon=False)


def _momentum_rows(table, trajectory, rec):
    """[(group, columns, balance table or None, reason)] for the L and p rows."""
    present = [c for c in _MOMENTA if c in table.columns and table[c].notna().any()]
    if not present:
        return []
    balance, reason = None, None
    if trajectory is None or getattr(trajectory, "system", None) is None:
        reason = "impulses of the loads not given (pass trajectory=)"
    else:
        from .mechanics import MultibodySystem

        if not isinstance(trajectory.system, MultibodySystem):
            reason = "no rigid-body motions for this system"
        else:
            balance = momentum_balance(trajectory, table, scheme=None if rec is None else rec.name)
    if balance is not None:
        rows = [(group, [c for c in balance.attrs["momenta"] if c[0] == group], balance, None) for group in "Lp"]
        rows = [row for row in rows if row[1]]
        if rows:
            return rows  # the momenta without a balance law (no free motion) are left out
        reason = "not conserved under control: " + (
            balance.attrs["impulse_error"] or "no rotation about a coordinate axis through the origin "
                                              "and no translation is free at the joints to the ground")
    return [(group, [c for c in present if c[0] == group], None, reason) for group in "Lp"
            if any(c[0] == group for c in present)]


def _draw_momentum_row(left, right, group, columns, balance, reason, table, t, rec, time_unit):
    what = "angular momentum about the origin" if group == "L" else "linear momentum"
    unit_ = _MOMENTUM_UNIT[group]
    if balance is None:  # raw changes, clearly not a balance
        for i, c in enumerate(columns):
            J = table[c].to_numpy(float)
            left.plot(t, J - J[0], color=_color(i), label=f"{c[0]}_{c[1]} − {c[0]}_{c[1]}(0)")
        left.set_title(f"{what}: change (not a balance)")
        left.set_ylabel(f"{group} − {group}₀ [{unit_}]")
        left.legend(loc="best")
        right.axis("off")
        right.text(0.02, 0.5, f"{what}:\n{reason}", transform=right.transAxes, va="center", wrap=True)
        return
    described = balance.attrs["momenta"]
    for i, c in enumerate(columns):
        color = _color(i)
        left.plot(t, balance[c].to_numpy(float), color=color, label=_momentum_label(c, described[c]))
        left.plot(t, balance[c].iloc[0] + balance[f"{c}_impulse"].to_numpy(float), ls="none", marker="o",
                  mfc="none", color=color)
        right.plot(t, balance[f"{c}_balance"].to_numpy(float), color=color, marker=".",
                   label=f"{c[0]}_{c[1]} − {c[0]}_{c[1]}(0) − impulse")
    left.plot([], [], ls="none", marker="o", mfc="none", color="0.3", label="initial value + impulse of the loads")
    left.set_title(f"{what} against the impulses that change it")
    left.set_ylabel(f"{group} [{unit_}]")
    _legend_below(left, columns=1)
    consistency = "" if rec is None else (
        " — flat: momentum-consistent scheme" if rec.momentum_consistent
        else f" — {rec.name.upper()} is not momentum-consistent")
    worst = max(np.abs(balance[f"{c}_balance"].to_numpy(float)).max() for c in columns)
    right.set_title(f"{'angular' if group == 'L' else 'linear'}-momentum balance{consistency}"
                    f"\nmax |{group} − {group}₀ − impulse| = {worst:.2e} {unit_}")
    right.set_ylabel(f"{group} − {group}₀ − impulse [{unit_}]")
    right.legend(loc="best")


@_styled
def plot_conservation(table, fig=None, *, scheme=None, trajectory=None, energy_unit="J", time_unit="s",
                      constraint_unit=None):
    """Draw the conservation table of ``dyn.diagnostics()`` (a DataFrame).

    Rows of panels:

    * the energy terms T, V, W (= −work done by the controls), D (dissipated
      by joint friction) and their sum E; next to it E − E₀, titled with what
      the scheme guarantees (:func:`energy_statement`) and its largest value;
    * with ``trajectory`` (of a MultibodySystem): per momentum group (angular
      L [N m s], linear p [N s]) the momenta whose motion the ground joints
      allow, against their initial value plus the impulse of the applied
      loads (○), and the balance J − J₀ − impulse (:func:`momentum_balance`);
      without it, or where no balance can be formed, the momentum changes in a
      panel that says so;
    * the constraint residual max \\|Φ(q_k)\\| (log scale) when positive somewhere.

    ``scheme`` (a name) defaults to ``trajectory.scheme``.  ``energy_unit``,
    ``time_unit`` and ``constraint_unit`` label the axes (a multibody
    system's constraint rows are lengths or numbers: ``"m or 1, by row"``).
    Returns the figure.
    """
    import pandas as pd

    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas DataFrame (dyn.diagnostics()), got {type(table).__name__}")
    missing = [c for c in ("T", "V", "E") if c not in table.columns]
    if missing:
        raise ConfigurationError(f"conservation table lacks the columns {missing}; it has {list(table.columns)}")
    if len(table) == 0:
        raise ConfigurationError("conservation table is empty")
    if scheme is None and trajectory is not None:
        scheme = getattr(trajectory, "metadata", {}).get("scheme")
    rec = _scheme_record(scheme)
    t = table["t"].to_numpy(float) if "t" in table.columns else table.index.to_numpy(float)
    rows = _momentum_rows(table, trajectory, rec)
    residual = table["constraint_residual"].to_numpy(float) if "constraint_residual" in table.columns else None
    show_residual = residual is not None and np.any(residual > 0)
    n_rows = 1 + len(rows) + show_residual
    fig = _new_figure(figsize=(13, 4.6 * n_rows)) if fig is None else fig
    grid = fig.add_gridspec(n_rows, 2)
    energy_ax = fig.add_subplot(grid[0, 0])
    drift_ax = fig.add_subplot(grid[0, 1], sharex=energy_ax)
    _energy_panels(energy_ax, drift_ax, table, t, scheme, energy_unit, time_unit)
    axes = [energy_ax, drift_ax]
    for r, row in enumerate(rows, start=1):
        left, right = fig.add_subplot(grid[r, 0], sharex=energy_ax), fig.add_subplot(grid[r, 1], sharex=energy_ax)
        _draw_momentum_row(left, right, *row, table, t, rec, time_unit)
        axes += [left, right]
    if show_residual:
        ax = fig.add_subplot(grid[n_rows - 1, :], sharex=energy_ax)
        ax.semilogy(t, np.where(residual > 0, residual, np.nan), marker=".", color=_color(3))
        ax.set_title("constraint residual at the nodes (log scale; zeros not drawn)")
        ax.set_ylabel(f"largest |residual| {_bracket(constraint_unit or _constraint_unit(trajectory))}")
        axes.append(ax)
    for ax in axes:
        if ax.axison:
            ax.set_xlabel(f"t {_bracket(time_unit)}")
    fig.tight_layout()
    return fig


def _constraint_unit(trajectory):
    """Joint rows are lengths (m), director and alignment rows numbers (1); other systems' rows are their own."""
    from .mechanics import MultibodySystem

    system = getattr(trajectory, "system", None)
    if system is None or isinstance(system, MultibodySystem):
        return "m or 1, by row"
    return ""


def _as_columns(a, what):
    a = np.asarray(a, dtype=float)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2 or a.shape[0] == 0:
        raise ConfigurationError(f"{what} must be a (K, m) array with K ≥ 1 rows, got shape {a.shape}")
    return a


@_styled
def plot_costates(first, second, labels=("first", "second"), t=None, names=None, title="costates", *,
                  unit=None, time_unit="s"):
    """Compare two sets of per-node (or per-interval) costates or multipliers.

    ``first`` and ``second`` are (K, m) arrays with the same columns ``names``
    (e.g. the costates of the indirect method and the multipliers read from
    a direct method's duals).  Draws them side by side on a shared y axis,
    one colour per column, and, when the shapes agree, a third panel with the
    difference ``second − first`` (its largest magnitude in the title).
    ``t`` is one grid for both, a pair of grids, or None (row index).
    ``unit`` labels the y axes (default: not known).  Returns the figure.
    """
    arrays = (_as_columns(first, "first"), _as_columns(second, "second"))
    if arrays[0].shape[1] != arrays[1].shape[1]:
        raise ConfigurationError(
            f"first and second must have the same columns, got {arrays[0].shape[1]} and {arrays[1].shape[1]}")
    labels = list(labels)
    if len(labels) != 2 or not all(isinstance(x, str) for x in labels):
        raise ConfigurationError(f"labels must be two strings, got {labels!r}")
    m = arrays[0].shape[1]
    names = [str(j) for j in range(m)] if names is None else list(names)
    if len(names) != m:
        raise ConfigurationError(f"names has {len(names)} entries for {m} columns")
    if t is None:
        grids = [np.arange(a.shape[0], dtype=float) for a in arrays]
    elif isinstance(t, (tuple, list)) and len(t) == 2 and np.ndim(t[0]) == 1:
        grids = [np.asarray(g, dtype=float) for g in t]
    else:
        grids = [np.asarray(t, dtype=float)] * 2
    for g, a, label in zip(grids, arrays, labels):
        if g.shape != (a.shape[0],):
            raise ConfigurationError(f"t for {label!r} has shape {g.shape}; {label!r} has {a.shape[0]} rows")
    difference = arrays[0].shape == arrays[1].shape
    fig = _new_figure(figsize=(4.6 * (2 + difference), 3.9))
    axes = fig.subplots(1, 2 + difference, squeeze=False)[0]
    axes[1].sharey(axes[0])
    for ax, g, a, label in zip(axes, grids, arrays, labels):
        for j, name in enumerate(names):
            ax.plot(g, a[:, j], marker=".", color=_color(j), label=name)
        ax.set_title(f"{title}: {label}")
    if difference:
        diff = arrays[1] - arrays[0]
        for j, name in enumerate(names):
            axes[2].plot(grids[0], diff[:, j], marker=".", color=_color(j), label=name)
        axes[2].set_title(f"{labels[1]} − {labels[0]} (max |·| = {np.nanmax(np.abs(diff)):.2e})")
    axes[0].legend()
    axes[0].set_ylabel(f"{title} {_bracket(unit)}")
    for ax in axes:
        ax.set_xlabel(f"t {_bracket(time_unit)}" if t is not None else "node k [1]")
    fig.tight_layout()
    return fig


@_styled
def animate(system, q, path, fps=10, t=None, dpi=80, box=True):
    """Write a GIF of the motion, one frame per node (matplotlib's PillowWriter).

    Each frame draws the configuration ``q[k]`` as :func:`plot_snapshots`
    does, the paths of the centres of mass up to node k, and the node (and
    time) in the title, so that no two frames are alike (the GIF keeps all
    N+1).  The axes limits are those of the whole motion.  Returns the path.

    The destination is checked before anything is drawn: a missing directory is
    created (with its parents); a path that is a directory, lies under a file or
    cannot be written raises :class:`~pyomo_mbdyn.errors.DestinationError` (an
    ``OSError``) naming it.  The GIF is written atomically
    (:func:`~pyomo_mbdyn.atomic.atomic_path`): an old file at ``path`` stays as it
    was until the new one is complete.
    """
    from matplotlib.animation import PillowWriter

    q = _configurations(system, q)
    if not (isinstance(fps, numbers.Real) and fps > 0):
        raise ConfigurationError(f"fps must be a positive number, got {fps!r}")
    if t is not None:
        t = np.asarray(t, dtype=float)
        if t.shape != (q.shape[0],):
            raise ConfigurationError(f"t must have one time per node ({q.shape[0]}), got shape {t.shape}")
    path = Path(path)
    if path.suffix.lower() != ".gif":
        raise ConfigurationError(f"animate writes GIF files; path must end in .gif, got {str(path)!r}")
    check_destination(path, "animation", create_directory=True)
    fig = _new_figure(figsize=(5, 5))
    ax = fig.add_subplot(projection="3d")
    points = _points_of(system, q)
    skeleton = _skeleton(system, q)
    centres = np.array([[phi for _, phi, _, _ in body_geometry(system, qk)] for qk in q])
    writer = PillowWriter(fps=fps)
    with atomic_path(path, what="animation") as temporary, writer.saving(fig, str(temporary), dpi):
        for k in range(q.shape[0]):
            ax.cla()
            _draw_configuration(ax, system, q[k], box=box)
            for b in range(centres.shape[1]):
                ax.plot(*centres[: k + 1, b].T, color=_body_color(b), lw=0.8, alpha=0.6)
            _set_equal_limits(ax, points)
            _plane_view(ax, skeleton)
            ax.set_title(f"{system.name}: k = {k}" + ("" if t is None else f", t = {t[k]:.3f} s"))
            writer.grab_frame()
    return path


def output_directory(directory):
    """The directory figures are written into, created (with its parents) when missing.

    Raises :class:`~pyomo_mbdyn.errors.DestinationError` (an ``OSError``) naming
    it when it is a file, lies under a file, or cannot be created or written.
    Returns it as a :class:`~pathlib.Path`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> output_directory(root / "figures" / "arm").is_dir()
    True
    >>> (root / "notes.txt").write_text("x")
    1
    >>> output_directory(root / "notes.txt" / "figures")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pyomo_mbdyn.errors.DestinationError: cannot write figures into '.../notes.txt/figures': ... a file, not a directory
    """
    directory = Path(directory)
    ancestor = directory
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        where = "it is" if ancestor == directory else f"{str(ancestor)!r} is"
        raise DestinationError(f"cannot write figures into {str(directory)!r}: {where} a file, not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe_directory(directory)  # a uniquely named probe: plots of other processes in parallel never meet it
    except OSError as err:
        raise DestinationError(f"cannot write figures into {str(directory)!r}: {err.strerror or err}") from None
    return directory


@_styled
def plot_discrete_hamiltonian(t, Hd, ax=None, label="H^d", *, unit=None, time_unit="s"):
    """H^d_{k,k+1} over the interval midpoints, and its deviation from H^d_{0,1}
    (thesis Ch. 8: constant for the indirect DNCO, O(h²) drift for direct methods).

    ``unit`` is that of the running cost ½|u|² (e.g. ``"(N m)²"``); default not known."""
    t, Hd = np.asarray(t, float), np.asarray(Hd, float)
    if t.shape != Hd.shape or t.ndim != 1 or t.size == 0:
        raise ConfigurationError(f"t and Hd must be equal-length 1-D arrays, got {t.shape} and {Hd.shape}")
    if ax is None:
        fig = _new_figure(figsize=(11, 3.8))
        axes = fig.subplots(1, 2)
    else:
        axes = [ax, ax.twinx()]
    axes[0].plot(t, Hd, marker=".", label=label)
    axes[0].set_title("discrete Hamiltonian $H^d_{k,k+1}$")
    axes[0].set_ylabel(f"$H^d$ {_bracket(unit)}")
    axes[1].plot(t, Hd - Hd[0], marker=".", color=_color(1))
    axes[1].set_title("$H^d_{k,k+1} - H^d_{0,1}$")
    axes[1].set_ylabel(f"$H^d - H^d_{{0,1}}$ {_bracket(unit)}")
    for a in axes:
        a.set_xlabel(f"t (interval midpoint) {_bracket(time_unit)}")
    axes[0].figure.tight_layout()
    return axes[0]
