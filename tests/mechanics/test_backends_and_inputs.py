"""One formula, three backends; rotation maps; clear errors for bad input."""

import casadi
import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import assume, given, strategies as st
from scipy.spatial.transform import Rotation

from pyomo_mbdyn.errors import AssemblyError, ConfigurationError, MbdynError
from pyomo_mbdyn.mechanics import (
    MultibodySystem,
    PointMass,
    Prismatic,
    Revolute,
    RigidBody,
    Spherical,
    rotation_cayley,
    rotation_exp,
)
from pyomo_mbdyn.mechanics.linalg import axis_rotation, contravariant, is_unit_axis, trig
from pyomo_mbdyn.discretization import chart, chart_coordinates
from pyomo_mbdyn.discretization.jets import Jet

from systems import JOINT_TYPES, admissible, chain, directions, vectors


# ------------------------------------------------------------------ backends
def _evaluate_pyomo(fun, x):
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(len(x)), initialize=dict(enumerate(x)))
    out = np.asarray(fun(np.array([m.x[i] for i in range(len(x))], dtype=object)), dtype=object)
    return np.vectorize(lambda e: pyo.value(e), otypes=[float])(out)


def _evaluate_casadi(fun, x):
    s = casadi.SX.sym("x", len(x))
    out = np.asarray(fun(np.array([s[i] for i in range(len(x))], dtype=object)), dtype=object)
    flat = [casadi.SX(e) for e in out.reshape(-1)]
    f = casadi.Function("f", [s], [casadi.vertcat(*flat)] if flat else [casadi.SX(0, 1)])
    return np.array(f(x)).reshape(out.shape)


@pytest.mark.parametrize("kind", JOINT_TYPES)
def test_floats_pyomo_and_casadi_give_the_same_numbers(kind):
    """Every formula on a free body + joint + body (Pyomo's expression trees
    grow with the depth of a chain, so chains are left to the CasADi test)."""
    sys = chain([kind], seed=11, grounded=False)
    rng = np.random.default_rng(1)
    qk, _ = admissible(sys, rng)
    qk1, u = admissible(sys, rng, scale=0.5, base=qk)
    q_mid = 0.5 * (qk + qk1)
    functions = {
        "constraints": (sys.constraints, q_mid),
        "jacobian": (sys.constraint_jacobian, q_mid),
        "null_space": (sys.null_space, q_mid),
        "control_matrix": (sys.control_matrix, q_mid),
        "reparametrise": (lambda x: sys.reparametrise(x, qk), u),
        "kinetic_energy": (lambda x: np.array([sys.kinetic_energy(x)]), q_mid),
        "angular_momentum": (lambda x: sys.angular_momentum(q_mid, x), q_mid),
    }
    for name, (fun, x) in functions.items():
        expected = np.asarray(fun(np.asarray(x, dtype=float)), dtype=float)
        for backend in (_evaluate_pyomo, _evaluate_casadi):
            got = backend(fun, np.asarray(x, dtype=float))
            assert got.shape == expected.shape, name
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=name)


