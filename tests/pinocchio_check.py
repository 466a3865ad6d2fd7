"""The library's dynamics of a URDF robot against Pinocchio's model of the same file, written once.

At seeded random joint states θ, rates ν and accelerations ν̇, with q(θ) = F(θ, q0) the absolute
reparametrisation and P = P(q):

- the reduced mass matrix ``Pᵀ M P`` against ``pinocchio.crba``;
- the generalised gravity ``Pᵀ ∇V`` against ``computeGeneralizedGravity``;
- the kinetic energy ``½ (Pν)ᵀ M (Pν)`` against ``computeKineticEnergy``;
- on serial chains (``rnea=True``), the library's recursive Newton–Euler torques
  (:meth:`Chain.inverse_dynamics <pyomo_mbdyn.simulate.recursive.Chain.inverse_dynamics>` of
  :meth:`Chain.from_system`) against ``pinocchio.rnea``,

each as the largest difference over the states relative to the largest entry of Pinocchio's value.
Coordinates are matched by joint name; a continuous joint's angle enters Pinocchio as (cos θ, sin θ).
Joints the library locks (``from_urdf(lock=…)``) are locked in Pinocchio by ``buildReducedModel`` at
the same values.

Floating bases (``from_urdf(floating_base=True)``) against a ``JointModelFreeFlyer`` root:
:class:`FreeFlyerMap` (the exact map of the states) and :func:`free_flyer_errors` (placements,
mass matrix, kinetic energy, momenta, forward dynamics).
"""

import xml.etree.ElementTree as ET

import numpy as np

import pinocchio as pin  # the test extra installs `pin`

from pyomo_mbdyn.simulate.recursive import Chain


def pin_model(source, lock=None):
    """Pinocchio's fixed-base model of a URDF file or text, with the joints of ``lock``
    (``{joint: value}``) held at their values (``buildReducedModel``)."""
    model = (pin.buildModelFromXML(source) if isinstance(source, str) and source.lstrip().startswith("<")
             else pin.buildModelFromUrdf(str(source)))
    if not lock:
        return model
    if any(model.existFrame(name, pin.FrameType.BODY) for name in lock):
        # buildReducedModel looks the joints up by frame name and refuses a link of the same name
        # (the SO-100's link and joint 'gripper'): rename such links in Pinocchio's copy
        model = pin.buildModelFromXML(_links_renamed(source, set(lock)))
    reference = pin.neutral(model)
    ids = []
    for name, value in lock.items():
        jid = model.getJointId(name)
        assert jid < model.njoints, f"Pinocchio's model has no joint {name!r}"
        joint = model.joints[jid]
        if joint.nq == 2:  # continuous: (cos, sin)
            reference[joint.idx_q:joint.idx_q + 2] = np.cos(value), np.sin(value)
        else:
            reference[joint.idx_q] = value
        ids.append(jid)
    return pin.buildReducedModel(model, ids, reference)


def _links_renamed(source, names):
    """The URDF text with each link named in ``names`` renamed ``<name>__link`` (dynamics unchanged)."""
    root = ET.fromstring(source) if isinstance(source, str) and source.lstrip().startswith("<") \
        else ET.parse(source).getroot()
    for el in root.iter():
        for attribute in ("name", "link"):
            if el.tag in ("link", "parent", "child") and el.get(attribute) in names:
                el.set(attribute, el.get(attribute) + "__link")
    return ET.tostring(root, encoding="unicode")


def state_ranges(system, within_limits):
    """Lower and upper bounds of the sampled joint coordinates: the URDF's position limits
    (continuous joints and joints without limits: (−π, π)) if ``within_limits``, else (−π, π)."""
    low, high = np.full(system.dof, -np.pi), np.full(system.dof, np.pi)
    if within_limits:
        for i, name in enumerate(system.velocities):
            lim = system.urdf_limits[name.rsplit(".", 1)[0]]
            if lim.lower is not None and lim.upper is not None:
                low[i], high[i] = lim.lower, lim.upper
    return low, high


