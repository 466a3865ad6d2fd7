"""Quantities over time: coordinates, controls, costates, the discrete Hamiltonian.

One panel per unit (stacked over a shared time axis), each axis labelled with
its unit; controls are staircases (constant on each interval).
"""

# an argument made an array (``q = np.asarray(q, float)``) is typed as the array from there on:
# mypy: allow-redefinition-new, local-partial-types

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..errors import ConfigurationError
from .canvas import bracket, color, flat_if_constant, groups, new_figure, styled, units_of

if TYPE_CHECKING:
    import numpy.typing as npt
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_coordinates", "plot_controls", "plot_costates", "plot_discrete_hamiltonian"]

@styled
def plot_coordinates(t: npt.ArrayLike, q: npt.ArrayLike, names: Sequence[str] | None = None, ax: Axes | None = None,
                     *, units: str | Sequence[str] | None = None, time_unit: str = "s") -> Axes:
    """Draw the node coordinates ``q[k, i]`` over ``t``, one line per column named
    by ``names`` (for systems without a geometry to draw, such as a
    :class:`~pyomo_mbdyn.mechanics.CoordinateSystem`).

    ``units`` (one string for all columns, or one per column) default to the
    units the names tell (:func:`pyomo_mbdyn.trajectory.unit`: m, rad, 1).
    Each legend entry names the coordinate and its unit (``coordinate
    shoulder.angle [rad]``).  Coordinates of different units go to stacked
    panels of a new figure (with ``ax`` given, to that one axes).
    Returns the (first) axes.
    """
    q = np.asarray(q, dtype=float)
    if q.ndim == 1:
        q = q[:, None]
    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or q.ndim != 2 or t.shape[0] != q.shape[0] or q.shape[1] == 0:
        raise ConfigurationError(f"q must be (N+1, n ≥ 1) for N+1 node times; got t {t.shape}, q {q.shape}")
    names = _column_names(names, q.shape[1], "q", "coordinates")
    return _draw_by_unit(ax, names, units_of(names, "q", units),
                         lambda panel, j, label: panel.plot(t, q[:, j], marker=".", color=color(j), label=label),
                         lambda _: "q", time_unit, "coordinates at the nodes",
                         entry=lambda name, u: f"coordinate {name} {bracket(u)}")


def _column_names(names, count, prefix, what):
    """``names`` as a list of ``count`` entries (default ``prefix0, prefix1, …``)."""
    names = [f"{prefix}{i}" for i in range(count)] if names is None else list(names)
    if len(names) != count:
        raise ConfigurationError(f"names has {len(names)} entries for {count} {what}")
    return names


def _draw_by_unit(ax, names, units, draw, quantity, time_unit, title, entry=None):
    """One panel per unit (stacked in a new figure, or all on ``ax``): ``draw(panel, column, label)``
    for every column, legend entries ``entry(name, unit)`` (default: the name, with its unit
    when units are mixed); y labels by ``quantity(unit)``.  Returns the (first) axes."""
    by_unit = groups(units)
    beside = ax is None and max(len(columns) for columns in by_unit.values()) > 4  # a long legend: beside
    axes = _panels(ax, len(by_unit), (10.5 if beside else 7.5, 4))
    mixed = len(by_unit) > 1
    for panel, (unit_, columns) in zip(axes, by_unit.items()):
        for j in columns:
            draw(panel, j, entry(names[j], unit_) if entry is not None
                 else f"{names[j]} [{unit_ or '?'}]" if mixed else names[j])
        if beside:  # more than four curves: the legend beside the panel, not over the curves
            panel.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
        else:
            panel.legend()
    _label_panels(axes, by_unit, quantity, time_unit)
    axes[0].set_title(title)
    if ax is None:
        axes[0].figure.tight_layout()
    return axes[0]


def _panels(ax, count, size):
    """``count`` axes stacked over a shared time axis in a new figure, or ``[ax]`` repeated."""
    if ax is not None:
        return [ax] * count
    fig = new_figure(figsize=(size[0], size[1] if count == 1 else 2.6 * count + 0.6))
    axes = fig.subplots(count, 1, sharex=True, squeeze=False)[:, 0]
    return list(axes)


def _label_panels(axes, groups, quantity, time_unit):
    """y labels ``quantity(unit) [unit]`` per panel (one axes holding every unit lists them all),
    the time axis on the bottom panel."""
    if len(set(map(id, axes))) == 1 and len(groups) > 1:
        axes[0].set_ylabel(f"{quantity(None)} [" + ", ".join(u or "unit not known" for u in groups) + "]")
    else:
        for panel, u in zip(axes, groups):
            panel.set_ylabel(f"{quantity(u)} {bracket(u)}")
    axes[-1].set_xlabel(f"t {bracket(time_unit)}")
#: the name of a generalised force by its unit
_FORCE_NAMES = {"N": "force", "N m": "torque"}


def _control_label(u):
    if u is None:
        return "u: applied generalised force"
    return f"u: applied {_FORCE_NAMES.get(u, 'generalised force')}"


