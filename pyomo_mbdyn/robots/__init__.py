"""URDF files of real robots shipped with the package (dynamics only, no meshes).

=========  =================================================================
name       robot
=========  =================================================================
``panda``  Franka Emika Panda arm, 7 revolute joints, hand and fingers removed
           (franka_ros, Apache-2.0)
``ur5``    Universal Robots UR5, 6 revolute joints (ros-industrial, BSD)
=========  =================================================================

Both are stripped copies of the files in the ``example-robot-data`` package
(BSD-2-Clause, ``LICENSE.example-robot-data`` beside them); each file's header names
its source, and the Panda's licence (Apache-2.0) is ``LICENSE.panda``.  Read one with
:meth:`MultibodySystem.from_urdf <pyomo_mbdyn.mechanics.MultibodySystem.from_urdf>`:

>>> from pyomo_mbdyn.mechanics import MultibodySystem
>>> from pyomo_mbdyn import robots
>>> MultibodySystem.from_urdf(robots.path("ur5")).dof
6

**The zoo** (:mod:`pyomo_mbdyn.robots.zoo`): every fixed-base serial arm of the installed
``example-robot-data`` package (not shipped here; ``pip install 'example-robot-data>=6'``),
classified from its URDFs, with grippers locked: :func:`zoo_arms` (name → URDF path),
:func:`zoo_arm` (path, locked joints, movable joints), :func:`zoo_survey` (also the rejected
URDFs and why).  ``MultibodySystem.from_urdf(arm.path, lock=arm.lock)`` reads one.
"""

from pathlib import Path

from ..errors import ConfigurationError
from .zoo import ZooArm, ZooSurvey, data_roots, zoo_arm, zoo_arms, zoo_survey

__all__ = ["ROBOTS", "path", "ZooArm", "ZooSurvey", "data_roots", "zoo_arm", "zoo_arms", "zoo_survey"]

#: names of the shipped robots
ROBOTS = ("panda", "ur5")


def path(name):
    """The path of the shipped URDF file of robot ``name`` (one of :data:`ROBOTS`)."""
    if name not in ROBOTS:
        raise ConfigurationError(f"robots.path: no shipped robot {name!r}; known: {', '.join(ROBOTS)}")
    return Path(__file__).with_name(f"{name}.urdf")
