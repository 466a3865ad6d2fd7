"""The NLP of a model whose scheme blocks state the same equations at every interval.

:func:`mapped_nlp` takes the part of the model that was walked expression by
expression (objective ``f(x)``, remaining constraints ``g_w(x)``, and the
inputs ``z_k(x)`` of every mapped key) and the uniform groups (one CasADi
Function ``r = F(z)`` per group, stated at keys ``k = 1..K``) and returns the
NLP as a CasADi MX graph together with its derivatives assembled from
per-step derivative Functions:

    g(x)      = [g_w(x);  F(z_1(x)); …; F(z_K(x))]
    ∇g(x)     = [∇g_w;  D · ∇z],            D = blockdiag_k ∂F/∂z (z_k)
    ∇²L(x)    = ∇²(σ f + λ_wᵀ g_w + μᵀ z)  +  ∇zᵀ · blockdiag_k ∇²(λ_kᵀ F)(z_k) · ∇z,
                μ = Dᵀ λ_F  (the multipliers carried back to the inputs)

``∂F/∂z`` and ``∇²(λᵀF)`` are generated once per step (SX, exact) and mapped
over the keys; the walked part is differentiated as one SX Function.

Where the inputs are not the variables themselves but the same function of
fewer variables at every key, ``z_k = G(s_k)`` (the absolute forms: a node's
natural coordinates q_k = chart(θ_k)), :func:`composed_groups` passes the step
as ``F∘G`` of ``s_k`` instead: its derivatives are taken through the chart once
per step (the Panda's REM step: 196 instead of 350 inputs, a Hessian of 2 900
instead of 35 000 nonzeros), the products ``∇zᵀ·H·∇z`` and the chart's walked
Hessian ``∇²(μᵀz)`` vanish, and the NLP is the same.  Where
the inputs are the variables themselves (the lifted forms) ``∇z`` is a
selection matrix and the second term of ``μ`` vanishes.  CasADi's own AD of
the MX graph gives the same matrices but, differentiating through the map
with graph colourings, evaluates them 10–20× slower (benchmarks/README.md).
The derivative Functions are passed to ``nlpsol`` as its ``grad_f``,
``jac_g`` and ``hess_lag`` options.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import casadi as ca

from .compiled import launch, native

__all__ = ["composed_groups", "mapped_nlp"]


def _step_derivatives(F, hessian=True):
    """``(∂F/∂z, ∇²(λᵀF))`` of one step Function, cached by its serialised form, so
    that models rebuilt with the same system and grid (sweeps, multi-start)
    reuse them (``hessian=False``: the Jacobian alone, as ``(J, None)``)."""
    key = F.serialize()
    cached = _DERIVATIVES.get(key)
    if cached is not None and (cached[1] is not None or not hessian):
        return cached
    z = ca.SX.sym("z", F.size1_in(0))
    r = F(z)
    J = cached[0] if cached is not None else ca.Function(F.name() + "_jac", [z], [ca.jacobian(r, z)])
    H = None
    if hessian:
        lam = ca.SX.sym("lam", F.size1_out(0))
        H = ca.Function(F.name() + "_hess", [z, lam], [ca.hessian(ca.dot(lam, r), z)[0]])
    return _remember(key, (J, H))


def _remember(key, value):
    if len(_DERIVATIVES) > 64:
        _DERIVATIVES.clear()
    _DERIVATIVES[key] = value
    return value


_DERIVATIVES: dict[Any, Any] = {}


def composed_groups(F: ca.Function, inputs: Sequence[ca.SX]) -> list[tuple[ca.Function, list[int], list[ca.SX]]]:
    """The keys of one uniform group split by how their inputs are made.

    ``inputs[k]`` is the SX vector ``z_k`` of key k (expressions of the NLP's
    variables).  Keys whose ``z_k`` are all variables stay with ``F``; keys whose
    ``z_k = G(s_k)`` for one function ``G`` of their variables ``s_k`` (the same
    graph at every key, checked on the serialised Function after renaming
    ``s_k`` to common symbols) are passed as ``F∘G`` of ``s_k``.  A key whose
    graph is its own (fixed variables folded in: the first and last intervals)
    is composed too when other keys share a graph of at least as many variables
    and none stays with ``F``; otherwise it stays with ``F``.  Returns
    ``[(function, keys, [input_k for k in keys])]`` covering every key once;
    the composed function keeps ``F``'s name.
    """
    direct, symbols = [], {}
    for k, z in enumerate(inputs):
        if z.is_valid_input():
            direct.append(k)
        else:
            symbols[k] = ca.symvar(z)
    counts: dict[int, int] = {}
    for s in symbols.values():
        counts[len(s)] = counts.get(len(s), 0) + 1

    def shape(k):
        s = symbols[k]
        common = _common_symbols(len(s))
        return ca.Function("G", [common], [ca.substitute([inputs[k]], s, ca.vertsplit(common))[0]])

    # a key whose number of variables no other key has is a graph of its own: its G is
    # built only if it is composed (inputs nested over the horizon have one each)
    shapes: dict[str, tuple[ca.Function, list[tuple[int, ca.SX]]]] = {}
    alone: list[int] = []
    for k, s in symbols.items():
        if counts[len(s)] == 1:
            alone.append(k)
        else:
            G = shape(k)
            shapes.setdefault(G.serialize(), (G, []))[1].append((k, ca.vertcat(*s)))
    shared = [G.size1_in(0) for G, members in shapes.values() if len(members) > 1]
    singles: list[tuple[ca.Function | None, int]] = [(G, members[0][0]) for G, members in shapes.values()
                                                      if len(members) == 1]
    singles += [(None, k) for k in alone]
    composed = [(_composed(F, G), [k for k, _ in members], [sk for _, sk in members])
                for G, members in shapes.values() if len(members) > 1]
    for G, k in sorted(singles, key=lambda item: item[1]):
        if direct or not shared or len(symbols[k]) > max(shared):
            # a key of its own graph joins F: F's derivatives are made anyway, or no key
            # shares a graph (inputs nested over the horizon: the derivatives of F∘G at
            # every key would cost more than ∇zᵀ·H·∇z)
            direct.append(k)
            continue
        composed.append((_composed(F, G if G is not None else shape(k)), [k], [ca.vertcat(*symbols[k])]))
    direct.sort()
    composed.sort(key=lambda group: group[1][0])  # in the order of their first keys
    return ([(F, direct, [inputs[k] for k in direct])] if direct else []) + composed


def _composed(F, G):
    """``F∘G`` as one Function named as ``F``, its derivatives entered in the cache:
    ``∂(F∘G)/∂s = ∂F/∂z(G(s)) · ∂G/∂s`` (half the instructions of differentiating
    the composed graph) and ``∇²(λᵀF∘G)`` by SX through ``G``."""
    s = ca.SX.sym("s", G.size1_in(0))
    z = G(s)
    composed = ca.Function(F.name(), [s], [F(z)])
    key = composed.serialize()
    if key not in _DERIVATIVES:
        JF, _ = _step_derivatives(F, hessian=False)
        lam = ca.SX.sym("lam", F.size1_out(0))
        J = ca.Function(F.name() + "_jac", [s], [ca.mtimes(JF(z), ca.jacobian(z, s))])
        H = ca.Function(F.name() + "_hess", [s, lam], [ca.hessian(ca.dot(lam, F(z)), s)[0]])
        _remember(key, (J, H))
    return composed


def _common_symbols(n):
    symbols = _COMMON.get(n)
    if symbols is None:
        symbols = _COMMON[n] = ca.SX.sym("s", n)
    return symbols


_COMMON: dict[int, ca.SX] = {}


def _blockdiag(M, block, K):
    """K blocks of sparsity ``block`` side by side (as ``map`` returns them) as a
    block-diagonal matrix: the nonzeros are in the same order."""
    return ca.sparsity_cast(M, ca.diagcat(*([block] * K)))


def _hessian(L, x):
    """∇²L over the entries of ``x`` on which ``L`` depends nonlinearly (placed in the
    full n×n pattern): the walked part is small but ``x`` is all of the NLP's
    variables, most of which enter it linearly or not at all."""
    n = x.size1()
    idx = [i for i, nonlinear in enumerate(ca.which_depends(L, x, 2, False)) if nonlinear]
    if not idx:
        return ca.SX(n, n)
    H = ca.hessian(L, ca.vertcat(*[x[i] for i in idx]))[0]
    rows, cols = H.sparsity().get_triplet()
    pattern = ca.Sparsity.triplet(n, n, [idx[r] for r in rows], [idx[c] for c in cols])
    return ca.SX(pattern, ca.vertcat(*H.nonzeros())) if H.nnz() else ca.SX(n, n)


def mapped_nlp(x: ca.SX, f: ca.SX, g_walked: ca.SX, groups: Sequence[tuple[ca.Function, int]],
               inputs: Sequence[ca.SX], compiled: str = "never") -> tuple[ca.MX, ca.MX, ca.MX, dict[str, ca.Function], int]:
    """``(X, f, g, functions, n_native)``: the MX graph of the NLP, its derivative
    Functions and how many groups' derivatives are native code.

    Parameters
    ----------
    x, f, g_walked : SX
        The walked part: variables, objective (times σ) and remaining rows.
    groups : list of (Function, K)
        Each uniform group's step Function and number of keys.
    inputs : list of SX
        Each group's inputs ``[z_1; …; z_K]`` (length ``nz·K``) as expressions of ``x``.
    compiled : str
        ``"auto"``, ``"always"`` or ``"never"``: whether each step and its
        derivatives are evaluated as native code (:mod:`pyomo_mbdyn.solvers.compiled`).

    Notes
    -----
    Returns the MX symbols, objective and rows, and ``{"grad_f", "jac_g",
    "hess_lag"}`` for ``nlpsol`` (signatures as CasADi's defaults:
    ``(x, p) → (f, ∇f)``, ``(x, p) → (g, ∇g)``, ``(x, p, λ_f, λ_g) → triu ∇²L``).
    """
    n = x.size1()
    z = ca.vertcat(*inputs) if inputs else ca.SX(0, 1)
    n_w, n_z = g_walked.size1(), z.size1()
    sigma = ca.SX.sym("sigma")
    lam_w = ca.SX.sym("lam_w", n_w)
    mu = ca.SX.sym("mu", n_z)
    walked = ca.Function("walked", [x], [f, g_walked, z, ca.gradient(f, x), ca.jacobian(g_walked, x),
                                         ca.jacobian(z, x)])
    walked_hess = ca.Function("walked_hess", [x, sigma, lam_w, mu], [
        _hessian(sigma * f + ca.dot(lam_w, g_walked) + ca.dot(mu, z), x)])

    X = ca.MX.sym("x", n)
    P = ca.MX.sym("p", 0, 1)
    lam_f = ca.MX.sym("lam_f")
    f_X, gw_X, z_X, grad_X, Jw_X, Jz_X = walked(X)

    rows, jac_rows, hess_terms, adjoints = [gw_X], [Jw_X], [], []
    lam_g = ca.MX.sym("lam_g", n_w + sum(F.size1_out(0) * K for F, K in groups))
    offset_z, offset_g, n_native = 0, n_w, 0
    pending: list[tuple[str, ...]] = []
    for F, K in groups:
        nz, nr = F.size1_in(0), F.size1_out(0)
        J, H = _step_derivatives(F)
        F, J_eval, H_eval = native(F, J, H, compiled, pending)
        n_native += H_eval is not H
        J, H = J_eval, H_eval
        Z = ca.reshape(z_X[offset_z:offset_z + nz * K], nz, K)
        Jz = Jz_X[offset_z:offset_z + nz * K, :]
        rows.append(ca.vec(F.map(K, "serial")(Z)))
        D = _blockdiag(J.map(K, "serial")(Z), J.sparsity_out(0), K)
        jac_rows.append(ca.mtimes(D, Jz))
        lam = lam_g[offset_g:offset_g + nr * K]
        HB = _blockdiag(H.map(K, "serial")(Z, ca.reshape(lam, nr, K)), H.sparsity_out(0), K)
        hess_terms.append(ca.mtimes(Jz.T, ca.mtimes(HB, Jz)))
        adjoints.append(ca.mtimes(D.T, lam))
        offset_z += nz * K
        offset_g += nr * K
    launch(pending)  # the background builds of "auto", one process for all
    g_X = ca.vertcat(*rows)
    jac = ca.vertcat(*jac_rows)
    mu_X = ca.vertcat(*adjoints) if adjoints else ca.MX(0, 1)
    hess = walked_hess(X, lam_f, lam_g[:n_w], mu_X)
    for term in hess_terms:
        hess = hess + term
    functions = {
        "grad_f": ca.Function("nlp_grad_f", [X, P], [f_X, grad_X], ["x", "p"], ["f", "grad_f_x"]),
        "jac_g": ca.Function("nlp_jac_g", [X, P], [g_X, jac], ["x", "p"], ["g", "jac_g_x"]),
        "hess_lag": ca.Function("nlp_hess_l", [X, P, lam_f, lam_g], [ca.triu(hess)],
                                ["x", "p", "lam_f", "lam_g"], ["triu_hess_gamma_x_x"]),
    }
    return X, f_X, g_X, functions, n_native
