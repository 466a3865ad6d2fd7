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
