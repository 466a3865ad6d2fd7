r"""Discrete costates of DNCO blocks: indirect variables and direct-transcription duals (thesis §2.12).

The direct transcription of a :class:`~pyomo_mbdyn.schemes.dnco.DNCOBlock`
(``method="direct"``) minimises J_d = h Σ ½|u_{k,k+1}|² subject to the rows

    kinematics[k]:        (q_{k+1} - q_k)/h - [∇̄H]_p                  = 0,
    momentum_balance[k]:  (p_{k+1} - p_k)/h + [∇̄H]_q - u_{k,k+1}       = 0,

i.e. r_k = (x_{k+1} - x_k)/h - f̄_k with f̄ = 𝕁∇̄H + (0, u) (u the applied force).  Its KKT conditions
are the *direct* DNCO (thesis §2.1) with the costates λ_{k,k+1} of the
augmented cost J̃_d = Σ_k [h L(u_{k,k+1}) + λ_{k,k+1}·(x_{k+1} - x_k - h f̄_k)],
whose control equation is 0 = u - λ^p (∂H^d/∂u = 0, H^d = -L + λ·f̄).

**Sign and scaling, derived once.**  Pyomo's ``dual`` Suffix (IPOPT through the
AMPL interface, and ``casadi_ipopt``, which copies it) holds y with
∇J = Σ y ∇(row) at a minimum, i.e. the Lagrangian J - Σ y·r
(:mod:`pyomo_mbdyn.solvers.ampl_driver`: dual = -λ_Ipopt).  The rows above are
the thesis rows *divided by h*, so J - Σ y·r = J - Σ (y/h)·(x_{k+1} - x_k - h f̄_k),
and comparing with J̃_d:

    λ_{k,k+1} = -y_k / h      (λ^q from ``kinematics``, λ^p from ``momentum_balance``).

This is the convention of :mod:`pyomo_mbdyn.ocp.multipliers` (λ = -dual for
rows not divided by h).  Checks: stationarity in u_{k,k+1} gives
h u + y^p = 0, so u = -y^p/h = λ^p, the control equation of the indirect
method; tests assert u = λ^p from the duals to round-off and compare with the
indirect costates.

With the midpoint gradient these multipliers satisfy the trapezoidal costate
recursion (thesis Eq. 8.18/8.47); the H-conserving recursion (8.20/8.49) is
reached only by the indirect method.  Both approximate the continuous
costate at the interval midpoints t_{k+½}, so at equal N they differ by O(h²).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyomo.environ as pyo

from ..errors import ConfigurationError
from ..schemes.dnco import DNCOBlockData

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["costates_from_duals", "costates", "costate_table", "hamiltonian_drift", "dnco_summary"]


def _check_block(block):
    if not isinstance(block, DNCOBlockData):
        raise TypeError(f"expected a DNCOBlock, got {type(block).__name__}")


def costates_from_duals(block: DNCOBlockData, dual: Any | None = None) -> np.ndarray:
    """λ_{k,k+1} = -y_k/h from the duals of a solved direct DNCOBlock, shape (N, 2n).

    ``dual`` defaults to the model's imported ``dual`` Suffix.

    Examples
    --------
    The direct transcription of a pendulum problem; its optimal controls obey
    the control equation ``u = λ^p``:

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import HamiltonianSystem
    >>> from pyomo_mbdyn.mechanics.linalg import elementwise
    >>> pendulum = HamiltonianSystem(1, lambda q: [[1.0]], lambda q: -9.81 * elementwise("sin", q[0]),
    ...                              names=["q"], name="pendulum")
    >>> from pyomo_mbdyn.ocp import dnco_model, solve
    >>> m = dnco_model(pendulum, "direct-midpoint", 4, 3.0, initial_position=[0.0], final_position=[np.pi / 2])
    >>> str(solve(m).solver.termination_condition)
    'optimal'
    >>> lam = costates_from_duals(m.dyn)           # columns λ^q, λ^p
    >>> lam.shape
    (4, 2)
    >>> np.allclose(m.dyn.trajectory().u[:, 0], lam[:, 1])
    True
    """
    _check_block(block)
    if dual is None:
        dual = block.model().component("dual")
    if dual is None or not isinstance(dual, pyo.Suffix) or not dual.import_enabled():
        raise ConfigurationError("no imported dual Suffix on the model: add `m.dual = pyo.Suffix("
                                 "direction=pyo.Suffix.IMPORT)` before solving")
    rows = []
    for k in block.intervals:
        row = []
        for group in (block.kinematics, block.momentum_balance):
            for i in block.dofs:
                con = group[k, i]
                if con not in dual:
                    raise ConfigurationError(f"no dual value for {con.name}: was the model solved "
                                             "with the dual Suffix?")
                row.append(-dual[con] / block.step_length)
        rows.append(row)
    return np.array(rows, dtype=float)


def costates(block: DNCOBlockData) -> np.ndarray:
    """The block's discrete costates (N, 2n): variables (indirect) or duals (direct)."""
    _check_block(block)
    if block.config.method == "indirect":
        return block.trajectory().costates
    return costates_from_duals(block)


