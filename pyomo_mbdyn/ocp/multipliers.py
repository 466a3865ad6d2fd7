"""Multipliers of a solved direct transcription, read from Pyomo's ``dual`` Suffix.

**Sign convention (the one used everywhere in pyomo_mbdyn).**  The multipliers
``λ`` returned here are those of the Lagrangian

    𝓛 = J + Σ_rows λ · g,

with every row ``g`` written exactly as the scheme block states it
(``g == 0``; e.g. the BEM momentum row ``M(v_{k+1} - v_k) + h[Gᵀγ + Bᵀ(Kν - u)
+ ∇V]``).  Pyomo's ``dual`` Suffix, filled by IPOPT through the AMPL
interface (and by ``casadi_ipopt``, which copies that interface), reports
``∂J/∂b`` — for a minimisation that is ``-λ``.  So ``λ = -dual``.

With this convention the control equation of the discrete necessary
conditions (thesis §2.12, Eqs. 7.19–7.22) reads, for the objective
``J = h Σ ½|u|²`` (weights ½),

    REM:  u_{k,k+1} = λ^{p,REM}_{k,k+1}
    BEM:  u_{k,k+1} = B(q♯_{k+½}) λ^{p,BEM}_{k,k+1}        (actuated rows)

(u the applied force; the thesis, whose u is minus it, prints them with a minus sign)

and the multipliers of the two formulations are related by

    λ^{p,REM} = B(q♯_{k+½}) λ^{p,BEM},      λ^{p,BEM} = P(q_{k+½}) λ^{p,REM},
    G(q_{k+½}) λ^{p,BEM} = 0.

For another weighting ``J = h Σ w_a u_a²`` the control equation scales by
``1/(2 w_a)``; :func:`controls_from_multipliers` reads the weights from the
effort objective the OCP built (``ocp.effort_weights``).

DMOCC (``dmocc``, ``dmocc_lm``) has no momentum multipliers: its rows are the
forced discrete Euler–Lagrange equations in configurations only, whose
multipliers are the adjoints of a two-step recursion; asking for them is a
``ConfigurationError`` that says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

import numpy as np
import numpy.typing as npt
import pyomo.environ as pyo

from ..errors import ConfigurationError

if TYPE_CHECKING:
    from ..schemes.base import MultibodyBlockData

__all__ = ["momentum_multipliers", "controls_from_multipliers", "rem_from_bem",
           "bem_from_rem"]


def _dual_suffix(dyn):
    model = dyn.model()
    dual = model.component("dual")
    if dual is None or not isinstance(dual, pyo.Suffix) or not dual.import_enabled():
        raise ConfigurationError(
            "no imported dual Suffix on the model: add `m.dual = pyo.Suffix(direction="
            "pyo.Suffix.IMPORT)` before solving")
    return dual


def _value(dual, con):
    if con not in dual:
        raise ConfigurationError(f"no dual value for {con.name}: was the model solved with the Suffix?")
    return -dual[con]


def _multiplier_map(dyn):
    """The record's ``multipliers`` entry, or a clear error naming the schemes that have one."""
    from ..discretization.registry import SCHEMES

    form = dyn.record.multipliers
    if form is None:
        have = [name for name, rec in SCHEMES.items() if rec.multipliers]
        why = dyn.record.no_multipliers_because
        reason = f" ({why})" if why else ""
        raise ConfigurationError(f"momentum multipliers are defined for {have}, not {dyn.scheme!r}{reason}")
    return form


def momentum_multipliers(dyn: MultibodyBlockData) -> np.ndarray:
    """λ^p per interval: (N, n) where the record's ``multipliers`` is ``"redundant"``
    (bem: one per coordinate, rows ``body[b].momentum_balance[k, c]``), (N, dof)
    where it is ``"reduced"`` or ``"chart"`` (rem, gc: rows
    ``momentum_balance[k, j]``), with the sign convention of the module docstring.
    """
    _multiplier_map(dyn)
    dual = _dual_suffix(dyn)
    for row in dyn.momentum_rows(0):
        _value(dual, row)  # a clear error when the model was not solved with the Suffix
    return dyn.momentum_multiplier_values(dual)


def _midpoints(dyn):
    """q_{k+½} of every interval (N, n), from one evaluation of the node values."""
    q = dyn.configuration_values()
    return 0.5 * (q[:-1] + q[1:])


def _dual_to_null_space(dyn):
    return dyn.system.inputs_dual_to_null_space


