"""heavy-top: steady precession of a heavy symmetric top (thesis E2, Ch. 5.5).

A solid cone (height H = 0.1, radius r = 0.05, density 2700: m = ρπr²H/3)
spins about its fixed tip; the centre of mass lies at l = 3H/4 on the symmetry
axis d_3.  Inertia about the centre of mass: J̄_1 = J̄_2 = 3m(4r² + H²)/80,
J̄_3 = 3mr²/10; gravity g = 9.81 along -e_3.  Initial state: rotated by
θ_0 = π/3 about e_1, angular velocity ω_0 = ω_p e_3 + ω_s d_3 with precession
rate ω_p = 10 and the spin rate of steady precession
ω_s = m g l/(J_3 ω_p) + (J_1 - J_3) cos θ_0 ω_p / J_3 (J about the tip).

The analytic solution is the steady precession
φ(t) = l sin θ_0 sin(ω_p t) e_1 - l sin θ_0 cos(ω_p t) e_2 + l cos θ_0 e_3,
so every scheme's error ``e = |φ_ref - φ| / |φ_ref|`` at t = 1 can be measured:
the quaternion energy-momentum scheme (thesis ch. 5) against the director
energy-momentum scheme (BEM).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pyomo_mbdyn.mechanics import MultibodySystem, RigidBody, Spherical
from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.models import model_build

if TYPE_CHECKING:
    import pyomo.environ as pyo

    from pyomo_mbdyn.schemes.base import SchemeBlockData

__all__ = ["build_system", "initial_state", "initial_quaternion", "reference_position", "spin_rate", "build", "HORIZON", "STEPS", "MODEL"]

HORIZON = 1.0
H, RADIUS, DENSITY, G = 0.1, 0.05, 2700.0, 9.81
THETA0, OMEGA_P = np.pi / 3, 10.0


def _data():
    m = DENSITY * np.pi * RADIUS**2 * H / 3
    J1_bar = 3 * m / 80 * (4 * RADIUS**2 + H**2)
    J3 = 3 * m / 10 * RADIUS**2
    l = 0.75 * H
    return m, J1_bar, J3, l


def build_system() -> MultibodySystem:
    """The cone in directors, on a spherical joint at its tip (the origin), tilted by θ_0."""
    m, J1_bar, J3, l = _data()
    R0 = np.array([[1, 0, 0], [0, np.cos(THETA0), -np.sin(THETA0)], [0, np.sin(THETA0), np.cos(THETA0)]])
    top = RigidBody("cone", m, (J1_bar, J1_bar, J3), position=l * R0[:, 2], directors=R0.T)
    system = MultibodySystem("heavy top", gravity=(0, 0, -G))
    system.add_bodies(top)
    system.add_joints(Spherical("tip", None, top, location=(0, 0, 0)))
    return system


def spin_rate() -> float:
    """ω_s, the spin rate of steady precession (see the module docstring)."""
    m, J1_bar, J3, l = _data()
    J1 = J1_bar + m * l**2
    return m * G * l / (J3 * OMEGA_P) + (J1 - J3) / J3 * OMEGA_P * np.cos(THETA0)


def initial_state(system: MultibodySystem) -> tuple[np.ndarray, np.ndarray]:
    """(q0, v0) in directors: ω_0 = ω_p e_3 + ω_s d_3."""
    q0 = system.q0
    d3 = q0[9:12]
    omega = OMEGA_P * np.array([0, 0, 1.0]) + spin_rate() * d3
    body = system.bodies["cone"]
    return q0, body.internal_null_space(q0) @ np.concatenate([np.cross(omega, q0[0:3]), omega])


def initial_quaternion() -> np.ndarray:
    """The initial orientation as a unit quaternion (rotation by θ_0 about e_1)."""
    return np.array([np.cos(THETA0 / 2), np.sin(THETA0 / 2), 0.0, 0.0])


def reference_position(t: float) -> np.ndarray:
    """φ(t), the centre of mass in the analytic steady precession."""
    _, _, _, l = _data()
    return np.array([l * np.sin(THETA0) * np.sin(OMEGA_P * t), -l * np.sin(THETA0) * np.cos(OMEGA_P * t),
                     l * np.cos(THETA0)])


STEPS = 100


@model_build
def build(scheme: str = "quaternion", steps: int = STEPS, initialize: bool = True) -> pyo.ConcreteModel:
    """A Pyomo model ``m`` with the square scheme block ``m.dyn`` over t ∈ [0, 1].

    With ``initialize`` the variables start from the Newton stepper's solution
    of the same equations (quaternion or director scheme), so the solver
    confirms it.
    """
    import pyomo.environ as pyo

    from pyomo_mbdyn.schemes import record, scheme_block
    from pyomo_mbdyn.simulate import simulate

    system = build_system()
    q0, v0 = initial_state(system)
    m = pyo.ConcreteModel("heavy-top")
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=HORIZON,
                         initial_configuration=q0, initial_velocity=v0)
    if initialize:
        if not record(scheme).system.multibody:  # the quaternion scheme (a top) has its own stepper
            from pyomo_mbdyn.schemes.quaternion import quaternion_state
            from pyomo_mbdyn.simulate.quaternion import QuaternionStepper

            top = m.dyn.top
            quat, p = quaternion_state(top, q0, v0)
            Q, P, G, _ = QuaternionStepper(top, HORIZON / steps).simulate(quat, p, steps)
            blk = m.dyn.body[top.body.name]
            for k in range(steps + 1):
                for i in range(4):
                    blk.quat[k, i].value, blk.p[k, i].value = Q[k, i], P[k, i]
            for k in range(steps):
                blk.gamma[k].value = G[k]
        else:
            m.dyn.initialize_from(simulate(system, q0, v0, HORIZON / steps, steps, scheme=scheme))
    return m


def paper_figures(dyn: SchemeBlockData) -> dict[str, str]:
    """The caption naming the thesis's figure the conservation figure corresponds to
    (:func:`pyomo_mbdyn.figures.paper_figures`)."""
    if dyn.scheme != "quaternion":
        return {}
    return {"conservation": "cf. Fig. 5.2 of the thesis (1: total energy and L₃ conserved)"}


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="heavy symmetric top in steady precession: quaternion EM against director EM (thesis E2)",
    build=build,
    options={
        "initialize": "start the square block from the Newton stepper's solution of the same equations (default "
                      "true; false: from the initial state)",
    },
    paper_figures=paper_figures,
    # gravity along e_3 and the fixed tip on the e_3 axis: only L_3 is conserved
    conserved_momenta=("Lz",),
)
