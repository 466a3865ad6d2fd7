"""Step equations of the variational midpoint scheme DMOCC (DMOCC paper §3).

The forced constrained discrete Euler–Lagrange equations of the midpoint
discrete Lagrangian, with multipliers (3.6) and reduced by the discrete null
space method with the nodal reparametrisation (3.12), and the projected
discrete Legendre transform (3.16) that recovers node velocities.  Any
backend (floats, Pyomo, CasADi).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from ..mechanics.linalg import as_array, matmul, shared, shared_array
from .common import numeric_kinematics, thesis_controls

if TYPE_CHECKING:
    import numpy.typing as npt
    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["lagrangian_slopes", "lumped_controls", "dmocc_lm_residuals", "dmocc_residuals",
           "projected_velocity", "final_velocity"]


def lagrangian_slopes(system: ConstrainedSystem, h: Any, qa: np.ndarray, qb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(D1 L_d(qa, qb), D2 L_d(qa, qb))`` of the midpoint discrete Lagrangian.

    ``L_d = h [½ ((qb - qa)/h)ᵀ M ((qb - qa)/h) - V((qa + qb)/2)]`` (DMOCC 3.2):
    ``D1 L_d = -M (qb - qa)/h - h/2 ∇V``, ``D2 L_d = M (qb - qa)/h - h/2 ∇V``.

    Examples
    --------
    A ball of 2 kg moving 0.1 m along x in 0.1 s, under gravity along -y:

    >>> from pyomo_mbdyn.mechanics import MultibodySystem, PointMass
    >>> fall = MultibodySystem("fall", gravity=(0, -9.81, 0))
    >>> fall.add_bodies(PointMass("ball", 2.0))
    >>> lagrangian_slopes(fall, 0.1, [0.0, 0.0, 0.0], [0.1, 0.0, 0.0])
    (array([-2.   , -0.981,  0.   ]), array([ 2.   , -0.981,  0.   ]))
    """
    qa, qb = as_array(qa), as_array(qb)
    M = np.diag(system.mass_matrix())
    momentum = shared_array(M * (qb - qa) * (1.0 / h))
    gravity = system.potential_gradient() * (0.5 * h)
    return as_array(-momentum - gravity), as_array(momentum - gravity)


def lumped_controls(system: ConstrainedSystem, q: np.ndarray, u: np.ndarray, h: Any) -> np.ndarray:
    """``(h/2) B(q)ᵀ ū`` with ``ū = -u`` — the redundant force of one lumped control in the
    paper's sign (DMOCC 3.10–3.11): with ``u`` the applied force the discrete force is
    ``f = (h/2) Bᵀ u``.
    """
    u_full = as_array(np.array(thesis_controls(system, u), dtype=object))
    return as_array(matmul(system.control_matrix(q).T, u_full) * (0.5 * h))


