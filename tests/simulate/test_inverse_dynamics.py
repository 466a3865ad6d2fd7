"""Recursive Newton–Euler inverse dynamics of chains (:meth:`Chain.inverse_dynamics`).

Against the module's own forward dynamics (the round trip, over random states by
hypothesis), the global mass matrix (τ is affine in γ̈ with slope H), and Pinocchio's
``rnea`` / ``aba`` on the UR5 and the Panda shipped in ``pyomo_mbdyn/robots``, read into a
chain from ``MultibodySystem.from_urdf`` by :meth:`Chain.from_system`.
"""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from pyomo_mbdyn import robots
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody, Spherical
from pyomo_mbdyn.simulate import inverse_dynamics
from pyomo_mbdyn.simulate.recursive import Chain, ChainBody, ChainJoint

import pinocchio as pin  # the test extra installs `pin`

G = 9.81


def small_chain():
    """4 bodies, 7 DOF: universal, revolute, Euler-angle spherical (𝓟 not orthonormal), prismatic."""
    rng = np.random.default_rng(11)

    def body():
        R = rng.normal(size=(3, 3))
        return ChainBody(rng.uniform(1, 3), rng.uniform(-0.3, 0.3, 3), R @ R.T / 3 + 0.1 * np.eye(3))

    joints = [ChainJoint.universal((0, 0, 0)),
              ChainJoint.revolute((1.0, 0.1, 0.0), axis=(0, 0.6, 0.8)),
              ChainJoint.spherical((0.8, 0.0, 0.2)),
              ChainJoint.prismatic((0.5, 0.2, -0.1), axis=(1, 1, 0))]
    return Chain(joints, [body() for _ in joints], gravity=np.array([0, 0, -G]))


CHAIN = small_chain()
#: |γ| ≤ 1 keeps the Euler-angle spherical joint away from its singularity (γ_2 = ±π/2)
vectors = st.lists(st.floats(-1, 1, allow_nan=False), min_size=CHAIN.dof, max_size=CHAIN.dof).map(np.array)


@given(vectors, vectors.map(lambda x: 3 * x), vectors.map(lambda x: 10 * x))
def test_forward_dynamics_inverts_the_inverse_dynamics(gamma, gamma_dot, gamma_ddot):
    tau = CHAIN.inverse_dynamics(gamma, gamma_dot, gamma_ddot)
    back = CHAIN.forward_dynamics(gamma, gamma_dot, tau)
    assert np.abs(back - gamma_ddot).max() < 1e-12 * max(1.0, np.abs(gamma_ddot).max())


@given(vectors, vectors.map(lambda x: 3 * x), vectors.map(lambda x: 10 * x))
def test_inverse_dynamics_is_affine_in_the_accelerations_with_the_mass_matrix(gamma, gamma_dot, gamma_ddot):
    """τ(γ̈) - τ(0) = H γ̈, and τ(0) = -Lᵀ f_net (the global solution's right-hand side)."""
    bias = CHAIN.inverse_dynamics(gamma, gamma_dot, np.zeros(CHAIN.dof))
    tau = CHAIN.inverse_dynamics(gamma, gamma_dot, gamma_ddot)
    gdd_free, H = CHAIN.mass_matrix_solution(gamma, gamma_dot)  # H γ̈_free = Lᵀ f_net
    scale = np.abs(H).max() * max(1.0, np.abs(gamma_ddot).max()) + np.abs(bias).max()
    assert np.abs(tau - bias - H @ gamma_ddot).max() < 1e-12 * scale
    assert np.abs(bias + H @ gdd_free).max() < 1e-12 * scale


def test_external_forces_enter_both_directions_alike():
    rng = np.random.default_rng(5)
    gamma, gamma_dot, gamma_ddot = (rng.uniform(-1, 1, CHAIN.dof) for _ in range(3))
    f_ext = [rng.normal(size=6) for _ in CHAIN.bodies]
    tau = CHAIN.inverse_dynamics(gamma, gamma_dot, gamma_ddot, f_ext)
    assert np.abs(CHAIN.forward_dynamics(gamma, gamma_dot, tau, f_ext) - gamma_ddot).max() < 1e-12
    assert np.abs(tau - CHAIN.inverse_dynamics(gamma, gamma_dot, gamma_ddot)).max() > 1e-3  # they matter
    assert np.array_equal(inverse_dynamics(CHAIN, gamma, gamma_dot, gamma_ddot, f_ext), tau)


@pytest.mark.parametrize("what, args", [
    ("gamma", ([0.0] * 6, [0.0] * 7, [0.0] * 7)),
    ("gamma_dot", ([0.0] * 7, [0.0] * 7 + [1.0], [0.0] * 7)),
    ("gamma_ddot", ([0.0] * 7, [0.0] * 7, [0.0] * 6 + [float("nan")])),
    ("gamma_ddot", ([0.0] * 7, [0.0] * 7, "fast")),
])
def test_bad_states_are_refused_by_name(what, args):
    with pytest.raises(ConfigurationError, match=f"Chain: {what} must be 7"):
        CHAIN.inverse_dynamics(*args)


