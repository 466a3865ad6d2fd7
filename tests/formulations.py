"""Solving an OCP model with its duals, and comparing formulations (BEM, REM, GC)."""

import numpy as np
import pyomo.environ as pyo

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.ocp import multipliers


def solve_with_duals(model, tol=1e-10):
    """casadi_ipopt at ``tol`` with the dual Suffix; asserts an optimal termination."""
    model.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.options["tol"] = tol
    result = opt.solve(model)
    assert result.solver.termination_condition == pyo.TerminationCondition.optimal, model.name
    return model


def cost(model):
    return pyo.value(model.ocp.control_effort)


def assert_same_optimum(a, b, cost_rtol=1e-8, tol=1e-6):
    """Costs equal to ``cost_rtol`` (relative), q and v to ``tol``, u to ``tol`` relative."""
    assert abs(cost(a) - cost(b)) < cost_rtol * cost(b)
    tr_a = a.dyn.trajectory()
    qa, va, ua = tr_a.q, tr_a.v, tr_a.u
    tr_b = b.dyn.trajectory()
    qb, vb, ub = tr_b.q, tr_b.v, tr_b.u
    assert np.abs(qa - qb).max() < tol and np.abs(va - vb).max() < tol
    assert np.abs(ua - ub).max() < tol * np.abs(ub).max()


def assert_multipliers_consistent(bem, rem):
    """Thesis §2.12 on solved BEM and REM blocks: the control equation gives back u
    from λᵖ, λ^BEM = P λ^REM, λ^REM = B λ^BEM, and G(q_mid) λ^BEM = 0."""
    for dyn in (bem, rem):
        tr_dyn = dyn.trajectory()
        u = tr_dyn.u
        assert np.abs(multipliers.controls_from_multipliers(dyn) - u).max() < 1e-8 * np.abs(u).max()
    lam_bem, lam_rem = multipliers.momentum_multipliers(bem), multipliers.momentum_multipliers(rem)
    scale = np.abs(lam_bem).max()
    assert np.abs(multipliers.bem_from_rem(bem, lam_rem) - lam_bem).max() < 1e-8 * scale
    assert np.abs(multipliers.rem_from_bem(bem, lam_bem) - lam_rem).max() < 1e-8 * scale
    q = bem.configuration_values()
    for i, lam in enumerate(lam_bem):
        G = np.asarray(bem.system.constraint_jacobian(0.5 * (q[i] + q[i + 1])), float)
        assert np.abs(G @ lam).max() < 1e-9 * scale * max(1.0, np.abs(G).max())
