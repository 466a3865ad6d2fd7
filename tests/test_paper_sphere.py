"""DMOCC §7.1: the rigid sphere, rest to rest with three turns; J_d = 533.5767."""

import shutil

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.models import sphere


@pytest.fixture(scope="module")
def solved():
    m = sphere.build()
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.options["tol"] = 1e-10
    result = opt.solve(m)
    return m, result


def test_objective_is_the_papers(solved):
    m, result = solved
    assert result.solver.termination_condition == pyo.TerminationCondition.optimal
    assert round(pyo.value(m.ocp.control_effort), 4) == 533.5767


@pytest.mark.skipif(shutil.which("ipopt") is None, reason="no ipopt executable on PATH")
def test_objective_with_the_ipopt_executable():
    m = sphere.build()
    pyo.SolverFactory("ipopt").solve(m)
    assert round(pyo.value(m.ocp.control_effort), 4) == 533.5767


def test_controls_are_antisymmetric_in_time(solved):
    m, _ = solved
    U = np.array([[pyo.value(m.dyn.u[i, a]) for a in m.dyn.actuated] for i in m.dyn.intervals])
    assert np.abs(U[::-1] + U).max() < 1e-6 * np.abs(U).max()
    assert np.abs(U).max() > 1.0


def test_rest_to_rest_and_momentum_consistency(solved):
    """L_0 = L_N = 0, and ΔL per interval is exactly the applied impulse (DMOCC 4.14):
    ΔL_n = h/2 (φ_n + φ_{n+1}) × τ_φ + h τ_θ with τ = u (the applied force and torque)."""
    m, _ = solved
    table = m.dyn.diagnostics()
    L = table[["Lx", "Ly", "Lz"]].to_numpy()
    assert np.abs(L[0]).max() < 1e-9 and np.abs(L[-1]).max() < 1e-6
    assert table["T"].iloc[0] == 0 and table["T"].iloc[-1] < 1e-10
    tr_m = m.dyn.trajectory()
    q, u = tr_m.q, tr_m.u
    h = m.dyn.h
    for n in range(1, m.dyn.config.steps - 1):
        tau = u[n]
        impulse = 0.5 * h * np.cross(q[n, 0:3] + q[n + 1, 0:3], tau[0:3]) + h * tau[3:6]
        assert np.abs(L[n + 1] - L[n] - impulse).max() < 1e-8
    # the endpoint conditions hold
    np.testing.assert_allclose(q[-1, 0:3], sphere.TARGET, atol=1e-9)
    np.testing.assert_allclose(q[-1, 3:12], np.eye(3).ravel(), atol=1e-8)


def test_minimal_form_has_the_papers_size():
    """DMOCC §7.1: 360 unknowns (increments and controls) and 192 constraints."""
    from pyomo_mbdyn.cli import _count

    m = sphere.build(configurations="minimal")
    assert m.dyn.config.configurations == "minimal"
    assert (_count(m, pyo.Var), _count(m, pyo.Constraint)) == (360, 192)


def test_the_papers_minimal_form_reaches_the_same_optimum(solved):
    """The default (lifted: node configurations as unknowns) and the paper's minimal form
    (every configuration nested in the increments) reach the same optimum."""
    m, _ = solved
    assert m.dyn.config.configurations == "lifted"
    minimal = sphere.build(configurations="minimal")
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.options["tol"] = 1e-10
    assert opt.solve(minimal).solver.termination_condition == pyo.TerminationCondition.optimal
    J, J_minimal = pyo.value(m.ocp.control_effort), pyo.value(minimal.ocp.control_effort)
    assert abs(J - J_minimal) < 1e-8 * J
    tr_m = m.dyn.trajectory()
    q, u = tr_m.q, tr_m.u
    tr_minimal = minimal.dyn.trajectory()
    q_l, u_l = tr_minimal.q, tr_minimal.u
    assert np.abs(q - q_l).max() < 1e-6 and np.abs(u - u_l).max() < 1e-6 * np.abs(u).max()


def test_only_dmocc_has_the_minimal_form():
    # the paper's minimal (nested) form is DMOCC's; REM offers lifted and absolute only
    with pytest.raises(ValueError, match=r"(?s)rem block: .*minimal.*\['lifted', 'absolute'\]"):
        from pyomo_mbdyn.schemes import scheme_block

        m = pyo.ConcreteModel()
        m.dyn = scheme_block("rem", system=sphere.build_system(), steps=3, horizon=1.0,
                             configurations="minimal")
