"""Discrete equations of the energy-momentum schemes, written once.

These pure functions give the residuals of one time step ``[t_k, t_{k+1}]``
for any :class:`~pyomo_mbdyn.mechanics.MultibodySystem`, over arrays of floats,
Pyomo variables or CasADi symbols.  The Newton stepper of
:mod:`pyomo_mbdyn.simulate.stepper` and the Pyomo scheme blocks of
:mod:`pyomo_mbdyn.schemes` both call them, so simulation and optimisation
solve the same equations.

Notation (thesis §2.3–2.4): ``q_{k+½} = (q_k + q_{k+1})/2``, ``v_{k+½}``
likewise; ``G = G(q_{k+½})``; ``B = B(q♯_{k+½})`` the contravariant control
matrix; ``K`` the Rayleigh friction coefficients; ``u`` the interval controls
(zero on unactuated coordinates) entering as ``M v̇ + ∇V + Gᵀγ + Bᵀ(Kν + u) = 0``.
"""

import numpy as np

from ..mechanics.linalg import as_array, matmul, shared_array

__all__ = ["SCHEME_UNKNOWNS", "full_controls", "bem_residuals", "rem_residuals", "joint_rates",
           "lagrangian_slopes", "dmocc_lm_residuals", "dmocc_residuals", "projected_velocity",
           "chart", "chart_velocity", "gc_residuals"]

#: Unknowns of one step of each scheme, in the stepper's order, with their sizes.
SCHEME_UNKNOWNS = {
    "bem": (("q", "n"), ("v", "n"), ("lam", "m"), ("nu", "dof")),
    "rem": (("w", "dof"), ("q", "n"), ("v", "n"), ("nu", "dof")),
    "dmocc_lm": (("q", "n"), ("lam", "m")),
    "dmocc": (("w", "dof"), ("q", "n")),
    "gc": (("theta", "dof"), ("vt", "dof")),
}


def full_controls(system, u):
    """Place the actuated controls ``u`` (length n_act) into a length-dof vector."""
    full = [0.0] * system.n_velocities
    for a, idx in enumerate(system.actuated_indices):
        full[idx] = u[a]
    return full


def _efforts(system, nu, u_full):
    """``K ν + u`` without zero terms."""
    K = system.friction
    out = []
    for j in range(system.n_velocities):
        e = 0.0
        if K[j] != 0:
            e = nu[j] * float(K[j])
        if not (isinstance(u_full[j], float) and u_full[j] == 0.0):
            e = u_full[j] if (isinstance(e, float) and e == 0.0) else e + u_full[j]
        out.append(e)
    return shared_array(np.array(out, dtype=object))


def _mid(a, b):
    return shared_array(as_array((as_array(a) + as_array(b)) * 0.5))


def joint_rates(system, q0, q1, v0, v1, contravariant=True):
    """``ν_{k,k+1} = B(q♯_{k+½}) v_{k+½}`` (the discrete generalised velocity)."""
    return matmul(system.control_matrix(_mid(q0, q1), contravariant), _mid(v0, v1))


def bem_residuals(system, h, q0, v0, q1, v1, lam, nu, u, contravariant=True):
    """Residuals of one step of the basic energy-momentum scheme (thesis Eq. 3.21–3.23).

    Returns a dict of arrays:

    ``kinematics``        q_{k+1} - q_k - h v_{k+½}                          (n)
    ``momentum_balance``  M (v_{k+1} - v_k) + h [Gᵀγ + Bᵀ(Kν + u) + ∇V]       (n)
    ``constraint``        Φ(q_{k+1})                                         (m)
    ``joint_rates``       ν - B v_{k+½}                                      (dof)

    ``lam`` are the interval multipliers γ_{k,k+1} (ordered as
    ``system.constraint_labels()``), ``nu`` the interval joint rates and ``u``
    the actuated controls.
    """
    q0, v0, q1, v1 = as_array(q0), as_array(v0), as_array(q1), as_array(v1)
    lam, nu = as_array(lam), as_array(nu)
    q_mid, v_mid = _mid(q0, q1), _mid(v0, v1)
    G = system.constraint_jacobian(q_mid)
    B = system.control_matrix(q_mid, contravariant)
    M = np.diag(system.mass_matrix())
    force = as_array(matmul(G.T, lam) + matmul(B.T, _efforts(system, nu, full_controls(system, u)))
                     + system.potential_gradient())
    return {
        "kinematics": as_array(q1 - q0 - v_mid * h),
        "momentum_balance": as_array(M * (v1 - v0) + force * h),
        "constraint": system.constraints(q1),
        "joint_rates": as_array(nu - matmul(B, v_mid)),
    }


