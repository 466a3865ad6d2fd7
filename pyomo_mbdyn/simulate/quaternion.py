"""Newton stepper of the quaternion energy-momentum scheme (thesis ch. 5).

The step equations are :func:`pyomo_mbdyn.discretization.quaternion.quaternion_residuals`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..discretization.quaternion import E1, Q_left, quaternion_residuals
from ..errors import ConfigurationError
from ..mechanics.numeric import real
from .stepper import NewtonFunction, newton_solve

if TYPE_CHECKING:
    import numpy.typing as npt
    from ..discretization.quaternion import QuaternionTop

__all__ = ["QuaternionStepper"]


class QuaternionStepper:
    """Newton stepper for :func:`quaternion_residuals` (unknowns 𝔮, 𝔭, γ)."""

    def __init__(self, top: QuaternionTop, h: float, tol: float = 1e-12, max_iter: int = 25) -> None:
        import casadi

        self.top, self.h, self.tol, self.max_iter = top, real(h, "time step h", positive=True), tol, max_iter
        x = casadi.SX.sym("x", 9)
        q0 = casadi.SX.sym("q0", 4)
        p0 = casadi.SX.sym("p0", 4)
        xs = np.array([x[i] for i in range(9)], dtype=object)
        res = quaternion_residuals(top, self.h, np.array([q0[i] for i in range(4)], dtype=object),
                                   np.array([p0[i] for i in range(4)], dtype=object),
                                   xs[0:4], xs[4:8], xs[8])
        r = casadi.vertcat(*[casadi.SX(e) for g in res.values() for e in g])
        self._residual = NewtonFunction(casadi.Function("residual", [x, q0, p0], [r, casadi.jacobian(r, x)]))

    def _predict(self, q, p):
        """Start Newton from the exact rotation with the current angular velocity:
        𝔮 ← exp(½ h Ω)-rotated, 𝔭 ← M_4(𝔮_new) 𝔮̇ (the step can turn by more than a radian)."""
        Ql = Q_left(q)
        qdot = 0.25 * Ql @ (self.top.J4_inv * (Ql.T @ p))
        omega = 2 * np.asarray(E1(q), float) @ qdot
        angle = np.linalg.norm(omega) * self.h
        axis = omega / max(np.linalg.norm(omega), 1e-300)
        dq = np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])
        q_new = np.asarray(Q_left(dq), float) @ q
        return q_new, self.top.momentum(q_new, omega)

    def _turn_note(self, q, p):
        """What a failed step says: the angle the body turns per step at its current rate."""
        Ql = Q_left(q)
        omega = 2 * np.asarray(E1(q), float) @ (0.25 * Ql @ (self.top.J4_inv * (Ql.T @ p)))
        angle = float(np.linalg.norm(omega)) * self.h
        return (f"The body turns {angle:.3g} rad per step (|ω| = {np.linalg.norm(omega):.4g} rad/s, h = {self.h:.4g} s)"
                + ("; the quaternion midpoint rule resolves less than about 3 rad per step: use more steps."
                   if angle > 2.5 else "."))

    def simulate(self, q0: npt.ArrayLike, p0: npt.ArrayLike, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        q0, p0 = np.asarray(q0, float), np.asarray(p0, float)
        if abs(q0 @ q0 - 1) > 1e-12 or abs(q0 @ p0) > 1e-9 * max(1.0, np.abs(p0).max()):
            raise ConfigurationError("quaternion: initial state must satisfy |q| = 1 and q·p = 0")
        Q, P, G, its = [q0], [p0], [], []
        gamma = 0.0
        for k in range(int(steps)):
            x = np.concatenate([*self._predict(Q[-1], P[-1]), [gamma]])
            x, it = newton_solve(self._residual, x, (Q[-1], P[-1]), self.tol, self.max_iter,
                                 1.0 + np.abs(P[-1]).max(), f"quaternion step {k}",
                                 explain=lambda q=Q[-1], p=P[-1]: self._turn_note(q, p))  # type: ignore[misc]  # defaults bind this step's state
            gamma = x[8]
            Q.append(x[0:4])
            P.append(x[4:8])
            G.append(x[8])
            its.append(it)
        return np.array(Q), np.array(P), np.array(G), np.array(its)
