"""The in-process path (casadi_ipopt, casadi_bonmin) against the AMPL path, and
what only the in-process translation can get wrong: shared named Expressions,
unsupported constructs, fixed variables and Params read at solve time, and the
signs of warm-start multipliers."""

import os
import subprocess
import sys

import casadi as ca
import numpy as np
import pyomo.environ as pyo
import pytest
from pyomo.opt import TerminationCondition as TC

import pyomo_mbdyn  # noqa: F401  (registers the plugins)
from pyomo_mbdyn.errors import UnsupportedModelError
from pyomo_mbdyn.solvers.pyomo_to_casadi import translate

from problems import (
    add_dual_suffixes,
    bounded_qp,
    discrete_pendulum_ocp,
    equality_qp,
    hs071,
)


def _maximisation():
    """max -(x-3)² - (y-2)² - (z+1)² s.t. x + y ≤ 2, x - y ≥ -10, y ≤ 0, z ≥ 0, x ≥ 1.5.

    Optimum (2, 0, 0): the row x + y ≤ 2, the upper bound of y and the lower
    bound of z are active."""
    m = pyo.ConcreteModel("max")
    m.x = pyo.Var(bounds=(1.5, None), initialize=1.7)
    m.y = pyo.Var(bounds=(None, 0.0), initialize=-1.0)
    m.z = pyo.Var(bounds=(0.0, None), initialize=1.0)
    m.obj = pyo.Objective(expr=-((m.x - 3) ** 2) - (m.y - 2) ** 2 - (m.z + 1) ** 2,
                          sense=pyo.maximize)
    m.cap = pyo.Constraint(expr=m.x + m.y <= 2)
    m.floor = pyo.Constraint(expr=m.x - m.y >= -10)
    return m


def _infeasible():
    m = pyo.ConcreteModel("infeasible")
    m.x = pyo.Var(initialize=0.1)
    m.y = pyo.Var(initialize=0.2)
    m.obj = pyo.Objective(expr=m.x + m.y)
    m.disc = pyo.Constraint(expr=m.x**2 + m.y**2 <= 1)
    m.far = pyo.Constraint(expr=m.x + m.y >= 3)
    return m


PROBLEMS = {
    "hs071": hs071,
    "equality_qp": equality_qp,
    "bounded_qp": bounded_qp,
    "pendulum_ocp": discrete_pendulum_ocp,
    "maximisation": _maximisation,
    "infeasible": _infeasible,
}


def _solve(build, name, **options):
    m = add_dual_suffixes(build())
    opt = pyo.SolverFactory(name)
    opt.options["tol"] = 1e-10
    opt.options.update(options)
    res = opt.solve(m)
    return m, res


def _point(m):
    x = {v.name: pyo.value(v) for v in m.component_data_objects(pyo.Var)}
    y = {c.name: m.dual.get(c) for c in m.component_data_objects(pyo.Constraint)}
    zl = {v.name: m.ipopt_zL_out.get(v) for v in m.component_data_objects(pyo.Var)}
    zu = {v.name: m.ipopt_zU_out.get(v) for v in m.component_data_objects(pyo.Var)}
    return x, y, zl, zu


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_in_process_and_ampl_paths_agree(problem):
    m1, r1 = _solve(PROBLEMS[problem], "casadi_ipopt")
    m2, r2 = _solve(PROBLEMS[problem], "casadi_ipopt_nl")
    assert r1.solver.termination_condition == r2.solver.termination_condition
    assert r1.solver.status == r2.solver.status
    assert r1.solver.message == r2.solver.message
    if r1.solver.termination_condition != TC.optimal:
        assert problem == "infeasible"
        assert _point(m1)[0] == _point(m2)[0]  # both left the initial point alone
        return
    for a, b in zip(_point(m1), _point(m2)):
        assert a.keys() == b.keys()
        for key in a:
            assert a[key] == pytest.approx(b[key], abs=1e-7), key
    assert pyo.value(m1.obj) == pytest.approx(pyo.value(m2.obj), rel=1e-12, abs=1e-12)


