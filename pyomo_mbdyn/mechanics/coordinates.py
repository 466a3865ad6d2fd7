"""Mechanical systems given directly in redundant coordinates (thesis §2.2).

Not every system of the papers is a set of rigid bodies and standard joints:
the overhead crane (thesis E5) has a winch angle β and a rope whose length
r β enters the constraint ``(x - s)² + z² - r² β² = 0``.  A
:class:`CoordinateSystem` states such a system by its formulas,

    M v̇ + ∇V + G(q)ᵀ γ - Bᵀ u = 0,    Φ(q) = 0,

with a constant diagonal mass matrix, a linear potential ``V = -f·q``
(constant generalised force f, e.g. gravity), constraints Φ with their
Jacobian G and a null-space matrix P (G P = 0), constant input rows B for
the actuated coordinates, and the nodal reparametrisation ``q = F(w, q_base)``
of the reduced scheme.  It offers the interface of
:class:`~pyomo_mbdyn.mechanics.MultibodySystem` that the schemes use, so the
bem, rem and gc blocks, the stepper and the diagnostics run on it unchanged.

The energy-momentum property of the BEM needs ``G(q_{k+½})·(q_{k+1} - q_k) =
Φ(q_{k+1}) - Φ(q_k)``: exact when Φ is quadratic, as the crane's is
(checked by :meth:`CoordinateSystem.validate`).  Angular and linear momentum
have no meaning here; the diagnostics report them as NaN.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping, NoReturn, Sequence

import numpy as np

from ..errors import AssemblyError, ConfigurationError
from .linalg import as_array, dependent_rows
from .numeric import check_numeric
from .protocol import ConstrainedSystem

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["CoordinateSystem", "CoordinateGroup", "ConstraintGroup"]


class CoordinateGroup:
    """Named coordinates with their masses: the block ``dyn.body[name]`` of a scheme."""

    has_orientation = False
    n_internal = 0

    def __init__(self, name: str, coordinates: Sequence[str], masses: npt.ArrayLike) -> None:
        self.name = name
        self.coordinate_names = tuple(coordinates)
        check_numeric(masses, f"coordinate group {name!r}: masses", "positive numbers")
        self.masses = np.asarray(masses, float).reshape(-1)
        if len(self.coordinate_names) != self.masses.size or not self.coordinate_names:
            raise ConfigurationError(f"coordinate group {name!r}: {len(self.coordinate_names)} "
                                     f"coordinates but {self.masses.size} masses")
        bad = [(c, m) for c, m in zip(self.coordinate_names, self.masses) if not m > 0]
        if bad:
            raise ConfigurationError(f"coordinate group {name!r}: masses must be positive, got {bad}")
        self.n_coordinates = len(self.coordinate_names)

    def __repr__(self):
        return f"CoordinateGroup({self.name!r}, {self.coordinate_names})"


class ConstraintGroup:
    """Named constraint rows: the block ``dyn.joint[name]`` of a scheme."""

    kind = "constraint"
    dofs = ()

    def __init__(self, name: str, n_constraints: int) -> None:
        self.name, self.n_constraints = name, int(n_constraints)

    def __repr__(self):
        return f"ConstraintGroup({self.name!r}, {self.n_constraints} rows)"


class CoordinateSystem(ConstrainedSystem):
    """A holonomic system in redundant coordinates, given by its formulas.

    Parameters
    ----------
    name : str
    groups : dict  name → (coordinate names, masses)
        The coordinates q, in order, grouped by the thing they belong to.
    constraints : dict  name → (Φ, G)
        ``Φ(q)`` returns the rows of that group, ``G(q)`` their Jacobian
        (rows × n); both over floats, Pyomo expressions or CasADi symbols.
    velocities : sequence of str
        Names of the generalised velocities (the columns of P, the increments w).
    null_space : callable ``q → P`` (n × dof) with ``G(q) P(q) = 0``.
    reparametrise : callable ``(w, q_base) → q``
        The nodal reparametrisation of the reduced scheme; ``w = 0`` returns
        ``q_base``.  With ``additive=True`` successive increments add up
        (``F(w₂, F(w₁, q)) = F(w₁ + w₂, q)``), so ``F(θ, q0)`` is a chart.
    inputs : dict  velocity name → n-vector
        Constant input rows: the control ``u_a`` applies the generalised force
        ``B_aᵀ u_a`` (``Bᵀu`` is the applied force, as for every system).
    force : n-vector, optional
        Constant generalised force f; ``V(q) = -f·q``.
    q0 : n-vector
        Reference configuration (``Φ(q0) = 0``).
    drawing : callable ``q → (points, segments)``, optional
        How to draw a configuration (numbers): ``points`` maps names to positions in
        space (m), ``segments`` lists pairs of point names joined by a line (a rope, a
        rail).  With it the snapshots, ``run --plot`` and the interactive HTML view draw
        the system (the crane: its trolley, load and rope); without it the system has
        nothing to draw in space.
    """

    #: P(q_mid)ᵀ Bᵀ ≠ I in general: the reduced scheme must form Pᵀ Bᵀ u
    inputs_dual_to_null_space = False

    def __init__(self, name: str, groups: Mapping[str, tuple[Sequence[str], npt.ArrayLike]], constraints: Mapping[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]], velocities: Sequence[str], null_space: Callable[[Any], Any], reparametrise: Callable[[np.ndarray, np.ndarray], Any], inputs: Mapping[str, npt.ArrayLike],
                 q0: npt.ArrayLike, force: npt.ArrayLike | None = None, additive: bool = False, drawing: Callable[[np.ndarray], tuple[dict[str, Any], list[tuple[str, str]]]] | None = None) -> None:
        self.name = name
        self.bodies = {g: CoordinateGroup(g, *spec) for g, spec in groups.items()}
        self._constraints = dict(constraints)
        self.joints = {}
        for g, (phi, _) in self._constraints.items():
            rows = len(as_array(phi(np.asarray(q0, float))))
            self.joints[g] = ConstraintGroup(g, rows)
        self._velocities = tuple(velocities)
        self._null_space = null_space
        self._reparametrise = reparametrise
        self.additive_increments = bool(additive)
        unknown = [a for a in inputs if a not in self._velocities]
        if unknown:
            raise ConfigurationError(f"{self}: inputs on unknown velocities {unknown}; "
                                     f"velocities are {list(self._velocities)}")
        self._inputs = {a: np.asarray(row, float).reshape(-1) for a, row in inputs.items()}
        self._q0 = np.asarray(q0, float).reshape(-1)
        n = self.n
        if self._q0.shape != (n,):
            raise ConfigurationError(f"{self}: q0 must have {n} entries, got {self._q0.size}")
        for a, row in self._inputs.items():
            if row.shape != (n,):
                raise ConfigurationError(f"{self}: input row {a!r} must have {n} entries, got {row.size}")
        self._force = np.zeros(n) if force is None else np.asarray(force, float).reshape(-1)
        if self._force.shape != (n,):
            raise ConfigurationError(f"{self}: force must have {n} entries, got {self._force.size}")
        self._mass = np.concatenate([b.masses for b in self.bodies.values()])
        self.drawing = self._checked_drawing(drawing)
        self.layout = {"loop_joints": [], "roots": [], "order": list(self.bodies)}

    def __repr__(self):
        return f"CoordinateSystem({self.name!r})"

    def _checked_drawing(self, drawing):
        """``drawing`` as given, after one call at q0: points of 3 finite numbers, segments
        between named points; a clear error otherwise."""
        if drawing is None:
            return None
        if not callable(drawing):
            raise ConfigurationError(f"{self}: drawing must be a callable q → (points, segments), got {drawing!r}")
        try:
            points, segments = drawing(self._q0.copy())
        except (TypeError, ValueError) as err:
            raise ConfigurationError(f"{self}: drawing(q0) must return (points, segments): {err}") from None
        if not isinstance(points, dict) or not points:
            raise ConfigurationError(f"{self}: drawing(q0) must give a dict of named points, got {points!r}")
        for name, xyz in points.items():
            xyz = np.asarray(xyz, dtype=float)
            if xyz.shape != (3,) or not np.all(np.isfinite(xyz)):
                raise ConfigurationError(f"{self}: drawing point {name!r} must be 3 finite numbers, got {xyz!r}")
        for pair in segments:
            if len(pair) != 2 or any(end not in points for end in pair):
                raise ConfigurationError(f"{self}: drawing segment {pair!r} must join two of the points "
                                         f"{list(points)}")
        return drawing

    # -- sizes and names --------------------------------------------------------
    @property
    def n(self) -> int:
        return sum(b.n_coordinates for b in self.bodies.values())

    @property
    def m(self) -> int:
        return sum(j.n_constraints for j in self.joints.values())

    @property
    def velocities(self) -> list[str]:
        return list(self._velocities)

    @property
    def coordinates(self) -> list[str]:
        return [f"{g}.{c}" for g, b in self.bodies.items() for c in b.coordinate_names]

    @property
    def actuated(self) -> list[str]:
        return [a for a in self._velocities if a in self._inputs]

    @property
    def friction(self) -> np.ndarray:
        return np.zeros(self.n_velocities)

    @property
    def q0(self) -> np.ndarray:
        return self._q0.copy()

    def body_coordinates(self, q: npt.ArrayLike, body: str) -> np.ndarray:
        start = 0
        for g, b in self.bodies.items():
            if g == body:
                return as_array(q)[start:start + b.n_coordinates]
            start += b.n_coordinates
        raise ConfigurationError(f"{self}: no coordinate group {body!r}")

    # -- mechanics ----------------------------------------------------------------
    def mass_matrix(self) -> np.ndarray:
        return np.diag(self._mass)

    def potential_gradient(self) -> np.ndarray:
        return -self._force.copy()

    def potential_energy(self, q: npt.ArrayLike) -> float:
        return -float(self._force @ np.asarray(q, float))

    def kinetic_energy(self, v: npt.ArrayLike) -> float:
        v = np.asarray(v, float)
        return 0.5 * float(v @ (self._mass * v))

    def angular_momentum(self, q: npt.ArrayLike, v: npt.ArrayLike) -> np.ndarray:
        return np.full(3, np.nan)

    def linear_momentum(self, v: npt.ArrayLike) -> np.ndarray:
        return np.full(3, np.nan)

    def constraints(self, q: npt.ArrayLike) -> np.ndarray:
        return np.concatenate([as_array(phi(q)) for phi, _ in self._constraints.values()])

    def constraint_labels(self) -> list[str]:
        return [f"{g}[{r}]" for g, j in self.joints.items() for r in range(j.n_constraints)]

    def constraint_jacobian(self, q: npt.ArrayLike) -> np.ndarray:
        rows = [np.asarray(jac(q), dtype=object).reshape(-1, self.n) for _, jac in self._constraints.values()]
        return np.vstack(rows)

    def null_space(self, q: npt.ArrayLike) -> np.ndarray:
        return np.asarray(self._null_space(q), dtype=object).reshape(self.n, self.n_velocities)

    def control_matrix(self, q_mid: npt.ArrayLike | None = None, contravariant: bool = True) -> np.ndarray:
        """B (dof × n): the input rows on the actuated velocities, zero rows elsewhere."""
        B = np.zeros((self.n_velocities, self.n))
        for a, row in self._inputs.items():
            B[self._velocities.index(a)] = row
        return B

    def reparametrise(self, w: npt.ArrayLike, q_base: npt.ArrayLike, rotation: str = "exp") -> np.ndarray:
        w = as_array(w)
        if len(w) != self.n_velocities:
            raise ConfigurationError(f"{self}: expected {self.n_velocities} increments, got {len(w)}")
        return as_array(self._reparametrise(w, as_array(q_base)))

    def actuate(self, *args: Any, **kwds: Any) -> NoReturn:
        raise ConfigurationError(f"{self}: inputs are declared with inputs= at construction")

    def redundant_constraints(self, q: npt.ArrayLike | None = None, tol: float = 1e-9) -> list[str]:
        """Labels of constraints whose gradients depend on earlier ones at q."""
        q = self.q0 if q is None else q
        labels = self.constraint_labels()
        return [labels[i] for i in dependent_rows(self.constraint_jacobian(q), tol)]

    # -- checks ---------------------------------------------------------------
    def validate(self, tol: float = 1e-8) -> dict[str, Any]:
        """Check the formulas at q0 and at a perturbed pair of configurations.

        Φ(q0) = 0; G equals the finite-difference Jacobian of Φ; G P = 0 and
        rank P = dof on the manifold; G(q_mid)(q₁ - q₀) = Φ(q₁) - Φ(q₀)
        (quadratic constraints, needed for energy consistency); F(0, q0) = q0
        and Φ(F(w, q0)) = 0.  Raises :class:`AssemblyError` naming the check.
        """
        q0 = self.q0
        phi = np.asarray(self.constraints(q0), float)
        if np.abs(phi).max(initial=0.0) > tol:
            raise AssemblyError(f"{self}: Φ(q0) = {phi.tolist()} ≠ 0")
        G = np.asarray(self.constraint_jacobian(q0), float)
        eps = 1e-6
        fd = np.array([(np.asarray(self.constraints(q0 + eps * e), float)
                        - np.asarray(self.constraints(q0 - eps * e), float)) / (2 * eps)
                       for e in np.eye(self.n)]).T
        if np.abs(fd - G).max() > 1e-5 * max(1.0, np.abs(G).max()):
            raise AssemblyError(f"{self}: the constraint Jacobian G disagrees with Φ "
                                f"(max difference {np.abs(fd - G).max():.2e})")
        rng = np.random.default_rng(0)
        w = 0.1 * rng.standard_normal(self.n_velocities)
        if np.abs(np.asarray(self.reparametrise(np.zeros(self.n_velocities), q0), float) - q0).max() > tol:
            raise AssemblyError(f"{self}: F(0, q0) ≠ q0")
        q1 = np.asarray(self.reparametrise(w, q0), float)
        if np.abs(np.asarray(self.constraints(q1), float)).max() > tol:
            raise AssemblyError(f"{self}: the reparametrisation leaves the constraint manifold")
        for q in (q0, q1):
            P = np.asarray(self.null_space(q), float)
            GP = np.asarray(self.constraint_jacobian(q), float) @ P
            if np.abs(GP).max() > tol * max(1.0, np.abs(P).max()):
                raise AssemblyError(f"{self}: G P ≠ 0 (max {np.abs(GP).max():.2e})")
            if np.linalg.matrix_rank(P) != self.n_velocities:
                raise AssemblyError(f"{self}: P has rank {np.linalg.matrix_rank(P)} < dof {self.n_velocities}")
        qa, qb = (q0 + 0.1 * rng.standard_normal(self.n) for _ in range(2))
        lhs = np.asarray(self.constraint_jacobian(0.5 * (qa + qb)), float) @ (qb - qa)
        rhs = np.asarray(self.constraints(qb), float) - np.asarray(self.constraints(qa), float)
        if np.abs(lhs - rhs).max() > 1e-9 * max(1.0, np.abs(rhs).max()):
            raise AssemblyError(f"{self}: G(q_mid)Δq ≠ ΔΦ — the constraints are not quadratic; "
                                "the energy-momentum schemes would not be energy consistent")
        return {"n": self.n, "m": self.m, "dof": self.dof,
                "redundant_constraints": self.redundant_constraints(q0), "loop_joints": []}
