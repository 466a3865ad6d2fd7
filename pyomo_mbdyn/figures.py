"""A model's standard figures as PNG files (``pyomo-mbdyn run MODEL --plot DIR``).

Glue between the declared models (:func:`pyomo_mbdyn.plugins.model_spec`) and
:mod:`pyomo_mbdyn.plotting`: a model's spec may give ``figures(model,
directory)``; otherwise the generic set is drawn from the scheme block
``model.dyn``, with what the spec states about the model: ``paper_figures(dyn)``
(where a generic figure is the counterpart of a figure of the papers — same
example, same scheme, same case — its caption names it, ``cf. Fig. 7.5 of the
thesis``; the captions were checked against the figure captions and text of the
sources, ``shared/seeds``: the DMOCC paper and Siebert's thesis), ``units`` (of
the figures of a system given by formulas) and ``constraint_unit``.  No model is
named here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import plotting
from .atomic import atomic_write
from .errors import ConfigurationError
from .plotting.geometry import drawable
from .plotting.snapshots import _relayout as relayout_snapshots
from .mechanics.system import coordinate_names

if TYPE_CHECKING:
    from .schemes.base import SchemeBlockData

__all__ = ["model_figures", "paper_figures"]

def _declared(model_name, field, default):
    """What the declared model ``model_name`` states as ``field`` of its
    :class:`~pyomo_mbdyn.model_spec.ModelSpec` (``paper_figures``, ``units``,
    ``constraint_unit``, ``figures``); ``default`` for a model not declared."""
    from .plugins import model_spec, models

    if model_name not in models():
        return default
    return getattr(model_spec(model_name), field)


def paper_figures(model_name: str, dyn: SchemeBlockData) -> dict[str, str]:
    """``{figure kind: caption}`` naming the paper figure a generic figure corresponds to.

    Kinds: ``snapshots``, ``coordinates``, ``controls``, ``conservation``.  The model
    states them (its spec's ``paper_figures(dyn)``: for the paper's scheme and case
    only); ``{}`` for a model that states none.
    """
    hook = _declared(model_name, "paper_figures", None)
    return dict(hook(dyn)) if hook is not None else {}


def _save(fig, path, caption=None, layout=None):
    """Write ``fig`` to ``path`` atomically, in the format its suffix names (``.png``); a caption
    below, the figure laid out again above it (by ``layout(bottom)`` when given: the snapshots
    keep their legend's room and place their labels anew)."""
    if caption:
        fig.text(0.5, 0.006, caption, ha="center", va="bottom", fontsize=9, style="italic")
        bottom = 0.3 / fig.get_figheight()
        if layout is None:
            fig.tight_layout(rect=(0, bottom, 1, 1))
        else:
            layout(bottom)
    with atomic_write(path, "wb", what="figure") as f:
        fig.savefig(f, format=Path(path).suffix.lstrip(".").lower() or None, dpi=100)
    return path


def model_figures(model_name: str, model: Any, directory: str | os.PathLike[str]) -> list[Path]:
    """Write a model's standard figures as PNG files; return their paths.

    If the declared model's spec (:func:`pyomo_mbdyn.plugins.model_spec`) gives
    ``figures(model, directory)``, that hook writes them.  Otherwise, from the
    scheme block ``model.dyn``: ``<name>_snapshots.png`` (:func:`plot_snapshots`, also for a
    CoordinateSystem with a ``drawing``; for a system without bodies in space,
    ``<name>_coordinates.png`` by
    :func:`plot_coordinates`),
    ``<name>_controls.png`` (:func:`plot_controls`, only when the system has
    actuated coordinates) and ``<name>_conservation.png``
    (:func:`plot_conservation` of ``model.dyn.diagnostics()``, with the
    trajectory for the momentum balances).  The figures show the current
    variable values (solved or not); a caption names the paper figure each
    corresponds to (:func:`paper_figures`).  Each file is written atomically
    (:func:`~pyomo_mbdyn.atomic.atomic_write`): an old figure stays as it was
    until the new one is complete.
    """
    if not isinstance(model_name, str) or not model_name or any(c in model_name for c in "/\\"):
        raise ConfigurationError(f"model_name must be a non-empty file-name-safe string, got {model_name!r}")
    dyn = getattr(model, "dyn", None)
    if dyn is None or not callable(getattr(dyn, "trajectory", None)) or getattr(dyn, "record", None) is None:
        raise ConfigurationError(f"model {model_name!r} has no scheme block model.dyn to draw")
    directory = plotting.output_directory(directory)  # a DestinationError before anything is drawn
    hook = _declared(model_name, "figures", None)
    if hook is not None:
        paths = [Path(p) for p in hook(model, directory)]
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            raise ConfigurationError(f"figures hook of {model_name!r} did not write {missing}")
        return paths
    if dyn.record.system.hamiltonian:
        return _hamiltonian_figures(model_name, dyn, directory)

    captions = paper_figures(model_name, dyn)
    trajectory = dyn.trajectory()
    t, q, u = trajectory.t, trajectory.q, trajectory.u
    system = dyn.system
    paths = []
    if drawable(system):
        ax = plotting.plot_snapshots(system, q, t=t, offset="auto")
        paths.append(_save(ax.figure, directory / f"{model_name}_snapshots.png", captions.get("snapshots"),
                           layout=lambda bottom: relayout_snapshots(ax, bottom)))
    else:
        names = [f"{name}.{c}" for name, body in system.bodies.items() for c in coordinate_names(body)]
        ax = plotting.plot_coordinates(t, q, names)
        paths.append(_save(ax.figure, directory / f"{model_name}_coordinates.png", captions.get("coordinates")))
    if u.shape[1] > 0:
        ax = plotting.plot_controls(t, u, list(system.actuated))
        paths.append(_save(ax.figure, directory / f"{model_name}_controls.png", captions.get("controls")))
    fig = plotting.plot_conservation(dyn.diagnostics(), scheme=dyn.scheme, trajectory=trajectory,
                                     constraint_unit=_declared(model_name, "constraint_unit", None))
    paths.append(_save(fig, directory / f"{model_name}_conservation.png", captions.get("conservation")))
    return paths


def _dnco_scheme(dyn):
    """``dnco-<gradient>`` or ``direct-<gradient>``: the block's scheme with the gradient it uses."""
    return f"{'dnco' if dyn.config.method == 'indirect' else 'direct'}-{dyn.config.gradient}"


def _hamiltonian_figures(model_name, dyn, directory):
    """coordinates, controls, energy (T + V + W) and, for the indirect method, H^d."""
    trajectory = dyn.trajectory()
    t, q, u, lam = trajectory.t, trajectory.q, trajectory.u, trajectory.costates
    names = list(dyn.system.names)
    units = _declared(model_name, "units", {})
    time_unit = units.get("time")
    paths = [_save(plotting.plot_coordinates(t, q, names, units=units.get("q"), time_unit=time_unit).figure,
                   directory / f"{model_name}_coordinates.png"),
             _save(plotting.plot_controls(t, u, names, units=units.get("u"), time_unit=time_unit).figure,
                   directory / f"{model_name}_controls.png"),
             _save(plotting.plot_conservation(dyn.diagnostics(), scheme=_dnco_scheme(dyn),
                                              energy_unit=units.get("energy"), time_unit=time_unit,
                                              constraint_unit=units.get("constraint")),
                   directory / f"{model_name}_conservation.png")]
    if lam is not None:
        table = dyn.interval_table()
        ax = plotting.plot_discrete_hamiltonian(table["t"].to_numpy(), table["Hd"].to_numpy(), unit=units.get("Hd"),
                                                time_unit=time_unit)
        paths.append(_save(ax.figure, directory / f"{model_name}_hamiltonian.png"))
    return paths
