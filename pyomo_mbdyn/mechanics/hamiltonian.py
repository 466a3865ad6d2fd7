"""Controlled Hamiltonian systems in generalised coordinates (thesis §2.11).

``H(q, p) = ½ pᵀ M(q)⁻¹ p + V(q)``, given by the user's callables for M(q)
and V(q); derivatives are CasADi's, computed once and replayed in any backend
(:mod:`.replay`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from ..errors import ConfigurationError
from .protocol import System
from .replay import backend_of, replay

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["HamiltonianSystem"]


class HamiltonianSystem(System):
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

    Notes
    -----
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

    def __init__(self, n: int, mass_matrix: Callable[[np.ndarray], Any], potential: Callable[[np.ndarray], Any], names: Sequence[str] | None = None, name: str = "system") -> None:
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
        M: Any = np.asarray(mass_matrix(qa), dtype=object)
        if M.shape != (n, n):
            raise ConfigurationError(f"HamiltonianSystem {name!r}: mass_matrix(q) has shape {M.shape}, "
                                     f"expected ({n}, {n})")
        M = ca.SX(ca.vertcat(*[ca.horzcat(*[ca.SX(e) for e in row]) for row in M]))
        self.constant_mass = not ca.depends_on(M, q)
        self._check_mass(ca.Function("M", [q], [M]))
        self.mass: np.ndarray | None
        self.inverse_mass: np.ndarray | None
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
        kind = backend_of(arg)
        if kind == "float":
            out = np.array(fun(arg.astype(float)), dtype=float)
            return out.reshape(shape) if shape else float(out.ravel()[0])
        if kind == "casadi":
            import casadi as ca

            res = fun(ca.vertcat(*arg))
            flat = [res[j] for j in range(res.numel())]  # column-major nonzeros
        else:
            flat = list(replay(fun, [arg])[0])
        if not shape:
            return flat[0]
        out = np.empty(shape, dtype=object)
        for j, value in enumerate(flat):
            out[np.unravel_index(j, shape, order="F")] = value
        return out

    def hamiltonian(self, x: npt.ArrayLike) -> Any:
        """H(x), x = (q, p)."""
        return self._call("H", x, ())

    def gradient(self, x: npt.ArrayLike) -> np.ndarray:
        """∇H(x) (length 2n)."""
        return self._call("dH", x, (2 * self.n,))

    def hessian(self, x: npt.ArrayLike) -> np.ndarray:
        """∇ₓₓH(x) (2n × 2n)."""
        return self._call("d2H", x, (2 * self.n, 2 * self.n))

    def kinetic_energy(self, x: npt.ArrayLike) -> Any:
        """T = ½ pᵀ M(q)⁻¹ p."""
        return self._call("T", x, ())

    def potential_energy(self, q: npt.ArrayLike) -> Any:
        return self._call("V", q, ())

    def potential_gradient(self, q: npt.ArrayLike) -> np.ndarray:
        return self._call("dV", q, (self.n,))

    def potential_hessian(self, q: npt.ArrayLike) -> np.ndarray:
        return self._call("d2V", q, (self.n, self.n))

    def mass_matrix(self, q: npt.ArrayLike) -> np.ndarray:
        """M(q) from the user's callable (any backend)."""
        return np.asarray(self._mass_matrix(np.asarray(q, dtype=object)), dtype=object)

