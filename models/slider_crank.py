"""slider-crank: the piston of a slider-crank moved to a target by the crank torque, rest to rest (ours, issue 20).

A closed loop with a prismatic joint (:func:`pyomo_mbdyn.mechanics.examples.slider_crank`):
the crank (r = 0.3 m, 1 kg) turns about e₃ at the origin (revolute A), the
connecting rod (L = 1 m, 2 kg) hangs on it at B, the piston (3 kg) slides along
e₁ on the ground (prismatic P), and the revolute C between rod and piston closes
the loop (C[2], C[3], C[4] repeat the other rows and are left out).  Gravity
g = 9.81 along −e₂.  Assembled with the crank upright (θ = π/2 from e₁), the
piston at x₀ = √(L² − r²) = 0.9539 m.

Problem: move the piston to ``target`` x (default 1.1 m) in T = 1 s from rest to
rest, minimising J = h Σ ½u² with the crank torque (u is minus the applied
torque), N = 20.  The crank is the independent coordinate (the piston would be
singular at the dead centres): the target is mapped to the crank angle on the
branch the crank starts on, θ ∈ (0, π) — x = r cos θ + √(L² − r² sin² θ), so

    cos θ = (x² + r² − L²) / (2 r x),

one-to-one for L − r < x < L + r (between the dead centres, which are not crossed).

Measured (casadi_ipopt at its defaults, N = 20): BEM J = 1.597476089, REM
1.597476089 (equal to 3e-12 relative), DMOCC 1.604085737, DMOCC-LM 1.604085737; the
piston ends within 2e-13 m of the target and every row of the loop (the dropped ones
too) holds to ≤ 1e-10 at every node (the solver's tolerance; 2e-14 in BEM).
``evaluate`` adds the final piston position and its distance to the target.
"""

import numpy as np

from pyomo_mbdyn.mechanics import examples
from pyomo_mbdyn.models import model_build

__all__ = ["build_system", "build", "evaluate", "crank_angle", "DESCRIPTION", "STEPS", "HORIZON", "SCHEMES"]

DESCRIPTION = "slider-crank (a closed loop with a prismatic joint), piston to a target, minimum effort (ours)"
STEPS, HORIZON = 20, 1.0
CRANK, ROD = 0.3, 1.0
START_ANGLE = np.pi / 2
TARGET = 1.1
SCHEMES = ("bem", "rem", "dmocc", "dmocc_lm")
CONSERVED_MOMENTA = ()


def build_system():
    """The slider-crank of :func:`pyomo_mbdyn.mechanics.examples.slider_crank`, crank upright."""
    return examples.slider_crank(crank=CRANK, rod=ROD, angle=START_ANGLE)


def crank_angle(x):
    """θ ∈ (0, π) (from e₁) that puts the piston at x: cos θ = (x² + r² − L²)/(2 r x)."""
    return float(np.arccos((x * x + CRANK**2 - ROD**2) / (2 * CRANK * x)))


#: the options of ``build`` (``pyomo-mbdyn list --options slider-crank``)
OPTIONS = {
    "target": f"the piston's final position x [m], strictly between the dead centres {ROD - CRANK:g} and "
              f"{ROD + CRANK:g} (default {TARGET:g})",
}


@model_build
def build(scheme="bem", steps=STEPS, target=TARGET):
    """The slider-crank OCP ``m`` (``m.dyn`` scheme block, ``m.ocp`` problem); options: :data:`OPTIONS`."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
    from pyomo_mbdyn.schemes import record, scheme_block

    if record(scheme).name not in SCHEMES:
        raise ConfigurationError(f"slider-crank: scheme {scheme!r} cannot close the loop; use one of {list(SCHEMES)}")
    try:
        target = float(target)
    except (TypeError, ValueError):
        target = float("nan")
    if not (ROD - CRANK < target < ROD + CRANK):
        raise ConfigurationError(
            f"slider-crank: target = {target!r} m is not reachable without a dead centre; the piston moves "
            f"strictly between {ROD - CRANK:g} m and {ROD + CRANK:g} m")
    turn = crank_angle(target) - START_ANGLE
    system = build_system()
    m = pyo.ConcreteModel("slider-crank")
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=HORIZON)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({"A.angle": 0.5})  # J = h Σ ½u²
    problem.fix_final_configuration({"A": turn})
    problem.require_final_rest()
    m.dyn.initialize_from(interpolated_trajectory(system, m.dyn.step_length, steps, [turn]))
    m.problem = problem
    m.piston_target = target
    return m


def evaluate(model):
    """``piston_final`` (x of the piston at t_N, m), ``piston_error`` (the distance ‖x_N − target‖) and the
    ``dropped_constraints`` and ``partition_condition_max`` (the largest cond(J_d) over the nodes)."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.mechanics.loops import partition_condition

    x_final = float(pyo.value(model.dyn.body["piston"].q[model.dyn.config.steps, "x"]))
    return {"piston_final": x_final, "piston_error": abs(x_final - model.piston_target),
            "dropped_constraints": list(model.dyn.dropped_constraints),
            "partition_condition_max": max(partition_condition(model.dyn.system, q)
                                           for q in model.dyn.configuration_values())}