def rem_from_bem(dyn: MultibodyBlockData, lam_bem: npt.ArrayLike) -> np.ndarray:
    """``λ^{p,REM}_{k,k+1}`` from ``λ^{p,BEM}_{k,k+1}`` on ``dyn``'s trajectory.

    Thesis §2.12: ``λ^{p,REM} = B(q♯_{k+½}) λ^{p,BEM}`` — B is a left inverse of
    P(q_{k+½}) for multibody systems (B P = I).  Systems without that
    property (a :class:`~pyomo_mbdyn.mechanics.CoordinateSystem`) use the
    least-squares left inverse of P; both agree since λ^{p,BEM} ∈ range P.
    """
    out = []
    for q_mid, lam in zip(_midpoints(dyn), np.asarray(lam_bem, float)):
        if _dual_to_null_space(dyn):
            out.append(np.asarray(dyn.system.control_matrix(q_mid, dyn.contravariant), float) @ lam)
        else:
            P = np.asarray(dyn.system.null_space(q_mid), float)
            out.append(np.linalg.lstsq(P, lam, rcond=None)[0])
    return np.array(out)


def bem_from_rem(dyn: MultibodyBlockData, lam_rem: npt.ArrayLike) -> np.ndarray:
    """``λ^{p,BEM}_{k,k+1} = P(q_{k+½}) λ^{p,REM}_{k,k+1}`` on ``dyn``'s trajectory."""
    return np.array([np.asarray(dyn.system.null_space(q_mid), float) @ lam
                     for q_mid, lam in zip(_midpoints(dyn), np.asarray(lam_rem, float))])


def _input_map(dyn, i, q_mid):
    """The matrix E with ``u_full = E λ^p / (2w)``: B (redundant), B P (reduced), B P̃ (chart)."""
    system, form = dyn.system, _multiplier_map(dyn)
    if form.in_chart:  # at the chart's midpoint q(θ_{k+½}), P̃(θ_{k+½}) = ∂q/∂θ
        from ..discretization import chart, chart_basis

        theta = np.array([[pyo.value(dyn.theta[k, j]) for j in dyn.velocities] for k in (i, i + 1)])
        theta_mid = 0.5 * (theta[0] + theta[1])
        q_mid = np.asarray(chart(system, theta_mid, dyn.rotation), float)
        B = np.asarray(system.control_matrix(q_mid), float)
        return B @ np.asarray(chart_basis(system, theta_mid, dyn.rotation), float)
    B = np.asarray(system.control_matrix(q_mid, dyn.contravariant), float)
    if form.per_coordinate:
        return B
    return B @ np.asarray(system.null_space(q_mid), float)  # reduced


def controls_from_multipliers(dyn: MultibodyBlockData, weights: Mapping[str, float] | None = None) -> np.ndarray:
    """The controls the control equation gives from λ^p: (N, n_act).

    Stationarity of 𝓛 in u with ``J = h Σ w_a u_a²``: ``u_a = (E λ^p)_a / (2 w_a)``
    with E = B(q♯) (bem, thesis Eq. 7.20), E = B P(q_{k+½}) (rem; = I for
    multibody systems, Eq. 7.19) or E = B P̃ at the chart midpoint q(θ_{k+½}) (gc).
    ``weights`` (per actuator) default to those of the objective that
    :meth:`~pyomo_mbdyn.ocp.OptimalControlProblem.minimise_control_effort` built
    (``ocp.effort_weights``); a model without that objective (minimum time alone,
    an objective of the user's) needs them given, or it is an error — the control
    equation depends on them.
    """
    lam = momentum_multipliers(dyn)
    idx = list(dyn.system.actuated_indices)
    if weights is None:
        weights = _effort_weights(dyn)
    missing = [a for a in dyn.actuated if a not in weights]
    if missing:
        raise ConfigurationError(f"controls_from_multipliers: no weight for actuators {missing}")
    w = np.array([float(weights[a]) for a in dyn.actuated])
    mids = _midpoints(dyn)
    return np.array([(_input_map(dyn, i, mids[i]) @ lam_i)[idx] / (2.0 * w) for i, lam_i in enumerate(lam)])


def _effort_weights(dyn):
    """w_a of the effort objective built on ``dyn`` (``ocp.effort_weights``), when it is active
    (alone, or in the combined ``ocp.objective`` of effort and final time)."""
    model = dyn.model()
    found = [p for p in model.component_objects(pyo.Param, descend_into=True) if p.local_name == "effort_weights"
             and getattr(p.parent_block().component("control_effort"), "expr", None) is not None]
    active = [o.name for o in model.component_data_objects(pyo.Objective, active=True)]
    if len(found) != 1:
        raise ConfigurationError(
            f"controls_from_multipliers: {'no' if not found else 'more than one'} effort objective "
            f"(OptimalControlProblem.minimise_control_effort) on {model.name}; the active objective is "
            f"{active}: pass weights={{actuator: w}} for J = h Σ w u²")
    block = found[0].parent_block()
    effort, combined = block.component("control_effort"), block.component("objective")
    if not (effort.active or (combined is not None and combined.active)):
        raise ConfigurationError(
            f"controls_from_multipliers: the effort objective {effort.name} is not the one solved "
            f"(active: {active}); pass weights={{actuator: w}} if J = h Σ w u² is what was minimised")
    return {a: pyo.value(found[0][a]) for a in dyn.actuated}
