"""Mechanics: bodies, joints and multibody systems in natural coordinates.

Pure mathematics, backend-agnostic: every formula accepts numpy arrays whose
entries are floats, Pyomo expressions or CasADi symbols.
"""

from .bodies import Body, PointMass, RigidBody
from .joint_kinds import Cylindrical, Fixed, Planar, Prismatic, Revolute, Spherical, Universal
from .joints import GROUND, Joint
from .coordinates import CoordinateSystem
from .hamiltonian import HamiltonianSystem
from .linalg import contravariant, hat, rotation_cayley, rotation_exp, sin_cos, trig
from .protocol import ConstrainedSystem, System
from .system import MultibodySystem

__all__ = [
    "Body", "RigidBody", "PointMass",
    "Joint", "Spherical", "Revolute", "Prismatic", "Cylindrical", "Planar", "Universal",
    "Fixed", "GROUND",
    "MultibodySystem", "CoordinateSystem", "HamiltonianSystem", "System", "ConstrainedSystem",
    "hat", "rotation_exp", "rotation_cayley", "contravariant", "sin_cos", "trig",
]
