r"""Hamiltonian-conserving indirect method (DNCO) and its direct counterpart (thesis §2.11).

The system is a Hamiltonian system in generalised coordinates,

    H(q, p) = ½ pᵀ M(q)⁻¹ p + V(q),   x = (q, p) ∈ R²ⁿ,

controlled as q̇ = ∇_p H, ṗ = -∇_q H - u (u enters with the sign of ∇V, thesis
§0), with the control effort J = ∫ ½|u|² dt.  On the uniform grid t_k = k h,
h = T/N, with node states x_k and interval controls and costates u_{k,k+1},
λ_{k,k+1} = (λ^q, λ^p), a :class:`DNCOBlock` holds

* the **state equations** (``kinematics``, ``momentum_balance``, k = 0..N-1)

      (x_{k+1} - x_k)/h = 𝕁 ∇̄H(x_k, x_{k+1}) - (0, u_{k,k+1}),   𝕁 = [[0, I], [-I, 0]],

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
  and the **control equations** ``control``: 0 = u_{k,k+1} + λ^p_{k,k+1}.
  With x_0 and x_N fixed this is square: 2n(N-1) + 2nN + nN unknowns and
  equations.  Because ∇̄ₓₓH Δx = ∇̄H_{k,k+1} - ∇̄H_{k-1,k} by construction, the
  discrete Hamiltonian

      H^d_{k,k+1} = -½|u|² + λ_{k,k+1}·[𝕁 ∇̄H(x_k, x_{k+1}) - (0, u)]

  is the same on every interval (thesis §2.11, proof of Eq. 8.54).  The
  objective of the square system is the constant 0; ``cost`` holds J_d;
* ``method="direct"`` is the transcription min J_d = h Σ ½|u_{k,k+1}|² subject
  to the state equations (objective ``objective``); its KKT conditions are the
  *direct* DNCO, and the NLP duals of ``kinematics``/``momentum_balance`` are
  the (trapezoidal) costates: see :mod:`pyomo_mbdyn.ocp.costates`.

Energy: with the Gonzalez or Greenspan gradient H(x_{k+1}) - H(x_k) = -u·Δq
exactly, so T + V + W with the discrete work W_k = Σ_{i<k} u_{i,i+1}·(q_{i+1} - q_i)
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

import logging

import numpy as np
import pandas as pd
import pyomo.environ as pyo
from pyomo.common.config import Bool, ConfigDict, ConfigValue, In, NonNegativeFloat, PositiveFloat, PositiveInt
from pyomo.core.base.block import BlockData

from ..errors import ConfigurationError, StructuralError
from ..mechanics.linalg import elementwise, shared, sharing
from .base import declare_scheme_block

logger = logging.getLogger("pyomo_mbdyn.schemes")

__all__ = [
    "HamiltonianSystem",
    "DNCOBlock",
    "DNCOBlockData",
    "GRADIENTS",
    "METHODS",
    "discrete_gradient",
    "discrete_hessian",
    "state_residual",
    "costate_residual",
    "discrete_hamiltonian",
    "check_structure",
    "parse_scheme",
    "dnco_model",
    "expression_value",
]

#: discrete gradients of the state equations
GRADIENTS = ("gonzalez", "greenspan", "midpoint")
#: ``indirect``: the square DNCO; ``direct``: the NLP min J_d s.t. the state equations
METHODS = ("indirect", "direct")
#: default δ of the guarded denominators Δx·Δx + δ²
GUARD = 1e-9


# -- CasADi functions replayed in any backend ------------------------------------------------
def _kind(values):
    kinds = set()
    for v in values:
        if isinstance(v, (int, float, np.floating, np.integer)):
            continue
        kinds.add("casadi" if type(v).__module__.startswith("casadi") else "pyomo")
    if "casadi" in kinds and "pyomo" in kinds:
        raise TypeError("cannot mix CasADi and Pyomo expressions in one formula")
    return kinds.pop() if kinds else "float"


_UNARY = {}
_BINARY = {}


def _tables():
    import casadi as ca

    if _UNARY:
        return
    for name in ("exp", "log", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh"):
        _UNARY[getattr(ca, "OP_" + name.upper())] = lambda a, name=name: elementwise(name, a)
    _UNARY.update({ca.OP_ASSIGN: lambda a: a, ca.OP_NEG: lambda a: -a, ca.OP_SQ: lambda a: a * a,
                   ca.OP_TWICE: lambda a: 2 * a, ca.OP_INV: lambda a: 1 / a})
    _BINARY.update({ca.OP_ADD: lambda a, b: a + b, ca.OP_SUB: lambda a, b: a - b,
                    ca.OP_MUL: lambda a, b: a * b, ca.OP_DIV: lambda a, b: a / b,
                    ca.OP_POW: lambda a, b: a**b, ca.OP_CONSTPOW: lambda a, b: a**b})


def _replay(fun, args):
    """Evaluate the SX function ``fun`` on arrays of Pyomo expressions (or numbers).

    Walks CasADi's instruction list; a work value used more than once is passed
    to :func:`~pyomo_mbdyn.mechanics.linalg.shared` (a named Expression while a
    block is being built).
    """
    import casadi as ca

    _tables()
    n = fun.n_instructions()
    uses = {}
    for k in range(n):
        if fun.instruction_id(k) not in (ca.OP_CONST, ca.OP_INPUT):
            for i in fun.instruction_input(k):
                uses[i] = uses.get(i, 0) + 1
    outputs = [np.zeros(fun.nnz_out(j), dtype=object) for j in range(fun.n_out())]
    work = {}
    for k in range(n):
        op, out = fun.instruction_id(k), fun.instruction_output(k)
        ins = fun.instruction_input(k)
        if op == ca.OP_CONST:
            work[out[0]] = float(fun.instruction_constant(k))
            continue
        if op == ca.OP_INPUT:
            work[out[0]] = args[ins[0]][ins[1]]
            continue
        if op == ca.OP_OUTPUT:
            outputs[out[0]][out[1]] = work[ins[0]]
            continue
        if op in _UNARY:
            value = _UNARY[op](work[ins[0]])
        elif op in _BINARY:
            value = _BINARY[op](work[ins[0]], work[ins[1]])
        else:
            raise NotImplementedError(f"CasADi operation {op} has no Pyomo counterpart here")
        work[out[0]] = shared(value) if uses.get(out[0], 0) > 1 else value
    return outputs


class HamiltonianSystem:
    """H(q, p) = ½ pᵀ M(q)⁻¹ p + V(q) with n degrees of freedom.

    Parameters
    ----------
    n : int
        Degrees of freedom.
    mass_matrix : callable
        ``mass_matrix(q) -> (n, n)`` nested sequence; ``q`` is a numpy array
        whose entries may be floats, Pyomo expressions or CasADi symbols (use
        :func:`~pyomo_mbdyn.mechanics.linalg.elementwise` for sin/cos/sqrt).
    potential : callable
        ``potential(q) -> scalar`` in the same backends.
    names : sequence of str, optional
        Coordinate names (default ``q0, q1, …``).
    name : str
        For messages.

    The inverse M⁻¹ is the explicit cofactor formula (exact; fine for the small
    n of the thesis examples) or a numeric inverse when M is constant.  ∇H and
    ∇ₓₓH are CasADi's symbolic derivatives.  Methods take arrays of any
    backend and return the same backend.

    Examples
    --------
    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics.linalg import elementwise
    >>> pendulum = HamiltonianSystem(1, lambda q: [[1.0]], lambda q: -9.81 * elementwise("sin", q[0]))
    >>> float(pendulum.hamiltonian(np.array([0.0, 2.0])))
    2.0
    """

    def __init__(self, n, mass_matrix, potential, names=None, name="system"):
        import casadi as ca

        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise ConfigurationError(f"HamiltonianSystem {name!r}: n must be a positive int, got {n!r}")
        for label, fn in (("mass_matrix", mass_matrix), ("potential", potential)):
            if not callable(fn):
                raise TypeError(f"HamiltonianSystem {name!r}: {label} must be callable, got {type(fn).__name__}")
        names = [f"q{i}" for i in range(n)] if names is None else [str(s) for s in names]
        if len(names) != n or len(set(names)) != n:
            raise ConfigurationError(f"HamiltonianSystem {name!r}: need {n} distinct names, got {names}")
        self.n, self.names, self.name = int(n), names, name
        self._mass_matrix, self._potential = mass_matrix, potential
        q, p = ca.SX.sym("q", n), ca.SX.sym("p", n)
        qa = np.array([q[i] for i in range(n)], dtype=object)
        M = np.asarray(mass_matrix(qa), dtype=object)
        if M.shape != (n, n):
            raise ConfigurationError(f"HamiltonianSystem {name!r}: mass_matrix(q) has shape {M.shape}, "
                                     f"expected ({n}, {n})")
        M = ca.SX(ca.vertcat(*[ca.horzcat(*[ca.SX(e) for e in row]) for row in M]))
        self.constant_mass = not ca.depends_on(M, q)
        self._check_mass(ca.Function("M", [q], [M]))
        if self.constant_mass:
            self.mass = np.array(ca.evalf(M), dtype=float).reshape(n, n)
            self.inverse_mass = np.linalg.inv(self.mass)
            Minv = ca.SX(ca.DM(self.inverse_mass))
        else:
            self.mass = self.inverse_mass = None
            Minv = ca.inv_minor(M)
        V = ca.SX(potential(qa))
        if V.numel() != 1:
            raise ConfigurationError(f"HamiltonianSystem {name!r}: potential(q) must be a scalar")
        x = ca.vertcat(q, p)
        H = 0.5 * ca.dot(p, ca.mtimes(Minv, p)) + V

        def function(label, inputs, expr):
            return ca.Function(label, inputs, [ca.cse(ca.densify(expr))], {"live_variables": False})

        self._f = {
            "H": function("H", [x], H),
            "dH": function("dH", [x], ca.gradient(H, x)),
            "d2H": function("d2H", [x], ca.hessian(H, x)[0]),
            "T": function("T", [x], H - V),
            "V": function("V", [q], V),
            "dV": function("dV", [q], ca.gradient(V, q)),
            "d2V": function("d2V", [q], ca.hessian(V, q)[0]),
        }

    def _check_mass(self, M):
        rng = np.random.default_rng(0)
        for q in [np.zeros(self.n)] + [rng.uniform(-1, 1, self.n) for _ in range(2)]:
            Mq = np.array(M(q), dtype=float)
            if not np.all(np.isfinite(Mq)) or np.abs(Mq - Mq.T).max() > 1e-12 * max(1.0, np.abs(Mq).max()):
                raise ConfigurationError(f"HamiltonianSystem {self.name!r}: M(q) is not symmetric at q = {q}")
            if np.linalg.eigvalsh(Mq).min() <= 0:
                raise ConfigurationError(f"HamiltonianSystem {self.name!r}: M(q) is not positive definite "
                                         f"at q = {q} (eigenvalues {np.linalg.eigvalsh(Mq)})")

    def __repr__(self):
        return f"HamiltonianSystem({self.name!r}, n={self.n}, names={self.names})"

    # -- evaluation in any backend ---------------------------------------------------------
    def _call(self, label, arg, shape):
        fun = self._f[label]
        arg = np.asarray(arg, dtype=object).ravel()
        kind = _kind(arg)
        if kind == "float":
            out = np.array(fun(arg.astype(float)), dtype=float)
            return out.reshape(shape) if shape else float(out.ravel()[0])
        if kind == "casadi":
            import casadi as ca

            res = fun(ca.vertcat(*arg))
            flat = [res[j] for j in range(res.numel())]  # column-major nonzeros
        else:
            flat = list(_replay(fun, [arg])[0])
        if not shape:
            return flat[0]
        out = np.empty(shape, dtype=object)
        for j, value in enumerate(flat):
            out[np.unravel_index(j, shape, order="F")] = value
        return out

    def hamiltonian(self, x):
        """H(x), x = (q, p)."""
        return self._call("H", x, ())

    def gradient(self, x):
        """∇H(x) (length 2n)."""
        return self._call("dH", x, (2 * self.n,))

    def hessian(self, x):
        """∇ₓₓH(x) (2n × 2n)."""
        return self._call("d2H", x, (2 * self.n, 2 * self.n))

    def kinetic_energy(self, x):
        """T = ½ pᵀ M(q)⁻¹ p."""
        return self._call("T", x, ())

    def potential_energy(self, q):
        return self._call("V", q, ())

    def potential_gradient(self, q):
        return self._call("dV", q, (self.n,))

    def potential_hessian(self, q):
        return self._call("d2V", q, (self.n, self.n))

    def mass_matrix(self, q):
        """M(q) from the user's callable (any backend)."""
        return np.asarray(self._mass_matrix(np.asarray(q, dtype=object)), dtype=object)


