"""The joint kinds: each states its constraint rows, rates and axes on :class:`~pyomo_mbdyn.mechanics.joints.Joint`.

Constraints (``m_ext`` rows each), with ``δ = s_c - s_p``:

==============  =====  =====================================================
joint           m_ext  constraints
==============  =====  =====================================================
Spherical        3     δ = 0
Revolute         5     δ = 0;  n·d^c_a - η_a for the two child directors a
                       least aligned with n
                 2     a point mass on a rod: n·δ - η;  δ·δ - L²
Prismatic        5     m_1·δ, m_2·δ;  three director products d^p_i·d^c_j - η
Cylindrical      4     m_1·δ, m_2·δ;  n·d^c_a - η_a (two directors)
Planar           3     n·δ;  n·d^c_a - η_a (two directors)
Universal        4     δ = 0;  n_1·n_2 - η
Fixed            6     δ = 0;  three director products d^p_i·d^c_j - η
==============  =====  =====================================================

(``m_1, m_2, n`` a right-handed orthonormal frame fixed in the parent.)  The
director products of P and F are chosen at the reference configuration so that
their rotational gradients are best conditioned (the paper's fixed choice
``d^p_1·d^c_2, d^p_2·d^c_3, d^p_3·d^c_1`` degenerates for some relative
orientations).

**Universal joint (not in the papers), derivation.**  Axes ``n_1`` fixed in
the parent and ``n_2`` fixed in the child, ``n_1 · n_2 = η`` (normally 0).
With ``ω_c = ω_p + α̇ n_1 + β̇ n_2``:
``d/dt(n_1·n_2) = (ω_p × n_1)·n_2 + n_1·(ω_c × n_2)
= ω_p·(n_1 × n_2) + ω_p·(n_2 × n_1) + α̇ n_1·(n_1 × n_2) = 0``, so the twist
map is admissible; the reparametrisation ``R_c = R_p exp(α n̂_1) exp(β n̂_2)``
keeps ``n_1·n_2`` exactly since ``n_1·exp(α n̂_1) n_2 = n_1·n_2``.

**Fixed joint, derivation.**  No rates: ``ω_c = ω_p`` and the joint point is
carried rigidly; the six constraints fix δ and the relative rotation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ConfigurationError
from .joints import ROTATION, ROTATION_VECTOR, TRANSLATION, Joint, _complete_frame, _unit, _Vec
from .linalg import ROTATION_MAPS, as_array

if TYPE_CHECKING:
    import numpy.typing as npt
    from .bodies import PointMass, RigidBody

__all__ = ["Spherical", "Revolute", "Prismatic", "Cylindrical", "Planar", "Universal", "Fixed"]

class Spherical(Joint):
    """Ball joint: the joint points coincide; three relative rotations (ω_c - ω_p).

    Examples
    --------
    A top on a fixed pivot; a point mass hung by a ball joint has no rotations:

    >>> from pyomo_mbdyn.mechanics import PointMass, RigidBody, Spherical
    >>> top = RigidBody("top", 1.0, (0.3, 0.3, 0.2), position=(0, 0, 0.5))
    >>> Spherical("pivot", None, top, location=(0, 0, 0)).dofs
    ('pivot.wx', 'pivot.wy', 'pivot.wz')
    >>> ball = Spherical("hook", None, PointMass("load", 1.0, position=(0, 0, -1)))
    >>> ball.dofs, ball.n_constraints
    ((), 3)
    """

    kind = "spherical"
    holds_point_mass = True

    def _setup(self):
        self._add_coincidence_rows()
        if self.child.has_orientation:
            self.dof_names = ("wx", "wy", "wz")
            self.coordinate_kinds = (ROTATION_VECTOR,) * 3
            self._rotation_axes = [("spatial", e) for e in np.eye(3)]
        else:
            self.dof_names = ()

    def _rotation_increment(self, u_rot, axes_old, rotation):
        if len(u_rot) == 0:  # a point mass: no orientation
            return np.eye(3)
        return ROTATION_MAPS[rotation](as_array(u_rot))


class Revolute(Joint):
    """Hinge about ``axis`` (fixed in the parent) through the joint point.

    A :class:`~pyomo_mbdyn.mechanics.PointMass` child hangs from the hinge on a massless
    rod (a pendulum bob): ``location=`` is the hinge point, the mass stays where it is, and
    the two rows ``n·δ - η`` (the mass turns in its plane) and ``δ·δ - L²`` (the rod's
    length), ``δ = x_c - s_p``, leave the angle free.  Both are quadratic, so the
    energy-momentum schemes' discrete gradients stay exact; the rotation moves the mass on
    ``a × δ``.

    Examples
    --------
    A bob of 2 kg on a 1.5 m rod, hinged at the origin about z:

    >>> from pyomo_mbdyn.mechanics import PointMass, Revolute
    >>> bob = PointMass("bob", 2.0, position=(1.5, 0, 0))
    >>> rod = Revolute("rod", None, bob, location=(0, 0, 0), axis=(0, 0, 1))
    >>> rod.dofs, rod.n_constraints, rod.rod
    (('rod.angle',), 2, True)
    """

    kind = "revolute"
    dof_names = ("angle",)
    coordinate_kinds = (ROTATION,)
    additive_increments = True
    holds_point_mass = True
    axis_motion = ROTATION

    def _setup(self):
        if self.axis is None:
            raise ConfigurationError(f"{self}: a revolute joint needs axis=")
        n = self._parent_components(self.axis)
        self._rotation_axes = [("p", n)]
        if not self.child.has_orientation:
            self._setup_rod(n)
            return
        self._add_coincidence_rows()
        self._add_alignment_rows(n)

    def _setup_rod(self, n):
        """The point mass on a rod: rows n·δ - η and δ·δ - L² at the reference configuration."""
        sp, sc = self._points()
        hinge = np.asarray(self.parent.point(self.parent.q0, self.parent_point), dtype=float)
        delta = np.asarray(self.child.q0[0:3], dtype=float) - hinge
        axis = np.asarray(self.parent.material_vector(self.parent.q0, n), dtype=float)
        if np.linalg.norm(np.cross(axis, delta)) <= 1e-9 * max(1.0, np.linalg.norm(delta)):
            raise ConfigurationError(
                f"{self}: the point mass {self.child.name!r} lies on the hinge axis (rod {delta.round(12).tolist()} "
                f"from the hinge {hinge.round(12).tolist()}): give location= the hinge point, off the mass")
        rod = [(1.0, sc), (-1.0, sp)]
        self._rows.append(("dot", [(1.0, _Vec("p", self.parent, n, False))], rod, float(axis @ delta)))
        self._rows.append(("dot", rod, rod, float(delta @ delta)))
        self.rod = True
        #: ℓ², the squared length of the rod across the axis (|δ|² - (n·δ)², kept by the two rows)
        self.rod_across = float(delta @ delta - (axis @ delta) ** 2)


class Prismatic(Joint):
    """Slider along ``axis`` (fixed in the parent); no relative rotation.

    Examples
    --------
    A cart on a rail along x:

    >>> from pyomo_mbdyn.mechanics import Prismatic, RigidBody
    >>> cart = RigidBody("cart", 5.0, (0.2, 0.3, 0.3))
    >>> rail = Prismatic("rail", None, cart, axis=(1, 0, 0))
    >>> rail.dofs, rail.n_constraints
    (('rail.slide',), 5)
    """

    kind = "prismatic"
    dof_names = ("slide",)
    coordinate_kinds = (TRANSLATION,)
    additive_increments = True
    axis_motion = TRANSLATION

    def _setup(self):
        if self.axis is None:
            raise ConfigurationError(f"{self}: a prismatic joint needs axis=")
        m1, m2 = _complete_frame(self.axis)
        m1, m2 = self._parent_components(m1), self._parent_components(m2)
        self._add_offset_rows([m1, m2])
        self._add_orientation_lock_rows()
        self._translation_axes = [(m1, m2)]  # m_1 × m_2 = n


class Cylindrical(Joint):
    """Rotation about and translation along ``axis`` (fixed in the parent).

    Examples
    --------
    >>> from pyomo_mbdyn.mechanics import Cylindrical, RigidBody
    >>> shaft = RigidBody("shaft", 1.0, (0.01, 0.1, 0.1), position=(0.5, 0, 0))
    >>> sleeve = Cylindrical("sleeve", None, shaft, location=(0, 0, 0), axis=(1, 0, 0))
    >>> sleeve.dofs, sleeve.n_constraints
    (('sleeve.angle', 'sleeve.slide'), 4)
    """

    kind = "cylindrical"
    dof_names = ("angle", "slide")
    coordinate_kinds = (ROTATION, TRANSLATION)
    additive_increments = True

    def _setup(self):
        if self.axis is None:
            raise ConfigurationError(f"{self}: a cylindrical joint needs axis=")
        n = self._parent_components(self.axis)
        m1, m2 = _complete_frame(self.axis)
        m1, m2 = self._parent_components(m1), self._parent_components(m2)
        self._add_offset_rows([m1, m2])
        self._add_alignment_rows(n)
        self._rotation_axes = [("p", n)]
        self._translation_axes = [(m1, m2)]  # m_1 × m_2 = n


class Planar(Joint):
    """The child slides in the plane with normal ``axis`` and turns about it.

    The slide forces act at the joint point.  The DMOCC paper's (5.46) applies
    them at the child's centre of mass instead, which couples them into the
    rotation (the term ``a = n·(ρ² × f)`` of (5.47)); at the joint point the
    three efforts are exactly conjugate to the three joint rates (``B P = I``).
    """

    kind = "planar"
    dof_names = ("angle", "slide1", "slide2")
    coordinate_kinds = (ROTATION, TRANSLATION, TRANSLATION)

    def _setup(self):
        if self.axis is None:
            raise ConfigurationError(f"{self}: a planar joint needs axis= (the plane normal)")
        n = self._parent_components(self.axis)
        m1, m2 = _complete_frame(self.axis)
        self._add_offset_rows([n])
        self._add_alignment_rows(n)
        m1, m2 = self._parent_components(m1), self._parent_components(m2)
        self._rotation_axes = [("p", n)]
        self._translation_axes = [(m2, n), (n, m1)]  # = m_1, m_2, and ⟂ n at a midpoint


class Universal(Joint):
    """Hooke joint: rotation about ``axis`` (fixed in the parent) and about
    ``child_axis`` (fixed in the child), normally perpendicular.

    Examples
    --------
    >>> from pyomo_mbdyn.mechanics import RigidBody, Universal
    >>> arm = RigidBody("arm", 1.0, (0.01, 0.1, 0.1), position=(0.5, 0, 0))
    >>> hooke = Universal("hooke", None, arm, location=(0, 0, 0), axis=(0, 0, 1), child_axis=(0, 1, 0))
    >>> hooke.dofs, hooke.n_constraints
    (('hooke.angle1', 'hooke.angle2'), 4)
    """

    kind = "universal"
    dof_names = ("angle1", "angle2")
    coordinate_kinds = (ROTATION, ROTATION)

    def __init__(self, name: str, parent: RigidBody | None, child: RigidBody | PointMass, *, child_axis: npt.ArrayLike | None = None, **kwds: Any) -> None:
        if child_axis is None:
            raise ConfigurationError(f"Universal({name!r}): needs child_axis=")
        self._child_axis_spatial = _unit(child_axis, "child_axis", f"Universal({name!r})")
        super().__init__(name, parent, child, **kwds)

    def _setup(self):
        if self.axis is None:
            raise ConfigurationError(f"{self}: a universal joint needs axis=")
        n1 = self._parent_components(self.axis)
        n2 = self.child.components_of(self._child_axis_spatial)
        if abs(self.axis @ self._child_axis_spatial) > 1 - 1e-6:
            raise ConfigurationError(f"{self}: axis and child_axis must not be parallel")
        self._add_coincidence_rows()
        a = _Vec("p", self.parent, n1, False)
        b = _Vec("c", self.child, n2, False)
        self._rows.append(("dot", [(1.0, a)], [(1.0, b)], float(self.axis @ self._child_axis_spatial)))
        self._rotation_axes = [("p", n1), ("c", n2)]


class Fixed(Joint):
    """Welds the child to the parent (no relative motion).

    Examples
    --------
    >>> from pyomo_mbdyn.mechanics import Fixed, RigidBody
    >>> base = RigidBody("base", 1.0, (0.1, 0.1, 0.1))
    >>> weld = Fixed("weld", None, base)
    >>> weld.dofs, weld.n_constraints
    ((), 6)
    """

    kind = "fixed"
    dof_names = ()

    def _setup(self):
        self._add_coincidence_rows()
        self._add_orientation_lock_rows()
