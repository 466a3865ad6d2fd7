"""The URDF's velocity limits on the joint rates (`apply_velocity_limits`, issue 47): the step's mean
rate |θ_{k+1} − θ_k|/h ≤ v_max in every scheme, GC's node rates ṽ_k within, the projected node
rates of bem/rem on request; a target the limits cannot reach named before the solve; bad input
named.

The problem is the two-link arm of test_urdf_limits (targets 1.0 and 0.4 rad in T = 1 s, N = 16)
with both limits at 1.25 rad/s: the unconstrained optimum swings the elbow at 7–17 rad/s, so the
limits are active and a scheme that ignored them fails here.
"""

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.joint_space import joint_space_table
from pyomo_mbdyn.mechanics import MultibodySystem
from pyomo_mbdyn.mechanics.urdf import JointLimits
from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
from pyomo_mbdyn.schemes import scheme_block

from test_urdf_limits import ARM, HORIZON, START, STEPS, TARGET

V_URDF = 3.0          # both joints' velocity in ARM
SCALE = 1.25 / V_URDF  # → v_max = 1.25 rad/s: the elbow's 0.4 rad and the shoulder's 1.0 rad fit in 1 s
V_MAX = V_URDF * SCALE
# IPOPT relaxes every bound, of variables and of inequality rows, by bound_relax_factor 1e-8 × max(1, |bound|):
# 1e-8 rad on a step's |θ_{k+1} − θ_k| ≤ h v_max is 1e-8/h in its rate (and less on the node rates)
TOL = 2e-8 / (HORIZON / STEPS)

SCHEMES = [("gc", {}), ("lobatto_gc", {}), ("rem", {"configurations": "absolute"}),
           ("rem", {"configurations": "lifted"}), ("bem", {"configurations": "absolute"}),
           ("bem", {"configurations": "lifted"})]
IDS = [s + ("-" + o["configurations"] if o else "") for s, o in SCHEMES]


def problem(scheme, target=TARGET, horizon=HORIZON, final=True, **options):
    system = MultibodySystem.from_urdf(ARM)
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=system, steps=STEPS, horizon=horizon, initial_coordinates=START, **options)
    p = OptimalControlProblem(m.dyn)
    p.minimise_control_effort({a: 0.5 for a in m.dyn.actuated})
    if final:
        p.fix_final_configuration(dict(zip(["shoulder", "elbow"], target)))
    p.require_final_rest()
    m.dyn.initialize_from(interpolated_trajectory(system, horizon / STEPS, STEPS, target, theta_initial=START))
    return m, p


def solved(m, p):
    assert str(p.solve("casadi_ipopt").solver.termination_condition) == "optimal"
    angles = p.joint_coordinates()
    theta = np.array([[pyo.value(angles[k, j]) for j in m.dyn.velocities] for k in m.dyn.nodes])
    return theta, np.diff(theta, axis=0) / m.dyn.step_length


def node_rates(m):
    """θ̇_k by the one definition of pyomo_mbdyn.joint_space (ṽ_k in gc, the projection of v_k in bem/rem)."""
    table = joint_space_table(m.dyn.trajectory())
    return table[[f"{j}.rate" for j in m.dyn.velocities]].to_numpy()


@pytest.mark.parametrize("scheme, options", SCHEMES, ids=IDS)
def test_the_mean_rates_keep_the_limits_which_the_free_optimum_breaks(scheme, options):
    free, free_problem = problem(scheme, **options)
    _, free_rates = solved(free, free_problem)
    assert np.abs(free_rates).max(axis=0).min() > 1.5 * V_MAX    # both joints well above the limit unbounded

    m, p = problem(scheme, **options)
    assert p.apply_velocity_limits(scale=SCALE) == ["shoulder.angle", "elbow.angle"]
    theta, rates = solved(m, p)
    np.testing.assert_allclose(theta[-1], TARGET, atol=1e-8)
    assert np.abs(rates).max() <= V_MAX + TOL
    np.testing.assert_allclose(np.abs(rates).max(axis=0), V_MAX, atol=1e-6)  # active on both joints
    if scheme in ("gc", "lobatto_gc"):                                     # the node rates are unknowns: bounded
        vt = m.dyn.trajectory().vt
        assert np.abs(vt).max() <= V_MAX + TOL
        np.testing.assert_allclose(node_rates(m), vt, atol=1e-12)         # ṽ is θ̇ by the one definition