def costate_table(direct: DNCOBlockData, indirect: DNCOBlockData | None = None) -> pd.DataFrame:
    """Per interval: costates from the duals of ``direct`` next to those of ``indirect``.

    Columns ``t`` (interval midpoint), ``u_<i>``, ``lam_q_<i>_direct``,
    ``lam_p_<i>_direct``, ``Hd_direct`` and, with ``indirect`` (same system
    and N), ``lam_q_<i>_indirect``, ``lam_p_<i>_indirect``, ``Hd_indirect``
    and the differences ``dlam_q_<i>``, ``dlam_p_<i>`` (direct - indirect).
    """
    _check_block(direct)
    if direct.config.method != "direct":
        raise ConfigurationError("costate_table: the first block must use method='direct'")
    lam = costates_from_duals(direct)
    table = direct.interval_table(lam)
    names = list(direct.system.names)
    import pandas as pd  # here, not at module level: no pandas on a model build (issue 48)
    out = pd.DataFrame({"t": table["t"]}, index=table.index)
    for name in names:
        out[f"u_{name}"] = table[f"u_{name}"]
    for part in ("q", "p"):
        for name in names:
            out[f"lam_{part}_{name}_direct"] = table[f"lam_{part}_{name}"]
    out["Hd_direct"] = table["Hd"]
    if indirect is None:
        return out
    _check_block(indirect)
    if indirect.config.method != "indirect" or indirect.config.steps != direct.config.steps:
        raise ConfigurationError("costate_table: the second block must be an indirect DNCOBlock with the same N")
    other = indirect.interval_table()
    for part in ("q", "p"):
        for name in names:
            out[f"lam_{part}_{name}_indirect"] = other[f"lam_{part}_{name}"]
    out["Hd_indirect"] = other["Hd"]
    for part in ("q", "p"):
        for name in names:
            out[f"dlam_{part}_{name}"] = out[f"lam_{part}_{name}_direct"] - out[f"lam_{part}_{name}_indirect"]
    return out


def _drift(Hd):
    scale = np.abs(Hd).max()
    return float(np.abs(Hd - Hd[0]).max() / scale) if scale > 0 else 0.0


def hamiltonian_drift(block: DNCOBlockData) -> float:
    """max_k |H^d_{k,k+1} - H^d_{0,1}| / max_k |H^d_{k,k+1}| of a solved block."""
    return _drift(block.interval_table(costates(block))["Hd"].to_numpy())


def dnco_summary(block: DNCOBlockData) -> dict[str, float]:
    """``{"hamiltonian_drift", "hamiltonian", "objective"}`` of a solved block: the
    relative H^d drift (:func:`hamiltonian_drift`), H^d_{0,1}, and
    J_d = h Σ ½|u|² (the square system's own objective is the constant 0)."""
    Hd = block.interval_table(costates(block))["Hd"].to_numpy()
    return {"hamiltonian_drift": _drift(Hd), "hamiltonian": float(Hd[0]),
            "objective": float(pyo.value(block.cost))}