def test_maximisation_multipliers_satisfy_stationarity_in_ampl_signs():
    """For max f: ∇f - Σ dual ∇g - zL - zU = 0 in Ipopt's AMPL signs (as for min)."""
    m, res = _solve(_maximisation, "casadi_ipopt")
    assert res.solver.termination_condition == TC.optimal
    x, y, z = pyo.value(m.x), pyo.value(m.y), pyo.value(m.z)
    np.testing.assert_allclose([x, y, z], [2.0, 0.0, 0.0], atol=1e-8)
    grad_f = np.array([-2 * (x - 3), -2 * (y - 2), -2 * (z + 1)])
    v = [m.x, m.y, m.z]
    r = (grad_f - m.dual[m.cap] * np.array([1, 1, 0]) - m.dual[m.floor] * np.array([1, -1, 0])
         - np.array([m.ipopt_zL_out[w] for w in v]) - np.array([m.ipopt_zU_out[w] for w in v]))
    assert np.abs(r).max() < 1e-7
    # Ipopt minimises -f (σ = -1): dual = λ, ipopt_zL_out = -z_L, ipopt_zU_out = z_U
    assert m.dual[m.cap] == pytest.approx(2.0, abs=1e-7)
    assert m.ipopt_zU_out[m.y] == pytest.approx(2.0, abs=1e-7)
    assert m.ipopt_zL_out[m.z] == pytest.approx(-2.0, abs=1e-7)


@pytest.mark.parametrize("build", [_maximisation, bounded_qp], ids=["max", "bounded_qp"])
def test_warm_start_round_trip(build):
    """Duals and bound multipliers fed back as dual/ipopt_z*_in restart at the optimum."""
    m = add_dual_suffixes(build(), export=True)
    opt = pyo.SolverFactory("casadi_ipopt")
    cold = opt.solve(m)
    assert cold.solver.termination_condition == TC.optimal
    x_cold = [pyo.value(v) for v in m.component_data_objects(pyo.Var)]
    for v in m.component_data_objects(pyo.Var):
        m.ipopt_zL_in[v] = m.ipopt_zL_out[v]
        m.ipopt_zU_in[v] = m.ipopt_zU_out[v]
    opt.options.update({"warm_start_init_point": "yes", "warm_start_bound_push": 1e-9,
                        "warm_start_mult_bound_push": 1e-9, "mu_init": 1e-9})
    warm = opt.solve(m)
    assert warm.solver.termination_condition == TC.optimal
    assert warm.solver.iterations <= 2 < cold.solver.iterations
    np.testing.assert_allclose([pyo.value(v) for v in m.component_data_objects(pyo.Var)],
                               x_cold, atol=1e-7)


def test_warm_start_with_wrong_signs_would_not_converge_at_once():
    """The inverse sign map matters: flipped multipliers cost iterations."""
    m = add_dual_suffixes(_maximisation(), export=True)
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.solve(m)
    for c in list(m.dual):
        m.dual[c] = -m.dual[c]
    for v in m.component_data_objects(pyo.Var):
        m.ipopt_zL_in[v] = -m.ipopt_zL_out[v]
        m.ipopt_zU_in[v] = -m.ipopt_zU_out[v]
    opt.options.update({"warm_start_init_point": "yes", "warm_start_bound_push": 1e-9,
                        "warm_start_mult_bound_push": 1e-9, "mu_init": 1e-9})
    assert opt.solve(m).solver.iterations > 2


