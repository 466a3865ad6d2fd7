"""Udwadia–Kalaba explicit equations of motion and exact tracking control.

Spec ``udwadia_deleuterio.md`` §1 (Udwadia, paper 001).  For ``M q̈ = Q + Qᶜ``
with the constraints differentiated to ``A q̈ = b`` and non-ideal constraint
work ``vᵀQᶜ = vᵀC`` for every virtual displacement ``A v = 0``:

    Qᶜ_i  = Aᵀ (A M⁻¹ Aᵀ)⁺ (b - A a)                     (U11, root-free form §1.11b)
    Qᶜ_ni = [I - Aᵀ (A M⁻¹ Aᵀ)⁺ A M⁻¹] C                   (U12)
    q̈    = a + M⁻¹(Qᶜ_i + Qᶜ_ni),   a = M⁻¹Q                (U9)

The root-free form equals the paper's ``M^{1/2} B⁺`` form for any factor of M
(§1.11a, tested); it needs one Cholesky factorisation of M and a
pseudo-inverse (SVD with an explicit ``rcond``) of the m×m matrix
``A M⁻¹ Aᵀ``, so redundant constraints are handled (the KKT matrix is then
singular, UK is not).  Read as control (§1.8), ``Qᶜ`` is the exact, closed-form
force that makes the system satisfy the "constraints" — trajectory
requirements — at every instant, and among all such forces the one of least
``M⁻¹``-norm (Gauss's principle).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt
    from ..mechanics.system import MultibodySystem

__all__ = ["UKResult", "uk_accelerations", "holonomic_rows", "UdwadiaKalabaSystem", "integrate",
           "gauss_problem"]


@dataclass
class UKResult:
    """Accelerations and the two parts of the constraint force at one instant."""

    qdd: np.ndarray
    ideal: np.ndarray        # Qᶜ_i
    non_ideal: np.ndarray    # Qᶜ_ni
    rank: int                # numerical rank of A M⁻¹ Aᵀ
    multipliers: np.ndarray | None = None  # λ = (A M⁻¹ Aᵀ)⁺ (b - A a), Qᶜ_i = Aᵀ λ (unique for full-rank A)

    @property
    def constraint_force(self) -> np.ndarray:
        return self.ideal + self.non_ideal


def uk_accelerations(M: npt.ArrayLike, Q: npt.ArrayLike, A: npt.ArrayLike, b: npt.ArrayLike, C: npt.ArrayLike | None = None, rcond: float = 1e-12) -> UKResult:
    """The Udwadia–Kalaba accelerations (U9) in the root-free form.

    Parameters
    ----------
    M : (n, n) symmetric positive definite
    Q : (n,) applied force
    A : (m, n), b : (m,) constraints ``A q̈ = b`` (rank-deficient allowed)
    C : (n,) optional non-ideal constraint work vector
    rcond : relative singular-value cutoff of the pseudo-inverse

    Examples
    --------
    A unit mass on the unit circle ``x² + y² = 1`` under gravity, at the bottom
    moving at 1 m/s: the rod pulls with ``g + v²/r`` and the mass accelerates
    towards the centre by ``v²/r = 1``:

    >>> import numpy as np
    >>> M, Q = np.eye(2), [0.0, -9.81]
    >>> A, b = [[0.0, -2.0]], [-2.0]           # the constraint differentiated twice at (0, -1)
    >>> result = uk_accelerations(M, Q, A, b)
    >>> result.qdd, result.ideal, result.rank
    (array([0., 1.]), array([ 0.  , 10.81]), 1)
    """
    M, Q = np.asarray(M, float), np.asarray(Q, float)
    A, b = np.atleast_2d(np.asarray(A, float)), np.atleast_1d(np.asarray(b, float))
    n = M.shape[0]
    if M.shape != (n, n) or Q.shape != (n,) or A.shape[1] != n or A.shape[0] != b.shape[0]:
        raise ValueError(f"uk_accelerations: inconsistent shapes M{M.shape}, Q{Q.shape}, A{A.shape}, b{b.shape}")
    # imported here, not at module level: scipy after pyomo.environ resolves Pyomo's deferred
    # scipy import (scipy.stats, sparse, ...), ~1 s on the first model build (issue 48, cold start)
    from scipy.linalg import cho_factor, cho_solve

    factor = cho_factor(M)
    a = cho_solve(factor, Q)
    MiAt = cho_solve(factor, A.T)                     # M⁻¹ Aᵀ
    S = A @ MiAt                                      # A M⁻¹ Aᵀ
    S_pinv = np.linalg.pinv(S, rcond=rcond, hermitian=True)
    rank = int(np.linalg.matrix_rank(S, tol=rcond * max(np.abs(S).max(initial=0), 1e-300), hermitian=True))
    ideal = A.T @ (S_pinv @ (b - A @ a))
    if C is None:
        non_ideal = np.zeros(n)
    else:
        C = np.asarray(C, float)
        non_ideal = C - A.T @ (S_pinv @ (A @ cho_solve(factor, C)))
    qdd = a + cho_solve(factor, ideal + non_ideal)
    return UKResult(qdd, ideal, non_ideal, rank, S_pinv @ (b - A @ a))


def holonomic_rows(phi: Callable[[Any, Any], Any], q: np.ndarray, qd: np.ndarray, t: float, baumgarte: tuple[float, float] = (0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """``(A, b)`` of holonomic constraints φ(q, t) = 0, by CasADi differentiation.

    ``A = φ_q``, ``b = -[(φ_q q̇)_q q̇ + 2 φ_qt q̇ + φ_tt] - 2α φ̇ - β² φ`` (spec
    §1.3; the Baumgarte terms, §1.11h, are stabilisation and not part of the
    paper).  ``phi(q, t)`` must be written with operations CasADi supports.
    """
    import casadi

    n = len(q)
    qs, ts = casadi.SX.sym("q", n), casadi.SX.sym("t")
    out = phi(qs, ts)
    f = out if isinstance(out, casadi.SX) else casadi.vertcat(*[casadi.SX(x) for x in np.atleast_1d(out)])
    vs = casadi.SX.sym("v", n)
    Aq = casadi.jacobian(f, qs)
    At = casadi.jacobian(f, ts)
    rate = Aq @ vs + At                               # φ̇
    acc_free = casadi.jacobian(rate, qs) @ vs + casadi.jacobian(rate, ts)
    fun = casadi.Function("rows", [qs, vs, ts], [f, Aq, rate, acc_free])
    val, A, dval, d2 = (np.array(x, dtype=float) for x in fun(q, qd, t))
    alpha, beta = baumgarte
    b = -d2.ravel() - 2 * alpha * dval.ravel() - beta**2 * val.ravel()
    return A, b


class UdwadiaKalabaSystem:
    """A mechanical system in coordinates q with constraints, for UK dynamics.

    Parameters
    ----------
    mass : callable ``(q, t) -> (n, n)`` or an array
    force : callable ``(q, qd, t) -> (n,)``: the applied force Q
    constraints : callable ``(q, t) -> (m,)`` holonomic φ (CasADi-compatible)
    velocity_constraints : optional ``(q, qd, t) -> (A, b)`` rows to append
        (non-holonomic ones, or requirements on accelerations written directly)
    nonideal : optional ``(q, qd, t, ideal) -> C``; it may use the ideal force
        (which does not depend on C, §1.11d), e.g. Coulomb friction on a wire
    baumgarte : (α, β) stabilisation of the holonomic rows (0, 0: none)

    Examples
    --------
    A unit mass on the unit circle under gravity, from a formula:

    >>> import numpy as np
    >>> circle = UdwadiaKalabaSystem(np.eye(2), lambda q, qd, t: np.array([0.0, -9.81]),
    ...                              constraints=lambda q, t: [q[0] ** 2 + q[1] ** 2 - 1.0])
    >>> circle.accelerations(np.array([0.0, -1.0]), np.array([1.0, 0.0])).qdd
    array([0., 1.])

    and a pendulum from a :class:`~pyomo_mbdyn.mechanics.MultibodySystem`
    (released from the horizontal, its centre of mass falls at ``g m r²/J_O``):

    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum(actuated=False)
    >>> uk = UdwadiaKalabaSystem.from_multibody(pendulum)
    >>> uk.accelerations(pendulum.q0, np.zeros(pendulum.n)).qdd[:3].round(4) + 0.0
    array([ 0.    , -9.0833,  0.    ])
    """

    def __init__(self, mass: npt.ArrayLike | Callable[[np.ndarray, float], Any], force: Callable[[np.ndarray, np.ndarray, float], Any], constraints: Callable[[Any, Any], Any] | None = None, velocity_constraints: Callable[[np.ndarray, np.ndarray, float], tuple[Any, Any]] | None = None, nonideal: Callable[[np.ndarray, np.ndarray, float, np.ndarray], Any] | None = None,
                 baumgarte: tuple[float, float] = (0.0, 0.0), rcond: float = 1e-12) -> None:
        self.mass, self.force = mass, force
        self.constraints, self.velocity_constraints = constraints, velocity_constraints
        self.nonideal, self.baumgarte, self.rcond = nonideal, baumgarte, rcond

    @classmethod
    def from_multibody(cls, system: MultibodySystem, controls: Callable[[np.ndarray, np.ndarray, float], npt.ArrayLike] | None = None, baumgarte: tuple[float, float] = (0.0, 0.0), rows: str = "all") -> UdwadiaKalabaSystem:
        """UK dynamics of a :class:`~pyomo_mbdyn.mechanics.MultibodySystem`.

        ``M`` constant, ``Q = -∇V + Bᵀu`` (u the applied generalised force on the
        actuated coordinates), holonomic Φ(q) quadratic, so that
        ``A = G(q)`` and ``b = -(G(q̇) - G(0)) q̇`` exactly (G is affine in q).
        ``rows="active"`` keeps only the active rows (closed loops: the redundant
        loop rows left out, :attr:`~pyomo_mbdyn.mechanics.MultibodySystem.active_rows`), so that
        ``A`` has full rank and :attr:`UKResult.multipliers` are the unique forces of
        constraint per row — those of the multiplier schemes with the opposite sign
        (``M v̇ + ∇V + Gᵀγ - Bᵀu = 0``: γ = -λ).  The accelerations and the ideal force
        are the same with either choice (UK's pseudo-inverse).

        Examples
        --------
        The four-bar at rest in its reference configuration, released: the force in the
        closing joint D (rows ``D[0]``, ``D[1]``: x and y) that the loop transmits.

        >>> from pyomo_mbdyn.mechanics import examples
        >>> four_bar = examples.four_bar()
        >>> uk = UdwadiaKalabaSystem.from_multibody(four_bar, rows="active")
        >>> result = uk.accelerations(four_bar.q0, np.zeros(four_bar.n))
        >>> labels = four_bar.active_labels()
        >>> forces = dict(zip(labels, result.multipliers))
        >>> bool(abs(forces["D[1]"]) > 0), len(labels) == four_bar.m - 3
        (True, True)
        """
        if rows not in ("all", "active"):
            raise ValueError(f"from_multibody: rows must be 'all' or 'active', got {rows!r}")
        keep = system.active_rows if rows == "active" else list(range(system.m))
        M = system.mass_matrix()
        grad = system.potential_gradient()
        G0 = np.asarray(system.constraint_jacobian(np.zeros(system.n)), float)

        def force(q, qd, t):
            Q = -grad.copy()
            if controls is not None:
                u = np.asarray(controls(q, qd, t), float)
                full = np.zeros(system.n_velocities)
                full[system.actuated_indices] = u
                Q += np.asarray(system.control_matrix(q), float).T @ full
            return Q

        def rows(q, qd, t):  # type: ignore[no-redef]  # the option's name, reused for the rows it selects
            G = np.asarray(system.constraint_jacobian(q), float)[keep]
            Gdot = (np.asarray(system.constraint_jacobian(qd), float) - G0)[keep]
            phi = np.asarray(system.constraints(q), float)[keep]
            alpha, beta = baumgarte
            return G, -Gdot @ qd - 2 * alpha * (G @ qd) - beta**2 * phi

        return cls(M, force, velocity_constraints=rows)  # type: ignore[arg-type]  # the function above

    def rows(self, q: np.ndarray, qd: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray]:
        blocks_A, blocks_b = [], []
        if self.constraints is not None:
            A, b = holonomic_rows(self.constraints, q, qd, t, self.baumgarte)
            blocks_A.append(A)
            blocks_b.append(b)
        if self.velocity_constraints is not None:
            A, b = self.velocity_constraints(q, qd, t)
            blocks_A.append(np.atleast_2d(A))
            blocks_b.append(np.atleast_1d(b))
        n = len(q)
        if not blocks_A:
            return np.zeros((0, n)), np.zeros(0)
        return np.vstack(blocks_A), np.concatenate(blocks_b)

    def accelerations(self, q: np.ndarray, qd: np.ndarray, t: float = 0.0) -> UKResult:
        """:class:`UKResult` at the state (q, q̇, t)."""
        M = self.mass(q, t) if callable(self.mass) else self.mass
        Q = self.force(q, qd, t)
        A, b = self.rows(q, qd, t)
        result = uk_accelerations(M, Q, A, b, None, self.rcond)
        if self.nonideal is not None:
            C = self.nonideal(q, qd, t, result.ideal)
            result = uk_accelerations(M, Q, A, b, C, self.rcond)
        return result


def integrate(uk_system: UdwadiaKalabaSystem, q0: npt.ArrayLike, qd0: npt.ArrayLike, t_span: tuple[float, float], t_eval: npt.ArrayLike | None = None, method: str = "RK45", rtol: float = 1e-9, atol: float = 1e-11) -> Any:
    """Reference integration with ``scipy.integrate.solve_ivp`` of ``q̈ = UK(q, q̇, t)``.

    Returns the ``solve_ivp`` result; ``sol.y[:n]`` are q, ``sol.y[n:]`` q̇.
    Without Baumgarte stabilisation the position-level constraints drift
    (the paper's equivalence of (U3) and (U5) holds in exact arithmetic only).

    Examples
    --------
    A unit mass dropped from (1, 0) on the unit circle:

    >>> import numpy as np
    >>> circle = UdwadiaKalabaSystem(np.eye(2), lambda q, qd, t: np.array([0.0, -9.81]),
    ...                              constraints=lambda q, t: [q[0] ** 2 + q[1] ** 2 - 1.0])
    >>> sol = integrate(circle, [1.0, 0.0], [0.0, 0.0], (0.0, 0.2), t_eval=[0.0, 0.1, 0.2])
    >>> sol.t, sol.y[:2].round(3) + 0.0
    (array([0. , 0.1, 0.2]), array([[ 1.   ,  0.999,  0.981],
           [ 0.   , -0.049, -0.195]]))
    >>> np.hypot(sol.y[0], sol.y[1]).round(6)         # still on the circle
    array([1., 1., 1.])
    """
    from scipy.integrate import solve_ivp

    q0 = np.asarray(q0, float)
    n = len(q0)

    def rhs(t, y):
        return np.concatenate([y[n:], uk_system.accelerations(y[:n], y[n:], t).qdd])

    sol = solve_ivp(rhs, t_span, np.concatenate([q0, np.asarray(qd0, float)]), method=method,
                    t_eval=t_eval, rtol=rtol, atol=atol)
    if not sol.success:
        from .stepper import SimulationError

        raise SimulationError(f"Udwadia–Kalaba integration failed: {sol.message}")
    return sol


def gauss_problem(M: npt.ArrayLike, Q: npt.ArrayLike, A: npt.ArrayLike, b: npt.ArrayLike) -> Any:
    """Gauss's principle as a Pyomo QP: minimise the Gibbs function
    ``S(x) = ½ xᵀ M x - Qᵀ x`` subject to ``A x = b`` (spec §1.11f).

    Its minimiser is the ideal UK acceleration; solve it with any
    ``SolverFactory`` solver and read ``m.qdd``.  The multipliers of
    ``m.constraint`` (Pyomo ``dual`` Suffix) are λ with ``Qᶜ_i = Aᵀλ`` for
    full-rank A.

    Examples
    --------
    The unit mass at the bottom of the unit circle moving at 1 m/s (see
    :func:`uk_accelerations`), as a QP:

    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn import get_solver
    >>> m = gauss_problem(np.eye(2), [0.0, -9.81], [[0.0, -2.0]], [-2.0])
    >>> str(get_solver("casadi_ipopt").solve(m).solver.termination_condition)
    'optimal'
    >>> [round(pyo.value(m.qdd[i]), 6) for i in m.I]
    [0.0, 1.0]
    """
    import pyomo.environ as pyo

    M, Q = np.asarray(M, float), np.asarray(Q, float)
    A, b = np.atleast_2d(np.asarray(A, float)), np.atleast_1d(np.asarray(b, float))
    n, m = M.shape[0], A.shape[0]
    model = pyo.ConcreteModel("gauss")
    model.I = pyo.RangeSet(0, n - 1)
    model.J = pyo.RangeSet(0, m - 1)
    model.qdd = pyo.Var(model.I, initialize=0.0)
    model.gibbs = pyo.Objective(expr=0.5 * sum(M[i, j] * model.qdd[i] * model.qdd[j]
                                               for i in model.I for j in model.I if M[i, j] != 0)
                                - sum(Q[i] * model.qdd[i] for i in model.I))
    model.constraint = pyo.Constraint(model.J, rule=lambda mm, k: sum(
        A[k, i] * mm.qdd[i] for i in mm.I if A[k, i] != 0) == b[k])
    return model