# -- the formulas, written once over arrays of any backend ------------------------------------
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
    return a.astype(float) if _kind(a.ravel()) == "float" else a


def _check_gradient(gradient, system):
    if gradient not in GRADIENTS:
        raise ConfigurationError(f"unknown gradient {gradient!r}; choose one of {list(GRADIENTS)}")
    if gradient == "greenspan" and not system.constant_mass:
        raise ConfigurationError(
            f"gradient='greenspan' needs a constant mass matrix (H separable), but {system.name!r} has a "
            "configuration-dependent M(q); use gradient='gonzalez'")


def discrete_gradient(system, x0, x1, gradient="gonzalez", guard=GUARD):
    """∇̄H(x_0, x_1) (length 2n) for the state equations; see the module docstring.

    ``gonzalez`` and ``greenspan`` satisfy ∇̄H·(x_1 - x_0) = H(x_1) - H(x_0);
    at x_1 = x_0 every option returns ∇H(x_0).
    """
    _check_gradient(gradient, system)
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
    gp = np.array([_dot(system.inverse_mass[i], xm[n:]) for i in range(n)], dtype=object)
    return _finish(np.concatenate([gq, gp]))


def _three_point_parts(system, x_prev, x, x_next, g_prev, g_next, gradient, guard):
    """(H_β, r, d, c) with ∇̄ₓₓH = H_β + r ⊗ d · c, c = 1/(d·d + δ²)."""
    _check_gradient(gradient, system)
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


