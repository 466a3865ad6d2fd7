"""Conservation diagnostics of discrete trajectories: per-node columns as NumPy arrays
(:func:`conservation_columns`, each formula written once there) and as pandas DataFrames
(:func:`conservation_table`, the same columns as a table).

For the energy-momentum schemes (thesis §2.3) the discrete energy balance

    T_k + V_k + W_k + D_k = const,
    W_k = -h Σ_{i<k} u_{i,i+1} · ν_{i,i+1},   D_k = h Σ_{i<k} (K ν_{i,i+1}) · ν_{i,i+1},

holds to solver tolerance, with ``ν = B(q♯) v_{k+½}`` and ``u`` the applied
generalised force, ``M v̇ + ∇V + Gᵀγ + Bᵀ(Kν - u) = 0`` (so ``W`` is the work done *by
the system* on the actuators: negative while the motors drive it).  The table also lists the total linear and
angular momentum (about the origin), the constraint residual max abs Φ(q_k) and the
velocity-level residual max abs G(q_k) v_k per node.  The latter vanishes (to round-off)
for schemes whose node velocities are tangent (gc, rattle, the recovered velocities of
dmocc); the node velocities of the lifted energy-momentum schemes (bem, rem) are not
tangent in general (their kinematics are q_{k+1} - q_k = h v_{k+½}), so there it is
a measure, not an error.

The other schemes state their own ``W`` per interval (the trajectory extra ``work``): the
stage-control schemes (Lobatto IIIA–IIIB, cG(2)) their quadrature, and the schemes without
joint-rate unknowns (DMOCC, DMOCC-LM, RATTLE) the work of their lumped nodal forces along the
step, ``-u_k·½[B(q_k) + B(q_{k+1})](q_{k+1} - q_k)``
(:func:`~pyomo_mbdyn.discretization.common.interval_control_work`), not ``-h u·ν`` with rates
recovered from the null space, which are not the actuated coordinates' rates when the step
leaves range P (the crane's winch).  There the balance is not exact; its error falls at the
scheme's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy.typing as npt
    import pandas as pd

    from .mechanics import MultibodySystem

import numpy as np

# pandas is imported where a table is built, not here: ``pyomo-mbdyn run`` reads the columns
# and loads no pandas (issue 48, cold start; tests/test_cold_start.py)

__all__ = ["conservation_columns", "conservation_table", "trajectory_table", "momentum_errors", "momentum_series",
           "COLUMNS"]

#: the columns of :func:`conservation_columns` and :func:`conservation_table`, in order
COLUMNS = ("t", "T", "V", "W", "D", "E", "Lx", "Ly", "Lz", "px", "py", "pz", "constraint_residual",
           "velocity_constraint_residual")


def conservation_columns(system: MultibodySystem, h: float, q: npt.ArrayLike, v: npt.ArrayLike,
                         nu: npt.ArrayLike, u: npt.ArrayLike, work: npt.ArrayLike | None = None,
                         columns: Sequence[str] | None = None) -> dict[str, np.ndarray]:
    """The per-node columns of :func:`conservation_table` as float arrays of length N + 1.

    The arguments are those of :func:`conservation_table`; ``columns`` selects columns of
    :data:`COLUMNS` (default: all of them), and only what they need is computed — the
    velocity-level residual evaluates G(q_k) at every node, the costliest of them, and
    ``pyomo-mbdyn run`` needs only ``E``, the conserved momenta and ``constraint_residual``.
    The returned dictionary holds the selected columns in the order of :data:`COLUMNS`.

    Examples
    --------
    The pendulum of :func:`conservation_table`'s example, its energy and constraint residual
    alone:

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> from pyomo_mbdyn.simulate import simulate
    >>> tr = simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 3, controls=[[-0.5]] * 3)
    >>> cols = conservation_columns(pendulum, 0.1, tr.q, tr.v, tr.nu, tr.u, columns=["E", "constraint_residual"])
    >>> list(cols), cols["E"].shape
    (['E', 'constraint_residual'], (4,))
    >>> float(np.ptp(cols["E"])) < 1e-12 and float(cols["constraint_residual"].max()) < 1e-12
    True
    """
    wanted = COLUMNS if columns is None else tuple(columns)
    unknown = [c for c in wanted if c not in COLUMNS]
    if unknown:
        from .errors import ConfigurationError

        raise ConfigurationError(f"conservation_columns: columns {unknown!r} unknown; the columns are {list(COLUMNS)}")
    wanted = tuple(c for c in COLUMNS if c in wanted)
    q, v, nu = np.asarray(q, float), np.asarray(v, float), np.asarray(nu, float)
    N = q.shape[0] - 1
    out: dict[str, np.ndarray] = {}
    if "t" in wanted:
        out["t"] = np.array([k * h for k in range(N + 1)], float)
    if {"T", "V", "W", "D", "E"} & set(wanted):
        u = np.asarray(u, float).reshape(N, len(system.actuated))
        K = system.friction
        act = system.actuated_indices
        if work is None:
            work = [-h * (u[i] @ nu[i, act]) for i in range(N)]
        W = np.concatenate([[0.0], np.cumsum(np.asarray(work, float))])
        D = np.concatenate([[0.0], np.cumsum([h * (K * nu[i]) @ nu[i] for i in range(N)])])
        T = np.array([float(system.kinetic_energy(v[k])) for k in range(N + 1)], float)
        V = np.array([float(system.potential_energy(q[k])) for k in range(N + 1)], float)
        energy = {"T": T, "V": V, "W": W, "D": D, "E": T + V + W + D}
        out.update((c, energy[c]) for c in ("T", "V", "W", "D", "E") if c in wanted)
    if {"Lx", "Ly", "Lz"} & set(wanted):
        L = np.array([np.asarray(system.angular_momentum(q[k], v[k]), float) for k in range(N + 1)]).reshape(N + 1, 3)
        out.update((c, L[:, i]) for i, c in enumerate(("Lx", "Ly", "Lz")) if c in wanted)
    if {"px", "py", "pz"} & set(wanted):
        p = np.array([np.asarray(system.linear_momentum(v[k]), float) for k in range(N + 1)]).reshape(N + 1, 3)
        out.update((c, p[:, i]) for i, c in enumerate(("px", "py", "pz")) if c in wanted)
    if "constraint_residual" in wanted:
        out["constraint_residual"] = np.array(
            [np.abs(np.asarray(system.constraints(q[k]), float)).max(initial=0.0) for k in range(N + 1)], float)
    if "velocity_constraint_residual" in wanted:
        out["velocity_constraint_residual"] = np.array(
            [np.abs(np.asarray(system.constraint_jacobian(q[k]), float) @ v[k]).max(initial=0.0)
             for k in range(N + 1)], float)
    return {c: out[c] for c in wanted}


def conservation_table(system: MultibodySystem, h: float, q: npt.ArrayLike, v: npt.ArrayLike, nu: npt.ArrayLike,
                       u: npt.ArrayLike, work: npt.ArrayLike | None = None) -> pd.DataFrame:
    """Per-node diagnostics.

    Parameters
    ----------
    system : MultibodySystem
    h : float
    q, v : (N+1, n) node configurations and velocities
    nu : (N, dof) interval joint rates ν_{k,k+1}
    u : (N, n_act) interval controls on ``system.actuated``
    work : (N,) the work done on the controls on each interval as the scheme states it
        (default ``-h u_k·ν_k``, the midpoint and energy-momentum schemes'; a scheme with stage
        controls gives its own quadrature, and a scheme without joint-rate unknowns (DMOCC,
        RATTLE) the force × displacement ``-u_k·½[B(q_k) + B(q_{k+1})](q_{k+1} - q_k)``
        (:func:`~pyomo_mbdyn.discretization.common.interval_control_work`): the trajectory
        extra ``work``; pass it, or use :func:`trajectory_table`)

    Returns
    -------
    DataFrame indexed by node k with columns t, T, V, W, D, E (= T+V+W+D),
    Lx, Ly, Lz, px, py, pz, constraint_residual (max abs Φ(q_k)),
    velocity_constraint_residual (max abs G(q_k) v_k, see the module docstring).

    Examples
    --------
    A pendulum driven by a constant applied torque of -0.5 N m (with its fall): the energy
    it gains from the motor (``W < 0``, work done on the system) keeps ``E`` constant to
    round-off:

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> from pyomo_mbdyn.simulate import simulate
    >>> tr = simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 3, controls=[[-0.5]] * 3)
    >>> table = conservation_table(pendulum, 0.1, tr.q, tr.v, tr.nu, tr.u)
    >>> table[["t", "T", "V", "W"]].round(4)
         t       T       V       W
    k
    0  0.0  0.0000  0.0000  0.0000
    1  0.1  0.5399 -0.4898 -0.0501
    2  0.2  2.0842 -1.8858 -0.1984
    3  0.3  4.1508 -3.7157 -0.4352
    >>> float(np.ptp(table["E"])) < 1e-12
    True
    """
    import pandas as pd  # here, not at module level: the run path reads the columns (issue 48)

    columns = conservation_columns(system, h, q, v, nu, u, work=work)
    return pd.DataFrame(columns, index=pd.RangeIndex(len(columns["t"]), name="k"))


def trajectory_table(trajectory: Any) -> pd.DataFrame:  # a Trajectory (trajectory.py imports this module)
    """:func:`conservation_table` of a :class:`~pyomo_mbdyn.trajectory.Trajectory`, with the
    controls' work per interval as the scheme states it where the trajectory carries it (the
    extra ``work``: stage-control schemes, and the schemes without joint-rate unknowns)."""
    t = trajectory
    work = t.extras.get("work")
    if work is not None and np.shape(work) != (len(t.q) - 1,):
        work = None
    # t.h is None only for a single node, whose table needs no step
    return conservation_table(t.system, t.h, t.q, t.v, t.nu, t.u, work=work)  # type: ignore[arg-type]


def momentum_errors(system: MultibodySystem, q: np.ndarray | Sequence[npt.ArrayLike],
                    v: np.ndarray | Sequence[npt.ArrayLike]) -> dict[str, float]:
    """How well a motion keeps the total momentum, relative to how much momentum moves in it.

    For node states ``(q_k, v_k)``, with ``p_k = Σ_β p_β`` the total linear momentum and
    ``L_k = Σ_β L_β`` the total angular momentum about the origin::

        linear  = max_k |p_k − p_0| / s_p,   s_p = max_k Σ_β |p_β(v_k)|,
        angular = max_k |L_k − L_0| / s_L,   s_L = max_k Σ_β |L_β(q_k, v_k) − c_k × p_β(v_k)|,

    ``c_k`` the system's centre of mass: the scales are the momentum the bodies carry
    one by one (the angular about ``c_k``, so that a translation of the origin does not
    change them), which a free-floating robot's total keeps at zero while its arm and base
    swap it.  Returns ``{"linear", "angular", "linear_scale", "angular_scale"}`` (the errors
    relative; a motion without momentum, scale 0, gives the absolute errors).  The
    energy-momentum and variational schemes keep both to the solver's tolerance
    (thesis §2.3, DMOCC §4); midpoint in generalised coordinates and collocation drift at
    their order.

    Two free point masses, the second speeding up by 1 % of the momentum they carry:

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import MultibodySystem, PointMass
    >>> pair = MultibodySystem("pair")
    >>> pair.add_bodies(PointMass("a", 1.0, position=(1, 0, 0)), PointMass("b", 1.0, position=(-1, 0, 0)))
    >>> q = [pair.q0, pair.q0]
    >>> v = [[0, 1, 0, 0, -1, 0], [0, 1, 0, 0, -1.02, 0]]
    >>> errors = momentum_errors(pair, q, v)
    >>> round(errors["linear"], 6), errors["linear_scale"], round(errors["angular"], 6)
    (0.009901, 2.02, 0.009901)
    """
    p, L, s_p, s_L = momentum_series(system, q, v)
    dp = float(np.linalg.norm(p - p[0], axis=1).max())
    dL = float(np.linalg.norm(L - L[0], axis=1).max())
    return {"linear": float(dp / s_p if s_p > 0 else dp), "angular": float(dL / s_L if s_L > 0 else dL),
            "linear_scale": float(s_p), "angular_scale": float(s_L)}


def momentum_series(system: MultibodySystem, q: np.ndarray | Sequence[npt.ArrayLike],
                    v: np.ndarray | Sequence[npt.ArrayLike]) -> tuple[np.ndarray, np.ndarray, float, float]:
    """``(p, L, s_p, s_L)``: the total linear and angular momentum (about the origin) at every
    node, arrays (N+1, 3), and the scales of :func:`momentum_errors`.

    >>> from pyomo_mbdyn.mechanics import MultibodySystem, PointMass
    >>> one = MultibodySystem("one")
    >>> one.add_bodies(PointMass("a", 2.0, position=(1, 0, 0)))
    >>> p, L, s_p, s_L = momentum_series(one, [one.q0], [[0, 3, 0]])
    >>> p[0].tolist(), L[0].tolist(), s_p, s_L
    ([0.0, 6.0, 0.0], [0.0, 0.0, 6.0], 6.0, 0.0)
    """
    masses = {name: body.mass for name, body in system.bodies.items()}
    offsets = system.layout["offsets"]
    total_mass = sum(masses.values())
    p, L, s_p, s_L = [], [], 0.0, 0.0
    for qk, vk in zip(q, v):
        qk, vk = np.asarray(qk, float), np.asarray(vk, float)
        centre = sum(masses[n] * qk[offsets[n]][:3] for n in masses) / total_mass
        pk, Lk, sp, sL = np.zeros(3), np.zeros(3), 0.0, 0.0
        for name, body in system.bodies.items():
            s = offsets[name]
            pb = np.asarray(body.linear_momentum(vk[s]), float)
            Lb = np.asarray(body.angular_momentum(qk[s], vk[s]), float)
            pk, Lk = pk + pb, Lk + Lb
            sp += float(np.linalg.norm(pb))
            sL += float(np.linalg.norm(Lb - np.cross(centre, pb)))
        p.append(pk)
        L.append(Lk)
        s_p, s_L = max(s_p, sp), max(s_L, sL)
    return np.array(p), np.array(L), s_p, s_L
