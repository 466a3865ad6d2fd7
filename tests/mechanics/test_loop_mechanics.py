"""Closed loops in the mechanics layer: active rows, coordinate partitioning, loop closure.

The redundant-row handling on a planar loop in 3-D (3 of 5 rows of the closing revolute
repeat the others) and on a spatial loop (none); ``P = P_t N`` with ``G P = 0`` and
``B_i P = I`` in floats and symbols; closure by Newton on the assembly branch.
"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pyomo_mbdyn.errors import AssemblyError, ConfigurationError, LoopReductionError
from pyomo_mbdyn.mechanics import MultibodySystem, Spherical, examples
from pyomo_mbdyn.mechanics.loops import close_loops, move_independent, solve_unpivoted

FOUR_BAR = examples.four_bar()
SLIDER_CRANK = examples.slider_crank()


def closure(system, q):
    """max |Φ(q)| over every row, the dropped ones included."""
    return float(np.abs(np.asarray(system.constraints(q), float)).max())


def four_bar_closed_by(joint_class, **kwds):
    base = examples.four_bar()
    system = MultibodySystem("four-bar", gravity=(0, -9.81, 0))
    system.add_bodies(*base.bodies.values())
    joints = base.joints
    system.add_joints(joints["A"], joints["B"], joints["C"],
                      joint_class("D", None, base.bodies["rocker"], location=(1.5, 0, 0), **kwds))
    system.actuate("A")
    return system


# -- which rows are dropped --------------------------------------------------------
def test_planar_loop_in_space_drops_three_of_five_rows():
    report = FOUR_BAR.validate()
    assert report["dropped_constraints"] == ["D[2]", "D[3]", "D[4]"]
    assert report["redundant_constraints"] == report["dropped_constraints"]
    assert report["dof"] == 1 and FOUR_BAR.m_active == FOUR_BAR.m - 3
    # the active rows have full rank and leave exactly dof directions
    G = np.asarray(FOUR_BAR.active_jacobian(FOUR_BAR.q0), float)
    assert np.linalg.matrix_rank(G) == FOUR_BAR.m_active == FOUR_BAR.n - FOUR_BAR.dof
    assert SLIDER_CRANK.validate()["dropped_constraints"] == ["C[2]", "C[3]", "C[4]"]


def test_planar_loop_closed_by_a_spherical_joint_drops_one_row():
    system = four_bar_closed_by(Spherical)
    assert system.validate()["dropped_constraints"] == ["D[2]"]  # the out-of-plane position
    assert system.dof == 1


def test_spatial_loop_drops_no_row():
    system = examples.spatial_four_bar()
    report = system.validate()
    assert report["dropped_constraints"] == [] and report["redundant_constraints"] == []
    assert report["dof"] == 2 == system.n - np.linalg.matrix_rank(np.asarray(system.constraint_jacobian(system.q0), float))


def test_loop_joint_declared_before_a_tree_joint_drops_loop_rows_only():
    """The spanning tree follows the declaration order; rows of tree joints are never dropped."""
    base = examples.four_bar()
    system = MultibodySystem("four-bar", gravity=(0, -9.81, 0))
    system.add_bodies(*base.bodies.values())
    system.add_joints(*(base.joints[j] for j in "ABDC"))
    assert system.layout["loop_joints"] == ["C"]
    assert system.validate()["dropped_constraints"] == ["C[2]", "C[3]", "C[4]"]


def test_singular_reference_configuration_is_refused():
    """All four pivots on a line: the loop rows lose rank there, not nearby."""
    folded = examples.four_bar(((0, 0, 0), (1, 0, 0), (3, 0, 0), (2, 0, 0)))
    with pytest.raises(AssemblyError, match="singular configuration of the loops"):
        folded.validate()


# -- the partition ------------------------------------------------------------------
def test_partition_puts_the_actuated_crank_first():
    assert FOUR_BAR.independent == ["A.angle"] and FOUR_BAR.dependent == ["B.angle", "C.angle"]
    assert SLIDER_CRANK.independent == ["A.angle"] and SLIDER_CRANK.dependent == ["B.angle", "P.slide"]
    assert FOUR_BAR.loop_reduction.condition < 10


def test_choose_independent_and_its_errors():
    system = examples.four_bar()
    system.choose_independent("C.angle")
    assert system.independent == ["C.angle"] and system.null_space(system.q0).shape == (system.n, 1)
    with pytest.raises(LoopReductionError, match="leave 1 degrees of freedom"):
        system.choose_independent("A.angle", "B.angle")
    assert system.independent == ["C.angle"]  # a refused choice keeps the previous one
    with pytest.raises(ConfigurationError, match="not tree coordinates"):
        system.choose_independent("D.angle")
    with pytest.raises(ConfigurationError, match="a tree has no dependent"):
        examples.pendulum().choose_independent("hinge.angle")


def test_solve_unpivoted_matches_numpy_with_the_pivot_order():
    rng = np.random.default_rng(1)
    A, B = rng.normal(size=(4, 4)), rng.normal(size=(4, 2))
    A[0, 0] = 0.0  # elimination without reordering would divide by zero
    from pyomo_mbdyn.mechanics.loops import _pivot_order

    assert np.allclose(solve_unpivoted(A, B, _pivot_order(A)), np.linalg.solve(A, B), atol=1e-12)


@settings(max_examples=20, deadline=None)
@given(angle=st.floats(-3.0, 3.0), step=st.floats(-0.3, 0.3))
def test_null_space_and_control_matrix_of_the_loop(angle, step):
    """At admissible q_a, q_b: G(q_mid) P(q_mid) = 0 on every row, B_i(q♯) P(q_mid) = I, and the
    symbolic P (CasADi) equals the float one."""
    import casadi

    system = FOUR_BAR
    qa = move_independent(system, [angle], system.q0)
    qb = move_independent(system, [step], qa)
    assert closure(system, qa) < 1e-12 and closure(system, qb) < 1e-12
    qm = 0.5 * (qa + qb)
    P = np.asarray(system.null_space(qm), float)
    G = np.asarray(system.constraint_jacobian(qm), float)
    assert np.abs(G @ P).max() < 1e-13
    B = np.asarray(system.control_matrix(qm), float)
    i = system.loop_reduction.i_index
    assert np.abs(B[i] @ P - np.eye(system.dof)).max() < 1e-13
    # the reduced inputs: Pᵀ Bᵀ u = Nᵀ u = u on the actuated independent crank
    assert np.allclose(P.T @ B.T @ np.array([0.7, 0.0, 0.0]), [0.7], atol=1e-13)
    x = casadi.SX.sym("q", system.n)
    Ps = system.null_space(np.array([x[k] for k in range(system.n)], dtype=object))
    f = casadi.Function("P", [x], [casadi.vertcat(*[casadi.horzcat(*[casadi.SX(e) for e in row]) for row in Ps])])
    assert np.abs(np.asarray(f(qm)) - P).max() < 1e-13


def test_a_crank_turn_closes_every_row_and_keeps_the_branch():
    """Newton closure over a full crank turn in 36 steps: every row (dropped ones too) holds, and
    the turn returns to the start (same assembly branch)."""
    system, q = FOUR_BAR, FOUR_BAR.q0
    for _ in range(36):
        q = move_independent(system, [2 * np.pi / 36], q)
        assert closure(system, q) < 1e-12
    assert np.abs(q - system.q0).max() < 1e-10


def test_failing_closure_is_a_named_error():
    system = FOUR_BAR
    w = np.zeros(system.n_velocities)
    w[system.loop_reduction.i_index] = 1.5  # one Newton jump across most of the crank's range
    w[system.loop_reduction.d_index] = 40.0  # a start far off the branch
    with pytest.raises(LoopReductionError, match="do not close"):
        close_loops(system, w, system.q0, max_iter=3)


def test_partition_condition_grows_towards_a_dead_centre_of_the_piston():
    """The slider-crank parametrised by its piston: near the outer dead centre (crank along e₁) the
    crank angle is no longer determined by the piston (cond J_d → ∞); by the crank it stays regular."""
    from pyomo_mbdyn.mechanics.loops import partition_condition

    by_crank = examples.slider_crank()
    by_piston = examples.slider_crank()
    by_piston.choose_independent("P.slide")
    q = move_independent(by_crank, [-np.pi / 2 + 1e-3], by_crank.q0)  # the crank 1 mrad before e₁
    assert partition_condition(by_crank, q) < 10
    assert partition_condition(by_piston, q) > 1e3
    assert partition_condition(examples.pendulum(), examples.pendulum().q0) == 1.0
