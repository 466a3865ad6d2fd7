"""Step equations of RATTLE, the constrained Störmer–Verlet scheme.

RATTLE (Andersen 1983; Leimkuhler & Skeel 1994; Hairer, Lubich & Wanner,
*Geometric Numerical Integration*, 2nd ed., §VII.1.4, Eq. (1.26)) for the
equations of motion ``M v̇ + ∇V + Gᵀγ - Bᵀu = 0`` (u the applied force) with holonomic constraints
``Φ(q) = 0``: symmetric, symplectic, second order, exact for the momentum maps
of symmetries of V, Φ and the forces, and with the constraints and their
derivative (``G(q) v = 0``) satisfied at every node.  Any backend (floats,
Pyomo, CasADi).

The interval control ``u_k`` (constant on ``[t_k, t_{k+1}]``) is lumped half to
each node, ``(h/2) B(q_k)ᵀu_k`` and ``(h/2) B(q_{k+1})ᵀu_k``, as the discrete
forces of DMOCC (DMOCC paper Eq. 3.10; cf.
:func:`~pyomo_mbdyn.discretization.variational.lumped_controls`).
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

__all__ = ["rattle_residuals", "RattleStep", "RATTLE_STEP"]


def _nodal_force(system, q, multipliers, u_full):
    """``∇V + G(q)ᵀμ + B(q)ᵀū`` at a node (``ū = -u`` from :func:`.common.thesis_controls`)."""
    G = system.constraint_jacobian(q)
    B = system.control_matrix(q)
    return as_array(system.potential_gradient() + matmul(G.T, as_array(multipliers))
                    + matmul(B.T, u_full))


def rattle_residuals(system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, q1: np.ndarray, v1: np.ndarray, lam: np.ndarray, mu: np.ndarray, u: np.ndarray) -> dict[str, np.ndarray]:
    """Residuals of one RATTLE step ``(q_k, v_k) → (q_{k+1}, v_{k+1})`` (HLW VII.1.4, Eq. 1.26).

    With ``p = M v`` and the half-step momentum ``p_{k+½} = M (q_{k+1} - q_k)/h``
    eliminated, returns a dict of arrays:

    ::

        momentum_first_half       M((q_{k+1} - q_k)/h - v_k)
                                  + h/2 [∇V + G(q_k)ᵀλ - B(q_k)ᵀu_k]              (n)
        constraint                Φ(q_{k+1})                                      (m)
        momentum_second_half      M(v_{k+1} - (q_{k+1} - q_k)/h)
                                  + h/2 [∇V + G(q_{k+1})ᵀμ - B(q_{k+1})ᵀu_k]      (n)
        hidden_constraint         G(q_{k+1}) v_{k+1}                              (m)

    Unknowns ``q_{k+1}, v_{k+1}, λ, μ``: 2n + 2m equations.  ``lam`` and ``mu``
    are the multipliers of the two half steps (ordered as
    ``system.constraint_labels()``), ``u`` the actuated controls of the
    interval (u is the applied generalised force).  ``B(q)`` at a node is
    ``system.control_matrix(q)`` as in DMOCC's lumped controls; at an
    admissible node its contravariant evaluation equals the plain one
    (orthonormal directors are their own duals).  Rayleigh friction is not
    part of the scheme (as for the variational schemes).
    """
    q0, v0, q1, v1 = as_array(q0), as_array(v0), as_array(q1), as_array(v1)
    M = np.diag(system.mass_matrix())
    u_full = as_array(np.array(thesis_controls(system, u), dtype=object))
    half_step = shared_array(M * (q1 - q0) * (1.0 / h))
    first = _nodal_force(system, q0, lam, u_full)
    second = _nodal_force(system, q1, mu, u_full)
    return {
        "momentum_first_half": as_array(half_step - M * v0 + first * (0.5 * h)),
        "constraint": system.constraints(q1),
        "momentum_second_half": as_array(M * v1 - half_step + second * (0.5 * h)),
        "hidden_constraint": as_array(matmul(system.constraint_jacobian(q1), v1)),
    }


class RattleStep(OneStep):
    """RATTLE for the Newton stepper: unknowns q_{k+1}, v_{k+1}, λ, μ."""

    unknowns = (("q", "n"), ("v", "n"), ("lam", "m"), ("mu", "m"))

    def residuals(self, system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, x: Mapping[str, Any], u: np.ndarray, options: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return rattle_residuals(system, h, q0, v0, x["q"], x["v"], x["lam"], x["mu"], u)


RATTLE_STEP = RattleStep()
