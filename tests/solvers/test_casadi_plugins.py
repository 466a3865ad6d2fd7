"""The casadi_ipopt / casadi_bonmin plugins keep the contract of Pyomo's ipopt plugin.

Every contract test runs against both paths: in process (``casadi_ipopt``,
``casadi_bonmin``) and through the AMPL .nl/.sol protocol in a subprocess
(``casadi_ipopt_nl``, ``casadi_bonmin_nl``); the fixtures ``ipopt`` and
``bonmin`` hold the solver name.

Signs are those of Ipopt's AMPL interface (AmplTNLP::finalize_solution):
for a minimisation, dual = -λ, ipopt_zL_out = z_L ≥ 0, ipopt_zU_out = -z_U ≤ 0.
"""

import itertools
import shutil

import numpy as np
import pyomo.environ as pyo
import pytest
from pyomo.common.tee import capture_output
from pyomo.opt import SolverStatus, TerminationCondition as TC
from scipy.optimize import minimize_scalar

import pyomo_mbdyn  # noqa: F401  (registers the plugins)
from pyomo_mbdyn.errors import MbdynError, SolverUnavailableError, UnsupportedModelError
from pyomo_mbdyn.solvers import available_solvers, get_solver

from problems import (
    add_dual_suffixes,
    bounded_qp,
    discrete_pendulum_ocp,
    equality_qp,
    equality_qp_kkt,
    hs071,
)


@pytest.fixture(params=["casadi_ipopt", "casadi_ipopt_nl"])
def ipopt(request):
    """Name of the IPOPT plugin under test: in process, or AMPL protocol."""
    return request.param


@pytest.fixture(params=["casadi_bonmin", "casadi_bonmin_nl"])
def bonmin(request):
    return request.param


def solve(m, name, **kwds):
    opt = pyo.SolverFactory(name)
    opt.options["tol"] = 1e-10
    return opt.solve(m, **kwds)


# ---------------------------------------------------------------- known optima
def test_hs071_optimum_and_multipliers_in_ipopt_ampl_signs(ipopt):
    m = add_dual_suffixes(hs071())
    res = solve(m, ipopt)
    assert res.solver.termination_condition == TC.optimal
    assert res.solver.status == SolverStatus.ok
    x = [pyo.value(m.x[i]) for i in range(1, 5)]
    np.testing.assert_allclose(x, [1.0, 4.742999, 3.821150, 1.379408], atol=1e-6)
    assert pyo.value(m.obj) == pytest.approx(17.0140173, abs=1e-6)
    assert m.dual[m.product] == pytest.approx(0.552294, abs=1e-6)
    assert m.dual[m.sphere] == pytest.approx(-0.161469, abs=1e-6)
    assert m.ipopt_zL_out[m.x[1]] == pytest.approx(1.087871, abs=1e-6)
    # x1 sits on its lower bound only: no upper-bound multiplier anywhere
    assert all(abs(m.ipopt_zU_out[v]) < 1e-8 for v in m.x.values())
    # stationarity in the AMPL convention: ∇f - Σ y ∇g - zL - zU = 0
    x1, x2, x3, x4 = x
    grad_f = np.array([x4 * (2 * x1 + x2 + x3), x1 * x4, x1 * x4 + 1, x1 * (x1 + x2 + x3)])
    grad_prod = np.array([x2 * x3 * x4, x1 * x3 * x4, x1 * x2 * x4, x1 * x2 * x3])
    grad_sph = 2 * np.array(x)
    zl = np.array([m.ipopt_zL_out[m.x[i]] for i in range(1, 5)])
    zu = np.array([m.ipopt_zU_out[m.x[i]] for i in range(1, 5)])
    r = grad_f - m.dual[m.product] * grad_prod - m.dual[m.sphere] * grad_sph - zl - zu
    assert np.abs(r).max() < 1e-7