def pinocchio_errors(system, model, states=20, seed=0, within_limits=False, rnea=False):
    """Max relative errors of ``system`` against Pinocchio's ``model`` (module text):
    ``{"mass_matrix", "gravity", "kinetic_energy"[, "rnea"]: float}``."""
    data = model.createData()
    assert model.nv == system.dof, (model.nv, system.dof)
    # ν order → Pinocchio v index, by joint name
    perm = [model.joints[model.getJointId(name.rsplit(".", 1)[0])].idx_v for name in system.velocities]
    assert sorted(perm) == list(range(model.nv))
    chain = Chain.from_system(system) if rnea else None
    rng = np.random.default_rng(seed)
    low, high = state_ranges(system, within_limits)
    M_full, grad = system.mass_matrix(), system.potential_gradient()
    errors = {"mass_matrix": 0.0, "gravity": 0.0, "kinetic_energy": 0.0}
    if rnea:
        errors["rnea"] = 0.0
    for _ in range(states):
        theta = rng.uniform(low, high)
        rates, acc = rng.normal(size=system.dof), rng.normal(size=system.dof)
        q = np.asarray(system.reparametrise(theta, system.q0), dtype=float)
        assert np.abs(np.asarray(system.constraints(q), dtype=float)).max() < 1e-12
        P = np.asarray(system.null_space(q), dtype=float)
        v_pin, nu_pin, a_pin = np.zeros(model.nv), np.zeros(model.nv), np.zeros(model.nv)
        v_pin[perm], nu_pin[perm], a_pin[perm] = theta, rates, acc
        q_pin = pin.integrate(model, pin.neutral(model), v_pin)  # continuous joints: (cos, sin)
        M_pin = pin.crba(model, data, q_pin)
        M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
        M = P.T @ M_full @ P
        errors["mass_matrix"] = max(errors["mass_matrix"],
                                    np.abs(M - M_pin[np.ix_(perm, perm)]).max() / np.abs(M_pin).max())
        g_pin = pin.computeGeneralizedGravity(model, data, q_pin)
        errors["gravity"] = max(errors["gravity"], np.abs(P.T @ grad - g_pin[perm]).max() / np.abs(g_pin).max())
        v = P @ rates
        T_pin = pin.computeKineticEnergy(model, data, q_pin, nu_pin)
        errors["kinetic_energy"] = max(errors["kinetic_energy"], abs(0.5 * v @ M_full @ v - T_pin) / abs(T_pin))
        if rnea:
            tau_pin = pin.rnea(model, data, q_pin, nu_pin, a_pin)[perm]
            tau = chain.inverse_dynamics(theta, rates, acc)
            errors["rnea"] = max(errors["rnea"], np.abs(tau - tau_pin).max() / np.abs(tau_pin).max())
    return errors


# -- floating base: from_urdf(..., floating_base=True) against a JointModelFreeFlyer root --------------


def pin_free_flyer_model(source, gravity=(0.0, 0.0, 0.0)):
    """Pinocchio's model of a URDF file or text with a ``JointModelFreeFlyer`` root joint and the given
    gravity (the library's floating default is zero; Pinocchio's is −9.81 along z)."""
    if isinstance(source, str) and source.lstrip().startswith("<"):
        model = pin.buildModelFromXML(source, pin.JointModelFreeFlyer())
    else:
        model = pin.buildModelFromUrdf(str(source), pin.JointModelFreeFlyer())
    model.gravity.linear = np.asarray(gravity, dtype=float)
    return model


def _hat(x):
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


