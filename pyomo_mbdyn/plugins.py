"""All registrations of pyomo_mbdyn with Pyomo, made once on import."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType

    from .model_spec import ModelSpec

_loaded = False


def load() -> None:
    """Register the solver plugins and fix Pyomo's .nl writer
    (see :mod:`pyomo_mbdyn.solvers.pyomo_fixes`).

    ``casadi_ipopt`` / ``casadi_bonmin`` solve in process (Pyomo's ``*_direct``
    kind of interface); ``casadi_ipopt_nl`` / ``casadi_bonmin_nl`` solve the same
    problems through the AMPL .nl/.sol protocol in a child process; ``casadi_fatrop``
    solves in process where the stage structure fits (:mod:`pyomo_mbdyn.solvers.stages`).
    """
    global _loaded
    if _loaded:
        return
    from pyomo.opt import SolverFactory

    from .solvers import pyomo_fixes
    from .solvers.casadi_direct import CasadiBonminDirect, CasadiFatropDirect, CasadiIpoptDirect
    from .solvers.casadi_plugin import CasadiBonminNL, CasadiIpoptNL

    pyomo_fixes.apply()

    SolverFactory.register(
        "casadi_ipopt", doc="IPOPT from the casadi wheel, in process (CasADi NLP built from the model)"
    )(CasadiIpoptDirect)
    SolverFactory.register(
        "casadi_bonmin", doc="Bonmin from the casadi wheel, in process (CasADi NLP built from the model)"
    )(CasadiBonminDirect)
    SolverFactory.register(
        "casadi_fatrop", doc="fatrop from the casadi wheel, in process (the model's NLP in stage form)"
    )(CasadiFatropDirect)
    SolverFactory.register(
        "casadi_ipopt_nl", doc="IPOPT from the casadi wheel, through the AMPL .nl/.sol protocol in a subprocess"
    )(CasadiIpoptNL)
    SolverFactory.register(
        "casadi_bonmin_nl", doc="Bonmin from the casadi wheel, through the AMPL .nl/.sol protocol in a subprocess"
    )(CasadiBonminNL)
    _loaded = True


# -- models ----------------------------------------------------------------------------
#: the entry-point group in which a package declares models: ``name = package.module``, whose
#: ``MODEL`` is the model's :class:`~pyomo_mbdyn.model_spec.ModelSpec` (or ``name =
#: package.module:OBJECT`` naming the spec); the library's own models are declared the same
#: way, in its setup.cfg
MODEL_GROUP = "pyomo_mbdyn.models"

_models: dict[str, str] | None = None


def models() -> dict[str, str]:
    """Every declared model: ``{name: entry point}`` (``package.module``), the
    library's own first, then other installed packages' (``pyomo-mbdyn list`` and ``run``
    see them), each in the order of its metadata (setuptools writes them by name).  Read
    once per process; the same dict on every call.

    A package adds a model without any change here, e.g. in its ``pyproject.toml``::

        [project.entry-points."pyomo_mbdyn.models"]
        my-robot = "my_package.my_robot"

    (the module ends with ``MODEL = ModelSpec(...)``).

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


def _entry(name, what):
    from .errors import ConfigurationError

    table = models()
    if not isinstance(name, str) or name not in table:
        available = sorted(table) or "none (is pyomo_mbdyn installed? pip install -e .)"
        raise ConfigurationError(f"{what}: unknown model {name!r}; available: {available}")
    module, _, attribute = table[name].partition(":")
    return module.strip(), attribute.strip() or "MODEL"


def model_module(name: str, what: str = "pyomo-mbdyn") -> ModuleType:
    """The imported module of the declared model ``name`` (its constants, ``build_system``
    …; what the library reads is :func:`model_spec`); an unknown name is a
    :class:`~pyomo_mbdyn.errors.ConfigurationError` listing the models there are."""
    import importlib

    return importlib.import_module(_entry(name, what)[0])


def model_spec(name: str, what: str = "pyomo-mbdyn") -> ModelSpec:
    """The :class:`~pyomo_mbdyn.model_spec.ModelSpec` of the declared model ``name``: the
    object its entry point names.  An unknown name, or an entry point naming anything
    else, is a :class:`~pyomo_mbdyn.errors.ConfigurationError` (naming the models there
    are, or what the module must declare).

    Examples
    --------
    >>> spec = model_spec("crane")
    >>> spec.description
    'underactuated overhead crane, rest to rest: BEM = REM (thesis E5)'
    >>> spec.conserved_momenta, spec.constraint_unit
    ((), 'm²')
    """
    import functools
    import importlib

    from .errors import ConfigurationError
    from .model_spec import ModelSpec

    module_name, attribute = _entry(name, what)
    module = importlib.import_module(module_name)
    try:
        spec = functools.reduce(getattr, attribute.split("."), module)
    except AttributeError:
        spec = None
    if not isinstance(spec, ModelSpec):
        raise ConfigurationError(
            f"model {name!r} ({module_name}) declares no ModelSpec as {attribute}: end the module with "
            f"{attribute} = pyomo_mbdyn.model_spec.ModelSpec(description=..., build=build, ...)")
    return spec