def test_equality_qp_multipliers_equal_the_kkt_solution(ipopt):
    m = add_dual_suffixes(equality_qp())
    res = solve(m, ipopt)
    assert res.solver.termination_condition == TC.optimal
    x_star, y_star = equality_qp_kkt()
    np.testing.assert_allclose([pyo.value(m.x[i]) for i in m.I], x_star, atol=1e-9)
    np.testing.assert_allclose([m.dual[m.row[j]] for j in m.J], y_star, atol=1e-8)


@pytest.mark.parametrize("sense", ["lower", "upper"])
def test_bound_multiplier_on_an_active_bound(ipopt, sense):
    m = pyo.ConcreteModel()
    add_dual_suffixes(m)
    if sense == "lower":  # min (x+2)², x ≥ 0: ∂f/∂x = 4 = z_L
        m.x = pyo.Var(bounds=(0, None), initialize=1.0)
        m.obj = pyo.Objective(expr=(m.x + 2) ** 2)
    else:  # min (x-3)², x ≤ 1: ∂f/∂x = -4 = -z_U
        m.x = pyo.Var(bounds=(None, 1), initialize=0.0)
        m.obj = pyo.Objective(expr=(m.x - 3) ** 2)
    solve(m, ipopt)
    if sense == "lower":
        assert pyo.value(m.x) == pytest.approx(0.0, abs=1e-8)
        assert m.ipopt_zL_out[m.x] == pytest.approx(4.0, rel=1e-7)
        assert m.ipopt_zU_out[m.x] == pytest.approx(0.0, abs=1e-9)
    else:
        assert pyo.value(m.x) == pytest.approx(1.0, abs=1e-8)
        assert m.ipopt_zU_out[m.x] == pytest.approx(-4.0, rel=1e-7)
        assert m.ipopt_zL_out[m.x] == pytest.approx(0.0, abs=1e-9)


def test_maximisation_flips_signs_as_ipopt_does(ipopt):
    # max -(x-3)² s.t. x ≤ 1: Ipopt minimises (x-3)² with λ = 4 and writes +λ.
    m = pyo.ConcreteModel()
    add_dual_suffixes(m)
    m.x = pyo.Var(initialize=0.0)
    m.obj = pyo.Objective(expr=-((m.x - 3) ** 2), sense=pyo.maximize)
    m.cap = pyo.Constraint(expr=m.x <= 1)
    solve(m, ipopt)
    assert pyo.value(m.x) == pytest.approx(1.0, abs=1e-8)
    assert m.dual[m.cap] == pytest.approx(4.0, rel=1e-7)


# ---------------------------------------------------------- cross-checks
def _primal_dual(m):
    x = np.array([pyo.value(v) for v in m.component_data_objects(pyo.Var)])
    y = np.array([m.dual[c] for c in m.component_data_objects(pyo.Constraint)])
    return x, y


def test_agrees_with_ripopt_on_a_large_nonlinear_problem(ipopt):
    pytest.importorskip("pyomo_ripopt")
    import pyomo_ripopt  # noqa: F401

    ours = add_dual_suffixes(discrete_pendulum_ocp())
    theirs = add_dual_suffixes(discrete_pendulum_ocp())
    n_var = sum(1 for _ in ours.component_data_objects(pyo.Var))
    n_con = sum(1 for _ in ours.component_data_objects(pyo.Constraint))
    assert n_var >= 200 and n_con >= 150
    assert solve(ours, ipopt).solver.termination_condition == TC.optimal
    ripopt = pyo.SolverFactory("ripopt")
    ripopt.options["tol"] = 1e-10
    assert ripopt.solve(theirs).solver.termination_condition == TC.optimal
    x1, y1 = _primal_dual(ours)
    x2, y2 = _primal_dual(theirs)
    np.testing.assert_allclose(x1, x2, atol=1e-7)
    # ripopt writes the raw λ of its Lagrangian f + λᵀg; Ipopt's AMPL interface -λ.
    np.testing.assert_allclose(y1, -y2, atol=1e-6)
    assert np.abs(y1).max() > 0.1  # the comparison is not between zeros