@pytest.mark.parametrize("configurations", ["absolute", "lifted"])
def test_node_rates_true_bounds_the_projection_of_the_node_velocities(configurations):
    m, p = problem("rem", configurations=configurations)
    p.apply_velocity_limits(scale=SCALE)
    solved(m, p)
    assert np.abs(node_rates(m)).max() > V_MAX + 1e-3   # the mean rows alone leave the node rates' zigzag above

    m, p = problem("rem", configurations=configurations)
    p.apply_velocity_limits(scale=SCALE, node_rates=True)
    _, rates = solved(m, p)
    theta_dot = node_rates(m)
    assert np.abs(rates).max() <= V_MAX + TOL and np.abs(theta_dot).max() <= V_MAX + TOL
    np.testing.assert_allclose(np.abs(theta_dot).max(axis=0), V_MAX, atol=1e-6)
    variables = np.array([[m.ocp.node_rate[k, j].value for j in m.dyn.velocities] for k in m.dyn.nodes if k > 0])
    np.testing.assert_allclose(variables, theta_dot[1:], atol=1e-9)       # the rows are the projection


def test_free_final_time_states_the_rows_on_the_rate():
    m, p = problem("gc", free_horizon=(0.5, 2.0))
    p.apply_velocity_limits(scale=SCALE)
    p.minimise_final_time()
    assert str(p.solve("casadi_ipopt").solver.termination_condition) == "optimal"
    tr = m.dyn.trajectory()
    h = m.dyn.step_length
    # the shoulder's 1.0 rad at 1.25 rad/s takes at least 0.8 s, with node rates from rest T − h ≥ 0.8
    assert np.abs(np.diff(tr.theta, axis=0) / h).max() <= V_MAX + TOL
    assert m.dyn.final_time_value >= 1.0 / V_MAX + h - 1e-6


@pytest.mark.parametrize("order", ["limits first", "target first"])
def test_a_target_the_limits_cannot_reach_is_named_before_the_solve(order):
    slow = {"shoulder": JointLimits("shoulder", "revolute", ("shoulder.angle",), -0.5, 1.2, 16.0, 0.8)}
    m, p = problem("rem", configurations="absolute", final=False)
    move = {"shoulder": TARGET[0], "elbow": TARGET[1]}
    if order == "limits first":
        p.apply_velocity_limits(slow)
        with pytest.raises(ConfigurationError, match=r"'shoulder'.*needs at least 1\.25 s at the given velocity"):
            p.fix_final_configuration(move)
        assert not m.dyn.theta[STEPS, "shoulder.angle"].fixed   # refused before any row
        p.fix_final_configuration({"shoulder": 0.5, "elbow": TARGET[1]})  # 0.625 s: reachable
    else:
        p.fix_final_configuration(move)
        with pytest.raises(ConfigurationError, match=r"'shoulder'.*needs at least 1\.25 s at the given velocity"):
            p.apply_velocity_limits(slow)
        assert p.block.component("velocity_limit") is None


@pytest.mark.parametrize("horizon, also", [(0.3, ""), (0.1, r"; also 'elbow' \(0\.133333 s\)")])
def test_the_urdf_limits_are_named_as_such_the_longest_first(horizon, also):
    m, p = problem("gc", horizon=horizon)   # 1.0 rad and 0.4 rad at 3 rad/s need 0.333 s and 0.133 s
    with pytest.raises(ConfigurationError, match=r"'shoulder'.*needs at least 0\.333333 s at the URDF's velocity "
                                                 r"limits \(3 rad/s\)" + also + rf"; the horizon is T = {horizon} s"):
        p.apply_velocity_limits()


def limits(velocity, joint="elbow"):
    return {joint: JointLimits(joint, "revolute", (f"{joint}.angle",), -0.2, 1.0, 8.0, velocity)}


@pytest.mark.parametrize("bad, match", [
    (limits(-1.0), r"velocity limit of 'elbow'.*non-negative.*-1\.0"),
    (limits(float("nan")), r"velocity limit of 'elbow'.*nan"),
    (limits("fast"), r"velocity limit of 'elbow'.*'fast'"),
    (limits(2.0, joint="wrist"), r"'wrist'"),
    ({"elbow": (0.0, 2.0)}, "JointLimits"),
    ([JointLimits("elbow", "revolute", ("elbow.angle",), velocity=2.0)], "JointLimits"),
])
def test_bad_limits_are_refused_by_name(bad, match):
    m, p = problem("gc")
    with pytest.raises(ConfigurationError, match=match):
        p.apply_velocity_limits(bad)
    assert p.block.component("velocity_limit") is None


