"""The structured in-process path: scheme blocks' step residuals mapped over the
intervals (pyomo_mbdyn.solvers.mapped) give the same NLP as the flat walk —
values, Jacobian and Hessian of the Lagrangian — and see every change made to
the Pyomo model (deactivated or rewritten rows, fixed variables)."""

import casadi as ca
import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings, strategies as st

from pyomo_mbdyn.models import crane, three_link_arm
from pyomo_mbdyn.ocp import OptimalControlProblem
from pyomo_mbdyn.solvers.mapped import _step_derivatives
from pyomo_mbdyn.solvers.pyomo_to_casadi import translate
from pyomo_mbdyn.schemes import scheme_block
from pyomo_mbdyn.schemes.deferred import is_deferred

ARM_SCHEMES = ["bem", "rem", "gc", "dmocc", "dmocc_lm", "rattle"]


def _flat_derivatives(nlp):
    lam_f, lam_g = ca.SX.sym("lf"), ca.SX.sym("lg", nlp.n_con)
    return ca.Function("flat", [nlp.x, lam_f, lam_g], [
        nlp.g, ca.jacobian(nlp.g, nlp.x),
        ca.hessian(lam_f * nlp.f + ca.dot(lam_g, nlp.g), nlp.x)[0]])


def _structured_derivatives(nlp):
    fun = nlp.extras["functions"]
    X, lam_f, lam_g = ca.MX.sym("x", nlp.n_var), ca.MX.sym("lf"), ca.MX.sym("lg", nlp.n_con)
    P = ca.MX(0, 1)
    g, jac = fun["jac_g"](X, P)
    H = fun["hess_lag"](X, P, lam_f, lam_g)
    return ca.Function("mapped", [X, lam_f, lam_g], [g, jac, H + ca.triu(H, False).T])


def assert_same_nlp(model, seed=0, scale=1e-2):
    """g, ∇g and ∇²L of both paths at a random point near the guess, rows and
    columns matched through the Pyomo components."""
    unbuilt = {id(c) for c in model.component_data_objects(pyo.Constraint, active=True) if is_deferred(c)}
    mapped = translate(model, structured=True)
    assert "functions" in mapped.extras, "nothing was mapped"
    # the structured path evaluates the step Functions: it builds no row it maps
    rows = mapped.constraints[mapped.n_con - mapped.extras["mapped_rows"]:]
    assert rows and all(is_deferred(c) for c in rows if id(c) in unbuilt)
    flat = translate(model, structured=False)
    assert {id(v) for v in flat.variables} == {id(v) for v in mapped.variables}
    assert {id(c) for c in flat.constraints} == {id(c) for c in mapped.constraints}
    col = {id(v): i for i, v in enumerate(flat.variables)}
    row = {id(c): j for j, c in enumerate(flat.constraints)}
    p = [col[id(v)] for v in mapped.variables]        # mapped column i is flat column p[i]
    r = [row[id(c)] for c in mapped.constraints]
    rng = np.random.default_rng(seed)
    x = flat.x0 + scale * rng.standard_normal(flat.n_var)
    lam = rng.standard_normal(flat.n_con)
    g0, J0, H0 = (np.asarray(ca.DM(a).full()) for a in _flat_derivatives(flat)(x, 0.7, lam))
    g1, J1, H1 = (np.asarray(ca.DM(a).full()) for a in _structured_derivatives(mapped)(x[p], 0.7, lam[r]))
    tol = lambda a: 1e-10 * (1 + np.abs(a).max())  # noqa: E731
    np.testing.assert_allclose(g1.ravel(), g0.ravel()[r], rtol=0, atol=tol(g0))
    np.testing.assert_allclose(J1, J0[np.ix_(r, p)], rtol=0, atol=tol(J0))
    np.testing.assert_allclose(H1, H0[np.ix_(p, p)], rtol=0, atol=tol(H0))
    return flat, mapped


@pytest.mark.parametrize("scheme, configurations", [(s, None) for s in ARM_SCHEMES]
                         + [(s, "lifted") for s in three_link_arm.CONFIGURATIONS])
def test_every_arm_scheme_maps_to_the_same_nlp(scheme, configurations):
    """Every scheme in the model's configuration form (None) and, where the model
    chooses another, with node configurations as variables ("lifted")."""
    m = three_link_arm.build(scheme, steps=4, configurations=configurations)
    _, mapped = assert_same_nlp(m)
    assert mapped.extras["mapped"], mapped.extras