def rem_residuals(system, h, q0, v0, w, q1, v1, nu, u, rotation="exp"):
    """Residuals of one step of the reduced energy-momentum scheme (thesis Eq. 3.34).

    The discrete null space method with the relative nodal reparametrisation
    ``q_{k+1} = F(w, q_k)``; configurations and velocities are kept as
    (lifted) unknowns, so the Jacobians stay sparse:

    ``reparametrisation``  q_{k+1} - F(w, q_k)                                 (n)
    ``kinematics``         q_{k+1} - q_k - h v_{k+½}                           (n)
    ``momentum_balance``   P(q_{k+½})ᵀ{M(v_{k+1} - v_k) + h Bᵀ K ν + h ∇V} + h u (dof)
    ``joint_rates``        ν - B v_{k+½}                                       (dof)

    The controls enter with the identity since ``P(q_{k+½})ᵀ B(q♯)ᵀ = I`` for a
    :class:`~pyomo_mbdyn.mechanics.MultibodySystem`; systems whose input rows
    are not dual to their null space (``inputs_dual_to_null_space = False``,
    e.g. a :class:`~pyomo_mbdyn.mechanics.CoordinateSystem`) get
    ``h P(q_{k+½})ᵀ Bᵀ u`` instead.
    """
    q0, v0, q1, v1 = as_array(q0), as_array(v0), as_array(q1), as_array(v1)
    w, nu = as_array(w), as_array(nu)
    q_mid, v_mid = _mid(q0, q1), _mid(v0, v1)
    P = system.null_space(q_mid)
    B = system.control_matrix(q_mid)
    M = np.diag(system.mass_matrix())
    friction = _efforts(system, nu, [0.0] * system.n_velocities)
    inner = shared_array(M * (v1 - v0) + (matmul(B.T, friction) + system.potential_gradient()) * h)
    u_full = as_array(np.array(full_controls(system, u), dtype=object))
    if getattr(system, "inputs_dual_to_null_space", True):
        reduced_u = u_full
    else:
        reduced_u = matmul(P.T, matmul(B.T, u_full))
    return {
        "reparametrisation": as_array(q1 - system.reparametrise(w, q0, rotation)),
        "kinematics": as_array(q1 - q0 - v_mid * h),
        "momentum_balance": as_array(matmul(P.T, inner) + reduced_u * h),
        "joint_rates": as_array(nu - matmul(B, v_mid)),
    }


# -- DMOCC: the variational midpoint scheme (DMOCC paper §3) -----------------------
def lagrangian_slopes(system, h, qa, qb):
    """``(D1 L_d(qa, qb), D2 L_d(qa, qb))`` of the midpoint discrete Lagrangian.

    ``L_d = h [½ ((qb - qa)/h)ᵀ M ((qb - qa)/h) - V((qa + qb)/2)]`` (DMOCC 3.2):
    ``D1 L_d = -M (qb - qa)/h - h/2 ∇V``, ``D2 L_d = M (qb - qa)/h - h/2 ∇V``.
    """
    qa, qb = as_array(qa), as_array(qb)
    M = np.diag(system.mass_matrix())
    momentum = shared_array(M * (qb - qa) * (1.0 / h))
    gravity = system.potential_gradient() * (0.5 * h)
    return as_array(-momentum - gravity), as_array(momentum - gravity)


def _lumped_controls(system, q, u, h):
    """``(h/2) B(q)ᵀ u`` — the redundant force of one lumped control (DMOCC 3.10–3.11).

    With the library's sign (u = minus the applied force) the discrete force
    is ``f = -(h/2) Bᵀ u``.
    """
    u_full = as_array(np.array(full_controls(system, u), dtype=object))
    return as_array(matmul(system.control_matrix(q).T, u_full) * (0.5 * h))


