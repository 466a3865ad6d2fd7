"""The library's figure canvas: style, colours, a figure of its own, units on axes (shared by every figure).

Every plotting function draws inside :func:`style` (font sizes, grid, line
widths, the colour cycle :data:`COLORS`), on a :class:`matplotlib.figure.Figure`
of its own (:func:`new_figure`, never ``pyplot``), and every axis carries its
unit in brackets (:func:`bracket`).
"""

# an argument made an array (``q = np.asarray(q, float)``) is typed as the array from there on:
# mypy: allow-redefinition-new, local-partial-types

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence, TypeVar

from cycler import cycler
from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..errors import ConfigurationError
from ..trajectory import unit

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    import numpy.typing as npt
    from matplotlib.axes import Axes

    _F = TypeVar("_F", bound=Callable[..., Any])

__all__ = ["style", "STYLE", "COLORS", "styled", "color", "new_figure", "bracket", "units_of", "groups",
           "flat_if_constant"]

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


def style(**overrides: Any) -> AbstractContextManager[None]:
    """The library's figure style as a context manager (``matplotlib.rc_context``).

    Every plotting function draws inside it; use it for figures of your own::

        with plotting.style():
            fig = Figure(); ax = fig.add_subplot(); ...

    ``overrides`` are rcParams that replace those of :data:`STYLE` (dots as
    underscores are not translated: pass ``**{"font.size": 12}``).
    """
    return rc_context({**STYLE, **overrides})  # type: ignore[dict-item]  # matplotlib's stubs name every rcParam key as a Literal


def styled(function: _F) -> _F:
    """``function`` drawing inside :func:`style` (the decorator of every plotting function)."""

    @functools.wraps(function)
    def draw(*args: Any, **kwds: Any) -> Any:
        with style():
            return function(*args, **kwds)

    return draw  # type: ignore[return-value]  # functools.wraps: the same signature


def color(i: int) -> str:
    """The i-th colour of the cycle, resolved now (a "C0" string would be resolved when the figure is saved,
    outside the style)."""
    return COLORS[i % len(COLORS)]


def new_figure(**kwds: Any) -> Figure:
    """A :class:`~matplotlib.figure.Figure` with its own Agg canvas (no ``pyplot``, no global state)."""
    fig = Figure(**kwds)
    FigureCanvasAgg(fig)
    return fig


def bracket(unit_text: str | None) -> str:
    """``[unit]``; ``[1]`` for a dimensionless quantity, ``[unit not known]`` when the name does not tell."""
    return f"[{unit_text}]" if unit_text else "[unit not known]"


def units_of(names: Sequence[str], quantity: str, units: str | Iterable[str] | None) -> list[str]:
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


def groups(units: Iterable[str]) -> dict[str, list[int]]:
    """``{unit: [column, …]}`` in the order of first appearance."""
    groups: dict[str, list[int]] = {}
    for j, u in enumerate(units):
        groups.setdefault(u, []).append(j)
    return groups


def flat_if_constant(ax: Axes, values: npt.ArrayLike, relative: float = 1e-3) -> bool:
    """Draw ``values`` that are constant to the eye (spread below ``relative`` times their
    size) as a flat line on plain y ticks: limits ±5 % of their size around their mean, and
    no offset text (a "×10⁻¹³ + 7.1×10⁻²" above the axis that a reader has to decode).  The
    deviation belongs in a panel of its own.  Returns whether it did.

    Examples
    --------
    >>> import numpy as np
    >>> fig = new_figure(); ax = fig.add_subplot()
    >>> L = 0.0710657711 + 1e-15 * np.arange(5)
    >>> _ = ax.plot(L); flat_if_constant(ax, L), [round(float(x), 4) for x in ax.get_ylim()]
    (True, [0.0675, 0.0746])
    """
    import numpy as np

    values = np.asarray(values, float)
    values = values[np.isfinite(values)]
    scale = np.abs(values).max() if values.size else 0.0
    if scale == 0 or np.ptp(values) >= relative * scale:
        return False
    ax.set_ylim(values.mean() - 0.05 * scale, values.mean() + 0.05 * scale)
    ax.ticklabel_format(axis="y", useOffset=False)
    return True