@pytest.mark.parametrize("scheme, configurations", [("dmocc", "absolute"), ("dmocc", "minimal"),
                                                     ("rem", "absolute"), ("bem", "absolute")])
def test_forms_with_expression_inputs_map_to_the_same_nlp(scheme, configurations):
    """Inputs that are expressions of the unknowns (q_k = F(θ_k), or the nested
    q_{k+1} = F(w_k, q_k)) enter through the chain rule ∇z and μ = Dᵀλ."""
    system = three_link_arm.build_system()
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=system, steps=4, horizon=1.0, configurations=configurations)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({a: 0.5 for a in m.dyn.actuated})
    assert_same_nlp(m, scale=1e-1)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), scale=st.sampled_from([1e-3, 1e-1, 1.0]))
def test_crane_rem_same_nlp_at_random_points(seed, scale):
    assert_same_nlp(crane.build("rem", steps=5), seed=seed, scale=scale)


def _solve(model, structured):
    model.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    opt = pyo.SolverFactory("casadi_ipopt", structured=structured)
    opt.options["tol"] = 1e-10
    results = opt.solve(model)
    assert str(results.solver.termination_condition) == "optimal"
    x = np.array([v.value for v in model.component_data_objects(pyo.Var)])
    duals = {c.name: model.dual[c] for c in model.component_data_objects(pyo.Constraint, active=True)}
    return pyo.value(model.problem.objective if hasattr(model.problem, "objective") else
                     next(model.component_data_objects(pyo.Objective))), x, duals, opt


@pytest.mark.parametrize("configurations", ["absolute", "lifted"])
@pytest.mark.parametrize("scheme", ["bem", "rem"])
def test_crane_solves_identically_on_both_paths(scheme, configurations):
    J0, x0, d0, _ = _solve(crane.build(scheme, steps=20, configurations=configurations), structured=False)
    J1, x1, d1, opt = _solve(crane.build(scheme, steps=20, configurations=configurations), structured=True)
    assert opt._nlp.extras["mapped"]
    assert J1 == pytest.approx(J0, rel=1e-9)
    np.testing.assert_allclose(x1, x0, rtol=1e-6, atol=1e-8)
    assert d1.keys() == d0.keys()
    np.testing.assert_allclose([d1[k] for k in d0], [d0[k] for k in d0], rtol=1e-5, atol=1e-7)


def test_changes_in_pyomo_reach_the_mapped_path():
    """A deactivated row, a rewritten row and a fixed variable inside the mapped
    intervals: the interval concerned is walked, the NLPs stay equal."""
    m = three_link_arm.build("rem", steps=4)
    dyn = m.dyn
    j = next(iter(dyn.velocities))
    dyn.momentum_balance[1, j].deactivate()
    c = next(iter(dyn.body.values())).kinematics
    key = next(k for k in c if k[0] == 2)
    c[key].set_value(c[key].body + 0.5 * dyn.u[2, next(iter(dyn.actuated))] ** 2 == 0.1)
    dyn.u[0, next(iter(dyn.actuated))].fix(3.0)
    flat, mapped = assert_same_nlp(m)
    assert mapped.extras["mapped"] == [("rem_step", 2)]  # intervals 0 and 3
    assert id(dyn.momentum_balance[1, j]) not in {id(x) for x in mapped.constraints}
    assert id(c[key]) in {id(x) for x in mapped.constraints}
    assert id(dyn.u[0, next(iter(dyn.actuated))]) not in {id(x) for x in mapped.variables}


def test_fixed_control_is_kept_by_the_structured_solve():
    m = crane.build("bem", steps=12)
    a = next(iter(m.dyn.actuated))
    m.dyn.u[5, a].fix(0.25)
    _, _, _, opt = _solve(m, structured=True)
    assert m.dyn.u[5, a].value == 0.25 and m.dyn.u[5, a].fixed
    assert opt._nlp.extras["mapped"]


def test_rebuilt_models_reuse_the_step_derivatives():
    """Sweeps and multi-starts rebuild the model: the step Functions' derivatives
    are generated once (cached by the Function's serialised form)."""
    first = crane.build("rem", steps=6).dyn.uniform_residuals()[0].function
    second = crane.build("rem", steps=6).dyn.uniform_residuals()[0].function
    assert _step_derivatives(first) is _step_derivatives(second)
    other = crane.build("rem", steps=7).dyn.uniform_residuals()[0].function  # another h
    assert _step_derivatives(other) is not _step_derivatives(first)