def discrete_hessian(system, x_prev, x, x_next, gradient="gonzalez", guard=GUARD):
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


def state_residual(system, x0, x1, u, h, g):
    """(x_1 - x_0)/h - 𝕁 g + (0, u) for a given discrete gradient g (length 2n)."""
    n = system.n
    x0, x1, u, g = _obj(x0), _obj(x1), _obj(u), _obj(g)
    return _finish(np.concatenate([(x1[:n] - x0[:n]) / h - g[n:], (x1[n:] - x0[n:]) / h + g[:n] + u]))


def costate_residual(system, x_prev, x, x_next, lam_prev, lam_next, h, g_prev, g_next,
                     gradient="gonzalez", guard=GUARD):
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
    return _finish((lam_next - lam_prev) / h + AT_w * 0.5)


def discrete_hamiltonian(system, u, lam, g):
    """H^d = -½|u|² + λ·[𝕁 g - (0, u)] on one interval (thesis Eq. 8.17 / 8.48)."""
    n = system.n
    u, lam, g = _obj(u), _obj(lam), _obj(g)
    f = np.concatenate([g[n:], -g[:n] - u])
    value = -0.5 * _dot(u, u) + _dot(lam, f)
    return float(value) if _kind([value]) == "float" else value


# -- the Pyomo block -----------------------------------------------------------------------------
def _system(value):
    if not isinstance(value, HamiltonianSystem):
        raise ValueError(f"expected a HamiltonianSystem, got {type(value).__name__}")
    return value


