"""pitcher: a throwing arm maximising the hand's forward momentum (DMOCC §7.3).

Topology of the paper: ground –R₁– collarbone –S– upper arm –R₂– forearm,
with the torso rotation R₁ about e3, the shoulder S spherical, the elbow R₂
about an axis fixed in the upper arm, gravity along -e3, and muscle torques
on all five degrees of freedom (τ^(R₁), τ^(S) ∈ R³, τ^(R₂)).  n = 36,
m = 31, n - m = 5 (Remark 7.3).

**The paper gives no parameters.**  The ones below are plausible
anthropometric values for a 75 kg adult (segment masses and radii of
gyration after de Leva 1996, rounded); they are ours, not the paper's, so
the paper's T = 0.415, q_hand = (0.008, 0.576, 0.453) and hand momentum
(2.323, 24.502, -5.465) cannot be compared.

=============  =========  ==========  =========================================
segment        mass [kg]  length [m]  principal inertia (J₁, J₂, J₃) [kg m²]
=============  =========  ==========  =========================================
collarbone     1.5        0.20        (0.0015, 0.0054, 0.0054), along e1
upper arm      2.0        0.28        (0.0123, 0.0123, 0.0035), along -e3
forearm+hand   1.6        0.35        (0.0176, 0.0176, 0.0028), along -e3
=============  =========  ==========  =========================================

Origin on the torso axis at shoulder height; the shoulder at (0.2, 0, 0),
the arm hanging at θ = 0, the elbow axis e1 (fixed in the upper arm), the
hand at the forearm's end point.  Initial state: rest, θ₁..θ₄ = 0 and
θ₅ = -π/4 (paper).

**Problem: the paper's, with our data where it is silent.**  DMOCC in the
paper's absolute form (node unknowns θ_n, the joint coordinates; q_n =
F(θ_n, q_ref) exact on the constraints), N = 36 (inferred from the paper's
sizes), **final time free** in [0.05, 1] s, started at the paper's T = 0.415 s
(block option ``free_horizon``: h = T/N unknown in every equation).
Maximise the hand's final momentum along e2 from the projected discrete
Legendre transform (3.16): m_forearm times the e2 velocity of the forearm's
end point, with v_N = M⁻¹ ᵠp⁺_N (:func:`~pyomo_mbdyn.discretization.final_velocity`),
regularised by 10⁻³ h Σ|u|².  Variable bounds (the paper: "coordinate and
torque limits are variable bounds"): torques ``|τ^(R₁)| ≤ 100``, ``|τ^(S)_i| ≤ 60``,
``|τ^(R₂)| ≤ 40`` N m (of the order of human peak joint torques); torso turn
``|θ₁| ≤ π/2``, shoulder rotation vector ``|θ_{2,3,4}| ≤ 2`` rad (keeps it below the
chart's singularity at 2π), the elbow bending one way, θ₅ ∈ [-3π/4, 0].  The
hand ends in front of and above the shoulder (y_N, z_N ≥ 0: the two
inequality rows).

**Sizes as the paper counts them (Remark 7.4).**  Default form: 361 unknowns
= 36·5 node coordinates θ_1..θ_36 (θ_0 fixed) + 36·5 torques + T, and 180
equality rows = 5 initial-momentum rows (3.21) + 35·5 discrete
Euler–Lagrange rows, exactly the paper's 361 / 180.  Lagrange-multiplier form
(``scheme="dmocc_lm"``): 2412 equality rows = 36·36 momentum-matching rows
(node 0 with the initial momentum) + 36·31 constraint rows Φ(q_n) = 0, the
paper's 2412; 2593 unknowns = 36·36 q_1..q_36 + 36·31 multipliers λ_0..λ_35
+ 36·5 torques + T, where the paper has 3709: its multiplier form (Remark 3.2,
N(2n + m) + 1) takes the redundant forces f_n ∈ R³⁶ as unknowns where ours
takes the 5 joint torques τ_n (f_n = -Bᵀτ_n eliminated): 36·(36 - 5) = 1116
unknowns fewer, 3709 - 1116 = 2593.  The dmocc_lm form bounds the elbow by
two rows per node from the directors (sin θ₅ ≤ 0, cos θ₅ ≥ cos 3π/4) and
leaves torso and shoulder unbounded; ``scheme="rem"`` (lifted, v_N a node
variable) bounds θ₅ through Σ w and the rotation increments by 1 rad.

**The optimum is local, and T with it.**  From the resting guess q_n = q_0
IPOPT ends at T = 0.1308 s with hand momentum 86.80 kg m/s (the same with
T ∈ [0.1, 1]).  Other starts and bounds end elsewhere: with T ≥ 0.2 at the
bound T = 0.2 (99.6 kg m/s); with T fixed, T = 0.2, 0.3, 0.415, 0.6 s, at
133.8, 68.0, 76.2, 119.9 kg m/s.  In
the continuous problem the best momentum cannot fall as T grows (the arm can
wait at rest, the holding torques are within bounds), so an interior T is a
property of the fixed-N grid (longer T, coarser steps) and of the local
optimum — as in the paper, whose T = 0.415 s is one of "different local optima".
The hand speeds (50-80 m/s) are far above a pitcher's (~ 25 m/s): our torque
limits act on a light forearm without hand or ball.

Checked properties: sizes, and momentum consistency — the only symmetry is
rotation about e3, so L₃ changes exactly by the torso impulse,
L_{3,n+1} - L_{3,n} = h u^(R₁)_n (u the applied torque), to solver
tolerance (spec T11), also with h unknown.  ``free_time=False`` fixes T.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody, Spherical
from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.models import model_build, paper_figures_for

if TYPE_CHECKING:
    import pyomo.environ as pyo

__all__ = ["build_system", "build", "hand_position", "elbow_angle_rows", "STEPS", "HORIZON", "MODEL"]

STEPS, HORIZON, HORIZON_BOUNDS = 36, 0.415, (0.05, 1.0)
THETA0_ELBOW = -np.pi / 4
FOREARM_LENGTH, FOREARM_MASS = 0.35, 1.6
TORQUE_LIMITS = {"torso.angle": 100.0, "shoulder.wx": 60.0, "shoulder.wy": 60.0,
                 "shoulder.wz": 60.0, "elbow.angle": 40.0}
ELBOW_RANGE = (-3 * np.pi / 4, 0.0)
#: joint-coordinate ranges of the paper's (absolute) form: torso turn, shoulder rotation vector, elbow
JOINT_RANGES = {"torso.angle": (-np.pi / 2, np.pi / 2), "shoulder.wx": (-2.0, 2.0), "shoulder.wy": (-2.0, 2.0),
                "shoulder.wz": (-2.0, 2.0), "elbow.angle": ELBOW_RANGE}
#: node configurations per scheme (absolute: the paper's form)
CONFIGURATIONS = {"dmocc": "absolute", "dmocc_lm": None, "rem": "lifted"}
EFFORT_WEIGHT = 1e-3


def build_system() -> MultibodySystem:
    """Collarbone, upper arm and forearm (hand point) on actuated torso, shoulder and elbow joints."""
    system = MultibodySystem("pitcher", gravity=(0.0, 0.0, -9.81))
    collar = RigidBody("collarbone", 1.5, (0.0015, 0.0054, 0.0054), position=(0.1, 0.0, 0.0))
    upper = RigidBody("upper_arm", 2.0, (0.0123, 0.0123, 0.0035), position=(0.2, 0.0, -0.14))
    fore = RigidBody("forearm", FOREARM_MASS, (0.0176, 0.0176, 0.0028),
                     position=(0.2, 0.0, -0.28 - FOREARM_LENGTH / 2),
                     points={"hand": (0.0, 0.0, -FOREARM_LENGTH / 2)})
    system.add_bodies(collar, upper, fore)
    system.add_joints(
        Revolute("torso", None, collar, location=(0.0, 0.0, 0.0), axis=(0, 0, 1)),
        Spherical("shoulder", collar, upper, location=(0.2, 0.0, 0.0)),
        Revolute("elbow", upper, fore, location=(0.2, 0.0, -0.28), axis=(1, 0, 0)),
    )
    for joint in ("torso", "shoulder", "elbow"):
        system.actuate(joint)
    return system


def initial_configuration(system: MultibodySystem) -> np.ndarray:
    theta = np.zeros(system.n_velocities)
    theta[system.velocities.index("elbow.angle")] = THETA0_ELBOW
    return np.asarray(system.reparametrise(theta, system.q0), float)


def hand_position(system: MultibodySystem, q: Sequence[Any] | np.ndarray) -> Any:
    """The hand (forearm end point) at configuration q (any backend)."""
    fore = system.bodies["forearm"]
    return fore.point(system.body_coordinates(q, "forearm"), fore.points["hand"])


def elbow_angle_rows(system: MultibodySystem, q: Sequence[Any] | np.ndarray) -> tuple[Any, Any]:
    """``(sin θ₅, cos θ₅)`` of the elbow angle from the directors at configuration q (any backend):
    the forearm's d3 against the upper arm's, about the elbow axis (the upper arm's d1)."""
    upper = system.body_coordinates(q, "upper_arm")
    fore = system.body_coordinates(q, "forearm")
    a2, a3, f3 = upper[6:9], upper[9:12], fore[9:12]  # d3' = cos θ d3 - sin θ d2 (rotation about d1)
    return (-sum(f3[i] * a2[i] for i in range(3)), sum(f3[i] * a3[i] for i in range(3)))


@model_build
def build(scheme: str = "dmocc", steps: int = STEPS, configurations: str | None = None, free_time: bool = True,
          horizon: float = HORIZON, bounds: Sequence[float] = HORIZON_BOUNDS,
          increment_limit: float | None = None) -> pyo.ConcreteModel:
    """The throwing OCP ``m`` (``m.dyn`` scheme block, ``m.ocp`` problem), from rest.

    Defaults: the paper's problem — DMOCC in absolute configurations, T free
    in ``bounds`` (started at ``horizon``).  ``free_time=False`` fixes T =
    ``horizon``; ``configurations`` as in the dmocc block (default
    ``CONFIGURATIONS[scheme]``); ``scheme="dmocc_lm"`` is the paper's
    Lagrange-multiplier form and ``"rem"`` the energy-momentum scheme."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.discretization import final_velocity
    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.mechanics.linalg import sharing
    from pyomo_mbdyn.ocp import OptimalControlProblem
    from pyomo_mbdyn.schemes import scheme_block, scheme_options

    if scheme not in CONFIGURATIONS:
        raise ConfigurationError(f"pitcher: scheme {scheme!r} not offered; use one of {list(CONFIGURATIONS)}")
    if not isinstance(free_time, (bool, np.bool_)):
        raise ConfigurationError(f"pitcher: free_time must be true or false, got {free_time!r}")
    system = build_system()
    q0 = initial_configuration(system)
    m = pyo.ConcreteModel("pitcher")
    form = CONFIGURATIONS[scheme] if configurations is None else configurations
    options: dict[str, Any] = {"configurations": form} if "configurations" in scheme_options(scheme) else {}
    if free_time:
        options["free_horizon"] = bounds
    m.dyn = dyn = scheme_block(scheme, system=system, steps=steps, horizon=horizon,
                               initial_configuration=q0, **options)
    problem = OptimalControlProblem(dyn)
    effort = problem.minimise_control_effort()
    effort.deactivate()
    N, h = steps, dyn.h
    q_N = dyn.q_array(N)
    hand_N = hand_position(system, q_N)
    if dyn.record.velocities_at_nodes:  # rem: the node velocity
        v_N = dyn.v_array(N)
    else:  # the projected discrete Legendre transform (3.16): v_N = M⁻¹ ᵠp⁺_N; its work values
        # used twice become the block's named shared terms (else Pyomo walks the DAG as a tree)
        with sharing(dyn._share):
            v_N = final_velocity(system, h, dyn.q_array(N - 1), q_N, dyn.u_array(N - 1))
    fore = system.bodies["forearm"]
    hand_velocity = fore.point(system.body_coordinates(v_N, "forearm"), fore.points["hand"])  # linear in q
    m.ocp.hand_momentum = pyo.Expression(expr=FOREARM_MASS * hand_velocity[1])
    m.ocp.throw = pyo.Objective(expr=-m.ocp.hand_momentum + EFFORT_WEIGHT * effort.expr)
    m.ocp.hand_in_front = pyo.Constraint(expr=hand_N[1] >= 0)
    m.ocp.hand_above = pyo.Constraint(expr=hand_N[2] >= 0)
    problem.bound_controls({a: -limit for a, limit in TORQUE_LIMITS.items()}, TORQUE_LIMITS)
    lo, hi = ELBOW_RANGE
    nodes = pyo.RangeSet(1, N)
    if form == "absolute":  # the paper's form: bounds on the joint coordinates (variable bounds of θ)
        for j, (lower, upper) in JOINT_RANGES.items():
            problem.bound_joint(j, lower, upper)
        if increment_limit is not None:
            problem.bound_rotation_increments(increment_limit)
    elif dyn.component("w") is not None:  # relative forms: θ₅ = θ₅(0) + Σ w (exact for the revolute elbow)
        # written with the model's exact θ₅(0) rather than bound_joint's, which inverts the chart by
        # Newton to the last bit: this nonconvex problem's local optimum from the start (407 IPOPT
        # iterations) moves with that bit (J = -337.67 here, -330.53 with θ₅(0) one ulp off)
        m.ocp.elbow_range = pyo.Constraint(
            nodes, rule=lambda b, k: pyo.inequality(lo, THETA0_ELBOW + sum(dyn.w[i, "elbow.angle"] for i in range(k)),
                                                    hi))
        problem.bound_rotation_increments(1.0)
    else:  # dmocc_lm: θ₅ ∈ [-3π/4, 0] ⇔ sin θ₅ ≤ 0 and cos θ₅ ≥ cos(3π/4), from the directors
        rows = {k: elbow_angle_rows(system, dyn.q_array(k)) for k in nodes}
        m.ocp.elbow_bends_one_way = pyo.Constraint(nodes, rule=lambda b, k: rows[k][0] <= 0)
        m.ocp.elbow_range = pyo.Constraint(nodes, rule=lambda b, k: rows[k][1] >= np.cos(lo))
    m.problem = problem
    return m


def evaluate(model: pyo.ConcreteModel) -> dict[str, Any]:
    """The final hand momentum along e2 and the final time, reported by ``pyomo-mbdyn run pitcher``.

    Read through :func:`~pyomo_mbdyn.schemes.structure.expression_value`: in
    the absolute form the node configurations are replayed charts shared as
    DAGs, which ``pyo.value`` would walk as a tree, once per path through the shared
    charts (exponential in their nesting depth for the (3.16) momentum)."""
    from pyomo_mbdyn.schemes.structure import expression_value

    return {"hand_momentum": expression_value(model.ocp.hand_momentum),
            "final_time": model.dyn.final_time_value}


paper_figures = paper_figures_for(
    ("dmocc",),
    snapshots="cf. DMOCC paper Fig. 7.14 (the optimal pitch)",
    controls="cf. DMOCC paper Fig. 7.15 (torques)",
    conservation="cf. DMOCC paper Figs. 7.16–7.17 (L₃ changes exactly by the torso torque; energy)")


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="throwing arm (torso, shoulder, elbow) maximising the hand's momentum (DMOCC §7.3)",
    build=build,
    options={
        "configurations": "node configurations of the block (default per scheme: CONFIGURATIONS)",
        "free_time": "T free within bounds (default true, the paper's problem); false: T = horizon",
        "horizon": "the final time T [s], or the start of the free T",
        "bounds": "[lower, upper] of the free final time [s]",
        "increment_limit": "bound on the joint-angle steps per interval [rad] (null: none)",
    },
    evaluate=evaluate,
    paper_figures=paper_figures,
    # L₃ changes only through the torso torque (checked by the tests), not conserved
    conserved_momenta=(),
    energy_balance=False,
)
