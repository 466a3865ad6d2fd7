"""Bodies: the rigid body in directors and the point mass.

A :class:`RigidBody` has the configuration ``q = (φ, d_1, d_2, d_3) ∈ R¹²``
(centre of mass and an orthonormal director triad along the principal axes;
DMOCC paper §4, thesis §2.6).  Its kinetic energy
``T = ½ m |φ̇|² + ½ Σ E_i |ḋ_i|²`` gives the constant mass matrix
``M = diag(m I, E_1 I, E_2 I, E_3 I)`` with the Euler-tensor values
``E_i = ½ tr J - J_i``.  Six internal constraints keep the triad orthonormal.

A :class:`PointMass` has ``q = φ ∈ R³``, ``M = m I`` and no constraints.

The twist of a body is ``(φ̇, ω)`` (rigid body, spatial angular velocity) or
``φ̇`` (point mass); joints and systems are written in twists, and
``P_int`` maps a twist to ``q̇``.  Every method works with floats, Pyomo
expressions and CasADi symbols.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from ..errors import ConfigurationError, InputTypeError
from .linalg import ROTATION_MAPS, as_array, contravariant, cross, dot, hat, matmul
from .numeric import check_numeric

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["Body", "RigidBody", "PointMass"]

_ORTHONORMAL_TOL = 1e-9


def _vector(value, what, owner):
    check_numeric(value, f"{owner}: {what}", "3 finite numbers")
    try:
        v = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ConfigurationError(f"{owner}: {what} must be 3 numbers, got {value!r}") from None
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise ConfigurationError(f"{owner}: {what} must be 3 finite numbers, got {value!r}")
    return v


def _non_positive_hint(J):
    """What a zero or negative principal moment usually means, and what to give instead."""
    bad = [i for i in range(3) if J[i] <= 0]
    good = [J[i] for i in range(3) if J[i] > 0]
    if len(bad) == 1 and len(good) == 2 and J[bad[0]] == 0:
        i = bad[0]
        small = 1e-3 * min(good)
        return (f": J_{i + 1} = 0 is a thin rod along d_{i + 1} (its mass on that axis), which the director "
                f"formulation cannot carry (its mass matrix diag(m, E_1, E_2, E_3), E_j = ½ΣJ − J_j, would "
                f"be singular); give the rod a small positive axial moment, e.g. J_{i + 1} = {small:.3g} "
                f"(1e-3 of the others; the README's rod is (1e-3, 1/12, 1/12)): the moments across the rod "
                f"stay as given, only a spin about its own axis sees the small one")
    if not good or all(J[i] == 0 for i in bad):
        return ": a body with no extent in two or three directions is not a rigid body; a point is PointMass(name, mass)"
    return ": a negative moment belongs to no body (check the signs, and that a tensor is positive definite)"


def _triangle_hint(J, i):
    """What a violated triangle inequality J_i ≥ J_j + J_k means, and what to give instead."""
    others = J.sum() - J[i]
    if J[i] - others <= 1e-12 * J.sum():
        return (f": J_{i + 1} = J_{(i + 1) % 3 + 1} + J_{(i + 2) % 3 + 1} is a flat plate without "
                f"thickness along d_{i + 1} (E_{i + 1} = ∫X_{i + 1}² dm = 0: the mass matrix would be singular); "
                f"give it a small thickness, e.g. J_{i + 1} = {others * (1 - 1e-3):.6g} (1e-3 below the sum)")
    return (f": no rigid body has these moments (J_i = ∫(|X|² − X_i²) dm, so each is at most the sum of the "
            f"other two; here J_{i + 1} exceeds it by {J[i] - others:.3g}); check their order and units "
            f"(kg m²): a uniform box a×b×c has m/12·(b²+c², a²+c², a²+b²), a thin rod along d_1 (ε, J, J)")


class Body:
    """Common interface of bodies; see :class:`RigidBody` and :class:`PointMass`.

    Attributes
    ----------
    name : str
    mass : float
    n_coordinates : int        12 or 3
    n_internal : int           6 or 0 internal constraints
    twist_size : int           6 or 3
    q0 : ndarray               reference configuration

    Examples
    --------
    Code that accepts any body reads these attributes:

    >>> from pyomo_mbdyn.mechanics import Body, PointMass, RigidBody
    >>> for body in (RigidBody("link", 1.0, (0.1, 0.1, 0.02)), PointMass("bob", 2.0)):
    ...     print(body, isinstance(body, Body), body.n_coordinates, body.n_internal, body.twist_size)
    RigidBody('link') True 12 6 6
    PointMass('bob') True 3 0 3
    """

    n_coordinates = 0
    n_internal = 0
    twist_size = 0
    has_orientation = False

    def __init__(self, name: str, mass: float) -> None:
        if not isinstance(name, str) or not name:
            raise ConfigurationError(f"body name must be a non-empty string, got {name!r}")
        self.name = name
        check_numeric(mass, f"{self}: mass")
        try:
            mass = float(mass)
        except (TypeError, ValueError):
            raise ConfigurationError(f"{self}: mass must be a number, got {mass!r}") from None
        if not (mass > 0 and np.isfinite(mass)):
            raise ConfigurationError(f"{self}: mass must be positive, got {mass!r}")
        self.mass = mass

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"

    __str__ = __repr__

    # -- to be provided by subclasses ------------------------------------------
    def position(self, q: npt.ArrayLike) -> np.ndarray:
        """Centre of mass φ."""
        return as_array(q)[0:3]


class RigidBody(Body):
    """A rigid body in the director formulation.

    Parameters
    ----------
    name : str
    mass : float
        Positive.
    inertia : 3 numbers or (3, 3) array
        Principal moments ``(J_1, J_2, J_3)`` about the centre of mass along the
        directors, or the full inertia tensor in the frame of ``directors``; a
        full tensor is diagonalised and the directors turned to its principal
        axes (body points keep their spatial meaning).  Each ``J_i`` must be
        strictly below the sum of the other two (so that every ``E_i > 0`` and
        the mass matrix is positive definite): a thin rod along ``d_1`` takes a
        small positive axial moment, e.g. ``(1e-3 * J, J, J)``, and a flat plate a
        small thickness; the errors say so.
    euler : 3 numbers, optional
        The Euler-tensor values ``E_i = ∫ X_i² dm`` directly, instead of ``inertia``.
    position : 3 numbers
        Centre of mass in the reference configuration.
    directors : (3, 3) array
        Rows ``d_1, d_2, d_3`` in the reference configuration, orthonormal and
        right-handed.  Default: the identity.
    points : dict, optional
        Named body-fixed points ``{name: (X_1, X_2, X_3)}``, components along
        the directors relative to the centre of mass.

    Examples
    --------
    >>> disc = RigidBody("disc", mass=2.0, inertia=(0.5, 0.3, 0.3))
    >>> disc.euler            # E_i = ½ tr J - J_i
    array([0.05, 0.25, 0.25])
    """

    n_coordinates = 12
    n_internal = 6
    twist_size = 6
    has_orientation = True

    def __init__(self, name: str, mass: float, inertia: npt.ArrayLike | None = None, *, euler: npt.ArrayLike | None = None, position: npt.ArrayLike = (0, 0, 0),
                 directors: npt.ArrayLike | None = None, points: Mapping[str, npt.ArrayLike] | None = None) -> None:
        super().__init__(name, mass)
        phi = _vector(position, "position", self)
        if directors is not None:
            check_numeric(directors, f"{self}: directors", "a 3×3 array of finite numbers")
        try:
            D = np.eye(3) if directors is None else np.asarray(directors, dtype=float)
        except (TypeError, ValueError):
            D = None
        if D is None or D.shape != (3, 3) or not np.all(np.isfinite(D)):
            shown = directors.tolist() if isinstance(directors, np.ndarray) else directors
            raise ConfigurationError(f"{self}: directors must be a 3×3 array of finite numbers, got {shown!r}")
        err = np.abs(D @ D.T - np.eye(3)).max()
        if err > _ORTHONORMAL_TOL:
            raise ConfigurationError(
                f"{self}: directors not orthonormal (max |d_i·d_j - δ_ij| = {err:.1e})"
            )
        if np.linalg.det(D) < 0:
            raise ConfigurationError(f"{self}: directors are left-handed (det = -1)")
        if (inertia is None) == (euler is None):
            raise ConfigurationError(f"{self}: give exactly one of inertia= or euler=")
        spatial_points = {}
        if points is not None and not isinstance(points, dict):
            raise InputTypeError(f"{self}: points must be a dict {{name: (X_1, X_2, X_3)}}, "
                                 f"got {type(points).__name__} {points!r}")
        if points:
            for pname, comps in points.items():
                if not isinstance(pname, str) or not pname:
                    raise ConfigurationError(f"{self}: point names must be non-empty strings, got {pname!r}")
                spatial_points[pname] = phi + _vector(comps, f"point {pname!r}", self) @ D
        if euler is not None:
            E = _vector(euler, "euler", self)
            if np.any(E <= 0):
                raise ConfigurationError(f"{self}: Euler-tensor values must be positive, got {E}")
        else:
            check_numeric(inertia, f"{self}: inertia", "3 principal moments or a 3×3 tensor")
            try:
                J = np.asarray(inertia, dtype=float)
            except (TypeError, ValueError):
                raise ConfigurationError(f"{self}: inertia must be 3 principal moments or a 3×3 tensor, "
                                         f"got {inertia!r}") from None
            if J.shape == (3, 3):
                if not np.all(np.isfinite(J)):
                    raise ConfigurationError(f"{self}: inertia tensor must be finite, got {J.tolist()}")
                if np.abs(J - J.T).max() > 1e-12 * max(1.0, np.abs(J).max()):
                    raise ConfigurationError(f"{self}: inertia tensor is not symmetric")
                J_principal, V = np.linalg.eigh(J)
                if np.linalg.det(V) < 0:
                    V[:, 2] *= -1
                D = V.T @ D  # new d_i = Σ_j V_ji d_j (principal axes)
                J = J_principal
            else:
                J = _vector(inertia, "inertia", self)
            if np.any(J <= 0):
                raise ConfigurationError(f"{self}: principal moments of inertia must be positive, got {J}"
                                         + _non_positive_hint(J))
            E = 0.5 * J.sum() - J
            if np.any(E <= 0):
                i = int(np.argmin(E))
                raise ConfigurationError(
                    f"{self}: inertia {tuple(J.tolist())} violates the triangle inequality "
                    f"J_{i + 1} < J_{(i + 1) % 3 + 1} + J_{(i + 2) % 3 + 1}" + _triangle_hint(J, i)
                )
        self.euler = E
        self.inertia = np.array([E[1] + E[2], E[2] + E[0], E[0] + E[1]])
        self.q0 = np.concatenate([phi, D[0], D[1], D[2]])
        # body-fixed components of the named points in the (possibly turned) frame
        self.points = {p: D @ (x - phi) for p, x in spatial_points.items()}

    # -- geometry ---------------------------------------------------------------
    @staticmethod
    def directors(q: npt.ArrayLike) -> np.ndarray:
        q = as_array(q)
        return as_array([q[3:6], q[6:9], q[9:12]])

    def material_vector(self, q: npt.ArrayLike, components: npt.ArrayLike) -> np.ndarray:
        """Spatial vector ``Σ X_I d_I`` of body-fixed components ``X``."""
        d = self.directors(q)
        X: Any = components
        return as_array(X[0] * d[0] + X[1] * d[1] + X[2] * d[2])

    def point(self, q: npt.ArrayLike, components: npt.ArrayLike) -> np.ndarray:
        """Spatial position ``φ + Σ X_I d_I`` of a body-fixed point."""
        return as_array(as_array(q)[0:3] + self.material_vector(q, components))

    def point_components(self, point: str | npt.ArrayLike) -> np.ndarray:
        """Body-frame components of a named point, or of given components."""
        if isinstance(point, str):
            if point not in self.points:
                raise ConfigurationError(
                    f"{self}: no point named {point!r}; known points: {sorted(self.points)}"
                )
            return self.points[point]
        return _vector(point, "point", self)

    def components_of(self, spatial_vector: npt.ArrayLike, q: npt.ArrayLike | None = None) -> np.ndarray:
        """Body-frame components of a spatial vector, in configuration ``q``."""
        q = self.q0 if q is None else q
        return self.directors(q).astype(float) @ np.asarray(spatial_vector, dtype=float)

    # -- dynamics ---------------------------------------------------------------
    def mass_matrix(self) -> np.ndarray:
        """``M = diag(m I, E_1 I, E_2 I, E_3 I)`` (DMOCC Eq. 4.3), shape (12, 12)."""
        return np.diag(np.repeat([self.mass, *self.euler], 3))

    def internal_constraints(self, q: npt.ArrayLike) -> np.ndarray:
        """Φ_int = [½(d_1·d_1 - 1), ½(d_2·d_2 - 1), ½(d_3·d_3 - 1), d_1·d_2, d_1·d_3, d_2·d_3]."""
        d = self.directors(q)
        return as_array([
            0.5 * (dot(d[0], d[0]) - 1), 0.5 * (dot(d[1], d[1]) - 1), 0.5 * (dot(d[2], d[2]) - 1),
            dot(d[0], d[1]), dot(d[0], d[2]), dot(d[1], d[2]),
        ])

    def internal_jacobian(self, q: npt.ArrayLike) -> np.ndarray:
        """G_int = ∂Φ_int/∂q, shape (6, 12) (thesis §2.6)."""
        d = self.directors(q)
        z = 0.0 * d[0]
        rows = [
            [z, d[0], z, z], [z, z, d[1], z], [z, z, z, d[2]],
            [z, d[1], d[0], z], [z, d[2], z, d[0]], [z, z, d[2], d[1]],
        ]
        return as_array([np.concatenate(r) for r in rows])

    def internal_null_space(self, q: npt.ArrayLike) -> np.ndarray:
        """P_int = [[I, 0], [0, -d̂_1], [0, -d̂_2], [0, -d̂_3]], shape (12, 6) (DMOCC 4.5).

        Maps the twist (φ̇, ω) to q̇, since ḋ_i = ω × d_i.
        """
        d = self.directors(q)
        Z = np.zeros((3, 3))
        return as_array(np.block([
            [np.eye(3), Z],
            [Z, -hat(d[0])], [Z, -hat(d[1])], [Z, -hat(d[2])],
        ]))

    def twist_weights(self) -> np.ndarray:
        """The factor ``diag(I, ½ I)`` of ``Bᵀ = P_int(q♯) diag(I, ½I) C`` (thesis §2.6)."""
        return np.diag([1.0, 1.0, 1.0, 0.5, 0.5, 0.5])

    @classmethod
    def sharp(cls, q_mid: npt.ArrayLike) -> np.ndarray:
        """The contravariant evaluation ``q♯ = (φ, d^1, d^2, d^3)`` of a midpoint.

        With it, ``B_int(q♯) P_int(q_mid) = I`` exactly (thesis §2.6).
        """
        q_mid = as_array(q_mid)
        dual = contravariant(cls.directors(q_mid))
        return as_array(np.concatenate([q_mid[0:3], dual[0], dual[1], dual[2]]))

    def twist(self, q: npt.ArrayLike, v: npt.ArrayLike) -> np.ndarray:
        """(φ̇, ω) with ω = ½ Σ d_i × ḋ_i."""
        q, v = as_array(q), as_array(v)
        d = self.directors(q)
        w = 0.5 * (cross(d[0], v[3:6]) + cross(d[1], v[6:9]) + cross(d[2], v[9:12]))
        return as_array(np.concatenate([v[0:3], w]))

    def kinetic_energy(self, v: npt.ArrayLike) -> Any:
        v = as_array(v)
        M = np.repeat([self.mass, *self.euler], 3)
        return 0.5 * sum(M[i] * v[i] * v[i] for i in range(12))

    def angular_momentum(self, q: npt.ArrayLike, v: npt.ArrayLike) -> np.ndarray:
        """About the origin: ``m φ × φ̇ + Σ E_i d_i × ḋ_i`` (thesis §2.6)."""
        q, v = as_array(q), as_array(v)
        L = self.mass * cross(q[0:3], v[0:3])
        for i in range(3):
            L = L + self.euler[i] * cross(q[3 + 3 * i: 6 + 3 * i], v[3 + 3 * i: 6 + 3 * i])
        return as_array(L)

    def linear_momentum(self, v: npt.ArrayLike) -> np.ndarray:
        return self.mass * as_array(v)[0:3]

    def reparametrise(self, w: npt.ArrayLike, q_base: npt.ArrayLike, rotation: str = "exp") -> tuple[np.ndarray, np.ndarray]:
        """Nodal reparametrisation ``F(w, q_base)``, DMOCC Eq. (4.6).

        ``w = (w_φ, θ)``: ``φ = φ_base + w_φ``, ``d_i = R(θ) d_i,base`` with
        ``R`` the exponential (Rodrigues) or Cayley map.  Returns ``(q, R)``.
        """
        w, q_base = as_array(w), as_array(q_base)
        R = ROTATION_MAPS[rotation](w[3:6])
        d = self.directors(q_base)
        q = np.concatenate([q_base[0:3] + w[0:3], matmul(R, d[0]), matmul(R, d[1]), matmul(R, d[2])])
        return as_array(q), R


class PointMass(Body):
    """A particle: ``q = φ ∈ R³``, ``M = m I``; used for the crane and the particle.

    Examples
    --------
    >>> bob = PointMass("bob", 2.0, position=(0, -1, 0))
    >>> bob.q0, bob.n_coordinates
    (array([ 0., -1.,  0.]), 3)
    >>> float(bob.kinetic_energy([1.0, 0.0, 0.0]))     # ½ m |φ̇|²
    1.0
    """

    n_coordinates = 3
    n_internal = 0
    twist_size = 3
    has_orientation = False

    def __init__(self, name: str, mass: float, *, position: npt.ArrayLike = (0, 0, 0)) -> None:
        super().__init__(name, mass)
        self.q0 = _vector(position, "position", self)
        self.points: dict[str, np.ndarray] = {}
        self.euler = np.zeros(0)

    def point(self, q: npt.ArrayLike, components: npt.ArrayLike | None = None) -> np.ndarray:
        return as_array(as_array(q)[0:3])

    def point_components(self, point: str | npt.ArrayLike | None) -> np.ndarray:
        if point is not None and not isinstance(point, str):
            check_numeric(point, f"{self}: point", "3 finite numbers")
        if point is None or (not isinstance(point, str) and np.allclose(point, 0)):
            return np.zeros(3)
        raise ConfigurationError(f"{self}: a point mass has no body-fixed points other than itself")

    def mass_matrix(self) -> np.ndarray:
        return self.mass * np.eye(3)

    def internal_constraints(self, q: npt.ArrayLike) -> np.ndarray:
        return as_array(np.zeros(0))

    def internal_jacobian(self, q: npt.ArrayLike) -> np.ndarray:
        return np.zeros((0, 3))

    def internal_null_space(self, q: npt.ArrayLike) -> np.ndarray:
        return np.eye(3)

    def twist_weights(self) -> np.ndarray:
        return np.eye(3)

    @classmethod
    def sharp(cls, q_mid: npt.ArrayLike) -> np.ndarray:
        return as_array(q_mid)

    def twist(self, q: npt.ArrayLike, v: npt.ArrayLike) -> np.ndarray:
        return as_array(as_array(v)[0:3])

    def kinetic_energy(self, v: npt.ArrayLike) -> Any:
        v = as_array(v)
        return 0.5 * self.mass * sum(v[i] * v[i] for i in range(3))

    def angular_momentum(self, q: npt.ArrayLike, v: npt.ArrayLike) -> np.ndarray:
        return self.mass * cross(as_array(q)[0:3], as_array(v)[0:3])

    def linear_momentum(self, v: npt.ArrayLike) -> np.ndarray:
        return self.mass * as_array(v)[0:3]

    def reparametrise(self, w: npt.ArrayLike, q_base: npt.ArrayLike, rotation: str = "exp") -> tuple[np.ndarray, np.ndarray]:
        return as_array(as_array(q_base) + as_array(w)[0:3]), np.eye(3)