class FreeFlyerMap:
    """The exact map from the library's floating-base state to Pinocchio's free-flyer state.

    Pinocchio's free-flyer coordinates are those of the root LINK frame: ``q = (o, quaternion xyzw
    of R)``, ``v = (Rᵀ ȯ, Rᵀ ω)`` (local axes).  The library's base is the lumped root body (root
    link and the links fixed to it) at its centre of mass ``c``, ``ν_base = (ċ, ω)`` in world axes.
    With ``r_l = Rᵀ (c − o)``, constant on the rigid body, ``ċ = ȯ + ω × (c − o) = R v_l − R r_l^× ω_l``:
    ``ν = S v_pin`` with ``S = [[R, −R r_l^×], [0, R]]`` on the base and the identity (joints
    matched by name) on the joints, so Pinocchio's mass matrix is ``Sᵀ (Pᵀ M P) S``.  A continuous
    joint's angle enters Pinocchio as (cos θ, sin θ).

    ``R`` and ``o`` come from the library's configuration: a link's orientation is its body's
    rotation ``Dᵀ D0`` (directors as rows, at q and q0) times the link's orientation at joint
    zero (Pinocchio's neutral configuration: the library's reference has the root link at the
    identity), its origin the body point ``body.points[link]``.
    """

    def __init__(self, system, model):
        assert system.floating_base is not None
        assert model.nv == system.dof, (model.nv, system.dof)
        assert model.joints[1].shortname() == "JointModelFreeFlyer"
        self.system, self.model, self.data = system, model, model.createData()
        pin.framesForwardKinematics(model, self.data, pin.neutral(model))
        self.zero = {f.name: self.data.oMf[i].rotation.copy() for i, f in enumerate(model.frames)
                     if f.type == pin.BODY}
        self.root = next(f.name for f in model.frames if f.parentJoint == 1 and f.type == pin.BODY)
        assert system.urdf_links[self.root] == system.floating_base
        self.joints = [(i, model.joints[model.getJointId(name.rsplit(".", 1)[0])])
                       for i, name in enumerate(system.velocities[6:], start=6)]
        assert sorted(j.idx_v for _, j in self.joints) == list(range(6, model.nv))

    def placements(self, q):
        """``{link: (R, origin)}`` of every URDF link at the library's configuration ``q``."""
        system, out = self.system, {}
        for link, body_name in system.urdf_links.items():
            body = system.bodies[body_name]
            qb = np.asarray(system.body_coordinates(q, body_name), float)
            qb0 = np.asarray(system.body_coordinates(system.q0, body_name), float)
            D, D0 = np.asarray(body.directors(qb), float), np.asarray(body.directors(qb0), float)
            out[link] = (D.T @ D0 @ self.zero[link], np.asarray(body.point(qb, body.points[link]), float))
        return out

    def state(self, w, nu):
        """The library's ``(q, ν)`` at absolute increments ``w`` (base displacement, base rotation
        vector, joint coordinates: ``q = F(w, q0)``) and Pinocchio's ``(q_pin, v_pin)`` of the same
        motion, with ``S`` (``ν = S v_pin``)."""
        system, model = self.system, self.model
        w, nu = np.asarray(w, float), np.asarray(nu, float)
        q = np.asarray(system.reparametrise(w, system.q0), dtype=float)
        assert np.abs(np.asarray(system.constraints(q), dtype=float)).max() < 1e-12
        R, o = self.placements(q)[self.root]
        c = np.asarray(system.body_coordinates(q, system.floating_base), float)[0:3]
        v_c, omega = nu[0:3], nu[3:6]
        q_pin, v_pin = pin.neutral(model), np.zeros(model.nv)
        q_pin[0:7] = pin.SE3ToXYZQUAT(pin.SE3(R, o))
        v_pin[0:3] = R.T @ (v_c - np.cross(omega, c - o))
        v_pin[3:6] = R.T @ omega
        S = np.zeros((system.dof, model.nv))
        S[0:3, 0:3], S[0:3, 3:6], S[3:6, 3:6] = R, -R @ _hat(R.T @ (c - o)), R
        for i, joint in self.joints:
            if joint.nq == 2:
                q_pin[joint.idx_q:joint.idx_q + 2] = np.cos(w[i]), np.sin(w[i])
            else:
                q_pin[joint.idx_q] = w[i]
            v_pin[joint.idx_v] = nu[i]
            S[i, joint.idx_v] = 1.0
        assert np.abs(S @ v_pin - nu).max() <= 1e-13 * (1.0 + np.abs(nu).max())
        return q, nu, q_pin, v_pin, S

    def torques(self, u):
        """Pinocchio's τ of the library's controls ``u`` on the actuated joint rates (zero on the base)."""
        tau, index = np.zeros(self.model.nv), dict(self.joints)
        for j, k in enumerate(self.system.actuated_indices):
            assert k >= 6, f"{self.system.actuated[j]}: the base is not actuated"
            tau[index[k].idx_v] = u[j]
        return tau

    def accelerations(self, q, q_pin, v_pin, a_pin):
        """The library's q̈ of Pinocchio's motion ``(q_pin, v_pin, a_pin)``: per body, from the classical
        acceleration ``a_o`` and the angular velocity and acceleration ``ω, α`` of one of its links
        (world axes), ``c̈ = a_o + α × r + ω × (ω × r)`` (``r = c − o``) and
        ``d̈_i = α × d_i + ω × (ω × d_i)``."""
        system, model, data = self.system, self.model, self.data
        pin.forwardKinematics(model, data, q_pin, v_pin, a_pin)
        pin.updateFramePlacements(model, data)
        qdd = np.zeros(system.n)
        links = {b: link for link, b in reversed(list(system.urdf_links.items()))}  # first link of each body
        for name, body in system.bodies.items():
            fid = model.getFrameId(links[name], pin.BODY)
            acc = pin.getFrameClassicalAcceleration(model, data, fid, pin.LOCAL_WORLD_ALIGNED)
            omega = pin.getFrameVelocity(model, data, fid, pin.LOCAL_WORLD_ALIGNED).angular
            a_o, alpha = acc.linear, acc.angular
            qb = np.asarray(system.body_coordinates(q, name), float)
            r = qb[0:3] - data.oMf[fid].translation
            block = [a_o + np.cross(alpha, r) + np.cross(omega, np.cross(omega, r))]
            directors = np.asarray(body.directors(qb), float)
            block += [np.cross(alpha, d) + np.cross(omega, np.cross(omega, d)) for d in directors]
            qdd[system.layout["offsets"][name]] = np.concatenate(block)
        return qdd


