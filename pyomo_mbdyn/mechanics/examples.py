"""Small systems for examples and quick checks, built with the public API.

The docstring examples across the library use these so that each shows its own
subject, not the assembly of a system (which :mod:`pyomo_mbdyn.mechanics` shows).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from .bodies import RigidBody
from .joint_kinds import Prismatic, Revolute, Spherical
from .system import MultibodySystem

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["pendulum", "double_pendulum", "acrobot", "bar", "four_bar", "slider_crank", "spatial_four_bar"]


def pendulum(actuated: bool = True, gravity: Sequence[float] = (0, -9.81, 0)) -> MultibodySystem:
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


def double_pendulum(actuated: Sequence[str] = ("shoulder", "elbow"), gravity: Sequence[float] = (0.0, 0.0, 0.0)) -> MultibodySystem:
    """Two links (mass 1, Euler values (0.1, 0.1, 0.02), centres at (0.5, 0, 0) and (1.5, 0, 0)):
    ``"upper"`` hinged to the ground at the origin (revolute ``"shoulder"`` about e₃), ``"fore"``
    on it at (1, 0, 0) (revolute ``"elbow"``): the system ``"arm"``, with motors on the joints
    named in ``actuated``.

    Examples
    --------
    >>> arm = double_pendulum(actuated=["elbow"])
    >>> arm.velocities, arm.actuated
    (['shoulder.angle', 'elbow.angle'], ['elbow.angle'])
    """
    upper = RigidBody("upper", 1.0, (0.1, 0.1, 0.02), position=(0.5, 0, 0))
    fore = RigidBody("fore", 1.0, (0.1, 0.1, 0.02), position=(1.5, 0, 0))
    system = MultibodySystem("arm", gravity=gravity)
    system.add_bodies(upper, fore)
    system.add_joints(Revolute("shoulder", None, upper, location=(0, 0, 0), axis=(0, 0, 1)),
                      Revolute("elbow", upper, fore, location=(1, 0, 0), axis=(0, 0, 1)))
    for joint in actuated:
        system.actuate(joint)
    return system


def acrobot() -> MultibodySystem:
    """Two rods (1 m, 1 kg; a small axial moment, 1e-3) hanging from a hinge about e₃ under
    gravity along −e₂: ``"upper"`` on the revolute ``"shoulder"`` at the origin, ``"fore"`` on
    ``"elbow"`` at (0, −1, 0); only the elbow driven — the underactuated swing-up's system
    (benchmarks/refinement.py, tests/ocp/test_refinement_default.py).

    Examples
    --------
    >>> system = acrobot()
    >>> system.velocities, system.actuated
    (['shoulder.angle', 'elbow.angle'], ['elbow.angle'])
    """
    rod = (1 / 12, 1e-3, 1 / 12)
    upper = RigidBody("upper", 1.0, rod, position=(0, -0.5, 0))
    fore = RigidBody("fore", 1.0, rod, position=(0, -1.5, 0))
    system = MultibodySystem("acrobot", gravity=(0, -9.81, 0))
    system.add_bodies(upper, fore)
    system.add_joints(Revolute("shoulder", None, upper, location=(0, 0, 0), axis=(0, 0, 1)),
                      Revolute("elbow", upper, fore, location=(0, -1, 0), axis=(0, 0, 1)))
    system.actuate("elbow")
    return system


def bar(name: str, mass: float, start: npt.ArrayLike, end: npt.ArrayLike, width: float = 0.05) -> RigidBody:
    """A slender bar of square cross-section ``width`` from ``start`` to ``end`` (in the x-y plane):
    centre of mass halfway, d₁ along the bar, d₃ = e₃, Euler values
    ``E₁ = m L²/12``, ``E₂ = E₃ = m w²/12``.

    Examples
    --------
    >>> link = bar("link", 2.0, (0, 0, 0), (0, 1.2, 0))
    >>> link.q0[:3].tolist(), link.euler.round(4).tolist()
    ([0.0, 0.6, 0.0], [0.24, 0.0004, 0.0004])
    """
    a, b = np.asarray(start, float), np.asarray(end, float)
    length = float(np.linalg.norm(b - a))
    d1 = (b - a) / length
    d3 = np.array([0.0, 0.0, 1.0])
    d2 = np.cross(d3, d1)
    return RigidBody(name, mass, euler=(mass * length ** 2 / 12, mass * width ** 2 / 12, mass * width ** 2 / 12),
                     position=tuple((a + b) / 2), directors=np.array([d1, d2, d3]))


def four_bar(points: Sequence[Sequence[float]] = ((0, 0, 0), (0, 0.4, 0), (1.6, 1.2, 0), (1.5, 0, 0)), masses: Sequence[float] = (1.0, 4.0, 3.0),
             gravity: Sequence[float] = (0, -9.81, 0), actuated: bool = True) -> MultibodySystem:
    """A planar four-bar linkage in 3-D: crank A→B, coupler B→C and rocker D→C as bars
    (:func:`bar`), revolutes about e₃ at the ground pivots A and D and at B and C.  The spanning
    tree is ground–crank–coupler–rocker (joints ``A``, ``B``, ``C``); ``D`` closes the loop, and
    three of its five rows repeat the others (the loop is planar).  The default geometry is a
    Grashof crank-rocker (crank 0.4 m, coupler 1.789 m, rocker 1.204 m, ground 1.5 m: the crank
    turns fully); the crank ``A`` carries the control and is the independent coordinate.

    Examples
    --------
    >>> system = four_bar()
    >>> report = system.validate()
    >>> report["dof"], report["loop_joints"], report["dropped_constraints"], report["independent"]
    (1, ['D'], ['D[2]', 'D[3]', 'D[4]'], ['A.angle'])
    """
    A, B, C, D = (np.asarray(p, float) for p in points)
    crank, coupler, rocker = bar("crank", masses[0], A, B), bar("coupler", masses[1], B, C), \
        bar("rocker", masses[2], D, C)
    system = MultibodySystem("four-bar", gravity=gravity)
    system.add_bodies(crank, coupler, rocker)
    z = (0, 0, 1)
    system.add_joints(Revolute("A", None, crank, location=A, axis=z), Revolute("B", crank, coupler, location=B, axis=z),
                      Revolute("C", coupler, rocker, location=C, axis=z), Revolute("D", None, rocker, location=D, axis=z))
    if actuated:
        system.actuate("A")
    return system


def slider_crank(crank: float = 0.3, rod: float = 1.0, angle: float = np.pi / 2, masses: Sequence[float] = (1.0, 2.0, 3.0), gravity: Sequence[float] = (0, -9.81, 0),
                 actuated: bool = True) -> MultibodySystem:
    """A slider-crank: the crank (length ``crank``, at ``angle`` from x) turns about e₃ at the
    origin (revolute ``A``), the connecting rod (length ``rod``) hangs on it at ``B``, and the
    piston slides along x (prismatic ``P`` to the ground); the revolute ``C`` between rod and
    piston closes the loop (three of its five rows repeat the others).  The crank carries the
    control and is the independent coordinate (the piston would be singular at the dead centres).

    Examples
    --------
    >>> system = slider_crank()
    >>> report = system.validate()
    >>> report["dof"], report["dropped_constraints"], report["independent"]
    (1, ['C[2]', 'C[3]', 'C[4]'], ['A.angle'])
    """
    B = np.array([crank * np.cos(angle), crank * np.sin(angle), 0.0])
    C = np.array([B[0] + np.sqrt(rod ** 2 - B[1] ** 2), 0.0, 0.0])
    crank_body, rod_body = bar("crank", masses[0], (0, 0, 0), B), bar("rod", masses[1], B, C)
    piston = RigidBody("piston", masses[2], euler=(0.01, 0.01, 0.01), position=tuple(C))
    system = MultibodySystem("slider-crank", gravity=gravity)
    system.add_bodies(crank_body, rod_body, piston)
    z = (0, 0, 1)
    system.add_joints(Revolute("A", None, crank_body, location=(0, 0, 0), axis=z),
                      Revolute("B", crank_body, rod_body, location=B, axis=z),
                      Prismatic("P", None, piston, axis=(1, 0, 0)),
                      Revolute("C", rod_body, piston, location=C, axis=z))
    if actuated:
        system.actuate("A")
    return system


def spatial_four_bar(gravity: Sequence[float] = (0, -9.81, 0), actuated: bool = True) -> MultibodySystem:
    """An RSSR spatial linkage: the crank turns about e₃ at the origin (revolute ``A``), the
    coupler hangs on it by the spherical joint ``B`` and on the rocker by the spherical joint ``C``,
    and the rocker turns about e₁ at (1, 0, 0.4) (revolute ``D``, closing the loop).  No row of the
    loop repeats another; two degrees of freedom (the crank and the coupler's spin about its own
    axis).

    Examples
    --------
    >>> system = spatial_four_bar()
    >>> report = system.validate()
    >>> report["dof"], report["dropped_constraints"], report["independent"]
    (2, [], ['A.angle', 'B.wx'])
    """
    A, B, C, D = (np.array(p, float) for p in ((0, 0, 0), (0, 0.3, 0), (1.0, 0.5, 0.4), (1.0, 0.0, 0.4)))
    crank = bar("crank", 1.0, A, B)
    coupler = RigidBody("coupler", 1.0, euler=(0.2, 0.01, 0.01), position=tuple((B + C) / 2))
    rocker = RigidBody("rocker", 1.0, euler=(0.1, 0.01, 0.01), position=tuple((C + D) / 2))
    system = MultibodySystem("rssr", gravity=gravity)
    system.add_bodies(crank, coupler, rocker)
    system.add_joints(Revolute("A", None, crank, location=A, axis=(0, 0, 1)), Spherical("B", crank, coupler, location=B),
                      Spherical("C", coupler, rocker, location=C), Revolute("D", None, rocker, location=D, axis=(1, 0, 0)))
    if actuated:
        system.actuate("A")
    return system
