"""Scheme blocks on closed loops: square block = Newton stepper, the rows the user is told about."""

import logging

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.errors import ConfigurationError, LoopReductionError
from pyomo_mbdyn.mechanics import examples
from pyomo_mbdyn.schemes import scheme_block
from pyomo_mbdyn.simulate import simulate

FOUR_BAR = examples.four_bar()
N, H, U = 6, 0.05, 0.3


def square_block(scheme, **options):
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=FOUR_BAR, steps=N, horizon=N * H, controls=np.full((N, 1), U), **options)
    m.objective = pyo.Objective(expr=0.0)
    return m


@pytest.mark.parametrize("scheme", ["bem", "rem", "dmocc_lm", "dmocc"])
def test_square_block_is_the_stepper(scheme):
    m = square_block(scheme)
    free = sum(1 for v in m.component_data_objects(pyo.Var) if not v.fixed)
    rows = sum(1 for c in m.component_data_objects(pyo.Constraint, active=True))
    assert free == rows  # square: the dropped rows made room for nothing else
    result = pyo.SolverFactory("casadi_ipopt").solve(m, options={"tol": 1e-13})
    assert result.solver.termination_condition == pyo.TerminationCondition.optimal
    stepped = simulate(FOUR_BAR, FOUR_BAR.q0, np.zeros(FOUR_BAR.n), H, N, controls=np.full((N, 1), U), scheme=scheme)
    tr = m.dyn.trajectory()
    assert np.abs(tr.q - stepped.q).max() < 1e-9
    assert np.abs(tr.v - stepped.v).max() < 1e-8


def test_multiplier_blocks_leave_out_the_redundant_rows(caplog):
    with caplog.at_level(logging.INFO, logger="pyomo_mbdyn.schemes"):
        m = square_block("bem")
    assert "redundant loop rows ['D[2]', 'D[3]', 'D[4]'] of MultibodySystem('four-bar') left out" in caplog.text
    D = m.dyn.joint["D"]
    assert list(D.rows) == [0, 1] and list(D.dropped_rows) == [2, 3, 4]
    assert sorted({r for _, r in D.lam}) == [0, 1]
    assert m.dyn.dropped_constraints == ["D[2]", "D[3]", "D[4]"]
    assert m.dyn.joint["A"].component("dropped_rows") is None  # tree joints keep every row


def test_reduced_blocks_close_the_loop_and_reduce_over_the_independent_crank():
    m = square_block("rem")
    assert list(m.dyn.independent) == ["A.angle"]
    assert [k for k in m.dyn.momentum_balance] == [(i, "A.angle") for i in range(N)]
    assert sorted({r for _, r in m.dyn.joint["D"].loop_closure}) == [0, 1]
    assert len(m.dyn.w.index_set()) == N * 3  # tree increments: the dependent ones fixed by the closure


@pytest.mark.parametrize("scheme, form", [("bem", "absolute"), ("rem", "absolute"), ("dmocc", "minimal"),
                                          ("dmocc", "absolute")])
def test_forms_that_cannot_close_a_loop_say_so(scheme, form):
    with pytest.raises(LoopReductionError, match=f"configurations='{form}' cannot close the loops"):
        square_block(scheme, configurations=form)


@pytest.mark.parametrize("scheme", ["gc", "rattle"])
def test_tree_schemes_refuse_loops_and_name_the_others(scheme):
    with pytest.raises(ConfigurationError, match=r"needs a tree \(schemes for loops: \['bem', 'rem', 'dmocc', "
                                                 r"'dmocc_lm', 'lobatto', 'cg2'\]\)"):
        square_block(scheme)
