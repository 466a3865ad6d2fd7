"""Worked Udwadia–Kalaba examples of the spec (udwadia_deleuterio.md §3.1).

Not in the paper itself (it has no examples); they exercise the explicit
equations, non-ideal constraints and exact tracking control:

* :func:`particle_pendulum` — a unit mass on a rod of length 1 (UK-11); with
  ``friction`` it is a bead on a rough circular wire with Coulomb friction
  ``C = -μ |Qᶜ_i| q̇/|q̇|`` (UK-12, explicit because Qᶜ_i does not depend on C);
* :func:`tip_tracking` — a double pendulum (unit masses and lengths, absolute
  angles) whose tip height follows ``y_d(t) = -1.5 + 0.2 sin 2t`` exactly with
  the critically damped error dynamics ``ë + 2ωė + ω²e = 0`` (UK-14): the
  requirement is written as the constraint ``ÿ_tip = ÿ_d - 2ωė - ω²e`` and the
  UK constraint force is the control.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .udwadia_kalaba import UdwadiaKalabaSystem

__all__ = ["particle_pendulum", "tip_tracking", "GRAVITY"]

GRAVITY = 9.81


def particle_pendulum(friction: float = 0.0, baumgarte: tuple[float, float] = (0.0, 0.0), length: float = 1.0) -> UdwadiaKalabaSystem:
    """Unit mass, q = (x, y), φ = x² + y² - L², gravity -y."""

    def nonideal(q, qd, t, ideal):
        speed = np.linalg.norm(qd)
        return -friction * np.linalg.norm(ideal) * qd / speed if speed > 0 else np.zeros(2)

    return UdwadiaKalabaSystem(
        np.eye(2), lambda q, qd, t: np.array([0.0, -GRAVITY]),
        constraints=lambda q, t: [q[0] * q[0] + q[1] * q[1] - length * length],
        nonideal=nonideal if friction else None, baumgarte=baumgarte)


def tip_height(q: Sequence[float] | np.ndarray) -> float:
    return -np.cos(q[0]) - np.cos(q[1])


def desired_height(t: float) -> tuple[float, float, float]:
    """(y_d, ẏ_d, ÿ_d)."""
    return -1.5 + 0.2 * np.sin(2 * t), 0.4 * np.cos(2 * t), -0.8 * np.sin(2 * t)


def tip_tracking(omega: float) -> UdwadiaKalabaSystem:
    """The double pendulum with the tracking requirement of gain ω (UK-14)."""

    def mass(q, t):
        c = np.cos(q[0] - q[1])
        return np.array([[2.0, c], [c, 1.0]])

    def force(q, qd, t):
        s = np.sin(q[0] - q[1])
        return np.array([-s * qd[1] ** 2 - 2 * GRAVITY * np.sin(q[0]),
                         s * qd[0] ** 2 - GRAVITY * np.sin(q[1])])

    def requirement(q, qd, t):
        y, yv, ya = desired_height(t)
        J = np.array([np.sin(q[0]), np.sin(q[1])])
        e, edot = tip_height(q) - y, J @ qd - yv
        b = ya - 2 * omega * edot - omega**2 * e - (np.cos(q[0]) * qd[0] ** 2 + np.cos(q[1]) * qd[1] ** 2)
        return J[None, :], np.array([b])

    return UdwadiaKalabaSystem(mass, force, velocity_constraints=requirement)
