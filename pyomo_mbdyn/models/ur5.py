"""Universal Robots UR5 (6 revolute joints) read from its URDF, rest to rest between two
poses within the URDF's limits, least effort.

The system is :meth:`MultibodySystem.from_urdf` on the shipped
``pyomo_mbdyn/robots/ur5.urdf`` (every joint actuated, gravity −9.81 e_z); Pinocchio
agrees to about 1e-15 (tests/mechanics/test_urdf.py).  The problem
(:mod:`pyomo_mbdyn.models.robot_arm`): from θ = (0, −π/2, π/2, −π/2, −π/2, 0) (elbow up,
tool down) to θ = (1.0, −1.2, 1.2, −1.5, −1.2, 0.5) in T = 1.5 s, at rest at both ends,
``J = h Σ ½|u|²``, the URDF's joint limits at every node, its velocity limits on the joint
rates (option ``velocity_limits``, default true) and effort limits on every control; N = 50.
``evaluate`` as for the Panda.

With the velocity limits: GC J = 185.299368 (22 iterations), REM J = 184.813088
(32), 86 % above the unlimited optimum, which turns the wrist 3 at 21 rad/s against 3.2.
Without them (``velocity_limits=False``), measured
(``python -m benchmarks.robots``): at N = 50 REM and BEM reach J = 99.637438
(BEM = REM; tests/ocp/test_robot_models.py), GC J = 99.830350; GC's solutions satisfy the
joint-space midpoint rule with Pinocchio's RNEA to 6e-12 (the same test).  The problem
has several local optima — the wrists may turn towards their ±2π limits — and which one
a scheme reaches depends on the grid: at N = 100 REM gives 99.435 and BEM 99.652, and a
hand-written joint-space NLP started from the quintic guess finds 100.024 at N = 50
where GC finds 99.830 (equal at N = 100 and 200).
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
#: the initial pose [rad]: elbow up, tool pointing down
START = (0.0, -np.pi / 2, np.pi / 2, -np.pi / 2, -np.pi / 2, 0.0)
#: the final pose [rad]
TARGET = (1.0, -1.2, 1.2, -1.5, -1.2, 0.5)


def build_system() -> MultibodySystem:
    """The UR5 of the shipped URDF (every joint actuated)."""
    return _robot_system("ur5")


@model_build
def build(scheme: str = "rem", steps: int = STEPS, horizon: float = HORIZON, start: Sequence[float] = START,
          target: Sequence[float] = TARGET, configurations: str | None = None,
          velocity_limits: bool = True) -> pyo.ConcreteModel:
    """The UR5 OCP ``m`` (``m.dyn``, ``m.ocp``, ``m.problem``): rest to rest from ``start``
    to ``target`` in ``horizon`` seconds; options: ``MODEL.options``."""
    return rest_to_rest("ur5", "ur5", scheme, steps, horizon, start, target, configurations, velocity_limits)


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="Universal Robots UR5 (6 revolute joints) from its URDF: rest to rest within the joint, velocity and "
                   "effort limits, least effort",
    build=build,
    options={
        "horizon": "the duration T of the motion [s], positive (default 1.5)",
        "start": "the 6 joint angles of the initial pose [rad], within the URDF's limits",
        "configurations": "node configurations of the block (default per scheme: robot_arm.CONFIGURATIONS)",
        "velocity_limits": "the URDF's velocity limits on the joint rates, true or false (default true)",
        "target": "the 6 joint angles of the final pose [rad], within the URDF's limits",
    },
    schemes=SCHEMES,
    evaluate=evaluate,
    # gravity and joint torques act: no momentum is conserved; T + V + W is
    conserved_momenta=(),
)
