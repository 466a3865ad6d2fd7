"""Inputs the library used to accept silently or answer misleadingly (issue 29).

The catalogue :data:`CASES` has the form of :mod:`test_bad_input` (``(id, make, error,
pattern)``, ``make(tmp)`` feeds one bad input; the error is an
:class:`~pyomo_mbdyn.errors.MbdynError` *and* a builtin exception, raised before any
solver runs, with a message naming the object and the bad value):

* a bool (or a text) where a number is expected — ``RigidBody("arm", True, …)`` was a
  body of 1 kg, ``gravity=(0, True, 0)`` a gravity of 1 upwards — in masses, inertias,
  lengths, axes, gravity, friction, bounds, targets, weights, step sizes, horizons and
  controls (one check, :mod:`pyomo_mbdyn.mechanics.numeric`);
* ``fix_final_configuration([True])`` and other bools or texts as joint coordinates;
* a guess of another system with the same shapes (values would land on other bodies);
* a :class:`~pyomo_mbdyn.trajectory.Trajectory` whose time runs backwards or is NaN,
  with a name given to two columns, or with ``metadata['h'] = "fast"``;
* ``minimise_control_effort`` on a system without actuators (the constant 0);
* a GC/absolute-chart guess whose node is off the joints (was a bare ``ValueError``
  "configuration not reached by the chart");
* ``simulate`` with NaN, 1e200 or bool controls (was "singular Newton matrix").

The tests after the catalogue check the behaviours that are not errors: a guess of the
same system with its bodies in another order is mapped by name; an interpolated guess
of half a turn and of one and a half turns reaches a GC block with its turns; a failed
Newton step and an 'unbounded' IPOPT status say what happened.
"""

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401  (registers the solver plugins)
from pyomo_mbdyn.errors import ConfigurationError, MbdynError, SolveFailedError
from pyomo_mbdyn.mechanics import MultibodySystem, PointMass, Revolute, RigidBody, Spherical
from pyomo_mbdyn.mechanics.coordinates import CoordinateGroup
from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
from pyomo_mbdyn.ocp.solve import solve
from pyomo_mbdyn.schemes import scheme_block
from pyomo_mbdyn.simulate import SimulationError, simulate
from pyomo_mbdyn.trajectory import Trajectory
from test_bad_input import BUILTIN_ERRORS, block, link, pendulum, problem, trajectory

BOOL = r"\(True/False are not numbers\)"


# -- systems ------------------------------------------------------------------------------------
def arm(order=("upper", "lower"), names=("upper", "lower"), actuate=("shoulder", "elbow")):
    """Two links on a shoulder and an elbow; ``order`` is the order of add_bodies, ``actuate``
    of the actuators (so the columns of q and u come in that order)."""
    upper = RigidBody(names[0], 1.0, (0.1, 0.1, 0.02), position=(0.5, 0, 0))
    lower = RigidBody(names[1], 2.0, (0.1, 0.1, 0.02), position=(1.5, 0, 0))
    bodies = dict(zip(names, (upper, lower)))
    system = MultibodySystem("arm", gravity=(0, -9.81, 0))
    system.add_bodies(*[bodies[name] for name in order])
    system.add_joints(Revolute("shoulder", None, upper, location=(0, 0, 0), axis=(0, 0, 1)),
                      Revolute("elbow", upper, lower, location=(1, 0, 0), axis=(0, 0, 1)))
    for joint in actuate:
        system.actuate(joint)
    return system


def arm_model(scheme="bem", steps=3, **options):
    m = pyo.ConcreteModel("arm")
    m.dyn = scheme_block(scheme, system=arm(), steps=steps, horizon=1.0, **options)
    return m


def guess_of(system, steps=3, target=(0.5, 0.3)):
    return interpolated_trajectory(system, 1.0 / steps, steps, list(target))


def initialize(model, guess):
    def run(tmp):
        model().dyn.initialize_from(guess())

    return run


def off_the_joints():
    """An interpolated half turn of the pendulum with node 2 moved 0.3 m off the hinge."""
    guess = interpolated_trajectory(pendulum(), 0.25, 4, [np.pi])
    guess.q[2, 1] += 0.3
    return guess


