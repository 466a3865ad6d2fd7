"""Bonmin's options as Bonmin users write them reach Bonmin, on both paths.

CasADi's Bonmin interface looks options up without the ``bonmin.`` prefix and
rejected ``bonmin.algorithm`` ("No such BONMIN option: bonmin"), which is how
README documented them, and ``timelimit`` (sent as ``bonmin.time_limit``).
Each test shows an option acting: the algorithm in the log, a node limit that
stops the search short of the optimum, a time limit reported as such.  The
problem is a 30-item knapsack with a convex quadratic penalty: Bonmin needs a
search (about 0.5 s with B-BB), its optimum is certain (every algorithm agrees).
"""

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.solvers.ampl_driver import bonmin_options

PATHS = ["casadi_bonmin", "casadi_bonmin_nl"]
OPTIMUM = -129.06526697798327  # all four algorithms agree (test_algorithms_reach_the_same_optimum)


def knapsack(n=30, seed=0):
    rng = np.random.default_rng(seed)
    value, weight = rng.uniform(1, 10, n), rng.uniform(1, 10, n)
    m = pyo.ConcreteModel()
    m.item = pyo.RangeSet(0, n - 1)
    m.take = pyo.Var(m.item, domain=pyo.Binary)
    m.capacity = pyo.Constraint(expr=sum(weight[i] * m.take[i] for i in m.item) <= 0.5 * weight.sum())
    m.objective = pyo.Objective(expr=-sum(value[i] * m.take[i] for i in m.item)
                                + 0.01 * sum(m.take[i] for i in m.item) ** 2)
    return m


def solve(name, options=None, **kwds):
    m = knapsack()
    solver = pyo.SolverFactory(name)
    for key, value in (options or {}).items():
        solver.options[key] = value
    result = solver.solve(m, load_solutions=False, **kwds)
    if len(result.solution):
        m.solutions.load_from(result)
    return m, result


def test_prefix_is_dropped_once():
    assert bonmin_options({"bonmin.algorithm": "B-OA", "tol": 1e-8}) == {"algorithm": "B-OA", "tol": 1e-8}
    with pytest.raises(ValueError, match="given twice"):
        bonmin_options({"bonmin.node_limit": 3, "node_limit": 4})


@pytest.mark.parametrize("name", PATHS)
def test_algorithm_reaches_bonmin(name, capfd):
    m, result = solve(name, {"bonmin.algorithm": "B-BB"}, tee=True)
    log = capfd.readouterr().out
    assert result.solver.termination_condition == pyo.TerminationCondition.optimal
    assert pyo.value(m.objective) == pytest.approx(OPTIMUM, rel=1e-9)
    # branch and bound: one NLP per node, no outer approximation
    assert log.count("NLP0014I") >= 10 and "OA00" not in log
    m, result = solve(name, {"bonmin.algorithm": "B-OA"}, tee=True)
    log = capfd.readouterr().out
    assert "OA0008I" in log  # "OA converged"
    assert pyo.value(m.objective) == pytest.approx(OPTIMUM, rel=1e-9)


@pytest.mark.parametrize("name", PATHS)
def test_node_limit_stops_the_search(name):
    m, result = solve(name, {"bonmin.node_limit": 1})
    assert result.solver.termination_condition == pyo.TerminationCondition.maxIterations
    assert pyo.value(m.objective) > OPTIMUM + 1.0  # the incumbent at the root, not the optimum


@pytest.mark.parametrize("name", PATHS)
@pytest.mark.parametrize("how", ["option", "timelimit"])
def test_time_limit_is_reported_as_such(name, how):
    options, kwds = ({"bonmin.time_limit": 0.05}, {}) if how == "option" else ({}, {"timelimit": 0.05})
    _, result = solve(name, options, **kwds)
    assert result.solver.termination_condition == pyo.TerminationCondition.maxTimeLimit


@pytest.mark.parametrize("name", PATHS)
def test_resolves_at_root_and_subproblem_options_reach_bonmin(name):
    m, result = solve(name, {"bonmin.num_resolve_at_root": 2})
    assert pyo.value(m.objective) == pytest.approx(OPTIMUM, rel=1e-9)
    # IPOPT's options govern the NLP subproblems: one iteration cannot solve them
    _, result = solve(name, {"max_iter": 1})
    assert result.solver.termination_condition != pyo.TerminationCondition.optimal


@pytest.mark.parametrize("name", PATHS)
@pytest.mark.parametrize("options, words", [({"bonmin.algorithm": "B-XYZ"}, "Invalid options"),
                                            ({"bonmin.no_such_option": 1}, "No such BONMIN option: no_such_option")])
def test_rejected_options_raise_a_named_error(name, options, words):
    with pytest.raises(ConfigurationError, match=words):
        solve(name, options)


@pytest.mark.parametrize("algorithm", ["B-Hyb", "B-QG"])
def test_algorithms_reach_the_same_optimum(algorithm):
    m, result = solve("casadi_bonmin", {"bonmin.algorithm": algorithm})
    assert result.solver.termination_condition == pyo.TerminationCondition.optimal
    assert pyo.value(m.objective) == pytest.approx(OPTIMUM, rel=1e-9)
