"""The equality Jacobian at a point: conditioning, scaling, and the combinations of rows that cancel.

The rows' Jacobian comes from the library's CasADi translation
(:mod:`pyomo_mbdyn.solvers.pyomo_to_casadi`); the smallest singular triplets of the
Jacobian with rows and columns scaled to unit 2-norm name the dependent equations
(dense SVD up to ``dense_limit`` rows, else shift-invert ARPACK on J Jᵀ refined by a
Rayleigh–Ritz step on J)."""

import numpy as np

from .findings import Dependency

__all__ = []


def _jacobian(model):
    """``(constraints, variables, J (csr), g, lbg, ubg)`` of the active rows at the
    variables' current values (None → 0), rows in the model's component order."""
    import casadi as ca
    import pyomo.environ as pyo
    import scipy.sparse as sp

    from ..solvers.pyomo_to_casadi import translate

    objectives = [o for o in model.component_data_objects(pyo.Objective, active=True, descend_into=True)]
    for o in objectives:  # not needed here, and at most one may be active for the translation
        o.deactivate()
    try:
        nlp = translate(model, "diagnose", structured=True)
    finally:
        for o in objectives:
            o.activate()
    jac_g = nlp.extras.get("functions", {}).get("jac_g")
    if jac_g is not None:  # mapped step Functions: their derivatives are assembled per step
        g, J = jac_g(nlp.x0, [])
    else:
        J, g = ca.Function("diagnose", [nlp.x], [ca.jacobian(nlp.g, nlp.x), nlp.g])(nlp.x0)
    J = sp.csc_matrix(J.sparse() if hasattr(J, "sparse") else np.asarray(J)).tocsr()
    g = np.asarray(g, float).ravel()
    position = {id(c): i for i, c in enumerate(
        model.component_data_objects(pyo.Constraint, active=True, descend_into=True))}
    order = np.argsort([position[id(c)] for c in nlp.constraints], kind="stable")
    constraints = [nlp.constraints[i] for i in order]
    return constraints, nlp.variables, J[order], g[order], nlp.lbg[order], nlp.ubg[order]


def _norms(A, axis):
    import scipy.sparse as sp

    return np.sqrt(np.asarray(sp.csr_matrix(A).multiply(A).sum(axis=axis), float).ravel())


def _scaled(A):
    """``D_r⁻¹ A D_c⁻¹`` with rows, then columns, of unit 2-norm (zero norms left alone)."""
    import scipy.sparse as sp

    r = _norms(A, 1)
    r[r == 0] = 1.0
    S = sp.diags(1.0 / r) @ A
    c = _norms(S, 0)
    c[c == 0] = 1.0
    return (S @ sp.diags(1.0 / c)).tocsr()


def _dense_svd(A, full):
    import scipy.linalg as la

    try:
        return la.svd(A, full_matrices=full, lapack_driver="gesdd")
    except la.LinAlgError:  # gesdd may not converge where gesvd does
        return la.svd(A, full_matrices=full, lapack_driver="gesvd")


def _spectrum(S, config, k=None):
    """``(σ_max, σ ascending, U, v)`` of ``S`` (m × n): every singular value (dense,
    up to ``dense_limit`` rows), or the ``k`` (default ``max_null``) smallest (sparse);
    the columns of ``U`` are the left singular vectors of the listed σ (with the left
    null space beyond n when m > n), ``v`` the right singular vector of the smallest σ.

    Sparse path: the smallest eigenpairs of ``S Sᵀ`` by shift-invert Lanczos
    (ARPACK), then a Rayleigh–Ritz step in that subspace — the SVD of the small
    ``Sᵀ U`` — so that σ is computed from ``S`` itself, not squared (to about
    1e-12 σ_max instead of 1e-8)."""
    import scipy.linalg as la
    import scipy.sparse.linalg as spla

    m, n = S.shape
    k = config.max_null if k is None else k
    if m <= config.dense_limit or m <= k + 1:
        U, s, Vt = _dense_svd(S.toarray(), full=m > n)
        v = Vt[len(s) - 1] if len(s) else None
        s = np.concatenate([s, np.zeros(m - len(s))])  # m > n: the left null space beyond n
        return (s[0] if len(s) else 0.0), s[::-1], U[:, ::-1], v
    s_max = spla.svds(S, k=1, return_singular_vectors=False)[0]
    start = np.random.default_rng(0).standard_normal(m)  # reproducible, and in no subspace's complement
    _, U = spla.eigsh((S @ S.T).tocsc(), k=k, sigma=-1e-10 * s_max ** 2, which="LM", v0=start)
    P, s, Qt = la.svd(np.asarray(S.T @ U), full_matrices=False)
    order = np.argsort(s)
    return s_max, s[order], U @ Qt.T[:, order], P[:, order[0]]


def _dependent_rows(U0, weight_tol):
    """Indices of the rows to name as dependent: one per column of ``U0`` (an
    orthonormal basis of the vanishing row combinations), chosen greedily from the
    last row backwards — the latest-stated rows whose weights are independent."""
    d = U0.shape[1]
    chosen, basis = [], np.zeros((0, d))
    for i in range(U0.shape[0] - 1, -1, -1):
        w = U0[i]
        r = w - basis.T @ (basis @ w)
        norm = np.linalg.norm(r)
        if norm > max(weight_tol, 1e-3 * np.linalg.norm(w)) and np.linalg.norm(w) > weight_tol:
            chosen.append(i)
            basis = np.vstack([basis, r / norm])
            if len(chosen) == d:
                break
    return chosen


def _dependencies(U0, chosen, names, weight_tol, top):
    """For each chosen row j, the vanishing combination with coefficient 1 on j and 0
    on the other chosen rows (``C = U0 · U0[chosen]⁺``), as ``row_j ≈ Σ c_i row_i``."""
    if not chosen:
        return []
    C = U0 @ np.linalg.pinv(U0[chosen])
    found = []
    for a, j in enumerate(chosen):
        col = -C[:, a] / C[j, a]
        scale = np.abs(col).max()
        others = [i for i in np.argsort(-np.abs(col), kind="stable")
                  if i != j and abs(col[i]) > weight_tol * scale]
        found.append(Dependency(names[j], len(others), [(names[i], float(col[i])) for i in others[:top]]))
    return found
