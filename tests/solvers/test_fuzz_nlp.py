"""Fuzzing the solve path: random well-posed NLPs, casadi_ipopt against pyomo-ripopt.

Hypothesis draws convex problems with a unique optimum — a strictly convex
objective (a positive-definite quadratic plus Σ exp(a_i x_i)), random linear
equality rows of full rank, linear inequality rows, a convex ball row and
box bounds, all satisfied by a drawn point — and every one is solved by the
in-process ``casadi_ipopt`` (Pyomo → CasADi translation) and by pyomo-ripopt,
an independent solver reading Pyomo's .nl file.  They must reach the same
optimum.  The number of problems follows the hypothesis profile of
``tests/conftest.py`` (40 in CI; ``HYPOTHESIS_PROFILE=thorough`` for 1000,
by hand: about half a minute).

pyomo-ripopt 0.8.2 does not converge on every drawn problem (the thorough
profile found 3 of 1000, e.g. the draw ``(6, 5, 2, [F, F, T, F, F, T], 2)``:
"Maximum Number of Iterations Exceeded" at J = 22.07 where IPOPT reaches
14.04 in 9 iterations); there scipy's SLSQP, started from IPOPT's point
perturbed, is the independent referee — a convex problem has one optimum.
"""

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import example, given, strategies as st

import pyomo_mbdyn  # noqa: F401

pyomo_ripopt = pytest.importorskip("pyomo_ripopt")  # a test dependency (setup.cfg [test])


@st.composite
def convex_nlps(draw):
    n = draw(st.integers(2, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    n_eq = draw(st.integers(0, n - 1))
    n_ineq = draw(st.integers(0, 3))
    bounded = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return n, n_eq, n_ineq, bounded, seed


def build(n, n_eq, n_ineq, bounded, seed):
    """The drawn problem as a Pyomo model (the same model for the same draw)."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, n))
    Q = A @ A.T + 0.5 * np.eye(n)
    c = rng.normal(size=n)
    a = rng.uniform(-0.5, 0.5, size=n)
    point = rng.uniform(-1, 1, size=n)  # satisfies every row
    m = pyo.ConcreteModel("fuzz")
    m.i = pyo.RangeSet(0, n - 1)
    lower = point - rng.uniform(0.5, 2.0, size=n)
    upper = point + rng.uniform(0.5, 2.0, size=n)
    m.x = pyo.Var(m.i, bounds=lambda _, i: (lower[i], upper[i]) if bounded[i] else (None, None),
                  initialize=lambda _, i: float(rng.uniform(-1, 1)))
    x = [m.x[i] for i in range(n)]
    m.objective = pyo.Objective(expr=0.5 * sum(Q[i, j] * x[i] * x[j] for i in range(n) for j in range(n))
                                + sum(c[i] * x[i] for i in range(n))
                                + sum(pyo.exp(a[i] * x[i]) for i in range(n)))
    E = rng.normal(size=(n_eq, n))
    m.equalities = pyo.Constraint(range(n_eq), rule=lambda _, r: sum(E[r, i] * x[i] for i in range(n))
                                  == float(E[r] @ point))
    G = rng.normal(size=(n_ineq, n))
    slack = rng.uniform(0.0, 1.0, size=n_ineq)
    m.inequalities = pyo.Constraint(range(n_ineq), rule=lambda _, r: sum(G[r, i] * x[i] for i in range(n))
                                    <= float(G[r] @ point + slack[r]))
    centre = point + rng.uniform(-0.3, 0.3, size=n)
    radius = np.linalg.norm(point - centre) + rng.uniform(0.1, 2.0)
    m.ball = pyo.Constraint(expr=sum((x[i] - centre[i]) ** 2 for i in range(n)) <= radius**2)
    return m


def _solve(name, m):
    """``(x, J)`` or None when the solver does not end optimal."""
    opt = pyo.SolverFactory(name)
    opt.options["tol"] = 1e-10
    result = opt.solve(m, load_solutions=False)
    if result.solver.termination_condition != pyo.TerminationCondition.optimal:
        return None
    m.solutions.load_from(result)
    return np.array([pyo.value(v) for v in m.x.values()]), pyo.value(m.objective)


def _slsqp(m, start):
    """scipy's SLSQP on the same Pyomo model (values set, expressions evaluated)."""
    from scipy.optimize import minimize

    xs = list(m.x.values())

    def at(z, expr):
        for var, value in zip(xs, z):
            var.set_value(float(value), skip_validation=True)
        return pyo.value(expr)

    rows = [c for c in m.component_data_objects(pyo.Constraint, active=True)]
    constraints = [{"type": "eq", "fun": (lambda z, c=c: at(z, c.body) - pyo.value(c.upper))} for c in rows
                   if c.equality]
    constraints += [{"type": "ineq", "fun": (lambda z, c=c: pyo.value(c.upper) - at(z, c.body))} for c in rows
                    if not c.equality]
    bounds = [(v.lb, v.ub) for v in xs]
    result = minimize(lambda z: at(z, m.objective), start, method="SLSQP", bounds=bounds, constraints=constraints,
                      options={"ftol": 1e-12, "maxiter": 1000})
    # SLSQP's "positive directional derivative in linesearch" (status 8) is its way of
    # stopping at the optimum within its precision: the comparison below still decides
    assert result.success or result.status == 8, result.message
    return result.x, result.fun


@given(problem=convex_nlps())
@example(problem=(6, 5, 2, [False, False, True, False, False, True], 2))  # ripopt: max iterations
@example(problem=(2, 0, 1, [True, False], 26688118))  # ripopt fails, SLSQP status 8
def test_casadi_ipopt_and_ripopt_reach_the_same_optimum(problem):
    solved = _solve("casadi_ipopt", build(*problem))
    assert solved is not None, "casadi_ipopt did not solve a well-posed convex problem"
    x_casadi, J_casadi = solved
    reference = _solve("ripopt", build(*problem))
    if reference is None:  # the referee of last resort, from a point near IPOPT's
        start = x_casadi + np.random.default_rng(problem[-1]).uniform(-0.05, 0.05, size=x_casadi.size)
        reference = _slsqp(build(*problem), start)
    x_reference, J_reference = reference
    assert J_casadi == pytest.approx(J_reference, rel=1e-7, abs=1e-8)
    np.testing.assert_allclose(x_casadi, x_reference, atol=1e-5)
