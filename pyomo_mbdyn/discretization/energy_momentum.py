"""Step equations of the energy-momentum schemes BEM and REM (thesis §2.3–2.4).

Pure functions giving the residuals of one time step ``[t_k, t_{k+1}]`` for
any :class:`~pyomo_mbdyn.mechanics.MultibodySystem`, over arrays of floats,
Pyomo variables or CasADi symbols: the Newton stepper of
:mod:`pyomo_mbdyn.simulate.stepper` and the Pyomo blocks of
:mod:`pyomo_mbdyn.schemes` solve the very same equations.

Notation: ``q_{k+½} = (q_k + q_{k+1})/2``, ``v_{k+½}`` likewise;
``G = G(q_{k+½})``; ``B = B(q♯_{k+½})`` the contravariant control matrix;
``K`` the Rayleigh friction coefficients; ``u`` the interval controls (zero on
unactuated coordinates) entering as ``M v̇ + ∇V + Gᵀγ + Bᵀ(Kν - u) = 0``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from ..mechanics.linalg import as_array, matmul, shared_array
from .common import efforts, midpoint, thesis_controls

if TYPE_CHECKING:
    import numpy.typing as npt
    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["joint_rates", "bem_residuals", "rem_residuals"]


def joint_rates(system: ConstrainedSystem, q0: np.ndarray, q1: np.ndarray, v0: np.ndarray, v1: np.ndarray, contravariant: bool = True) -> np.ndarray:
    """``ν_{k,k+1} = B(q♯_{k+½}) v_{k+½}`` (the discrete generalised velocity).

    Examples
    --------
    The pendulum turning at 2 rad/s about its hinge:

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> v = pendulum.null_space(pendulum.q0) @ [2.0]
    >>> joint_rates(pendulum, pendulum.q0, pendulum.q0, v, v)
    array([2.])
    """
    return matmul(system.control_matrix(midpoint(q0, q1), contravariant), midpoint(v0, v1))


def bem_residuals(system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, q1: np.ndarray, v1: np.ndarray, lam: np.ndarray, nu: np.ndarray, u: np.ndarray, contravariant: bool = True) -> dict[str, np.ndarray]:
    """Residuals of one step of the basic energy-momentum scheme (thesis Eq. 3.21–3.23).

    Returns a dict of arrays:

    ``kinematics``        q_{k+1} - q_k - h v_{k+½}                          (n)
    ``momentum_balance``  M (v_{k+1} - v_k) + h [Gᵀγ + Bᵀ(Kν - u) + ∇V]       (n)
    ``constraint``        Φ(q_{k+1})                                         (m)
    ``joint_rates``       ν - B v_{k+½}                                      (dof)

    ``lam`` are the interval multipliers γ_{k,k+1} (ordered as
    ``system.constraint_labels()``), ``nu`` the interval joint rates and ``u``
    the actuated controls.  With closed loops G, Φ and γ are those of the active
    rows (``system.active_labels()``: the redundant loop rows dropped, so that the
    step's Newton matrix is regular) and B, ν the spanning tree's.

    Examples
    --------
    The residuals vanish at a step of the Newton stepper (which solves them):

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> from pyomo_mbdyn.simulate import simulate
    >>> s = simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 1, controls=[[0.5]], scheme="bem")
    >>> r = bem_residuals(pendulum, 0.1, s.q[0], s.v[0], s.q[1], s.v[1], s.lam[0], s.nu[0], s.u[0])
    >>> {name: len(rows) for name, rows in r.items()}
    {'kinematics': 12, 'momentum_balance': 12, 'constraint': 11, 'joint_rates': 1}
    >>> max(float(np.abs(rows).max()) for rows in r.values()) < 1e-10
    True
    """
    q0, v0, q1, v1 = as_array(q0), as_array(v0), as_array(q1), as_array(v1)
    lam, nu = as_array(lam), as_array(nu)
    q_mid, v_mid = midpoint(q0, q1), midpoint(v0, v1)
    G = system.active_jacobian(q_mid)
    B = system.control_matrix(q_mid, contravariant)
    M = np.diag(system.mass_matrix())
    force = as_array(matmul(G.T, lam) + matmul(B.T, efforts(system, nu, thesis_controls(system, u)))
                     + system.potential_gradient())
    return {
        "kinematics": as_array(q1 - q0 - v_mid * h),
        "momentum_balance": as_array(M * (v1 - v0) + force * h),
        "constraint": system.active_constraints(q1),
        "joint_rates": as_array(nu - matmul(B, v_mid)),
    }


def rem_residuals(system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, w: np.ndarray, q1: np.ndarray, v1: np.ndarray, nu: np.ndarray, u: np.ndarray, rotation: str = "exp") -> dict[str, np.ndarray]:
    """Residuals of one step of the reduced energy-momentum scheme (thesis Eq. 3.34).

    The discrete null space method with the relative nodal reparametrisation
    ``q_{k+1} = F(w, q_k)``; configurations and velocities are kept as
    (lifted) unknowns, so the Jacobians stay sparse:

    ``reparametrisation``  q_{k+1} - F(w, q_k)                                 (n)
    ``kinematics``         q_{k+1} - q_k - h v_{k+½}                           (n)
    ``momentum_balance``   P(q_{k+½})ᵀ{M(v_{k+1} - v_k) + h Bᵀ K ν + h ∇V} + h u (dof)
    ``joint_rates``        ν - B v_{k+½}                                       (dof)

    With ``w=None`` (configurations given by a chart, q_k = F(θ_k, q_ref)) there is
    no ``reparametrisation`` entry.

    With closed loops (:mod:`pyomo_mbdyn.mechanics.loops`) ``w``, ``ν`` and ``B`` are the
    spanning tree's, ``P = P_t N`` has one column per independent coordinate, the
    dependent increments are fixed by ``loop_closure`` Φ_L(q_{k+1}) = 0 (n_L rows) and
    the controls enter as ``h Pᵀ Bᵀ u = h Nᵀ u``: w (n_t), q, v, ν (n_t) against
    n + n_L + n + dof + n_t rows, square since dof + n_L = n_t.  The controls enter with the identity since ``P(q_{k+½})ᵀ B(q♯)ᵀ = I`` for a
    :class:`~pyomo_mbdyn.mechanics.MultibodySystem`; systems whose input rows
    are not dual to their null space (``inputs_dual_to_null_space = False``,
    e.g. a :class:`~pyomo_mbdyn.mechanics.CoordinateSystem`) get
    ``h P(q_{k+½})ᵀ Bᵀ u`` instead.

    Examples
    --------
    The residuals vanish at a step of the Newton stepper (which solves them):

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> from pyomo_mbdyn.simulate import simulate
    >>> s = simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 1, controls=[[0.5]], scheme="rem")
    >>> r = rem_residuals(pendulum, 0.1, s.q[0], s.v[0], s.w[0], s.q[1], s.v[1], s.nu[0], s.u[0])
    >>> {name: len(rows) for name, rows in r.items()}     # one momentum row per degree of freedom
    {'reparametrisation': 12, 'kinematics': 12, 'momentum_balance': 1, 'joint_rates': 1}
    >>> max(float(np.abs(rows).max()) for rows in r.values()) < 1e-10
    True
    """
    q0, v0, q1, v1 = as_array(q0), as_array(v0), as_array(q1), as_array(v1)
    nu = as_array(nu)
    q_mid, v_mid = midpoint(q0, q1), midpoint(v0, v1)
    P = system.null_space(q_mid)
    B = system.control_matrix(q_mid)
    M = np.diag(system.mass_matrix())
    friction = efforts(system, nu, [0.0] * system.n_velocities)
    inner = shared_array(M * (v1 - v0) + (matmul(B.T, friction) + system.potential_gradient()) * h)
    u_full = as_array(np.array(thesis_controls(system, u), dtype=object))
    if system.inputs_dual_to_null_space:
        reduced_u = u_full
    else:
        reduced_u = matmul(P.T, matmul(B.T, u_full))
    out = {} if w is None else {"reparametrisation": as_array(q1 - system.reparametrise(as_array(w), q0, rotation))}
    if system.has_loops and w is not None:
        out["loop_closure"] = system.loop_constraints(q1)
    out["kinematics"] = as_array(q1 - q0 - v_mid * h)
    out["momentum_balance"] = as_array(matmul(P.T, inner) + reduced_u * h)
    out["joint_rates"] = as_array(nu - matmul(B, v_mid))
    return out
