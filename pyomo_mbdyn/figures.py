"""A model's standard figures as PNG files (``pyomo-mbdyn run MODEL --plot DIR``).

Glue between :mod:`pyomo_mbdyn.models` and :mod:`pyomo_mbdyn.plotting`: a
model module may define ``figures(model, directory)``; otherwise the generic
set is drawn from the scheme block ``model.dyn``.
"""

import importlib
from pathlib import Path

from . import plotting
from .errors import ConfigurationError
from .mechanics import MultibodySystem
from .schemes.base import coordinate_names

__all__ = ["model_figures"]


def _save(fig, path):
    fig.savefig(path, dpi=100)
    return path


def model_figures(model_name, model, directory):
    """Write a model's standard figures as PNG files; return their paths.

    If the model's module (``pyomo_mbdyn.models``) defines
    ``figures(model, directory)``, that hook writes them.  Otherwise, from the
    scheme block ``model.dyn``: ``<name>_snapshots.png`` (:func:`plot_snapshots`;
    for a system without bodies in space, ``<name>_coordinates.png`` by
    :func:`plot_coordinates`),
    ``<name>_controls.png`` (:func:`plot_controls`, only when the system has
    actuated coordinates) and ``<name>_conservation.png``
    (:func:`plot_conservation` of ``model.dyn.diagnostics()``).  The figures
    show the current variable values (solved or not).
    """
    if not isinstance(model_name, str) or not model_name or any(c in model_name for c in "/\\"):
        raise ConfigurationError(f"model_name must be a non-empty file-name-safe string, got {model_name!r}")
    dyn = getattr(model, "dyn", None)
    if dyn is None or not callable(getattr(dyn, "trajectory", None)) or getattr(dyn, "record", None) is None:
        raise ConfigurationError(f"model {model_name!r} has no scheme block model.dyn to draw")
    directory = plotting.output_directory(directory)  # a DestinationError before anything is drawn
    from pyomo_mbdyn.models import MODELS

    if model_name in MODELS:
        hook = getattr(importlib.import_module(MODELS[model_name]), "figures", None)
        if hook is not None:
            paths = [Path(p) for p in hook(model, directory)]
            missing = [str(p) for p in paths if not p.is_file()]
            if missing:
                raise ConfigurationError(f"figures hook of {model_name!r} did not write {missing}")
            return paths
    if dyn.record.system == "hamiltonian":
        return _hamiltonian_figures(model_name, dyn, directory)
    
    trajectory = dyn.trajectory()
    t, q, u = trajectory.t, trajectory.q, trajectory.u
    system = dyn.system
    paths = []
    if isinstance(system, MultibodySystem):
        ax = plotting.plot_snapshots(system, q, t=t, offset="auto")
        paths.append(_save(ax.figure, directory / f"{model_name}_snapshots.png"))
    else:
        names = [f"{name}.{c}" for name, body in system.bodies.items() for c in coordinate_names(body)]
        ax = plotting.plot_coordinates(t, q, names)
        paths.append(_save(ax.figure, directory / f"{model_name}_coordinates.png"))
    if u.shape[1] > 0:
        ax = plotting.plot_controls(t, u, list(system.actuated))
        paths.append(_save(ax.figure, directory / f"{model_name}_controls.png"))
    paths.append(_save(plotting.plot_conservation(dyn.diagnostics()), directory / f"{model_name}_conservation.png"))
    return paths


def _hamiltonian_figures(model_name, dyn, directory):
    """coordinates, controls, energy (T + V + W) and, for the indirect method, H^d."""
    trajectory = dyn.trajectory()
    t, q, u, lam = trajectory.t, trajectory.q, trajectory.u, trajectory.costates
    names = list(dyn.system.names)
    paths = [_save(plotting.plot_coordinates(t, q, names).figure, directory / f"{model_name}_coordinates.png"),
             _save(plotting.plot_controls(t, u, names).figure, directory / f"{model_name}_controls.png"),
             _save(plotting.plot_conservation(dyn.diagnostics()), directory / f"{model_name}_conservation.png")]
    if lam is not None:
        table = dyn.interval_table()
        ax = plotting.plot_discrete_hamiltonian(table["t"].to_numpy(), table["Hd"].to_numpy())
        paths.append(_save(ax.figure, directory / f"{model_name}_hamiltonian.png"))
    return paths
