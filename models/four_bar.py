"""four-bar: a crank-rocker four-bar linkage turned rest to rest by its crank, minimum effort (ours, issue 20).

A closed kinematic loop (:func:`pyomo_mbdyn.mechanics.examples.four_bar`): the
crank A→B (0.4 m, 1 kg), the coupler B→C (1.79 m, 4 kg) and the rocker D→C
(1.22 m, 3 kg) are slender bars with revolutes about e₃ at the ground pivots
A = (0, 0, 0) and D = (1.5, 0, 0) and at B = (0, 0.4, 0), C = (1.6, 1.2, 0);
gravity g = 9.81 along −e₂.  The spanning tree is ground–crank–coupler–rocker
(joints A, B, C); the revolute D closes the loop.  Of D's five rows three repeat
the others (the loop is planar): D[2], D[3], D[4] are left out of every scheme,
so that the KKT matrix stays regular (``dropped_constraints`` in the output).
The crank is actuated (u is minus the applied torque, thesis §0) and is the
independent coordinate; B and C follow from loop closure.

Problem: turn the crank by ``target`` (default π/2) in T = 1 s from rest to rest,
minimising J = h Σ ½u², N = 20.  The final configuration is stated on the
independent crank angle (BEM, DMOCC-LM: q_N fixed to the closed configuration
reached by continuation; REM, DMOCC: Σ w_A = target, the dependent increments
fixed by the rows ``joint[D].loop_closure``), final rest as ν_A,N = 0 (BEM, REM)
or the reduced Legendre transform (DMOCC).  The initial guess interpolates the
crank angle with every node closed
(:func:`~pyomo_mbdyn.ocp.interpolated_trajectory`).

Measured (casadi_ipopt, N = 20): BEM J = 60.95141724, REM 60.95141724 (equal to
2.5e-13 relative), DMOCC 61.11601913, DMOCC-LM 61.11601913; every constraint row
(the dropped ones too) holds to ≤ 1e-13 at every node and T + V − W (W the work of
the crank torque) is constant to round-off in BEM and REM.  ``evaluate`` adds the
dropped rows and, for the multiplier schemes, the largest force the closing joint
D transmits, max_k ‖γ_D,k‖ (N).
"""

import numpy as np

from pyomo_mbdyn.mechanics import examples
from pyomo_mbdyn.models import model_build

__all__ = ["build_system", "build", "evaluate", "DESCRIPTION", "STEPS", "HORIZON", "SCHEMES"]

DESCRIPTION = "crank-rocker four-bar (a closed loop), crank turned rest to rest, minimum effort (ours)"
STEPS, HORIZON = 20, 1.0
TARGET = np.pi / 2
SCHEMES = ("bem", "rem", "dmocc", "dmocc_lm")
#: gravity and the crank torque act: no momentum map is conserved; T + V + W is reported
CONSERVED_MOMENTA = ()


def build_system():
    """The crank-rocker of :func:`pyomo_mbdyn.mechanics.examples.four_bar` (crank ``A`` actuated)."""
    return examples.four_bar()


#: the options of ``build`` (``pyomo-mbdyn list --options four-bar``)
OPTIONS = {
    "target": "the crank's turn from the assembled configuration [rad], |target| < π (default π/2)",
    "horizon": "the duration T of the motion [s] (default 1)",
}


@model_build
def build(scheme="bem", steps=STEPS, target=TARGET, horizon=HORIZON):
    """The four-bar OCP ``m`` (``m.dyn`` scheme block, ``m.ocp`` problem); options: :data:`OPTIONS`."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
    from pyomo_mbdyn.schemes import record, scheme_block

    if record(scheme).name not in SCHEMES:
        raise ConfigurationError(f"four-bar: scheme {scheme!r} cannot close the loop; use one of {list(SCHEMES)}")
    target, horizon = _number("target", target), _number("horizon", horizon)
    if not abs(target) < np.pi:
        raise ConfigurationError(f"four-bar: target must lie within (-π, π) rad of the assembled crank angle "
                                 f"(turns of a loop are not supported), got {target!r}")
    if not horizon > 0:
        raise ConfigurationError(f"four-bar: horizon must be positive [s], got {horizon!r}")
    system = build_system()
    m = pyo.ConcreteModel("four-bar")
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=horizon)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({"A.angle": 0.5})  # J = h Σ ½u²
    problem.fix_final_configuration({"A": target})
    problem.require_final_rest()
    m.dyn.initialize_from(interpolated_trajectory(system, m.dyn.step_length, steps, [target]))
    m.problem = problem
    return m


def _number(name, value):
    from pyomo_mbdyn.errors import ConfigurationError

    try:
        value = float(value)
    except (TypeError, ValueError):
        value = float("nan")
    if not np.isfinite(value):
        raise ConfigurationError(f"four-bar: {name} must be a finite number, got {value!r}")
    return value


def closing_joint_forces(dyn):
    """γ_D per interval (N, 2): the multipliers of the kept rows D[0], D[1] of the closing joint
    (x and y of the force the ground pivot D exerts, in the library's sign: Gᵀγ enters
    M v̇ + ∇V + Gᵀγ + Bᵀu = 0); None for the reduced schemes, which have no multipliers."""
    import pyomo.environ as pyo

    joint = dyn.joint["D"]
    if joint.component("lam") is None:
        return None
    return np.array([[pyo.value(joint.lam[k, r]) for r in joint.rows] for k in dyn.intervals])


def evaluate(model):
    """``dropped_constraints`` (the loop rows left out) and, for bem and dmocc_lm,
    ``closing_joint_force_max`` = max_k ‖γ_D,k‖ (N)."""
    out = {"dropped_constraints": list(model.dyn.dropped_constraints)}
    forces = closing_joint_forces(model.dyn)
    if forces is not None:
        out["closing_joint_force_max"] = float(np.linalg.norm(forces, axis=1).max())
    return out
