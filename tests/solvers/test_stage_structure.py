"""The stage structure (pyomo_mbdyn.solvers.stages) and the ``casadi_fatrop`` plugin.

The lifted NLP is in the form fatrop reads — every unknown and row in exactly one
place, gap rows ``x_{k+1} − z_k`` with +1 on the next state, path rows only in their own
stage, a Hessian block diagonal by stage — and fatrop finds IPOPT's optimum on the
pendulum and the three-link arm.  What does not fit is refused by name.
"""

import casadi as ca
import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.models import pendulum, three_link_arm
from pyomo_mbdyn.solvers.pyomo_to_casadi import translate
from pyomo_mbdyn.solvers.stages import StagePlan

#: (module, scheme, steps) where the structure fits
CASES = [
    (pendulum, "direct-midpoint", 8),
    (pendulum, "direct-greenspan", 8),
    (three_link_arm, "gc", 6),
    (three_link_arm, "rem", 5),
    (three_link_arm, "bem", 5),
]
IDS = [f"{m.__name__.rsplit('.', 1)[1]}-{s}" for m, s, _ in CASES]


def _unknowns(model):
    return {v.name: v.value for v in model.component_data_objects(pyo.Var) if not v.fixed}


def _objective(model):
    return pyo.value(next(model.component_data_objects(pyo.Objective, active=True)))


@pytest.mark.parametrize("module, scheme, steps", CASES, ids=IDS)
def test_fatrop_finds_ipopts_optimum(module, scheme, steps):
    """Same objective and same trajectory (every unknown) to the solvers' tolerance (1e-8)."""
    solved = {}
    for name in ("casadi_ipopt", "casadi_fatrop"):
        model = module.build(scheme=scheme, steps=steps)
        results = pyo.SolverFactory(name).solve(model)
        assert results.solver.termination_condition == pyo.TerminationCondition.optimal, name
        assert results.solver.iterations > 0
        solved[name] = model
    ipopt, fatrop = solved["casadi_ipopt"], solved["casadi_fatrop"]
    assert _objective(fatrop) == pytest.approx(_objective(ipopt), rel=1e-7)
    a, b = _unknowns(ipopt), _unknowns(fatrop)
    assert a.keys() == b.keys()
    scale = 1 + max(abs(v) for v in a.values())
    assert max(abs(a[k] - b[k]) for k in a) <= 1e-6 * scale


def test_fatrop_duals_are_ipopts():
    """The rows' multipliers of the lifted NLP are the model's: the ``dual`` Suffix as IPOPT's."""
    duals = {}
    for name in ("casadi_ipopt", "casadi_fatrop"):
        model = pendulum.build(scheme="direct-midpoint", steps=8)
        assert isinstance(model.dual, pyo.Suffix)
        pyo.SolverFactory(name).solve(model)
        duals[name] = {c.name: model.dual[c] for c in model.component_data_objects(pyo.Constraint, active=True)}
    a, b = duals["casadi_ipopt"], duals["casadi_fatrop"]
    assert a.keys() == b.keys() and len(a) > 0
    scale = 1 + max(abs(v) for v in a.values())
    assert max(abs(a[k] - b[k]) for k in a) <= 1e-5 * scale


def test_fatrop_bound_multipliers_are_ipopts():
    """Active torque bounds (the arm's bounded case): the same ``ipopt_zU_out`` as IPOPT's."""
    found = {}
    for name in ("casadi_ipopt", "casadi_fatrop"):
        model = three_link_arm.build(scheme="gc", steps=8, case="bounded")
        model.ipopt_zL_out = pyo.Suffix(direction=pyo.Suffix.IMPORT)
        model.ipopt_zU_out = pyo.Suffix(direction=pyo.Suffix.IMPORT)
        results = pyo.SolverFactory(name).solve(model)
        assert results.solver.termination_condition == pyo.TerminationCondition.optimal, name
        found[name] = {v.name: (model.ipopt_zL_out.get(v, 0.0), model.ipopt_zU_out.get(v, 0.0))
                       for v in model.component_data_objects(pyo.Var) if not v.fixed}
    a, b = found["casadi_ipopt"], found["casadi_fatrop"]
    active = [k for k, (lo, up) in a.items() if abs(lo) + abs(up) > 1.0]
    assert active, "no bound is active: the test would not test the bound multipliers"
    scale = 1 + max(abs(lo) + abs(up) for lo, up in a.values())
    assert max(abs(a[k][0] - b[k][0]) + abs(a[k][1] - b[k][1]) for k in a) <= 1e-5 * scale