def dmocc_lm_residuals(system, h, q_prev, q, q_next, lam, u_prev, u, v0=None):
    """Constrained forced discrete Euler–Lagrange equations at node n (DMOCC 3.6).

    ``momentum_matching``  D2L_d(q_{n-1}, q_n) + D1L_d(q_n, q_{n+1}) - h G(q_n)ᵀλ_n
                           - (h/2) B(q_n)ᵀ(u_{n-1} + u_n)                         (n)
    ``constraint``         Φ(q_{n+1})                                             (m)

    At the first node (``q_prev is None``) the momentum condition
    ``M v_0 + D1L_d(q_0, q_1) - (h/2) G(q_0)ᵀλ_0 - (h/2) B(q_0)ᵀu_0 = 0`` (3.13,
    3.21) replaces momentum matching.
    """
    q, q_next, lam = as_array(q), as_array(q_next), as_array(lam)
    D1, _ = lagrangian_slopes(system, h, q, q_next)
    G = system.constraint_jacobian(q)
    if q_prev is None:
        M = np.diag(system.mass_matrix())
        balance = as_array(M * as_array(v0) + D1 - matmul(G.T, lam) * (0.5 * h)
                           - _lumped_controls(system, q, u, h))
    else:
        _, D2 = lagrangian_slopes(system, h, q_prev, q)
        balance = as_array(D2 + D1 - matmul(G.T, lam) * h - _lumped_controls(system, q, u_prev, h)
                           - _lumped_controls(system, q, u, h))
    return {"momentum_matching": balance, "constraint": system.constraints(q_next)}


def dmocc_residuals(system, h, q_prev, q, w, q_next, u_prev, u, v0=None, rotation="exp"):
    """The reduced DMOCC step (DMOCC 3.12) with the nodal reparametrisation.

    ``reparametrisation``  q_{n+1} - F(w_{n+1}, q_n)                             (n)
    ``momentum_matching``  P(q_n)ᵀ[D2L_d(q_{n-1}, q_n) + D1L_d(q_n, q_{n+1})]
                           - (h/2)(u_{n-1} + u_n)                               (dof)

    (``P(q_n)ᵀ B(q_n)ᵀ = I`` at the admissible node, so controls enter with the
    identity.)  At the first node: ``P(q_0)ᵀ[M v_0 + D1L_d(q_0, q_1)] - (h/2) u_0``.
    With ``w=None`` (configurations given by a chart) there is no
    ``reparametrisation`` entry.
    """
    q, q_next = as_array(q), as_array(q_next)
    D1, _ = lagrangian_slopes(system, h, q, q_next)
    P = system.null_space(q)
    u_now = as_array(np.array(full_controls(system, u), dtype=object)) * (0.5 * h)
    if q_prev is None:
        M = np.diag(system.mass_matrix())
        inner = shared_array(M * as_array(v0) + D1)
        balance = as_array(matmul(P.T, inner) - u_now)
    else:
        _, D2 = lagrangian_slopes(system, h, q_prev, q)
        u_before = as_array(np.array(full_controls(system, u_prev), dtype=object)) * (0.5 * h)
        balance = as_array(matmul(P.T, shared_array(D2 + D1)) - u_before - u_now)
    if w is None:
        return {"momentum_matching": balance}
    return {
        "reparametrisation": as_array(q_next - system.reparametrise(as_array(w), q, rotation)),
        "momentum_matching": balance,
    }


def projected_velocity(system, h, q, q_next, u, q_prev=None, u_prev=None):
    """Node velocity ``M⁻¹ ᵠp`` from the projected discrete Legendre transform (DMOCC 3.16).

    ``p̃⁻_n = -D1L_d(q_n, q_{n+1}) + (h/2) B(q_n)ᵀu_n`` (or, at the last node,
    ``p̃⁺_N = D2L_d(q_{N-1}, q_N) - (h/2) B(q_N)ᵀu_{N-1}``), projected with
    ``Q = I - Gᵀ(G M⁻¹ Gᵀ)⁻¹ G M⁻¹`` onto momenta consistent with the
    constraints; numbers only.
    """
    M = system.mass_matrix()
    if q_next is not None:
        D1, _ = lagrangian_slopes(system, h, q, q_next)
        p = -np.asarray(D1, float) + np.asarray(_lumped_controls(system, q, u, h), float)
    else:
        _, D2 = lagrangian_slopes(system, h, q_prev, q)
        p = np.asarray(D2, float) - np.asarray(_lumped_controls(system, q, u_prev, h), float)
    G = np.asarray(system.constraint_jacobian(q), float)
    Minv = np.diag(1.0 / np.diag(M))
    if G.shape[0]:
        S = G @ Minv @ G.T
        p = p - G.T @ np.linalg.lstsq(S, G @ Minv @ p, rcond=None)[0]
    return Minv @ p


# -- generalised coordinates with the midpoint rule (thesis §2.5) -------------------
def chart(system, theta, rotation="exp"):
    """Minimal-coordinate map ``q(θ) = F(θ, q_ref)``: the absolute reparametrisation
    of a tree from its reference configuration (thesis §2.4: θ = joint angles,
    root positions and rotation vectors)."""
    return system.reparametrise(theta, system.q0, rotation)