def _vector(value):
    a = np.asarray(value, dtype=float)
    if a.ndim != 1:
        raise ValueError(f"expected a vector, got shape {a.shape}")
    return a


def dnco_config():
    """The options of :class:`DNCOBlock`."""
    config = ConfigDict("dnco", implicit=False)
    config.declare("system", ConfigValue(domain=_system, description="The HamiltonianSystem."))
    config.declare("steps", ConfigValue(domain=PositiveInt, description="Number of time steps N (≥ 2)."))
    config.declare("horizon", ConfigValue(domain=PositiveFloat, description="Final time T > 0."))
    config.declare("method", ConfigValue(
        default="indirect", domain=In(METHODS),
        description="'indirect': square DNCO (state, costate, control); 'direct': min J_d s.t. state equations."))
    config.declare("gradient", ConfigValue(
        default="gonzalez", domain=In(GRADIENTS), description="Discrete gradient of the state equations."))
    for key, text in (("initial_position", "q(0)"), ("final_position", "q(T)"),
                      ("initial_momentum", "p(0) (default 0)"), ("final_momentum", "p(T) (default 0)")):
        config.declare(key, ConfigValue(default=None, domain=_vector, description=f"{text}, length n."))
    config.declare("guard", ConfigValue(
        default=GUARD, domain=NonNegativeFloat, description="δ in the guarded denominators Δx·Δx + δ²."))
    config.declare("check_structure", ConfigValue(
        default=True, domain=Bool,
        description="indirect: verify zero degrees of freedom and structural non-singularity after build."))
    return config


