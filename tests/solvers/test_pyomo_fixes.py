"""Regression test for the fix of Pyomo's .nl writer (pyomo_mbdyn.solvers.pyomo_fixes).

Named Expressions that reduce to ``c * variable`` once fixed variables are
substituted lost their coefficient ``c`` in every use after the first.
"""

import math

import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401  (applies the fix)


def _model():
    m = pyo.ConcreteModel()
    m.x0 = pyo.Var(initialize=0.0)
    m.y0 = pyo.Var(initialize=0.0)
    m.x0.fix()
    m.y0.fix()
    m.x1 = pyo.Var(initialize=1.0, bounds=(0.1, 5))
    m.y1 = pyo.Var(initialize=1.0)
    m.e1 = pyo.Expression(expr=(m.x0 + m.x1) * 0.5)  # = 0.5 x1 once x0 is fixed at 0
    m.e2 = pyo.Expression(expr=(m.y0 + m.y1) * 0.5)
    # -e1 e2 written with two uses of each named expression
    m.twice = pyo.Constraint(expr=(m.e1 * m.e2 - 2 * m.e2 * m.e1) * m.x1 == -0.1)
    m.fix_y = pyo.Constraint(expr=m.y1 == 0.6)
    return m


@pytest.mark.parametrize("name", ["casadi_ipopt_nl", "casadi_ipopt"])
def test_named_expression_coefficients_survive_the_nl_writer(name):
    """The AMPL path needs the fix; the in-process path must agree."""
    m = _model()
    res = pyo.SolverFactory(name).solve(m)
    assert res.solver.termination_condition == pyo.TerminationCondition.optimal
    # -0.25 x1² · 0.6 = -0.1  →  x1 = sqrt(2/3); without the fix x1 = sqrt(1/6)
    assert pyo.value(m.x1) == pytest.approx(math.sqrt(2 / 3), rel=1e-8)
    assert pyo.value(m.twice.body) == pytest.approx(-0.1, abs=1e-8)
