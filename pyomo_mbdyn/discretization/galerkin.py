"""Step equations of the energy–momentum time finite element cG(2) for constrained systems.

The continuous Galerkin method of degree k = 2 (Betsch & Steinmann, "Conservation
properties of a time FE method", parts I and III, IJNME 49 (2000) and 53 (2002)) for
``M v̇ + ∇V + G(q)ᵀγ - B(q)ᵀu = 0``, Φ(q) = 0, in natural coordinates: on each step
q(t) and v(t) are quadratic through the nodes (q_k, q_{k+½}, q_{k+1}), (v_k, v_{k+½},
v_{k+1}), γ(t) is linear, and the kinematic, momentum and constraint-rate equations
are tested with the linear functions.  With the constant M and ∇V of natural
coordinates and quadratic constraints every integrand is a polynomial of degree ≤ 3, so
the two-point Gauss rule (τ_g = ½ ∓ √3/6, weights ½) integrates them exactly and the
Galerkin equations are the equations at the two Gauss points:

::

    kinematics_g   q̇(τ_g) - v(τ_g)                                          (n, g = 1, 2)
    momentum_g     M v̇(τ_g) + ∇V + G(q(τ_g))ᵀγ_g - B(q(τ_g))ᵀu_g             (n, g = 1, 2)
    constraint     Φ(q_{k+1})                                               (m)
    constraint_rate_difference   G(q(τ_2)) q̇(τ_2) - G(q(τ_1)) q̇(τ_1)        (m)

(the two rate rows G(q_g) q̇_g = 0 written as their sum — h/2 Σ_g G q̇ = Φ(q_{k+1}) − Φ(q_k)
exactly, Φ quadratic — and their difference, so that a final configuration fixes q_N by
dropping the Φ(q_N) rows as for the other schemes).  Unknowns q_{k+½}, q_{k+1}, v_{k+½},
v_{k+1}, γ_1, γ_2 (4n + 2m).

What it conserves, exactly (each identity is an exact integral of a cubic):
``T + V + W`` with the work done on the controls ``W = -h Σ_g ½ u_g·B(q_g) q̇_g`` (test the momentum
equation with q̇, the kinematic one with M v̇; the constraint forces do no work since
∫ γ·Φ̇ dt = 0), the momentum maps of symmetries (q × M q̇ vanishes pointwise), and Φ at
the nodes.  Fourth order at the nodes for q and for the generalised velocities (the
M-orthogonal projection of v onto the tangent space); the node velocities themselves keep
an O(h²) component normal to the constraint manifold (Gauss collocation of the index-2
system), which does no work and carries no momentum — as BEM's node velocities do at O(h).
For k = 1 the same construction is BEM.  Any backend (floats, Pyomo, CasADi).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from ..mechanics.linalg import as_array, matmul, shared_array
from .common import thesis_controls
from .steps import OneStep

if TYPE_CHECKING:
    import numpy.typing as npt
    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["GAUSS_NODES", "GAUSS_WEIGHTS", "galerkin_residuals", "galerkin_work", "GalerkinStep", "GALERKIN_STEP"]

#: the two Gauss points on [0, 1] and their weights
GAUSS_NODES = np.array([0.5 - np.sqrt(3) / 6, 0.5 + np.sqrt(3) / 6])
GAUSS_WEIGHTS = np.array([0.5, 0.5])


def _basis(tau):
    """Values and τ-derivatives of the quadratic Lagrange basis on the nodes 0, ½, 1."""
    return (np.array([2 * (tau - 0.5) * (tau - 1), -4 * tau * (tau - 1), 2 * tau * (tau - 0.5)]),
            np.array([4 * tau - 3, 4 - 8 * tau, 4 * tau - 1]))


def _at_gauss_points(h, nodes):
    """``[(x(τ_g), ẋ(τ_g))]`` of the quadratic through the three node arrays."""
    out = []
    for tau in GAUSS_NODES:
        value, slope = _basis(tau)
        out.append((as_array(sum(c * x for c, x in zip(value, nodes))),
                    as_array(sum(c * x for c, x in zip(slope, nodes)) * (1.0 / h))))
    return out


def galerkin_residuals(system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, q_mid: np.ndarray, v_mid: np.ndarray, q1: np.ndarray, v1: np.ndarray, lam1: np.ndarray, lam2: np.ndarray, u1: np.ndarray, u2: np.ndarray) -> dict[str, np.ndarray]:
    """Residuals of one cG(2) step (the module docstring's groups, ``kinematics_1`` …).

    ``lam1``, ``lam2`` are the multipliers γ at the two Gauss points (ordered as
    ``system.active_labels()``), ``u1``, ``u2`` the actuated controls there (u is
    the applied generalised force).

    Examples
    --------
    A ball thrown in gravity: the exact motion is quadratic in t, so it solves the step.

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import MultibodySystem, PointMass
    >>> fall = MultibodySystem("fall", gravity=(0, -9.81, 0))
    >>> fall.add_bodies(PointMass("ball", 2.0))
    >>> h, v0 = 0.1, np.array([1.0, 2.0, 0.0])
    >>> g = np.array([0.0, -9.81, 0.0])
    >>> at = lambda t: (v0 * t + 0.5 * g * t ** 2, v0 + g * t)
    >>> (q_mid, v_mid), (q1, v1) = at(h / 2), at(h)
    >>> r = galerkin_residuals(fall, h, np.zeros(3), v0, q_mid, v_mid, q1, v1, [], [], [], [])
    >>> max(float(np.abs(rows).max(initial=0)) for rows in r.values()) < 1e-13
    True
    """
    q0, v0, q_mid, v_mid, q1, v1 = (as_array(x) for x in (q0, v0, q_mid, v_mid, q1, v1))
    M = np.diag(system.mass_matrix())
    q_g = _at_gauss_points(h, (q0, q_mid, q1))
    v_g = _at_gauss_points(h, (v0, v_mid, v1))
    out, rates = {}, []
    for g, ((q, q_dot), (v, v_dot), lam, u) in enumerate(zip(q_g, v_g, (lam1, lam2), (u1, u2)), start=1):
        q, q_dot = shared_array(q), shared_array(q_dot)
        G = system.active_jacobian(q)
        B = system.control_matrix(q)
        u_full = as_array(np.array(thesis_controls(system, u), dtype=object))
        out[f"kinematics_{g}"] = as_array(q_dot - v)
        out[f"momentum_{g}"] = as_array(M * v_dot + system.potential_gradient() + matmul(G.T, as_array(lam))
                                        + matmul(B.T, u_full))
        rates.append(as_array(matmul(G, q_dot)))
    out["constraint"] = system.active_constraints(q1)
    out["constraint_rate_difference"] = as_array(rates[1] - rates[0])
    return out


def galerkin_work(system: ConstrainedSystem, h: Any, q0: np.ndarray, q_mid: np.ndarray, q1: np.ndarray, u1: np.ndarray, u2: np.ndarray) -> Any:
    """The work done on the controls in one step, ``W = -h Σ_g ½ u_g·B(q_g) q̇_g`` (numbers; u
    the applied force, so W < 0 while the motors drive): the W with which T + V + W is
    constant to round-off.

    Examples
    --------
    A hinged link driven from rest for one step: the work is minus the energy gained.

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> from pyomo_mbdyn.simulate import simulate
    >>> pendulum = examples.pendulum()
    >>> tr = simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 1, [[0.5]], scheme="cg2")
    >>> W = galerkin_work(pendulum, 0.1, tr.q[0], tr.q_mid[0], tr.q[1], [0.5], [0.5])
    >>> gained = pendulum.kinetic_energy(tr.v[1]) + pendulum.potential_energy(tr.q[1])
    >>> bool(abs(W + gained) < 1e-12)
    True
    """
    nodes = tuple(np.asarray(x, float) for x in (q0, q_mid, q1))
    work = 0.0
    for (q, q_dot), u, weight in zip(_at_gauss_points(h, nodes), (u1, u2), GAUSS_WEIGHTS):
        rates = np.asarray(system.control_matrix(np.asarray(q, float)), float) @ np.asarray(q_dot, float)
        work -= weight * float(np.asarray(u, float) @ rates[system.actuated_indices])
    return h * work


class GalerkinStep(OneStep):
    """cG(2) for the Newton stepper: unknowns q_{k+½}, q_{k+1}, v_{k+½}, v_{k+1}, γ_1, γ_2;
    the interval's control acts at both Gauss points."""

    unknowns = (("q_mid", "n"), ("q", "n"), ("v_mid", "n"), ("v", "n"), ("lam", "m"), ("lam_late", "m"))

    def residuals(self, system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, x: Mapping[str, Any], u: np.ndarray, options: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return galerkin_residuals(system, h, q0, v0, x["q_mid"], x["v_mid"], x["q"], x["v"], x["lam"],
                                  x["lam_late"], u, u)

    def work(self, system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, x: Mapping[str, Any], u: np.ndarray, options: Mapping[str, Any] | None = None) -> Any:
        """The controls' work on the step (:func:`galerkin_work`)."""
        return galerkin_work(system, h, q0, x["q_mid"], x["q"], u, u)

    def guess(self, system: ConstrainedSystem, h: Any, q: np.ndarray, v: np.ndarray, previous: Mapping[str, Any] | None, options: Mapping[str, Any]) -> dict[str, Any]:
        x = super().guess(system, h, q, v, previous, options)
        x["q_mid"], x["v_mid"] = q + 0.5 * h * v, v
        return x


GALERKIN_STEP = GalerkinStep()
