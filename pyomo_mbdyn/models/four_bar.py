"""four-bar: a crank-rocker four-bar linkage turned rest to rest by its crank, minimum effort (ours).

A closed kinematic loop, :func:`pyomo_mbdyn.mechanics.examples.four_bar`: three
slender bars (:func:`~pyomo_mbdyn.mechanics.examples.bar`, width 0.05 m) — the
crank A→B (0.4 m, 1 kg), the coupler B→C (1.789 m, 4 kg) and the rocker D→C
(1.204 m, 3 kg) — with revolutes about e₃ at the ground pivots A = (0, 0, 0)
and D = (1.5, 0, 0) and at B = (0, 0.4, 0) and C = (1.6, 1.2, 0), the
assembled configuration q₀.  Gravity g = 9.81 m/s² along −e₂.  Shortest link
plus longest (0.4 + 1.789) is less than the other two (1.5 + 1.204): a
Grashof crank-rocker, the crank turns fully.

The spanning tree is ground–crank–coupler–rocker (joints A, B, C); the
revolute D closes the loop.  Of D's five rows three repeat the others (the
loop is planar, written in 3-D): D[2], D[3], D[4] are left out of every
scheme so that the Newton and KKT matrices stay regular
(``dropped_constraints``).  They still hold at every node: ``loop_closure``
is the largest ‖Φ_i(q_k)‖ over all m rows, the dropped ones included.  The
crank joint A is actuated (u the applied torque:
M v̇ + ∇V + Gᵀγ - Bᵀu = 0) and is the independent coordinate; B and C follow
from loop closure.

Problem: turn the crank by ``target`` (default π/2, counter-clockwise, from
the crank pointing along +e₂ to −e₁) in T = ``horizon`` = 1 s from rest to
rest, minimising J = h Σ ½u², N = 20.  The final configuration is stated on
the independent crank angle only (bem, dmocc_lm: q_N fixed to the closed
configuration reached by continuation along the branch; rem, dmocc: the crank
increments sum to ``target``, the dependent ones fixed by loop closure), final
rest on the independent crank: P(q_N)ᵀ M v_N = 0 (bem, rem; the system does not
move on from q_N, see ``OptimalControlProblem.require_final_rest``; dmocc: the
reduced Legendre transform).  The initial guess interpolates the crank angle
with every node closed (:func:`~pyomo_mbdyn.ocp.interpolated_trajectory`); IPOPT
starts from zero multipliers (``problem.solver_defaults``: from its
least-squares estimate at this guess the REM ends at J = 91.92).

Measured (casadi_ipopt, N = 20, default target and horizon, 5 iterations each):
J = 61.01049171 (bem), 61.01049171 (rem; 2e-15 relative from bem),
61.11601913 (dmocc), 61.11601913 (dmocc_lm; 3e-15 relative from dmocc).
(With the final rest B(q_N) v_N = 0 used earlier, which is not rest:
60.95141724 for bem and rem.)  Loop closure (all m rows, every node) 7.8e-16
(bem), 8.9e-16 (rem), 5.6e-16 (dmocc), 1.4e-15 (dmocc_lm); energy balance
max ‖E_k − E₀‖ with E = T + V + W: 4.3e-14 J (bem), 2.8e-14 J (rem) of
E₀ = 51.0 J — the energy-momentum schemes keep it exactly — and 3.9e-2 J for
both DMOCC schemes (variational: bounded, not constant).  The largest force in
the closing joint, max ‖γ_D‖: 55.10 N (bem), 55.12 N (dmocc_lm).

``evaluate`` adds ``objective``, ``loop_closure`` (m), ``energy_balance`` (J),
``dropped_constraints``, ``partition_condition_max`` (the largest cond(J_d)
over the nodes) and, for the multiplier schemes (bem, dmocc_lm),
``closing_joint_force_max`` = max ‖γ_D‖ (N), the norm of the two kept rows
D[0], D[1] (x, y) — per interval for bem, per node k < N for dmocc_lm.
γ_D is the force the rocker exerts on the ground pivot D (the ground pushes
the rocker with −γ_D; Φ_D = rocker point − D).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pyomo_mbdyn.mechanics import examples
from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.models import finite_option, model_build

if TYPE_CHECKING:
    import numpy.typing as npt
    import pyomo.environ as pyo

    from pyomo_mbdyn.mechanics import MultibodySystem
    from pyomo_mbdyn.schemes.base import SchemeBlockData

__all__ = ["build_system", "build", "evaluate", "loop_closure", "energy_balance", "closing_joint_forces", "STEPS", "HORIZON", "TARGET", "SCHEMES", "MODEL"]

STEPS, HORIZON = 20, 1.0
#: the crank's turn [rad] from the assembled configuration
TARGET = np.pi / 2
#: the schemes that close a loop (multipliers on the active rows, or the partitioned null space)
SCHEMES = ("bem", "rem", "dmocc", "dmocc_lm")
#: the loop-closing joint
CLOSING_JOINT = "D"


def build_system() -> MultibodySystem:
    """The crank-rocker of :func:`pyomo_mbdyn.mechanics.examples.four_bar` (crank ``A`` actuated)."""
    return examples.four_bar()


def check_scheme(scheme: str, model: str) -> None:
    """Refuse a scheme that cannot close a loop (gc, rattle, …), naming the ones that can."""
    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.schemes import record

    if record(scheme).name not in SCHEMES:
        raise ConfigurationError(f"{model}: scheme {scheme!r} does not close loops; use one of {list(SCHEMES)}")


@model_build
def build(scheme: str = "bem", steps: int = STEPS, target: float = TARGET,
          horizon: float = HORIZON) -> pyo.ConcreteModel:
    """The four-bar OCP ``m`` (``m.dyn`` scheme block, ``m.problem``): the crank turned by
    ``target`` [rad] in ``horizon`` [s], rest to rest, J = h Σ ½u²; options: ``MODEL.options``."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
    from pyomo_mbdyn.schemes import scheme_block

    check_scheme(scheme, "four-bar")
    target, horizon = finite_option("four-bar", "target", target), finite_option("four-bar", "horizon", horizon)
    if not abs(target) < np.pi:
        raise ConfigurationError(f"four-bar: target must lie within (-π, π) rad of the assembled crank angle "
                                 f"(the final configuration is stated on the branch of the start), got {target!r}")
    if not horizon > 0:
        raise ConfigurationError(f"four-bar: horizon must be positive [s], got {horizon!r}")
    system = build_system()
    m = pyo.ConcreteModel("four-bar")
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=horizon)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({"A.angle": 0.5})  # J = h Σ ½u²
    problem.fix_final_configuration({"A": target})  # the independent crank angle only
    problem.require_final_rest()
    # IPOPT's least-squares multipliers at this guess are below its bound (1000) and kept, and
    # lead the REM to another local optimum (N = 20: J = 91.92 in 14 iterations; BEM 61.01);
    # from zero multipliers both schemes reach J = 61.0105 in 5 iterations
    problem.solver_defaults["constr_mult_init_max"] = 0
    m.dyn.initialize_from(interpolated_trajectory(system, m.dyn.step_length, steps, [target]))
    m.problem = problem
    return m


