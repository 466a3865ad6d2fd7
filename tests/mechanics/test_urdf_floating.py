"""Floating and planar URDF joints against Pinocchio (issue 30).

Pinocchio's free-flyer and planar joints use their own coordinates (a quaternion, cos/sin;
velocities in the joint's local frame), so the comparison goes through the physical state,
not through coordinates: at seeded random states of the library's system, every link frame's
placement (position of its origin, orientation) is computed from the directors; Pinocchio's
configuration is set from them, its forward kinematics must give back every link placement,
its velocity is the one that reproduces every link's (origin velocity, angular velocity) —
found by least squares on the stacked frame Jacobians, with a residual at round-off, which
says the library's motion is a motion of Pinocchio's model — and then the kinetic and
potential energies and the generalised gravity must agree.
"""

import numpy as np
import pinocchio as pin
import pytest

from pyomo_mbdyn.mechanics import MultibodySystem

INERTIAL = ('<inertial><origin xyz="0.1 0.05 -0.02" rpy="0.3 0.2 0.1"/><mass value="{m}"/>'
            '<inertia ixx="0.01" iyy="0.02" izz="0.025" ixy="0.001" ixz="0" iyz="0.002"/></inertial>')

FLOATING = f"""<robot name="drone-arm"><link name="world"/>
  <link name="drone">{INERTIAL.format(m=1.5)}</link><link name="arm">{INERTIAL.format(m=0.4)}</link>
  <link name="camera">{INERTIAL.format(m=0.1)}</link>
  <joint name="free" type="floating"><parent link="world"/><child link="drone"/>
    <origin xyz="1 2 3" rpy="0.1 0.2 0.3"/></joint>
  <joint name="hinge" type="revolute"><parent link="drone"/><child link="arm"/>
    <origin xyz="0.3 0 0.1" rpy="0 0.4 0"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="5" velocity="2"/></joint>
  <joint name="mount" type="fixed"><parent link="arm"/><child link="camera"/><origin xyz="0.2 0.1 0" rpy="0.5 0 0"/></joint>
</robot>"""

PLANAR = f"""<robot name="puck-arm"><link name="world"/>
  <link name="puck">{INERTIAL.format(m=2.0)}</link><link name="pointer">{INERTIAL.format(m=0.3)}</link>
  <joint name="table" type="planar"><parent link="world"/><child link="puck"/>
    <origin xyz="0.5 -0.2 0.1"/><axis xyz="0 0 1"/></joint>
  <joint name="spin" type="revolute"><parent link="puck"/><child link="pointer"/>
    <origin xyz="0.2 0 0.05" rpy="0.3 0 0"/><axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>"""


def link_frames(system, q, v):
    """{link: (R, origin, origin velocity, ω)} of every URDF link carried by a body, at (q, v)."""
    out = {}
    for link, body_name in system.urdf_links.items():
        if body_name == "ground":
            continue
        body = system.bodies[body_name]
        qb, vb = system.body_coordinates(q, body_name), system.body_coordinates(v, body_name)
        qb0 = system.body_coordinates(system.q0, body_name)
        D, D0 = (np.column_stack(body.directors(x)).astype(float) for x in (qb, qb0))
        R = D @ D0.T @ LINK_ZERO[system.name][link]
        comps = body.point_components(link)
        origin = np.asarray(body.point(qb, comps), float)
        origin_rate = np.asarray(body.point(vb, comps), float)   # a point is linear in the coordinates
        d, d_rate = np.asarray(body.directors(qb), float), np.asarray(body.directors(vb), float)
        omega = 0.5 * sum(np.cross(d[i], d_rate[i]) for i in range(3))
        out[link] = (R, origin, origin_rate, omega)
    return out


#: each link frame's orientation at joint zero (the URDF origins composed), filled by the tests
LINK_ZERO = {}


def zero_orientations(model):
    data = model.createData()
    pin.framesForwardKinematics(model, data, pin.neutral(model))
    return {f.name: data.oMf[i].rotation.copy() for i, f in enumerate(model.frames) if f.type == pin.BODY}