@pytest.mark.skipif(shutil.which("ipopt") is None, reason="no ipopt executable on PATH")
def test_agrees_with_the_ipopt_executable(ipopt):
    ours = add_dual_suffixes(discrete_pendulum_ocp())
    theirs = add_dual_suffixes(discrete_pendulum_ocp())
    solve(ours, ipopt)
    solve(theirs, "ipopt")
    x1, y1 = _primal_dual(ours)
    x2, y2 = _primal_dual(theirs)
    np.testing.assert_allclose(x1, x2, atol=1e-7)
    np.testing.assert_allclose(y1, y2, atol=1e-6)


# ---------------------------------------------------------------- MINLP
def _minlp():
    m = pyo.ConcreteModel("minlp")
    m.x = pyo.Var(bounds=(0, 10), initialize=1.0)
    m.y = pyo.Var(within=pyo.Binary, initialize=0)
    m.z = pyo.Var(within=pyo.Integers, bounds=(-5, 5), initialize=0)
    m.obj = pyo.Objective(expr=(m.x - 2.3) ** 2 + (m.z - 1.6) ** 2 + 3 * m.y - m.y * m.x)
    m.budget = pyo.Constraint(expr=m.x + m.z <= 4 + 2 * m.y)
    return m


def _minlp_by_enumeration():
    best = (np.inf, None)
    for y, z in itertools.product((0, 1), range(-5, 6)):
        hi = min(10.0, 4 + 2 * y - z)
        if hi < 0:
            continue
        r = minimize_scalar(
            lambda x: (x - 2.3) ** 2 + (z - 1.6) ** 2 + 3 * y - y * x,
            bounds=(0, hi),
            method="bounded",
            options={"xatol": 1e-12},
        )
        best = min(best, (r.fun, (r.x, y, z)), key=lambda t: t[0])
    return best


def test_bonmin_solves_a_minlp_with_binary_and_integer_variables(bonmin):
    m = _minlp()
    res = pyo.SolverFactory(bonmin).solve(m)
    assert res.solver.termination_condition == TC.optimal
    f_star, (x, y, z) = _minlp_by_enumeration()
    assert pyo.value(m.obj) == pytest.approx(f_star, abs=1e-6)
    assert (round(pyo.value(m.y)), round(pyo.value(m.z))) == (y, z)
    assert pyo.value(m.x) == pytest.approx(x, abs=1e-5)


def test_ipopt_refuses_discrete_variables_with_a_clear_error(ipopt):
    with pytest.raises(UnsupportedModelError, match=r"casadi_bonmin.*") as err:
        pyo.SolverFactory(ipopt).solve(_minlp())
    assert "y" in str(err.value) and "z" in str(err.value)


def test_get_solver_picks_bonmin_for_discrete_models():
    assert get_solver(model=_minlp()).name in ("bonmin", "casadi_bonmin")
    expected = "ipopt" if shutil.which("ipopt") else "casadi_ipopt"
    assert get_solver(model=hs071()).name == expected


# ---------------------------------------------------------------- warm start
def test_warm_start_from_own_solution_takes_at_most_three_iterations(ipopt):
    m = add_dual_suffixes(bounded_qp(), export=True)
    opt = pyo.SolverFactory(ipopt)
    cold = opt.solve(m)
    assert cold.solver.termination_condition == TC.optimal
    x_cold = [pyo.value(v) for v in m.x.values()]
    n_active = sum(abs(abs(v) - 1) < 1e-6 for v in x_cold)
    assert n_active >= 2  # the warm start has active bounds to respect
    for v in m.x.values():
        m.ipopt_zL_in[v] = m.ipopt_zL_out[v]
        m.ipopt_zU_in[v] = m.ipopt_zU_out[v]
    opt.options.update(
        {
            "warm_start_init_point": "yes",
            "warm_start_bound_push": 1e-9,
            "warm_start_mult_bound_push": 1e-9,
            "mu_init": 1e-9,
        }
    )
    warm = opt.solve(m)
    assert warm.solver.termination_condition == TC.optimal
    assert cold.solver.iterations > 3
    assert warm.solver.iterations <= 3
    np.testing.assert_allclose([pyo.value(v) for v in m.x.values()], x_cold, atol=1e-7)


