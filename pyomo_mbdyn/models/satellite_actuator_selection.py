"""satellite-actuator-selection: which two of the satellite's three rotors to keep (DMOCC §7.2, MINLP).

The DMOCC paper removes rotor 3 by hand and reports the cost
(:mod:`pyomo_mbdyn.models.satellite_underactuated`).  The converse question:
*which* two motors should the satellite keep for the reorientation by π about
(1, 2, 3)/√14 in T = 5 with least effort J = h Σ‖τ_n‖²?  All three rotors
stay on the satellite; a rotor whose motor is dropped turns freely (u = 0),
so the subset {1, 2} is not the paper's underactuated satellite, whose rotor
3 is removed with its mass.

Formulation (:meth:`~pyomo_mbdyn.ocp.OptimalControlProblem.select_actuators`):
binaries y_a per rotor motor, ``|u_{i,a}| ≤ U y_a`` at every interval, Σ y_a = 2;
U = ``bound`` (default 5000 N m, above the torques every kept pair needs (3672 at most), so
that it is inactive in every subset's optimum and the MINLP compares the
subsets fairly).  The satellite's own safeguards stay: DMOCC in the absolute
form, the half-turn exclusion on the final orientation, per-step rotor
increments ≤ 1 rad (off the aliased optima), the interpolated zero-momentum
guess.  Solved by ``casadi_bonmin``; ``pyomo-mbdyn run
satellite-actuator-selection --json`` adds ``active_actuators``.  The check is
:func:`pyomo_mbdyn.ocp.enumerate_actuators`: the three NLPs, each from the
same guess (tests/ocp/test_actuator_selection.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.models import model_build, satellite

if TYPE_CHECKING:
    import pyomo.environ as pyo

__all__ = ["build", "evaluate", "STEPS", "HORIZON", "KEEP", "BOUND", "MODEL"]

STEPS, HORIZON = satellite.STEPS, satellite.HORIZON
KEEP, BOUND = 2, 5.0e3


@model_build
def build(scheme: str = "dmocc", steps: int = STEPS, keep: int = KEEP, bound: float = BOUND,
          cost: float | Mapping[str, float] | None = None, increment_bound: float | None = 1.0,
          guess: str = "interpolate", kept: Sequence[str] | None = None) -> pyo.ConcreteModel:
    """The selection MINLP ``m`` (``m.problem.active_actuators()`` after a solve);
    ``kept``: a list of rotor motors (``"axle1.angle"``, …) to fix instead (the NLP of that subset)."""
    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.ocp import fix_actuators

    if isinstance(keep, bool) or not isinstance(keep, (int, np.integer)) or not 1 <= keep <= 3:
        raise ConfigurationError(f"satellite-actuator-selection: keep must be the number of rotor motors to "
                                 f"keep, an integer in 1..3, got {keep!r}")
    m = satellite.build(scheme, steps, rotors=(1, 2, 3), increment_bound=increment_bound, guess=guess)
    m.name = "satellite-actuator-selection"
    m.problem.select_actuators(keep, bound, cost=cost, exactly=True)
    if kept is not None:
        fix_actuators(m, kept)
    return m


def evaluate(model: pyo.ConcreteModel) -> dict[str, Any]:
    """``active_actuators``: the rotor motors kept."""
    return {"active_actuators": model.problem.active_actuators()}


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="satellite reorientation: which 2 of 3 rotor motors to keep (MINLP, Bonmin)",
    build=build,
    options={
        "keep": "how many of the three rotor motors to keep (default 2)",
        "bound": "U [N m] of |u| ≤ U y per motor (above what the kept motors need)",
        "cost": "fixed cost per kept motor added to the objective (a number or a dict per motor; null: none)",
        "increment_bound": "bound on the rotation increments per step [rad]",
        "guess": "'interpolate' (default) or 'simulate', as for satellite",
        "kept": "a list of motors (\"axle1.angle\", …) to fix instead of choosing (the NLP of that subset)",
    },
    evaluate=evaluate,
    conserved_momenta=satellite.MODEL.conserved_momenta,
    energy_balance=satellite.MODEL.energy_balance,
)
