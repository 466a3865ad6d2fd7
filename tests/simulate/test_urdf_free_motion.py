"""Issue 30 acceptance: free motion of the UR5 read from URDF, BEM against Pinocchio.

One second of free motion (no control, gravity) of ``MultibodySystem.from_urdf(robots.path("ur5"))``
by the library's BEM stepper at h = 1/100, 1/200, 1/400, against Pinocchio's ABA integrated by
``scipy.integrate.solve_ivp`` (DOP853, rtol 1e-12).  The joint angles at t = 1 s are recovered
from the director configuration (relative rotation of each link to its parent, about the joint
axis); the errors fall as h² (fitted order in [1.8, 2.2]) and T + V stays constant to round-off.
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from pyomo_mbdyn import robots
from pyomo_mbdyn.mechanics import MultibodySystem
from pyomo_mbdyn.simulate import simulate

import pinocchio as pin  # the test extra installs `pin`

THETA0 = np.array([0.3, -1.2, 1.0, -0.5, 0.8, 0.2])  # rad, in the order of system.velocities
RATES0 = np.array([0.5, -0.3, 0.4, 1.0, -0.6, 0.8])  # rad/s
STEPS = (100, 200, 400)  # over 1 s


def joint_angles(system, q):
    """θ of each revolute joint (``system.velocities`` order) from a configuration: the rotation
    of the child relative to the parent since ``q0``, ``R_rel = Rot(a, θ)``, read as
    ``θ = atan2(a · axial(R_rel), (tr R_rel - 1) / 2)``; the inverse of ``reparametrise(θ, q0)``."""
    turned = {"ground": np.eye(3)}
    angles = []
    for name in system.velocities:
        joint = system.joints[name.split(".")[0]]
        child = joint.child
        D, D0 = (np.asarray(x, dtype=float)[3:12].reshape(3, 3) for x in (system.body_coordinates(q, child),
                                                                           child.q0))
        turned[child.name] = D.T @ D0  # rows of D are the directors: d_i = R d_i0
        R = turned[joint.parent.name].T @ turned[child.name]
        axial = 0.5 * np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
        angles.append(np.arctan2(joint.axis @ axial, 0.5 * (np.trace(R) - 1)))
    return np.array(angles)


@pytest.fixture(scope="module")
def ur5():
    system = MultibodySystem.from_urdf(robots.path("ur5"))
    model = pin.buildModelFromUrdf(str(robots.path("ur5")))
    perm = np.array([model.joints[model.getJointId(name.split(".")[0])].idx_v for name in system.velocities])
    assert sorted(perm) == list(range(model.nv)) and model.nq == model.nv  # revolute joints only
    return system, model, perm


def pinocchio_reference(model, perm, T=1.0):
    data = model.createData()

    def rhs(t, y):
        q, v = np.zeros(model.nv), np.zeros(model.nv)
        q[perm], v[perm] = y[:model.nv], y[model.nv:]
        return np.concatenate([y[model.nv:], pin.aba(model, data, q, v, np.zeros(model.nv))[perm]])

    sol = solve_ivp(rhs, (0.0, T), np.concatenate([THETA0, RATES0]), method="DOP853", rtol=1e-12, atol=1e-12)
    assert sol.success
    return sol.y[:model.nv, -1]


def test_joint_angles_invert_the_reparametrisation(ur5):
    system, _, _ = ur5
    rng = np.random.default_rng(1)
    for _ in range(5):
        theta = rng.uniform(-np.pi, np.pi, system.dof)
        q = np.asarray(system.reparametrise(theta, system.q0), dtype=float)
        assert np.abs(joint_angles(system, q) - theta).max() < 1e-13


def test_ur5_free_motion_bem_converges_to_pinocchio_at_second_order(ur5):
    system, model, perm = ur5
    reference = pinocchio_reference(model, perm)
    q0 = np.asarray(system.reparametrise(THETA0, system.q0), dtype=float)
    v0 = np.asarray(system.null_space(q0), dtype=float) @ RATES0
    M = system.mass_matrix()
    errors, drifts = [], []
    for N in STEPS:
        tr = simulate(system, q0, v0, 1.0 / N, N, scheme="bem")  # controls None: free motion
        assert tr.t[-1] == pytest.approx(1.0)
        miss = joint_angles(system, tr.q[-1]) - reference
        errors.append(np.abs(np.arctan2(np.sin(miss), np.cos(miss))).max())  # angles modulo 2π
        kinetic = np.array([0.5 * v @ M @ v for v in tr.v])
        energy = kinetic + np.array([system.potential_energy(q) for q in tr.q])
        drifts.append(np.ptp(energy) / (kinetic.max() + np.abs(energy).max()))
    order = np.polyfit(np.log(1.0 / np.array(STEPS)), np.log(errors), 1)[0]
    assert 1.8 <= order <= 2.2, (order, errors)
    assert errors[-1] < 1e-3, errors  # h = 2.5 ms: below a milliradian after 1 s
    assert max(drifts) < 1e-10, drifts