def free_flyer_errors(system, model, states=10, seed=0, position=1.0):
    """Max relative errors of the floating-base ``system`` against Pinocchio's free-flyer ``model``
    over seeded random states (base displacement in ±``position``, base rotation vector and joint
    angles in ±π, ν and controls normal): every link ``placement`` (absolute, metres and rotation
    entries), the ``mass_matrix`` ``Sᵀ Pᵀ M P S`` against ``crba``, ``kinetic_energy``,
    ``linear_momentum``, ``angular_momentum`` about the world origin (Pinocchio's centroidal
    momentum shifted: ``L_O = L_G + c × p``), ``forward_dynamics``: the library's accelerations q̈
    (:func:`library_accelerations`) against Pinocchio's ``aba`` under the same joint torques and
    gravity, mapped to q̈ (:meth:`FreeFlyerMap.accelerations`), and ``base_acceleration``: the base
    body's ``(c̈, α)`` from that q̈ against ``S a + (ω × ċ, 0)`` (``ν̇ = d/dt (S v_pin)``, ``Ṡ v = (ω × ċ,
    0)`` since ``Ṙ = ω^× R``).  Each error is relative to the largest entry of Pinocchio's value."""
    flyer = FreeFlyerMap(system, model)
    data = flyer.data
    rng = np.random.default_rng(seed)
    M_full = np.asarray(system.mass_matrix(), float)
    names = ("placement", "mass_matrix", "kinetic_energy", "linear_momentum", "angular_momentum",
             "forward_dynamics", "base_acceleration")
    errors = dict.fromkeys(names, 0.0)
    base = system.bodies[system.floating_base]

    def worst(key, got, want):
        errors[key] = max(errors[key], float(np.abs(np.asarray(got) - want).max() / np.abs(want).max()))

    for _ in range(states):
        w = np.concatenate([rng.uniform(-position, position, 3), rng.uniform(-np.pi, np.pi, system.dof - 3)])
        q, nu, q_pin, v_pin, S = flyer.state(w, rng.normal(size=system.dof))
        pin.framesForwardKinematics(flyer.model, data, q_pin)
        for link, (R, o) in flyer.placements(q).items():
            placed = data.oMf[flyer.model.getFrameId(link, pin.BODY)]
            errors["placement"] = max(errors["placement"], np.abs(placed.rotation - R).max(),
                                      np.abs(placed.translation - o).max())
        P = np.asarray(system.null_space(q), float)
        v = P @ nu
        M_pin = pin.crba(flyer.model, data, q_pin)
        M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
        worst("mass_matrix", S.T @ (P.T @ M_full @ P) @ S, M_pin)
        T_pin = pin.computeKineticEnergy(flyer.model, data, q_pin, v_pin)
        worst("kinetic_energy", float(system.kinetic_energy(v)), T_pin)
        h = pin.computeCentroidalMomentum(flyer.model, data, q_pin, v_pin)
        c = data.com[0]
        worst("linear_momentum", np.asarray(system.linear_momentum(v), float), h.linear)
        worst("angular_momentum", np.asarray(system.angular_momentum(q, v), float), h.angular + np.cross(c, h.linear))
        u = rng.normal(size=len(system.actuated))
        a_pin = pin.aba(flyer.model, data, q_pin, v_pin, flyer.torques(u))
        qdd = library_accelerations(system, q, v, u)
        worst("forward_dynamics", qdd, flyer.accelerations(q, q_pin, v_pin, a_pin))
        q_b, qdd_b = (system.body_coordinates(x, base.name) for x in (q, qdd))
        omega, c_dot = nu[3:6], nu[0:3]
        worst("base_acceleration", np.asarray(base.twist(q_b, qdd_b), float),
              S[0:6, 0:6] @ a_pin[0:6] + np.concatenate([np.cross(omega, c_dot), np.zeros(3)]))
    return errors


