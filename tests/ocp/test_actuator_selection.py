"""Which actuators to keep: the MINLP (Bonmin) against the enumeration of its NLPs (IPOPT).

``OptimalControlProblem.select_actuators`` adds binaries y_a with |u_{i,a}| ≤ U y_a
and Σ y_a = k; the relaxation is nonconvex, so the honest check of Bonmin's
answer is to solve every subset as an NLP from the same guess
(``enumerate_actuators``) and compare the best with the MINLP.
"""

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.models import minimum_time_mass as mtm
from pyomo_mbdyn.models import satellite_actuator_selection as sas
from pyomo_mbdyn.ocp import enumerate_actuators, fix_actuators


@pytest.fixture(scope="module")
def enumeration():
    return enumerate_actuators(sas.build, options={"tol": 1e-8})


def test_satellite_minlp_equals_the_best_enumerated_subset(enumeration):
    assert len(enumeration) == 3 and (enumeration["status"] == "optimal").all()
    best = enumeration.iloc[0]
    m = sas.build()
    solver = pyo.SolverFactory("casadi_bonmin")
    solver.options["bonmin.algorithm"] = "B-BB"
    result = solver.solve(m)
    assert result.solver.termination_condition == pyo.TerminationCondition.optimal
    assert tuple(m.problem.active_actuators()) == best["actuators"]
    assert pyo.value(m.ocp.control_effort) == pytest.approx(best["objective"], rel=1e-6)
    # the dropped motor applies no torque; the bound U is inactive for the kept ones
    u = m.dyn.trajectory().u
    names = list(m.dyn.actuated)
    for j, a in enumerate(names):
        if a in best["actuators"]:
            assert np.abs(u[:, j]).max() < 0.9 * sas.BOUND
        else:
            assert np.abs(u[:, j]).max() < 1e-6
    # the satellite keeps its zero angular momentum with any motors
    L = m.dyn.diagnostics()[["Lx", "Ly", "Lz"]].to_numpy()
    assert np.abs(L).max() < 1e-6


def test_enumeration_table_is_sorted_and_distinguishes_the_pairs(enumeration):
    objectives = enumeration["objective"].to_numpy(dtype=float)
    assert np.all(np.diff(objectives) > 0)
    assert objectives[1] > 1.5 * objectives[0]  # the choice matters


def test_select_actuators_checks_its_arguments():
    m = sas.build()
    problem = m.problem
    with pytest.raises(ConfigurationError, match="already called"):
        problem.select_actuators(2, 1.0)
    m = mtm.build("rem", steps=4)
    problem = m.problem
    with pytest.raises(ConfigurationError, match="max_active must be an integer in 1..1"):
        problem.select_actuators(2, 1.0)
    with pytest.raises(ConfigurationError, match="bound must be positive"):
        problem.select_actuators(1, -1.0)
    with pytest.raises(ConfigurationError, match="unknown \\['nozzle'\\]"):
        problem.select_actuators(1, {"nozzle": 1.0})
    with pytest.raises(ConfigurationError, match="costs must be non-negative"):
        problem.select_actuators(1, 10.0, cost=-1.0)
    with pytest.raises(ConfigurationError, match="unknown actuators"):
        m2 = sas.build()
        fix_actuators(m2, ["axle9.angle"])


def test_fixed_cost_is_added_to_the_objective():
    m = mtm.build("rem", steps=6, objective="effort+time")
    effort_and_time = m.ocp.objective.expr
    m.problem.select_actuators(1, 100.0, cost=7.0)
    assert m.ocp.objective.active and not m.ocp.control_effort.active
    solver = pyo.SolverFactory("casadi_bonmin")
    solver.solve(m)
    assert m.problem.active_actuators() == ["slide.slide"]
    assert pyo.value(m.ocp.objective) == pytest.approx(pyo.value(effort_and_time) + 7.0, rel=1e-12)


def test_arm_pairs_enumerated_and_bonmin_lands_on_one_of_them():
    """Which joint may be passive: the enumeration ranks the three pairs; Bonmin's B-BB
    answer is the NLP optimum of the pair it keeps (not always the best pair: its node
    NLPs are local — the model docstring and benchmarks/README.md give the numbers)."""
    from pyomo_mbdyn.models import three_link_arm as arm

    build = lambda: arm.build("gc", steps=20, keep_motors=2)  # noqa: E731
    table = enumerate_actuators(build, options={"max_iter": 3000})
    assert (table["status"] == "optimal").all()
    assert table.iloc[0]["actuators"] == ("elbow.angle", "wrist.angle")
    m = build()
    pyo.SolverFactory("casadi_bonmin").solve(m)
    kept = tuple(m.problem.active_actuators())
    J = pyo.value(m.ocp.control_effort)
    enumerated = dict(zip(table["actuators"], table["objective"]))
    assert J == pytest.approx(enumerated[kept], rel=1e-6)
    assert J >= table.iloc[0]["objective"] * (1 - 1e-9)