def loop_closure(system: MultibodySystem, q: npt.ArrayLike) -> float:
    """max_k max_i ‖Φ_i(q_k)‖ over every node and all m constraint rows — internal, tree
    joints and the loop joint's, the dropped rows included."""
    return float(max(np.abs(np.asarray(system.constraints(qk), float)).max() for qk in np.atleast_2d(q)))


def energy_balance(dyn: SchemeBlockData) -> float:
    """max_k ‖E_k − E₀‖, E = T + V + W + D (W = -h Σ u·ν the work done by the system on the
    actuators, D the dissipation; :func:`pyomo_mbdyn.diagnostics.conservation_table`)."""
    energy = dyn.diagnostics()["E"].to_numpy()
    return float(np.abs(energy - energy[0]).max())


def closing_joint_forces(dyn: SchemeBlockData, joint: str = CLOSING_JOINT) -> np.ndarray | None:
    """γ of the kept rows of the loop-closing ``joint`` (D[0], D[1]: x and y), shape (N, 2):
    per interval (bem) or per node k < N (dmocc_lm); ``None`` for the reduced schemes (rem,
    dmocc), which have no multipliers.  Sign: Gᵀγ enters M v̇ + ∇V + Gᵀγ - Bᵀu = 0, so γ_D
    is the force the rocker exerts on the ground at D."""
    import pyomo.environ as pyo

    block = dyn.joint[joint]
    if block.component("lam") is None:
        return None
    steps = sorted({k for k, _ in block.lam.index_set()})
    return np.array([[pyo.value(block.lam[k, r]) for r in block.rows] for k in steps])


def partition_condition_max(dyn: SchemeBlockData) -> float:
    """max_k cond(J_d(q_k)) over the nodes (:func:`pyomo_mbdyn.mechanics.loops.partition_condition`):
    how well the dependent coordinates are determined by the independent ones along the motion."""
    from pyomo_mbdyn.mechanics.loops import partition_condition

    return max(partition_condition(dyn.system, q) for q in dyn.configuration_values())


def objective_value(model: pyo.ConcreteModel) -> float:
    """The value of the model's active objective."""
    import pyomo.environ as pyo

    return float(pyo.value(next(model.component_data_objects(pyo.Objective, active=True))))


def evaluate(model: pyo.ConcreteModel) -> dict[str, Any]:
    """``objective``, ``loop_closure`` (m, all rows), ``energy_balance`` (J),
    ``dropped_constraints``, ``partition_condition_max`` (the largest cond(J_d) over the
    nodes) and, for bem and dmocc_lm, ``closing_joint_force_max`` = max ‖γ_D‖ (N)."""
    dyn = model.dyn
    out = {"objective": objective_value(model),
           "loop_closure": loop_closure(dyn.system, dyn.trajectory().q),
           "energy_balance": energy_balance(dyn),
           "dropped_constraints": list(dyn.system.dropped_constraints),
           "partition_condition_max": partition_condition_max(dyn)}
    forces = closing_joint_forces(dyn)
    if forces is not None:
        out["closing_joint_force_max"] = float(np.linalg.norm(forces, axis=1).max())
    return out


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="crank-rocker four-bar (a closed loop): the crank turned rest to rest, minimum effort (ours)",
    build=build,
    options={
        "target": "the crank's turn from the assembled configuration [rad], counter-clockwise positive, "
                  "−π < target < π (default π/2)",
        "horizon": "the duration T of the motion [s], positive (default 1)",
    },
    schemes=SCHEMES,
    evaluate=evaluate,
    # gravity and the crank torque act: no momentum map is conserved; T + V + W is
    conserved_momenta=(),
)