def library_accelerations(system, q, v, u):
    """q̈ of the library's equations of motion (:mod:`pyomo_mbdyn.mechanics.system`:
    ``M q̈ + ∇V + Gᵀγ − Bᵀu = 0``, no friction) with the constraints differentiated twice,
    ``G q̈ + Ġ q̇ = 0`` (``Ġ = G(q̇) − G(0)``: G is affine in q), solved as one linear system
    (a tree: G has full row rank).  Not :class:`~pyomo_mbdyn.simulate.udwadia_kalaba.UdwadiaKalabaSystem`:
    its pseudo-inverse of ``G M⁻¹ Gᵀ`` (condition ~1e7 on the floating Panda) leaves
    ``G q̈ + Ġ q̇`` at ~1e-6 and q̈ at ~1e-8 relative, short of round-off."""
    M = np.asarray(system.mass_matrix(), float)
    G = np.asarray(system.constraint_jacobian(q), float)
    G_dot = (np.asarray(system.constraint_jacobian(v), float)
             - np.asarray(system.constraint_jacobian(np.zeros(system.n)), float))
    full = np.zeros(system.n_velocities)
    full[system.actuated_indices] = u
    Q = -np.asarray(system.potential_gradient(), float) + np.asarray(system.control_matrix(q), float).T @ full
    K = np.block([[M, G.T], [G, np.zeros((len(G), len(G)))]])
    return np.linalg.solve(K, np.concatenate([Q, -G_dot @ v]))[:system.n]
