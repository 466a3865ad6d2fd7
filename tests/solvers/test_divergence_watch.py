"""The divergence watch (pyomo_mbdyn.solvers.watch): its rule on sequences of iterates, its
options, and real solves stopped by it (in process and through the AMPL driver) while a
converging solve of the same model runs to its optimum untouched."""

import logging
import math

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401 - registers the plugins
from pyomo_mbdyn.errors import ConfigurationError, SolveFailedError
from pyomo_mbdyn.ocp.solve import solve
from pyomo_mbdyn.solvers.watch import DEFAULTS, DIVERGING, DivergenceWatch, split_watch_options


def _feed(watch, f, theta):
    """The iteration at which ``watch`` stops on the sequences, or None."""
    for k, (fk, tk) in enumerate(zip(f, theta)):
        if watch.observe(fk, tk):
            return k
    return None


# -- the rule ---------------------------------------------------------------------------------

def test_trading_infeasibility_for_objective_is_stopped_after_one_window():
    """θ from 1e-3 to a median of 1e2 (dipping to 1 every fifth iterate) while f falls: the
    window's median is above max(100 θ_ref, 10) from iteration 5 + 50 on."""
    n = 200
    theta = np.full(n, 1e-3)
    theta[5:] = 1e2
    theta[5::5] = 1.0  # dips back towards feasibility do not hide the run
    f = 10.0 - 0.01 * np.arange(n)
    watch = DivergenceWatch()
    k = _feed(watch, f, theta)
    # the first iterate whose window (reference and one whole window behind it) has a median above 10
    window = DEFAULTS["window"]
    expected = next(j for j in range(5 + window - 1, n)
                    if np.median(theta[j - window + 1: j + 1]) > 10 and f[j] < f[j - window + 1])
    assert k == expected
    report = watch.report
    assert report["rule"] == "trading" and report["iteration"] == k
    assert report["threshold"] == pytest.approx(10.0)  # max(100 × 1e-3, floor 10)
    assert report["inf_pr_median"] == pytest.approx(1e2) and report["objective"] == pytest.approx(f[k])
    assert watch.message().startswith(f"{DIVERGING}: stopped by the divergence watch at iteration {k}")


def test_a_transient_excursion_is_not_stopped():
    """θ from 1 to 5e3 and back to 1e-12 within 12 iterations (a full Newton step from a poor
    start, then convergence): never stopped, however long the solve goes on afterwards."""
    theta = np.concatenate([[1.0, 50.0, 5e3, 2e3, 4e2, 80.0, 9.0, 1.0, 1e-2, 1e-5, 1e-9, 1e-12], np.full(300, 1e-13)])
    f = np.linspace(0.0, -7.0, theta.size)  # the objective falls all along
    assert _feed(DivergenceWatch(), f, theta) is None


def test_infeasibility_below_the_floor_is_never_stopped():
    """θ growing 1e6-fold from 1e-12 to 1e-6 while f falls is 100× its start but below the floor."""
    theta = np.logspace(-12, -6, 400)
    f = -np.arange(400.0)
    assert _feed(DivergenceWatch(), f, theta) is None


def test_infeasible_while_the_objective_rises_is_left_to_ipopt_until_it_runs_away():
    """A solve working its way back to feasibility (θ large but falling half of the time, f
    rising: it pays objective for feasibility) is not 'trading'; it is stopped only if θ stays
    above the threshold at every iterate of a window ('runaway', as a restoration loop)."""
    n = 300
    theta = np.where(np.arange(n) % 2 == 0, 50.0, 5.0)  # median 27.5 > 10, minimum 5 < 10
    theta[:5] = 0.05
    f = np.linspace(1.0, 5.0, n)
    assert _feed(DivergenceWatch(), f, theta) is None
    theta = theta.copy()
    theta[5:] = 4e7  # a restoration phase that does not restore, f flat
    f = np.full(n, 1.45)
    watch = DivergenceWatch()
    assert _feed(watch, f, theta) == 5 + DEFAULTS["window"] - 1
    assert watch.report["rule"] == "runaway"


def test_the_reference_scales_the_threshold():
    """A start 1e3 infeasible: the threshold is 1e5, so a median of 1e4 is not stopped, 1e6 is."""
    n = 200
    f = -np.arange(float(n))
    for level, stopped in ((1e4, False), (1e6, True)):
        theta = np.full(n, level)
        theta[:5] = 1e3
        assert (_feed(DivergenceWatch(), f, theta) is not None) is stopped


def test_maximisation_reports_the_users_objective():
    watch = DivergenceWatch(window=3, reference=1, sigma=-1.0)
    assert _feed(watch, [-1.0, -2.0, -3.0, -4.0], [1e-3, 1e3, 1e3, 1e3]) == 3
    assert watch.report["objective"] == 4.0 and watch.report["objective_since"] == 2.0  # f at k − W + 1


# -- options ----------------------------------------------------------------------------------

