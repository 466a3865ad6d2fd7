"""Universal Robots UR5 (6 revolute joints) read from its URDF, rest to rest between two
poses within the URDF's limits, least effort (issue 30).

The system is :meth:`MultibodySystem.from_urdf` on the shipped
``pyomo_mbdyn/robots/ur5.urdf`` (every joint actuated, gravity −9.81 e_z); Pinocchio
agrees to about 1e-15 (tests/mechanics/test_urdf.py).  The problem
(:mod:`pyomo_mbdyn.models.robot_arm`): from θ = (0, −π/2, π/2, −π/2, −π/2, 0) (elbow up,
tool down) to θ = (1.0, −1.2, 1.2, −1.5, −1.2, 0.5) in T = 1.5 s, at rest at both ends,
J = h Σ ½|u|², the URDF's joint limits at every node and effort limits on every
control; N = 50.  ``evaluate`` as for the Panda.
"""

import numpy as np

from pyomo_mbdyn.models import model_build
from pyomo_mbdyn.models.robot_arm import SCHEMES, build_system as _robot_system, evaluate, rest_to_rest

__all__ = ["build_system", "build", "evaluate", "DESCRIPTION", "STEPS", "HORIZON", "START", "TARGET", "SCHEMES"]

DESCRIPTION = ("Universal Robots UR5 (6 revolute joints) from its URDF: rest to rest within the joint and "
               "effort limits, least effort (issue 30)")
STEPS, HORIZON = 50, 1.5
#: the initial pose [rad]: elbow up, tool pointing down
START = (0.0, -np.pi / 2, np.pi / 2, -np.pi / 2, -np.pi / 2, 0.0)
#: the final pose [rad]
TARGET = (1.0, -1.2, 1.2, -1.5, -1.2, 0.5)

#: the options of ``build`` (``pyomo-mbdyn list --options ur5``)
OPTIONS = {
    "horizon": "the duration T of the motion [s], positive (default 1.5)",
    "start": "the 6 joint angles of the initial pose [rad], within the URDF's limits",
    "target": "the 6 joint angles of the final pose [rad], within the URDF's limits",
}


def build_system():
    """The UR5 of the shipped URDF (every joint actuated)."""
    return _robot_system("ur5")


@model_build
def build(scheme="rem", steps=STEPS, horizon=HORIZON, start=START, target=TARGET):
    """The UR5 OCP ``m`` (``m.dyn``, ``m.ocp``, ``m.problem``): rest to rest from ``start``
    to ``target`` in ``horizon`` seconds; options: :data:`OPTIONS`."""
    return rest_to_rest("ur5", "ur5", scheme, steps, horizon, start, target)