@pytest.mark.parametrize("keywords, match", [
    ({"scale": 0.0}, "scale must be a positive"), ({"scale": float("nan")}, "scale"),
    ({"scale": "half"}, "scale"), ({"node_rates": "yes"}, "node_rates must be None, True or False"),
    ({"node_rates": 1}, "node_rates"),
])
def test_bad_options_are_refused_by_name(keywords, match):
    m, p = problem("rem", configurations="absolute")
    with pytest.raises(ConfigurationError, match=match):
        p.apply_velocity_limits(**keywords)


def test_zero_means_unstated_and_twice_is_refused():
    m, p = problem("gc")
    assert p.apply_velocity_limits(limits(0.0)) == []          # URDFs write velocity="0" for "not stated"
    assert p.apply_velocity_limits(limits(2.0)) == ["elbow.angle"]
    with pytest.raises(ConfigurationError, match=r"\['elbow.angle'\] is bounded already"):
        p.apply_velocity_limits()
    assert p.apply_velocity_limits({"shoulder": limits(2.0, "shoulder")["shoulder"]}) == ["shoulder.angle"]


def test_projected_node_rates_need_node_velocities():
    m, p = problem("dmocc")
    with pytest.raises(ConfigurationError, match="node_rates=True.*dmocc block has no node velocities"):
        p.apply_velocity_limits(node_rates=True)


def test_a_fast_initial_rate_is_refused_in_gc():
    system = MultibodySystem.from_urdf(ARM)
    m = pyo.ConcreteModel()
    m.dyn = scheme_block("gc", system=system, steps=STEPS, horizon=HORIZON, initial_coordinates=START,
                         initial_velocity=system.null_space(system.q0) @ np.array([0.0, 2.0]))
    with pytest.raises(ConfigurationError, match=r"initial rate of 'elbow.angle', 2, exceeds"):
        OptimalControlProblem(m.dyn).apply_velocity_limits(limits(1.5))


def test_a_system_without_urdf_limits_needs_them_given():
    from pyomo_mbdyn.mechanics import examples

    m = pyo.ConcreteModel()
    m.dyn = scheme_block("gc", system=examples.pendulum(), steps=4, horizon=1.0)
    with pytest.raises(ConfigurationError, match="urdf_limits"):
        OptimalControlProblem(m.dyn).apply_velocity_limits()


def test_the_robot_models_keep_the_urdf_velocity_limits_by_default():
    from pyomo_mbdyn.models import panda, ur5

    m = ur5.build("gc", steps=20)
    assert str(m.problem.solve("casadi_ipopt").solver.termination_condition) == "optimal"
    system, tr = m.dyn.system, m.dyn.trajectory()
    v_max = np.array([system.urdf_limits[j.rsplit(".", 1)[0]].velocity for j in m.dyn.velocities])
    h = m.dyn.step_length
    assert np.all(np.abs(np.diff(tr.theta, axis=0)) / h <= v_max + 2e-8 / h)   # IPOPT relaxes rows by 1e-8
    assert np.isclose(np.abs(tr.vt).max(axis=0), v_max, atol=1e-6).any()       # ... and the limits bind
    assert np.all(np.abs(tr.vt) <= v_max + 1e-7)
    assert ur5.build("gc", steps=20, velocity_limits=False).ocp.component("velocity_limit") is None
    with pytest.raises(ConfigurationError, match=r"'panda_joint7'.*needs at least 0\.41586\d* s at the URDF's"):
        panda.build("gc", steps=10, horizon=0.3)
    with pytest.raises(ConfigurationError, match="panda: velocity_limits must be True or False, got 'yes'"):
        panda.build("gc", steps=10, velocity_limits="yes")


@pytest.mark.parametrize("scheme", ["gc", "rem", "bem"])
def test_a_start_beyond_the_bounds_is_taken_without_a_warning_per_variable(scheme, caplog):
    """A start is a point for the solver to begin from, not a value to validate: a guess whose rates or
    angles lie beyond the variables' bounds (a perturbed or a fast start) is taken as it is (IPOPT moves
    it inside), without one Pyomo W1002 warning per node and joint."""
    m, p = problem(scheme)
    p.apply_velocity_limits()
    p.apply_joint_limits()
    fast = interpolated_trajectory(m.dyn.system, HORIZON / STEPS / 10, STEPS, TARGET * 5, q_initial=m.dyn.q_initial)
    with caplog.at_level("WARNING"):
        m.dyn.initialize_from(fast)
    assert not [r for r in caplog.records if "outside the bounds" in r.getMessage()]