def test_casadi_agrees_on_a_tree_of_all_joint_types():
    sys = chain(JOINT_TYPES, seed=5, grounded=False, tree=True)
    rng = np.random.default_rng(2)
    qk, _ = admissible(sys, rng)
    qk1, u = admissible(sys, rng, scale=0.5, base=qk)
    q_mid = 0.5 * (qk + qk1)
    for fun, x in ((sys.null_space, q_mid), (sys.control_matrix, q_mid),
                   (lambda x: sys.reparametrise(x, qk), u)):
        np.testing.assert_allclose(_evaluate_casadi(fun, x), fun(x), rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ rotations
@given(axis=directions(), size=st.floats(0.0, 2 * np.pi, allow_nan=False))
def test_exponential_map_equals_rodrigues_to_round_off(axis, size):
    """Up to |θ| = 2π (measured: at most 1.3e-14 there).  Beyond, the series' cancellation
    grows: 4.5e-14 at 2.5π and 3e-13 at 3π, see the next test."""
    theta = size * axis
    np.testing.assert_allclose(rotation_exp(theta), Rotation.from_rotvec(theta).as_matrix(),
                               atol=5e-14)


def test_exponential_map_at_three_pi_within_its_documented_cancellation_error():
    """The series loses digits to cancellation, within e^|θ| ulp as documented (2.9e-13 measured at 3π)."""
    theta = 3 * np.pi * np.array([0.0, 0.0, 1.0])  # found by hypothesis
    bound = np.exp(3 * np.pi) * np.finfo(float).eps
    np.testing.assert_allclose(rotation_exp(theta), Rotation.from_rotvec(theta).as_matrix(), atol=bound)


def test_exponential_map_is_smooth_at_zero():
    """Its CasADi Jacobian at θ = 0 exists and is the hat map (no 0/0)."""
    th = casadi.SX.sym("th", 3)
    R = rotation_exp(np.array([th[0], th[1], th[2]], dtype=object))
    col = casadi.vertcat(*[casadi.SX(R[i, 0]) for i in range(3)])  # R e_1
    J = np.array(casadi.Function("J", [th], [casadi.jacobian(col, th)])(np.zeros(3)))
    np.testing.assert_allclose(J, -np.array([[0, 0, 0], [0, 0, -1], [0, 1, 0]]), atol=0)  # -hat(e_1)
    assert np.all(np.isfinite(J))


@given(axis=directions(), angle=st.floats(-200.0, 200.0, allow_nan=False))
def test_axis_rotation_is_exact_for_every_angle(axis, angle):
    """About a fixed unit axis the exponential uses sin and cos: exact where the
    series of rotation_exp (|θ| ≤ 3π) is not — a rotor's absolute angle grows."""
    np.testing.assert_allclose(axis_rotation(angle, axis), Rotation.from_rotvec(angle * axis).as_matrix(),
                               atol=1e-13)
    assert is_unit_axis(axis) and not is_unit_axis(2 * axis)


@given(a=st.floats(-50.0, 50.0), d1=st.floats(-3.0, 3.0), d2=st.floats(-3.0, 3.0))
def test_trig_of_a_jet_is_the_chain_rule(a, d1, d2):
    """sin and cos of a + d1 ε + d2 ε²/2, compared with the composed Taylor coefficients."""
    s, c = trig(Jet(a, d1, d2))
    assert (s.v, s.d1) == pytest.approx((np.sin(a), np.cos(a) * d1), abs=1e-14)
    assert s.d2 == pytest.approx(np.cos(a) * d2 - np.sin(a) * d1 ** 2, abs=1e-12)
    assert (c.v, c.d1) == pytest.approx((np.cos(a), -np.sin(a) * d1), abs=1e-14)
    assert c.d2 == pytest.approx(-np.sin(a) * d2 - np.cos(a) * d1 ** 2, abs=1e-12)


def test_trig_follows_the_backend():
    x = casadi.SX.sym("x")
    s, c = trig(x)
    assert float(casadi.Function("f", [x], [s * s + c * c])(7.3)) == pytest.approx(1.0, abs=1e-15)
    m = pyo.ConcreteModel()
    m.x = pyo.Var(initialize=11.0)
    s, c = trig(m.x)
    assert pyo.value(s) == pytest.approx(np.sin(11.0), abs=1e-15)
    assert pyo.value(c) == pytest.approx(np.cos(11.0), abs=1e-15)


def test_chart_follows_a_spinning_rotor_beyond_three_pi():
    """The absolute chart of a rotor on a revolute joint stays exact at large angles,
    and its inverse follows the angle continuously from the previous node."""
    system = chain(["revolute"], seed=2, grounded=True)
    angles = np.linspace(0.0, 40.0, 41)
    start = None
    for alpha in angles:
        q = np.asarray(chart(system, np.array([alpha])), float)
        assert np.abs(np.asarray(system.constraints(q), float)).max() < 1e-13
        start = chart_coordinates(system, q, start=start)
        assert start[0] == pytest.approx(alpha, abs=1e-10)


@given(axis=directions(), size=st.floats(0.0, 4.0, allow_nan=False))
def test_cayley_map_is_a_rotation_matching_exp_to_second_order(axis, size):
    theta = size * axis
    R = rotation_cayley(theta)
    np.testing.assert_allclose(R @ R.T, np.eye(3), atol=1e-14)
    assert np.linalg.det(R) == pytest.approx(1.0, abs=1e-14)
    small = 1e-3 * theta
    assert np.abs(rotation_cayley(small) - rotation_exp(small)).max() < 1e-8


@given(perturbation=vectors((3, 3), 1.0))
def test_contravariant_directors_are_dual(perturbation):
    """Director triads near 2I (entries perturbed by up to 1): d^i · d_j = δ_ij.
    Triads that are no basis (or nearly none) are excluded: there is no dual."""
    d = perturbation + 2 * np.eye(3)
    assume(np.linalg.cond(d) < 100)
    np.testing.assert_allclose(contravariant(d) @ d.T, np.eye(3), atol=1e-12)


# ------------------------------------------------------------------ bad input
def _body(name="b", **kw):
    kw.setdefault("position", (1, 0, 0))
    return RigidBody(name, 1.0, (1.0, 1.0, 1.0), **kw)


@pytest.mark.parametrize("mass", [0.0, -1.0, float("nan")])
def test_non_positive_mass_names_the_body(mass):
    with pytest.raises(ConfigurationError, match=r"'arm'.*mass"):
        RigidBody("arm", mass, (1, 1, 1))
    with pytest.raises(ValueError, match=r"'bob'.*mass"):
        PointMass("bob", mass)


def test_inertia_violating_the_triangle_inequality():
    with pytest.raises(ConfigurationError, match=r"'disc'.*triangle inequality"):
        RigidBody("disc", 1.0, (3.0, 1.0, 1.0))


def test_full_inertia_tensor_is_turned_to_principal_axes():
    R = Rotation.from_rotvec([0.3, -0.2, 0.5]).as_matrix()
    J_body = np.diag([1.0, 2.0, 2.5])
    J = R @ J_body @ R.T  # tensor in the frame of the given (identity) directors
    b = RigidBody("tilted", 2.0, J, points={"tip": (1.0, 0.0, 0.0)})
    np.testing.assert_allclose(sorted(b.inertia), [1.0, 2.0, 2.5], rtol=1e-12)
    # the named point keeps its spatial position
    np.testing.assert_allclose(b.point(b.q0, b.points["tip"]), [1.0, 0.0, 0.0], atol=1e-12)
    d = b.directors(b.q0)
    np.testing.assert_allclose(d @ d.T, np.eye(3), atol=1e-12)


def test_non_orthonormal_directors():
    with pytest.raises(ConfigurationError, match=r"'link'.*not orthonormal"):
        RigidBody("link", 1.0, (1, 1, 1), directors=[[1, 0.1, 0], [0, 1, 0], [0, 0, 1]])


def test_zero_axis_names_the_joint():
    with pytest.raises(ConfigurationError, match=r"'elbow'.*axis.*non-zero"):
        Revolute("elbow", None, _body(), location=(0, 0, 0), axis=(0, 0, 0))


def test_joint_points_must_coincide():
    upper, fore = _body("upper", position=(0, 0, 0)), _body("fore", position=(2, 0, 0))
    with pytest.raises(AssemblyError, match=r"'elbow'.*not assembled"):
        Spherical("elbow", upper, fore, parent_point=(1, 0, 0), child_point=(-0.5, 0, 0))
    # a prismatic joint may be open along its axis, not across it
    Prismatic("slide", upper, fore, parent_point=(1, 0, 0), child_point=(0, 0, 0), axis=(1, 0, 0))
    with pytest.raises(AssemblyError, match="'slide'"):
        Prismatic("slide", upper, fore, parent_point=(1, 0, 0), child_point=(0, 0, 0), axis=(0, 1, 0))


def test_body_added_twice_and_unknown_bodies():
    sys = MultibodySystem("s")
    b = _body("arm")
    sys.add_bodies(b)
    with pytest.raises(ConfigurationError, match=r"'arm' added twice"):
        sys.add_bodies(b)
    stranger = _body("stranger")
    with pytest.raises(ConfigurationError, match=r"'stranger' is not a body"):
        sys.add_joints(Spherical("ball", b, stranger, location=(1, 0, 0)))
    with pytest.raises(TypeError):
        sys.add_joints("not a joint")


def test_actuating_unknown_things():
    sys = MultibodySystem("s")
    b = _body("arm")
    sys.add_bodies(b)
    sys.add_joints(Revolute("hinge", None, b, location=(0, 0, 0), axis=(0, 0, 1)))
    with pytest.raises(ConfigurationError, match="no joint or body named 'knee'"):
        sys.actuate("knee")
    with pytest.raises(ConfigurationError, match="carried by a joint"):
        sys.actuate("arm")
    with pytest.raises(ConfigurationError, match="no coordinates"):
        sys.actuate("hinge", dofs="slide")
    sys.actuate("hinge")
    assert sys.actuated == ["hinge.angle"]


def test_inconsistent_reference_configuration_is_reported():
    sys = MultibodySystem("s")
    b = _body("arm")
    sys.add_bodies(b)
    sys.add_joints(Revolute("hinge", None, b, location=(0, 0, 0), axis=(0, 0, 1)))
    b.q0 = b.q0 + np.r_[0.1, np.zeros(11)]  # displace the body after assembly
    with pytest.raises(AssemblyError, match=r"hinge\[0\]"):
        sys.validate()


def test_errors_are_library_and_builtin_types():
    with pytest.raises(MbdynError):
        RigidBody("x", -1, (1, 1, 1))
    with pytest.raises(ValueError):
        RigidBody("x", -1, (1, 1, 1))
