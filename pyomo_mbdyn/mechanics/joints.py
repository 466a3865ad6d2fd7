"""Joints between two bodies, or between the ground and a body.

Every joint is described by the *relative* motion of a child joint frame with
respect to a parent joint frame, built from elementary motions along axes:

* rotations about axes ``a_k`` (fixed in the parent, or for the second axis of
  a :class:`Universal` fixed in the child) with rates ``α̇_k``;
* translations along parent-fixed axes ``b_k`` with rates ``ṙ_k``.

With the joint points ``s = φ + ρ`` (``ρ = Σ X_I d_I``) this gives, for the
parent twist ``(φ̇_p, ω_p)`` and the joint rates (thesis §2.7 generalised):

    ω_c = ω_p + Σ α̇_k a_k
    φ̇_c = φ̇_p + ω_p × (φ_c - φ_p) + Σ α̇_k ρ_c × a_k + Σ ṙ_k b_k

i.e. the twist map ``twist_c = A twist_p + E rates`` used to build the null-space
matrix ``P``.  It reproduces the thesis's revolute and prismatic ``P_ext``.

Joint efforts (torques about ``a_k``, forces along ``b_k``) act on the child
as the wrench ``(f, ρ_c × f + t)`` (applied at the joint point) and on the
parent as the opposite wrench at the same point, so every joint wrench pair has
zero net force and zero net moment about the origin (the key to momentum
consistency, DMOCC §5).  ``t_k`` and ``f_k`` are the dual bases of the axes
(``t_k · a_j = δ_kj``, ``f_k · b_j = δ_kj``, in the span of the axes),
computed from the axes *at the configuration given*; hence ``Cᵀ T = I`` holds
exactly also at a non-admissible midpoint, and with the contravariant
``P_int(q♯)`` the system's ``B(q♯) P(q_mid) = I`` exactly (thesis §2.6, §2.8).

The nodal reparametrisation ``q_c,n+1 = F(w, q_n)`` (increments w) rotates the child by the
parent's increment ``R_p`` composed with rotations about the axes at ``t_n``
and moves the child joint point by ``R_p`` applied to the old relative offset
plus the translations along the axes at ``t_n``.  This is exact for every
joint (DMOCC errata §6.2: the axis is carried along by ``R_p``, the printed
projectors with ``n_n`` are wrong) and ``∂F/∂w|₀ = P``.

The joint kinds — their constraints, rates and derivations — are in
:mod:`pyomo_mbdyn.mechanics.joint_kinds`.
"""

from __future__ import annotations

import itertools
import warnings
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..errors import AssemblyError, ConfigurationError, InputTypeError, ModellingWarning
from .bodies import Body, PointMass, RigidBody, _vector
from .linalg import ROTATION_MAPS, as_array, axis_rotation, cross, dot, hat, is_unit_axis, matmul, scale, shared_array
from .numeric import check_numeric

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["Joint", "GROUND"]


#: the kinds of joint coordinates (:attr:`Joint.coordinate_kinds`)
ROTATION, TRANSLATION, ROTATION_VECTOR = "rotation", "translation", "rotation vector"
COORDINATE_KINDS = (ROTATION, TRANSLATION, ROTATION_VECTOR)


class _Ground(RigidBody):
    """The inertial frame: origin, directors e_1, e_2, e_3, never moving."""

    def __init__(self):
        super().__init__("ground", 1.0, euler=(1.0, 1.0, 1.0))

    def __repr__(self):
        return "ground"


#: The fixed world frame; pass ``None`` (or ``GROUND``) as a joint's parent.
GROUND = _Ground()

_ASSEMBLY_TOL = 1e-8
#: a joint point farther than this many body sizes from every rigid body it joins is
#: reported by a ModellingWarning (see :class:`Joint`)
FAR_JOINT_FACTOR = 20.0


