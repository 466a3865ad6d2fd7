"""Problems stated in physical terms, the same meaning in every scheme (issue 19).

* ``fix_final_configuration(joint_angles)``: the same target reaches the same
  final joint angle, turns included, in every scheme — checked on the solved
  motion by following the joint angle node by node (``chart_coordinates``
  continued from the node before), independently of how the scheme stated it —
  or raises :class:`NotRepresentableError`;
* ``ocp.joint_coordinates()`` equals that angle at every node;
* ``ocp.point`` equals the body point of the solved configurations, and an
  obstacle stated with it is avoided;
* ``bound_controls`` / ``bound_joint`` hold and are active where they should be,
  the same optimum whether a scheme states them as variable bounds or as rows;
* ``solve(duals=True)`` fills the trajectory's momentum multipliers, which give
  back the controls (u = -B λ^p, BEM; u = -λ^p, REM; J = h Σ ½|u|²).
"""

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.discretization import chart_coordinates
from pyomo_mbdyn.errors import NotRepresentableError
from pyomo_mbdyn.mechanics import MultibodySystem, Prismatic, Revolute, RigidBody, Spherical
from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory, solve
from pyomo_mbdyn.schemes import scheme_block

STEPS, HORIZON = 40, 4.0
#: one turn and a bit: more than π from the start, where a configuration alone cannot tell the turn
TARGET = 2 * np.pi + 0.2
SCHEMES = [("gc", {}), ("rem", {}), ("rem", {"configurations": "absolute"}), ("bem", {}),
           ("bem", {"configurations": "absolute"}), ("dmocc", {}), ("dmocc", {"configurations": "absolute"}),
           ("dmocc_lm", {}), ("rattle", {})]


def pendulum():
    body = RigidBody("link", 1.0, (0.1, 0.1, 0.02), position=(0.5, 0, 0), points={"tip": (0.5, 0, 0)})
    system = MultibodySystem("pendulum", gravity=(0, -9.81, 0))
    system.add_bodies(body)
    system.add_joints(Revolute("hinge", None, body, location=(0, 0, 0), axis=(0, 0, 1)))
    system.actuate("hinge")
    return system


def double_pendulum():
    system = pendulum()
    lower = RigidBody("lower", 1.0, (0.1, 0.1, 0.02), position=(1.5, 0, 0), points={"tip": (0.5, 0, 0)})
    system.add_bodies(lower)
    system.add_joints(Revolute("knee", system.bodies["link"], lower, location=(1, 0, 0), axis=(0, 0, 1)))
    system.actuate("knee")
    return system


def rest_to_rest(system, scheme, target, steps=STEPS, horizon=HORIZON, solved=True, **options):
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=horizon, **options)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({a: 0.5 for a in m.dyn.actuated})
    problem.fix_final_configuration(target)
    problem.require_final_rest()
    theta = np.array([target[j.split(".")[0]] for j in system.velocities])
    m.dyn.initialize_from(interpolated_trajectory(system, horizon / steps, steps, theta))
    if solved:
        solve(m)
    return m, problem


def followed_angles(system, q):
    """The chart coordinates of every node, each Newton solve started from the node before."""
    theta = [chart_coordinates(system, q[0], atol=1e-7)]
    for qk in q[1:]:
        theta.append(chart_coordinates(system, qk, start=theta[-1], atol=1e-7))
    return np.array(theta)


@pytest.mark.parametrize("scheme, options", SCHEMES, ids=[s + "-" + "-".join(o.values()) for s, o in SCHEMES])
def test_the_same_target_reaches_the_same_final_angle_with_its_turns(scheme, options):
    system = pendulum()
    m, problem = rest_to_rest(system, scheme, {"hinge": TARGET}, **options)
    angles = followed_angles(system, m.dyn.trajectory().q)
    assert angles[-1, 0] == pytest.approx(TARGET, abs=1e-8)
    coordinate = problem.joint_coordinates()
    along = [pyo.value(coordinate[k, "hinge.angle"]) for k in m.dyn.nodes]
    np.testing.assert_allclose(along, angles[:, 0], atol=1e-7)


def test_the_node_forms_carry_the_turn_by_an_inactive_row():
    m, problem = rest_to_rest(pendulum(), "bem", {"hinge": TARGET})
    row = m.ocp.final_turns["hinge.angle"]
    assert row.lower < pyo.value(row.body) < row.upper
    assert pyo.value(row.body) == pytest.approx(TARGET, abs=1e-8)


