"""Balances of a solved trajectory: each momentum map against the impulses that change it,
and what a scheme's discrete energy balance states.

A momentum J (a rotation about, or a translation along, a coordinate axis
through the origin that the joints to the ground allow) changes only by the
impulse of the loads about it; :func:`momentum_balance` forms ``J_k − J_0 −
I_k`` with the impulse I evaluated where the scheme applies its loads (the
energy-momentum and midpoint schemes at the interval midpoint, the variational
schemes half at each node: DMOCC (3.10), RATTLE), so that the balance is flat
to solver tolerance wherever the scheme is momentum-consistent.
:func:`energy_statement` says, from the scheme's registry record, whether
T + V + W + D is constant, oscillates bounded, or has an O(h²) error.  The
plots (:func:`pyomo_mbdyn.plotting.plot_conservation`) draw both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from .trajectory import Trajectory

import numpy as np

from .discretization.capabilities import MIDPOINTS, NODES
from .errors import ConfigurationError

__all__ = ["momentum_balance", "energy_statement", "GENERATORS"]


def _generator(system, q, kind, axis):
    """ξ(q): the velocity of every coordinate under a unit rotation about (kind
    "rotation") or a unit translation along (kind "translation") the coordinate
    axis ``axis`` through the origin.  Linear in q."""
    e = np.eye(3)[axis]
    parts = []
    for name in system.bodies:
        rows = np.asarray(system.body_coordinates(q, name), float).reshape(-1, 3)  # φ, d1, d2, d3
        if kind == "rotation":
            parts.append(np.cross(e, rows).ravel())
        else:
            moved = np.zeros_like(rows)
            moved[0] = e
            parts.append(moved.ravel())
    return np.concatenate(parts)


#: (momentum column, motion, axis) of the momentum maps the conservation table lists
GENERATORS = (("Lx", "rotation", 0), ("Ly", "rotation", 1), ("Lz", "rotation", 2),
              ("px", "translation", 0), ("py", "translation", 1), ("pz", "translation", 2))


def _scheme_record(scheme):
    """The registry's record of ``scheme`` (a name, alias or variant), None for None."""
    if scheme is None:
        return None
    from .discretization.registry import record

    return record(scheme)


def _load_stages(trajectory, rec, q):
    """``[(weight, configurations (N, n), controls (N, n_u))]``: where and with which controls
    the scheme applies its loads on each interval (the record's ``loads``): at the midpoint
    (weight 1), at the two nodes (½ each), or at the record's ``stages`` with their weights
    (configurations on the quadratic through q_k, the trajectory's ``q_mid`` and q_{k+1};
    the stage controls from its extras, or its interval controls where it has none: a
    simulation applies them at every stage)."""
    u = np.asarray(trajectory.u, float)
    # without a record (a trajectory of unknown origin) at the midpoints; a record without
    # multibody loads (loads None) half at each node
    loads = MIDPOINTS if rec is None else (rec.loads or NODES)
    return loads.stages(q, u, rec.stages if rec is not None else (), trajectory.extras)


