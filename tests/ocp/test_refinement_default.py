"""OptimalControlProblem.solve refines by default (issue 51): a problem on N ≥ 100 steps whose
block holds its own guess is solved first on a coarse grid (50 steps), whose solution,
interpolated, starts the N-step solve — the command line's grid refinement (solve_refined),
so that J does not jump between local optima as N changes; a fine J that departs from the
coarse J by more than the scheme's order predicts is a GridDependenceWarning; refine=False,
a start of the user's own and models with components of their own are solved directly."""

import warnings

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.errors import ConfigurationError, GridDependenceWarning, ModellingWarning
from pyomo_mbdyn.mechanics import examples
from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory, solve
from pyomo_mbdyn.ocp.solve import PROBLEM_REFINE_FROM, grid_dependence, solve_refined
from pyomo_mbdyn.schemes import scheme_block



def acrobot_swing_up(scheme, steps):
    """Two rods (1 m, 1 kg) hanging under gravity, only the elbow driven, to upright in 4 s at
    rest, least effort (as in benchmarks/refinement.py)."""
    system = examples.acrobot()
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=4.0)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort()
    problem.fix_final_configuration({"shoulder": np.pi, "elbow": 0.0})
    problem.require_final_rest()
    return m, problem


def pendulum_turn(steps, scheme="rem", weight=1.0, increment_bound=None):
    """Half a turn in 2 s under gravity, rest to rest, least effort."""
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=examples.pendulum(), steps=steps, horizon=2.0)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({"hinge.angle": weight})
    problem.fix_final_configuration([np.pi])
    problem.require_final_rest()
    if increment_bound is not None:
        problem.bound_rotation_increments(increment_bound)
    return m, problem


def test_solve_refines_from_the_coarse_grid_and_reaches_the_direct_optimum():
    m, problem = pendulum_turn(100)
    results = problem.solve()
    assert str(results.solver.termination_condition) == "optimal"
    assert [(s["steps"], s["start"]) for s in problem.stages] == [(PROBLEM_REFINE_FROM, "guess"), (100, "refined")]
    assert m.dyn.config.steps == 100 and m.dyn.solution_status == "optimal"
    direct, direct_problem = pendulum_turn(100)
    direct_problem.solve(refine=False)
    assert pyo.value(m.ocp.control_effort) == pytest.approx(pyo.value(direct.ocp.control_effort), rel=1e-6)


def test_refine_false_is_the_direct_solve():
    """refine=False: one stage on the model's own grid, the same iterations and J as solve(model)."""
    m, problem = pendulum_turn(100)
    results = problem.solve(refine=False)
    reference, _ = pendulum_turn(100)
    expected = solve(reference)
    assert len(problem.stages) == 1 and problem.stages[0]["steps"] == 100
    assert results.solver.iterations == expected.solver.iterations
    assert pyo.value(m.ocp.control_effort) == pytest.approx(pyo.value(reference.ocp.control_effort), rel=1e-12)


@pytest.mark.parametrize("steps", [2 * PROBLEM_REFINE_FROM - 1, 12])
def test_no_coarse_grid_below_twice_the_coarsest(steps):
    m, problem = pendulum_turn(steps)
    problem.solve()
    assert [s["steps"] for s in problem.stages] == [steps] and problem.stages[0]["start"] == "guess"


def test_a_start_of_your_own_is_kept():
    m, problem = pendulum_turn(100)
    m.dyn.initialize_from(interpolated_trajectory(m.dyn.system, m.dyn.step_length, 100, [np.pi]))
    problem.solve()
    assert [s["steps"] for s in problem.stages] == [100]
    assert "initialize_from" in problem.stages[0]["start"]


def test_components_of_your_own_are_not_copied_so_the_model_is_solved_directly():
    m, problem = pendulum_turn(100)
    tip = problem.point("link", (1.0, 0, 0))
    m.above = pyo.Constraint(expr=tip[50, "y"] >= -0.5)
    problem.solve()
    assert [s["steps"] for s in problem.stages] == [100] and "'above'" in problem.stages[0]["start"]


