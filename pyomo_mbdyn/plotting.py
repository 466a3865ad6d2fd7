"""Figures of solved models: snapshots, controls, conservation, costates, animation.

Everything here reads arrays (or a solved model) and draws with matplotlib's
object API (:class:`matplotlib.figure.Figure`, never ``pyplot``), so it runs
under any backend, in a notebook or headless, and leaves no global figure
state behind.  Each function returns what it drew on (an axes or a figure); the
standard figures of a named model are written by :mod:`pyomo_mbdyn.figures`.

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

The energy and momentum curves come from :mod:`pyomo_mbdyn.diagnostics`
(``dyn.diagnostics()``); nothing here recomputes them.
"""

import numbers
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from .errors import ConfigurationError, DestinationError
from .trajectory import check_destination

__all__ = ["plot_snapshots", "plot_coordinates", "plot_controls", "plot_conservation", "plot_costates",
           "plot_discrete_hamiltonian",
           "animate", "body_geometry", "joint_geometry", "output_directory"]

DIRECTOR_COLORS = ("tab:red", "tab:green", "tab:blue")
_ENERGY_TERMS = ("T", "V", "W", "D", "E")
_MOMENTA = ("Lx", "Ly", "Lz", "px", "py", "pz")


def _new_figure(**kwds):
    fig = Figure(**kwds)
    FigureCanvasAgg(fig)
    return fig


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
    ``D = a = None`` for a point mass."""
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
    ground, child φ)``, all spatial, in configuration ``qk``."""
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


def _auto_offset(system, q):
    """A shift along x between snapshots when the motion stays in place (a
    spinning satellite), so that the snapshots do not overlap; else zero."""
    extents = [np.ptp(_points_of(system, qk[None, :]), axis=0).max() for qk in q]
    centres = np.array([np.mean([phi for _, phi, _, _ in body_geometry(system, qk)], axis=0) for qk in q])
    extent = max(extents)
    if extent > 0 and np.ptp(centres, axis=0).max() < 0.5 * extent:
        return np.array([1.25 * extent, 0.0, 0.0])
    return np.zeros(3)


def _set_cube_limits(ax, points):
    lo, hi = points.min(axis=0), points.max(axis=0)
    centre, half = (lo + hi) / 2, (hi - lo).max() / 2
    half = half * 1.1 if half > 0 else 1.0
    ax.set_xlim(centre[0] - half, centre[0] + half)
    ax.set_ylim(centre[1] - half, centre[1] + half)
    ax.set_zlim(centre[2] - half, centre[2] + half)
    ax.set_box_aspect((1, 1, 1))
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_zlabel("z")


def _draw_configuration(ax, system, qk, alpha=1.0, box=True, shift=np.zeros(3)):
    """Draw one configuration (moved by ``shift``); return the number of line segments drawn."""
    from mpl_toolkits.mplot3d.art3d import Line3DCollection

    segments, colors, widths = [], [], []
    dots = []
    for b, (_, phi, D, a) in enumerate(body_geometry(system, qk)):
        phi = phi + shift
        color = f"C{b % 10}"
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


def _legend(ax, system, box=True):
    handles = [Line2D([], [], color=f"C{b % 10}", marker="o", lw=1 if box else 0, label=name)
               for b, name in enumerate(system.bodies)]
    if any(b.has_orientation for b in system.bodies.values()):
        handles += [Line2D([], [], color=c, lw=2, label=f"d{i + 1}") for i, c in enumerate(DIRECTOR_COLORS)]
    if system.joints:
        handles.append(Line2D([], [], color="k", marker="o", markerfacecolor="white", lw=0, label="joint"))
    ax.legend(handles=handles, loc="upper left", fontsize="small")


def _axes3d(ax):
    if ax is None:
        fig = _new_figure(figsize=(6, 6))
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