# -- the shipped robots against Pinocchio ------------------------------------------------
@pytest.mark.parametrize("robot", ["ur5", "panda"])
def test_robot_chain_matches_pinocchio_rnea_and_aba(robot):
    system = MultibodySystem.from_urdf(robots.path(robot))
    chain = Chain.from_system(system)
    assert chain.velocities == system.velocities and chain.dof == system.dof
    np.testing.assert_array_equal(chain.gravity, system.gravity)
    model = pin.buildModelFromUrdf(str(robots.path(robot)))
    data = model.createData()
    perm = [model.joints[model.getJointId(name.split(".")[0])].idx_v for name in chain.velocities]
    assert sorted(perm) == list(range(model.nv))
    last = model.getJointId(chain.velocities[-1].split(".")[0])
    pin.forwardKinematics(model, data, pin.neutral(model))
    reference = data.oMi[last].rotation.copy()  # the chain's frames are world-aligned at θ = 0
    rng = np.random.default_rng(0)
    errors = {"rnea": 0.0, "aba": 0.0, "configuration": 0.0}
    for _ in range(20):
        theta, rates, acc, torque = (rng.uniform(-np.pi, np.pi, chain.dof), rng.normal(size=chain.dof),
                                     rng.normal(size=chain.dof), 20 * rng.normal(size=chain.dof))
        q_pin, v_pin, a_pin, t_pin = (np.zeros(model.nv) for _ in range(4))
        q_pin[perm], v_pin[perm], a_pin[perm], t_pin[perm] = theta, rates, acc, torque
        q_pin = pin.integrate(model, pin.neutral(model), q_pin)
        tau = chain.inverse_dynamics(theta, rates, acc)
        tau_pin = pin.rnea(model, data, q_pin, v_pin, a_pin)[perm]
        errors["rnea"] = max(errors["rnea"], np.abs(tau - tau_pin).max() / np.abs(tau_pin).max())
        gdd = chain.forward_dynamics(theta, rates, torque)
        gdd_pin = pin.aba(model, data, q_pin, v_pin, t_pin)[perm]
        errors["aba"] = max(errors["aba"], np.abs(gdd - gdd_pin).max() / np.abs(gdd_pin).max())
        # γ = θ: the last link turns as Pinocchio turns it
        pin.forwardKinematics(model, data, q_pin)
        turned = data.oMi[last].rotation @ reference.T
        errors["configuration"] = max(errors["configuration"],
                                      np.abs(chain.kinematics(theta, rates)[-1]["R"] - turned).max())
    assert all(e < 1e-12 for e in errors.values()), errors


# -- what from_system refuses ---------------------------------------------------------------
def _arm(second="revolute", friction=False, tree=False, loop=False):
    """Shoulder (z) and elbow (y) of two 1 m links; variants a chain cannot be."""
    upper = RigidBody("upper", 1.0, (0.01, 0.1, 0.1), position=(0.5, 0, 0))
    lower = RigidBody("lower", 1.0, (0.01, 0.1, 0.1), position=(1.5, 0, 0))
    system = MultibodySystem("arm", gravity=(0, 0, -G))
    system.add_bodies(upper, lower)
    elbow = (Spherical("elbow", upper, lower, location=(1, 0, 0)) if second == "spherical"
             else Revolute("elbow", None if tree else upper, lower, location=(1, 0, 0), axis=(0, 1, 0)))
    system.add_joints(Revolute("shoulder", None, upper, location=(0, 0, 0), axis=(0, 0, 1)), elbow)
    if loop:
        system.add_joints(Revolute("brace", None, lower, location=(2, 0, 0), axis=(0, 1, 0)))
    if friction:
        system.add_friction("elbow", 0.3)
    return system


@pytest.mark.parametrize("options, match", [
    (dict(second="spherical"), "joint 'elbow' is spherical; only revolute and prismatic"),
    (dict(friction=True), r"joint friction on \['elbow.angle'\]"),
    (dict(tree=True), "body 'ground' carries two joints"),
    (dict(loop=True), r"closed loops \(joints \['brace'\]\)"),
])
def test_from_system_refuses_what_a_chain_cannot_be(options, match):
    with pytest.raises(ConfigurationError, match=match):
        Chain.from_system(_arm(**options))


def test_from_system_refuses_free_bodies():
    system = _arm()
    system.add_bodies(RigidBody("drone", 1.0, (0.1, 0.1, 0.1), position=(0, 0, 3)))
    with pytest.raises(ConfigurationError, match=r"free bodies \['drone'\]"):
        Chain.from_system(system)


def test_from_system_of_a_hand_built_arm_matches_its_urdf_twin():
    """The same two-link arm built by hand and from a URDF gives the same torques."""
    hand = Chain.from_system(_arm())
    urdf = Chain.from_system(MultibodySystem.from_urdf("""<robot name="arm"><link name="base"/>
      <link name="upper"><inertial><origin xyz="0.5 0 0"/><mass value="1"/>
        <inertia ixx="0.01" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <link name="lower"><inertial><origin xyz="0.5 0 0"/><mass value="1"/>
        <inertia ixx="0.01" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="shoulder" type="continuous"><parent link="base"/><child link="upper"/><axis xyz="0 0 1"/></joint>
      <joint name="elbow" type="continuous"><parent link="upper"/><child link="lower"/>
        <origin xyz="1 0 0"/><axis xyz="0 1 0"/></joint></robot>"""))
    assert hand.velocities == urdf.velocities == ["shoulder.angle", "elbow.angle"]
    state = (np.array([0.4, -0.9]), np.array([1.5, -0.5]), np.array([2.0, 3.0]))
    tau = hand.inverse_dynamics(*state)
    assert np.abs(tau - urdf.inverse_dynamics(*state)).max() < 1e-12 * np.abs(tau).max()