def _control_entry(name, u):
    """``torque on shoulder.angle [N m]``: what the control is, the coordinate it acts on, its unit."""
    return f"{_FORCE_NAMES.get(u, 'generalised force')} on {name} {bracket(u)}"


@styled
def plot_controls(t: npt.ArrayLike, u: npt.ArrayLike, names: Sequence[str] | None = None, ax: Axes | None = None,
                  *, units: str | Sequence[str] | None = None, time_unit: str = "s") -> Axes:
    """Draw interval-constant controls as staircases: ``u[i, a]`` on [t_i, t_{i+1}].

    ``u`` is the applied generalised force (the library's convention),
    one column per actuated coordinate named by ``names``.  ``units`` (one
    string, or one per column) default to what the names tell: a control on a
    rotation (``elbow.angle``, a spherical joint's ``wx``, a body's ``wz``) is
    a torque [N m], on a translation (``trolley.s``, ``slide``, ``vx``) a force
    [N].  Each legend entry names the coordinate, what the control is and its
    unit (``torque on elbow.angle [N m]``).  Forces and torques go to stacked
    panels of a new figure (with ``ax`` given, to that one axes).  Returns the
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
    return _draw_by_unit(ax, names, units_of(names, "u", units),
                         lambda panel, a, label: panel.stairs(u[:, a], t, label=label, baseline=None, color=color(a)),
                         _control_label, time_unit, "controls (constant on each interval)", entry=_control_entry)


def _as_columns(a, what):
    a = np.asarray(a, dtype=float)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2 or a.shape[0] == 0:
        raise ConfigurationError(f"{what} must be a (K, m) array with K ≥ 1 rows, got shape {a.shape}")
    return a


@styled
def plot_costates(first: npt.ArrayLike, second: npt.ArrayLike, labels: Sequence[str] = ("first", "second"),
                  t: npt.ArrayLike | Sequence[npt.ArrayLike] | None = None, names: Sequence[str] | None = None,
                  title: str = "costates", *, unit: str | None = None, time_unit: str = "s") -> Figure:
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
    fig = new_figure(figsize=(4.6 * (2 + difference), 3.9))
    axes = fig.subplots(1, 2 + difference, squeeze=False)[0]
    axes[1].sharey(axes[0])
    for ax, g, a, label in zip(axes, grids, arrays, labels):
        for j, name in enumerate(names):
            ax.plot(g, a[:, j], marker=".", color=color(j), label=name)
        ax.set_title(f"{title}: {label}")
    if difference:
        diff = arrays[1] - arrays[0]
        for j, name in enumerate(names):
            axes[2].plot(grids[0], diff[:, j], marker=".", color=color(j), label=name)
        axes[2].set_title(f"{labels[1]} − {labels[0]} (max |·| = {np.nanmax(np.abs(diff)):.2e})")
    axes[0].legend()
    axes[0].set_ylabel(f"{title} {bracket(unit)}")
    for ax in axes:
        ax.set_xlabel(f"t {bracket(time_unit)}" if t is not None else "node k [1]")
    fig.tight_layout()
    return fig


@styled
def plot_discrete_hamiltonian(t: npt.ArrayLike, Hd: npt.ArrayLike, ax: Axes | None = None, label: str = "H^d", *,
                              unit: str | None = None, time_unit: str = "s") -> Axes:
    """H^d_{k,k+1} over the interval midpoints, and its deviation from H^d_{0,1}
    (thesis Ch. 8: constant for the indirect DNCO, O(h²) drift for direct methods).
    A value constant to within 10⁻³ of itself is drawn flat on plain ticks (its deviation,
    on the right, shows the digits).

    ``unit`` is that of the running cost ½|u|² (e.g. ``"(N m)²"``); default not known."""
    t, Hd = np.asarray(t, float), np.asarray(Hd, float)
    if t.shape != Hd.shape or t.ndim != 1 or t.size == 0:
        raise ConfigurationError(f"t and Hd must be equal-length 1-D arrays, got {t.shape} and {Hd.shape}")
    if ax is None:
        fig = new_figure(figsize=(11, 3.8))
        axes = fig.subplots(1, 2)
    else:
        axes = [ax, ax.twinx()]
    axes[0].plot(t, Hd, marker=".", label=label)
    flat_if_constant(axes[0], Hd)  # constant to the eye: a flat line on plain ticks (no offset)
    axes[0].set_title("discrete Hamiltonian $H^d_{k,k+1}$")
    axes[0].set_ylabel(f"$H^d$ {bracket(unit)}")
    axes[1].plot(t, Hd - Hd[0], marker=".", color=color(1))
    axes[1].set_title("$H^d_{k,k+1} - H^d_{0,1}$")
    axes[1].set_ylabel(f"$H^d - H^d_{{0,1}}$ {bracket(unit)}")
    for a in axes:
        a.set_xlabel(f"t (interval midpoint) {bracket(time_unit)}")
    axes[0].figure.tight_layout()  # type: ignore[union-attr]  # a Figure (new, or the given axes'), no SubFigure
    return axes[0]