def plot_snapshots(system, q, times=None, ax=None, *, t=None, count=6, box=True, offset=None):
    """Draw configurations of ``system`` at chosen nodes in one 3-D axes.

    Bodies, joints and directors are drawn as described in the module
    docstring; later snapshots are more opaque.  The axes is a cube around
    everything drawn (planar systems lie in one of its planes).

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
        Node times, to pick snapshots by time.
    box : bool
        Draw the equivalent boxes (else only the director triads).
    offset : 3 numbers or "auto", optional
        Draw the i-th snapshot moved by ``i * offset`` (a film strip, for
        motions that stay in place); ``"auto"`` shifts along x by 1.25 times
        the system's size when the centres of mass move less than half of it.
        The title then states the shift.  Default: no shift.

    Returns
    -------
    The 3-D axes drawn on; ``ax.snapshot_nodes`` lists the nodes drawn.
    """
    q = _configurations(system, q)
    N = q.shape[0] - 1
    nodes = _select_nodes(times, N, t, count)
    if offset is None:
        offset = np.zeros(3)
    elif isinstance(offset, str) and offset == "auto":
        offset = _auto_offset(system, q[nodes])
    else:
        offset = np.asarray(offset, dtype=float)
        if offset.shape != (3,) or not np.all(np.isfinite(offset)):
            raise ConfigurationError(f"offset must be 3 finite numbers or 'auto', got {offset!r}")
    shifts = [i * offset for i in range(len(nodes))]
    ax = _axes3d(ax)
    for i, k in enumerate(nodes):
        alpha = 0.25 + 0.75 * (i + 1) / len(nodes)
        _draw_configuration(ax, system, q[k], alpha=alpha, box=box, shift=shifts[i])
    _set_cube_limits(ax, _points_of(system, q[nodes], shifts))
    _legend(ax, system, box)
    shown = ", ".join(str(k) for k in nodes)
    title = (f"{system.name}: nodes k = {shown}" if t is None else
             f"{system.name}: t = " + ", ".join(f"{np.asarray(t, float)[k]:.3g}" for k in nodes))
    if np.any(offset):
        title += "\n(snapshot i drawn moved by i·(" + ", ".join(f"{x:.3g}" for x in offset) + "))"
    ax.set_title(title)
    ax.snapshot_nodes = list(nodes)
    return ax


def plot_coordinates(t, q, names=None, ax=None):
    """Draw the node coordinates ``q[k, i]`` over ``t``, one line per column named
    by ``names`` (for systems without a geometry to draw, such as a
    :class:`~pyomo_mbdyn.mechanics.CoordinateSystem`).  Returns the axes."""
    t = np.asarray(t, dtype=float)
    q = np.asarray(q, dtype=float)
    if q.ndim == 1:
        q = q[:, None]
    if t.ndim != 1 or q.ndim != 2 or t.shape[0] != q.shape[0] or q.shape[1] == 0:
        raise ConfigurationError(f"q must be (N+1, n ≥ 1) for N+1 node times; got t {t.shape}, q {q.shape}")
    names = [f"q{i}" for i in range(q.shape[1])] if names is None else list(names)
    if len(names) != q.shape[1]:
        raise ConfigurationError(f"names has {len(names)} entries for {q.shape[1]} coordinates")
    if ax is None:
        ax = _new_figure(figsize=(7, 4)).add_subplot()
    for i, name in enumerate(names):
        ax.plot(t, q[:, i], marker=".", label=name)
    ax.set_xlabel("t")
    ax.set_title("coordinates at the nodes")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return ax