def chart_block(scheme, **options):
    m = pyo.ConcreteModel("chart")
    m.dyn = scheme_block(scheme, system=pendulum(), steps=4, horizon=1.0, **options)
    return m


def times(**change):
    """A Trajectory of two coordinates, one control, two rates on four nodes, with ``change``."""
    fields = dict(t=np.linspace(0, 1, 4), q=np.zeros((4, 2)), v=np.zeros((4, 2)), u=np.zeros((3, 1)),
                  nu=np.zeros((3, 2)), coordinates=["ball.x", "ball.y"], controls=["ball.x"],
                  velocities=["ball.vx", "ball.vy"], metadata={"h": 1 / 3})
    fields.update(change)
    return Trajectory(**fields)


def swing(controls, h=0.1, steps=3, v0=None):
    system = pendulum()
    return simulate(system, system.q0, np.zeros(system.n) if v0 is None else v0, h, steps, controls=controls)


nan = float("nan")

#: (id, make(tmp), error, pattern)
CASES = [
    # -- 1. a bool (or a text) is not a number -------------------------------------------------------
    ("body-mass-bool", lambda tmp: RigidBody("arm", True, (1, 1, 1)),
     ConfigurationError, r"RigidBody\('arm'\): mass must be a number, got bool True " + BOOL),
    ("point-mass-numpy-bool", lambda tmp: PointMass("bob", np.bool_(True)),
     ConfigurationError, r"PointMass\('bob'\): mass must be a number, got bool True " + BOOL),
    ("body-mass-text-number", lambda tmp: RigidBody("arm", "2", (1, 1, 1)),
     ConfigurationError, r"RigidBody\('arm'\): mass must be a number, got '2' \(a text is not a number\)"),
    ("body-inertia-bools", lambda tmp: RigidBody("arm", 1.0, (True, True, True)),
     ConfigurationError, r"'arm'\): inertia must be 3 principal moments or a 3×3 tensor, got \(True, True, True\) "
                         + BOOL),
    ("body-euler-bools", lambda tmp: RigidBody("arm", 1.0, euler=np.ones(3, dtype=bool)),
     ConfigurationError, r"'arm'\): euler must be 3 finite numbers, got \[True, True, True\] " + BOOL),
    ("body-position-bool", lambda tmp: RigidBody("arm", 1.0, (1, 1, 1), position=(True, 0, 0)),
     ConfigurationError, r"'arm'\): position must be 3 finite numbers, got \(True, 0, 0\) " + BOOL),
    ("body-directors-bools", lambda tmp: RigidBody("arm", 1.0, (1, 1, 1), directors=np.eye(3, dtype=bool)),
     ConfigurationError, r"'arm'\): directors must be a 3×3 array of finite numbers, got \[\[True, False"),
    ("body-point-bool", lambda tmp: link(points={"tip": (True, 0, 0)}),
     ConfigurationError, r"'link'\): point 'tip' must be 3 finite numbers, got \(True, 0, 0\) " + BOOL),
    ("joint-location-bool", lambda tmp: Spherical("ball", None, link(), location=(False, 0, 0)),
     ConfigurationError, r"Spherical\('ball'\): location must be 3 finite numbers, got \(False, 0, 0\) " + BOOL),
    ("joint-axis-bool", lambda tmp: Revolute("hinge", None, link(), location=(0, 0, 0), axis=(0, 0, True)),
     ConfigurationError, r"Revolute\('hinge'\): axis must be 3 finite numbers, got \(0, 0, True\) " + BOOL),
    ("gravity-bool", lambda tmp: MultibodySystem("sys", gravity=(0, True, 0)),
     ConfigurationError, r"MultibodySystem\('sys'\): gravity must be 3 finite numbers, got \(0, True, 0\) " + BOOL),
    ("friction-bool", lambda tmp: pendulum().add_friction("hinge", True),
     ConfigurationError, r"MultibodySystem\('pendulum'\): friction coefficients must be numbers ≥ 0, got bool True"),
    ("coordinate-group-masses-bool", lambda tmp: CoordinateGroup("cart", ["s"], [True]),
     ConfigurationError, r"coordinate group 'cart': masses must be positive numbers, got \[True\] " + BOOL),
    ("horizon-bool", lambda tmp: block(horizon=True),
     ConfigurationError, r"bem block: .*'horizon'.*True"),
    ("free-horizon-bool", lambda tmp: block(free_horizon=(True, 2.0)),
     ConfigurationError, r"bem block: .*'free_horizon'.*\(True, 2\.0\) " + BOOL),
    ("block-controls-bools", lambda tmp: block(controls=np.ones((3, 1), dtype=bool)),
     ConfigurationError, r"bem block: .*'controls'.*\[\[True\], \[True\], \[True\]\] " + BOOL),
    ("block-controls-dict-bool", lambda tmp: block(controls={"hinge.angle": True}),
     ConfigurationError, r"bem block: .*'controls'.*\[True\] " + BOOL),
    ("block-initial-velocity-bools", lambda tmp: block(initial_velocity=np.zeros(12, dtype=bool)),
     ConfigurationError, r"bem block: .*'initial_velocity'.*\[False, False, .*" + BOOL),
    ("bound-controls-bool", lambda tmp: problem().bound_controls(-1.0, True),
     ConfigurationError, r"bound_controls: upper bound of 'hinge\.angle' must be a number or None, got bool True "
                         + BOOL),
    ("bound-joint-bool", lambda tmp: problem().bound_joint("hinge", False, 1.0),
     ConfigurationError, r"bound_joint: lower bound of 'hinge\.angle' must be a number or None, got bool False"),
    ("final-position-bool", lambda tmp: problem().fix_final_position("link", (True, 0, 0)),
     ConfigurationError, r"fix_final_position of 'link': target must be 3 finite numbers, got \(True, 0, 0\) "
                         + BOOL),
    ("final-orientation-bools", lambda tmp: problem().fix_final_orientation("link", np.eye(3, dtype=bool)),
     ConfigurationError, r"fix_final_orientation of 'link': R_target must be a 3×3 rotation matrix, got \[\[True"),
    ("effort-weight-bool", lambda tmp: problem().minimise_control_effort({"hinge.angle": True}),
     ConfigurationError, r"minimise_control_effort: weights must be positive and finite, got \{'hinge\.angle': True\}"),
    ("final-time-weight-bool", lambda tmp: problem(free_horizon=(0.5, 2.0)).minimise_final_time(True),
     ConfigurationError, r"minimise_final_time: weight must be a positive number, got True"),
    ("free-final-time-bool", lambda tmp: problem(free_horizon=(0.5, 2.0)).free_final_time(0.5, True),
     ConfigurationError, r"free_final_time: upper must be a number, got bool True " + BOOL),
    ("rotation-increment-limit-bool", lambda tmp: problem("rem").bound_rotation_increments(True),
     ConfigurationError, r"bound_rotation_increments: limit must be a positive number, got bool True"),
    ("select-actuators-count-bool", lambda tmp: problem().select_actuators(True, 1.0),
     ConfigurationError, r"select_actuators: max_active must be an integer in 1\.\.1 .*got True"),
    ("select-actuators-bound-bool", lambda tmp: problem().select_actuators(1, True),
     ConfigurationError, r"select_actuators: bound must be a number or a dict of numbers per actuator, got bool True"),
    ("guess-step-bool", lambda tmp: interpolated_trajectory(pendulum(), True, 3, [1.0]),
     ConfigurationError, r"interpolated_trajectory: h must be a positive finite number, got bool True " + BOOL),
    ("guess-steps-fraction", lambda tmp: interpolated_trajectory(pendulum(), 0.1, 2.5, [1.0]),
     ConfigurationError, r"interpolated_trajectory: steps must be a whole number ≥ 1.*got 2\.5"),
    ("guess-target-bool", lambda tmp: interpolated_trajectory(pendulum(), 0.1, 3, [True]),
     ConfigurationError, r"interpolated_trajectory: theta_final must be chart coordinates \(numbers\), got \[True\]"),
    ("simulate-step-bool", lambda tmp: swing(None, h=True),
     ConfigurationError, r"time step h must be a positive finite number, got bool True " + BOOL),
    ("simulate-step-text", lambda tmp: swing(None, h="fast"),
     ConfigurationError, r"time step h must be a positive finite number, got 'fast' \(a text is not a number\)"),
    ("simulate-steps-bool", lambda tmp: swing(None, steps=True),
     ConfigurationError, r"simulate: steps must be a whole number ≥ 1.*got True"),
    ("simulate-controls-bools", lambda tmp: swing(np.ones((3, 1), dtype=bool)),
     ConfigurationError, r"simulate: controls must be an array \(3, 1\) of numbers, got \[\[True\], " + ".*" + BOOL),
    ("simulate-initial-velocity-bools", lambda tmp: swing(None, v0=np.zeros(12, dtype=bool)),
     ConfigurationError, r"MultibodySystem\('pendulum'\): the initial velocity must be an array of numbers, got "
                         r"\[False, "),
    # -- 2. joint coordinates: a dict or a sequence of numbers ------------------------------------
    ("final-configuration-bool", lambda tmp: problem().fix_final_configuration([True]),
     ConfigurationError, (r"fix_final_configuration: joint coordinates must be a dict \{joint or coordinate: value\} "
                          r"or a sequence of 1 numbers for \['hinge\.angle'\], got \[True\] " + BOOL)),
    ("final-configuration-numpy-bool", lambda tmp: problem().fix_final_configuration(np.array([True])),
     ConfigurationError, r"fix_final_configuration: joint coordinates must be .*got \[True\] " + BOOL),
    ("final-configuration-dict-bool", lambda tmp: problem().fix_final_configuration({"hinge": True}),
     ConfigurationError, r"fix_final_configuration: the value of 'hinge' must be a number \(rad or m\), got bool True"),
    ("final-configuration-text", lambda tmp: problem().fix_final_configuration("1.0"),
     ConfigurationError, r"fix_final_configuration: joint coordinates must be .*got '1\.0' \(a text is not a number\)"),
    ("final-configuration-bool-rem", lambda tmp: problem("rem").fix_final_configuration([False]),
     ConfigurationError, r"fix_final_configuration: joint coordinates must be .*got \[False\] " + BOOL),
    ("final-configuration-none", lambda tmp: problem().fix_final_configuration(None),  # was "got [nan]"
     ConfigurationError, (r"fix_final_configuration: got None; expected a dict \{joint or coordinate: value\} "
                          r"or a sequence of 1 numbers for \['hinge\.angle'\]")),
    ("final-configuration-list-none", lambda tmp: problem().fix_final_configuration([None]),
     ConfigurationError, r"fix_final_configuration: expected 1 finite joint coordinates .*got \[None\]"),
    ("final-configuration-dict-none", lambda tmp: problem().fix_final_configuration({"hinge": None}),
     ConfigurationError, r"fix_final_configuration: the value of 'hinge' must be a number \(rad or m\), got None"),
    # -- 3. a guess of another system with the same shapes -----------------------------------------
    ("initialize-from-other-bodies",
     initialize(arm_model, lambda: guess_of(arm(order=("femur", "tibia"), names=("femur", "tibia")))),
     ConfigurationError, (r"bem block 'dyn': initialize_from: the trajectory's coordinates are not this block's: "
                          r"missing \[upper\.\* \(12 columns\), lower\.\* \(12 columns\)\], extra \[femur\.\* "
                          r"\(12 columns\), tibia\.\* \(12 columns\)\], a motion of another system")),
    ("initialize-from-other-actuator",
     initialize(lambda: arm_model("rem"), lambda: _two_motors()),
     ConfigurationError, (r"rem block 'dyn': initialize_from: the trajectory's controls are not this block's: "
                          r"missing \['elbow\.angle'\], extra \['knee\.angle'\]")),
    ("initialize-quaternion-other-system",
     lambda tmp: _top_block().dyn.initialize_from(_other_top_guess()),
     ConfigurationError, r"quaternion block 'dyn': initialize_from: the trajectory's coordinates are not this block's"),
    # -- 4. trajectories that cannot be motions ---------------------------------------------------
    ("trajectory-time-backwards", lambda tmp: times(t=np.array([0.0, 0.5, 0.4, 1.0])),
     ConfigurationError, (r"Trajectory: the node times t must increase strictly \(time runs forward\); "
                          r"t\[1\] = 0\.5 is followed by t\[2\] = 0\.4")),
    ("trajectory-time-repeated", lambda tmp: times(t=np.array([0, 1, 1, 2])),
     ConfigurationError, r"Trajectory: the node times t must increase strictly .*t\[1\] = 1 is followed by t\[2\] = 1"),
    ("trajectory-time-nan", lambda tmp: times(t=np.array([0.0, nan, 0.6, 1.0])),
     ConfigurationError, r"Trajectory: the node times t must be finite; t\[1\] is nan"),
    ("trajectory-time-bool", lambda tmp: times(t=np.array([False, True, True, True])),
     ConfigurationError, r"Trajectory: t must hold real node times \(integers or floats\), got dtype bool"),
    ("trajectory-duplicate-coordinates", lambda tmp: times(coordinates=["ball.x", "ball.x"]),
     ConfigurationError, (r"Trajectory: coordinates must be distinct \(a column is found by its name\), but "
                          r"'ball\.x' names the columns 0 and 1 of q")),
    ("trajectory-duplicate-velocities", lambda tmp: times(velocities=["ball.vx", "ball.vx"]),
     ConfigurationError, r"Trajectory: velocities must be distinct .*'ball\.vx' names the columns 0 and 1 of nu"),
    ("trajectory-step-text", lambda tmp: times(metadata={"h": "fast"}),
     ConfigurationError, (r"Trajectory: metadata\['h'\] is the step size and must be a positive finite number "
                          r"\(or None\), got str 'fast'")),
    ("trajectory-step-bool", lambda tmp: times(metadata={"h": True}),
     ConfigurationError, r"Trajectory: metadata\['h'\] is the step size .*got bool True"),
    ("trajectory-step-negative", lambda tmp: times(metadata={"h": -0.1}),
     ConfigurationError, r"Trajectory: metadata\['h'\] is the step size .*got float -0\.1"),
    # -- 5. an effort without actuators -------------------------------------------------------------
    ("effort-without-actuators", lambda tmp: problem(system=pendulum(actuate=False)).minimise_control_effort(),
     ConfigurationError, (r"minimise_control_effort: MultibodySystem\('pendulum'\) has no actuators, so the bem "
                          r"block 'dyn' has no controls u and the effort h Σ u² would be the constant 0; actuate")),
    # -- 6b. a chart guess off the joints ------------------------------------------------------------
    ("gc-guess-off-the-joints", initialize(lambda: chart_block("gc"), off_the_joints),
     ConfigurationError, (r"gc block 'dyn': initialize_from: node 2 \(t = 0\.5\) of the guess is not reached by the "
                          r"chart of MultibodySystem\('pendulum'\): \|q\(θ\) - q\| = 0\.3 at 'link\.y' \(body 'link', "
                          r"joint 'hinge'\); the node violates the joints \(max \|Φ\(q\)\| = 0\.3\).*"
                          r"interpolated_trajectory")),
    ("absolute-guess-off-the-joints",
     initialize(lambda: chart_block("rem", configurations="absolute"), off_the_joints),
     ConfigurationError, (r"rem block 'dyn': initialize_from: node 2 \(t = 0\.5\) of the guess is not reached by the "
                          r"chart .*at 'link\.y' \(body 'link', joint 'hinge'\); the node violates the joints")),
    # -- 6c. controls the stepper cannot use ----------------------------------------------------------
    ("simulate-controls-huge", lambda tmp: swing([[0.0], [1e200], [0.0]]),
     ConfigurationError, (r"simulate: controls must be finite numbers of magnitude ≤ 1e\+100; the control of "
                          r"'hinge\.angle' at step 1 is 1e\+200")),
    ("simulate-controls-nan", lambda tmp: swing([[0.0], [0.0], [nan]]),
     ConfigurationError, r"simulate: controls must be finite .*the control of 'hinge\.angle' at step 2 is nan"),
    ("simulate-step-huge", lambda tmp: swing(None, h=1e200),
     ConfigurationError, r"time step h = 1e\+200 is outside \[1e-100, 1e\+100\]: check its units"),
    ("simulate-initial-velocity-huge", lambda tmp: swing(None, v0=pendulum().null_space(pendulum().q0) @ [1e200]),
     ConfigurationError, r"MultibodySystem\('pendulum'\): the initial velocity has entry \d+ \(link\..*\) = .*e\+\d+, "
                         r"beyond 1e\+100"),
    ("simulate-controls-large", lambda tmp: swing([[1e20]] * 3),
     SimulationError, (r"bem step 0: singular Newton matrix at iteration 1 .*The step runs from t = 0 to 0\.1 "
                       r"\(h = 0\.1\); its largest control is 'hinge\.angle' = 1e\+20, which moves the system by "
                       r"about \|u\| h²/m_min = 1e\+20 in one step")),
]