def dmocc_lm_residuals(system: ConstrainedSystem, h: Any, q_prev: np.ndarray | None, q: np.ndarray, q_next: np.ndarray, lam: np.ndarray, u_prev: np.ndarray | None, u: np.ndarray, v0: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Constrained forced discrete Euler–Lagrange equations at node n (DMOCC 3.6).

    ::

        momentum_matching      D2L_d(q_{n-1}, q_n) + D1L_d(q_n, q_{n+1}) - h G(q_n)ᵀλ_n
                               - (h/2) B(q_n)ᵀ(u_{n-1} + u_n)                         (n)
        constraint             Φ(q_{n+1})                                             (m)

    At the first node (``q_prev is None``) the momentum condition
    ``M v_0 + D1L_d(q_0, q_1) - (h/2) G(q_0)ᵀλ_0 + (h/2) B(q_0)ᵀu_0 = 0`` (3.13,
    3.21) replaces momentum matching.
    """
    q, q_next, lam = as_array(q), as_array(q_next), as_array(lam)
    D1, _ = lagrangian_slopes(system, h, q, q_next)
    G = system.active_jacobian(q)  # closed loops: the redundant loop rows dropped
    if q_prev is None:
        M = np.diag(system.mass_matrix())
        balance = as_array(M * as_array(v0) + D1 - matmul(G.T, lam) * (0.5 * h)  # type: ignore[arg-type]  # v0 is given at the first node (q_prev None)
                           - lumped_controls(system, q, u, h))
    else:
        _, D2 = lagrangian_slopes(system, h, q_prev, q)
        balance = as_array(D2 + D1 - matmul(G.T, lam) * h - lumped_controls(system, q, u_prev, h)  # type: ignore[arg-type]  # u_prev is given past the first node
                           - lumped_controls(system, q, u, h))
    return {"momentum_matching": balance, "constraint": system.active_constraints(q_next)}


def dmocc_residuals(system: ConstrainedSystem, h: Any, q_prev: np.ndarray | None, q: np.ndarray, w: np.ndarray, q_next: np.ndarray, u_prev: np.ndarray | None, u: np.ndarray, v0: np.ndarray | None = None, rotation: str = "exp") -> dict[str, np.ndarray]:
    """The reduced DMOCC step (DMOCC 3.12) with the nodal reparametrisation.

    ::

        reparametrisation      q_{n+1} - F(w_{n+1}, q_n)                             (n)
        momentum_matching      P(q_n)ᵀ[D2L_d(q_{n-1}, q_n) + D1L_d(q_n, q_{n+1})]
                               - (h/2)(u_{n-1} + u_n)                               (dof)

    (``P(q_n)ᵀ B(q_n)ᵀ = I`` at the admissible node, so controls enter with the
    identity.)  At the first node: ``P(q_0)ᵀ[M v_0 + D1L_d(q_0, q_1)] - (h/2) u_0``.
    With ``w=None`` (configurations given by a chart) there is no
    ``reparametrisation`` entry.  With closed loops ``w`` are tree increments, the
    rows ``loop_closure`` Φ_L(q_{n+1}) = 0 fix the dependent ones, and the controls
    enter as ``(h/2) P(q_n)ᵀ B(q_n)ᵀ u = (h/2) Nᵀ u`` (:mod:`pyomo_mbdyn.mechanics.loops`).
    """
    q, q_next = as_array(q), as_array(q_next)
    D1, _ = lagrangian_slopes(system, h, q, q_next)
    P = system.null_space(q)
    loops = system.has_loops

    def reduced(controls):
        u_full = as_array(np.array(thesis_controls(system, controls), dtype=object))
        return as_array(matmul(P.T, matmul(system.control_matrix(q).T, u_full))) if loops else u_full

    u_now = reduced(u) * (0.5 * h)
    if q_prev is None:
        M = np.diag(system.mass_matrix())
        inner = shared_array(M * as_array(v0) + D1)  # type: ignore[arg-type]  # v0 is given at the first node (q_prev None)
        balance = as_array(matmul(P.T, inner) - u_now)
    else:
        _, D2 = lagrangian_slopes(system, h, q_prev, q)
        u_before = reduced(u_prev) * (0.5 * h)
        balance = as_array(matmul(P.T, shared_array(D2 + D1)) - u_before - u_now)
    if w is None:
        return {"momentum_matching": balance}
    out = {"reparametrisation": as_array(q_next - system.reparametrise(as_array(w), q, rotation))}
    if loops:
        out["loop_closure"] = system.loop_constraints(q_next)
    out["momentum_matching"] = balance
    return out


def projected_velocity(system: ConstrainedSystem, h: Any, q: np.ndarray, q_next: np.ndarray | None, u: np.ndarray | None, q_prev: np.ndarray | None = None, u_prev: np.ndarray | None = None) -> np.ndarray:
    """Node velocity ``M⁻¹ ᵠp`` from the projected discrete Legendre transform (DMOCC 3.16).

    ``p̃⁻_n = -D1L_d(q_n, q_{n+1}) - (h/2) B(q_n)ᵀu_n`` (u the applied force; or, at the last node,
    ``p̃⁺_N = D2L_d(q_{N-1}, q_N) + (h/2) B(q_N)ᵀu_{N-1}``), projected with
    ``Q = I - Gᵀ(G M⁻¹ Gᵀ)⁻¹ G M⁻¹`` onto momenta consistent with the
    constraints; numbers only (G(q) and B(q) from functions compiled once per system).

    Examples
    --------
    A falling ball that moves 0.1 m along x in 0.1 s started with an upward
    velocity of g h/2 (no constraints: nothing is projected):

    >>> from pyomo_mbdyn.mechanics import MultibodySystem, PointMass
    >>> fall = MultibodySystem("fall", gravity=(0, -9.81, 0))
    >>> fall.add_bodies(PointMass("ball", 2.0))
    >>> projected_velocity(fall, 0.1, [0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [])
    array([1.    , 0.4905, 0.    ])

    The node velocities of the variational schemes are these:

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> from pyomo_mbdyn.simulate import simulate
    >>> tr = simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 3, scheme="dmocc")
    >>> np.allclose(projected_velocity(pendulum, 0.1, tr.q[1], tr.q[2], tr.u[1]), tr.v[1])
    True
    """
    if q_next is None:  # the last node: the same formula as in optimisation problems
        return np.asarray(final_velocity(system, h, np.asarray(q_prev, float), np.asarray(q, float), u_prev),  # type: ignore[arg-type]  # q_prev and u_prev are given at the last node (q_next None)
                          float)
    M = system.mass_matrix()
    q = np.asarray(q, float)
    G, B = numeric_kinematics(system, q, ("G", "B"))  # compiled once per system
    D1, _ = lagrangian_slopes(system, h, q, np.asarray(q_next, float))
    p = -np.asarray(D1, float) + B.T @ np.asarray(thesis_controls(system, u), float) * (0.5 * h)  # type: ignore[arg-type, type-var]  # u is given before the last node
    G = G.reshape(system.m, system.n)
    Minv = np.diag(1.0 / np.diag(M))
    if G.shape[0]:
        S = G @ Minv @ G.T
        p = p - G.T @ np.linalg.lstsq(S, G @ Minv @ p, rcond=None)[0]
    return Minv @ p



def final_velocity(system: ConstrainedSystem, h: Any, q_prev: np.ndarray, q: np.ndarray, u_prev: np.ndarray) -> np.ndarray:
    """``v_N = M⁻¹ ᵠp⁺_N`` from the projected discrete Legendre transform (DMOCC 3.16), any backend.

    ``p̃⁺_N = D2L_d(q_{N-1}, q_N) + (h/2) B(q_N)ᵀu_{N-1}`` and ``M⁻¹Q = M⁻¹ - M⁻¹Gᵀ(GM⁻¹Gᵀ)⁻¹GM⁻¹``
    is the M-orthogonal projector onto ker G(q_N) = range P(q_N), which equals
    ``P(PᵀMP)⁻¹Pᵀ``; so ``v_N = P ν_N`` where

        (PᵀMP) ν_N = Pᵀp̃⁺_N = PᵀD2L_d(q_{N-1}, q_N) + (h/2) PᵀBᵀu_{N-1}   (the reduced transform 3.18),

    a (dof × dof) system instead of the (m × m) one (the pitcher: 5 instead of
    31), solved by Gaussian elimination without pivoting (PᵀMP is symmetric
    positive definite) entry by entry, so that floats, Pyomo and CasADi
    arguments give the same formula; ``h`` may be a free horizon's expression.
    Each eliminated entry is :func:`shared` (a named Expression within a block's
    :func:`sharing`): the expression's depth stays that of the elimination.

    Examples
    --------
    A falling ball that moved 0.1 m along x in the last step of 0.1 s ends
    with the downward velocity g h/2:

    >>> from pyomo_mbdyn.mechanics import MultibodySystem, PointMass
    >>> fall = MultibodySystem("fall", gravity=(0, -9.81, 0))
    >>> fall.add_bodies(PointMass("ball", 2.0))
    >>> final_velocity(fall, 0.1, [0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [])
    array([ 1.    , -0.4905,  0.    ])

    The last node velocity of a DMOCC simulation is this one:

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> from pyomo_mbdyn.simulate import simulate
    >>> tr = simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 3, scheme="dmocc")
    >>> np.allclose(final_velocity(pendulum, 0.1, tr.q[2], tr.q[3], tr.u[2]), tr.v[3])
    True
    """
    q_prev, q = as_array(q_prev), as_array(q)
    n = system.n
    _, D2 = lagrangian_slopes(system, h, q_prev, q)
    P = as_array(system.null_space(q))
    dof = P.shape[1] if P.ndim == 2 else system.n_velocities
    P = P.reshape(n, dof)
    M = np.diag(np.asarray(system.mass_matrix(), float))
    force = system.reduced_forces(q, thesis_controls(system, u_prev))  # type: ignore[attr-defined]  # DMOCC takes a MultibodySystem only (its record: coordinate_systems=False); Pᵀ Bᵀ ū (= ū = -u where B P = I)
    MP = [[P[i, a] * M[i] for a in range(dof)] for i in range(n)]
    A = [[shared(sum(P[i, a] * MP[i][b] for i in range(n))) for b in range(dof)] for a in range(dof)]
    rhs = [shared(sum(P[i, a] * D2[i] for i in range(n)) - 0.5 * h * force[a]) for a in range(dof)]
    for k in range(dof):  # forward elimination
        for r in range(k + 1, dof):
            factor = shared(A[r][k] / A[k][k])
            for c in range(k + 1, dof):
                A[r][c] = shared(A[r][c] - factor * A[k][c])
            rhs[r] = shared(rhs[r] - factor * rhs[k])
    nu = [None] * dof
    for k in reversed(range(dof)):  # back substitution
        nu[k] = shared((rhs[k] - sum(A[k][c] * nu[c] for c in range(k + 1, dof))) / A[k][k])
    return as_array([sum(P[i, a] * nu[a] for a in range(dof)) for i in range(n)])
