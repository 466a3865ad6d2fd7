"""One time step of each scheme as an object: its unknowns, residuals and Newton start.

A step object tells the Newton stepper (:mod:`pyomo_mbdyn.simulate.stepper`)
everything it needs without naming the scheme: the layout of the unknowns of
one step, the residuals (the very functions the Pyomo blocks use) and a
starting point.  There are three families, by what a step carries over:

* :class:`OneStep` — (q_k, v_k) ↦ (q_{k+1}, v_{k+1}, …): BEM, REM, RATTLE;
* :class:`TwoStep` — (q_{k-1}, q_k) ↦ q_{k+1}, the first step from (q_0, v_0):
  the variational DMOCC schemes, whose node velocities come afterwards from the
  projected discrete Legendre transform;
* :class:`ChartStep` — (θ_k, ṽ_k) ↦ (θ_{k+1}, ṽ_{k+1}) in chart coordinates (GC).

``options`` are the scheme options that reach the equations
(``contravariant``, ``rotation``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from .charts import chart, chart_coordinates, chart_velocity
from .common import numeric_kinematics
from .energy_momentum import bem_residuals, rem_residuals
from .midpoint import gc_residuals
from .variational import dmocc_lm_residuals, dmocc_residuals, projected_velocity

if TYPE_CHECKING:
    import numpy.typing as npt
    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["OneStep", "TwoStep", "ChartStep", "BEM_STEP", "REM_STEP", "DMOCC_STEP", "DMOCC_LM_STEP",
           "GC_STEP", "layout"]


def layout(step: OneStep | TwoStep | ChartStep, system: ConstrainedSystem) -> tuple[list[tuple[str, slice]], int]:
    """``[(name, slice)]`` of the step's unknowns in one vector, and its length."""
    sizes = {"n": system.n, "m": system.m_active, "dof": system.n_velocities}
    out, start = [], 0
    for name, size in step.unknowns:
        out.append((name, slice(start, start + sizes[size])))
        start += sizes[size]
    return out, start


class OneStep:
    """(q_k, v_k) ↦ (q_{k+1}, v_{k+1}, …); ``residuals(system, h, q0, v0, x, u, options)``
    with ``x`` the unknowns by name."""

    #: the family's name (messages); the stepper reads the two flags below
    family = "one-step"
    #: (q_{k-1}, q_k) ↦ q_{k+1}, with a first step of its own from (q_0, v_0)
    two_step = False
    #: the state is the chart's (θ_k, ṽ_k) rather than (q_k, v_k)
    in_chart = False
    unknowns: tuple[tuple[str, str], ...] = ()

    def residuals(self, system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, x: Mapping[str, Any], u: np.ndarray, options: Mapping[str, Any]) -> dict[str, np.ndarray]:  # pragma: no cover - abstract
        raise NotImplementedError

    def guess(self, system: ConstrainedSystem, h: Any, q: np.ndarray, v: np.ndarray, previous: Mapping[str, Any] | None, options: Mapping[str, Any]) -> dict[str, Any]:
        """Newton start: a position step along v, the previous step's other unknowns."""
        x = dict(previous) if previous is not None else {}
        x["q"], x["v"] = q + h * v, v
        return x


