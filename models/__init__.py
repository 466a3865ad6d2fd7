"""Paper examples as runnable models (installed as ``pyomo_mbdyn.models``).

Each module builds a multibody system and a problem on it and returns a Pyomo
model; ``pyomo-mbdyn list`` shows what is here, with each module's
``DESCRIPTION``.
"""

import importlib

#: model name → module; each module's ``DESCRIPTION`` is its one-line description
MODELS = {
    "heavy-top": "pyomo_mbdyn.models.heavy_top",
    "satellite": "pyomo_mbdyn.models.satellite",
    "sphere": "pyomo_mbdyn.models.sphere",
    "satellite-underactuated": "pyomo_mbdyn.models.satellite_underactuated",
    "satellite-actuator-selection": "pyomo_mbdyn.models.satellite_actuator_selection",
    "three-link-arm": "pyomo_mbdyn.models.three_link_arm",
    "crane": "pyomo_mbdyn.models.crane",
    "pitcher": "pyomo_mbdyn.models.pitcher",
    "satellite-spin": "pyomo_mbdyn.models.satellite_spin",
    "pendulum": "pyomo_mbdyn.models.pendulum",
    "particle": "pyomo_mbdyn.models.particle",
    "minimum-time-mass": "pyomo_mbdyn.models.minimum_time_mass",
}


def description(name):
    """The one-line ``DESCRIPTION`` of model ``name`` (from its module)."""
    return importlib.import_module(MODELS[name]).DESCRIPTION


def model_build(build):
    """Decorator of a model module's ``build``: an option it does not take is a
    :class:`~pyomo_mbdyn.errors.ConfigurationError` naming the model and listing the
    options it takes (as ``pyomo-mbdyn run --set`` reports it), not Python's bare
    ``TypeError``.  The signature is kept (``inspect.signature`` follows it)."""
    import functools
    import inspect

    parameters = inspect.signature(build).parameters
    open_ended = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    module = build.__module__.rpartition(".")[2]
    name = next((n for n, m in MODELS.items() if m.rpartition(".")[2] == module), module)

    @functools.wraps(build)
    def checked(*args, **kwds):
        unknown = [] if open_ended else sorted(set(kwds) - set(parameters))
        if unknown:
            from pyomo_mbdyn.errors import ConfigurationError

            offered = [p for p in parameters if p not in ("scheme", "steps")]
            raise ConfigurationError(f"model {name!r} takes no option {unknown[0]!r}; its options are {offered}")
        return build(*args, **kwds)

    return checked
