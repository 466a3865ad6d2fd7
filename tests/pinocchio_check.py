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