@declare_scheme_block("DNCOBlock")
class DNCOBlockData(BlockData):
    """Indirect (square DNCO) or direct transcription of a controlled Hamiltonian system.

    ``DNCOBlock(system=HamiltonianSystem(...), steps=N, horizon=T, method="indirect",
    gradient="gonzalez", initial_position=q0, final_position=qf)``; see
    :mod:`pyomo_mbdyn.schemes.dnco` for the equations.  Components:
    ``nodes``, ``intervals``, ``dofs``; ``q[k, i]``, ``p[k, i]`` (x_0, x_N
    fixed), ``u[k, i]``; ``kinematics[k, i]``, ``momentum_balance[k, i]``;
    indirect: ``lam_q[k, i]``, ``lam_p[k, i]``, ``costate_q[k, i]``,
    ``costate_p[k, i]`` (k = 1..N-1), ``control[k, i]``; ``cost`` (J_d) and
    ``objective`` (J_d for direct, 0 for the square system).
    """

    CONFIG = dnco_config()

    def build(self, **options):
        try:
            self.config = config = self.CONFIG(options)
        except (ValueError, TypeError) as err:
            raise ConfigurationError(f"dnco block: {err}") from None
        for required in ("system", "steps", "horizon", "initial_position", "final_position"):
            if config[required] is None:
                raise ConfigurationError(f"dnco block: option {required!r} is required")
        if config.steps < 2:
            raise ConfigurationError(f"dnco block: option 'steps' must be at least 2, got {config.steps}")
        system = self.system = config.system
        _check_gradient(config.gradient, system)
        for key in ("initial_position", "final_position", "initial_momentum", "final_momentum"):
            value = config[key]
            if value is not None and value.shape != (system.n,):
                raise ConfigurationError(f"dnco block: option {key!r} must have length n = {system.n} "
                                         f"({system.names}), got {value.tolist()}")
        self.scheme = "dnco" if config.method == "indirect" else f"direct-{config.gradient}"
        try:
            self._build()
        except Exception:
            logger.exception("Failure in build of dnco block %s", self.name)
            raise
        if config.method == "indirect" and config.check_structure:
            self.check_structure()

    def _build(self):
        config, system = self.config, self.system
        N, n = config.steps, system.n
        self.h = h = config.horizon / N
        zero = np.zeros(n)
        self.x_initial = np.concatenate([config.initial_position, _pick(config.initial_momentum, zero)])
        self.x_final = np.concatenate([config.final_position, _pick(config.final_momentum, zero)])
        # 1. time grid and coordinates
        self.nodes = pyo.RangeSet(0, N)
        self.intervals = pyo.RangeSet(0, N - 1)
        self.interior = pyo.RangeSet(1, N - 1)
        self.dofs = pyo.Set(initialize=system.names, ordered=True)
        # 2. node states (boundary states fixed), interval controls; start: the straight line
        self.q = pyo.Var(self.nodes, self.dofs)
        self.p = pyo.Var(self.nodes, self.dofs)
        self.u = pyo.Var(self.intervals, self.dofs, initialize=0.0)
        self.initialize_from(x=[self.x_initial + (self.x_final - self.x_initial) * k / N for k in range(N + 1)])
        for i, name in enumerate(system.names):
            for k, x in ((0, self.x_initial), (N, self.x_final)):
                self.q[k, name].fix(x[i])
                self.p[k, name].fix(x[n + i])
        indirect = config.method == "indirect"
        if indirect:
            self.lam_q = pyo.Var(self.intervals, self.dofs, initialize=0.0)
            self.lam_p = pyo.Var(self.intervals, self.dofs, initialize=0.0)
        # 3. discrete gradients per interval; repeated subexpressions become named Expressions
        self.shared_terms = pyo.Expression(pyo.Any)
        idx = {name: i for i, name in enumerate(system.names)}
        with sharing(self._share):
            X = [self.x_array(k) for k in range(N + 1)]
            G = [discrete_gradient(system, X[k], X[k + 1], config.gradient, config.guard) for k in range(N)]
            G = [np.array([shared(g) for g in gk], dtype=object) for gk in G]
            R = [state_residual(system, X[k], X[k + 1], self.u_array(k), h, G[k]) for k in range(N)]
            # 4. state equations
            self.kinematics = pyo.Constraint(self.intervals, self.dofs, rule=lambda b, k, i: R[k][idx[i]] == 0)
            self.momentum_balance = pyo.Constraint(
                self.intervals, self.dofs, rule=lambda b, k, i: R[k][n + idx[i]] == 0)
            # 5. indirect: costate and control equations
            if indirect:
                L = [self.lam_array(k) for k in range(N)]
                C = {k: costate_residual(system, X[k - 1], X[k], X[k + 1], L[k - 1], L[k], h, G[k - 1], G[k],
                                         config.gradient, config.guard) for k in range(1, N)}
                self.costate_q = pyo.Constraint(self.interior, self.dofs, rule=lambda b, k, i: C[k][idx[i]] == 0)
                self.costate_p = pyo.Constraint(
                    self.interior, self.dofs, rule=lambda b, k, i: C[k][n + idx[i]] == 0)
                self.control = pyo.Constraint(
                    self.intervals, self.dofs, rule=lambda b, k, i: b.u[k, i] + b.lam_p[k, i] == 0)
        # 6. cost J_d = h Σ ½|u|², objective (constant for the square system)
        self.cost = pyo.Expression(expr=h * 0.5 * sum(self.u[k, i] ** 2 for k in self.intervals for i in self.dofs))
        self.objective = pyo.Objective(expr=0.0 if indirect else self.cost, sense=pyo.minimize)

    def _share(self, expr):
        k = len(self.shared_terms)
        self.shared_terms[k] = expr
        return self.shared_terms[k]

    # -- arrays of variables ---------------------------------------------------------------
    def x_array(self, k):
        return np.array([self.q[k, i] for i in self.dofs] + [self.p[k, i] for i in self.dofs], dtype=object)

    def u_array(self, k):
        return np.array([self.u[k, i] for i in self.dofs], dtype=object)

    def lam_array(self, k):
        return np.array([self.lam_q[k, i] for i in self.dofs] + [self.lam_p[k, i] for i in self.dofs], dtype=object)

    def initialize_from(self, x=None, u=None, lam=None):
        """Set values: ``x`` (N+1, 2n) node states, ``u`` (N, n), ``lam`` (N, 2n) costates.

        Fixed boundary states are left alone.
        """
        N, names = self.config.steps, self.system.names
        for label, data, shape in (("x", x, (N + 1, 2 * len(names))), ("u", u, (N, len(names))),
                                   ("lam", lam, (N, 2 * len(names)))):
            if data is None:
                continue
            data = np.asarray(data, dtype=float)
            if data.shape != shape:
                raise ConfigurationError(f"dnco block: {label} must have shape {shape}, got {data.shape}")
            for k in range(shape[0]):
                if label == "x":
                    for var, value in zip(self.x_array(k), data[k]):
                        if not var.fixed:
                            var.set_value(value)
                elif label == "u":
                    for var, value in zip(self.u_array(k), data[k]):
                        var.set_value(value)
                else:
                    for var, value in zip(self.lam_array(k), data[k]):
                        var.set_value(value)

    # -- structural check --------------------------------------------------------------------
    def check_structure(self):
        """Zero degrees of freedom and a perfect matching; raise :class:`StructuralError` otherwise.

        Returns ``(n_variables, n_equations)``.  The message also lists the
        boundary states x_0, x_N that are not fixed.
        """
        N = self.config.steps
        free = [v.name for k in (0, N) for v in self.x_array(k) if not v.fixed]
        notes = [f"boundary states not fixed: {', '.join(free)}"] if free else []
        if self.config.method == "indirect":
            notes.append("the indirect DNCO is square only with x_0 and x_N fully prescribed (fixed)")
        else:
            notes.append("the direct transcription has n(N - 2) degrees of freedom (an NLP, not a square system)")
        return check_structure(self, notes)

    # -- results ----------------------------------------------------------------------------
    def arrays(self):
        """``(t, x, u, lam)`` from the current values; ``lam`` is None for the direct method."""
        N = self.config.steps
        x = np.array([[pyo.value(v) for v in self.x_array(k)] for k in range(N + 1)])
        u = np.array([[pyo.value(v) for v in self.u_array(k)] for k in range(N)])
        lam = (np.array([[pyo.value(v) for v in self.lam_array(k)] for k in range(N)])
               if self.config.method == "indirect" else None)
        return self.h * np.arange(N + 1), x, u, lam

    def discrete_gradients(self, x=None):
        """∇̄H(x_k, x_{k+1}) per interval as an (N, 2n) float array."""
        x = self.arrays()[1] if x is None else x
        return np.array([discrete_gradient(self.system, x[k], x[k + 1], self.config.gradient, self.config.guard)
                         for k in range(len(x) - 1)])

    def diagnostics(self):
        """Per node: t, T, V, H = T + V, W = Σ u·Δq, E = T + V + W, constraint_residual.

        ``constraint_residual`` at node k is the largest |residual| of the
        equations indexed by k (state and control equations of interval
        (k, k+1), costate equations at k).
        """
        system, N = self.system, self.config.steps
        t, x, u, _ = self.arrays()
        n = system.n
        T = np.array([system.kinetic_energy(xk) for xk in x])
        V = np.array([system.potential_energy(xk[:n]) for xk in x])
        W = np.concatenate([[0.0], np.cumsum(np.einsum("ki,ki->k", u, np.diff(x[:, :n], axis=0)))])
        residual, memo = np.zeros(N + 1), {}
        for con in self.component_data_objects(pyo.Constraint, active=True, descend_into=False):
            k = con.index()[0]
            residual[k] = max(residual[k], abs(expression_value(con.body, memo) - pyo.value(con.upper)))
        return pd.DataFrame({"t": t, "T": T, "V": V, "H": T + V, "W": W, "E": T + V + W,
                             "constraint_residual": residual}, index=pd.RangeIndex(N + 1, name="k"))

    def interval_table(self, lam=None):
        """Per interval (k, k+1): midpoint time, u, λ^q, λ^p and H^d.

        ``lam`` (N, 2n) defaults to the costate variables of the indirect
        method; for the direct method pass the costates read from the duals
        (:func:`pyomo_mbdyn.ocp.costates.costates_from_duals`).
        """
        system, N = self.system, self.config.steps
        t, x, u, own = self.arrays()
        lam = own if lam is None else np.asarray(lam, dtype=float)
        if lam is None:
            raise ConfigurationError("dnco block: the direct method has no costate variables; pass lam= "
                                     "(pyomo_mbdyn.ocp.costates.costates_from_duals)")
        g = self.discrete_gradients(x)
        Hd = np.array([discrete_hamiltonian(system, u[k], lam[k], g[k]) for k in range(N)])
        data = {"t": t[:-1] + 0.5 * self.h}
        for j, name in enumerate(system.names):
            data[f"u_{name}"] = u[:, j]
        for j, name in enumerate(system.names):
            data[f"lam_q_{name}"] = lam[:, j]
        for j, name in enumerate(system.names):
            data[f"lam_p_{name}"] = lam[:, system.n + j]
        data["Hd"] = Hd
        return pd.DataFrame(data, index=pd.RangeIndex(N, name="k"))