def test_options_are_split_from_ipopts_and_checked():
    rest, settings = split_watch_options({"tol": 1e-8, "divergence_watch.window": "20",
                                          "divergence_watch.floor": 1})
    assert rest == {"tol": 1e-8}
    assert settings == {**DEFAULTS, "window": 20, "floor": 1.0}
    for off in (False, "no", "off", "False", 0):
        assert split_watch_options({"divergence_watch": off}) == ({}, None)
    for name, value, words in (("divergence_watch", "maybe", "True or False"),
                               ("divergence_watch.window", 2.5, "whole number"),
                               ("divergence_watch.window", 0, "at least 1"),
                               ("divergence_watch.growth", 0.5, "at least 1"),
                               ("divergence_watch.floor", "nan", "finite number"),
                               ("divergence_watch.floor", -1, "non-negative"),
                               ("divergence_watch.patience", 3, "unknown option")):
        with pytest.raises(ValueError, match=words) as err:
            split_watch_options({name: value})
        assert repr(name) in str(err.value)


@pytest.mark.parametrize("name", ["casadi_ipopt", "casadi_ipopt_nl"])
def test_a_bad_watch_option_is_a_configuration_error_naming_it(name):
    opt = pyo.SolverFactory(name)
    with pytest.raises(ConfigurationError, match="divergence_watch.window"):
        opt.solve(_chain(5, 0.5), options={"divergence_watch.window": -3})


def test_bonmin_refuses_the_watch_options():
    with pytest.raises(ConfigurationError, match="IPOPT solves only"):
        pyo.SolverFactory("casadi_bonmin").solve(_chain(5, 0.5), options={"divergence_watch": True})


# -- real solves ------------------------------------------------------------------------------

def _chain(n, start):
    """max Σ x_i² on the chain sin(x_i) + x_{i+1}³ = 1/2 (i < n - 1), all x_i = ``start``: a
    nonconvex problem on which IPOPT, from x = 1 and n = 60, wanders with the rows violated
    by up to 1e5 while the objective falls, for the whole of its 1 000 iterations."""
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, n - 1)
    m.x = pyo.Var(m.I, initialize=start)
    m.obj = pyo.Objective(expr=-sum(m.x[i] ** 2 for i in m.I))
    m.link = pyo.Constraint(pyo.RangeSet(0, n - 2), rule=lambda m, i: pyo.sin(m.x[i]) + m.x[i + 1] ** 3 == 0.5)
    return m


@pytest.mark.parametrize("name", ["casadi_ipopt", "casadi_ipopt_nl"])
def test_a_diverging_solve_is_stopped_early_and_says_so(name, caplog):
    opt = pyo.SolverFactory(name)
    m = _chain(60, 1.0)
    with caplog.at_level(logging.ERROR):
        results = opt.solve(m, load_solutions=False)
    report = results.solver.divergence
    assert opt.divergence == report
    assert str(results.solver.termination_condition) == "error"
    assert str(results.solver.status) == "aborted"
    assert results.solver.message.startswith(f"{DIVERGING}: stopped by the divergence watch")
    # well before IPOPT's own limit (3 000): one window after the run began
    assert results.solver.iterations < 200
    assert report["iteration"] >= DEFAULTS["reference"] + DEFAULTS["window"] - 1
    assert report["inf_pr_median"] > report["threshold"] >= DEFAULTS["floor"]
    assert report["objective"] < report["objective_since"] or report["rule"] == "runaway"
    assert all(math.isfinite(report[k]) for k in ("inf_pr", "objective", "threshold"))
    assert all(v.value == 1.0 for v in m.x.values())  # nothing loaded


def test_the_library_reports_diverging_with_the_remedy():
    with pytest.raises(SolveFailedError) as err:
        solve(_chain(60, 1.0), solver="casadi_ipopt")
    assert err.value.status == "diverging"
    text = str(err.value)
    assert "status 'diverging'" in text and "stopped by the divergence watch" in text
    assert "start_from_scheme" in text and "'gc'" in text and "divergence_watch" in text


def test_a_converging_solve_of_the_same_model_is_not_stopped():
    """The same model started at one of its optima (found with the watch off from x = 0.3):
    IPOPT confirms it in a few iterations, the watch silent; and the watch does not change
    the iterates of a solve it does not stop."""
    m = _chain(60, 0.3)
    first = pyo.SolverFactory("casadi_ipopt")
    first.solve(m, options={"divergence_watch": False, "max_iter": 3000})
    start = {i: m.x[i].value for i in m.I}
    runs = []
    for watch in (True, False):
        for i in m.I:
            m.x[i].set_value(start[i])
        opt = pyo.SolverFactory("casadi_ipopt")
        results = opt.solve(m, options={"divergence_watch": watch})
        assert str(results.solver.termination_condition) == "optimal"
        assert opt.divergence is None and getattr(results.solver, "divergence", None) is None
        runs.append((results.solver.iterations, pyo.value(m.obj), [m.x[i].value for i in m.I]))
    assert runs[0] == runs[1]  # bit for bit
    assert runs[0][0] < DEFAULTS["reference"] + DEFAULTS["window"]
