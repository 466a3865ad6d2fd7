r"""The DNCO block: indirect Hamiltonian-conserving method and its direct transcription.

A :class:`DNCOBlock` states, for a
:class:`~pyomo_mbdyn.mechanics.HamiltonianSystem` on the grid t_k = k h, the
state equations (``method="direct"``: the NLP min J_d = h Σ ½|u|²) or state,
costate and control equations (``method="indirect"``: the square DNCO system)
of :mod:`pyomo_mbdyn.discretization.hamiltonian`, where the equations, the
discrete gradients and the energy identities are documented (thesis §2.11).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import numpy as np
import pyomo.environ as pyo
from pyomo.common.config import Bool, ConfigValue, In

from ..discretization.hamiltonian import (GRADIENTS, GUARD, check_gradient, costate_residual,
                                          discrete_gradient, discrete_hamiltonian, state_residual)
from ..errors import ConfigurationError
from ..mechanics.hamiltonian import HamiltonianSystem
from ..mechanics.linalg import shared, sharing
from ..mechanics.numeric import check_numeric
from ..trajectory import Trajectory
from .base import SchemeBlockData
from .guesses import column_order
from .options import declare_free_horizon, declare_scheme_block, grid_config
from .structure import check_structure, expression_value

if TYPE_CHECKING:
    #: the Pyomo block component: made by declare_scheme_block when this module is imported
    import numpy.typing as npt
    import pandas as pd
    from pyomo.common.config import ConfigDict

    DNCOBlock: type[Any]

logger = logging.getLogger("pyomo_mbdyn.schemes")

__all__ = ["DNCOBlock", "DNCOBlockData", "METHODS"]

#: ``indirect``: the square DNCO; ``direct``: the NLP min J_d s.t. the state equations
METHODS = ("indirect", "direct")


# -- the Pyomo block -----------------------------------------------------------------------------
def hamiltonian_system(value: Any) -> HamiltonianSystem:
    if not isinstance(value, HamiltonianSystem):
        raise ValueError(f"expected a HamiltonianSystem, got {type(value).__name__}")
    return value


def vector(value: npt.ArrayLike) -> np.ndarray:
    check_numeric(value, "the value", "a vector of finite numbers")
    a = np.asarray(value, dtype=float)
    if a.ndim != 1:
        raise ValueError(f"expected a vector, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"expected finite numbers, got {a.tolist()}")
    return a


def guard_value(value: float) -> float:
    """δ ≥ 0, finite."""
    check_numeric(value, "the value", "a finite number ≥ 0")
    delta = float(value)
    if not (np.isfinite(delta) and delta >= 0):
        raise ValueError(f"expected a finite number ≥ 0, got {value!r}")
    return delta


def dnco_config() -> ConfigDict:
    """The options of :class:`DNCOBlock`."""
    config = declare_free_horizon(
        grid_config("dnco", system=hamiltonian_system, system_doc="The HamiltonianSystem.", min_steps=2))
    config.declare("method", ConfigValue(
        default="indirect", domain=In(METHODS),
        description="'indirect': square DNCO (state, costate, control); 'direct': min J_d s.t. state equations."))
    config.declare("gradient", ConfigValue(
        default="gonzalez", domain=In(GRADIENTS), description="Discrete gradient of the state equations."))
    for key, text in (("initial_position", "q(0)"), ("final_position", "q(T)"),
                      ("initial_momentum", "p(0) (default 0)"), ("final_momentum", "p(T) (default 0)")):
        config.declare(key, ConfigValue(default=None, domain=vector, description=f"{text}, length n."))
    config.declare("guard", ConfigValue(
        default=GUARD, domain=guard_value, description="δ in the guarded denominators Δx·Δx + δ²."))
    config.declare("check_structure", ConfigValue(
        default=True, domain=Bool,
        description="indirect: verify zero degrees of freedom and structural non-singularity after build."))
    return config


@declare_scheme_block("DNCOBlock")
class DNCOBlockData(SchemeBlockData):
    """Indirect (square DNCO) or direct transcription of a controlled Hamiltonian system.

    ``DNCOBlock(system=HamiltonianSystem(...), steps=N, horizon=T, method="indirect",
    gradient="gonzalez", initial_position=q0, final_position=qf)``; see
    :mod:`pyomo_mbdyn.schemes.dnco` for the equations.  Components:
    ``nodes``, ``intervals``, ``dofs``; ``q[k, i]``, ``p[k, i]`` (x_0, x_N
    fixed), ``u[k, i]``; ``kinematics[k, i]``, ``momentum_balance[k, i]``;
    indirect: ``lam_q[k, i]``, ``lam_p[k, i]``, ``costate_q[k, i]``,
    ``costate_p[k, i]`` (k = 1..N-1), ``control[k, i]``; ``cost`` (J_d) and
    ``objective`` (J_d for direct, 0 for the square system).

    ``scheme`` names the variant: ``dnco`` (indirect) or ``direct-<gradient>``
    (set to the name asked for by :func:`dnco_model`, e.g. ``dnco-midpoint``);
    the registry record is ``dnco``'s.

    Examples
    --------
    The mathematical pendulum ``H = p²/2 - g sin q`` taken from the horizontal
    to hanging (q: 0 → π/2) in T = 3, rest to rest, by the indirect method:

    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.mechanics import HamiltonianSystem
    >>> from pyomo_mbdyn.mechanics.linalg import elementwise
    >>> from pyomo_mbdyn.ocp import solve
    >>> from pyomo_mbdyn.schemes import DNCOBlock
    >>> pendulum = HamiltonianSystem(1, lambda q: [[1.0]], lambda q: -9.81 * elementwise("sin", q[0]),
    ...                              names=["q"], name="pendulum")
    >>> m = pyo.ConcreteModel()
    >>> m.dyn = DNCOBlock(system=pendulum, steps=4, horizon=3.0, initial_position=[0.0],
    ...                   final_position=[np.pi / 2])
    >>> str(solve(m).solver.termination_condition)
    'optimal'
    >>> tr = m.dyn.trajectory()
    >>> tr.q.ravel().round(3), sorted(tr.extras)
    (array([0.   , 1.323, 2.274, 1.804, 1.571]), ['costates', 'p'])
    """

    scheme = "dnco"
    CONFIG = dnco_config()
    required = ("system", "steps", "horizon", "initial_position", "final_position")

    def _build(self):
        config = self.config
        if config.steps < 2:
            raise ConfigurationError(f"dnco block: option 'steps' must be at least 2, got {config.steps}")
        system = self.system = config.system
        check_gradient(config.gradient, system)
        for key in ("initial_position", "final_position", "initial_momentum", "final_momentum"):
            value = config[key]
            if value is not None and value.shape != (system.n,):
                raise ConfigurationError(f"dnco block: option {key!r} must have length n = {system.n} "
                                         f"({system.names}), got {value.tolist()}")
        self.scheme = "dnco" if config.method == "indirect" else f"direct-{config.gradient}"
        if config.free_horizon is not None and config.method == "indirect":
            raise ConfigurationError(
                "dnco block: free_horizon needs method='direct' (the indirect DNCO is square for a "
                "fixed T; a free T adds the transversality condition H = 0, not stated here)")
        self._build_equations()
        if config.method == "indirect" and config.check_structure:
            self.check_structure()

    def _build_equations(self):
        config, system = self.config, self.system
        N, n = config.steps, system.n
        self._grid()
        h = self.h
        zero = np.zeros(n)
        self.x_initial = np.concatenate([config.initial_position, _pick(config.initial_momentum, zero)])
        self.x_final = np.concatenate([config.final_position, _pick(config.final_momentum, zero)])
        # 1. coordinates
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
                    self.intervals, self.dofs, rule=lambda b, k, i: b.u[k, i] - b.lam_p[k, i] == 0)
        # 6. cost J_d = h Σ ½|u|², objective (constant for the square system)
        self.cost = pyo.Expression(expr=h * 0.5 * sum(self.u[k, i] ** 2 for k in self.intervals for i in self.dofs))
        self.objective = pyo.Objective(expr=0.0 if indirect else self.cost, sense=pyo.minimize)

    # -- arrays of variables ---------------------------------------------------------------
    def x_array(self, k: int) -> np.ndarray:
        return np.array([self.q[k, i] for i in self.dofs] + [self.p[k, i] for i in self.dofs], dtype=object)

    def u_array(self, k: int) -> np.ndarray:
        return np.array([self.u[k, i] for i in self.dofs], dtype=object)

    def lam_array(self, k: int) -> np.ndarray:
        return np.array([self.lam_q[k, i] for i in self.dofs] + [self.lam_p[k, i] for i in self.dofs], dtype=object)

    def initialize_from(self, trajectory: Trajectory | None = None, *, x: npt.ArrayLike | None = None,
                        u: npt.ArrayLike | None = None, lam: npt.ArrayLike | None = None) -> None:
        """Set values from a :class:`~pyomo_mbdyn.trajectory.Trajectory` of this block's
        kind (states (q, p), controls, costates), or from arrays: ``x`` (N+1, 2n) node
        states, ``u`` (N, n), ``lam`` (N, 2n) costates.

        Fixed boundary states are left alone.  A trajectory's columns are matched by name
        (those of ``system.names``); a trajectory of another system is a
        :class:`ConfigurationError`.
        """
        if trajectory is not None:
            names = list(self.system.names)
            index = column_order(f"dnco block {self.name!r}", trajectory,
                                 {"coordinates": names, "controls": names})
            q, u, lam, p = trajectory.q, trajectory.u, trajectory.costates, trajectory.p
            if p is None:
                raise ConfigurationError(f"dnco block {self.name!r}: initialize_from: the trajectory has no "
                                         "momenta p (extras 'p'): give one of a DNCO block, or x=, u=")
            if index["coordinates"] is not None:
                cols = index["coordinates"]
                q, p = q[:, cols], np.asarray(p)[:, cols]
                if lam is not None and np.ndim(lam) == 2 and np.shape(lam)[1] == 2 * len(names):
                    lam = np.asarray(lam)[:, cols + [len(names) + c for c in cols]]
            if index["controls"] is not None:
                u = u[:, index["controls"]]
            x = np.hstack([q, p])
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
    def check_structure(self) -> tuple[int, int]:
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
    def trajectory(self) -> Trajectory:
        """The current values as a :class:`~pyomo_mbdyn.trajectory.Trajectory`: ``q``
        (N+1, n), the velocities ``v = M(q)⁻¹ p``, controls ``u`` (N, n) and interval
        rates ``nu = (q_{k+1} - q_k)/h``; extras ``p`` (N+1, n) and, for the
        indirect method, the costates ``costates`` (N, 2n) = (λ^q, λ^p)."""
        t, x, u, lam = self._values()
        n = self.system.n
        q, p = x[:, :n], x[:, n:]
        v = np.array([np.linalg.solve(np.asarray(self.system.mass_matrix(qk), float), pk) for qk, pk in zip(q, p)])
        return Trajectory.of_system(self.system, t, q, v, u, np.diff(q, axis=0) / self.step_length, self._metadata(),
                                    p=p, costates=lam)

    def _values(self):
        """``(t, x, u, lam)`` from the current values; ``lam`` is None for the direct method."""
        N = self.config.steps
        x = np.array([[pyo.value(v) for v in self.x_array(k)] for k in range(N + 1)])
        u = np.array([[pyo.value(v) for v in self.u_array(k)] for k in range(N)])
        lam = (np.array([[pyo.value(v) for v in self.lam_array(k)] for k in range(N)])
               if self.config.method == "indirect" else None)
        return self.step_length * np.arange(N + 1), x, u, lam

    def discrete_gradients(self, x: np.ndarray | None = None) -> np.ndarray:
        """∇̄H(x_k, x_{k+1}) per interval as an (N, 2n) float array."""
        x = self._values()[1] if x is None else x
        return np.array([discrete_gradient(self.system, x[k], x[k + 1], self.config.gradient, self.config.guard)
                         for k in range(len(x) - 1)])

    def diagnostics(self) -> pd.DataFrame:
        """Per node: t, T, V, H = T + V, W = -Σ u·Δq, E = T + V + W, constraint_residual.

        ``constraint_residual`` at node k is the largest |residual| of the
        equations indexed by k (state and control equations of interval
        (k, k+1), costate equations at k).
        """
        system, N = self.system, self.config.steps
        t, x, u, _ = self._values()
        n = system.n
        T = np.array([system.kinetic_energy(xk) for xk in x])
        V = np.array([system.potential_energy(xk[:n]) for xk in x])
        W = np.concatenate([[0.0], -np.cumsum(np.einsum("ki,ki->k", u, np.diff(x[:, :n], axis=0)))])
        memo: dict[Any, Any]
        residual, memo = np.zeros(N + 1), {}
        for con in self.component_data_objects(pyo.Constraint, active=True, descend_into=False):
            k = con.index()[0]
            residual[k] = max(residual[k], abs(expression_value(con.body, memo) - pyo.value(con.upper)))
        import pandas as pd  # here, not at module level: no pandas on a model build (issue 48)
        return pd.DataFrame({"t": t, "T": T, "V": V, "H": T + V, "W": W, "E": T + V + W,
                             "constraint_residual": residual}, index=pd.RangeIndex(N + 1, name="k"))

    def interval_table(self, lam: npt.ArrayLike | None = None) -> pd.DataFrame:
        """Per interval (k, k+1): midpoint time, u, λ^q, λ^p and H^d.

        ``lam`` (N, 2n) defaults to the costate variables of the indirect
        method; for the direct method pass the costates read from the duals
        (:func:`pyomo_mbdyn.ocp.costates.costates_from_duals`).
        """
        system, N = self.system, self.config.steps
        t, x, u, own = self._values()
        lam = own if lam is None else np.asarray(lam, dtype=float)
        if lam is None:
            raise ConfigurationError("dnco block: the direct method has no costate variables; pass lam= "
                                     "(pyomo_mbdyn.ocp.costates.costates_from_duals)")
        g = self.discrete_gradients(x)
        Hd = np.array([discrete_hamiltonian(system, u[k], lam[k], g[k]) for k in range(N)])
        data = {"t": t[:-1] + 0.5 * self.step_length}
        for j, name in enumerate(system.names):
            data[f"u_{name}"] = u[:, j]
        for j, name in enumerate(system.names):
            data[f"lam_q_{name}"] = lam[:, j]
        for j, name in enumerate(system.names):
            data[f"lam_p_{name}"] = lam[:, system.n + j]
        data["Hd"] = Hd
        import pandas as pd  # here, not at module level: no pandas on a model build (issue 48)
        return pd.DataFrame(data, index=pd.RangeIndex(N, name="k"))


def _pick(value, default):
    return default if value is None else value