def test_the_coarse_copy_replays_the_statements():
    m, problem = pendulum_turn(100, increment_bound=0.5)
    coarse = problem.coarse_copy(25)
    assert [name for name, _, _ in problem.statements] == [
        "minimise_control_effort", "fix_final_configuration", "require_final_rest", "bound_rotation_increments"]
    assert coarse.dyn.config.steps == 25 and coarse.dyn.scheme == "rem"
    assert len(coarse.ocp.final_rest) == len(m.ocp.final_rest)
    assert coarse.ocp.effort_weights["hinge.angle"] == m.ocp.effort_weights["hinge.angle"]


def test_a_coarse_grid_that_fails_leaves_the_fine_grid_to_its_own_guess(caplog):
    """Half a turn with increments ≤ 0.05 rad needs ≥ 63 steps: the coarse grid (50) is
    infeasible, the 100-step problem is then solved from its own guess."""
    m, problem = pendulum_turn(100, increment_bound=0.05)
    results = problem.solve()
    assert str(results.solver.termination_condition) == "optimal"
    assert [(s["steps"], s["start"]) for s in problem.stages] == [(100, "guess (fallback)")]
    assert "stage N = 50 failed" in caplog.text


def test_refine_must_be_a_bool():
    _, problem = pendulum_turn(100)
    with pytest.raises(ConfigurationError, match="refine must be True or False, got 'yes'"):
        problem.solve(refine="yes")


def test_grid_dependence_follows_the_order():
    """Within κ|J|(1 − (N_c/N)^p) no warning; the band widens with the refinement ratio and
    narrows with the order; the message names both J and multistart."""
    assert grid_dependence(10.0, 11.0, 25, 100, 2) is None            # 1 ≤ 0.5·11·(15/16)
    assert grid_dependence(10.0, 11.0, 50, 100, 2) is None            # 1 ≤ 0.5·11·0.75 = 4.1
    assert grid_dependence(10.0, 11.0, 50, 100, 4) is None            # 1 ≤ 0.5·11·0.9375
    assert grid_dependence(10.0, 11.0, 99, 100, 2) is not None        # 1 > 0.5·11·0.0199 = 0.11
    assert grid_dependence(10.0, 30.0, 50, 100, 2) is not None        # 20 > 0.5·30·0.75 = 11.25
    message = grid_dependence(22.6, 68.3, 25, 100, 2)
    assert "J = 68.3" in message and "J = 22.6" in message and "multistart" in message


def test_a_jump_between_optima_warns():
    """A constructed jump: the fine grid's problem weighs the effort 10 times the coarse one's, so
    its J is 10 times the coarse J — no order of convergence explains that."""
    def build(n):
        return pendulum_turn(n, weight=1.0 if n < 100 else 10.0)[0]

    with pytest.warns(GridDependenceWarning, match=r"order 2 predicts.*multistart") as caught:
        model, _ = solve_refined(build, 100, coarsest=50)
    assert issubclass(caught[0].category, ModellingWarning)
    assert model.dyn.config.steps == 100


def test_a_refined_solve_of_one_optimum_does_not_warn():
    m, problem = pendulum_turn(100)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GridDependenceWarning)
        problem.solve()
    coarse, fine = problem.stages[0]["objective"], problem.stages[-1]["objective"]
    assert abs(fine - coarse) < 0.05 * fine                           # O(h²): a few per cent


def test_the_acrobots_effort_converges_on_one_branch():
    """The acrobot's swing-up (two rods under gravity, only the elbow driven, hanging to upright in
    4 s) in GC: solved directly from the rest guess J jumps between optima (32.4 / 45.8 / 7238 at
    N = 50 / 100 / 200); by default N = 100 and 200 start from the 50-step optimum and converge on
    its branch at the scheme's second order: (J_50 − J_100) / (J_100 − J_200) ≈ 2², no warning."""
    J = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", GridDependenceWarning)
        for steps in (50, 100, 200):
            m, problem = acrobot_swing_up("gc", steps)
            problem.solve()
            J[steps] = pyo.value(m.ocp.control_effort)
    assert J[50] > J[100] > J[200] > 0
    assert 3.0 < (J[50] - J[100]) / (J[100] - J[200]) < 5.5
