"""The systems the library integrates, as one protocol.

Three kinds of system reach the schemes, the stepper and the problem statements:

* :class:`~pyomo_mbdyn.mechanics.MultibodySystem` — bodies and joints in natural
  coordinates, trees and closed loops;
* :class:`~pyomo_mbdyn.mechanics.CoordinateSystem` — a holonomic system in redundant
  coordinates given by its formulas (the crane);
* :class:`~pyomo_mbdyn.mechanics.HamiltonianSystem` — H(q, p) in generalised
  coordinates, for the indirect method (DNCO).

:class:`System` is what all three state; :class:`ConstrainedSystem` is what the
first two state — redundant coordinates q ∈ ℝⁿ with holonomic constraints
Φ(q) = 0 (m rows, Jacobian G), a null-space matrix P(q) (G P = 0) whose columns are
the generalised velocities, input rows B, and the nodal reparametrisation
q = F(w, q_base) of the reduced schemes.  Code that needs such a system asks
``isinstance(system, ConstrainedSystem)`` and reads the protocol's members, never
``getattr`` with a default.  A system without closed loops inherits the loop
interface below (every row active, the independent coordinates are all
generalised velocities); :class:`~pyomo_mbdyn.mechanics.MultibodySystem` overrides
it with the loop reduction (:mod:`pyomo_mbdyn.mechanics.loops`).

Examples
--------
>>> from pyomo_mbdyn.mechanics import ConstrainedSystem, HamiltonianSystem, System, examples
>>> pendulum = examples.pendulum()
>>> isinstance(pendulum, ConstrainedSystem), pendulum.has_loops, pendulum.inputs_dual_to_null_space
(True, False, True)
>>> particle = HamiltonianSystem(1, lambda q: [[1.0]], lambda q: 0.0 * q[0])
>>> isinstance(particle, System), isinstance(particle, ConstrainedSystem)
(True, False)
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["System", "ConstrainedSystem"]


class System(abc.ABC):
    """What every system states: a ``name`` (for messages), whether it has closed kinematic
    loops, and its mechanics (mass matrix, kinetic and potential energy, in its own variables).

    Examples
    --------
    >>> from pyomo_mbdyn.mechanics import HamiltonianSystem
    >>> particle = HamiltonianSystem(1, lambda q: [[2.0]], lambda q: 0.0 * q[0], name="particle")
    >>> isinstance(particle, System), particle.has_loops
    (True, False)
    """

    #: for messages (instances set their own)
    name = "system"
    #: closed kinematic loops (only a MultibodySystem has them)
    has_loops = False

    @abc.abstractmethod
    def mass_matrix(self, *args: Any) -> np.ndarray:
        """The mass matrix M (constant in natural coordinates, M(q) in generalised ones)."""

    @abc.abstractmethod
    def kinetic_energy(self, *args: Any) -> Any:
        """T of a state."""

    @abc.abstractmethod
    def potential_energy(self, q: npt.ArrayLike) -> Any:
        """V(q)."""


class ConstrainedSystem(System):
    """A holonomic system in redundant coordinates (see the module docstring): what the scheme
    blocks, the Newton stepper and the optimal-control problems read.

    Attributes a system sets itself: ``bodies`` and ``joints`` (name → owner of coordinates
    and of constraint rows), ``layout`` (``{"loop_joints": […], "roots": […], "order": […]}``).

    Examples
    --------
    A pendulum (one rigid body on a revolute joint): 12 director coordinates, 11 constraint
    rows, one generalised velocity, and the loop interface of a tree.

    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> pendulum.n, pendulum.m, pendulum.velocities, pendulum.independent, pendulum.m_active
    (12, 11, ['hinge.angle'], ['hinge.angle'], 11)
    """

    # the attributes a system sets itself (declarations for type checkers, no values)
    bodies: dict[str, Any]
    joints: dict[str, Any]
    layout: dict[str, Any]

    #: P(q_mid)ᵀ B(q♯)ᵀ = I: the input rows are dual to the null space (the reduced schemes may
    #: take u as the reduced force; False for a CoordinateSystem, whose B is any input matrix)
    inputs_dual_to_null_space = True
    #: successive increments add up, F(w₂, F(w₁, q)) = F(w₁ + w₂, q), so F(θ, q0) is a chart
    additive_increments = False

    # -- sizes and names ----------------------------------------------------------
    @property
    @abc.abstractmethod
    def n(self) -> int:
        """Number of coordinates."""

    @property
    @abc.abstractmethod
    def m(self) -> int:
        """Number of constraint rows (all of them; :attr:`m_active` without redundant loop rows)."""

    @property
    @abc.abstractmethod
    def velocities(self) -> list[str]:
        """Names of the generalised velocities (the columns of P, the increments w)."""

    @property
    @abc.abstractmethod
    def coordinates(self) -> list[str]:
        """Names of the coordinates, ``owner.coordinate``."""

    @property
    @abc.abstractmethod
    def actuated(self) -> list[str]:
        """The generalised velocities that carry a control."""

    @property
    @abc.abstractmethod
    def q0(self) -> np.ndarray:
        """The reference configuration (Φ(q0) = 0)."""

    @property
    @abc.abstractmethod
    def friction(self) -> np.ndarray:
        """Rayleigh friction coefficient per generalised velocity."""

    @property
    def n_velocities(self) -> int:
        """Number of generalised velocities (= dof for a tree)."""
        return len(self.velocities)

    @property
    def dof(self) -> int:
        """Degrees of freedom."""
        return self.n_velocities

    @property
    def actuated_indices(self) -> list[int]:
        """Positions of the actuated velocities among :attr:`velocities`."""
        velocities = list(self.velocities)
        return [velocities.index(a) for a in self.actuated]

    @abc.abstractmethod
    def body_coordinates(self, q: npt.ArrayLike, body: str) -> np.ndarray:
        """The coordinates of one owner (a body or coordinate group) in q."""

    # -- mechanics ---------------------------------------------------------------------
    @abc.abstractmethod
    def potential_gradient(self) -> np.ndarray:
        """∇V (constant: gravity or a constant force)."""

    @abc.abstractmethod
    def angular_momentum(self, q: npt.ArrayLike, v: npt.ArrayLike) -> np.ndarray:
        """L about the origin (NaN where the system has no rigid-body motions)."""

    @abc.abstractmethod
    def linear_momentum(self, v: npt.ArrayLike) -> np.ndarray:
        """p (NaN where the system has no rigid-body motions)."""

    @abc.abstractmethod
    def constraints(self, q: npt.ArrayLike) -> np.ndarray:
        """Φ(q), m rows."""

    @abc.abstractmethod
    def constraint_labels(self) -> list[str]:
        """One label per row of Φ, ``owner[row]``."""

    @abc.abstractmethod
    def constraint_jacobian(self, q: npt.ArrayLike) -> np.ndarray:
        """G(q) = ∂Φ/∂q (m × n)."""

    @abc.abstractmethod
    def null_space(self, q: npt.ArrayLike) -> np.ndarray:
        """P(q) (n × dof) with G(q) P(q) = 0."""

    @abc.abstractmethod
    def control_matrix(self, q_mid: npt.ArrayLike, contravariant: bool = True) -> np.ndarray:
        """B (dof × n): the control u (the applied force) enters the momentum balance as -Bᵀu."""

    @abc.abstractmethod
    def reparametrise(self, w: npt.ArrayLike, q_base: npt.ArrayLike, rotation: str = "exp") -> np.ndarray:
        """q = F(w, q_base), the nodal reparametrisation of the reduced schemes (F(0, q) = q)."""

    @abc.abstractmethod
    def redundant_constraints(self, q: npt.ArrayLike | None = None, tol: float = 1e-9) -> list[str]:
        """Labels of the rows whose gradients depend on earlier ones at q."""

    @abc.abstractmethod
    def validate(self, tol: float = 1e-8) -> dict[str, Any]:
        """Check the formulas (Φ(q0) = 0, G P = 0, …); raise naming the failed check."""

    # -- the loop interface (no loops: every row is active) -------------------------------
    #: labels of the redundant loop rows left out (none without loops)
    dropped_constraints: Sequence[str] = ()
    #: the partition of a loop system's coordinates (None without loops)
    loop_reduction: Any = None

    @property
    def independent(self) -> list[str]:
        """The generalised velocities that parametrise the motion (all of them without loops)."""
        return list(self.velocities)

    @property
    def dependent(self) -> list[str]:
        """The generalised velocities fixed by loop closure (none without loops)."""
        return []

    @property
    def active_rows(self) -> list[int]:
        """Indices of the constraint rows the schemes state."""
        return list(range(self.m))

    @property
    def m_active(self) -> int:
        """Number of active constraint rows."""
        return self.m

    def active_labels(self) -> list[str]:
        """Labels of the active rows."""
        return self.constraint_labels()

    def active_constraints(self, q: npt.ArrayLike) -> np.ndarray:
        """The active rows of Φ(q)."""
        return self.constraints(q)

    def active_jacobian(self, q: npt.ArrayLike) -> np.ndarray:
        """The active rows of G(q)."""
        return self.constraint_jacobian(q)

    def loop_constraints(self, q: npt.ArrayLike) -> np.ndarray:
        """The rows of the loop-closing joints (none without loops)."""
        return np.zeros(0)

    def tree_null_space(self, q: npt.ArrayLike) -> np.ndarray:
        """P of the spanning tree (the null space itself without loops)."""
        return self.null_space(q)
