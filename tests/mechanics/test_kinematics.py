"""Constraints, null spaces, control matrices and reparametrisations.

Properties over random systems and random admissible configurations.
"""

import casadi
import numpy as np
import pytest
from hypothesis import given, strategies as st

from systems import (JOINT_TYPES, admissible, chains, increments, pairs, pitcher, point_mass_pendulum,
                     satellite, vectors)

joint_kinds = st.sampled_from(JOINT_TYPES)


def _systems(kind, data):
    """A free pair and a grounded one, with drawn parameters."""
    return [data.draw(pairs(kind)), data.draw(pairs(kind, grounded=True))]


def _configuration(system, data, scale=1.0, base=None):
    """An admissible configuration: drawn increments mapped by the reparametrisation."""
    base = system.q0 if base is None else base
    return system.reparametrise(data.draw(increments(system, scale)), base)


def amax(x):
    return np.abs(np.asarray(x, dtype=float)).max(initial=0.0)


@given(kind=joint_kinds, data=st.data())
def test_reparametrisation_stays_on_the_constraint_manifold(kind, data):
    for sys in _systems(kind, data):
        q = _configuration(sys, data, scale=1.5)
        assert amax(sys.constraints(q)) < 1e-12
        # and a second, relative step from there
        q2 = _configuration(sys, data, scale=1.5, base=q)
        assert amax(sys.constraints(q2)) < 1e-12


@given(kind=joint_kinds, data=st.data())
def test_null_space_annihilates_constraint_jacobian_with_full_rank(kind, data):
    for sys in _systems(kind, data):
        q = _configuration(sys, data)
        G, P = sys.constraint_jacobian(q), sys.null_space(q)
        assert amax(G @ P) < 1e-12
        assert np.linalg.matrix_rank(P) == sys.n - sys.m == P.shape[1]
        assert np.linalg.matrix_rank(G) == sys.m


@given(kinds=st.lists(joint_kinds, min_size=2, max_size=5), tree=st.booleans(), grounded=st.booleans(),
       data=st.data())
def test_chains_and_trees(kinds, tree, grounded, data):
    sys = data.draw(chains(kinds, grounded=grounded, tree=tree))
    q = _configuration(sys, data)
    assert amax(sys.constraints(q)) < 1e-12
    G, P = sys.constraint_jacobian(q), sys.null_space(q)
    assert amax(G @ P) < 1e-12
    assert np.linalg.matrix_rank(P) == sys.n - sys.m == sys.dof


@given(kinds=st.lists(joint_kinds, min_size=1, max_size=4), grounded=st.booleans(),
       step=st.floats(0.05, 1.5, allow_nan=False), data=st.data())
def test_contravariant_control_matrix_inverts_midpoint_null_space(kinds, grounded, step, data):
    """B(q♯_{k+½}) P(q_{k+½}) = I for consecutive admissible configurations."""
    sys = data.draw(chains(kinds, grounded=grounded))
    qk = _configuration(sys, data)
    qk1 = _configuration(sys, data, scale=step, base=qk)
    q_mid = 0.5 * (qk + qk1)
    P = sys.null_space(q_mid)
    B = sys.control_matrix(q_mid)
    error = amax(B @ P - np.eye(sys.dof))
    if step <= 1.0:  # per-step rotations the schemes allow (aliasing guard)
        assert error < 1e-12
    # beyond, the midpoint triad can be nearly singular and B large: the
    # identity then holds to round-off relative to |B| |P|
    assert error < 1e-13 * max(1.0, amax(B) * amax(P))
    tau = data.draw(vectors(sys.dof, 3.0))
    assert amax(sys.reduced_forces(q_mid, tau) - tau) < 1e-13 * max(1.0, amax(B) * amax(P)) * 10
    # and the midpoint null space is still a null space of the midpoint Jacobian
    assert amax(sys.constraint_jacobian(q_mid) @ P) < 1e-12


def test_plain_midpoint_control_matrix_fails_the_identity():
    """The 'kov' B (directors at the plain midpoint) is off by O(step²)."""
    sys = satellite()
    rng = np.random.default_rng(3)
    qk, _ = admissible(sys, rng, scale=0.5)
    direction = rng.uniform(-1, 1, size=sys.n_velocities)
    errors = []
    for step in (0.8, 0.4, 0.2):
        qk1 = sys.reparametrise(step * direction, qk)
        q_mid = 0.5 * (qk + qk1)
        P = sys.null_space(q_mid)
        err_kov = np.abs(sys.control_matrix(q_mid, contravariant=False) @ P - np.eye(9)).max()
        err_kontra = np.abs(sys.control_matrix(q_mid) @ P - np.eye(9)).max()
        assert err_kontra < 1e-12
        errors.append(err_kov)
    assert errors[0] > 1e-2  # a visible error for a large step
    # second order: halving the step quarters the error (ratio near 4)
    assert errors[0] / errors[1] > 2.5 and errors[1] / errors[2] > 2.5


@given(kind=joint_kinds, data=st.data())
def test_reparametrisation_derivative_at_zero_is_the_null_space(kind, data):
    for sys in _systems(kind, data):
        q = _configuration(sys, data)
        if sys.n_velocities == 0:  # a grounded fixed joint: nothing to vary
            continue
        u = casadi.SX.sym("u", sys.n_velocities)
        F = sys.reparametrise(np.array([u[i] for i in range(sys.n_velocities)], dtype=object), q)
        F = casadi.vertcat(*[casadi.SX(f) for f in F])
        J = casadi.Function("J", [u], [casadi.jacobian(F, u)])(np.zeros(sys.n_velocities))
        assert amax(np.array(J) - sys.null_space(q)) < 1e-12