# ------------------------------------------------------------ named Expressions
def _nested(depth):
    """e_k = 0.5 e_{k-1} + 0.1 sin(e_{k-1}) + 0.01 e_{k-1}²: each level uses the
    previous twice or more, so a walk without sharing visits ~3^depth nodes."""
    m = pyo.ConcreteModel("nested")
    m.K = pyo.RangeSet(0, depth)
    m.x = pyo.Var(initialize=0.3, bounds=(-1, 1))
    m.e = pyo.Expression(m.K)
    m.e[0] = m.x
    for k in range(1, depth + 1):
        prev = m.e[k - 1]
        m.e[k] = 0.5 * prev + 0.1 * pyo.sin(prev) + 0.01 * prev * prev
    m.obj = pyo.Objective(expr=(m.e[depth] - 0.01) ** 2 + m.x**2)
    m.con = pyo.Constraint(expr=m.e[depth] + m.e[depth // 2] >= -1)
    return m


@pytest.mark.parametrize("depth", [50, 400])
def test_named_expressions_translate_in_linear_time(depth):
    nlp = translate(_nested(depth))
    # per level: sum, two products, a monomial, sin and the named Expression itself
    assert nlp.visits <= 8 * depth + 20
    fun = ca.Function("fg", [nlp.x], [nlp.f, nlp.g])
    assert fun.n_instructions() <= 10 * depth + 30
    # the values are those of the recursion (Pyomo's own value() would take 3^depth steps)
    e = [0.3]
    for _ in range(depth):
        e.append(0.5 * e[-1] + 0.1 * np.sin(e[-1]) + 0.01 * e[-1] * e[-1])
    f, g = fun(nlp.x0)
    assert float(f) == pytest.approx((e[depth] - 0.01) ** 2 + 0.09, rel=1e-12)
    assert float(g) == pytest.approx(e[depth] + e[depth // 2], rel=1e-12)


def test_deep_nesting_beyond_the_recursion_limit():
    depth = 3 * sys.getrecursionlimit()
    m = pyo.ConcreteModel()
    m.x = pyo.Var(initialize=1.0)
    m.e = pyo.Expression(range(depth + 1))
    m.e[0] = m.x
    for k in range(1, depth + 1):
        m.e[k] = m.e[k - 1] + 1e-3 * m.x
    m.obj = pyo.Objective(expr=(m.e[depth] - 2.0) ** 2)
    nlp = translate(m)
    assert nlp.visits <= 3 * depth + 10
    res = pyo.SolverFactory("casadi_ipopt").solve(m)
    assert res.solver.termination_condition == TC.optimal
    assert pyo.value(m.x) == pytest.approx(2.0 / (1 + 1e-3 * depth), rel=1e-9)


# ------------------------------------------------------------ unsupported constructs
def test_expr_if_inside_a_named_expression_names_both():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(initialize=1.0)
    m.kink = pyo.Expression(expr=pyo.Expr_if(IF=m.x >= 0, THEN=m.x, ELSE=-m.x))
    m.obj = pyo.Objective(expr=m.x**2)
    m.c1 = pyo.Constraint(expr=m.x >= -5)
    m.c2 = pyo.Constraint(expr=m.kink + m.x >= 1)
    with pytest.raises(UnsupportedModelError, match=r"Expr_if.*Expression 'kink'.*constraint 'c2'"):
        pyo.SolverFactory("casadi_ipopt").solve(m)


def test_unsupported_objective_is_named():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(initialize=1.0)
    m.cost = pyo.Objective(expr=pyo.Expr_if(IF=m.x >= 0, THEN=m.x**2, ELSE=m.x))
    with pytest.raises(UnsupportedModelError, match=r"objective 'cost'"):
        pyo.SolverFactory("casadi_ipopt").solve(m)


def test_external_function_is_refused_naming_the_constraint():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(initialize=1.0)
    m.f = pyo.ExternalFunction(library="nowhere.so", function="f")
    m.obj = pyo.Objective(expr=m.x**2)
    m.ext = pyo.Constraint(expr=m.f(m.x) >= 1)
    with pytest.raises(UnsupportedModelError, match=r"external function.*constraint 'ext'"):
        pyo.SolverFactory("casadi_ipopt").solve(m)


def test_log10_is_translated_and_abs_refused_as_nonsmooth():
    """log10 is translated; abs (like min, max, floor, ceil) is refused by name since
    issue 18 — IPOPT assumes twice-differentiable functions
    (tests/solvers/test_driver_hardening.py covers each and both paths)."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(initialize=0.5, bounds=(-2, 2))
    m.y = pyo.Var(initialize=0.5, bounds=(-2, 2))
    m.obj = pyo.Objective(expr=(m.x - 1.5) ** 2 + (m.y + 1.5) ** 2)
    m.c = pyo.Constraint(expr=m.x + pyo.log10(100 + m.y**2) <= 3)
    nlp = translate(m)
    assert nlp.visits > 0
    res = pyo.SolverFactory("casadi_ipopt").solve(m)
    assert res.solver.termination_condition == TC.optimal
    assert pyo.value(m.c.body) == pytest.approx(3.0, abs=1e-7)
    m.c.set_value(abs(m.x) + pyo.log10(100 + m.y**2) <= 3)
    with pytest.raises(UnsupportedModelError, match="abs\\(\\) \\(nonsmooth.*constraint 'c'"):
        pyo.SolverFactory("casadi_ipopt").solve(m)


# ------------------------------------------------------------ the model is read at solve time
def test_variable_fixed_after_a_solve_is_respected():
    m = add_dual_suffixes(hs071())
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.solve(m)
    assert pyo.value(m.x[2]) == pytest.approx(4.742999, abs=1e-6)
    m.x[2].fix(4.0)
    res = opt.solve(m)
    assert res.solver.termination_condition == TC.optimal
    assert pyo.value(m.x[2]) == 4.0
    assert m.x[2] not in m.ipopt_zL_out  # a fixed variable is not part of the NLP
    ref = add_dual_suffixes(hs071())
    ref.x[2].fix(4.0)
    pyo.SolverFactory("casadi_ipopt_nl").solve(ref)
    for i in (1, 3, 4):
        assert pyo.value(m.x[i]) == pytest.approx(pyo.value(ref.x[i]), abs=1e-7)
    m.x[2].unfix()
    opt.solve(m)
    assert pyo.value(m.obj) == pytest.approx(17.0140173, abs=1e-6)


def test_mutable_param_change_is_respected():
    m = pyo.ConcreteModel()
    m.p = pyo.Param(initialize=1.0, mutable=True)
    m.x = pyo.Var(initialize=0.0)
    m.obj = pyo.Objective(expr=(m.x - m.p) ** 2)
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.solve(m)
    assert pyo.value(m.x) == pytest.approx(1.0)
    m.p = 3.0
    opt.solve(m)
    assert pyo.value(m.x) == pytest.approx(3.0)


def test_unreferenced_variables_keep_their_values():
    m = hs071()
    m.spare = pyo.Var(initialize=7.0)
    pyo.SolverFactory("casadi_ipopt").solve(m)
    assert pyo.value(m.spare) == 7.0


def test_load_solutions_false_leaves_the_model_and_loads_later():
    m = hs071()
    opt = pyo.SolverFactory("casadi_ipopt")
    res = opt.solve(m, load_solutions=False)
    assert res.solver.termination_condition == TC.optimal
    assert pyo.value(m.x[2]) == 5
    m.solutions.load_from(res)
    assert pyo.value(m.x[2]) == pytest.approx(4.742999, abs=1e-6)


def test_timings_cover_the_phases():
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.solve(hs071())
    assert set(opt.timings) >= {"translate", "nlpsol", "solve", "load", "total"}
    assert all(t >= 0 for t in opt.timings.values())


def test_bonmin_in_process_matches_the_ampl_path():
    from test_casadi_plugins import _minlp

    a, b = _minlp(), _minlp()
    ra = pyo.SolverFactory("casadi_bonmin").solve(a)
    rb = pyo.SolverFactory("casadi_bonmin_nl").solve(b)
    assert ra.solver.termination_condition == rb.solver.termination_condition == TC.optimal
    for v in ("x", "y", "z"):
        assert pyo.value(getattr(a, v)) == pytest.approx(pyo.value(getattr(b, v)), abs=1e-6)


def test_ampl_driver_imports_no_pyomo(tmp_path):
    """The subprocess path runs the driver script, which needs casadi only."""
    from pyomo_mbdyn.solvers import ampl_driver

    m = hs071()
    stub = str(tmp_path / "hs071")
    m.write(stub + ".nl", format="nl")
    code = (
        "import runpy, sys; "
        f"sys.path.insert(0, {os.path.dirname(ampl_driver.__file__)!r}); "
        f"sys.argv = ['ampl_driver.py', 'ipopt', {stub!r}, '-AMPL']; "
        "exec('try:\\n runpy.run_path(sys.path[0] + \"/ampl_driver.py\", run_name=\"__main__\")\\n"
        "except SystemExit:\\n pass'); "
        "print('PYOMO' if any(k.split('.')[0] in ('pyomo', 'pyomo_mbdyn') for k in sys.modules) else 'CLEAN')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "CLEAN"
    assert os.path.exists(stub + ".sol")
