"""The free-floating space robot (issue 49): a satellite carrying the Panda, read from URDF with
``floating_base=True``, whose total momentum the discrete motion keeps.

* Simulated under the same joint torques, BEM, REM and DMOCC keep the total linear and angular
  momentum to round-off at every step size; GC's error falls at order 2 and lobatto_gc's angular
  error at order 4 (its linear momentum, a linear invariant of a collocation method, is exact).
* The optimal motions (``models.space_robot``): the exact schemes keep both momentum maps to the
  solver's tolerance (relative error ≤ 1e-10), REM = BEM; the reach case puts the flange at its
  point with the arm at rest; the attitude manoeuvre turns the base by its target with the arm
  back at rest in its start pose.
* Bad input is named: the case, the rotation, a pose outside the URDF's limits; a partial final
  configuration naming an unknown joint.
"""

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.diagnostics import momentum_errors
from pyomo_mbdyn.discretization import chart
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.models import space_robot
from pyomo_mbdyn.simulate import simulate


@pytest.fixture(scope="module")
def system():
    return space_robot.build_system()


def _simulated_errors(system, scheme, steps, horizon=1.0):
    """Momentum errors of the space robot from rest in the ready pose under torques
    sin(2πt/T)·(1, 1, ½, ½, 0.1, 0.1, 0.02) N m at the step midpoints."""
    q0 = np.asarray(chart(system, np.r_[np.zeros(6), space_robot.START]), float)
    h = horizon / steps
    t = h * (np.arange(steps) + 0.5)
    u = np.outer(np.sin(2 * np.pi * t / horizon), [1, 1, 0.5, 0.5, 0.1, 0.1, 0.02])
    tr = simulate(system, q0, np.zeros(system.n), h, steps, u, scheme=scheme)
    return momentum_errors(system, tr.q, tr.v)


def test_the_floating_base_is_free_and_unactuated(system):
    assert system.floating_base == "satellite" and system.dof == 13
    assert system.velocities[:6] == [f"satellite.{d}" for d in ("vx", "vy", "vz", "wx", "wy", "wz")]
    assert system.actuated == [f"panda_joint{i}.angle" for i in range(1, 8)]
    assert np.all(system.gravity == 0)


@pytest.mark.parametrize("scheme", ["bem", "rem", "dmocc"])
def test_structure_preserving_schemes_keep_the_momentum_to_round_off(system, scheme):
    for steps in (10, 40):
        errors = _simulated_errors(system, scheme, steps)
        assert errors["angular_scale"] > 1.0 and errors["linear_scale"] > 1.0  # momentum does move
        assert errors["linear"] < 1e-13 and errors["angular"] < 1e-13, (steps, errors)


@pytest.mark.parametrize("scheme, order", [("gc", 2), ("lobatto_gc", 4)])
def test_gc_and_lobatto_gc_drift_at_their_order(system, scheme, order):
    coarse, fine = (_simulated_errors(system, scheme, n)["angular"] for n in (10, 20))
    assert coarse > 1e-12  # a drift, not round-off
    assert np.log2(coarse / fine) == pytest.approx(order, abs=0.3)


def test_momentum_errors_are_relative_to_the_momentum_that_moves(system):
    q0 = np.asarray(system.q0, float)
    v = np.zeros((2, system.n))
    v[1, 0] = 1e-3  # the satellite's centre of mass at 1 mm/s in x
    errors = momentum_errors(system, [q0, q0], v)
    mass = system.bodies["satellite"].mass
    assert errors["linear_scale"] == pytest.approx(mass * 1e-3)
    assert errors["linear"] == pytest.approx(1.0)  # all of it appeared
    still = momentum_errors(system, [q0, q0], np.zeros((2, system.n)))
    assert still == {"linear": 0.0, "angular": 0.0, "linear_scale": 0.0, "angular_scale": 0.0}


def _solved(scheme, steps, **options):
    m = space_robot.build(scheme, steps=steps, **options)
    results = pyo.SolverFactory("casadi_ipopt").solve(m)
    assert str(results.solver.termination_condition) == "optimal", scheme
    return m, space_robot.evaluate(m)


@pytest.fixture(scope="module")
def arm_optima():
    return {scheme: _solved(scheme, 12) for scheme in ("rem", "bem")}


def test_rem_and_bem_reach_the_same_optimum_with_the_momentum_kept(arm_optima):
    (m_rem, ev_rem), (m_bem, ev_bem) = arm_optima["rem"], arm_optima["bem"]
    assert pyo.value(m_bem.ocp.control_effort) == pytest.approx(pyo.value(m_rem.ocp.control_effort), rel=1e-6)
    for ev in (ev_rem, ev_bem):
        assert ev["momentum_error"] <= 1e-10
        assert ev["momentum_scale_angular"] > 1.0
    # the base turned although no torque acts on it: the arm's motion turned it
    assert np.linalg.norm(ev_rem["base_rotation"]) > 1e-2