# ---------------------------------------------------------------- failures
def test_infeasible_problem_reports_infeasible_and_loads_nothing(ipopt):
    m = pyo.ConcreteModel()
    m.x = pyo.Var(initialize=0.1)
    m.y = pyo.Var(initialize=0.2)
    m.obj = pyo.Objective(expr=m.x + m.y)
    m.disc = pyo.Constraint(expr=m.x**2 + m.y**2 <= 1)
    m.far = pyo.Constraint(expr=m.x + m.y >= 3)
    res = solve(m, ipopt)
    assert res.solver.termination_condition == TC.infeasible
    assert "infeasible" in res.solver.message.lower()
    assert (pyo.value(m.x), pyo.value(m.y)) == (0.1, 0.2)


def test_evaluation_error_reports_error_with_solver_message(ipopt):
    m = pyo.ConcreteModel()
    m.x = pyo.Var(initialize=-1.0)
    m.obj = pyo.Objective(expr=pyo.log(m.x) + m.x**2)
    res = solve(m, ipopt)
    assert res.solver.status == SolverStatus.error
    assert res.solver.termination_condition == TC.error
    assert "Invalid number" in res.solver.message
    assert pyo.value(m.x) == -1.0


def test_iteration_limit_reports_max_iterations(ipopt):
    m = hs071()
    opt = pyo.SolverFactory(ipopt)
    opt.options["max_iter"] = 2
    res = opt.solve(m)
    assert res.solver.termination_condition == TC.maxIterations
    assert res.solver.iterations == 2


def test_timelimit_maps_to_the_solver_time_limit(ipopt):
    m = discrete_pendulum_ocp(N=200)
    res = pyo.SolverFactory(ipopt).solve(m, timelimit=1e-6)
    assert res.solver.termination_condition == TC.maxTimeLimit


def test_if_then_else_is_refused_naming_the_constraint(ipopt):
    m = pyo.ConcreteModel()
    m.x = pyo.Var(initialize=1.0)
    m.obj = pyo.Objective(expr=m.x**2)
    m.kinked = pyo.Constraint(expr=pyo.Expr_if(IF=m.x >= 0, THEN=m.x, ELSE=-m.x) >= 1)
    with pytest.raises(UnsupportedModelError, match=r"Expr_if.*kinked"):
        pyo.SolverFactory(ipopt).solve(m)


def test_unknown_solver_option_is_a_configuration_error(ipopt):
    opt = pyo.SolverFactory(ipopt)
    opt.options["no_such_option"] = 3
    with pytest.raises(ValueError, match="no_such_option"):
        opt.solve(hs071())


def test_symbolic_labels_and_tee_stream_the_log(ipopt):
    m = hs071()
    with capture_output() as out:
        res = pyo.SolverFactory(ipopt).solve(m, tee=True, symbolic_solver_labels=True)
    assert res.solver.termination_condition == TC.optimal
    log = out.getvalue()
    assert "This is Ipopt version" in log and "EXIT: Optimal Solution Found" in log


def test_unavailable_solver_lists_the_available_ones():
    with pytest.raises(SolverUnavailableError, match="casadi_ipopt") as err:
        get_solver("no_such_solver")
    assert isinstance(err.value, (ValueError, MbdynError))


def test_available_solvers_report_versions():
    names = {s["name"]: s for s in available_solvers()}
    assert names["casadi_ipopt"]["version"].startswith("3.")
    assert "casadi_bonmin" in names


def test_cli_lists_solvers(capsys):
    from pyomo_mbdyn.cli import main

    assert main(["solvers"]) == 0
    out = capsys.readouterr().out
    assert "casadi_ipopt" in out and "casadi_bonmin" in out


def test_get_solver_options_reach_the_solver():
    """Options given to get_solver are IPOPT's: an iteration limit of 2 stops HS071 there."""
    res = get_solver("casadi_ipopt", max_iter=2).solve(hs071())
    assert res.solver.termination_condition == TC.maxIterations and res.solver.iterations == 2
