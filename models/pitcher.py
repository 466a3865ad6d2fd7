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

**Problem (ours where the paper is silent).**  Fixed final time T = 0.415 s
(the paper's optimum; free final time is not offered by the scheme blocks)
and N = 36 (inferred from the paper's sizes), DMOCC.  Maximise the hand's
momentum along e2, m_forearm·ẏ_hand with the hand's velocity over the last
step, regularised by 10⁻³ h Σ|u|²; torque bounds |τ^(R₁)| ≤ 100, |τ^(S)_i| ≤
60, |τ^(R₂)| ≤ 40 N m (of the order of human peak joint torques); the elbow bends one way only, θ₅ ∈ [-3π/4, 0]; the
hand ends in front of and above the shoulder (y_N, z_N ≥ 0); rotation
increments ≤ 1 rad per step.  The optimum is local; it is found from the
resting guess q_k = q_0.  It depends on the formulation as well: in the
default lifted DMOCC form IPOPT ends at hand momentum 93.2 kg m/s (about
510 iterations, 11 s); in the absolute form (``configurations="absolute"``, the
paper's, 231 iterations, 5 s) at another local optimum, 89.4 kg m/s.

Checked properties: sizes, and momentum consistency — the only symmetry is
rotation about e3, so L₃ changes exactly by the torso impulse,
L_{3,n+1} - L_{3,n} = -h u^(R₁)_n (u is minus the applied torque), to solver
tolerance (spec T11).
"""

import numpy as np

from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody, Spherical

__all__ = ["build_system", "build", "hand_position", "DESCRIPTION", "STEPS", "HORIZON"]

DESCRIPTION = "throwing arm (torso, shoulder, elbow) maximising the hand's momentum (DMOCC §7.3)"
STEPS, HORIZON = 36, 0.415
THETA0_ELBOW = -np.pi / 4
FOREARM_LENGTH, FOREARM_MASS = 0.35, 1.6
TORQUE_LIMITS = {"torso.angle": 100.0, "shoulder.wx": 60.0, "shoulder.wy": 60.0,
                 "shoulder.wz": 60.0, "elbow.angle": 40.0}
ELBOW_RANGE = (-3 * np.pi / 4, 0.0)
EFFORT_WEIGHT = 1e-3
#: L₃ changes only through the torso torque (checked by the tests), not conserved
CONSERVED_MOMENTA = ()
ENERGY_BALANCE = False


def build_system():
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


def initial_configuration(system):
    theta = np.zeros(system.n_velocities)
    theta[system.velocities.index("elbow.angle")] = THETA0_ELBOW
    return np.asarray(system.reparametrise(theta, system.q0), float)


def hand_position(system, q):
    """The hand (forearm end point) at configuration q (any backend)."""
    fore = system.bodies["forearm"]
    return fore.point(system.body_coordinates(q, "forearm"), fore.points["hand"])


def build(scheme="dmocc", steps=STEPS, configurations="lifted"):
    """The throwing OCP ``m`` (``m.dyn`` scheme block, ``m.ocp`` problem), from rest;
    ``configurations`` as in the dmocc block."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.ocp import OptimalControlProblem
    from pyomo_mbdyn.schemes import scheme_block, scheme_options

    if scheme not in ("dmocc", "rem"):
        raise ConfigurationError(f"pitcher: scheme {scheme!r} not offered; use dmocc or rem "
                                 "(the elbow range is imposed on the reduced increments)")
    system = build_system()
    q0 = initial_configuration(system)
    m = pyo.ConcreteModel("pitcher")
    options = {"configurations": configurations} if "configurations" in scheme_options(scheme) else {}
    m.dyn = dyn = scheme_block(scheme, system=system, steps=steps, horizon=HORIZON,
                               initial_configuration=q0, **options)
    problem = OptimalControlProblem(dyn)
    effort = problem.minimise_control_effort()
    effort.deactivate()
    N, h = steps, dyn.h
    hand_N = hand_position(system, dyn.q_array(N))
    hand_prev = hand_position(system, dyn.q_array(N - 1))
    m.ocp.hand_momentum = pyo.Expression(expr=FOREARM_MASS * (hand_N[1] - hand_prev[1]) / h)
    m.ocp.throw = pyo.Objective(expr=-m.ocp.hand_momentum + EFFORT_WEIGHT * effort.expr)
    m.ocp.hand_in_front = pyo.Constraint(expr=hand_N[1] >= 0)
    m.ocp.hand_above = pyo.Constraint(expr=hand_N[2] >= 0)
    for i in dyn.intervals:
        for a, limit in TORQUE_LIMITS.items():
            dyn.u[i, a].setlb(-limit)
            dyn.u[i, a].setub(limit)
    lo, hi = ELBOW_RANGE
    m.ocp.elbow_range = pyo.Constraint(
        pyo.RangeSet(1, N),
        rule=lambda b, k: pyo.inequality(lo, THETA0_ELBOW + sum(dyn.w[i, "elbow.angle"] for i in range(k)), hi))
    problem.bound_rotation_increments(1.0)
    m.problem = problem
    return m


def evaluate(model):
    """The final hand momentum along e2, reported by ``pyomo-mbdyn run pitcher``."""
    import pyomo.environ as pyo

    return {"hand_momentum": pyo.value(model.ocp.hand_momentum)}