def test_the_arm_ends_in_its_target_pose_at_rest(arm_optima):
    m, _ = arm_optima["rem"]
    theta = m.ocp.joint_coordinate
    last = m.dyn.nodes.last()
    reached = [pyo.value(theta[last, f"panda_joint{i}.angle"]) for i in range(1, 8)]
    np.testing.assert_allclose(reached, space_robot.TARGET, atol=1e-8)
    system, tr = m.dyn.system, m.dyn.trajectory()
    P = np.asarray(system.null_space(tr.q[-1]), float)
    assert np.abs(P.T @ system.mass_matrix() @ tr.v[-1]).max() < 1e-8  # every row, the base's too


def test_dmocc_keeps_the_momentum_of_the_optimal_motion():
    _, ev = _solved("dmocc", 12)
    assert ev["momentum_error"] <= 1e-10


def test_reach_puts_the_flange_at_its_point_with_everything_at_rest():
    point = (0.1, 0.45, 1.05)
    m, ev = _solved("rem", 12, case="reach", point=point)
    np.testing.assert_allclose(ev["flange_position"], point, atol=1e-8)
    assert ev["momentum_error"] <= 1e-10
    system, tr = m.dyn.system, m.dyn.trajectory()
    P = np.asarray(system.null_space(tr.q[-1]), float)
    assert np.abs(P.T @ system.mass_matrix() @ tr.v[-1]).max() < 1e-8


@pytest.mark.parametrize("options, match", [
    ({"case": "tumble"}, "case must be one of"),
    ({"rotation": (0.1, 0.2)}, "rotation must be 3 numbers"),
    ({"start": (0, 0, 0, 0, 0, 0, 0)}, "panda_joint4 at 0 rad, outside the URDF's limits"),
    ({"target": (1, 2)}, "the 7 arm joint angles"),
    ({"horizon": -1.0}, "horizon must be positive"),
    ({"scheme": "rattle"}, "rattle"),
    ({"initial": "tumble"}, "initial must be 'auto', 'guess' or one of"),
])
def test_bad_options_are_named(options, match):
    with pytest.raises(ConfigurationError, match=match):
        space_robot.build(**{"steps": 4, **options})


def test_fix_final_joints_names_what_it_cannot_fix():
    m = space_robot.build("rem", steps=4)
    with pytest.raises(ConfigurationError, match="no joint or body named 'elbow'|'elbow'"):
        m.problem.fix_final_joints({"elbow": 1.0})
    with pytest.raises(ConfigurationError, match="already fixed"):
        m.problem.fix_final_joints({"panda_joint1": 0.5})
    with pytest.raises(ConfigurationError, match="non-empty dict"):
        m.problem.fix_final_joints([0.5])
    with pytest.raises(ConfigurationError, match="panda_joint2"):
        m.problem.fix_final_joints({"panda_joint2": float("nan")})


def test_attitude_manoeuvre_turns_the_base_with_the_arm_back_at_rest():
    """Issue 49's case b: only the arm acts, it ends where it started, and the base has turned."""
    m, ev = _solved("rem", 12, case="attitude")
    np.testing.assert_allclose(ev["base_rotation"], space_robot.ROTATION, atol=1e-8)
    assert ev["momentum_error"] <= 1e-10
    theta, last = m.ocp.joint_coordinate, m.dyn.nodes.last()
    back = [pyo.value(theta[last, f"panda_joint{i}.angle"]) for i in range(1, 8)]
    np.testing.assert_allclose(back, space_robot.START, atol=1e-8)
    system, tr = m.dyn.system, m.dyn.trajectory()
    P = np.asarray(system.null_space(tr.q[-1]), float)
    assert np.abs(P.T @ system.mass_matrix() @ tr.v[-1]).max() < 1e-8


def test_a_relative_orientation_target_is_measured_from_the_reference_directors(system):
    """The satellite's directors are its principal axes, a half turn about x from the world axes:
    ``relative=True`` states R_N = R D_0, so the reference itself meets the identity target."""
    m = space_robot.build("gc", steps=2)
    D0 = np.column_stack(system.bodies["satellite"].directors(system.body_coordinates(system.q0, "satellite")))
    assert np.allclose(np.abs(np.diag(D0.astype(float))), 1, atol=1e-3) and D0[1, 1] < 0
    m.problem.fix_final_orientation("satellite", np.eye(3), relative=True)
    m.dyn.initialize_from(space_robot.build("gc", steps=2, target=space_robot.START).dyn.trajectory())
    rows = m.ocp.final_orientation
    assert max(abs(pyo.value(rows[i].body)) for i in rows) < 1e-12  # at the reference: met
    with pytest.raises(ConfigurationError, match="relative must be True or False"):
        m.problem.fix_final_orientation("satellite", np.eye(3), relative="yes")