def momentum_balance(trajectory: Trajectory, table: pd.DataFrame | None = None, *, scheme: str | None = None) -> pd.DataFrame:
    """The balance of each momentum map the joints to the ground allow.

    For every rotation about a coordinate axis through the origin and every
    translation along one (``ξ(q)`` its velocity field on the coordinates),
    kept when the constraints do not resist it at any node
    (``|G(q_k) ξ(q_k)| ≤ 10⁻⁸ |G| |ξ|``): the momentum J (``Lx`` … ``pz`` of
    the conservation ``table``, default ``trajectory.diagnostics()``), the
    cumulative impulse of the applied loads about it,

        I_k = Σ_{i<k} −h [∇V·ξ(q_{i+½}) + (u_i + K ν_i)·η_i],   η_i = B ξ,

    with ``B ξ`` at the interval's midpoint or averaged over its nodes, as the
    scheme applies its loads (a Runge–Kutta scheme with stage controls, Lobatto
    IIIA–IIIB: ``Σ_s b_s [∇V·ξ(Q_s) + u_s·B(Q_s)ξ(Q_s)]`` over its stages), and the
    balance ``J_k − J_0 − I_k``.  A scheme
    in coordinates of its own (the quaternion top) applies its loads there:
    only the momenta nothing acts on are kept.

    Parameters
    ----------
    trajectory : Trajectory
        Of a :class:`~pyomo_mbdyn.mechanics.MultibodySystem` (``trajectory.system``).
    table : DataFrame, optional
        Its conservation table (:func:`pyomo_mbdyn.diagnostics.trajectory_table`).
    scheme : str, optional
        Default ``trajectory.scheme`` (the metadata); without one, loads at midpoints.

    Returns
    -------
    DataFrame indexed by node k with columns ``t`` and, per momentum kept,
    ``<J>``, ``<J>_impulse``, ``<J>_balance``.  ``attrs["momenta"]`` describes
    each (``motion``, ``axis``, ``gravity``: gravity has a moment/component
    about it, ``actuators``: the controls that act on it, ``friction``,
    ``conserved``: nothing acts on it); ``attrs["impulse_error"]`` is a reason
    string when the control impulse cannot be computed (closed loops), and then
    the momenta with controls acting are left out.

    Examples
    --------
    A link hinged at the origin about e₃, without gravity, driven by a torque of 0.5 N m:
    its angular momentum about z changes exactly by the torque's impulse, so
    the balance is zero to round-off.

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody
    >>> from pyomo_mbdyn.simulate import simulate
    >>> link = RigidBody("link", 1.0, (0.1, 0.1, 0.02), position=(0.5, 0, 0))
    >>> arm = MultibodySystem("arm")
    >>> arm.add_bodies(link)
    >>> arm.add_joints(Revolute("hinge", None, link, location=(0, 0, 0), axis=(0, 0, 1)))
    >>> arm.actuate("hinge")
    >>> motion = simulate(arm, arm.q0, np.zeros(12), 0.1, 10, np.full((10, 1), 0.5), scheme="bem")
    >>> table = momentum_balance(motion)
    >>> sorted(table.attrs["momenta"]), table.attrs["momenta"]["Lz"]["actuators"]
    (['Lz'], ['hinge.angle'])
    >>> bool(np.abs(table["Lz_balance"]).max() < 1e-12), round(float(table["Lz"].iloc[-1]), 12)
    (True, 0.5)
    """
    import pandas as pd

    from .mechanics import MultibodySystem

    system = getattr(trajectory, "system", None)
    if not isinstance(system, MultibodySystem):
        raise ConfigurationError("momentum_balance needs a trajectory of a MultibodySystem "
                                 f"(trajectory.system), got {type(system).__name__}")
    table = trajectory.diagnostics() if table is None else table
    rec = _scheme_record(scheme if scheme is not None else trajectory.metadata.get("scheme"))
    q, h = np.asarray(trajectory.q, float), float(trajectory.h)  # type: ignore[arg-type]  # None: one node, no balance
    N = q.shape[0] - 1
    friction_loads = system.friction * np.asarray(trajectory.nu, float)  # K ν per interval
    grad = np.asarray(system.potential_gradient(), float)
    stages = _load_stages(trajectory, rec, q)
    loads = []  # K ν - u per stage and interval, on the generalised velocities (u applied)
    for _, _, controls in stages:
        stage = np.zeros((N, system.n_velocities))
        stage[:, system.actuated_indices] = -np.asarray(controls, float).reshape(N, -1)
        loads.append(stage + friction_loads)
    B, impulse_error = None, None
    if any(np.any(stage != 0) for stage in loads):
        try:
            B = [np.array([np.asarray(system.control_matrix(qk), float) for qk in at]) for _, at, _ in stages]
        except ConfigurationError as err:
            impulse_error = f"the control impulse needs B(q); {err}".replace(f"{system}: ", "")
    # a scheme in its own coordinates (the quaternion top) applies its loads there, not as below
    foreign = rec is not None and not rec.system.multibody
    jacobians = [np.asarray(system.constraint_jacobian(qk), float) for qk in q]
    data, described = {"t": (table["t"] if "t" in table.columns else table.index).to_numpy(float)}, {}
    for column, motion, axis in GENERATORS:
        if column not in table.columns or not table[column].notna().all():
            continue
        xi = np.array([_generator(system, qk, motion, axis) for qk in q])
        resisted = max(np.abs(G @ x).max(initial=0.0) / max(np.abs(G).max(initial=0.0) * np.abs(x).max(), 1e-300)
                       for G, x in zip(jacobians, xi))
        if resisted > 1e-8:
            continue
        xi_at = [np.array([_generator(system, qk, motion, axis) for qk in at]) for _, at, _ in stages]
        gravity = -h * sum(weight * (x @ grad) for (weight, _, _), x in zip(stages, xi_at))
        e = np.eye(3)[axis]
        g = np.asarray(system.gravity, float)
        has_gravity = bool(np.linalg.norm(np.cross(g, e) if motion == "rotation" else g @ e) > 0)
        actuators, friction, control = [], False, np.zeros(N)
        if B is not None:
            etas = [np.einsum("kij,kj->ki", Bs, x) for Bs, x in zip(B, xi_at)]
            acting = np.max([np.abs(eta).max(axis=0) for eta in etas], axis=0) > 1e-9 * max(np.abs(xi).max(), 1.0)
            control = -h * sum(weight * np.einsum("ki,ki->k", stage, eta)
                               for (weight, _, _), stage, eta in zip(stages, loads, etas))
            actuators = [name for name, j in zip(system.actuated, system.actuated_indices) if acting[j]]
            friction = bool(np.any(acting & (system.friction > 0)))
        elif impulse_error is not None:
            continue  # a balance that cannot be formed honestly is not drawn
        if foreign and (has_gravity or actuators or friction):
            continue  # loads applied in the scheme's own coordinates: only the conserved momenta
        J = table[column].to_numpy(float)
        impulse = np.concatenate([[0.0], np.cumsum(gravity + control)])
        data[column], data[f"{column}_impulse"], data[f"{column}_balance"] = J, impulse, J - J[0] - impulse
        described[column] = {"motion": motion, "axis": "xyz"[axis], "gravity": has_gravity, "actuators": actuators,
                             "friction": friction, "conserved": not (has_gravity or actuators or friction)}
    out = pd.DataFrame(data, index=table.index)
    out.attrs["momenta"] = described
    out.attrs["impulse_error"] = impulse_error
    return out