def chart_velocity(system, theta, vt, rotation="exp"):
    """``(q, v, a)`` = ``(q(θ), P̃(θ) ṽ, (Ṗ ṽ)(θ) ṽ)`` by Taylor jets, any backend."""
    from .jets import directional_derivatives

    return directional_derivatives(lambda t: chart(system, t, rotation), theta, vt)


def _chart_basis(system, theta, rotation):
    """``P̃(θ) = ∂q/∂θ`` column by column (n × dof)."""
    dof = system.n_velocities
    cols = []
    for j in range(dof):
        e = np.zeros(dof)
        e[j] = 1.0
        cols.append(shared_array(chart_velocity(system, theta, e, rotation)[1]))
    return as_array(np.array(cols, dtype=object).T.reshape(system.n, dof))


def gc_residuals(system, h, th0, vt0, th1, vt1, u, rotation="exp", nu=None):
    """One step of the midpoint rule in generalised coordinates (thesis Eq. 3.40–3.42).

    ``kinematics``        θ_{k+1} - θ_k - h ṽ_{k+½}                               (dof)
    ``momentum_balance``  M̃(θ_{k+½})(ṽ_{k+1} - ṽ_k)
                          + h P̃ᵀ[M Ṗṽ + ∇V + Bᵀ(K ν + u)]                          (dof)

    with ``M̃ = P̃ᵀ M P̃``, all at ``θ_{k+½}, ṽ_{k+½}``, and ``ν = B P̃ ṽ_{k+½}``
    (= ṽ for chains of revolute and prismatic joints, where ``P̃ᵀBᵀ = I`` and
    the thesis's ``u + K ṽ`` results).  Neither energy nor momentum consistent.
    """
    th0, vt0, th1, vt1 = as_array(th0), as_array(vt0), as_array(th1), as_array(vt1)
    th_mid, vt_mid = _mid(th0, th1), _mid(vt0, vt1)
    q_mid, v_mid, a_mid = (shared_array(x) for x in chart_velocity(system, th_mid, vt_mid, rotation))
    Pt = _chart_basis(system, th_mid, rotation)
    M = np.diag(system.mass_matrix())
    B = system.control_matrix(q_mid)
    rates = shared_array(matmul(B, v_mid)) if nu is None else as_array(nu)
    effort = _efforts(system, rates, full_controls(system, u))
    force = shared_array(M * a_mid + system.potential_gradient() + matmul(B.T, effort))
    MPt = as_array(M[:, None] * Pt)
    Mt = matmul(Pt.T, MPt)
    out = {
        "kinematics": as_array(th1 - th0 - vt_mid * h),
        "momentum_balance": as_array(matmul(Mt, as_array(vt1 - vt0)) + matmul(Pt.T, force) * h),
    }
    if nu is not None:  # lifted joint rates (the Pyomo block keeps them as variables)
        out["joint_rates"] = as_array(as_array(nu) - matmul(B, v_mid))
    return out


def chart_coordinates(system, q, v=None, rotation="exp", tol=1e-12, start=None, atol=1e-9):
    """Invert the chart numerically: θ with q(θ) = q (and ṽ with P̃(θ) ṽ = v).

    Gauss–Newton from ``start`` (default θ = 0; pass the previous node's θ to
    follow a trajectory continuously, e.g. rotor angles beyond π); raises
    ``ValueError`` if ``q`` is not reached to ``atol`` (then it is not in the
    chart's domain, e.g. a rotation beyond 2π; a guess that fulfils the
    constraints only approximately needs a larger ``atol``).
    """
    q = np.asarray(q, float)
    dof = system.n_velocities
    theta = np.zeros(dof) if start is None else np.array(start, dtype=float).reshape(dof)
    for _ in range(50):
        r = np.asarray(chart(system, theta, rotation), float) - q
        if np.abs(r).max() < tol:
            break
        P = np.asarray(_chart_basis(system, theta, rotation), float)
        theta = theta - np.linalg.lstsq(P, r, rcond=None)[0]
    r = np.asarray(chart(system, theta, rotation), float) - q
    if np.abs(r).max() > atol:
        raise ValueError(f"{system}: configuration not reached by the chart (|q(θ) - q| = {np.abs(r).max():.2e})")
    if v is None:
        return theta
    P = np.asarray(_chart_basis(system, theta, rotation), float)
    return theta, np.linalg.lstsq(P, np.asarray(v, float), rcond=None)[0]