@pytest.mark.parametrize("scheme", ["bem", "rem", "dmocc_lm"])
def test_a_rotation_vector_beyond_a_turn_is_not_representable_outside_the_chart_forms(scheme):
    body = RigidBody("link", 1.0, (0.1, 0.1, 0.02), position=(0.5, 0, 0))
    system = MultibodySystem("ball", gravity=(0, -9.81, 0))
    system.add_bodies(body)
    system.add_joints(Spherical("ball", None, body, location=(0, 0, 0)))
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=system, steps=4, horizon=1.0)
    with pytest.raises(NotRepresentableError, match=rf"on the {scheme} block 'dyn'.*ball\.wx"):
        OptimalControlProblem(m.dyn).fix_final_configuration([4.0, 0.0, 0.0])


def test_a_slide_is_a_joint_coordinate_in_the_node_form():
    """A block on a rail along (1, 1, 0)/√2: ``b·(s_c - s_p)`` from the start equals the slide."""
    block = RigidBody("block", 2.0, (0.1, 0.1, 0.1), position=(0.0, 0.0, 0.0))
    system = MultibodySystem("rail", gravity=(0, -9.81, 0))
    system.add_bodies(block)
    system.add_joints(Prismatic("rail", None, block, location=(0, 0, 0), axis=(1, 1, 0)))
    system.actuate("rail")
    m, problem = rest_to_rest(system, "bem", {"rail": 0.7}, steps=10, horizon=1.0)
    x = m.dyn.trajectory().q[:, 0:2]
    slide = x @ np.array([1.0, 1.0]) / np.sqrt(2)
    coordinate = problem.joint_coordinates()
    np.testing.assert_allclose([pyo.value(coordinate[k, "rail.slide"]) for k in m.dyn.nodes], slide, atol=1e-9)
    assert slide[-1] == pytest.approx(0.7, abs=1e-9)


def test_a_body_point_is_the_point_of_the_solved_configurations():
    system = double_pendulum()
    m, problem = rest_to_rest(system, "bem", {"hinge": 1.0, "knee": 0.5}, steps=20, horizon=2.0)
    tip = problem.point("lower", "tip")
    q = m.dyn.trajectory().q
    lower = system.bodies["lower"]
    for k in m.dyn.nodes:
        expected = lower.point(q[k, 12:24], lower.point_components("tip"))
        np.testing.assert_allclose([pyo.value(tip[k, a]) for a in "xyz"], np.asarray(expected, float), atol=1e-12)
    # the final tip from the joint angles alone: (cos 1 + cos 1.5, sin 1 + sin 1.5) (links of length 1)
    assert [pyo.value(tip[20, a]) for a in "xy"] == pytest.approx([np.cos(1) + np.cos(1.5),
                                                                  np.sin(1) + np.sin(1.5)], abs=1e-9)


@pytest.mark.parametrize("scheme, options", [("bem", {}), ("rem", {"configurations": "absolute"})])
def test_an_obstacle_stated_on_a_body_point_is_avoided(scheme, options):
    """The documented example: a post of radius 0.25 m centred 0.1 m beside the free optimum's tip
    path at mid-motion; with the clearance rows the tip goes round it."""
    system = double_pendulum()
    free, _ = rest_to_rest(system, scheme, {"hinge": 1.5, "knee": 0.0}, steps=20, horizon=2.0, **options)
    free_tip = problem_tip(system, free)
    centre, radius = free_tip[10] + np.array([0.0, 0.1]), 0.25
    assert np.min(np.linalg.norm(free_tip - centre, axis=1)) < radius  # the free optimum sweeps through the post
    m, problem = rest_to_rest(system, scheme, {"hinge": 1.5, "knee": 0.0}, steps=20, horizon=2.0, solved=False,
                              **options)
    tip = problem.point("lower", "tip")
    m.clearance = pyo.Constraint(m.dyn.nodes, rule=lambda m, k: (tip[k, "x"] - centre[0]) ** 2
                                 + (tip[k, "y"] - centre[1]) ** 2 >= radius ** 2)
    solve(m)
    tips = np.array([[pyo.value(tip[k, a]) for a in "xy"] for k in m.dyn.nodes])
    distances = np.linalg.norm(tips - centre, axis=1)
    assert distances.min() == pytest.approx(radius, abs=1e-6)  # active, and held
    assert pyo.value(m.ocp.control_effort) > pyo.value(free.ocp.control_effort)


