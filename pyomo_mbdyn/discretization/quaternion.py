"""The quaternion energy-momentum scheme for a rigid body with a fixed point.

Thesis ch. 5 (after Betsch & Siebert 2009), spec thesis.md §2.9.  Unit
quaternion ``𝔮 = (q_0, 𝐪)`` and conjugate momentum ``𝔭 = M_4 𝔮̇`` with
``M_4 = 4 Q_l(𝔮) J_4 Q_l(𝔮)ᵀ``, ``J_4 = diag(½ tr J, J)`` (J the inertia
about the fixed point in body axes).  With ``π = Q_l(𝔮)ᵀ 𝔭`` (so that
``T = ⅛ π·J_4⁻¹π``) one step of the scheme (thesis Eq. 5.43, corrected) is

    𝔮_{k+1} - 𝔮_k = h/8 Q_l(𝔮_{k+½}) J_4⁻¹ (π_k + π_{k+1})
    𝔭_{k+1} - 𝔭_k = -h/8 Q_l(𝔭_{k+½}) D J_4⁻¹ (π_k + π_{k+1}) - h ∇V(𝔮_{k+½}) - h γ 𝔮_{k+½}
    0 = ½(𝔮_{k+1}·𝔮_{k+1} - 1),                 D = diag(1, -1, -1, -1).

The printed ``Q_l(𝔭_{k+½})`` without ``D`` is not the gradient of T (spec
caveat); with it, and V quadratic in 𝔮 (gravity: ``V = -m g·R(𝔮) c``,
``R = E_1 E_2ᵀ``), energy and the momentum map about the gravity axis are
conserved exactly.  The formulas are written over arrays of any backend.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..errors import ConfigurationError
from ..mechanics.linalg import as_array, matmul, scale

if TYPE_CHECKING:
    import numpy.typing as npt
    from ..mechanics.bodies import RigidBody
    from ..mechanics.joint_kinds import Spherical
    from ..mechanics.system import MultibodySystem

__all__ = ["Q_left", "E1", "E2", "rotation_matrix", "QuaternionTop", "quaternion_residuals",
           "director_trajectory"]

D = np.diag([1.0, -1.0, -1.0, -1.0])


def Q_left(a: Sequence[Any] | np.ndarray) -> np.ndarray:
    """``Q_l(𝔞)`` with ``𝔞 ∘ 𝔟 = Q_l(𝔞) 𝔟``."""
    a0, a1, a2, a3 = a
    return as_array([[a0, -a1, -a2, -a3], [a1, a0, -a3, a2], [a2, a3, a0, -a1], [a3, -a2, a1, a0]])


def E1(q: Sequence[Any] | np.ndarray) -> np.ndarray:
    """``E_1 = [-𝐪, q_0 I + 𝐪̂]`` (3×4); spatial angular velocity ``ω = 2 E_1 𝔮̇``."""
    q0, q1, q2, q3 = q
    return as_array([[-q1, q0, -q3, q2], [-q2, q3, q0, -q1], [-q3, -q2, q1, q0]])


def E2(q: Sequence[Any] | np.ndarray) -> np.ndarray:
    """``E_2 = [-𝐪, q_0 I - 𝐪̂]`` (3×4); convective angular velocity ``Ω = 2 E_2 𝔮̇``."""
    q0, q1, q2, q3 = q
    return as_array([[-q1, q0, q3, -q2], [-q2, -q3, q0, q1], [-q3, q2, -q1, q0]])


def rotation_matrix(q: Sequence[Any] | np.ndarray) -> np.ndarray:
    """``R = E_1(𝔮) E_2(𝔮)ᵀ`` — quadratic in 𝔮, orthogonal for a unit quaternion."""
    return matmul(E1(q), E2(q).T)


class QuaternionTop:
    """A rigid body turning about a fixed point, in quaternions.

    Parameters
    ----------
    inertia : 3 numbers
        Principal moments about the fixed point, along the body axes.
    mass : float
    center : 3 numbers
        Centre of mass relative to the fixed point, body components.
    gravity : 3 numbers
    """

    # set by :meth:`from_system` (declarations for type checkers, no values)
    body: RigidBody
    joint: Spherical

    def __init__(self, inertia: npt.ArrayLike, mass: float = 0.0, center: npt.ArrayLike = (0, 0, 0), gravity: npt.ArrayLike = (0, 0, 0)) -> None:
        J = np.asarray(inertia, dtype=float)
        if J.shape != (3,) or np.any(J <= 0):
            raise ConfigurationError(f"QuaternionTop: inertia must be 3 positive numbers, got {inertia!r}")
        self.J = J
        self.J4_inv = 1.0 / np.concatenate([[0.5 * J.sum()], J])
        self.mass = float(mass)
        self.center = np.asarray(center, dtype=float)
        self.gravity = np.asarray(gravity, dtype=float)

    @classmethod
    def from_system(cls, system: MultibodySystem) -> QuaternionTop:
        """The top of a MultibodySystem: one RigidBody on a Spherical joint to the ground."""
        from ..mechanics import GROUND, RigidBody, Spherical

        joints = list(system.joints.values())
        bodies = list(system.bodies.values())
        if (len(bodies) != 1 or not isinstance(bodies[0], RigidBody) or len(joints) != 1
                or not isinstance(joints[0], Spherical) or joints[0].parent is not GROUND):
            raise ConfigurationError(
                f"quaternion scheme: {system} must be one RigidBody on a Spherical joint to the ground")
        body, joint = bodies[0], joints[0]
        c = -joint.child_point  # centre of mass relative to the fixed point, body components
        J = body.inertia + body.mass * (c @ c - c**2)  # parallel axes (principal, c on an axis)
        offdiag = body.mass * np.outer(c, c) - np.diag(body.mass * c**2)
        if np.abs(offdiag).max() > 1e-12 * max(1.0, J.max()):
            raise ConfigurationError("quaternion scheme: the fixed point must lie on a principal axis")
        top = cls(J, body.mass, c, system.gravity)
        top.body, top.joint = body, joint
        return top

    # -- energy and momenta -----------------------------------------------------
    def pi(self, q: Sequence[Any] | np.ndarray, p: Sequence[Any] | np.ndarray) -> np.ndarray:
        return matmul(Q_left(q).T, as_array(p))

    def kinetic_energy(self, q: Sequence[Any] | np.ndarray, p: Sequence[Any] | np.ndarray) -> Any:
        pi = self.pi(q, p)
        return 0.125 * sum(self.J4_inv[i] * pi[i] * pi[i] for i in range(4))

    def potential_energy(self, q: Sequence[Any] | np.ndarray) -> Any:
        return -self.mass * sum(self.gravity[i] * x for i, x in enumerate(matmul(rotation_matrix(q), self.center)))

    def potential_gradient(self, q: Sequence[Any] | np.ndarray) -> np.ndarray:
        """``∇V`` (V is quadratic in 𝔮): ``-m Σ_i g_i ∇(R c)_i``, written out."""
        q = as_array(q)
        grad = as_array(np.zeros(4))
        for i in range(3):
            if self.gravity[i] == 0 or self.mass == 0:
                continue
            for j in range(3):
                if self.center[j] == 0:
                    continue
                grad = as_array(grad - _dR(q, i, j) * (self.mass * self.gravity[i] * self.center[j]))
        return grad

    def angular_momentum(self, q: Sequence[Any] | np.ndarray, p: Sequence[Any] | np.ndarray) -> np.ndarray:
        """Spatial angular momentum about the fixed point, ``½ E_1(𝔮) 𝔭``."""
        return as_array(matmul(E1(q), as_array(p)) * 0.5)

    def momentum(self, q: Sequence[Any] | np.ndarray, omega: Sequence[Any] | np.ndarray) -> np.ndarray:
        """𝔭 for the spatial angular velocity ω at 𝔮 (numbers)."""
        q = np.asarray(q, float)
        qdot = 0.5 * E1(q).T @ np.asarray(omega, float)
        Ql = Q_left(q)
        return 4 * Ql @ np.diag(1.0 / self.J4_inv) @ Ql.T @ qdot


def _dR(q, i, j):
    """``∂R_ij/∂𝔮`` for ``R = E_1 E_2ᵀ`` (linear in 𝔮)."""
    e1, e2 = E1(q), E2(q)
    basis = np.eye(4)
    return as_array([sum(E1(basis[a])[i, k] * e2[j, k] + e1[i, k] * E2(basis[a])[j, k] for k in range(4))
                     for a in range(4)])


def quaternion_residuals(top: QuaternionTop, h: Any, q0: npt.ArrayLike, p0: npt.ArrayLike, q1: npt.ArrayLike, p1: npt.ArrayLike, gamma: Any) -> dict[str, Any]:
    """Residuals of one step (see the module docstring): ``rotation`` (4),
    ``momentum_balance`` (4), ``unit_quaternion`` (1)."""
    q0, p0, q1, p1 = as_array(q0), as_array(p0), as_array(q1), as_array(p1)
    q_mid = as_array((q0 + q1) * 0.5)
    p_mid = as_array((p0 + p1) * 0.5)
    s = as_array((top.pi(q0, p0) + top.pi(q1, p1)) * top.J4_inv)
    rotation = as_array(q1 - q0 - matmul(Q_left(q_mid), s) * (h / 8))
    momentum = as_array(p1 - p0 + matmul(matmul(Q_left(p_mid), D), s) * (h / 8)
                        + (top.potential_gradient(q_mid) + scale(q_mid, gamma)) * h)
    unit = as_array([0.5 * (sum(x * x for x in q1) - 1.0)])
    return {"rotation": rotation, "momentum_balance": momentum, "unit_quaternion": unit}


def director_trajectory(top: QuaternionTop, system: MultibodySystem, Q: Sequence[np.ndarray], P: Sequence[np.ndarray], h: float) -> tuple[np.ndarray, np.ndarray]:
    """The quaternion trajectory in the system's director coordinates.

    ``d_i = R(𝔮) e_i``, ``φ = s + R(𝔮) c`` (s the fixed point), ``ω = 2 E_1 𝔮̇``
    with ``𝔮̇ = ¼ Q_l J_4⁻¹ Q_lᵀ 𝔭``; returns (q, v) arrays (N+1, 12).
    """
    s = np.asarray(top.joint.parent_point, float)
    qs, vs = [], []
    for quat, mom in zip(Q, P):
        R = np.asarray(rotation_matrix(quat), float)
        Ql = Q_left(quat)
        qdot = 0.25 * Ql @ np.diag(top.J4_inv) @ Ql.T @ mom
        omega = 2 * np.asarray(E1(quat), float) @ qdot
        phi = s + R @ top.center
        d = [R[:, i] for i in range(3)]
        qs.append(np.concatenate([phi, *d]))
        vs.append(np.concatenate([np.cross(omega, phi - s), *[np.cross(omega, di) for di in d]]))
    return np.array(qs), np.array(vs)