def energy_statement(scheme: str | None) -> str | None:
    """What the scheme's discrete energy balance is, in one line (None when unknown).

    Read from the scheme's registry record (``scheme`` a registered name, or a
    DNCO variant ``dnco-<gradient>`` / ``direct-<gradient>``): an
    energy-consistent scheme keeps T + V + W + D constant (BEM, REM); so do the
    quaternion energy-momentum scheme (thesis ch. 5, system ``"top"``) and the
    DNCO state equations with a discrete gradient (Gonzalez, Greenspan; thesis
    §2.11), while the midpoint state equations do not; a momentum-consistent
    scheme without energy consistency is variational (DMOCC, DMOCC-LM,
    RATTLE): its energy error oscillates, bounded, without drift; a scheme that
    is neither (GC) has an O(h²) energy error.  "Constant" is to solver
    tolerance: the discrete identity holds exactly, the numbers as well as
    the equations are solved.

    Examples
    --------
    >>> energy_statement("bem")
    'BEM, energy-momentum scheme: T + V + W + D constant to solver tolerance'
    >>> energy_statement("dmocc")
    'DMOCC, variational scheme: energy oscillates, bounded, no drift (O(h²))'
    """
    if scheme is None:
        return None
    from .discretization.registry import resolve

    rec, options = resolve(scheme)
    name = (scheme if options else rec.name).upper().replace("_", "-")
    if options.get("gradient") == "midpoint":
        return f"{name}, midpoint state equations: T + V + W not conserved (O(h²); exact for quadratic H)"
    if rec.system.hamiltonian:
        return f"{name}, discrete-gradient scheme: T + V + W constant to solver tolerance"
    if rec.energy_consistent or rec.system.energy_conserving:
        return f"{name}, energy-momentum scheme: T + V + W + D constant to solver tolerance"
    order = {2: "²", 4: "⁴"}.get(rec.order, f"^{rec.order}")
    if rec.momentum_consistent:
        return f"{name}, variational scheme: energy oscillates, bounded, no drift (O(h{order}))"
    return f"{name}: neither energy- nor momentum-consistent, O(h{order}) energy error"