def pinocchio_configuration(model, frames):
    """Pinocchio's q from the library's link placements (free-flyer: position + quaternion of the
    child link; planar: x, y, cos θ, sin θ of the child link in the joint's frame; revolute: the
    angle of the child link relative to its parent, about the joint axis)."""
    q = pin.neutral(model)
    data = model.createData()
    for jid in range(1, model.njoints):
        joint = model.joints[jid]
        child = next(f.name for f in model.frames if f.parentJoint == jid and f.type == pin.BODY)
        R, origin = frames[child][:2]
        pin.forwardKinematics(model, data, q)   # the parents' joints are set already (ids in tree order)
        placement_parent = data.oMi[model.parents[jid]] * model.jointPlacements[jid]   # the joint frame
        local_R = placement_parent.rotation.T @ R
        local_p = placement_parent.rotation.T @ (origin - placement_parent.translation)
        kind = joint.shortname()
        if kind == "JointModelFreeFlyer":
            q[joint.idx_q:joint.idx_q + 7] = pin.SE3ToXYZQUAT(pin.SE3(local_R, local_p))
        elif kind == "JointModelPlanar":
            theta = np.arctan2(local_R[1, 0], local_R[0, 0])
            q[joint.idx_q:joint.idx_q + 4] = [local_p[0], local_p[1], np.cos(theta), np.sin(theta)]
        else:  # revolute about its axis (unaligned: JointModelRevoluteUnaligned, or RX/RY/RZ)
            axis = np.asarray(getattr(joint, "axis", None) if hasattr(joint, "axis") else
                              {"X": [1, 0, 0], "Y": [0, 1, 0], "Z": [0, 0, 1]}[kind[-1]], float)
            log = pin.log3(local_R)
            q[joint.idx_q] = float(log @ axis)
    return q


@pytest.mark.parametrize("text", [FLOATING, PLANAR], ids=["floating", "planar"])
def test_floating_and_planar_joints_match_pinocchio(text):
    system = MultibodySystem.from_urdf(text, gravity=(0.0, 0.0, -9.81))
    model = pin.buildModelFromXML(text)   # floating → JointModelFreeFlyer, planar → JointModelPlanar
    model.gravity.linear = np.array([0.0, 0.0, -9.81])
    data = model.createData()
    assert model.nv == system.dof
    LINK_ZERO[system.name] = zero_orientations(model)
    rng = np.random.default_rng(3)
    M_full = np.asarray(system.mass_matrix(), float)
    worst = {"placement": 0.0, "velocity": 0.0, "T": 0.0, "V": 0.0}
    V_offset = None
    for _ in range(20):
        theta = rng.uniform(-1.0, 1.0, system.dof)
        q = np.asarray(system.reparametrise(theta, system.q0), float)
        v = np.asarray(system.null_space(q), float) @ rng.normal(size=system.dof)
        frames = link_frames(system, q, v)
        q_pin = pinocchio_configuration(model, frames)
        pin.framesForwardKinematics(model, data, q_pin)
        pin.computeJointJacobians(model, data, q_pin)
        rows, target = [], []
        for i, f in enumerate(model.frames):
            if f.type != pin.BODY or f.name not in frames:
                continue
            R, origin, origin_rate, omega = frames[f.name]
            worst["placement"] = max(worst["placement"], np.abs(data.oMf[i].translation - origin).max(),
                                     np.abs(data.oMf[i].rotation - R).max())
            rows.append(pin.getFrameJacobian(model, data, i, pin.LOCAL_WORLD_ALIGNED))
            target.append(np.concatenate([origin_rate, omega]))
        A, b = np.vstack(rows), np.concatenate(target)
        v_pin = np.linalg.lstsq(A, b, rcond=None)[0]
        worst["velocity"] = max(worst["velocity"], np.abs(A @ v_pin - b).max() / np.abs(b).max())
        T, T_pin = 0.5 * v @ M_full @ v, pin.computeKineticEnergy(model, data, q_pin, v_pin)
        worst["T"] = max(worst["T"], abs(T - T_pin) / T_pin)
        V, V_pin = float(system.potential_energy(q)), pin.computePotentialEnergy(model, data, q_pin)
        V_offset = V - V_pin if V_offset is None else V_offset   # potentials agree up to a constant
        worst["V"] = max(worst["V"], abs(V - V_pin - V_offset) / (1.0 + abs(V_pin)))
    assert worst["placement"] < 1e-12, worst
    assert worst["velocity"] < 1e-12, worst
    assert worst["T"] < 1e-12, worst
    assert worst["V"] < 1e-12, worst
