"""Franka Emika Panda (arm: 7 revolute joints, hand removed) read from its URDF, rest to
rest between two poses within the URDF's limits, least effort.

The system is :meth:`MultibodySystem.from_urdf` on the shipped
``pyomo_mbdyn/robots/panda.urdf`` (every joint actuated, gravity −9.81 e_z); its
reduced mass matrix, generalised gravity and recursive dynamics equal Pinocchio's to
about 1e-14 (tests/mechanics/test_urdf.py).  The problem (:mod:`pyomo_mbdyn.models.robot_arm`):
from the "ready" pose θ = (0, −π/4, 0, −3π/4, 0, π/2, π/4) to
θ = (0.8, −0.3, 0.5, −1.8, 0.4, 2.0, −0.3) in T = 1.5 s, at rest at both ends,
``J = h Σ ½|u|²``, the URDF's joint limits at every node, its velocity limits on the joint
rates (option ``velocity_limits``, default true) and effort limits on every control; N = 50.  ``evaluate`` adds the final momentum ``max |P(q_N)ᵀ M v_N|``, the largest
effort ratio and the smallest joint-limit margin (``≥ −1e-8 max(1, |limit|)`` rad: IPOPT's
bound relaxation).

With the velocity limits (every joint reaches its target in T = 1.5 s at them — joint 7,
the farthest in time, in t = 0.42 s): GC J = 196.871061 (31 iterations), REM = BEM J = 196.580610
(33 and 27), 43 % above the unlimited optimum below, which whips joint 7 at 22 rad/s against
its 2.61 rad/s.  Without them (``velocity_limits=False``), measured
(``python -m benchmarks.robots``, benchmarks/README.md "Robots"): at N = 50 REM
and BEM (absolute configurations) reach J = 138.580276 (BEM = REM; 41 iterations each),
at rest (final momentum ~1e-17 N m s) with the effort up to 63 % of the limits; GC reaches
J = 137.612759, the optimum of a hand-written CasADi joint-space midpoint NLP with
Pinocchio's RNEA to 2e-11 (GC is that NLP).  N = 20 converges (REM J = 134.62, 81
iterations), N = 10 does not (3 000 iterations: joint rates of 1e6).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.models import model_build
from pyomo_mbdyn.models.robot_arm import SCHEMES, build_system as _robot_system, evaluate, rest_to_rest

if TYPE_CHECKING:
    import pyomo.environ as pyo

    from pyomo_mbdyn.mechanics import MultibodySystem

__all__ = ["build_system", "build", "evaluate", "STEPS", "HORIZON", "START", "TARGET", "SCHEMES", "MODEL"]

STEPS, HORIZON = 50, 1.5
#: the "ready" pose [rad]
START = (0.0, -np.pi / 4, 0.0, -3 * np.pi / 4, 0.0, np.pi / 2, np.pi / 4)
#: the final pose [rad]
TARGET = (0.8, -0.3, 0.5, -1.8, 0.4, 2.0, -0.3)


def build_system() -> MultibodySystem:
    """The Panda arm of the shipped URDF (every joint actuated)."""
    return _robot_system("panda")


@model_build
def build(scheme: str = "rem", steps: int = STEPS, horizon: float = HORIZON, start: Sequence[float] = START,
          target: Sequence[float] = TARGET, configurations: str | None = None,
          velocity_limits: bool = True) -> pyo.ConcreteModel:
    """The Panda OCP ``m`` (``m.dyn``, ``m.ocp``, ``m.problem``): rest to rest from ``start``
    to ``target`` in ``horizon`` seconds; options: ``MODEL.options``."""
    return rest_to_rest("panda", "panda", scheme, steps, horizon, start, target, configurations, velocity_limits)


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="Franka Emika Panda arm (7 revolute joints) from its URDF: rest to rest within the joint, "
                   "velocity and effort limits, least effort",
    build=build,
    options={
        "horizon": "the duration T of the motion [s], positive (default 1.5)",
        "start": "the 7 joint angles of the initial pose [rad], within the URDF's limits (default: 'ready')",
        "configurations": "node configurations of the block (default per scheme: robot_arm.CONFIGURATIONS)",
        "velocity_limits": "the URDF's velocity limits on the joint rates, true or false (default true)",
        "target": "the 7 joint angles of the final pose [rad], within the URDF's limits",
    },
    schemes=SCHEMES,
    evaluate=evaluate,
    # gravity and joint torques act: no momentum is conserved; T + V + W is
    conserved_momenta=(),
)
