"""slider-crank: the piston of a slider-crank moved to a target by the crank torque, rest to rest (ours).

A closed loop with a prismatic joint, :func:`pyomo_mbdyn.mechanics.examples.slider_crank`:
the crank (r = 0.3 m, 1 kg, a slender bar) turns about e₃ at the origin
(revolute A), the connecting rod (L = 1 m, 2 kg) hangs on it at B, the piston
(3 kg) slides along e₁ on the ground (prismatic P), and the revolute C between
rod and piston closes the loop; C[2], C[3], C[4] repeat the other rows (a
planar loop written in 3-D) and are left out of the schemes.  Gravity
g = 9.81 m/s² along −e₂.  Assembled with the crank upright (θ₀ = π/2 from
e₁): the piston at x₀ = √(L² − r²) = 0.9539 m.

Problem: move the piston to ``target`` x (default 1.1 m) in T = 1 s from rest
to rest, minimising J = h Σ ½u² with the applied crank torque u, N = 20.  The crank
is the independent coordinate (the piston would be singular at the dead centres), so the target is mapped to a crank angle: with
x = r cos θ + √(L² − r² sin² θ) (in line: the piston's path passes through the crank pivot),

    cos θ = (x² + r² − L²) / (2 r x),

on the branch the crank starts on, θ ∈ (0, π), one-to-one for
L − r < x < L + r; the dead centres θ = 0, π are not crossed.  The final
configuration is stated on the crank angle, θ_N − θ₀ (bem: q_N the closed
configuration; rem: the crank increments), final rest P(q_N)ᵀ M v_N = 0 on the crank
(bem, rem; with the final rest ν_A,N = 0 used earlier, which is not rest, the J below were 1.59747609).

Measured (casadi_ipopt, default options, N = 20, target 1.1 m):
J = 1.59749536 (bem), 1.59749536 (rem; 4.5e-13 relative from bem),
1.60408574 (dmocc), 1.60408574 (dmocc_lm; 3.2e-10 relative from dmocc).  The
piston ends 4.4e-16 m (bem), 1.9e-13 m (rem) from the target; every row of
the loop holds to 3.9e-16 (bem), 5.0e-12 (rem) at every node; T + V + W is
constant to 1.8e-15 J (bem), 2.1e-11 J (rem) of E₀ = 4.41 J.

``evaluate`` adds ``objective``, ``piston_final`` (x of the piston at t_N from
the solved q, m), ``piston_error`` = ‖x_N − target‖, ``loop_closure`` (m, all
rows), ``energy_balance`` (J), ``dropped_constraints`` and
``partition_condition_max`` (the largest cond(J_d) over the nodes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pyomo_mbdyn.mechanics import examples
from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.models import finite_option, model_build
from pyomo_mbdyn.models.four_bar import SCHEMES, check_scheme, energy_balance, loop_closure, \
    objective_value, partition_condition_max

if TYPE_CHECKING:
    import pyomo.environ as pyo

    from pyomo_mbdyn.mechanics import MultibodySystem

__all__ = ["build_system", "build", "evaluate", "crank_angle", "piston_position", "STEPS", "HORIZON", "TARGET", "SCHEMES", "MODEL"]

STEPS, HORIZON = 20, 1.0
#: crank radius r and rod length L [m]; the crank's angle from e₁ at assembly [rad]
CRANK, ROD, START_ANGLE = 0.3, 1.0, np.pi / 2
#: the piston's final position [m]
TARGET = 1.1


def build_system() -> MultibodySystem:
    """The slider-crank of :func:`pyomo_mbdyn.mechanics.examples.slider_crank`, crank upright."""
    return examples.slider_crank(crank=CRANK, rod=ROD, angle=START_ANGLE)


def crank_angle(x: float) -> float:
    """θ ∈ (0, π) from e₁ that puts the piston at x: cos θ = (x² + r² − L²)/(2 r x)."""
    return float(np.arccos((x * x + CRANK**2 - ROD**2) / (2 * CRANK * x)))


def piston_position(theta: float) -> float:
    """x = r cos θ + √(L² − r² sin² θ): the piston at crank angle θ (the inverse of :func:`crank_angle`)."""
    return float(CRANK * np.cos(theta) + np.sqrt(ROD**2 - (CRANK * np.sin(theta)) ** 2))


def _reachable(target):
    """The target as a float, or a ConfigurationError naming it and the reachable range."""
    from pyomo_mbdyn.errors import ConfigurationError

    target = finite_option("slider-crank", "target", target)
    if not ROD - CRANK < target < ROD + CRANK:
        raise ConfigurationError(
            f"slider-crank: target = {target!r} m is not reachable without a dead centre; the piston reaches "
            f"x in ({ROD - CRANK:g}, {ROD + CRANK:g}) m (L − r, L + r) from the crank's start")
    return target


@model_build
def build(scheme: str = "bem", steps: int = STEPS, target: float = TARGET) -> pyo.ConcreteModel:
    """The slider-crank OCP ``m`` (``m.dyn`` scheme block, ``m.problem``): the piston moved to
    ``target`` [m] in T = 1 s, rest to rest, J = h Σ ½u²; options: ``MODEL.options``."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
    from pyomo_mbdyn.schemes import scheme_block

    check_scheme(scheme, "slider-crank")
    target = _reachable(target)
    turn = crank_angle(target) - START_ANGLE
    system = build_system()
    m = pyo.ConcreteModel("slider-crank")
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=HORIZON)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({"A.angle": 0.5})  # J = h Σ ½u²
    problem.fix_final_configuration({"A": turn})  # the independent crank angle
    problem.require_final_rest()
    m.dyn.initialize_from(interpolated_trajectory(system, m.dyn.step_length, steps, [turn]))
    m.problem = problem
    m.piston_target = target  # [m], read by evaluate
    return m


def evaluate(model: pyo.ConcreteModel) -> dict[str, Any]:
    """``objective``, ``piston_final`` (the piston body's x at t_N, m), ``piston_error``,
    ``loop_closure`` (m, all rows), ``energy_balance`` (J), ``dropped_constraints`` and
    ``partition_condition_max`` (the largest cond(J_d) over the nodes)."""
    dyn = model.dyn
    q = dyn.trajectory().q
    x_final = float(np.asarray(dyn.system.body_coordinates(q[-1], "piston"), float)[0])
    return {"objective": objective_value(model), "piston_final": x_final,
            "piston_error": abs(x_final - model.piston_target),
            "loop_closure": loop_closure(dyn.system, q), "energy_balance": energy_balance(dyn),
            "dropped_constraints": list(dyn.system.dropped_constraints),
            "partition_condition_max": partition_condition_max(dyn)}


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="slider-crank (a closed loop with a prismatic joint): the piston to a target, minimum effort (ours)",
    build=build,
    options={
        "target": f"the piston's final position x [m], strictly between the dead centres L − r = {ROD - CRANK:g} "
                  f"and L + r = {ROD + CRANK:g} (default {TARGET:g})",
    },
    schemes=SCHEMES,
    evaluate=evaluate,
    # gravity and the crank torque act: no momentum map is conserved; T + V + W is
    conserved_momenta=(),
)
