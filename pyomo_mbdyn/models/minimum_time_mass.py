"""minimum-time-mass: a mass moved rest to rest over a distance in minimum time (free final time).

A body of mass m slides along e1 on a prismatic joint from the ground (the
other five degrees of freedom locked; for the DNCO transcription the
one-degree-of-freedom Hamiltonian H = p²/2m), driven by one actuator with
``|u| ≤ U``, from rest at s = 0 to rest at s = d.  Defaults m = 2, d = 1.5, U = 3.

``objective="time"`` (default): minimise T.  Pontryagin's answer is bang-bang,
full force forward on [0, T/2] and backward on [T/2, T], so d = U T²/(4 m) and

    T* = 2 √(m d / U)        (= 2 for the defaults).

On a grid of even N every scheme of the library integrates this motion
exactly (piecewise-constant forces, switching at the node N/2: the midpoint
rule, the variational midpoint with its h/2 lumping, RATTLE and the DNCO
midpoint all reproduce quadratic motion), and any discrete solution is a
continuous one with a piecewise-constant force, so the discrete optimum is
T* itself — ``horizon`` equals T* to solver tolerance (tests/ocp/test_free_time.py).
For odd N the switch falls inside an interval and the discrete T is larger.

``objective="effort+time"``: minimise J = h Σ ½|u|² + c·T without force
bounds.  The effort of the best rest-to-rest motion over a fixed T is
6 m² d²/T³ (u linear in t), so J(T) = 6 m² d²/T³ + c T has its minimum at

    T* = (18 m² d² / c)^(1/4)        (= 2 for the defaults and c = 10.125),

reached by each scheme within its discretisation error, O(h²).

Schemes: ``bem``, ``rem``, ``dmocc``, ``dmocc_lm``, ``gc``, ``rattle`` (the
multibody blocks, built with ``free_horizon``) and ``direct-midpoint``,
``direct-gonzalez`` (the DNCO direct transcription).  Options of ``build``:
``mass``, ``distance``, ``force_limit``, ``time_weight``, ``objective``,
``horizon`` (the start value of T) and ``bounds`` (of T).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from pyomo_mbdyn.mechanics import HamiltonianSystem, MultibodySystem, Prismatic, RigidBody
from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.models import model_build

if TYPE_CHECKING:
    import pyomo.environ as pyo

__all__ = ["build_system", "build", "evaluate", "minimum_time", "effort_time_optimum", "STEPS", "HORIZON", "SCHEMES", "MODEL"]

STEPS, HORIZON, HORIZON_BOUNDS = 20, 3.0, (0.1, 100.0)
MASS, DISTANCE, FORCE_LIMIT, TIME_WEIGHT = 2.0, 1.5, 3.0, 10.125
MULTIBODY_SCHEMES = ("bem", "rem", "dmocc", "dmocc_lm", "gc", "rattle")
SCHEMES = MULTIBODY_SCHEMES + ("direct-midpoint", "direct-gonzalez")
OBJECTIVES = ("time", "effort+time")


def minimum_time(mass: float = MASS, distance: float = DISTANCE, force_limit: float = FORCE_LIMIT) -> float:
    """T* = 2 √(m d / U), the bang-bang rest-to-rest time."""
    return 2.0 * np.sqrt(mass * abs(distance) / force_limit)


def effort_time_optimum(mass: float = MASS, distance: float = DISTANCE, time_weight: float = TIME_WEIGHT) -> float:
    """T* = (18 m² d² / c)^(1/4), the minimiser of 6 m² d²/T³ + c T."""
    return (18.0 * mass**2 * distance**2 / time_weight) ** 0.25


def build_system(mass: float = MASS) -> MultibodySystem:
    """The slider: one rigid body on a prismatic joint along e1, actuated."""
    system = MultibodySystem("slider")
    body = RigidBody("mass", mass, (1.0, 1.0, 1.0))
    system.add_bodies(body)
    system.add_joints(Prismatic("slide", None, body, location=(0.0, 0.0, 0.0), axis=(1, 0, 0)))
    system.actuate("slide")
    return system


def _check(name, value, positive=True):
    if isinstance(value, bool) or not (isinstance(value, (int, float)) and np.isfinite(value)
                                       and (value > 0 or not positive)):
        from pyomo_mbdyn.errors import ConfigurationError

        raise ConfigurationError(f"minimum-time-mass: option {name!r} must be a positive number, got {value!r}")
    return float(value)


@model_build
def build(scheme: str = "bem", steps: int = STEPS, mass: float = MASS, distance: float = DISTANCE,
          force_limit: float = FORCE_LIMIT, objective: str = "time", time_weight: float = TIME_WEIGHT,
          horizon: float = HORIZON, bounds: Sequence[float] = HORIZON_BOUNDS,
          configurations: str | None = None) -> pyo.ConcreteModel:
    """The free-final-time problem ``m`` (``m.dyn`` the scheme block with ``final_time``);
    the start is the quintic rest-to-rest profile over ``horizon``; ``configurations``
    is the block option of the schemes that have it (default: the block's)."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.errors import ConfigurationError

    if scheme not in SCHEMES:
        raise ConfigurationError(f"minimum-time-mass: scheme {scheme!r} not offered; use one of {list(SCHEMES)}")
    if objective not in OBJECTIVES:
        raise ConfigurationError(f"minimum-time-mass: objective {objective!r}; use one of {list(OBJECTIVES)}")
    mass, distance, horizon = _check("mass", mass), _check("distance", distance), _check("horizon", horizon)
    force_limit, time_weight = _check("force_limit", force_limit), _check("time_weight", time_weight)
    if scheme in MULTIBODY_SCHEMES:
        m = _multibody(scheme, steps, mass, distance, horizon, bounds, configurations)
    else:
        m = _hamiltonian(scheme, steps, mass, distance, horizon, bounds)
    dyn = m.dyn
    weight = 1.0 if objective == "time" else time_weight
    if objective == "time":
        for i in dyn.intervals:
            for a in _actuators(dyn):
                dyn.u[i, a].setlb(-force_limit)
                dyn.u[i, a].setub(force_limit)
    if scheme in MULTIBODY_SCHEMES:
        if objective != "time":
            m.problem.minimise_control_effort({a: 0.5 for a in _actuators(dyn)})
        m.problem.minimise_final_time(weight)
    else:  # the DNCO block (no OptimalControlProblem): its own objective is the effort h Σ ½|u|²
        dyn.objective.deactivate()
        m.ocp = pyo.Block()
        effort = 0.0 if objective == "time" else dyn.cost
        m.ocp.objective = pyo.Objective(expr=weight * dyn.final_time + effort)
    m.exact_horizon = pyo.Param(initialize=minimum_time(mass, distance, force_limit) if objective == "time"
                                else effort_time_optimum(mass, distance, time_weight))
    return m


def _actuators(dyn):
    return dyn.actuated if dyn.component("actuated") is not None else dyn.dofs


def _multibody(scheme, steps, mass, distance, horizon, bounds, configurations):
    import pyomo.environ as pyo

    from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
    from pyomo_mbdyn.schemes import scheme_block

    system = build_system(mass)
    m = pyo.ConcreteModel("minimum-time-mass")
    options = {} if configurations is None else {"configurations": configurations}
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=horizon, free_horizon=bounds, **options)
    m.problem = problem = OptimalControlProblem(m.dyn)
    problem.fix_final_configuration([distance])
    problem.require_final_rest()
    m.dyn.initialize_from(interpolated_trajectory(system, m.dyn.step_length, steps, [distance]))
    return m


