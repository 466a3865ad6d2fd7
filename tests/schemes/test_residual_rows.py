"""Scheme rows are built when a consumer reads them (pyomo_mbdyn.schemes.deferred): building
a block and solving it on the structured path builds none, every other consumer (the
flat walk, the .nl writer, clone, the user) sees the same rows as before, and a row the
user replaced without ever reading it reaches every solver path."""

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.models import crane, three_link_arm
from pyomo_mbdyn.schemes.deferred import ResidualRows, is_deferred
from pyomo_mbdyn.solvers.pyomo_to_casadi import translate


def _rows(m):
    return list(m.component_data_objects(pyo.Constraint, active=True))


def _family_rows(block):
    return [data for family in block._families for rows in family.rows.values() for _, _, data in rows]


@pytest.mark.parametrize("scheme", ["bem", "rem", "gc", "dmocc", "rattle"])
def test_a_built_block_has_built_no_row(scheme):
    m = three_link_arm.build(scheme, steps=4)
    rows = _family_rows(m.dyn)
    assert rows and all(is_deferred(c) for c in rows)
    assert all(c.lb == 0.0 and c.ub == 0.0 and c.equality for c in rows)


def test_a_structured_solve_builds_no_mapped_row_and_reads_duals_onto_them():
    m = crane.build("bem", steps=10)
    m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    results = pyo.SolverFactory("casadi_ipopt").solve(m)
    assert str(results.solver.termination_condition) == "optimal"
    rows = _family_rows(m.dyn)
    assert all(is_deferred(c) for c in rows)
    assert all(c in m.dual for c in rows)
    # built now, every row holds at the solution
    assert max(abs(pyo.value(c.body)) for c in rows) < 1e-8


def test_a_row_replaced_without_being_read_reaches_the_structured_path():
    m = three_link_arm.build("rem", steps=4)
    a = next(iter(m.dyn.actuated))
    row = m.dyn.momentum_balance[2, a]
    assert is_deferred(row)
    row.set_value(m.dyn.u[2, a] == 0.25)          # never read: no expression was built for it
    assert not is_deferred(row)
    mapped, flat = translate(m), translate(m, structured=False)
    assert mapped.extras["mapped"] == [("rem_step", 3)]      # interval 2 is walked
    for nlp in (mapped, flat):
        j = next(i for i, c in enumerate(nlp.constraints) if c is row)
        assert (nlp.lbg[j], nlp.ubg[j]) == (0.25, 0.25)


def test_a_clone_states_its_rows_on_its_own_variables():
    import casadi as ca

    m = crane.build("rem", steps=5)
    c = m.clone()
    flat = translate(c, structured=False)
    own = {id(v) for v in c.component_data_objects(pyo.Var)}
    assert all(id(v) in own for v in flat.variables)
    original = translate(m, structured=False)
    assert [x.name for x in flat.constraints] == [x.name for x in original.constraints]
    g = [np.asarray(ca.Function("g", [nlp.x], [nlp.g])(nlp.x0)).ravel() for nlp in (flat, original)]
    np.testing.assert_allclose(g[0], g[1], rtol=0, atol=1e-12)


def test_the_nl_writer_writes_every_row(tmp_path):
    m = crane.build("rem", steps=4)
    n = len(_rows(m))
    m.write(str(tmp_path / "crane.nl"), io_options={"skip_trivial_constraints": False})
    header = (tmp_path / "crane.nl").read_text().splitlines()[1].split()
    assert int(header[1]) == n


def test_residual_rows_refuse_what_states_nothing():
    m = pyo.ConcreteModel()
    m.x = pyo.Var([1, 2])
    with pytest.raises(TypeError, match="residual must be callable"):
        m.bad = ResidualRows([1, 2], residual=0.0)
    m.r = ResidualRows([1, 2], residual=lambda b, k: b.x[k] if k == 1 else 0.0)
    assert m.r[1].body is m.x[1]
    with pytest.raises(ValueError, match=r"r\[2\].*the constant 0.0"):
        m.r[2].body


def test_rows_built_later_name_their_shared_values_as_at_build_time():
    """A row built after the block (here by the .nl writer) replays its step with the
    block's sharing: values used twice with large trees become the block's named
    Expressions, so the writer's trees stay bounded (the Panda's .nl: 5 MB, not 429 MB)."""
    from pyomo_mbdyn.models import ur5

    m = ur5.build("gc", steps=2)
    before = len(m.dyn.shared_terms)
    row = m.dyn.momentum_balance[0, next(iter(m.dyn.velocities))]
    assert is_deferred(row)
    row.body
    assert len(m.dyn.shared_terms) > before


def test_chart_node_expressions_are_made_node_by_node_when_read():
    """GC's chart form states q_k = F(θ_k), v_k = P̃(θ_k) ṽ_k as Expressions made when first
    read: a structured solve reads none; reading one makes it (from its node's values,
    computed once per node), equal to the chart."""
    from pyomo_mbdyn.discretization import chart_states

    m = three_link_arm.build("gc", steps=6)
    pyo.SolverFactory("casadi_ipopt").solve(m)
    dyn = m.dyn
    entries = lambda k: [e for name in dyn.system.bodies for var in ("q", "v")  # noqa: E731
                         for e in (dyn.body[name].component(var)[k, c] for c in dyn.body[name].coordinates)]
    assert all(is_deferred(e) for k in dyn.nodes for e in entries(k))
    name = next(iter(dyn.system.bodies))
    c = dyn.body[name].coordinates.at(1)
    value = pyo.value(dyn.body[name].q[3, c])
    assert not is_deferred(dyn.body[name].q[3, c])
    assert all(is_deferred(e) for k in dyn.nodes if k != 3 for e in entries(k))
    theta = [[dyn.theta[3, j].value for j in dyn.velocities]]
    q = chart_states(dyn.system, theta, rotation=dyn.rotation)[0]
    assert value == pytest.approx(q[dyn._coordinate_index().index((name, c))], abs=1e-12)


def test_a_node_replaced_without_being_read_is_walked():
    """The absolute form's node q_k = F(θ_k) replaced unread: the translator leaves the
    compiled chart for that node and walks the user's expression."""
    m = three_link_arm.build("rem", steps=3)
    dyn = m.dyn
    name = next(iter(dyn.system.bodies))
    c = dyn.body[name].coordinates.at(1)
    node = dyn.body[name].q[2, c]
    assert is_deferred(node)
    nodes_before = len(dyn.compiled_node_expressions()[1])
    node.set_value(dyn.theta[2, next(iter(dyn.velocities))] + 0.25)
    assert not is_deferred(node)
    assert len(dyn.compiled_node_expressions()[1]) == nodes_before - 1
    mapped, flat = translate(m), translate(m, structured=False)
    import casadi as ca

    for nlp in (mapped, flat):
        assert any(v is dyn.theta[2, next(iter(dyn.velocities))] for v in nlp.variables)
    x = {id(v): 0.1 * i for i, v in enumerate(flat.variables)}
    g = []
    for nlp in (flat, mapped):
        fun = ca.Function("g", [nlp.x], [nlp.g])
        values = np.asarray(fun([x[id(v)] for v in nlp.variables])).ravel()
        g.append({id(con): values[i] for i, con in enumerate(nlp.constraints)})
    assert g[0].keys() == g[1].keys()
    assert max(abs(g[0][k] - g[1][k]) for k in g[0]) < 1e-10
