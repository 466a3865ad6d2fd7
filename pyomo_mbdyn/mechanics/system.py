"""MultibodySystem: bodies and joints assembled into chains, trees and loops.

The system owns the global coordinate layout ``q = (q^1, …, q^{N_b})`` (12
numbers per rigid body, 3 per point mass, in insertion order) and the
independent velocities ``ν``: the twist of every *root* body (a body that no
joint carries; 6 or 3 numbers) followed by the coordinates of every tree joint,
in insertion order.  It assembles, for a configuration ``q``:

* the constant mass matrix ``M`` and potential gradient ``∇V`` (uniform gravity,
  ``V = -Σ m g·φ``);
* the constraints ``Φ(q)`` (internal, then joint constraints) and ``G = ∂Φ/∂q``;
* the null-space matrix ``P(q)`` with ``G P = 0``: the rows of body β are
  ``P_int(q^β) T_β`` with ``T_β`` the twist of β as a function of ν, built
  down the tree from the joints' twist maps (DMOCC §6);
* the contravariant control matrix ``B`` with ``Bᵀ = diag_β(P_int(q♯_β) W_β) C̄``
  (``W = diag(I, ½I)``, ``C̄`` the unit wrenches of every generalised
  coordinate), so that ``B(q♯_{k+½}) P(q_{k+½}) = I`` exactly (thesis §2.6–2.8);
* the nodal reparametrisation ``q = F(w, q_base)`` of increments w (relative: base ``q_n``;
  absolute: base ``q_00``), exact on the constraint manifold, ``∂F/∂w|₀ = P``; ``u`` is always the control.

A joint whose child is already carried by another joint (or whose child is an
ancestor of its parent) closes a loop: it adds constraints but no coordinates
(:mod:`.loops`).  Then ``ν`` stays the tree coordinates, ``B`` and ``F`` are
those of the spanning tree, the redundant loop rows are dropped from the
*active* rows (``active_constraints``, ``active_jacobian``) and
``P = P_tree N`` (n × dof, columns ordered as ``independent``) comes from
coordinate partitioning, in every backend.

Sign convention of controls: ``u`` is the applied generalised force on the actuated
joint rates (the torque a motor applies about a hinge's axis, N m; the force along a
slider, N), entering the equations of motion as ``M v̇ + ∇V + Gᵀγ + Bᵀ(K ν - u) = 0``.
The thesis writes ``Bᵀ(K ν + ū)`` with ``ū = -u`` (§0); the step equations keep its
form through :func:`pyomo_mbdyn.discretization.common.thesis_controls`.  Rayleigh
friction ``D = ½ νᵀ K ν``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence, cast

import numpy as np

from ..errors import AssemblyError, ConfigurationError, InputTypeError
from .bodies import Body
from .joints import GROUND, Joint
from .linalg import as_array, dependent_rows, matmul, shared_array
from .loops import loop_basis, loop_reduction
from .numeric import check_numeric
from .protocol import ConstrainedSystem

if TYPE_CHECKING:
    import os
    import numpy.typing as npt
    from .loops import LoopReduction

__all__ = ["MultibodySystem"]


def coordinate_names(body: Any) -> list[str]:
    """Names of a body's coordinates: ``x, y, z`` and, for a rigid body, ``d1x, …, d3z``
    (a coordinate group of a :class:`~pyomo_mbdyn.mechanics.CoordinateSystem` names its own)."""
    if hasattr(body, "coordinate_names"):
        return list(body.coordinate_names)
    names = ["x", "y", "z"]
    if body.has_orientation:
        names += [f"d{i}{c}" for i in (1, 2, 3) for c in "xyz"]
    return names


def _vstack(blocks, ncols):
    """Stack 2-D blocks (each ``(rows_i, ncols)``), also when ``ncols == 0``."""
    blocks = [np.asarray(b, dtype=object) for b in blocks]
    nrows = sum(b.shape[0] for b in blocks)
    if ncols == 0 or nrows == 0:
        return np.zeros((nrows, ncols))
    return as_array(np.vstack([b.reshape(b.shape[0], ncols) for b in blocks]))


class MultibodySystem(ConstrainedSystem):
    """A multibody system.

    Parameters
    ----------
    name : str
    gravity : 3 numbers
        Gravitational acceleration vector (e.g. ``(0, -9.81, 0)``).

    Examples
    --------
    >>> from pyomo_mbdyn.mechanics import RigidBody, Revolute, MultibodySystem
    >>> link = RigidBody("link", 1.0, (0.1, 0.1, 0.02), position=(0.5, 0, 0))
    >>> system = MultibodySystem("pendulum", gravity=(0, -9.81, 0))
    >>> system.add_bodies(link)
    >>> system.add_joints(Revolute("hinge", None, link, location=(0, 0, 0), axis=(0, 0, 1)))
    >>> system.n, system.m, system.dof
    (12, 11, 1)
    """

    # set by :meth:`from_urdf` (declarations for type checkers, no values)
    urdf_limits: dict[str, Any]
    urdf_links: dict[str, str]
    urdf_locked: dict[str, float]
    floating_base: str | None

    def __init__(self, name: str = "system", gravity: Sequence[float] = (0.0, 0.0, 0.0)) -> None:
        self.name = name
        check_numeric(gravity, f"{self}: gravity", "3 finite numbers")
        g = np.asarray(gravity, dtype=float).reshape(-1)
        if g.shape != (3,) or not np.all(np.isfinite(g)):
            raise ConfigurationError(f"{self}: gravity must be 3 finite numbers, got {gravity!r}")
        self.gravity = g
        self.bodies = {}
        self.joints = {}
        self._actuated: list[str] = []  # names of generalised coordinates carrying controls
        self._friction: dict[str, float] = {}  # name of generalised coordinate → k
        self._independent: list[str] | None = None  # requested independent coordinates of the loops
        self._layout: dict[str, Any] | None = None

    def __repr__(self):
        return f"MultibodySystem({self.name!r})"

    @classmethod
    def from_urdf(cls, source: str | os.PathLike[str], fixed: str = "lump", **options: Any) -> MultibodySystem:
        """A robot read from a URDF file or text (:mod:`pyomo_mbdyn.mechanics.urdf`).

        The root link is welded to the world (``floating_base=True``: a free rigid body, gravity
        off unless given); revolute/continuous → :class:`Revolute`,
        prismatic → :class:`Prismatic`, planar → :class:`Planar`, floating → a free body,
        fixed → the child lumped into its parent (parallel-axis theorem; ``fixed="keep"``:
        a :class:`Fixed` joint).  Bodies are named after links (``<link>_link`` where a
        link shares a joint's name), joints after URDF joints;
        ``system.urdf_limits`` holds each joint's limits, ``system.urdf_links`` the body
        of each link.  Options (``gravity``, ``actuated``, ``damping``, ``name``,
        ``lock``: joints held at a value, ``floating_base``):
        :func:`~pyomo_mbdyn.mechanics.urdf.build_from_urdf`.

        >>> from pyomo_mbdyn import robots
        >>> panda = MultibodySystem.from_urdf(robots.path("panda"))
        >>> panda.dof, panda.velocities[0], panda.urdf_limits["panda_joint4"].upper
        (7, 'panda_joint1.angle', -0.0698)
        """
        from .urdf import build_from_urdf

        return build_from_urdf(source, fixed, cls=cls, **options)

    # -- declaration ------------------------------------------------------------
    def structure(self) -> dict[str, Any]:
        """What a scheme block built on the system depends on, by name: bodies, joints (with
        kind, parent and child), actuated coordinates, friction coefficients and the chosen
        independent coordinates.  A block records it when it is built and refuses to go on
        when it has changed (:class:`~pyomo_mbdyn.schemes.base.SchemeBlockData`): its
        variables and equations were made for the system as it was."""
        return {"bodies": tuple(self.bodies),
                "joints": tuple((j.name, j.kind, getattr(j.parent, "name", "ground"), getattr(j.child, "name", None))
                                for j in self.joints.values()),
                "actuated": tuple(self._actuated),
                "friction": tuple(sorted(self._friction.items())),
                "independent": tuple(self._independent or ())}

    def add_bodies(self, *bodies: Body) -> None:
        for body in bodies:
            if not isinstance(body, Body) or body is GROUND:
                raise InputTypeError(f"{self}: expected a RigidBody or PointMass, got {body!r}")
            if body.name in self.bodies:
                which = "twice" if self.bodies[body.name] is body else "with a name already used"
                raise ConfigurationError(f"{self}: body {body.name!r} added {which}")
            self.bodies[body.name] = body
        self._layout = None

    def add_joints(self, *joints: Joint) -> None:
        for joint in joints:
            if not isinstance(joint, Joint):
                raise InputTypeError(f"{self}: expected a Joint, got {joint!r}")
            if joint.name in self.joints or joint.name in self.bodies:
                raise ConfigurationError(f"{self}: name {joint.name!r} is already used")
            for role, body in (("parent", joint.parent), ("child", joint.child)):
                if body is GROUND:
                    continue
                if self.bodies.get(body.name) is not body:
                    raise ConfigurationError(
                        f"{joint}: {role} {body.name!r} is not a body of {self}; "
                        f"known bodies: {sorted(self.bodies)}"
                    )
            self.joints[joint.name] = joint
        self._layout = None

    def actuate(self, target: Joint | Body | str, dofs: str | Sequence[str] | None = None) -> None:
        """Let controls act on a joint's coordinates or on a root body's twist.

        ``target`` is a joint or body (or its name); ``dofs`` selects some of
        its coordinates by local name (``'angle'``, ``'vx'``, …); default all.
        Each coordinate carries one control ``u[k, a]``: actuating a coordinate
        that is already actuated is a :class:`ConfigurationError` (a second
        call neither doubles the actuator nor replaces the selection).
        """
        names = self._coordinate_names_of(target)
        if dofs is not None:
            wanted = [dofs] if isinstance(dofs, str) else list(dofs)
            full = {n.rsplit(".", 1)[1]: n for n in names}
            unknown = [d for d in wanted if d not in full]
            if unknown:
                raise ConfigurationError(
                    f"{self}: {target} has no coordinates {unknown}; it has {sorted(full)}"
                )
            names = [full[d] for d in wanted]
        if self.has_loops:
            self._refuse_locked(target, names)
        again = [n for n in names if n in self._actuated]
        if again:
            raise ConfigurationError(
                f"{self}: {again} already actuated (by an earlier actuate of {target}); each coordinate "
                f"carries one control, actuate it once; actuated: {self._actuated}")
        for n in names:
            if n not in self._actuated:
                self._actuated.append(n)

    def add_friction(self, target: Joint | Body | str, k: float | Sequence[float]) -> None:
        """Rayleigh friction ``D = ½ k ν²`` on each coordinate of a joint or body."""
        names = self._coordinate_names_of(target)
        check_numeric(k, f"{self}: friction coefficients", "numbers ≥ 0")
        ks = np.broadcast_to(np.asarray(k, dtype=float), (len(names),))
        if np.any(ks < 0) or not np.all(np.isfinite(ks)):
            raise ConfigurationError(f"{self}: friction coefficients must be ≥ 0, got {k!r}")
        for n, kk in zip(names, ks):
            self._friction[n] = float(kk)

    def _refuse_locked(self, target, names):
        """A ConfigurationError when the closed loops hold the coordinates ``names`` still at
        ``q0``: their columns of the loops' null space (in the tree's velocities) vanish, so a
        control there is absorbed by the constraints (it used to solve with u = 0)."""
        from .loops import _loop_jacobian, _loop_row_indices

        q0 = self.q0
        J = _loop_jacobian(self, q0, _loop_row_indices(self))
        _, sing, Vt = np.linalg.svd(J)
        rank = int(np.sum(sing > 1e-9 * max(sing.max(initial=0.0), 1.0)))
        free = Vt[rank:].T  # tree velocities that keep the loops closed
        index = {n: i for i, n in enumerate(self.layout["velocities"])}
        locked = [n for n in names if n in index and np.abs(free[index[n]]).max(initial=0.0) < 1e-9]
        if locked:
            raise ConfigurationError(
                f"{self}: the loops {self.layout['loop_joints']} lock {locked} (no motion that keeps them "
                f"closed moves it; the system has {free.shape[1]} degrees of freedom), so a control on "
                f"{target} could not act; check the loop geometry (joint axes, locations) or actuate a free joint")

    def _coordinate_names_of(self, target):
        layout = self.layout
        name = getattr(target, "name", target)
        if name in self.joints:
            joint = self.joints[name]
            if joint.name in layout["loop_joints"]:
                raise ConfigurationError(f"{self}: {joint} closes a loop and has no coordinates")
            if not joint.dofs:  # a Fixed joint: actuating it used to be a silent no-op
                raise ConfigurationError(
                    f"{self}: {joint} locks {getattr(joint.child, 'name', joint.child)!r} to "
                    f"{getattr(joint.parent, 'name', joint.parent)!r} and has no coordinates: nothing can "
                    f"act on or damp it; actuate a joint with coordinates")
            return list(joint.dofs)
        if name in self.bodies:
            if name not in layout["roots"]:
                carrier = next((j for j in self.joints.values() if j.name not in layout["loop_joints"]
                                and getattr(j.child, "name", None) == name), None)
                if carrier is not None and not carrier.dofs:
                    raise ConfigurationError(
                        f"{self}: body {name!r} is locked by {carrier} (no coordinates): nothing can act on it")
                raise ConfigurationError(
                    f"{self}: body {name!r} is carried by a joint; actuate the joint instead"
                )
            return list(self._root_dofs(self.bodies[name]))
        raise ConfigurationError(f"{self}: no joint or body named {name!r}")

    @staticmethod
    def _root_dofs(body):
        local = ("vx", "vy", "vz", "wx", "wy", "wz")[: body.twist_size]
        return tuple(f"{body.name}.{d}" for d in local)

    # -- layout -------------------------------------------------------------
    @property
    def layout(self) -> dict[str, Any]:  # type: ignore[override]  # the protocol's attribute, computed here
        if self._layout is None:
            self._layout = self._build_layout()
        return self._layout

    def _build_layout(self):
        if not self.bodies:
            raise AssemblyError(f"{self}: no bodies; add them with add_bodies before using the system")
        offsets, n = {}, 0
        for body in self.bodies.values():
            offsets[body.name] = slice(n, n + body.n_coordinates)
            n += body.n_coordinates
        # spanning tree: a joint is a tree joint if its child is not yet carried
        tree_parent, tree_joints, loop_joints = {}, [], []

        def ancestors(b):
            seen = []
            while b in tree_parent:
                b = tree_parent[b]
                seen.append(b)
            return seen

        for joint in self.joints.values():
            c, p = joint.child.name, joint.parent.name
            if c in tree_parent or (p != "ground" and c in [p, *ancestors(p)]):
                loop_joints.append(joint.name)
            else:
                tree_parent[c] = p
                tree_joints.append(joint.name)
        roots = [b for b in self.bodies if b not in tree_parent]
        # topological order of bodies
        order, placed = [], {"ground"}
        pending = list(self.bodies)
        while pending:
            progressed = False
            for b in list(pending):
                if b in roots or tree_parent.get(b) in placed:
                    order.append(b)
                    placed.add(b)
                    pending.remove(b)
                    progressed = True
            if not progressed:  # pragma: no cover - cycles are routed to loops above
                raise AssemblyError(f"{self}: cannot order bodies {pending}")
        carrier = {self.joints[j].child.name: j for j in tree_joints}
        velocities = []
        for b in roots:
            velocities += self._root_dofs(self.bodies[b])
        for j in tree_joints:
            velocities += self.joints[j].dofs
        index = {name: i for i, name in enumerate(velocities)}
        return dict(n=n, offsets=offsets, roots=roots, order=order, carrier=carrier,
                    tree_joints=tree_joints, loop_joints=loop_joints,
                    velocities=velocities, index=index)

    # -- closed loops ----------------------------------------------------------
    @property
    def has_loops(self) -> bool:  # type: ignore[override]  # the protocol's class constant, computed here
        """True if some joint closes a kinematic loop."""
        return bool(self.layout["loop_joints"])

    @property
    def loop_reduction(self) -> LoopReduction | None:
        """The :class:`~pyomo_mbdyn.mechanics.loops.LoopReduction` at q0 (None for a tree):
        active rows, dropped rows, independent and dependent coordinates."""
        if not self.has_loops:
            return None
        layout = self.layout
        if "loop_reduction" not in layout:
            layout["loop_reduction"] = loop_reduction(self, self._independent)
        return layout["loop_reduction"]

    def choose_independent(self, *names: str) -> None:
        """Name the tree coordinates that parametrise the loops (``dof`` of them); the default
        is the actuated coordinates, completed by the best-conditioned choice at q0.

        Raises :class:`~pyomo_mbdyn.errors.LoopReductionError` if the others
        cannot be solved for at q0."""
        if not self.has_loops:
            raise ConfigurationError(f"{self}: a tree has no dependent coordinates; every coordinate of "
                                     f"{self.velocities} is independent")
        previous = self._independent
        self._independent = list(names)
        self.layout.pop("loop_reduction", None)
        try:
            self.loop_reduction  # noqa: B018 - checks the choice now
        except Exception:
            self._independent = previous
            self.layout.pop("loop_reduction", None)
            raise

    @property
    def independent(self) -> list[str]:
        """Names of the independent coordinates (the columns of ``null_space``): ``velocities``
        for a tree, the partition's independent tree coordinates for loops."""
        return list(self.velocities) if not self.has_loops else list(cast("LoopReduction", self.loop_reduction).independent)

    @property
    def dependent(self) -> list[str]:
        """Tree coordinates fixed by loop closure (empty for a tree)."""
        return [] if not self.has_loops else list(cast("LoopReduction", self.loop_reduction).dependent)

    @property
    def active_rows(self) -> list[int]:
        """Indices of the constraint rows kept by the schemes: all of them for a tree; for loops,
        without the redundant loop rows (``dropped_constraints``)."""
        return list(range(self.m)) if not self.has_loops else list(cast("LoopReduction", self.loop_reduction).active)

    @property
    def m_active(self) -> int:
        """Number of active constraint rows."""
        return len(self.active_rows)

    @property
    def dropped_constraints(self) -> list[str]:  # type: ignore[override]  # the protocol's class constant, computed here
        """Labels of the loop rows left out as redundant (empty for a tree)."""
        return [] if not self.has_loops else list(cast("LoopReduction", self.loop_reduction).dropped)

    def active_constraints(self, q: npt.ArrayLike) -> np.ndarray:
        """Φ(q) on the active rows."""
        phi = self.constraints(q)
        return phi if not self.has_loops else as_array(np.asarray(phi, dtype=object)[self.active_rows])

    def active_jacobian(self, q: npt.ArrayLike) -> np.ndarray:
        """G(q) on the active rows (m_active × n)."""
        G = self.constraint_jacobian(q)
        return G if not self.has_loops else as_array(np.asarray(G, dtype=object)[self.active_rows])

    def loop_constraints(self, q: npt.ArrayLike) -> np.ndarray:
        """The kept rows of the loop-closing joints, Φ_L(q) (empty for a tree)."""
        if not self.has_loops:
            return np.zeros(0)
        phi = np.asarray(self.constraints(q), dtype=object)
        return as_array(phi[cast("LoopReduction", self.loop_reduction).loop_rows])

    def active_labels(self) -> list[str]:
        """Labels of the active rows."""
        labels = self.constraint_labels()
        return [labels[i] for i in self.active_rows]

    @property
    def inputs_dual_to_null_space(self) -> bool:  # type: ignore[override]  # the protocol's class constant, computed here
        """``P(q_mid)ᵀ B(q♯)ᵀ = I``: true for a tree; with loops B is the tree's and the reduced
        inputs are ``Pᵀ Bᵀ u = Nᵀ u``."""
        return not self.has_loops

    @property
    def n(self) -> int:
        """Number of redundant coordinates."""
        return self.layout["n"]

    @property
    def m(self) -> int:
        """Number of constraints (internal and joint), redundant ones included."""
        return sum(b.n_internal for b in self.bodies.values()) + sum(
            j.n_constraints for j in self.joints.values())

    @property
    def n_velocities(self) -> int:
        """Length of ν (tree coordinates), before loop closure."""
        return len(self.layout["velocities"])

    @property
    def dof(self) -> int:
        """Degrees of freedom n - rank(G) at the reference configuration (the tree coordinates
        less the independent loop rows)."""
        if not self.layout["loop_joints"]:
            return self.n_velocities
        return self.n_velocities - len(cast("LoopReduction", self.loop_reduction).loop_rows)

    @property
    def velocities(self) -> list[str]:
        """Names of the independent velocities ν (``body.vx``, ``joint.angle``, …)."""
        return list(self.layout["velocities"])

    @property
    def coordinates(self) -> list[str]:
        names = []
        for body in self.bodies.values():
            comps = ["x", "y", "z"]
            if body.has_orientation:
                names += [f"{body.name}.phi.{c}" for c in comps]
                names += [f"{body.name}.d{i}.{c}" for i in (1, 2, 3) for c in comps]
            else:
                names += [f"{body.name}.phi.{c}" for c in comps]
        return names

    @property
    def actuated(self) -> list[str]:
        """Names of the generalised coordinates that carry controls, in ν order."""
        idx = self.layout["index"]
        return sorted(self._actuated, key=idx.__getitem__)

    @property
    def actuated_indices(self) -> list[int]:
        idx = self.layout["index"]
        return [idx[n] for n in self.actuated]

    @property
    def friction(self) -> np.ndarray:
        """The diagonal of K over ν."""
        return np.array([self._friction.get(n, 0.0) for n in self.layout["velocities"]])

    @property
    def q0(self) -> np.ndarray:
        """Reference configuration."""
        self.layout  # noqa: B018 - refuses a system without bodies
        return np.concatenate([b.q0 for b in self.bodies.values()])

    def body_coordinates(self, q: npt.ArrayLike, body: str) -> np.ndarray:
        name = getattr(body, "name", body)
        if name == "ground":
            return GROUND.q0
        return as_array(q)[self.layout["offsets"][name]]

    # -- dynamics -------------------------------------------------------------
    def mass_matrix(self) -> np.ndarray:
        """Constant, block-diagonal M (n × n)."""
        M = np.zeros((self.n, self.n))
        for name, body in self.bodies.items():
            s = self.layout["offsets"][name]
            M[s, s] = body.mass_matrix()
        return M

    def potential_gradient(self) -> np.ndarray:
        """Constant ∇V for ``V = -Σ m g·φ``."""
        grad = np.zeros(self.n)
        for name, body in self.bodies.items():
            s = self.layout["offsets"][name]
            grad[s.start: s.start + 3] = -body.mass * self.gravity
        return grad

    def potential_energy(self, q: npt.ArrayLike) -> Any:
        """V(q) = ∇V · q (gravity is linear in φ)."""
        q, grad = as_array(q), self.potential_gradient()
        return sum(grad[i] * q[i] for i in np.flatnonzero(grad)) if grad.any() else 0.0

    def kinetic_energy(self, v: npt.ArrayLike) -> Any:
        v = as_array(v)
        return sum(b.kinetic_energy(v[self.layout["offsets"][n]]) for n, b in self.bodies.items())

    def angular_momentum(self, q: npt.ArrayLike, v: npt.ArrayLike) -> np.ndarray:
        """Total angular momentum about the origin."""
        q, v = as_array(q), as_array(v)
        total = as_array(np.zeros(3))
        for name, body in self.bodies.items():
            s = self.layout["offsets"][name]
            total = as_array(total + body.angular_momentum(q[s], v[s]))
        return total

    def linear_momentum(self, v: npt.ArrayLike) -> np.ndarray:
        v = as_array(v)
        total = as_array(np.zeros(3))
        for name, body in self.bodies.items():
            total = as_array(total + body.linear_momentum(v[self.layout["offsets"][name]]))
        return total

    # -- constraints --------------------------------------------------------
    def constraints(self, q: npt.ArrayLike) -> np.ndarray:
        """Φ(q): internal constraints of each body, then each joint's."""
        parts = [b.internal_constraints(self.body_coordinates(q, n)) for n, b in self.bodies.items()]
        parts += [j.constraints(self.body_coordinates(q, j.parent), self.body_coordinates(q, j.child))
                  for j in self.joints.values()]
        parts = [np.asarray(p, dtype=object).reshape(-1) for p in parts]
        return as_array(np.concatenate(parts)) if parts else np.zeros(0)

    def constraint_labels(self) -> list[str]:
        labels = []
        for name, body in self.bodies.items():
            labels += [f"{name}.internal[{i}]" for i in range(body.n_internal)]
        for name, joint in self.joints.items():
            labels += [f"{name}[{i}]" for i in range(joint.n_constraints)]
        return labels

    def constraint_jacobian(self, q: npt.ArrayLike) -> np.ndarray:
        """G(q) = ∂Φ/∂q (m × n)."""
        G = np.zeros((self.m, self.n), dtype=object)
        row = 0
        for name, body in self.bodies.items():
            s = self.layout["offsets"][name]
            G[row: row + body.n_internal, s] = body.internal_jacobian(self.body_coordinates(q, name))
            row += body.n_internal
        for joint in self.joints.values():
            qp, qc = self.body_coordinates(q, joint.parent), self.body_coordinates(q, joint.child)
            Gp, Gc = joint.jacobian(qp, qc)
            r = slice(row, row + joint.n_constraints)
            if joint.parent is not GROUND:
                G[r, self.layout["offsets"][joint.parent.name]] += Gp
            G[r, self.layout["offsets"][joint.child.name]] += Gc
            row += joint.n_constraints
        return as_array(G)

    # -- null space and control matrix ----------------------------------------
    def twist_matrices(self, q: npt.ArrayLike) -> dict[str, np.ndarray]:
        """``{body: T_β}`` with twist_β = T_β ν (shapes (t_β, n_ν)), down the tree."""
        L = self.layout
        nv = self.n_velocities
        T: dict[str, np.ndarray] = {}
        for b in L["order"]:
            body = self.bodies[b]
            if b in L["roots"]:
                Tb = np.zeros((body.twist_size, nv))
                for k, dof in enumerate(self._root_dofs(body)):
                    Tb[k, L["index"][dof]] = 1.0
            else:
                joint = self.joints[L["carrier"][b]]
                qp, qc = self.body_coordinates(q, joint.parent), self.body_coordinates(q, b)
                A, E = joint.twist_map(qp, qc)
                Tb = np.zeros((body.twist_size, nv), dtype=object)
                if joint.parent is not GROUND:
                    Tb = Tb + matmul(A, T[joint.parent.name])
                cols = [L["index"][d] for d in joint.dofs]
                if cols:
                    Tb[:, cols] = Tb[:, cols] + E
            T[b] = shared_array(as_array(Tb))
        return T

    def tree_null_space(self, q: npt.ArrayLike) -> np.ndarray:
        """P_t(q) (n × n_ν): the null space of the tree's constraints, columns ordered as
        ``velocities`` (= ``null_space`` for a tree)."""
        T = self.twist_matrices(q)
        blocks = []
        for name, body in self.bodies.items():
            blocks.append(matmul(body.internal_null_space(self.body_coordinates(q, name)), T[name]))
        return _vstack(blocks, self.n_velocities)

    def null_space(self, q: npt.ArrayLike) -> np.ndarray:
        """P(q) (n × dof) with G(q) P(q) = 0, columns ordered as ``independent`` (= ``velocities``
        for a tree); for loops ``P = P_t N`` by coordinate partitioning (:mod:`.loops`)."""
        P = shared_array(self.tree_null_space(q))
        if not self.layout["loop_joints"]:
            return P
        return shared_array(matmul(P, loop_basis(self, q, P, cast("LoopReduction", self.loop_reduction))))

    def sharp(self, q_mid: npt.ArrayLike) -> np.ndarray:
        """Contravariant evaluation q♯ of a midpoint configuration, body by body."""
        parts = [body.sharp(self.body_coordinates(q_mid, n)) for n, body in self.bodies.items()]
        return as_array(np.concatenate([np.asarray(p, dtype=object) for p in parts]))

    def wrench_matrix(self, q: npt.ArrayLike) -> dict[str, np.ndarray]:
        """C̄ (Σ t_β × n_ν): unit wrenches on every body per generalised coordinate."""
        L = self.layout
        rows = {}
        for name, body in self.bodies.items():
            rows[name] = np.zeros((body.twist_size, self.n_velocities), dtype=object)
        for b in L["roots"]:
            body = self.bodies[b]
            for k, dof in enumerate(self._root_dofs(body)):
                rows[b][k, L["index"][dof]] = 1.0
        for jname in L["tree_joints"]:
            joint = self.joints[jname]
            if not joint.n_dofs:
                continue
            qp, qc = self.body_coordinates(q, joint.parent), self.body_coordinates(q, joint.child)
            Cp, Cc = joint.wrench_map(qp, qc)
            cols = [L["index"][d] for d in joint.dofs]
            rows[joint.child.name][:, cols] += Cc
            if joint.parent is not GROUND:
                rows[joint.parent.name][:, cols] += Cp
        return {k: as_array(v) for k, v in rows.items()}

    def control_matrix(self, q_mid: npt.ArrayLike, contravariant: bool = True) -> np.ndarray:
        """B (n_ν × n) with ``Bᵀ = diag_β(P_int(q♯_β) W_β) C̄(q_mid)``.

        With ``contravariant=True`` (thesis "kontra") ``B P(q_mid) = I`` for every
        midpoint of two admissible configurations; ``False`` gives the plain
        midpoint ("kov") version, kept for comparison.  For loops this is the spanning tree's
        B (``B P_t = I``); its ``independent`` rows are a left inverse of ``P``.
        """
        q_eval = self.sharp(q_mid) if contravariant else as_array(q_mid)
        C = self.wrench_matrix(q_mid)
        blocks = []
        for name, body in self.bodies.items():
            Pint = body.internal_null_space(self.body_coordinates(q_eval, name))
            blocks.append(matmul(matmul(Pint, body.twist_weights()), C[name]))
        return shared_array(as_array(_vstack(blocks, self.n_velocities).T))

    def reduced_forces(self, q: npt.ArrayLike, tau: npt.ArrayLike, contravariant: bool = True) -> np.ndarray:
        """``P(q)ᵀ B(q♯)ᵀ τ``: generalised forces τ seen by the reduced equations.

        The identity (``B P = I``) for the library's null-space basis; with
        another basis (e.g. the DMOCC paper's) it gives that basis's reduced
        forces (DMOCC Eqs. 5.14-5.47).
        """
        P = self.null_space(q)
        return matmul(P.T, matmul(self.control_matrix(q, contravariant).T, as_array(tau)))

    # -- reparametrisation --------------------------------------------------
    def reparametrise(self, w: npt.ArrayLike, q_base: npt.ArrayLike, rotation: str = "exp") -> np.ndarray:
        """q = F(w, q_base): apply increments ``w`` (ordered as ``velocities``).

        For loops this is the spanning tree's F (the loops close only for the right
        dependent increments: :func:`~pyomo_mbdyn.mechanics.loops.close_loops`)."""
        L = self.layout
        w = as_array(w)
        if len(w) != self.n_velocities:
            raise ConfigurationError(f"{self}: expected {self.n_velocities} increments, got {len(w)}")
        new, R = {}, {"ground": np.eye(3)}
        for b in L["order"]:
            body = self.bodies[b]
            q_old = self.body_coordinates(q_base, b)
            if b in L["roots"]:
                idx = [L["index"][d] for d in self._root_dofs(body)]
                new[b], R[b] = body.reparametrise(w[idx], q_old, rotation)
            else:
                joint = self.joints[L["carrier"][b]]
                p = joint.parent.name
                qp_old = self.body_coordinates(q_base, joint.parent)
                qp_new = GROUND.q0 if p == "ground" else new[p]
                idx = [L["index"][d] for d in joint.dofs]
                new[b], R[b] = joint.reparametrise(w[idx], qp_old, qp_new, R[p], q_old, rotation)
            # children build on these: compute them once
            new[b], R[b] = shared_array(new[b]), shared_array(R[b])
        return shared_array(np.concatenate([np.asarray(new[b], dtype=object) for b in self.bodies]))

    # -- checks ---------------------------------------------------------------
    def redundant_constraints(self, q: npt.ArrayLike | None = None, tol: float = 1e-9) -> list[str]:
        """Labels of constraints whose gradients depend on earlier ones at q (for loops at q0:
        the dropped loop rows, ``dropped_constraints``)."""
        if q is None and self.has_loops:
            return self.dropped_constraints
        q = self.q0 if q is None else q
        labels = self.constraint_labels()
        return [labels[i] for i in dependent_rows(self.constraint_jacobian(q), tol)]

    def validate(self, tol: float = 1e-8) -> dict[str, Any]:
        """Check the assembly at the reference configuration; return a report.

        Raises :class:`AssemblyError` naming the constraint if ``Φ(q0) ≠ 0``.
        The report lists redundant constraints and loop-closing joints and, for loops,
        the rows dropped and the independent coordinates.
        """
        q0 = self.q0
        phi = np.asarray(self.constraints(q0), dtype=float)
        labels = self.constraint_labels()
        bad = [(labels[i], phi[i]) for i in np.flatnonzero(np.abs(phi) > tol)]
        if bad:
            listing = ", ".join(f"{lab} = {val:.3e}" for lab, val in bad[:5])
            raise AssemblyError(f"{self}: inconsistent reference configuration: {listing}")
        return {
            "n": self.n,
            "m": self.m,
            "dof": self.dof,
            "redundant_constraints": self.redundant_constraints(q0),
            "loop_joints": list(self.layout["loop_joints"]),
            "dropped_constraints": self.dropped_constraints,
            "independent": self.independent,
        }
