"""A problem's `solver_defaults` reach the library's IPOPT plugins however the model is solved
(`problem.solve`, `ocp.solve`, `SolverFactory`), and lose to options the call or the solver sets.
The four-bar model's REM (N = 20) depends on it: from zero multipliers J = 61.0105 (= BEM), from
IPOPT's least-squares estimate at the guess another local optimum, J = 91.92."""

import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.models import four_bar
from pyomo_mbdyn.solvers.evaluation import with_model_defaults

OPTIMUM = 61.0104917056


def effort(m):
    return pyo.value(m.ocp.control_effort)


@pytest.mark.parametrize("solver", ["casadi_ipopt", "casadi_ipopt_nl"])
def test_solver_factory_applies_the_problem_defaults(solver):
    m = four_bar.build("rem")
    assert m.problem.solver_defaults == {"constr_mult_init_max": 0}
    pyo.SolverFactory(solver).solve(m)
    assert effort(m) == pytest.approx(OPTIMUM, rel=1e-9)


def test_options_of_the_call_and_of_the_solver_win():
    m = four_bar.build("rem")
    m.problem.solve("casadi_ipopt", options={"constr_mult_init_max": 1000})
    by_call = effort(m)
    m = four_bar.build("rem")
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.options["constr_mult_init_max"] = 1000
    opt.solve(m)
    assert effort(m) == pytest.approx(by_call, rel=1e-9)
    assert by_call > 1.2 * OPTIMUM   # the other local optimum: the default matters here


def test_with_model_defaults_fills_only_what_is_not_set():
    m = four_bar.build("rem", steps=4)
    m.problem.solver_defaults["tol"] = 1e-10
    keywords = {"tee": False, "options": {"tol": 1e-6}}
    merged = with_model_defaults(m, {}, keywords)
    assert merged["options"] == {"constr_mult_init_max": 0, "tol": 1e-6}
    assert keywords == {"tee": False, "options": {"tol": 1e-6}}          # not changed
    assert with_model_defaults(m, {"constr_mult_init_max": 5, "tol": 1}, keywords) is keywords