def problem_tip(system, m):
    lower = system.bodies["lower"]
    q = m.dyn.trajectory().q
    return np.array([np.asarray(lower.point(qk[12:24], lower.point_components("tip")), float)[:2] for qk in q])


def test_control_bounds_hold_and_are_active():
    system = pendulum()
    free, _ = rest_to_rest(system, "rem", {"hinge": 1.0}, steps=20, horizon=2.0)
    peak = np.abs(free.dyn.trajectory().u).max()
    m, problem = rest_to_rest(system, "rem", {"hinge": 1.0}, steps=20, horizon=2.0, solved=False)
    problem.bound_controls(-0.8 * peak, 0.8 * peak)
    solve(m)
    u = m.dyn.trajectory().u
    assert np.abs(u).max() == pytest.approx(0.8 * peak, rel=1e-6)


@pytest.mark.parametrize("scheme", ["bem", "rem"])
def test_joint_bounds_as_rows_and_as_variable_bounds_state_the_same_problem(scheme):
    """The knee may not bend beyond 0.3 rad: rows on the summed angle (lifted form) and variable
    bounds on θ (absolute form).  Lifted from the guess, absolute from that optimum, lifted from
    the absolute's: the last two agree — an optimum of one form is an optimum of the other.
    (The first leg need not stay: IPOPT pushes the active bound's variable inside before its first
    step.  Measured: BEM lifted 254.2764 from the guess, absolute from there 253.7495, lifted from
    that 253.7495; REM 252.0966 throughout.)"""
    system = double_pendulum()
    objective, solution = [], None
    for form in ("lifted", "absolute", "lifted"):
        m, problem = rest_to_rest(system, scheme, {"hinge": 1.0, "knee": 0.0}, steps=20, horizon=2.0,
                                  solved=False, configurations=form)
        problem.bound_joint("knee", -0.3, 0.3)
        assert (m.ocp.component("joint_bound") is not None) == (form == "lifted")
        if solution is not None:
            m.dyn.initialize_from(solution)
        solve(m)
        solution = m.dyn.trajectory()
        knee = followed_angles(system, solution.q)[:, 1]
        assert knee.min() >= -0.3 - 1e-7 and knee.max() <= 0.3 + 1e-7
        assert max(-knee.min(), knee.max()) == pytest.approx(0.3, abs=1e-6)  # active
        objective.append(pyo.value(m.ocp.control_effort))
    assert objective[2] == pytest.approx(objective[1], rel=1e-8)
    assert objective[1] <= objective[0] * (1 + 1e-8)   # started at the lifted optimum, never worse


def test_solve_with_duals_gives_the_multipliers_that_give_back_the_controls():
    system = double_pendulum()
    m, problem = rest_to_rest(system, "rem", {"hinge": 1.0, "knee": 0.5}, steps=10, horizon=2.0, solved=False)
    assert m.component("dual") is None
    problem.solve(duals=True)
    trajectory = m.dyn.trajectory()
    lam = trajectory.momentum_multipliers
    assert lam.shape == (10, 2)
    np.testing.assert_allclose(trajectory.u, lam, rtol=1e-6, atol=1e-8)  # J = h Σ ½|u|²: u = λ^p (REM)


def test_trajectory_in_tables_with_units():
    system = double_pendulum()
    m, _ = rest_to_rest(system, "bem", {"hinge": 1.0, "knee": 0.5}, steps=20, horizon=2.0)
    trajectory = m.dyn.trajectory()
    data = trajectory.to_xarray()
    assert data.q.dims == ("t", "coordinate") and data.u.dims == ("interval", "control")
    assert data.u.attrs["units"] == "N m" and data.nu.attrs["units"] == "rad/s"
    assert data.q_unit.sel(coordinate="lower.x").item() == "m"
    assert data.q_unit.sel(coordinate="lower.d1x").item() == "1"
    np.testing.assert_array_equal(data.q.sel(coordinate="lower.x").values, trajectory.to_dataframe()["q", "lower.x"])
    assert data.attrs["scheme"] == "bem" and data.attrs["steps"] == 20
    assert float(data.t_end[-1]) == pytest.approx(2.0)
    table = trajectory.diagnostics()
    E = (table["T"] + table["V"] + table["W"]).to_numpy()
    assert np.abs(E - E[0]).max() < 1e-8 * max(1.0, np.abs(E).max())  # BEM: T + V + W exact
