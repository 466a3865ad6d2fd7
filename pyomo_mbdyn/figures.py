"""A model's standard figures as PNG files (``pyomo-mbdyn run MODEL --plot DIR``).

Glue between :mod:`pyomo_mbdyn.models` and :mod:`pyomo_mbdyn.plotting`: a
model module may define ``figures(model, directory)``; otherwise the generic
set is drawn from the scheme block ``model.dyn``.  Where a generic figure is
the counterpart of a figure of the papers (same example, same scheme, same
case), its caption names it (``cf. Fig. 7.5 of the thesis``); the captions
were checked against the figure captions and text of the sources
(``shared/seeds``: the DMOCC paper and Siebert's thesis).
"""

import importlib
from pathlib import Path

from . import plotting
from .atomic import atomic_write
from .errors import ConfigurationError
from .mechanics import MultibodySystem
from .schemes.base import coordinate_names

__all__ = ["model_figures", "paper_figures"]

_EQUATIONS = "each equation's own"
#: units of the systems given by formulas (HamiltonianSystem) of the DNCO models, by model name:
#: coordinates q, controls u, energy, time, discrete Hamiltonian H^d (the unit of ½|u|²); the
#: residual drawn is that of the state, costate and control equations at node k, each in its own unit
HAMILTONIAN_UNITS = {
    "pendulum": {"q": "rad", "u": "N m", "energy": "J", "time": "s", "Hd": "(N m)²", "constraint": _EQUATIONS},
    "three-link-arm": {"q": "rad", "u": "N m", "energy": "J", "time": "s", "Hd": "(N m)²", "constraint": _EQUATIONS},
    "minimum-time-mass": {"q": "m", "u": "N", "energy": "J", "time": "s", "Hd": "N²", "constraint": _EQUATIONS},
    # unit mass in the field V = -1/|q|: the thesis's example is nondimensional
    "particle": {"q": "1", "u": "1", "energy": "1", "time": "1", "Hd": "1", "constraint": "1"},
}
#: units of the constraint rows of systems given by formulas (CoordinateSystem), by model name
CONSTRAINT_UNITS = {"crane": "m²"}  # Φ = (x - s)² + z² - r²β²

_DMOCC = "DMOCC paper"
_THESIS = "thesis"


def _three_link_arm_case(dyn):
    """The arm's case as the thesis names it: free (Ch. 7), bounded (Ch. 6 (i)) or damped (Ch. 6 (ii))."""
    if dyn.free_horizon:
        return "time"
    if dyn.system.friction.any():
        return "damped"
    if any(v.lb is not None or v.ub is not None for v in dyn.u.values()):
        return "bounded"
    return "free"


def paper_figures(model_name, dyn):
    """``{figure kind: caption}`` naming the paper figure a generic figure corresponds to.

    Only for the model's paper scheme (and case); ``{}`` otherwise.  Kinds:
    ``snapshots``, ``coordinates``, ``controls``, ``conservation``.
    """
    scheme = dyn.scheme
    if model_name == "sphere" and scheme == "dmocc":
        return {"snapshots": f"cf. {_DMOCC} Fig. 7.2 (configuration of the rigid sphere)",
                "controls": f"cf. {_DMOCC} Fig. 7.4 (force and torque)",
                "conservation": f"cf. {_DMOCC} Figs. 7.5–7.6 (energy; change and consistency of angular "
                                "momentum)"}
    if model_name == "satellite" and scheme == "dmocc":
        return {"snapshots": f"cf. {_DMOCC} Fig. 7.7 (rigid body with three rotors)",
                "controls": f"cf. {_DMOCC} Fig. 7.8 (torque)",
                "conservation": f"cf. {_DMOCC} Fig. 7.9 (energy and angular momentum, zero throughout)"}
    if model_name == "satellite-underactuated" and scheme == "dmocc":
        return {"snapshots": f"cf. {_DMOCC} Fig. 7.10 (rigid body with two rotors)",
                "controls": f"cf. {_DMOCC} Fig. 7.12 (torque)",
                "conservation": f"cf. {_DMOCC} Fig. 7.11 (energy and angular momentum)"}
    if model_name == "pitcher" and scheme == "dmocc":
        return {"snapshots": f"cf. {_DMOCC} Fig. 7.14 (the optimal pitch)",
                "controls": f"cf. {_DMOCC} Fig. 7.15 (torques)",
                "conservation": f"cf. {_DMOCC} Figs. 7.16–7.17 (L₃ changes exactly by the torso torque; energy)"}
    if model_name == "three-link-arm" and scheme in ("bem", "rem"):
        figures = {"free": ("7.4", "7.5"), "bounded": ("6.2", "6.4"), "damped": ("6.3", "6.5")}
        case = _three_link_arm_case(dyn)
        if case in figures:
            snapshots, results = figures[case]
            return {"snapshots": f"cf. Fig. {snapshots} of the {_THESIS} (snapshots)",
                    "controls": f"cf. Fig. {results} of the {_THESIS} (1: torques)",
                    "conservation": f"cf. Fig. {results} of the {_THESIS} (3: energy consistency)"}
    if model_name == "crane" and scheme in ("bem", "rem"):
        return {"coordinates": f"cf. Fig. 7.3 of the {_THESIS} (2: redundant coordinates)",
                "controls": f"cf. Fig. 7.3 of the {_THESIS} (1: force and torque)",
                "conservation": f"cf. Fig. 7.3 of the {_THESIS} (3: energy consistency)"}
    if model_name == "satellite-spin" and scheme == "bem" and getattr(dyn.config, "contravariant", True):
        figure = "4.9" if dyn.system.friction.any() else "4.8"
        return {"conservation": f"cf. Fig. {figure} of the {_THESIS} (bottom: consistent incorporation; "
                                "kinetic energy and angular momentum)"}
    if model_name == "heavy-top" and scheme == "quaternion":
        return {"conservation": f"cf. Fig. 5.2 of the {_THESIS} (1: total energy and L₃ conserved)"}
    return {}


def _save(fig, path, caption=None):
    """Write ``fig`` to ``path`` atomically, in the format its suffix names (``.png``)."""
    if caption:
        fig.text(0.5, 0.006, caption, ha="center", va="bottom", fontsize=9, style="italic")
        fig.tight_layout(rect=(0, 0.04, 1, 1))
    with atomic_write(path, "wb", what="figure") as f:
        fig.savefig(f, format=Path(path).suffix.lstrip(".").lower() or None, dpi=100)
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

    captions = paper_figures(model_name, dyn)
    trajectory = dyn.trajectory()
    t, q, u = trajectory.t, trajectory.q, trajectory.u
    system = dyn.system
    paths = []
    if isinstance(system, MultibodySystem):
        ax = plotting.plot_snapshots(system, q, t=t, offset="auto")
        paths.append(_save(ax.figure, directory / f"{model_name}_snapshots.png", captions.get("snapshots")))
    else:
        names = [f"{name}.{c}" for name, body in system.bodies.items() for c in coordinate_names(body)]
        ax = plotting.plot_coordinates(t, q, names)
        paths.append(_save(ax.figure, directory / f"{model_name}_coordinates.png", captions.get("coordinates")))
    if u.shape[1] > 0:
        ax = plotting.plot_controls(t, u, list(system.actuated))
        paths.append(_save(ax.figure, directory / f"{model_name}_controls.png", captions.get("controls")))
    fig = plotting.plot_conservation(dyn.diagnostics(), scheme=dyn.scheme, trajectory=trajectory,
                                     constraint_unit=CONSTRAINT_UNITS.get(model_name))
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
    units = HAMILTONIAN_UNITS.get(model_name, {})
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