class BEMStep(OneStep):
    unknowns = (("q", "n"), ("v", "n"), ("lam", "m"), ("nu", "dof"))

    def residuals(self, system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, x: Mapping[str, Any], u: np.ndarray, options: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return bem_residuals(system, h, q0, v0, x["q"], x["v"], x["lam"], x["nu"], u,
                             options.get("contravariant", True))


class REMStep(OneStep):
    unknowns = (("w", "dof"), ("q", "n"), ("v", "n"), ("nu", "dof"))

    def residuals(self, system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, x: Mapping[str, Any], u: np.ndarray, options: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return rem_residuals(system, h, q0, v0, x["w"], x["q"], x["v"], x["nu"], u,
                             options.get("rotation", "exp"))

    def guess(self, system: ConstrainedSystem, h: Any, q: np.ndarray, v: np.ndarray, previous: Mapping[str, Any] | None, options: Mapping[str, Any]) -> dict[str, Any]:
        x = dict(previous) if previous is not None else {}
        nu = x["nu"] if previous is not None else np.zeros(system.n_velocities)
        x["w"] = h * nu
        x["q"] = np.asarray(system.reparametrise(x["w"], q, options.get("rotation", "exp")), float)
        x["v"] = v
        return x


class TwoStep:
    """(q_{k-1}, q_k) ↦ q_{k+1}: ``first_residuals(system, h, q0, v0, x, u0, options)`` and
    ``residuals(system, h, q_prev, q, x, u_prev, u, options)``."""

    family = "two-step"
    two_step, in_chart = True, False
    unknowns: tuple[tuple[str, str], ...] = ()

    def guess(self, system: ConstrainedSystem, h: Any, q: np.ndarray, q_prev_or_v: np.ndarray, previous: Mapping[str, Any] | None, options: Mapping[str, Any], first: bool) -> dict[str, Any]:
        x = dict(previous) if previous is not None else {}
        x["q"] = q + h * q_prev_or_v if first else 2 * q - q_prev_or_v
        return x

    @staticmethod
    def node_velocities(system: ConstrainedSystem, h: Any, Q: Sequence[np.ndarray], U: Sequence[np.ndarray], v0: np.ndarray) -> np.ndarray:
        """v_0 and the projected discrete Legendre transform at k ≥ 1 (DMOCC 3.16)."""
        N = len(Q) - 1
        V = [v0] + [projected_velocity(system, h, Q[k], Q[k + 1], U[k]) for k in range(1, N)]
        V.append(projected_velocity(system, h, Q[N], None, None, Q[N - 1], U[N - 1]))
        return np.array(V)


class DMOCCLMStep(TwoStep):
    unknowns = (("q", "n"), ("lam", "m"))

    def first_residuals(self, system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, x: Mapping[str, Any], u: np.ndarray, options: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return dmocc_lm_residuals(system, h, None, q0, x["q"], x["lam"], None, u, v0=v0)

    def residuals(self, system: ConstrainedSystem, h: Any, q_prev: np.ndarray, q: np.ndarray, x: Mapping[str, Any], u_prev: np.ndarray, u: np.ndarray, options: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return dmocc_lm_residuals(system, h, q_prev, q, x["q"], x["lam"], u_prev, u)


class DMOCCStep(TwoStep):
    unknowns = (("w", "dof"), ("q", "n"))

    def first_residuals(self, system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, x: Mapping[str, Any], u: np.ndarray, options: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return dmocc_residuals(system, h, None, q0, x["w"], x["q"], None, u, v0=v0,
                               rotation=options.get("rotation", "exp"))

    def residuals(self, system: ConstrainedSystem, h: Any, q_prev: np.ndarray, q: np.ndarray, x: Mapping[str, Any], u_prev: np.ndarray, u: np.ndarray, options: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return dmocc_residuals(system, h, q_prev, q, x["w"], x["q"], u_prev, u,
                               rotation=options.get("rotation", "exp"))

    def guess(self, system: ConstrainedSystem, h: Any, q: np.ndarray, q_prev_or_v: np.ndarray, previous: Mapping[str, Any] | None, options: Mapping[str, Any], first: bool) -> dict[str, Any]:
        x = dict(previous) if previous is not None else {}
        if previous is None:
            nu = np.linalg.lstsq(numeric_kinematics(system, q, ("P_tree",))[0], q_prev_or_v, rcond=None)[0]
            x["w"] = h * nu
        x["q"] = np.asarray(system.reparametrise(x["w"], q, options.get("rotation", "exp")), float)
        return x


class ChartStep:
    """(θ_k, ṽ_k) ↦ (θ_{k+1}, ṽ_{k+1}) on the system's chart; ``residuals(system, h,
    th0, vt0, x, u, options)``."""

    family = "chart"
    two_step, in_chart = False, True
    unknowns: tuple[tuple[str, str], ...] = (("theta", "dof"), ("vt", "dof"))

    def residuals(self, system: ConstrainedSystem, h: Any, th0: np.ndarray, vt0: np.ndarray, x: Mapping[str, Any], u: np.ndarray, options: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return gc_residuals(system, h, th0, vt0, x["theta"], x["vt"], u, options.get("rotation", "exp"))

    def guess(self, system: ConstrainedSystem, h: Any, th: np.ndarray, vt: np.ndarray, previous: Mapping[str, Any] | None, options: Mapping[str, Any]) -> dict[str, Any]:
        return {"theta": th + h * vt, "vt": vt}

    @staticmethod
    def enter(system: ConstrainedSystem, q0: np.ndarray, v0: np.ndarray, options: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        """(θ_0, ṽ_0) of the initial state."""
        return chart_coordinates(system, q0, v0, options.get("rotation", "exp"))

    @staticmethod
    def leave(system: ConstrainedSystem, TH: Sequence[np.ndarray], VT: Sequence[np.ndarray], options: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(q, v, ν) of a chart trajectory: nodes through the chart, ν = B(q(θ_{k+½})) v_{k+½}."""
        rotation = options.get("rotation", "exp")
        Q = np.array([np.asarray(chart(system, t, rotation), float) for t in TH])
        V = np.array([np.asarray(chart_velocity(system, t, w, rotation)[1], float) for t, w in zip(TH, VT)])
        nu = []
        for k in range(len(TH) - 1):
            q_mid, v_mid, _ = chart_velocity(system, 0.5 * (TH[k] + TH[k + 1]), 0.5 * (VT[k] + VT[k + 1]), rotation)
            nu.append(numeric_kinematics(system, q_mid, ("B",))[0] @ np.asarray(v_mid, float))
        return Q, V, np.array(nu)


BEM_STEP, REM_STEP = BEMStep(), REMStep()
DMOCC_STEP, DMOCC_LM_STEP = DMOCCStep(), DMOCCLMStep()
GC_STEP = ChartStep()