def _two_motors():
    """The arm's guess with the elbow's motor renamed: the same shapes, another actuator."""
    guess = guess_of(arm())
    return Trajectory(t=guess.t, q=guess.q, v=guess.v, u=guess.u, nu=guess.nu, coordinates=guess.coordinates,
                      controls=["shoulder.angle", "knee.angle"], velocities=guess.velocities,
                      metadata=guess.metadata, extras=guess.extras)


def _top_block():
    from pyomo_mbdyn.models import heavy_top

    return heavy_top.build(steps=2, initialize=False)


def _other_top_guess():
    """A motion of the heavy top's system with its body renamed (same shapes)."""
    guess = _top_block().dyn.trajectory()
    return Trajectory(t=guess.t, q=guess.q, v=guess.v, u=guess.u, nu=guess.nu,
                      coordinates=[name.replace(name.split(".")[0], "spinner", 1) for name in guess.coordinates],
                      controls=guess.controls, velocities=guess.velocities, metadata=guess.metadata)


def test_the_catalogue_names_are_distinct():
    assert len({case[0] for case in CASES}) == len(CASES)


@pytest.mark.parametrize("make, error, pattern", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_silent_input_is_refused_by_name(make, error, pattern, tmp_path):
    with pytest.raises(error, match=pattern) as info:
        make(tmp_path)
    assert isinstance(info.value, MbdynError), type(info.value).__mro__
    assert isinstance(info.value, BUILTIN_ERRORS), type(info.value).__mro__


# -- numbers that are numbers still pass ------------------------------------------------------------
def test_numpy_and_integer_numbers_are_numbers():
    body = RigidBody("arm", np.float32(2), np.array([1, 1, 1]), position=np.array([0, 0, 1]))
    assert body.mass == 2.0 and body.q0[2] == 1.0
    system = MultibodySystem("sys", gravity=np.array([0, -9, 0]))
    assert system.gravity.tolist() == [0.0, -9.0, 0.0]
    p = problem()
    p.fix_final_configuration(np.array([1]))
    p.bound_controls(-2, np.int64(2))
    assert p.dyn.u[0, "hinge.angle"].ub == 2.0


# -- 3. a guess of the same system, its bodies and actuators in another order ---------------------------
@pytest.mark.parametrize("scheme", ["bem", "rem", "gc"])
def test_a_guess_with_bodies_and_actuators_in_another_order_is_mapped_by_name(scheme):
    m = arm_model(scheme)
    m.dyn.initialize_from(guess_of(arm(order=("lower", "upper"), actuate=("elbow", "shoulder"))))
    got = m.dyn.trajectory()
    expected = guess_of(arm())
    np.testing.assert_allclose(got.q, expected.q, atol=1e-12)
    np.testing.assert_allclose(got.u, expected.u, atol=1e-12)


def test_a_guess_in_the_blocks_own_order_keeps_its_multipliers():
    m = arm_model("bem")
    guess = guess_of(arm())
    m.dyn.initialize_from(guess)
    np.testing.assert_allclose(m.dyn.trajectory().lam, guess.lam, atol=1e-12)


# -- 6b. chart guesses keep their turns --------------------------------------------------------------
@pytest.mark.parametrize("target", [np.pi, 3 * np.pi])
@pytest.mark.parametrize("scheme, options", [("gc", {}), ("rem", {"configurations": "absolute"})])
def test_an_interpolated_guess_reaches_the_chart_with_its_turns(scheme, options, target):
    """Half a turn was 'configuration not reached by the chart' (each node inverted from θ = 0);
    one and a half turns lost its turn.  The nodes are now followed from θ_0 with the guess's increments."""
    m = chart_block(scheme, **options)
    guess = interpolated_trajectory(pendulum(), m.dyn.step_length, 4, [target])
    m.dyn.initialize_from(guess)
    theta = [m.dyn.theta[k, "hinge.angle"].value for k in m.dyn.nodes]
    np.testing.assert_allclose(theta, np.cumsum(np.r_[0.0, guess.w[:, 0]]), atol=1e-9)
    assert theta[-1] == pytest.approx(target)


# -- 6c. a failed Newton step says what it was given ----------------------------------------------------
def test_a_step_that_does_not_converge_names_its_control():
    with pytest.raises(SimulationError, match=r"bem step 0: Newton did not converge in 25 iterations .*The step "
                                              r"runs from t = 0 to 0\.1 \(h = 0\.1\); its largest control is "
                                              r"'hinge\.angle' = 1e\+10, which moves the system by about "
                                              r"\|u\| h²/m_min = 1e\+10 in one step \(m_min = 0\.01"):
        swing([[1e10]] * 3)


def test_moderate_controls_still_simulate():
    tr = swing([[0.5]] * 3)
    assert np.all(np.isfinite(tr.q)) and tr.newton_iterations.max() < 10


# -- 6a. 'unbounded' says what happened ---------------------------------------------------------------
def test_diverging_iterates_with_an_effort_objective_do_not_ask_for_one():
    """IPOPT's 'Iterates diverging' (status unbounded) with the effort objective in place: the
    iterates diverged (forced here by a small diverging_iterates_tol on a rest guess)."""
    m = pyo.ConcreteModel("swing")
    m.dyn = scheme_block("bem", system=pendulum(), steps=3, horizon=1.0)
    p = OptimalControlProblem(m.dyn)
    p.minimise_control_effort()
    p.fix_final_configuration([np.pi / 2])
    p.require_final_rest()
    with pytest.raises(SolveFailedError) as info:
        p.solve("casadi_ipopt", options={"diverging_iterates_tol": 2.0})
    message = str(info.value)
    assert info.value.status == "unbounded"
    assert "The objective 'ocp.control_effort' is the control effort h Σ w u² (≥ 0" in message
    assert "the iterates diverged" in message and "interpolated_trajectory" in message
    assert "add an effort objective" not in message


def test_an_objective_bounded_by_its_form_is_not_called_unbounded():
    m = pyo.ConcreteModel("bounded")
    m.x = pyo.Var(initialize=1.0)
    m.y = pyo.Var(initialize=1.0, bounds=(0, None))
    m.objective = pyo.Objective(expr=(m.x - 3) ** 2 + 2 * m.y)
    with pytest.raises(SolveFailedError) as info:
        solve(m, "casadi_ipopt", options={"diverging_iterates_tol": 1.5})
    message = str(info.value)
    assert info.value.status == "unbounded"
    assert "The objective 'objective' is bounded below (≥ 0 by its form), so the problem is not unbounded" in message
    assert "add an effort objective" not in message


def test_an_objective_without_a_bound_is_told_to_add_one():
    m = pyo.ConcreteModel("unbounded")
    m.x = pyo.Var(initialize=0.0)
    m.y = pyo.Var(initialize=0.0)
    m.objective = pyo.Objective(expr=m.x - m.y ** 2)
    with pytest.raises(SolveFailedError) as info:
        solve(m, "casadi_ipopt", options={"diverging_iterates_tol": 10.0})
    message = str(info.value)
    assert info.value.status == "unbounded"
    assert "The objective 'objective' is not bounded below by its form" in message
    assert "add an effort objective" in message
