"""All registrations of pyomo_mbdyn with Pyomo, made once on import."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType

_loaded = False


def load() -> None:
    """Register the solver plugins and fix Pyomo's .nl writer
    (see :mod:`pyomo_mbdyn.solvers.pyomo_fixes`).

    ``casadi_ipopt`` / ``casadi_bonmin`` solve in process (Pyomo's ``*_direct``
    kind of interface); ``casadi_ipopt_nl`` / ``casadi_bonmin_nl`` solve the same
    problems through the AMPL .nl/.sol protocol in a child process.
    """
    global _loaded
    if _loaded:
        return
    from pyomo.opt import SolverFactory

    from .solvers import pyomo_fixes
    from .solvers.casadi_direct import CasadiBonminDirect, CasadiIpoptDirect
    from .solvers.casadi_plugin import CasadiBonminNL, CasadiIpoptNL

    pyomo_fixes.apply()

    SolverFactory.register(
        "casadi_ipopt", doc="IPOPT from the casadi wheel, in process (CasADi NLP built from the model)"
    )(CasadiIpoptDirect)
    SolverFactory.register(
        "casadi_bonmin", doc="Bonmin from the casadi wheel, in process (CasADi NLP built from the model)"
    )(CasadiBonminDirect)
    SolverFactory.register(
        "casadi_ipopt_nl", doc="IPOPT from the casadi wheel, through the AMPL .nl/.sol protocol in a subprocess"
    )(CasadiIpoptNL)
    SolverFactory.register(
        "casadi_bonmin_nl", doc="Bonmin from the casadi wheel, through the AMPL .nl/.sol protocol in a subprocess"
    )(CasadiBonminNL)
    _loaded = True


# -- models ----------------------------------------------------------------------------
#: the entry-point group in which a package declares models: ``name = package.module``,
#: the module exporting ``DESCRIPTION``, ``build(scheme=…, steps=…, **options)`` and
#: optionally ``OPTIONS``, ``STEPS``, ``SCHEMES``, ``evaluate``, ``figures`` (the
#: library's own models are declared the same way, in its setup.cfg)
MODEL_GROUP = "pyomo_mbdyn.models"

_models: dict[str, str] | None = None


def models() -> dict[str, str]:
    """Every declared model: ``{name: module path}``, the library's own first, then
    other installed packages' (``pyomo-mbdyn list`` and ``run`` see them), each in
    the order of its metadata (setuptools writes them by name).  Read once per
    process; the same dict on every call.

    A package adds a model without any change here, e.g. in its ``pyproject.toml``::

        [project.entry-points."pyomo_mbdyn.models"]
        my-robot = "my_package.my_robot"

    A name declared twice keeps the first declaration (the library's own before
    others; a warning names the module left out).
    """
    global _models
    if _models is None:
        _models = _declared_models()
    return _models


def _declared_models():
    import logging
    from importlib.metadata import entry_points

    declared = sorted(entry_points(group=MODEL_GROUP),
                      key=lambda ep: 0 if ep.value.startswith("pyomo_mbdyn.") else 1)  # a stable sort
    out = {}
    for ep in declared:
        if ep.name in out:
            if out[ep.name] != ep.value:
                logging.getLogger(__name__).warning(
                    "model %r is declared by %s and %s; using %s", ep.name, out[ep.name], ep.value, out[ep.name])
            continue
        out[ep.name] = ep.value
    return out


def model_module(name: str, what: str = "pyomo-mbdyn") -> ModuleType:
    """The imported module of the declared model ``name``; an unknown name is a
    :class:`~pyomo_mbdyn.errors.ConfigurationError` listing the models there are."""
    import importlib

    from .errors import ConfigurationError

    table = models()
    if not isinstance(name, str) or name not in table:
        available = sorted(table) or "none (is pyomo_mbdyn installed? pip install -e .)"
        raise ConfigurationError(f"{what}: unknown model {name!r}; available: {available}")
    return importlib.import_module(table[name])