def _pick(value, default):
    return default if value is None else value


def expression_value(expr, memo=None):
    """The value of a Pyomo expression, each named Expression evaluated once (``memo``).

    ``pyo.value`` walks shared named Expressions as a tree, which is
    exponential in the nesting depth of the replayed CasADi graphs.
    """
    memo = {} if memo is None else memo
    if isinstance(expr, (int, float)):
        return expr
    if expr.is_named_expression_type():
        key = id(expr)
        if key not in memo:
            memo[key] = expression_value(expr.expr, memo)
        return memo[key]
    if expr.is_expression_type():
        return expr._apply_operation([expression_value(a, memo) for a in expr.args])
    return pyo.value(expr)


def _incident_variables(expr, memo):
    """Unfixed variables of ``expr`` (id → var); named Expressions are walked once (``memo``)."""
    found, stack = {}, [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, (int, float)):
            continue
        if e.is_variable_type():
            if not e.fixed:
                found[id(e)] = e
        elif e.is_named_expression_type():
            key = id(e)
            if key not in memo:
                memo[key] = _incident_variables(e.expr, memo)
            found.update(memo[key])
        elif e.is_expression_type():
            stack.extend(e.args)
    return found


def check_structure(block, notes=()):
    """Check that the active equalities of ``block`` in its free variables form a
    square, structurally non-singular system.

    The incidence is collected with each named Expression walked once (the
    DNCO equations share many), and handed to
    :class:`pyomo.contrib.incidence_analysis.IncidenceGraphInterface`, whose
    Dulmage–Mendelsohn partition gives the unmatched variables and equations.
    Raises :class:`~pyomo_mbdyn.errors.StructuralError` naming them (followed
    by ``notes``); returns ``(n_variables, n_equations)``.
    """
    import networkx as nx
    from pyomo.contrib.incidence_analysis import IncidenceGraphInterface

    constraints = [c for c in block.component_data_objects(pyo.Constraint, active=True, descend_into=True)
                   if c.equality]
    memo, incidence, variables, column = {}, [], [], {}
    for con in constraints:
        row = _incident_variables(con.body, memo)
        for key, var in row.items():
            if key not in column:
                column[key] = len(variables)
                variables.append(var)
        incidence.append([column[key] for key in row])
    M = len(constraints)
    graph = nx.Graph()
    graph.add_nodes_from(range(M), bipartite=0)
    graph.add_nodes_from(range(M, M + len(variables)), bipartite=1)
    graph.add_edges_from((i, M + j) for i, row in enumerate(incidence) for j in row)
    igraph = IncidenceGraphInterface((graph, variables, constraints))
    var_dm, con_dm = igraph.dulmage_mendelsohn()
    if len(variables) == M and not var_dm.unmatched and not con_dm.unmatched:
        return len(variables), M

    def names(items, limit=12):
        listed = [c.name for c in items[:limit]]
        return ", ".join(listed) + (f", … ({len(items)} in all)" if len(items) > limit else "")

    parts = [f"{block.name}: {len(variables)} unknowns, {M} equations "
             f"({len(variables) - M} degrees of freedom)"]
    if var_dm.unmatched:
        parts.append(f"unmatched variables: {names(var_dm.unmatched)}")
    if con_dm.unmatched:
        parts.append(f"unmatched equations: {names(con_dm.unmatched)}")
    if var_dm.underconstrained:
        parts.append(f"underconstrained variables: {names(var_dm.underconstrained)}")
    if con_dm.overconstrained:
        parts.append(f"overconstrained equations: {names(con_dm.overconstrained)}")
    parts += list(notes)
    raise StructuralError("; ".join(parts))