def plot_controls(t, u, names=None, ax=None):
    """Draw interval-constant controls as staircases: ``u[i, a]`` on [t_i, t_{i+1}].

    ``u`` is minus the applied generalised force (the library's convention),
    one column per actuated coordinate named by ``names``.  Returns the axes.
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
    names = [f"u{a}" for a in range(u.shape[1])] if names is None else list(names)
    if len(names) != u.shape[1]:
        raise ConfigurationError(f"names has {len(names)} entries for {u.shape[1]} control columns")
    if ax is None:
        ax = _new_figure(figsize=(7, 4)).add_subplot()
    for a, name in enumerate(names):
        ax.stairs(u[:, a], t, label=name, baseline=None, color=f"C{a % 10}")
    ax.set_xlabel("t")
    ax.set_ylabel("u  (= − applied generalised force)")
    ax.set_title("controls (constant on each interval)")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return ax


def plot_conservation(table, fig=None):
    """Draw the conservation table of ``dyn.diagnostics()`` (a DataFrame).

    Panels: the energy terms T, V, W, D and their sum E over t; the drift
    E − E₀; the momentum deviations L_i − L_i(0) and p_i − p_i(0) (the columns
    present); the constraint residual (log scale, when the column is present
    and positive somewhere).  Returns the figure.
    """
    import pandas as pd

    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas DataFrame (dyn.diagnostics()), got {type(table).__name__}")
    missing = [c for c in ("T", "V", "E") if c not in table.columns]
    if missing:
        raise ConfigurationError(f"conservation table lacks the columns {missing}; it has {list(table.columns)}")
    if len(table) == 0:
        raise ConfigurationError("conservation table is empty")
    t = table["t"].to_numpy(float) if "t" in table.columns else table.index.to_numpy(float)
    # momentum maps that are not defined for the system (NaN columns) are left out
    momenta = [c for c in _MOMENTA if c in table.columns and table[c].notna().any()]
    residual = table["constraint_residual"].to_numpy(float) if "constraint_residual" in table.columns else None
    show_residual = residual is not None and np.any(residual > 0)
    n = 2 + bool(momenta) + show_residual
    fig = _new_figure(figsize=(11, 3.2 * ((n + 1) // 2))) if fig is None else fig
    axes = fig.subplots((n + 1) // 2, 2, squeeze=False).ravel()
    ax = axes[0]
    for c in _ENERGY_TERMS:
        if c in table.columns:
            ax.plot(t, table[c].to_numpy(float), label=c, lw=2.5 if c == "E" else 1.2,
                    color="k" if c == "E" else None)
    ax.set_title("energy: T + V + W + D = E")
    ax.legend(fontsize="small")
    E = table["E"].to_numpy(float)
    axes[1].plot(t, E - E[0], color="k")
    axes[1].set_title("E − E₀")
    i = 2
    if momenta:
        for c in momenta:
            L = table[c].to_numpy(float)
            axes[i].plot(t, L - L[0], label=f"{c} − {c}(0)")
        axes[i].set_title("momentum deviation")
        axes[i].legend(fontsize="small")
        i += 1
    if show_residual:
        axes[i].semilogy(t, np.where(residual > 0, residual, np.nan), marker=".", color="tab:purple")
        axes[i].set_title("constraint residual max |Φ(q_k)|")
        i += 1
    for ax in axes[:i]:
        ax.set_xlabel("t")
        ax.grid(alpha=0.3)
    for ax in axes[i:]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def _as_columns(a, what):
    a = np.asarray(a, dtype=float)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2 or a.shape[0] == 0:
        raise ConfigurationError(f"{what} must be a (K, m) array with K ≥ 1 rows, got shape {a.shape}")
    return a


def plot_costates(first, second, labels=("first", "second"), t=None, names=None, title="costates"):
    """Compare two sets of per-node (or per-interval) costates or multipliers.

    ``first`` and ``second`` are (K, m) arrays with the same columns ``names``
    (e.g. the costates of the indirect method and the multipliers read from
    a direct method's duals).  Draws them side by side on a shared y axis,
    one colour per column, and, when the shapes agree, a third panel with the
    difference ``second − first`` (its largest magnitude in the title).
    ``t`` is one grid for both, a pair of grids, or None (row index).
    Returns the figure.
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
    fig = _new_figure(figsize=(4.5 * (2 + difference), 3.8))
    axes = fig.subplots(1, 2 + difference, squeeze=False)[0]
    axes[1].sharey(axes[0])
    for ax, g, a, label in zip(axes, grids, arrays, labels):
        for j, name in enumerate(names):
            ax.plot(g, a[:, j], marker=".", color=f"C{j % 10}", label=name)
        ax.set_title(f"{title}: {label}")
    if difference:
        diff = arrays[1] - arrays[0]
        for j, name in enumerate(names):
            axes[2].plot(grids[0], diff[:, j], marker=".", color=f"C{j % 10}", label=name)
        axes[2].set_title(f"{labels[1]} − {labels[0]} (max |·| = {np.nanmax(np.abs(diff)):.2e})")
    axes[0].legend(fontsize="small")
    for ax in axes:
        ax.set_xlabel("t" if t is not None else "k")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def animate(system, q, path, fps=10, t=None, dpi=80, box=True):
    """Write a GIF of the motion, one frame per node (matplotlib's PillowWriter).

    Each frame draws the configuration ``q[k]`` as :func:`plot_snapshots`
    does, the paths of the centres of mass up to node k, and the node (and
    time) in the title, so that no two frames are alike (the GIF keeps all
    N+1).  The axes limits are those of the whole motion.  Returns the path.

    The destination is checked before anything is drawn: a missing directory is
    created (with its parents); a path that is a directory, lies under a file or
    cannot be written raises :class:`~pyomo_mbdyn.errors.DestinationError` (an
    ``OSError``) naming it.
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
    centres = np.array([[phi for _, phi, _, _ in body_geometry(system, qk)] for qk in q])
    writer = PillowWriter(fps=fps)
    with writer.saving(fig, str(path), dpi):
        for k in range(q.shape[0]):
            ax.cla()
            _draw_configuration(ax, system, q[k], box=box)
            for b in range(centres.shape[1]):
                ax.plot(*centres[: k + 1, b].T, color=f"C{b % 10}", lw=0.8, alpha=0.6)
            _set_cube_limits(ax, points)
            ax.set_title(f"{system.name}: k = {k}" + ("" if t is None else f", t = {t[k]:.3f}"))
            writer.grab_frame()
    return path


def output_directory(directory):
    """The directory figures are written into, created (with its parents) when missing.

    Raises :class:`~pyomo_mbdyn.errors.DestinationError` (an ``OSError``) naming
    it when it is a file, lies under a file, or cannot be created or written.
    Returns it as a :class:`~pathlib.Path`.
    """
    directory = Path(directory)
    ancestor = directory
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        where = "it is" if ancestor == directory else f"{str(ancestor)!r} is"
        raise DestinationError(f"cannot write figures into {str(directory)!r}: {where} a file, not a directory")
    probe = directory / ".pyomo_mbdyn-write-test"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with open(probe, "ab"):
            pass
        probe.unlink()
    except OSError as err:
        raise DestinationError(f"cannot write figures into {str(directory)!r}: {err.strerror or err}") from None
    return directory


def plot_discrete_hamiltonian(t, Hd, ax=None, label="H^d"):
    """H^d_{k,k+1} over the interval midpoints, and its deviation from H^d_{0,1}
    (thesis Ch. 8: constant for the indirect DNCO, O(h²) drift for direct methods)."""
    t, Hd = np.asarray(t, float), np.asarray(Hd, float)
    if t.shape != Hd.shape or t.ndim != 1 or t.size == 0:
        raise ConfigurationError(f"t and Hd must be equal-length 1-D arrays, got {t.shape} and {Hd.shape}")
    if ax is None:
        fig = _new_figure(figsize=(10, 3.4))
        axes = fig.subplots(1, 2)
    else:
        axes = [ax, ax.twinx()]
    axes[0].plot(t, Hd, marker=".", label=label)
    axes[0].set_title("discrete Hamiltonian H^d_{k,k+1}")
    axes[1].plot(t, Hd - Hd[0], marker=".", color="tab:red")
    axes[1].set_title("H^d − H^d_{0,1}")
    for a in axes:
        a.set_xlabel("t")
        a.grid(alpha=0.3)
    axes[0].figure.tight_layout()
    return axes[0]
