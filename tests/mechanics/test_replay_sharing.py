"""Replaying a compiled CasADi function into Pyomo (``mechanics.replay``): the values
are CasADi's, and the trees a writer walks stay bounded however often values are reused.

A value used twice is named (a Pyomo named Expression, a leaf for the writers) only
when its tree has more than ``SHARE_ABOVE`` nodes; smaller ones are repeated.  The
iteration y ↦ y² + y/2 (30 times, every value used three times) is the worst case: as
a tree without naming it has more than 3³⁰ nodes; replayed, the trees a writer walks
(named Expressions as leaves) have at most ``SHARE_ABOVE`` nodes per CasADi
instruction, and Pyomo's .nl writer and the library's translator take milliseconds.
(``pyomo.environ.value`` does not cache named Expressions, so it is exponential on such
nests whatever is named: the library evaluates solved models through its translator
and compiled functions instead.)
"""

import os

import casadi
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.mechanics import replay as rp
from pyomo_mbdyn.mechanics.linalg import name_next, sharing
from pyomo_mbdyn.solvers.pyomo_to_casadi import translate


def tree_size(expr):
    """Nodes of ``expr`` walked as a tree, named Expressions and variables as leaves."""
    if not hasattr(expr, "is_expression_type") or not expr.is_expression_type() or \
            expr.is_named_expression_type():
        return 1
    return 1 + sum(tree_size(a) for a in expr.args)


def iteration(times):
    x = casadi.SX.sym("x")
    y = x
    for _ in range(times):
        y = y * y + 0.5 * y   # every value used three times
    return casadi.Function("iteration", [x], [y])


@pytest.mark.parametrize("times", [1, 3, 30])
def test_replayed_trees_are_bounded_and_give_casadis_values(times, tmp_path):
    f = iteration(times)
    m = pyo.ConcreteModel()
    m.x = pyo.Var(initialize=0.3)
    m.shared = pyo.Expression(pyo.NonNegativeIntegers)

    with sharing(lambda expr: name_next(m.shared, expr)):
        (out,) = rp.replay(f, [[m.x]])
    m.row = pyo.Constraint(expr=out[0] == 0)
    m.objective = pyo.Objective(expr=m.x)
    # the trees a writer walks (the row's and each named Expression's) are linear in the
    # instructions: a repeated subtree has at most SHARE_ABOVE nodes
    walked = tree_size(out[0]) + sum(tree_size(e.expr) for e in m.shared.values())
    assert walked <= rp.SHARE_ABOVE * f.n_instructions()
    nlp = translate(m, structured=False)
    g = casadi.Function("g", [nlp.x], [nlp.g])
    assert float(g(0.3)) == pytest.approx(float(f(0.3)), rel=1e-13)
    m.write(str(tmp_path / "replayed.nl"))
    assert os.path.getsize(tmp_path / "replayed.nl") < 200 * f.n_instructions()
    if times <= 3:  # Pyomo's own evaluation, and the unnamed DAG, on the small cases
        assert pyo.value(out[0]) == pytest.approx(float(f(0.3)), rel=1e-13)
        (dag,) = rp.replay(f, [[m.x]], share=False)
        assert pyo.value(dag[0]) == pytest.approx(float(f(0.3)), rel=1e-13)
        assert tree_size(dag[0]) > 2 ** times
    else:
        assert len(m.shared) >= 10   # the large values are named, one every level or two