@given(kind=joint_kinds, data=st.data())
def test_joint_wrenches_have_zero_net_force_and_moment(kind, data):
    sys = data.draw(pairs(kind))
    q = _configuration(sys, data)
    C = sys.wrench_matrix(q)
    phi = {b: sys.body_coordinates(q, b)[0:3] for b in sys.bodies}
    force = C["b1"][0:3] + C["b2"][0:3]
    moment = (C["b1"][3:6] + np.cross(phi["b1"], C["b1"][0:3], axisa=0, axisb=0, axisc=0)
              + C["b2"][3:6] + np.cross(phi["b2"], C["b2"][0:3], axisa=0, axisb=0, axisc=0))
    joint_cols = [sys.layout["index"][d] for d in sys.joints["J"].dofs]
    assert np.abs(force[:, joint_cols]).max(initial=0) < 1e-12
    assert np.abs(moment[:, joint_cols]).max(initial=0) < 1e-12


@given(data=st.data())
def test_mass_matrix_gives_rigid_body_kinetic_energy(data):
    """½ vᵀ M v = ½ m |φ̇|² + ½ ω·J ω with J the spatial inertia tensor."""
    sys = data.draw(pairs("spherical"))
    q = _configuration(sys, data, scale=2.0)
    for name, body in sys.bodies.items():
        qb = sys.body_coordinates(q, name)
        twist = data.draw(vectors(6, 3.0))
        v = body.internal_null_space(qb) @ twist
        R = body.directors(qb).T  # columns d_i
        J = R @ np.diag(body.inertia) @ R.T
        expected = 0.5 * body.mass * twist[:3] @ twist[:3] + 0.5 * twist[3:] @ J @ twist[3:]
        assert 0.5 * v @ body.mass_matrix() @ v == pytest.approx(expected, rel=1e-12)
        assert body.kinetic_energy(v) == pytest.approx(expected, rel=1e-12)
        np.testing.assert_allclose(body.twist(qb, v), twist, atol=1e-12)
        # angular momentum about the origin: m φ × φ̇ + J ω
        L = body.mass * np.cross(qb[0:3], twist[:3]) + J @ twist[3:]
        np.testing.assert_allclose(body.angular_momentum(qb, v), L, rtol=1e-12, atol=1e-12)


def test_satellite_dimensions():
    sys = satellite()
    assert (sys.n, sys.m, sys.dof) == (48, 39, 9)
    assert sys.validate()["redundant_constraints"] == []


def test_pitcher_dimensions():
    sys = pitcher()
    assert (sys.n, sys.m, sys.dof) == (36, 31, 5)
    report = sys.validate()
    assert report["redundant_constraints"] == [] and report["loop_joints"] == []


def test_point_mass_on_a_link():
    sys = point_mass_pendulum()
    assert (sys.n, sys.m, sys.dof) == (15, 14, 1)
    rng = np.random.default_rng(0)
    q, _ = admissible(sys, rng, scale=2.0)
    assert amax(sys.constraints(q)) < 1e-12
    assert np.abs(sys.constraint_jacobian(q) @ sys.null_space(q)).max() < 1e-12


def test_closed_loop_four_bar():
    """Ground-crank-coupler-rocker: a loop joint adds constraints, not coordinates."""
    from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody

    z = (0, 0, 1)
    crank = RigidBody("crank", 1.0, (0.1, 0.1, 0.02), position=(0, 0.5, 0))
    coupler = RigidBody("coupler", 1.0, (0.1, 0.1, 0.02), position=(1, 1, 0))
    rocker = RigidBody("rocker", 1.0, (0.1, 0.1, 0.02), position=(2, 0.5, 0))
    sys = MultibodySystem("four-bar")
    sys.add_bodies(crank, coupler, rocker)
    sys.add_joints(
        Revolute("A", None, crank, location=(0, 0, 0), axis=z),
        Revolute("B", crank, coupler, location=(0, 1, 0), axis=z),
        Revolute("C", coupler, rocker, location=(2, 1, 0), axis=z),
        Revolute("D", None, rocker, location=(2, 0, 0), axis=z),
    )
    report = sys.validate()
    assert report["loop_joints"] == ["D"]
    # a planar four-bar: 1 dof; the planar loop makes 3 of its 5 constraints redundant
    assert sys.dof == 1
    assert len(report["redundant_constraints"]) == 3
    P = sys.null_space(sys.q0)
    assert P.shape[1] == 1 and np.abs(sys.constraint_jacobian(sys.q0) @ P).max() < 1e-12


def test_gravity_friction_and_actuation_layout():
    sys = pitcher()
    g = sys.gravity
    grad = sys.potential_gradient()
    for name, body in sys.bodies.items():
        s = sys.layout["offsets"][name]
        np.testing.assert_allclose(grad[s][0:3], -body.mass * g)
        assert np.all(grad[s][3:] == 0)
    q, _ = admissible(sys, np.random.default_rng(0))
    assert sys.potential_energy(q) == pytest.approx(
        -sum(b.mass * g @ sys.body_coordinates(q, n)[0:3] for n, b in sys.bodies.items()))
    sys.add_friction("elbow", 300.0)
    assert list(sys.friction) == [0, 0, 0, 0, 300.0]
    assert sys.actuated == ["torso.angle", "shoulder.wx", "shoulder.wy", "shoulder.wz", "elbow.angle"]
    assert sys.velocities == sys.actuated