def _hamiltonian(scheme, steps, mass, distance, horizon, bounds):
    from pyomo_mbdyn.ocp.dnco import dnco_model

    system = HamiltonianSystem(1, lambda q: [[mass]], lambda q: 0.0 * q[0], names=["s"], name="slider")
    m = dnco_model(system, scheme, steps, horizon, name="minimum-time-mass", free_horizon=bounds,
                   initial_position=[0.0], final_position=[distance])
    s = distance * _quintic(np.arange(steps + 1) / steps)
    p = mass * distance * _quintic(np.arange(steps + 1) / steps, derivative=True) / horizon
    m.dyn.initialize_from(x=np.column_stack([s, p]))
    return m


def _quintic(tau, derivative=False):
    return 30 * tau**2 * (1 - tau) ** 2 if derivative else tau**3 * (10 - 15 * tau + 6 * tau**2)


def evaluate(model: pyo.ConcreteModel) -> dict[str, Any]:
    """``exact_horizon`` (T* in closed form) and ``horizon_error`` = T - T*."""
    import pyomo.environ as pyo

    exact = float(pyo.value(model.exact_horizon))
    return {"exact_horizon": exact, "horizon_error": model.dyn.final_time_value - exact}


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="mass moved rest to rest in minimum time, |u| ≤ U: T* = 2√(md/U) (free final time)",
    build=build,
    options={
        "mass": "m [kg]", "distance": "d [m], rest to rest", "force_limit": "U [N]: |u| ≤ U",
        "objective": "'time' (minimum T), 'effort' (h Σ u² at fixed T) or 'effort+time'",
        "time_weight": "weight of T in 'effort+time'", "horizon": "T [s] (fixed) or the start of the free T",
        "bounds": "[lower, upper] of the free final time [s]",
        "configurations": "node configurations of the block, for the schemes that have the option",
    },
    schemes=SCHEMES,
    evaluate=evaluate,
    # the slider's momentum changes by the applied impulse; T + V + W is conserved
    conserved_momenta=(),
    # units of the figures: coordinates, controls, energy, time, discrete Hamiltonian H^d
    # (the unit of ½|u|²), the residuals of the state, costate and control equations
    units={"q": "m", "u": "N", "energy": "J", "time": "s", "Hd": "N²", "constraint": "each equation's own"},
)