def _synthetic_step():
    z = ca.SX.sym("z", 3)
    return ca.Function("step", [z], [ca.vertcat(z[0] * z[1] - ca.cos(z[2]), z[2] ** 3 + z[0])])


@pytest.mark.parametrize("with_direct_key", [True, False])
def test_composed_groups_cover_every_key_and_state_the_same_rows(with_direct_key):
    """Keys whose inputs are one function G of their variables are passed as F∘G;
    plain keys stay with F; a key with a graph of its own joins F when F is needed
    anyway, and is composed on its own otherwise.  Values and the chain-rule
    derivatives equal F's at z_k = G(s_k)."""
    from pyomo_mbdyn.solvers.mapped import composed_groups

    F = _synthetic_step()
    x = ca.SX.sym("x", 12)
    inputs = [ca.vertcat(ca.sin(x[3]), x[3] * x[4], x[5]),
              ca.vertcat(ca.sin(x[6]), x[6] * x[7], x[8]),
              ca.vertcat(2.0, ca.sin(x[9]), x[10])]            # its own graph (a fixed variable)
    if with_direct_key:
        inputs.insert(1, ca.vertcat(x[0], x[1], x[2]))
    groups = composed_groups(F, inputs)
    keys = sorted(k for _, ks, _ in groups for k in ks)
    assert keys == list(range(len(inputs)))
    shapes = sorted(len(ks) for f, ks, _ in groups if f is not F)
    assert shapes == ([2] if with_direct_key else [1, 2])
    rng = np.random.default_rng(1)
    point = rng.standard_normal(12)
    lam = rng.standard_normal(2)
    for f, ks, args in groups:
        J, H = _step_derivatives(f)
        for k, s in zip(ks, args):
            expected = ca.Function("e", [x], [F(inputs[k]), ca.jacobian(F(inputs[k]), x),
                                              ca.hessian(ca.dot(lam, F(inputs[k])), x)[0]])
            r0, J0, H0 = (np.asarray(ca.DM(a).full()) for a in expected(point))
            sk = ca.Function("s", [x], [s])(point)
            Js = np.asarray(ca.DM(ca.Function("ds", [x], [ca.jacobian(s, x)])(point)).full())
            np.testing.assert_allclose(np.asarray(f(sk).full()), r0, atol=1e-12)
            np.testing.assert_allclose(np.asarray(J(sk).full()) @ Js, J0, atol=1e-12)
            if f is not F:  # s_k are variables: the Hessian in s is the Hessian in x
                np.testing.assert_allclose(Js.T @ np.asarray(H(sk, lam).full()) @ Js, H0, atol=1e-12)


@pytest.mark.parametrize("scheme", ["rem", "bem", "dmocc"])
def test_absolute_forms_pass_the_chart_composed_with_the_step(scheme):
    """In the absolute forms every interval's inputs are q_k = F(θ_k): the step is
    differentiated through the chart (extras['composed']), and the NLP is the flat
    walk's — also with a node fixed inside the horizon (a key of its own shape)."""
    system = three_link_arm.build_system()
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=system, steps=8, horizon=1.0, configurations="absolute")
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({a: 0.5 for a in m.dyn.actuated})
    _, mapped = assert_same_nlp(m, scale=1e-1)
    keys = sum(K for _, K in mapped.extras["mapped"])   # intervals (BEM, REM) or inner nodes (DMOCC)
    assert keys >= 7 and sum(K for _, K in mapped.extras["composed"]) == keys, mapped.extras
    theta = m.dyn.theta
    theta[next(k for k in theta if k[0] == 2)].fix(0.3)
    _, mapped = assert_same_nlp(m, scale=1e-1)
    sizes = [K for _, K in mapped.extras["composed"]]
    assert len(sizes) >= 2 and max(sizes) >= 4, mapped.extras   # the fixed node's keys apart


def test_inputs_nested_over_the_horizon_stay_with_the_step():
    """The minimal forms' q_k = q_0 + Σ_{j<k} w_j: every key's graph is its own, and
    composing F with each would cost one Hessian per key — they stay with F."""
    from pyomo_mbdyn.solvers.mapped import composed_groups

    F = _synthetic_step()
    w = ca.SX.sym("w", 8)
    inputs = [ca.vertcat(ca.sum1(w[:k + 1]), w[k], ca.sin(w[k])) for k in range(6)]
    [(f, keys, args)] = composed_groups(F, inputs)
    assert f is F and keys == list(range(6)) and all(a is b for a, b in zip(args, inputs))
