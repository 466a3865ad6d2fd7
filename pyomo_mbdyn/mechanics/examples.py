"""Small systems for examples and quick checks, built with the public API.

The docstring examples across the library use these so that each shows its own
subject, not the assembly of a system (which :mod:`pyomo_mbdyn.mechanics` shows).
"""

from .bodies import RigidBody
from .joints import Revolute
from .system import MultibodySystem

__all__ = ["pendulum"]


def pendulum(actuated=True, gravity=(0, -9.81, 0)):
    """One link (mass 1, Euler values (0.1, 0.1, 0.02), centre at (0.5, 0, 0)) hinged to the
    ground at the origin about e₃: the system ``"pendulum"`` with the revolute joint ``"hinge"``,
    actuated unless ``actuated=False``.

    Examples
    --------
    >>> system = pendulum()
    >>> system.validate()["dof"], system.actuated
    (1, ['hinge.angle'])
    """
    link = RigidBody("link", 1.0, (0.1, 0.1, 0.02), position=(0.5, 0, 0))
    system = MultibodySystem("pendulum", gravity=gravity)
    system.add_bodies(link)
    system.add_joints(Revolute("hinge", None, link, location=(0, 0, 0), axis=(0, 0, 1)))
    if actuated:
        system.actuate("hinge")
    return system