def parse_scheme(scheme, default_gradient="gonzalez"):
    """``"dnco"`` → (indirect, default gradient); ``"dnco-<gradient>"``, ``"direct-<gradient>"``."""
    if scheme == "dnco":
        return "indirect", default_gradient
    method, _, gradient = str(scheme).partition("-")
    if method in ("dnco", "direct") and gradient in GRADIENTS:
        return ("indirect" if method == "dnco" else "direct"), gradient
    choices = ["dnco"] + [f"{m}-{g}" for m in ("dnco", "direct") for g in GRADIENTS]
    raise ConfigurationError(f"unknown DNCO scheme {scheme!r}; choose one of {choices}")


def dnco_model(system, scheme, steps, horizon, name=None, default_gradient="gonzalez", **options):
    """A ConcreteModel with ``m.dyn`` (a :class:`DNCOBlock`) and, for the direct
    method, an imported ``m.dual`` Suffix (the costates, :mod:`pyomo_mbdyn.ocp.costates`).

    ``scheme`` as in :func:`parse_scheme`; the block's ``scheme`` attribute is
    set to it.
    """
    method, gradient = parse_scheme(scheme, default_gradient)
    m = pyo.ConcreteModel(name or system.name)
    m.dyn = DNCOBlock(system=system, steps=steps, horizon=horizon, method=method, gradient=gradient, **options)
    m.dyn.scheme = scheme
    if method == "direct":
        m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    return m
