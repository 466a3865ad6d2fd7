"""Closed kinematic loops: the active constraint rows and coordinate partitioning.

A joint whose child is already carried by the spanning tree closes a loop
(:class:`~pyomo_mbdyn.mechanics.MultibodySystem`): it adds constraints, no
coordinates.  With ``ν`` the tree coordinates (``system.velocities``), ``P_t``
the tree null space and ``G_L`` the loop rows, admissible velocities are
``v = P_t ν`` with

    J(q) ν = 0,   J = G_L(q) P_t(q)      (n_L × n_t).

**Active rows.** A planar loop written in 3-D repeats constraints (a planar
four-bar closed by a revolute: 3 of its 5 rows); the redundant rows make the
KKT matrix of every multiplier scheme singular.  The rows of ``J(q0)`` are
kept greedily in label order when they raise its rank; the rest are *dropped*
(they hold on the manifold the kept rows define) — the rank is checked again
at a second configuration, away from q0, so that a singular reference
configuration is reported instead of silently dropping rows that are not
redundant.

**Coordinate partitioning** (Wehage & Haug 1982, as in bioptim's holonomic
models): ``ν = E_i ν_i + E_d ν_d`` with ``J_d = J E_d`` regular, so

    ν_d = -J_d⁻¹ J_i ν_i,   N = E_i - E_d J_d⁻¹ J_i,   P(q) = P_t(q) N(q)   (n × dof).

``P`` is an expression in every backend (``J_d⁻¹ J_i`` by elimination with a
row order fixed at q0), so the reduced schemes (REM, DMOCC) can premultiply by
it.  With the tree control matrix ``B_t`` (``B_t(q♯) P_t(q_mid) = I``) the
independent rows ``E_iᵀ B_t`` are a left inverse of ``P``: ``E_iᵀ B_t P =
E_iᵀ N = I`` exactly, and the reduced inputs are ``Pᵀ B_tᵀ u = Nᵀ u``.

The independent coordinates are the actuated ones first, then those that make
``J_d`` best conditioned (QR with column pivoting at q0).  Where ``J_d`` is
singular (a toggle position of the dependent joints, the change points of a
parallelogram) the reduction does not exist: :class:`LoopReductionError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..errors import AssemblyError, ConfigurationError, LoopReductionError
from .linalg import as_array, dependent_rows, matmul, shared, shared_array

if TYPE_CHECKING:
    import numpy.typing as npt
    from .protocol import ConstrainedSystem

__all__ = ["LoopReduction", "move_independent", "partition_condition", "loop_reduction", "loop_basis", "solve_unpivoted",
           "close_loops", "CONDITION_LIMIT"]

#: the largest cond(J_d) of a usable partition at q0
CONDITION_LIMIT = 1e8


class LoopReduction:
    """The loop structure of a system at its reference configuration.

    Attributes
    ----------
    active : list of int
        Constraint rows kept (internal, tree joints, independent loop rows), in label order.
    loop_rows : list of int
        The kept rows of loop-closing joints (``n_L`` of them).
    dropped : list of str
        Labels of the loop rows dropped as redundant.
    independent, dependent : list of str
        The partition of the tree coordinates (``system.velocities``).
    i_index, d_index : list of int
        Their positions in ``system.velocities``.
    order : list of int
        The row order of ``J_d`` for elimination without pivoting (partial pivoting at q0).
    condition : float
        cond(J_d) at q0.

    Examples
    --------
    >>> from pyomo_mbdyn.mechanics import examples
    >>> examples.four_bar().loop_reduction
    LoopReduction(independent=['A.angle'], dependent=['B.angle', 'C.angle'], dropped=['D[2]', 'D[3]', 'D[4]'], cond(J_d)=1.37)
    """

    def __init__(self, active: list[int], loop_rows: list[int], dropped: list[str], independent: list[str], dependent: list[str], i_index: list[int], d_index: list[int], order: list[int], condition: float) -> None:
        self.active, self.loop_rows, self.dropped = active, loop_rows, dropped
        self.independent, self.dependent = independent, dependent
        self.i_index, self.d_index, self.order, self.condition = i_index, d_index, order, condition

    def __repr__(self):
        return (f"LoopReduction(independent={self.independent}, dependent={self.dependent}, "
                f"dropped={self.dropped}, cond(J_d)={self.condition:.3g})")


def _loop_jacobian(system, q, rows):
    """J = G_rows(q) P_t(q) for floats."""
    G = np.asarray(system.constraint_jacobian(q), float)
    return G[rows] @ np.asarray(system.tree_null_space(q), float)


def _loop_row_indices(system):
    labels = system.constraint_labels()
    loops = set(system.layout["loop_joints"])
    return [i for i, label in enumerate(labels) if label.rsplit("[", 1)[0] in loops]


def loop_reduction(system: ConstrainedSystem, independent: Sequence[str] | None = None) -> LoopReduction:
    """The :class:`LoopReduction` of ``system`` at ``system.q0``.

    ``independent`` names tree coordinates to be independent (default: the
    actuated coordinates, completed by QR with column pivoting on ``J(q0)``).
    Raises :class:`AssemblyError` when the rank of the loop rows differs at a
    nearby configuration (q0 is singular), :class:`LoopReductionError` when the
    requested or every partition leaves ``J_d`` singular.

    Examples
    --------
    The slider-crank with its crank independent, and with the piston independent instead
    (fine here, singular at the dead centres):

    >>> from pyomo_mbdyn.mechanics import examples
    >>> slider_crank = examples.slider_crank()
    >>> loop_reduction(slider_crank).dependent
    ['B.angle', 'P.slide']
    >>> loop_reduction(slider_crank, independent=["P.slide"]).dependent
    ['A.angle', 'B.angle']
    """
    labels, names = system.constraint_labels(), system.velocities
    loop_all = _loop_row_indices(system)
    q0 = np.asarray(system.q0, float)
    J_all = _loop_jacobian(system, q0, loop_all)
    drop = set(dependent_rows(J_all))
    kept = [r for i, r in enumerate(loop_all) if i not in drop]
    dropped = [labels[r] for i, r in enumerate(loop_all) if i in drop]
    loop_set = set(loop_all)
    active = [r for r in range(system.m) if r not in loop_set or r in kept]
    J = J_all[[i for i in range(len(loop_all)) if i not in drop]]
    n_dep, n_t = J.shape
    if independent is not None:
        wanted = [independent] if isinstance(independent, str) else list(independent)
        unknown = [w for w in wanted if w not in names]
        if unknown:
            raise ConfigurationError(f"{system}: independent coordinates {unknown} are not tree coordinates; "
                                f"they are {names}")
        if len(wanted) != n_t - n_dep:
            raise LoopReductionError(
                f"{system}: {len(wanted)} independent coordinates {wanted} given; the loops leave "
                f"{n_t - n_dep} degrees of freedom")
        d_index = [j for j in range(n_t) if names[j] not in wanted]
    else:
        d_index = _dependent_columns(J, [names.index(a) for a in system.actuated])
    i_index = [j for j in range(n_t) if j not in d_index]
    Jd = J[:, d_index]
    condition = np.linalg.cond(Jd) if n_dep else 1.0
    if not np.isfinite(condition) or condition > CONDITION_LIMIT:
        raise LoopReductionError(
            f"{system}: the dependent coordinates {[names[j] for j in d_index]} cannot be solved for at q0 "
            f"(cond J_d = {condition:.3g} > {CONDITION_LIMIT:.0e}): a singular position of the loop "
            f"{system.layout['loop_joints']} for this partition; choose other independent coordinates")
    order = _pivot_order(Jd)
    reduction = LoopReduction(active, kept, dropped, [names[j] for j in i_index], [names[j] for j in d_index],
                              i_index, d_index, order, float(condition))
    _check_second_configuration(system, reduction, J_all, n_dep)
    return reduction


def _dependent_columns(J, preferred_independent):
    """Columns for J_d: the non-actuated coordinates that make J_d best conditioned."""
    import scipy.linalg

    n_dep, n_t = J.shape
    if n_dep == 0:
        return []
    for candidates in ([j for j in range(n_t) if j not in preferred_independent], list(range(n_t))):
        if len(candidates) < n_dep:
            continue
        _, R, piv = scipy.linalg.qr(J[:, candidates], pivoting=True)
        d = np.abs(np.diag(R))
        if len(d) >= n_dep and d[n_dep - 1] > 1e-9 * max(1.0, d[0]):
            return sorted(candidates[p] for p in piv[:n_dep])
    return list(range(n_dep))  # singular: refused by the caller with the condition number


def _pivot_order(A):
    """Row order of partial pivoting for ``A`` (so that elimination without pivoting on
    symbolic entries meets the pivots chosen at q0)."""
    A = np.array(A, float)
    k = A.shape[0]
    rows = list(range(k))
    for c in range(k):
        p = c + int(np.argmax(np.abs(A[c:, c])))
        A[[c, p]] = A[[p, c]]
        rows[c], rows[p] = rows[p], rows[c]
        if A[c, c] != 0:
            A[c + 1:] -= np.outer(A[c + 1:, c] / A[c, c], A[c])
    return rows


def _check_second_configuration(system, reduction, J_all, n_dep):
    """The rank of the loop rows at q0 equals that at a configuration nearby on the manifold."""
    if n_dep == 0:
        return
    step = np.zeros(system.n_velocities)
    step[reduction.i_index] = 0.05
    try:
        q1 = close_loops(system, step, system.q0, reduction)
    except LoopReductionError:
        q1 = None
    rank0 = np.linalg.matrix_rank(J_all, tol=1e-9 * max(1.0, np.abs(J_all).max()))
    J1 = _loop_jacobian(system, q1, _loop_row_indices(system)) if q1 is not None else None
    rank1 = None if J1 is None else np.linalg.matrix_rank(J1, tol=1e-9 * max(1.0, np.abs(J1).max()))
    if rank1 != rank0:
        raise AssemblyError(
            f"{system}: q0 is a singular configuration of the loops {system.layout['loop_joints']}: the loop "
            f"constraints have rank {rank0} there and {rank1} nearby; assemble the system in a regular "
            "configuration")


def solve_unpivoted(A: npt.ArrayLike, B: npt.ArrayLike, order: Sequence[int] | None = None) -> np.ndarray:
    """``X = A⁻¹ B`` by Gaussian elimination without pivoting, for any backend.

    ``A`` (k × k) and ``B`` (k × p) may hold floats, Pyomo or CasADi entries;
    ``order`` reorders the rows first (the pivots of partial pivoting at a
    reference point).  Every eliminated entry is :func:`~.linalg.shared`.

    Examples
    --------
    >>> solve_unpivoted([[0.0, 2.0], [4.0, 1.0]], [[2.0], [5.0]], order=[1, 0])
    array([[1.],
           [1.]])
    """
    A, B = np.asarray(A, dtype=object), np.asarray(B, dtype=object)
    k = A.shape[0]
    if B.ndim == 1:
        B = B.reshape(k, 1)
    order = list(range(k)) if order is None else list(order)
    A = [[A[r, c] for c in range(k)] for r in order]
    B = [[B[r, c] for c in range(B.shape[1])] for r in order]
    p = len(B[0]) if k else 0
    for c in range(k):  # forward elimination
        for r in range(c + 1, k):
            factor = shared(A[r][c] / A[c][c])
            for j in range(c + 1, k):
                A[r][j] = shared(A[r][j] - factor * A[c][j])
            for j in range(p):
                B[r][j] = shared(B[r][j] - factor * B[c][j])
    X = [[None] * p for _ in range(k)]
    for c in reversed(range(k)):  # back substitution
        for j in range(p):
            X[c][j] = shared((B[c][j] - sum(A[c][i] * X[i][j] for i in range(c + 1, k))) / A[c][c])
    return as_array(np.array(X, dtype=object).reshape(k, p))


def loop_basis(system: ConstrainedSystem, q: npt.ArrayLike, P_tree: npt.ArrayLike, reduction: LoopReduction) -> np.ndarray:
    """``N(q) = E_i - E_d J_d⁻¹ J_i`` (n_t × dof), any backend; ``P = P_t N``.

    Examples
    --------
    The rates of the four-bar's three tree joints per unit crank rate (the crank's is 1):

    >>> from pyomo_mbdyn.mechanics import examples
    >>> four_bar = examples.four_bar()
    >>> q = four_bar.q0
    >>> loop_basis(four_bar, q, four_bar.tree_null_space(q), four_bar.loop_reduction).round(4)
    array([[ 1.    ],
           [-0.9783],
           [ 0.3261]])
    """
    G = system.constraint_jacobian(q)
    J = shared_array(matmul(np.asarray(G, dtype=object)[reduction.loop_rows], P_tree))
    J = np.asarray(J, dtype=object).reshape(len(reduction.loop_rows), system.n_velocities)
    n_t, dof = system.n_velocities, len(reduction.i_index)
    N = np.zeros((n_t, dof), dtype=object)
    for a, j in enumerate(reduction.i_index):
        N[j, a] = 1.0
    if reduction.d_index:
        X = solve_unpivoted(J[:, reduction.d_index], J[:, reduction.i_index], reduction.order)
        for r, j in enumerate(reduction.d_index):
            for a in range(dof):
                N[j, a] = -X[r, a]
    return as_array(N)


def close_loops(system: ConstrainedSystem, w: npt.ArrayLike, q_base: npt.ArrayLike, reduction: LoopReduction | None = None, tol: float = 1e-13, max_iter: int = 30) -> np.ndarray:
    """q = F_t(w, q_base) with the dependent increments solved so that the loops close (floats).

    ``w`` are tree increments (ordered as ``system.velocities``): its independent
    entries are kept, its dependent entries are the Newton start (the linear
    predictor ``-J_d⁻¹ J_i w_i`` when they are zero).  Newton on the kept loop rows
    ``Φ_L(F_t(w, q_base)) = 0`` in the dependent increments, with the Jacobian
    ``J_d`` at the current configuration; the sign of ``det J_d`` must not change
    (the same assembly branch).  Raises :class:`LoopReductionError` if Newton fails.

    Examples
    --------
    Turn the four-bar's crank by 0.1 rad from the reference configuration:

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> four_bar = examples.four_bar()
    >>> q = close_loops(four_bar, [0.1, 0.0, 0.0], four_bar.q0)
    >>> bool(np.abs(np.asarray(four_bar.constraints(q), float)).max() < 1e-12)
    True
    """
    reduction = system.loop_reduction if reduction is None else reduction
    w = np.array(w, float).reshape(-1)
    q_base = np.asarray(q_base, float)
    d, i = reduction.d_index, reduction.i_index
    if not d:
        return np.asarray(system.reparametrise(w, q_base), float)
    J0 = _loop_jacobian(system, q_base, reduction.loop_rows)
    sign = np.sign(np.linalg.det(J0[:, d]))
    if not np.any(w[d]):
        w[d] = -np.linalg.solve(J0[:, d], J0[:, i] @ w[i])
    polished = False
    for _ in range(max_iter):
        q = np.asarray(system.reparametrise(w, q_base), float)
        r = np.asarray(system.constraints(q), float)[reduction.loop_rows]
        J = _loop_jacobian(system, q, reduction.loop_rows)
        if np.abs(r).max() <= tol * max(1.0, np.abs(q).max()):
            if np.sign(np.linalg.det(J[:, d])) != sign:
                break
            if polished or not np.any(r):
                return q
            polished = True  # one more step: quadratic convergence takes the rows to round-off
        # F_t(w + δ, q_base) = F_t(δ', q) to first order with δ' = δ (the tree increments compose
        # to first order): Newton in the dependent increments with J_d at q
        try:
            w[d] = w[d] - np.linalg.solve(J[:, d], r)
        except np.linalg.LinAlgError:  # J_d singular: a dead centre, where the branch ends
            break
    raise LoopReductionError(
        f"{system}: the loops {system.layout['loop_joints']} do not close for the increments "
        f"{ {n: round(float(v), 6) for n, v in zip(reduction.independent, w[i])} } from this configuration "
        f"(Newton on the dependent coordinates {reduction.dependent} failed or changed assembly branch); "
        f"take smaller steps")


def move_independent(system: ConstrainedSystem, delta: npt.ArrayLike, q_start: npt.ArrayLike, max_step: float = 0.1) -> np.ndarray:
    """The configuration reached from ``q_start`` by moving the independent coordinates by
    ``delta`` (ordered as ``system.independent``) with the loops closed (floats).

    Continuation in steps of at most ``max_step`` (rad or m) by :func:`close_loops`, so that the
    dependent joints follow the assembly branch of ``q_start``.

    Examples
    --------
    A crank-rocker four-bar turned by its crank: every constraint row holds.

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> four_bar = examples.four_bar()
    >>> q = move_independent(four_bar, [1.0], four_bar.q0)
    >>> bool(np.abs(np.asarray(four_bar.constraints(q), float)).max() < 1e-12)
    True
    """
    reduction = system.loop_reduction
    delta = np.asarray(delta, float).reshape(-1)
    if reduction is None:
        return np.asarray(system.reparametrise(delta, q_start), float)
    steps = max(1, int(np.ceil(np.abs(delta).max() / max_step))) if delta.size else 1
    q = np.asarray(q_start, float)
    for k in range(steps):
        w = np.zeros(system.n_velocities)
        w[reduction.i_index] = delta / steps
        try:
            q = close_loops(system, w, q, reduction)
        except LoopReductionError:
            # small steps from closed configurations: the loops cannot close beyond this point
            moved = {n: round(float(v) * k / steps, 6) for n, v in zip(reduction.independent, delta)}
            asked = {n: round(float(v), 6) for n, v in zip(reduction.independent, delta)}
            raise ConfigurationError(  # not a LoopReductionError: no scheme can reach it
                f"{system}: the loops {system.layout['loop_joints']} cannot close when {reduction.independent} "
                f"move by {asked} from the given configuration: they close up to {moved} (in steps of at most {max_step}) and no further on "
                f"this assembly branch; the configuration lies outside the linkage's range of motion (or "
                f"beyond a dead centre): ask for one it can reach") from None
    return q


def partition_condition(system: ConstrainedSystem, q: npt.ArrayLike) -> float:
    """cond(J_d) at configuration q (floats): how well the dependent coordinates are determined
    by the independent ones there.  It grows without bound towards a singular position of the
    partition (a toggle of the dependent joints); the reduced schemes (rem, dmocc) lose accuracy
    as it does, the multiplier schemes do not.  1 for a tree.

    Examples
    --------
    Along a full turn of the four-bar's crank the partition stays well conditioned:

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> four_bar = examples.four_bar()
    >>> q, worst = four_bar.q0, 0.0
    >>> for _ in range(12):
    ...     q = move_independent(four_bar, [np.pi / 6], q)
    ...     worst = max(worst, partition_condition(four_bar, q))
    >>> bool(worst < 10)
    True
    """
    reduction = system.loop_reduction
    if reduction is None or not reduction.d_index:
        return 1.0
    J = _loop_jacobian(system, np.asarray(q, float), reduction.loop_rows)
    return float(np.linalg.cond(J[:, reduction.d_index]))