def _dense(sx_fun, x):
    return np.asarray(ca.DM(sx_fun(x)).full())


@pytest.mark.parametrize("module, scheme, steps", CASES, ids=IDS)
def test_stage_order_is_a_permutation_in_fatrops_form(module, scheme, steps):
    model = module.build(scheme=scheme, steps=steps)
    flat = translate(model, structured=False)
    nlp = translate(model, structured=False, stage_wise=True)
    L = nlp.extras["stages"]
    # every unknown and every row of the model exactly once
    assert {id(v) for v in nlp.variables} == {id(v) for v in flat.variables}
    assert sorted(set(L.home)) == sorted(L.home) and len(L.home) == nlp.n_var
    assert all(L.columns[j] == i for i, j in enumerate(L.home))
    assert sorted(L.rows) == sorted(set(L.rows)) and len(L.rows) == nlp.n_con == flat.n_con
    n_gap = sum(L.nx[1:])
    assert nlp.x.numel() == L.n_columns == sum(L.nx) + sum(L.nu) == nlp.n_var + n_gap  # a copy per gap
    assert nlp.g.numel() == L.n_rows == nlp.n_con + n_gap == len(nlp.lbg)
    assert len(L.nx) == len(L.nu) == len(L.ng) == L.N + 1
    # the same rows: original row r of the model is lifted row L.rows[r], equal at the start
    # (the copies start at their originals' values)
    g = _dense(ca.Function("g", [nlp.x], [nlp.g]), nlp.x0).ravel()
    g0 = _dense(ca.Function("g", [flat.x], [flat.g]), flat.x0).ravel()
    pos = {id(c): j for j, c in enumerate(flat.constraints)}
    np.testing.assert_allclose(g[list(L.rows)], g0[[pos[id(c)] for c in nlp.constraints]], rtol=0, atol=1e-12)
    # fatrop's form: per stage the gap rows (+1 on x_{k+1}, -1 on its copy in u_k), then path
    # rows in the stage's own columns only
    J = ca.jacobian(nlp.g, nlp.x)
    rows_of = [[] for _ in range(L.n_rows)]
    values = ca.Function("J", [nlp.x], [J])(nlp.x0)
    Jd = np.asarray(ca.DM(values).full())
    for r, c in zip(*J.sparsity().get_triplet()):
        rows_of[r].append(c)
    start_col = np.cumsum([0] + [nx + nu for nx, nu in zip(L.nx, L.nu)])
    row = 0
    for k in range(L.N + 1):
        own = set(range(start_col[k], start_col[k + 1]))
        if k < L.N:
            for i in range(L.nx[k + 1]):
                state = start_col[k + 1] + i
                cols = rows_of[row]
                assert state in cols and Jd[row, state] == 1.0
                (copy,) = [c for c in cols if c != state]
                assert copy in own and Jd[row, copy] == -1.0 and L.columns[copy] == L.columns[state]
                row += 1
        for _ in range(L.ng[k]):
            assert set(rows_of[row]) <= own, f"row {row} of stage {k} reaches another stage"
            row += 1
    assert row == L.n_rows
    lam = ca.SX.sym("lam", L.n_rows)
    H = ca.hessian(nlp.f + ca.dot(lam, nlp.g), nlp.x)[0]
    assert L.hessian_fits(*H.sparsity().get_triplet()) == []


def test_mapped_stage_order_states_the_same_rows():
    """With ``structured`` the lifted NLP is the mapped graph (its stages planned from each
    step's inputs, so a coarser layout); the model's rows are the same."""
    model = three_link_arm.build(scheme="rem", steps=5)
    flat = translate(model, structured=False, stage_wise=True)
    mapped = translate(model, structured=True, stage_wise=True)
    assert "functions" not in mapped.extras and mapped.extras["mapped"]
    assert {id(v) for v in mapped.variables} == {id(v) for v in flat.variables}
    rng = np.random.default_rng(0)
    value = {id(v): (v.value or 0.0) + 1e-2 * rng.standard_normal() for v in flat.variables}
    g = {}
    for nlp in (flat, mapped):  # every column (copies too) at its unknown's value
        L = nlp.extras["stages"]
        x = np.array([value[id(nlp.variables[i])] for i in L.columns])
        rows = np.asarray(ca.Function("g", [nlp.x], [nlp.g])(x)).ravel()
        g[id(nlp)] = {id(c): rows[L.rows[r]] for r, c in enumerate(nlp.constraints)}
    a, b = g[id(flat)], g[id(mapped)]
    assert a.keys() == b.keys()
    scale = 1 + max(abs(v) for v in a.values())
    assert max(abs(a[k] - b[k]) for k in a) <= 1e-10 * scale


