r"""Step, costate and Hamiltonian formulas of the DNCO (thesis §2.11, Ch. 8).

The system is a Hamiltonian system in generalised coordinates,

    H(q, p) = ½ pᵀ M(q)⁻¹ p + V(q),   x = (q, p) ∈ R²ⁿ,

controlled as q̇ = ∇_p H, ṗ = -∇_q H + u (u the applied generalised force; the thesis,
§0, writes its control with the sign of ∇V, ū = -u), with the control effort
J = ∫ ½|u|² dt.  On the uniform grid t_k = k h, h = T/N, with node states x_k and interval controls and costates u_{k,k+1},
λ_{k,k+1} = (λ^q, λ^p), a :class:`DNCOBlock` holds

* the **state equations** (``kinematics``, ``momentum_balance``, k = 0..N-1)

      (x_{k+1} - x_k)/h = 𝕁 ∇̄H(x_k, x_{k+1}) + (0, u_{k,k+1}),   𝕁 = [[0, I], [-I, 0]],

  with the discrete gradient ∇̄H chosen by ``gradient``:

  - ``"gonzalez"``: H_α + (H(x_{k+1}) - H(x_k) - H_α·Δx)/(Δx·Δx) Δx, Δx = x_{k+1} - x_k,
    H_α = ∇H(x_{k+½}) (thesis Eq. 8.44; any M(q));
  - ``"greenspan"``: the same formula applied to V(q) alone, with the exact
    midpoint gradient M⁻¹p_{k+½} of the quadratic kinetic energy (needs a
    constant M).  For n = 1 it is Greenspan's quotient (V(q_{k+1}) - V(q_k))/(q_{k+1} - q_k)
    of thesis Eq. 8.16;
  - ``"midpoint"``: ∇H(x_{k+½}) (Eq. 8.18/8.47: no energy consistency);

* ``method="indirect"`` (the DNCO square system, Eqs. 8.20–8.22 and 8.49–8.53)
  adds the **costate equations** (``costate_q``, ``costate_p``, k = 1..N-1)

      (λ_{k,k+1} - λ_{k-1,k})/h = -½ {(λ_{k,k+1} + λ_{k-1,k})ᵀ 𝕁 ∇̄ₓₓH(x_{k-1}, x_k, x_{k+1})}ᵀ,

      ∇̄ₓₓH = H_β + (∇̄H_{k,k+1} - ∇̄H_{k-1,k} - H_β Δx) ⊗ Δx / (Δx·Δx),
      Δx = x_{k+½} - x_{k-½} = ½(x_{k+1} - x_{k-1}),  H_β = ∇ₓₓH(x_k),

  built from the same discrete gradient as the state equations (for
  ``"greenspan"`` on the V-block only, which for n = 1 is Eq. 8.21
  (∇̄V_{k,k+1} - ∇̄V_{k-1,k})/(q_{k+½} - q_{k-½}); for ``"midpoint"`` Eq. 8.26),
  and the **control equations** ``control``: 0 = u_{k,k+1} - λ^p_{k,k+1}.
  With x_0 and x_N fixed this is square: 2n(N-1) + 2nN + nN unknowns and
  equations.  Because ∇̄ₓₓH Δx = ∇̄H_{k,k+1} - ∇̄H_{k-1,k} by construction, the
  discrete Hamiltonian

      H^d_{k,k+1} = -½|u|² + λ_{k,k+1}·[𝕁 ∇̄H(x_k, x_{k+1}) + (0, u)]

  is the same on every interval (thesis §2.11, proof of Eq. 8.54).  The
  objective of the square system is the constant 0; ``cost`` holds J_d;
* ``method="direct"`` is the transcription min J_d = h Σ ½|u_{k,k+1}|² subject
  to the state equations (objective ``objective``); its KKT conditions are the
  *direct* DNCO, and the NLP duals of ``kinematics``/``momentum_balance`` are
  the (trapezoidal) costates: see :mod:`pyomo_mbdyn.ocp.costates`.

Energy: with the Gonzalez or Greenspan gradient H(x_{k+1}) - H(x_k) = u·Δq
exactly, so T + V + W with the discrete work W_k = -Σ_{i<k} u_{i,i+1}·(q_{i+1} - q_i)
is constant (thesis §2.11 caveat: the work (8.39) is not consistent).

Removable singularity.  The quotients above are 0/0 when Δx → 0.  Every
denominator Δx·Δx is evaluated as Δx·Δx + δ² with δ = ``guard`` (default
1e-9).  At Δx = 0 the correction term is then exactly 0 (its limit: the
numerator of the state quotient is O(|Δx|³)), the formula and its derivatives
stay finite, and no branch is needed (the CasADi .nl reader has no
if-then-else).  The identities change by at most |e| δ²/(|Δx|² + δ²), e the
numerator: about 1e-18 |∇³H| |Δx| for δ = 1e-9, far below round-off.  For
0 < |Δx| ≲ 1e-8 the numerator itself is round-off, as for any Gonzalez
gradient; the identities still hold to round-off there.  The three-point
formula is genuinely singular (not removable) only when x_{k+1} = x_{k-1} ≠ x_k.

Derivatives of H are computed once, symbolically, by CasADi from the user's
callables and replayed as Pyomo expressions (repeated subexpressions become
named ``shared_terms``), as CasADi expressions, or evaluated for floats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ConfigurationError
from ..mechanics.linalg import shared
from ..mechanics.replay import backend_of

if TYPE_CHECKING:
    from ..mechanics.hamiltonian import HamiltonianSystem

__all__ = ["GRADIENTS", "GUARD", "dnco_variant", "check_gradient", "discrete_gradient", "discrete_hessian",
           "state_residual", "costate_residual", "discrete_hamiltonian"]

#: discrete gradients of the state equations
GRADIENTS = ("gonzalez", "greenspan", "midpoint")


def dnco_variant(scheme: object) -> dict[str, str] | None:
    """The options a DNCO scheme name states, or None if it is not one: ``"dnco"`` and
    ``"direct"`` (the indirect / direct method, gradient left to the model),
    ``"dnco-<gradient>"`` and ``"direct-<gradient>"`` with ``<gradient>`` one of
    :data:`GRADIENTS` (the names ``pyomo-mbdyn run --scheme`` accepts; the registry's
    ``dnco`` record reads them, :func:`pyomo_mbdyn.discretization.registry.resolve`).

    Examples
    --------
    >>> dnco_variant("direct-midpoint"), dnco_variant("dnco"), dnco_variant("rem")
    ({'method': 'direct', 'gradient': 'midpoint'}, {'method': 'indirect'}, None)
    """
    if not isinstance(scheme, str):
        return None
    method, _, gradient = scheme.partition("-")
    method = {"dnco": "indirect", "direct": "direct"}.get(method)  # type: ignore[assignment]  # None for another name
    if method is None or (gradient and gradient not in GRADIENTS):
        return None
    return {"method": method, **({"gradient": gradient} if gradient else {})}

#: default δ of the guarded denominators Δx·Δx + δ²
GUARD = 1e-9


def _dot(a, b):
    return sum(a[i] * b[i] for i in range(len(a)))


def _scale(a, c):
    out = np.empty(len(a), dtype=object)
    for i in range(len(a)):
        out[i] = a[i] * c
    return out


def _obj(x):
    return np.asarray(x, dtype=object)


def _finish(a):
    a = np.asarray(a, dtype=object)
    return a.astype(float) if backend_of(a.ravel()) == "float" else a


def check_gradient(gradient: str, system: HamiltonianSystem) -> None:
    """Refuse an unknown discrete gradient, or ``greenspan`` for a configuration-dependent M(q).

    Raises :class:`~pyomo_mbdyn.errors.ConfigurationError` naming the choices.
    """
    if gradient not in GRADIENTS:
        raise ConfigurationError(f"unknown gradient {gradient!r}; choose one of {list(GRADIENTS)}")
    if gradient == "greenspan" and not system.constant_mass:
        raise ConfigurationError(
            f"gradient='greenspan' needs a constant mass matrix (H separable), but {system.name!r} has a "
            "configuration-dependent M(q); use gradient='gonzalez'")


def discrete_gradient(system: HamiltonianSystem, x0: np.ndarray, x1: np.ndarray, gradient: str = "gonzalez", guard: float = GUARD) -> np.ndarray:
    """∇̄H(x_0, x_1) (length 2n) for the state equations; see the module docstring.

    ``gonzalez`` and ``greenspan`` satisfy ∇̄H·(x_1 - x_0) = H(x_1) - H(x_0);
    at x_1 = x_0 every option returns ∇H(x_0).
    """
    check_gradient(gradient, system)
    n = system.n
    x0, x1 = _obj(x0), _obj(x1)
    xm = (x0 + x1) * 0.5
    if gradient == "midpoint":
        return _finish(system.gradient(xm))
    if gradient == "gonzalez":
        d = x1 - x0
        Ha = _obj(system.gradient(xm))
        e = system.hamiltonian(x1) - system.hamiltonian(x0) - _dot(Ha, d)
        return _finish(Ha + _scale(d, shared(e / (_dot(d, d) + guard**2))))
    # greenspan: Gonzalez on V(q) alone, exact midpoint for ½ pᵀM⁻¹p
    d = x1[:n] - x0[:n]
    Va = _obj(system.potential_gradient(xm[:n]))
    e = system.potential_energy(x1[:n]) - system.potential_energy(x0[:n]) - _dot(Va, d)
    gq = Va + _scale(d, shared(e / (_dot(d, d) + guard**2)))
    gp = np.array([_dot(system.inverse_mass[i], xm[n:]) for i in range(n)], dtype=object)  # type: ignore[index, type-var]  # greenspan: a constant mass (check_gradient)
    return _finish(np.concatenate([gq, gp]))


def _three_point_parts(system, x_prev, x, x_next, g_prev, g_next, gradient, guard):
    """(H_β, r, d, c) with ∇̄ₓₓH = H_β + r ⊗ d · c, c = 1/(d·d + δ²)."""
    check_gradient(gradient, system)
    n = system.n
    x_prev, x, x_next = _obj(x_prev), _obj(x), _obj(x_next)
    g_prev, g_next = _obj(g_prev), _obj(g_next)
    d = (x_next - x_prev) * 0.5
    if gradient == "greenspan":  # V-block only; the kinetic block M⁻¹ is exact
        Hb = np.zeros((2 * n, 2 * n), dtype=object)
        Hb[:n, :n] = _obj(system.potential_hessian(x[:n]))
        Hb[n:, n:] = system.inverse_mass
        dq = d[:n]
        r = np.concatenate([g_next[:n] - g_prev[:n] - Hb[:n, :n] @ dq, np.zeros(n)])
        dd = np.concatenate([dq, np.zeros(n)])
    else:
        Hb = _obj(system.hessian(x))
        r = g_next - g_prev - Hb @ d
        dd = d
    return Hb, r, dd, shared(1.0 / (_dot(dd, dd) + guard**2))


def discrete_hessian(system: HamiltonianSystem, x_prev: np.ndarray, x: np.ndarray, x_next: np.ndarray, gradient: str = "gonzalez", guard: float = GUARD) -> np.ndarray:
    """The three-point ∇̄ₓₓH(x_{k-1}, x_k, x_{k+1}) (2n × 2n, thesis Eq. 8.53 / 8.21).

    Satisfies ∇̄ₓₓH · ½(x_{k+1} - x_{k-1}) = ∇̄H(x_k, x_{k+1}) - ∇̄H(x_{k-1}, x_k).
    """
    g_prev = discrete_gradient(system, x_prev, x, gradient, guard)
    g_next = discrete_gradient(system, x, x_next, gradient, guard)
    Hb, r, d, c = _three_point_parts(system, x_prev, x, x_next, g_prev, g_next, gradient, guard)
    return _finish(Hb + np.outer(r, d) * c)


def _J_transpose(v, n):
    """𝕁ᵀ v = (-v_p, v_q)."""
    return np.concatenate([-v[n:], v[:n]])


def state_residual(system: HamiltonianSystem, x0: np.ndarray, x1: np.ndarray, u: np.ndarray, h: Any, g: np.ndarray) -> np.ndarray:
    """(x_1 - x_0)/h - 𝕁 g - (0, u) for a given discrete gradient g (length 2n)."""
    n = system.n
    x0, x1, u, g = _obj(x0), _obj(x1), _obj(u), _obj(g)
    rate = _per_step(x1 - x0, h)
    return _finish(np.concatenate([rate[:n] - g[n:], rate[n:] + g[:n] - u]))


def _per_step(a, h):
    """``a / h`` entry by entry (h a number or a free horizon's expression: Pyomo would turn a
    one-entry array divided by an expression into a scalar)."""
    return np.array([x / h for x in a], dtype=object)


def costate_residual(system: HamiltonianSystem, x_prev: np.ndarray, x: np.ndarray, x_next: np.ndarray, lam_prev: np.ndarray, lam_next: np.ndarray, h: Any, g_prev: np.ndarray, g_next: np.ndarray,
                     gradient: str = "gonzalez", guard: float = GUARD) -> np.ndarray:
    """(λ_{k,k+1} - λ_{k-1,k})/h + ½ ∇̄ₓₓHᵀ 𝕁ᵀ (λ_{k,k+1} + λ_{k-1,k}) (length 2n).

    ``g_prev``, ``g_next`` are the discrete gradients of the two intervals (the
    ones in the state equations).  Uses ∇̄ₓₓHᵀ w = H_βᵀ w + d (r·w) c.
    """
    n = system.n
    lam_prev, lam_next = _obj(lam_prev), _obj(lam_next)
    Hb, r, d, c = _three_point_parts(system, x_prev, x, x_next, g_prev, g_next, gradient, guard)
    w = _J_transpose(lam_next + lam_prev, n)
    rw = _dot(r, w)
    AT_w = np.array([_dot(Hb[:, i], w) for i in range(2 * n)], dtype=object) + _scale(d, rw * c)
    return _finish(_per_step(lam_next - lam_prev, h) + AT_w * 0.5)


def discrete_hamiltonian(system: HamiltonianSystem, u: np.ndarray, lam: np.ndarray, g: np.ndarray) -> Any:
    """H^d = -½|u|² + λ·[𝕁 g + (0, u)] on one interval (thesis Eq. 8.17 / 8.48, u the applied force)."""
    n = system.n
    u, lam, g = _obj(u), _obj(lam), _obj(g)
    f = np.concatenate([g[n:], -g[:n] + u])
    value = -0.5 * _dot(u, u) + _dot(lam, f)
    return float(value) if backend_of([value]) == "float" else value

