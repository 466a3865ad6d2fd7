"""The structured translation calls the compiled chart for the absolute forms' node
configurations (``compiled_node_expressions``) instead of walking their Pyomo trees:
the NLP is the same as the walked one — rows, objective and Jacobian equal at random
points, variables matched by identity — and a node Expression the user changed is
walked, so the change reaches the solver."""

import casadi
import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.solvers import pyomo_to_casadi as p2c


def _functions(nlp):
    x = nlp.x
    return casadi.Function("nlp", [x], [nlp.g, nlp.f, casadi.jacobian(nlp.g, x)])


def _compare(m, monkeypatch, rng):
    seeded = p2c.translate(m)
    with monkeypatch.context() as patch:
        patch.setattr(p2c, "_seed_compiled_nodes", lambda block, tr: None)
        walked = p2c.translate(m)
    assert seeded.n_var == walked.n_var and seeded.n_con == walked.n_con
    column = {id(v): i for i, v in enumerate(walked.variables)}
    perm = np.array([column[id(v)] for v in seeded.variables])
    row = {id(c): j for j, c in enumerate(walked.constraints)}
    rows = np.array([row[id(c)] for c in seeded.constraints])
    fs, fw = _functions(seeded), _functions(walked)
    for _ in range(3):
        x = rng.uniform(-1, 1, seeded.n_var)
        xw = np.empty_like(x)
        xw[perm] = x
        gs, js_f, Js = fs(x)
        gw, jw_f, Jw = fw(xw)
        gs, gw = np.asarray(gs).ravel(), np.asarray(gw).ravel()
        scale = 1 + np.abs(gw).max()
        assert np.abs(gs - gw[rows]).max() < 1e-12 * scale
        assert float(js_f) == pytest.approx(float(jw_f), rel=1e-13)
        Js, Jw = np.asarray(casadi.densify(Js)), np.asarray(casadi.densify(Jw))
        assert np.abs(Js - Jw[np.ix_(rows, perm)]).max() < 1e-11 * (1 + np.abs(Jw).max())
    return seeded, walked


@pytest.mark.parametrize("model, scheme", [("three_link_arm", "rem"), ("three_link_arm", "bem"), ("ur5", "rem")])
def test_seeded_nodes_give_the_walked_nlp(model, scheme, monkeypatch):
    import importlib

    module = importlib.import_module(f"pyomo_mbdyn.models.{model}")
    m = module.build(scheme, steps=3)
    assert m.dyn.configurations == "absolute" and m.dyn.compiled_node_expressions() is not None
    seeded, walked = _compare(m, monkeypatch, np.random.default_rng(5))
    assert seeded.visits < walked.visits   # the node trees were not walked


def test_a_changed_node_expression_is_walked(monkeypatch):
    from pyomo_mbdyn.models import three_link_arm

    m = three_link_arm.build("rem", steps=3)
    body = next(iter(m.dyn.system.bodies))
    coordinate = m.dyn.body[body].coordinates.at(1)
    node = m.dyn.body[body].q[2, coordinate]
    before = p2c.translate(m)
    node.set_value(node.expr + 0.25)    # a user's change: the solver must see it
    after, _ = _compare(m, monkeypatch, np.random.default_rng(6))
    x = np.zeros(before.n_var)
    g_before = np.asarray(_functions(before)(x)[0]).ravel()
    g_after = np.asarray(_functions(after)(x)[0]).ravel()
    assert np.abs(g_after - g_before).max() > 0.1