def test_free_final_time_is_refused_by_name():
    model = three_link_arm.build(scheme="rem", steps=4, case="time")
    with pytest.raises(ConfigurationError, match=r"casadi_fatrop: the stage structure does not fit: the unknown "
                                                 r"dyn\.final_time"):
        pyo.SolverFactory("casadi_fatrop").solve(model)


def test_row_across_intervals_is_refused_by_name():
    model = three_link_arm.build(scheme="gc", steps=4)
    j = next(iter(model.dyn.velocities))
    model.periodic = pyo.Constraint(expr=model.dyn.theta[1, j] == model.dyn.theta[3, j])
    with pytest.raises(ConfigurationError, match=r"the constraint periodic couples nodes \[1, 3\]"):
        pyo.SolverFactory("casadi_fatrop").solve(model)
    # IPOPT solves it
    assert pyo.SolverFactory("casadi_ipopt").solve(model).solver.termination_condition == \
        pyo.TerminationCondition.optimal


def test_rows_over_two_intervals_are_refused_by_name():
    """DMOCC's momentum matching joins intervals k-1 and k: not one stage."""
    model = three_link_arm.build(scheme="dmocc", steps=4)
    with pytest.raises(ConfigurationError, match=r"the constraint dyn\.momentum_matching\[1,.*\] couples "
                                                 r"intervals \[0, 1\]"):
        pyo.SolverFactory("casadi_fatrop").solve(model)


def test_objective_across_stages_is_refused_by_name():
    model = three_link_arm.build(scheme="gc", steps=4)
    j = next(iter(model.dyn.velocities))
    objective = next(model.component_data_objects(pyo.Objective, active=True))
    objective.expr = objective.expr + (model.dyn.theta[1, j] * model.dyn.theta[3, j])
    with pytest.raises(ConfigurationError, match=r"the objective couples unknowns of dyn\.theta\[1,.*\] and "
                                                 r"dyn\.theta\[3,.*\]"):
        pyo.SolverFactory("casadi_fatrop").solve(model)


def test_plan_places_shared_unknowns_as_states_with_copies():
    """Node 1 used by intervals 0 and 1: a state of stage 1 copied into stage 0; node 2 used
    by interval 1 alone: a control of stage 1; a row over two intervals is refused."""
    positions = [("node", 1), ("node", 2), ("interval", 0), ("interval", 1)]
    plan = StagePlan(positions, [[0, 2], [0, 1, 3]], pairs=[], steps=2)
    assert plan.group_stage == [0, 1]
    assert plan.is_state == [True, False, False, False] and plan.copy_stage == {0: 0}
    assert plan.stage_of == [1, 1, 0, 1] and plan.nx == [0, 1] and plan.nu == [2, 2]
    with pytest.raises(ConfigurationError, match=r"row group 0 couples intervals \[0, 1\]"):
        StagePlan(positions, [[2, 3]], pairs=[], steps=2)


def test_fatrop_options_and_limits():
    model = pendulum.build(scheme="direct-midpoint", steps=6)
    with pytest.raises(ConfigurationError, match="Fatrop has no time limit"):
        pyo.SolverFactory("casadi_fatrop").solve(model, timelimit=10)
    with pytest.raises(ConfigurationError, match="not_a_fatrop_option"):
        pyo.SolverFactory("casadi_fatrop", options={"not_a_fatrop_option": 1}).solve(model)
    with pytest.raises(ConfigurationError, match="fatrop reads no option files"):
        pyo.SolverFactory("casadi_fatrop", options={"option_file_name": "x.opt"}).solve(model)
    results = pyo.SolverFactory("casadi_fatrop", options={"max_iter": 2}).solve(model, load_solutions=False)
    assert results.solver.termination_condition == pyo.TerminationCondition.maxIterations
    assert results.solver.iterations == 3  # fatrop's count: max_iter + 1 at its limit


def test_casadi_fatrop_is_listed_in_process_only():
    from pyomo_mbdyn.solvers.selection import BUNDLED, available_solvers

    assert BUNDLED["casadi_fatrop"] == "fatrop" and "casadi_fatrop_nl" not in BUNDLED
    names = {s["name"] for s in available_solvers()}
    assert "casadi_fatrop" in names and "casadi_fatrop_nl" not in names
    assert pyo.SolverFactory("casadi_fatrop").available()