def _unit(v, what, owner):
    given = v
    check_numeric(v, f"{owner}: {what}", "3 finite numbers")
    try:
        v = np.asarray(v, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ConfigurationError(f"{owner}: {what} must be 3 finite numbers, got {given!r}") from None
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise ConfigurationError(f"{owner}: {what} must be 3 finite numbers, got {v.tolist()}")
    norm = np.linalg.norm(v)
    if norm < 1e-12:
        raise ConfigurationError(f"{owner}: {what} must be non-zero, got {tuple(v.tolist())}")
    return v / norm


def _complete_frame(n):
    """Right-handed orthonormal (m_1, m_2, n) for a unit vector n."""
    helper = np.eye(3)[int(np.argmin(np.abs(n)))]
    m1 = np.cross(helper, n)
    m1 /= np.linalg.norm(m1)
    m2 = np.cross(n, m1)
    return m1, m2


def _dual_basis(axes):
    """Vectors t_k in span(axes) with t_k · a_j = δ_kj (explicit, any backend)."""
    return [shared_array(t) for t in _dual_basis_raw(axes)]


def _dual_basis_raw(axes):
    k = len(axes)
    if k == 0:
        return []
    if k == 1:
        a = axes[0]
        return [scale(a, 1.0 / dot(a, a))]
    if k == 2:
        a, b = axes
        gaa, gab, gbb = dot(a, a), dot(a, b), dot(b, b)
        det = gaa * gbb - gab * gab
        inv = 1.0 / det
        return [scale(scale(a, gbb) - scale(b, gab), inv), scale(scale(b, gaa) - scale(a, gab), inv)]
    a, b, c = axes
    bc, ca, ab = cross(b, c), cross(c, a), cross(a, b)
    det = dot(a, bc)
    inv = 1.0 / det
    return [scale(bc, inv), scale(ca, inv), scale(ab, inv)]


class _Vec:
    """A spatial vector affine in one body's coordinates: ``c φ + Σ X_I d_I``.

    Its Jacobian with respect to that body's ``q`` is the constant
    ``[c I, X_1 I, X_2 I, X_3 I]`` (``[c I]`` for a point mass).
    """

    def __init__(self, side, body, X, with_origin):
        self.side, self.body = side, body
        self.X = np.zeros(3) if X is None else np.asarray(X, dtype=float)
        self.c = 1.0 if with_origin else 0.0

    def value(self, q):
        q = as_array(q)
        v = self.c * q[0:3]
        if self.body.has_orientation:
            v = v + self.X[0] * q[3:6] + self.X[1] * q[6:9] + self.X[2] * q[9:12]
        return as_array(v)

    def jacobian(self):
        blocks = [self.c * np.eye(3)]
        if self.body.has_orientation:
            blocks += [x * np.eye(3) for x in self.X]
        return np.hstack(blocks)


class Joint:
    """Base class of joints.  Subclasses set class data and ``_setup``.

    Parameters
    ----------
    name : str
    parent : Body or None
        ``None`` (or :data:`GROUND`) attaches the child to the fixed frame.
    child : Body
    location : 3 numbers, optional
        The joint point in space, in the reference configuration; converted to
        body-fixed points of parent and child.  Alternatively give
    parent_point, child_point : str or 3 numbers, optional
        Body-fixed components (or names of body points); for the ground, a
        spatial point.  Default: the child's centre of mass.
    axis : 3 numbers, optional
        The joint axis in space in the reference configuration (unit after
        normalisation); fixed in the parent.  Required for revolute,
        prismatic, cylindrical (axis), planar (normal), universal (first axis).

    Warns
    -----
    ModellingWarning
        When the joint point lies more than :data:`FAR_JOINT_FACTOR` body sizes
        from every rigid body it joins (e.g. a hinge 100 m from a 1 m link): legal,
        the bodies are then joined by a massless link, but usually a slip.

    Hooks for subclasses: ``_setup()`` builds ``self._rotation_axes`` (list of
    ``(side, components)``), ``self._translation_axes`` (tuples of one parent
    vector's components, or two whose cross product is the axis) and
    the constraint rows; ``_rotation_increment(w, axes_old)`` composes the
    rotation increments.

    Attributes
    ----------
    dofs : tuple of str     names of the joint coordinates (length r)
    n_constraints : int     m_ext

    Examples
    --------
    Every joint (a :class:`Revolute` here) says what it frees and what it constrains:

    >>> from pyomo_mbdyn.mechanics import Joint, Revolute, RigidBody
    >>> link = RigidBody("link", 1.0, (0.1, 0.1, 0.02), position=(0.5, 0, 0))
    >>> hinge = Revolute("hinge", None, link, location=(0, 0, 0), axis=(0, 0, 1))
    >>> isinstance(hinge, Joint), hinge.kind, hinge.parent
    (True, 'revolute', ground)
    >>> hinge.dofs, hinge.n_dofs, hinge.n_constraints
    (('hinge.angle',), 1, 5)
    """

    #: the kind's name (messages, the system's summary); behaviour reads the facts below
    kind = "joint"
    dof_names: tuple[str, ...] = ()
    #: what each coordinate of ``dof_names`` is: ROTATION (an angle about an axis fixed in the
    #: parent, rad), TRANSLATION (a slide, m) or ROTATION_VECTOR (a component of a rotation
    #: vector, rad)
    coordinate_kinds: tuple[str, ...] = ()
    #: the coordinates' per-step increments add up, θ_k = θ_0 + Σ_{i<k} w_i (one fixed axis
    #: or direction per coordinate, commuting: revolute, prismatic, cylindrical)
    additive_increments = False
    #: the joint may carry a point mass as its child (a ball joint, or a hinge on a massless rod)
    holds_point_mass = False
    #: ROTATION or TRANSLATION for a one-axis joint (revolute, prismatic: a chain's joint, a URDF
    #: motor), else None
    axis_motion: str | None = None

    def __init__(self, name: str, parent: RigidBody | None, child: RigidBody | PointMass, *, location: npt.ArrayLike | None = None, parent_point: str | npt.ArrayLike | None = None,
                 child_point: str | npt.ArrayLike | None = None, axis: npt.ArrayLike | None = None) -> None:
        if not isinstance(name, str) or not name:
            raise ConfigurationError(f"joint name must be a non-empty string, got {name!r}")
        self.name = name
        if parent is None:
            parent = GROUND
        for role, body in (("parent", parent), ("child", child)):
            if not isinstance(body, Body):
                raise InputTypeError(f"{self}: {role} must be a RigidBody or PointMass, got {body!r}")
        if child is GROUND:
            raise ConfigurationError(f"{self}: the ground cannot be a child; swap parent and child")
        if parent is child:
            raise ConfigurationError(f"{self}: parent and child are the same body {child}")
        if isinstance(parent, PointMass):
            raise ConfigurationError(f"{self}: a point mass ({parent.name}) cannot be a joint parent")
        self.parent, self.child = parent, child
        self.axis = None if axis is None else _unit(axis, "axis", self)

        # joint points as body-fixed components
        if location is not None:
            if parent_point is not None or child_point is not None:
                raise ConfigurationError(f"{self}: give location= or parent_point=/child_point=, not both")
            loc = _vector(location, "location", self)
            self.parent_point = parent.components_of(loc - parent.q0[0:3])
            self.child_point = (np.zeros(3) if isinstance(child, PointMass)
                                else child.components_of(loc - child.q0[0:3]))
        else:
            self.child_point = (np.zeros(3) if child_point is None
                                else child.point_components(child_point))
            if parent_point is None:
                s_child = child.point(child.q0, self.child_point).astype(float)
                self.parent_point = parent.components_of(s_child - parent.q0[0:3])
            else:
                self.parent_point = parent.point_components(parent_point)
        if isinstance(child, PointMass) and not self.holds_point_mass:
            raise ConfigurationError(
                f"{self}: a point mass ({child.name}) can only be attached by a Spherical joint, or hung "
                f"from a Revolute hinge on a massless rod (location= the hinge point)"
            )
        #: a point mass swung about a hinge at a distance (a massless rod): the rotation moves it
        #: on the lever δ = x_c - s_p instead of turning its (absent) directors
        self.rod = False
        self._rows: list[tuple] = []  # list of ("vec", k, [(sign, _Vec)]) or ("dot", _Vec-list, _Vec-list, eta)
        self._rotation_axes: list[tuple[str, Any]] = []  # (side, body components)
        self._translation_axes: list[tuple[Any, ...]] = []  # parent components
        self._setup()  # type: ignore[attr-defined]  # each joint kind (subclass) defines _setup
        self._check_assembly()
        self._check_distance()

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"

    __str__ = __repr__

    # -- geometry helpers -----------------------------------------------------
    @property
    def dofs(self) -> tuple[str, ...]:
        return tuple(f"{self.name}.{d}" for d in self.dof_names)

    @property
    def n_dofs(self) -> int:
        return len(self.dof_names)

    @property
    def n_constraints(self) -> int:
        return len(self._rows)

    def _points(self):
        sp = _Vec("p", self.parent, self.parent_point, True)
        sc = _Vec("c", self.child, self.child_point, True)
        return sp, sc

    def _parent_components(self, spatial):
        return self.parent.components_of(spatial)

    def _add_offset_rows(self, directions):
        """Rows e·δ for the given parent-fixed unit directions (components)."""
        sp, sc = self._points()
        for comps in directions:
            e = _Vec("p", self.parent, comps, False)
            self._rows.append(("dot", [(1.0, e)], [(1.0, sc), (-1.0, sp)], 0.0))

    def _add_coincidence_rows(self):
        sp, sc = self._points()
        for k in range(3):
            self._rows.append(("vec", k, [(1.0, sc), (-1.0, sp)]))

    def _add_alignment_rows(self, axis_components):
        """n·d^c_a - η_a for the two child directors least aligned with n."""
        n_sp = self.parent.material_vector(self.parent.q0, axis_components).astype(float)
        dc = self.child.directors(self.child.q0).astype(float)
        skip = int(np.argmax(np.abs(dc @ n_sp)))
        n = _Vec("p", self.parent, axis_components, False)
        for a in range(3):
            if a == skip:
                continue
            X = np.eye(3)[a]
            d = _Vec("c", self.child, X, False)
            self._rows.append(("dot", [(1.0, n)], [(1.0, d)], float(n_sp @ dc[a])))

    def _add_orientation_lock_rows(self):
        """Three products d^p_i·d^c_j - η with best-conditioned gradients at q0."""
        dp = self.parent.directors(self.parent.q0).astype(float)
        dc = self.child.directors(self.child.q0).astype(float)
        pairs = [(i, j) for i in range(3) for j in range(3)]
        grads = {(i, j): np.cross(dc[j], dp[i]) for i, j in pairs}
        best = max(itertools.combinations(pairs, 3),
                   key=lambda c: abs(np.linalg.det(np.array([grads[p] for p in c]))))
        for i, j in best:
            a = _Vec("p", self.parent, np.eye(3)[i], False)
            b = _Vec("c", self.child, np.eye(3)[j], False)
            self._rows.append(("dot", [(1.0, a)], [(1.0, b)], float(dp[i] @ dc[j])))

    def _check_distance(self):
        """Warn when the joint point lies far from every rigid body the joint holds.

        Legal (the bodies are then joined by a massless link), but usually a
        slip in ``location``; the size of a body is the half-diagonal
        ``√(3 Σ E_i / m)`` of its equivalent box, "far" is more than
        :data:`FAR_JOINT_FACTOR` sizes.  The ground and point masses have no
        size: a joint on a point mass sits at the particle (a particle on a
        long rope is normal), and the ground is left out.
        """
        if not (self.parent.has_orientation and self.child.has_orientation):
            return
        distances = []
        for body, point in ((self.parent, self.parent_point), (self.child, self.child_point)):
            if body is GROUND:
                continue
            size = float(np.sqrt(3.0 * np.sum(body.euler) / body.mass))
            spatial = np.asarray(body.point(body.q0, point), dtype=float)
            distances.append((float(np.linalg.norm(spatial - body.q0[0:3])), size, body.name))
        if distances and all(d > FAR_JOINT_FACTOR * size for d, size, _ in distances):
            listing = ", ".join(f"{d:.3g} from {name!r} (size {size:.3g})" for d, size, name in distances)
            warnings.warn(
                f"{self}: the joint point lies far from the bodies it joins ({listing}): a massless link "
                f"longer than {FAR_JOINT_FACTOR:g} body sizes; check location=/parent_point=/child_point=",
                ModellingWarning, stacklevel=3)

    def _check_assembly(self):
        g = np.asarray(self.constraints(self.parent.q0, self.child.q0), dtype=float)
        if g.size and np.abs(g).max() > _ASSEMBLY_TOL:
            raise AssemblyError(
                f"{self}: the joint is not assembled in the reference configuration "
                f"(max constraint residual {np.abs(g).max():.3e}); the joint points of "
                f"{self.parent.name} and {self.child.name} must coincide"
                + (" up to the joint's free directions" if self._translation_axes else "")
            )

    # -- constraints ------------------------------------------------------------
    def _side_q(self, side, qp, qc):
        return qp if side == "p" else qc

    def constraints(self, qp: npt.ArrayLike, qc: npt.ArrayLike) -> np.ndarray:
        """Φ_ext(q_parent, q_child), shape (m_ext,)."""
        out = []
        for row in self._rows:
            if row[0] == "vec":
                _, k, terms = row
                out.append(sum(s * v.value(self._side_q(v.side, qp, qc))[k] for s, v in terms))
            else:
                _, lhs, rhs, eta = row
                a = sum(s * v.value(self._side_q(v.side, qp, qc)) for s, v in lhs)
                b = sum(s * v.value(self._side_q(v.side, qp, qc)) for s, v in rhs)
                out.append(dot(a, b) - eta)
        return as_array(out)

    def jacobian(self, qp: npt.ArrayLike, qc: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """(∂Φ_ext/∂q_parent, ∂Φ_ext/∂q_child), shapes (m_ext, n_p), (m_ext, n_c)."""
        n_p, n_c = self.parent.n_coordinates, self.child.n_coordinates
        Gp, Gc = [], []
        for row in self._rows:
            gp = as_array(np.zeros(n_p))
            gc = as_array(np.zeros(n_c))
            if row[0] == "vec":
                _, k, terms = row
                for s, v in terms:
                    if v.side == "p":
                        gp = gp + s * v.jacobian()[k]
                    else:
                        gc = gc + s * v.jacobian()[k]
            else:
                _, lhs, rhs, _eta = row
                a = shared_array(sum(s * v.value(self._side_q(v.side, qp, qc)) for s, v in lhs))
                b = shared_array(sum(s * v.value(self._side_q(v.side, qp, qc)) for s, v in rhs))
                for terms, other in ((lhs, b), (rhs, a)):
                    for s, v in terms:
                        contrib = as_array(s * matmul(v.jacobian().T, as_array(other)))
                        if v.side == "p":
                            gp = gp + contrib
                        else:
                            gc = gc + contrib
            Gp.append(gp)
            Gc.append(gc)
        return as_array(np.array(Gp).reshape(len(self._rows), n_p)), as_array(
            np.array(Gc).reshape(len(self._rows), n_c))

    # -- kinematics ---------------------------------------------------------
    def rotation_axes(self, qp: npt.ArrayLike, qc: npt.ArrayLike) -> list[np.ndarray]:
        """Spatial rotation axes a_k at (qp, qc)."""
        axes = []
        for side, comps in self._rotation_axes:
            if side == "spatial":
                axes.append(as_array(comps))
            elif side == "p":
                axes.append(self.parent.material_vector(qp, comps))
            else:
                axes.append(cast(RigidBody, self.child).material_vector(qc, comps))  # a child-side axis: a rigid child
        return [shared_array(a) for a in axes]

    def translation_axes(self, qp: npt.ArrayLike) -> list[np.ndarray]:
        """Spatial translation axes b_k at qp.

        Each is either a parent material vector or the cross product of two;
        the cross-product form keeps ``b`` exactly orthogonal to the directions
        the constraints hold fixed also at a midpoint, where the parent's
        directors are not orthonormal (so that ``G(q_mid) P(q_mid) = 0``).
        """
        axes = []
        for spec in self._translation_axes:
            vecs = [self.parent.material_vector(qp, c) for c in spec]
            axes.append(vecs[0] if len(vecs) == 1 else cross(vecs[0], vecs[1]))
        return [shared_array(a) for a in axes]

    def _child_offset(self, qc):
        """ρ_c = s_c - φ_c (spatial)."""
        if not self.child.has_orientation:
            return as_array(np.zeros(3))
        return shared_array(self.child.material_vector(qc, self.child_point))

    def _rod_lever(self, qp, qc):
        """``s_p - x_c``: minus the rod from the hinge to the point mass (so that the rotation
        column ``(s_p - x_c) × a = a × δ`` moves the mass on its circle)."""
        return shared_array(as_array(self.parent.point(as_array(qp), self.parent_point) - as_array(qc)[0:3]))

    def twist_map(self, qp: npt.ArrayLike, qc: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """(A, E) with ``twist_c = A twist_p + E rates``; shapes (t_c, 6), (t_c, r)."""
        qp, qc = as_array(qp), as_array(qc)
        d = as_array(qc[0:3] - qp[0:3])
        top = np.hstack([np.eye(3), -hat(d)])
        A = top if not self.child.has_orientation else np.vstack([top, np.hstack([np.zeros((3, 3)), np.eye(3)])])
        rho_c = self._rod_lever(qp, qc) if self.rod else self._child_offset(qc)
        cols = []
        for a in self.rotation_axes(qp, qc):
            col = [*cross(rho_c, a)]
            if self.child.has_orientation:
                col += [*a]
            cols.append(col)
        for b in self.translation_axes(qp):
            col = [*b] + ([0.0, 0.0, 0.0] if self.child.has_orientation else [])
            cols.append(col)
        E = as_array(np.array(cols, dtype=object).T.reshape(self.child.twist_size, len(cols)))
        return shared_array(as_array(A)), shared_array(E)

    def wrench_map(self, qp: npt.ArrayLike, qc: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """(C_p, C_c): wrenches on parent and child per unit joint effort.

        Shapes (6, r) and (t_c, r); zero net force and moment; ``C_cᵀ E = I``
        and ``C_pᵀ + C_cᵀ A = 0`` at the configuration given.
        """
        qp, qc = as_array(qp), as_array(qc)
        if self.rod:
            return self._rod_wrench_map(qp, qc)
        rho_c = self._child_offset(qc)
        s_c = as_array(qc[0:3] + rho_c)
        lever_p = as_array(s_c - qp[0:3])
        z = as_array(np.zeros(3))
        cp, cc = [], []
        for t in _dual_basis(self.rotation_axes(qp, qc)):
            cp.append([*z, *(-t)])
            cc.append([*z, *t] if self.child.has_orientation else [*z])
        for f in _dual_basis(self.translation_axes(qp)):
            cp.append([*(-f), *(-cross(lever_p, f))])
            cc.append([*f, *cross(rho_c, f)] if self.child.has_orientation else [*f])
        r = self.n_dofs
        Cp = as_array(np.array(cp, dtype=object).T.reshape(6, r))
        Cc = as_array(np.array(cc, dtype=object).T.reshape(self.child.twist_size, r))
        return shared_array(Cp), shared_array(Cc)

    def _rod_wrench_map(self, qp, qc):
        """A point mass on a rod: unit joint torque about a is the force ``f = (a × δ)/|a × δ|²``
        on the mass (``fᵀ (a × δ) = 1``: ``C_cᵀ E = 1``) and its reaction on the parent,
        ``C_p = -Aᵀ C_c = (-f, -d × f)`` with ``d = x_c - φ_p`` (zero net force and moment)."""
        (a,) = self.rotation_axes(qp, qc)
        delta = as_array(-self._rod_lever(qp, qc))
        t = shared_array(cross(a, delta))
        f = shared_array(scale(t, 1.0 / dot(t, t)))
        d = as_array(qc[0:3] - qp[0:3])
        Cp = as_array(np.array([*(-f), *(-cross(d, f))], dtype=object).reshape(6, 1))
        Cc = as_array(np.array([*f], dtype=object).reshape(3, 1))
        return shared_array(Cp), shared_array(Cc)

    # -- reparametrisation --------------------------------------------------------
    def _rotation_increment(self, w_rot, axes_old, rotation):
        """Product of the rotations by ``w_rot`` about ``axes_old``; about a numeric
        unit axis the exponential is :func:`~.linalg.axis_rotation` (exact for
        every angle — the absolute chart's joint angles are not bounded)."""
        R = np.eye(3)
        for alpha, a in zip(w_rot, axes_old):
            if rotation == "exp" and is_unit_axis(a):
                R = matmul(R, axis_rotation(alpha, a))
            else:
                R = matmul(R, ROTATION_MAPS[rotation](scale(a, alpha)))
        return as_array(R)

    def reparametrise(self, w: npt.ArrayLike, qp_old: npt.ArrayLike, qp_new: npt.ArrayLike, R_p: npt.ArrayLike, qc_old: npt.ArrayLike, rotation: str = "exp") -> tuple[np.ndarray, np.ndarray]:
        """Child configuration after the joint increments ``w`` (length r).

        ``qp_old, qp_new``: parent before/after; ``R_p``: the parent's rotation
        increment (``d_p,new = R_p d_p,old``).  Returns ``(qc_new, R_c)``.
        """
        w = as_array(w)
        qp_old, qp_new, qc_old = as_array(qp_old), as_array(qp_new), as_array(qc_old)
        n_rot = len(self._rotation_axes)
        R_rel = self._rotation_increment(w[:n_rot], self.rotation_axes(qp_old, qc_old), rotation)
        R_c = shared_array(matmul(R_p, R_rel))
        s_p_old = self.parent.point(qp_old, self.parent_point)
        s_p_new = self.parent.point(qp_new, self.parent_point)
        s_c_old = as_array(qc_old[0:3] + self._child_offset(qc_old))
        offset = as_array(s_c_old - s_p_old)
        for wk, b in zip(w[n_rot:], self.translation_axes(qp_old)):
            offset = as_array(offset + scale(b, wk))
        if self.rod:  # the rod turns with the hinge: the mass moves on its circle about the new hinge point
            return shared_array(s_p_new + matmul(R_c, offset)), R_c
        s_c_new = shared_array(s_p_new + matmul(R_p, offset))
        if not self.child.has_orientation:
            return s_c_new, np.eye(3)
        d_old = cast(RigidBody, self.child).directors(qc_old)
        d_new = [shared_array(matmul(R_c, d_old[i])) for i in range(3)]
        X = self.child_point
        phi_new = as_array(s_c_new - (X[0] * d_new[0] + X[1] * d_new[1] + X[2] * d_new[2]))
        return as_array(np.concatenate([phi_new, *d_new])), R_c
