"""URDF files of real robots shipped with the package (dynamics only, no meshes).

=========  =================================================================
name       robot
=========  =================================================================
``panda``  Franka Emika Panda arm, 7 revolute joints, hand and fingers removed
           (franka_ros, Apache-2.0)
``ur5``    Universal Robots UR5, 6 revolute joints (ros-industrial, BSD)
=========  =================================================================

and one floating-base robot (:data:`FLOATING`), read with ``floating_base=True``:

===============  ============================================================
``space_robot``  a 300 kg satellite box (1.2 × 1.0 × 0.8 m) carrying the Panda on its
                 top face (written by the project; the arm's links as ``panda``)
===============  ============================================================

The arms are stripped copies of the files in the ``example-robot-data`` package
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

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigurationError
from .zoo import ZooArm, ZooSurvey, data_roots, zoo_arm, zoo_arms, zoo_survey

__all__ = ["ROBOTS", "FLOATING", "path", "ZooArm", "ZooSurvey", "data_roots", "zoo_arm", "zoo_arms", "zoo_survey"]

#: names of the shipped fixed-base arms
ROBOTS = ("panda", "ur5")
#: names of the shipped floating-base robots (``from_urdf(path, floating_base=True)``)
FLOATING = ("space_robot",)


def path(name: str) -> Path:
    """The path of the shipped URDF file of robot ``name`` (one of :data:`ROBOTS` or :data:`FLOATING`)."""
    if name not in ROBOTS + FLOATING:
        raise ConfigurationError(f"robots.path: no shipped robot {name!r}; known: {', '.join(ROBOTS + FLOATING)}")
    return Path(__file__).with_name(f"{name}.urdf")
