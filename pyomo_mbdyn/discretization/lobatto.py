"""Step equations of the three-stage Lobatto IIIA–IIIB pair for constrained mechanical systems.

The partitioned Lobatto IIIA–IIIB method with s = 3 stages (Jay 1996, "Symplectic
partitioned Runge–Kutta methods for constrained Hamiltonian systems", SIAM J. Numer.
Anal. 33; the SPARK family; Hairer, Lubich & Wanner, *Geometric Numerical Integration*,
2nd ed., §VII.1.5 and §VI.6.4) for ``M v̇ + ∇V + G(q)ᵀγ - B(q)ᵀu = 0``, Φ(q) = 0,
with the stage abscissae c = (0, ½, 1), the weights b = (⅙, ⅔, ⅙) and

::

    A (IIIA, configurations)   [[0, 0, 0], [5/24, 1/3, -1/24], [1/6, 2/3, 1/6]]
    Â (IIIB, momenta)          [[1/6, -1/6, 0], [1/6, 1/3, 0], [1/6, 5/6, 0]]

It is the variational integrator of the discrete Lagrangian that approximates the
action of quadratic configuration polynomials by Lobatto (Simpson) quadrature
(Marsden & West 2001, §2.6; Ober-Blöbaum & Saake 2015): symplectic and symmetric,
fourth order for q, v and the multipliers' effect (order 2s − 2), the momentum maps of
symmetries exact (a symplectic partitioned Runge–Kutta method conserves every
quadratic invariant qᵀC p), the energy error bounded and O(h⁴) without drift, the
constraints at the nodes on position and velocity level and at the middle stage on
position level.  RATTLE is the s = 2 member.

With the constant mass matrix and the constant ∇V of natural coordinates the stage
momenta can be eliminated (they enter linearly): with the stage forces

    F_s = -∇V - G(Q_s)ᵀΓ_s + B(Q_s)ᵀu_s,   Q_1 = q_k,  Q_2 = q_{k+½},  Q_3 = q_{k+1},

one step ``(q_k, v_k) → (q_{k+1}, v_{k+1})`` is (because Â's last column vanishes,
F_3 reaches v_{k+1} only)

::

    stage_configuration   M((q_{k+½} - q_k)/h - v_k/2) - h (F_1/12 + F_2/24)        (n)
    stage_constraint      Φ(q_{k+½})                                               (m)
    step_configuration    M((q_{k+1} - q_k)/h - v_k) - h (F_1 + 2 F_2)/6           (n)
    constraint            Φ(q_{k+1})                                               (m)
    momentum_balance      M(v_{k+1} - v_k) - h (F_1 + 4 F_2 + F_3)/6               (n)
    hidden_constraint     G(q_{k+1}) v_{k+1}                                       (m)

with the unknowns q_{k+½}, q_{k+1}, v_{k+1} and the stage multipliers Γ_1, Γ_2, Γ_3
(3n + 3m).  Controls act at the stages: ``u_s`` is the control at t_k + c_s h (u is
the applied generalised force, as everywhere in the library); one control per
stage makes the optimal-control discretisation of the same order (its cost
``h Σ_s b_s |u_s|²`` uses the method's own weights; Ober-Blöbaum, Junge & Marsden 2011:
DMOC with a symplectic partitioned Runge–Kutta method).  Closed loops use the active
rows (``system.active_labels()``).  Any backend (floats, Pyomo, CasADi).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from ..mechanics.linalg import as_array, matmul, shared_array
from .common import thesis_controls
from .steps import OneStep

if TYPE_CHECKING:
    import numpy.typing as npt
    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["LOBATTO_A", "LOBATTO_B_HAT", "LOBATTO_WEIGHTS", "LOBATTO_NODES", "lobatto_residuals",
           "stage_work", "LobattoStep", "LOBATTO_STEP"]

#: the Lobatto IIIA matrix (configurations), the IIIB matrix (momenta), the weights and abscissae
LOBATTO_A = np.array([[0.0, 0.0, 0.0], [5 / 24, 1 / 3, -1 / 24], [1 / 6, 2 / 3, 1 / 6]])
LOBATTO_B_HAT = np.array([[1 / 6, -1 / 6, 0.0], [1 / 6, 1 / 3, 0.0], [1 / 6, 5 / 6, 0.0]])
LOBATTO_WEIGHTS = np.array([1 / 6, 2 / 3, 1 / 6])
LOBATTO_NODES = np.array([0.0, 0.5, 1.0])


def stage_force(system: ConstrainedSystem, q: np.ndarray, multipliers: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``F = -∇V - G(q)ᵀΓ + B(q)ᵀu`` at a stage (active constraint rows; u the actuated
    controls, the applied force)."""
    G = system.active_jacobian(q)
    B = system.control_matrix(q)
    u_full = as_array(np.array(thesis_controls(system, u), dtype=object))
    return as_array(-system.potential_gradient() - matmul(G.T, as_array(multipliers)) - matmul(B.T, u_full))


def lobatto_residuals(system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, q_mid: np.ndarray, q1: np.ndarray, v1: np.ndarray, lam: np.ndarray, lam_mid: np.ndarray, lam_end: np.ndarray, u_start: np.ndarray, u_mid: np.ndarray, u_end: np.ndarray) -> dict[str, np.ndarray]:
    """Residuals of one Lobatto IIIA–IIIB (s = 3) step (the module docstring's six groups).

    ``lam``, ``lam_mid``, ``lam_end`` are the stage multipliers Γ_1, Γ_2, Γ_3 (at t_k,
    t_{k+½}, t_{k+1}; ordered as ``system.active_labels()``), ``u_start``, ``u_mid``,
    ``u_end`` the actuated controls at the three stages.

    Examples
    --------
    A ball thrown in gravity: without constraints the step is exact (the
    configuration is quadratic in t), so the residuals vanish at the exact motion.

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import MultibodySystem, PointMass
    >>> fall = MultibodySystem("fall", gravity=(0, -9.81, 0))
    >>> fall.add_bodies(PointMass("ball", 2.0))
    >>> h, v0 = 0.1, np.array([1.0, 2.0, 0.0])
    >>> g = np.array([0.0, -9.81, 0.0])
    >>> at = lambda t: (v0 * t + 0.5 * g * t ** 2, v0 + g * t)
    >>> (q_mid, _), (q1, v1) = at(h / 2), at(h)
    >>> r = lobatto_residuals(fall, h, np.zeros(3), v0, q_mid, q1, v1, [], [], [], [], [], [])
    >>> {name: float(np.abs(rows).max(initial=0)) < 1e-14 for name, rows in r.items()}
    {'stage_configuration': True, 'stage_constraint': True, 'step_configuration': True, 'constraint': True, 'momentum_balance': True, 'hidden_constraint': True}
    """
    q0, v0, q_mid, q1, v1 = (as_array(x) for x in (q0, v0, q_mid, q1, v1))
    M = np.diag(system.mass_matrix())
    F1 = shared_array(stage_force(system, q0, lam, u_start))
    F2 = shared_array(stage_force(system, q_mid, lam_mid, u_mid))
    F3 = stage_force(system, q1, lam_end, u_end)
    inv_h = 1.0 / h
    return {
        "stage_configuration": as_array(M * ((q_mid - q0) * inv_h - v0 * 0.5) - (F1 * (1 / 12) + F2 * (1 / 24)) * h),
        "stage_constraint": system.active_constraints(q_mid),
        "step_configuration": as_array(M * ((q1 - q0) * inv_h - v0) - (F1 + F2 * 2.0) * (h / 6)),
        "constraint": system.active_constraints(q1),
        "momentum_balance": as_array(M * (v1 - v0) - (F1 + F2 * 4.0 + F3) * (h / 6)),
        "hidden_constraint": as_array(matmul(system.active_jacobian(q1), v1)),
    }


def stage_work(system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, q_mid: np.ndarray, q1: np.ndarray, lam: np.ndarray, lam_mid: np.ndarray, u_start: np.ndarray, u_mid: np.ndarray, u_end: np.ndarray) -> Any:
    """The work done on the controls in one step by the method's quadrature,
    ``W = -h Σ_s b_s u_s·B(Q_s)V_s`` (u the applied force),
    with the IIIB stage velocities ``V_s = v_k + h M⁻¹ Σ_j â_sj F_j`` (F_3 does not enter:
    Â's last column vanishes); numbers only.  The column W of the conservation table of a
    Lobatto trajectory: T + V + W then has the scheme's O(h⁴) error (the interval rates
    ν_{k,k+1} of a second-order table would add an O(h²) one).

    Examples
    --------
    A hinged link driven from rest for one step of 0.01 s: the work equals minus the
    energy gained, to the scheme's accuracy (a relative 6e-7; 6e-3 at h = 0.1: O(h⁴)).

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> from pyomo_mbdyn.simulate import simulate
    >>> pendulum = examples.pendulum()
    >>> tr = simulate(pendulum, pendulum.q0, np.zeros(12), 0.01, 1, [[0.5]], scheme="lobatto")
    >>> W = stage_work(pendulum, 0.01, tr.q[0], tr.v[0], tr.q_mid[0], tr.q[1], tr.lam[0], tr.lam_mid[0],
    ...                [0.5], [0.5], [0.5])
    >>> gained = pendulum.kinetic_energy(tr.v[1]) + pendulum.potential_energy(tr.q[1])
    >>> bool(abs(W + gained) < 1e-6 * abs(W))
    True
    """
    M = np.diag(np.asarray(system.mass_matrix(), float))
    q0, v0, q_mid, q1 = (np.asarray(x, float) for x in (q0, v0, q_mid, q1))
    F = [np.asarray(stage_force(system, q, m, u), float)
         for q, m, u in ((q0, lam, u_start), (q_mid, lam_mid, u_mid))]
    work = 0.0
    for s, (q, u) in enumerate(((q0, u_start), (q_mid, u_mid), (q1, u_end))):
        V = v0 + h * (LOBATTO_B_HAT[s, 0] * F[0] + LOBATTO_B_HAT[s, 1] * F[1]) / M
        B = np.asarray(system.control_matrix(q), float)
        rates = B @ V
        work -= LOBATTO_WEIGHTS[s] * float(np.asarray(u, float) @ rates[system.actuated_indices])
    return h * work


class LobattoStep(OneStep):
    """Lobatto IIIA–IIIB (s = 3) for the Newton stepper: unknowns q_{k+½}, q_{k+1}, v_{k+1}
    and the stage multipliers; the interval's control acts at its three stages."""

    unknowns = (("q_mid", "n"), ("q", "n"), ("v", "n"), ("lam", "m"), ("lam_mid", "m"), ("lam_end", "m"))

    def residuals(self, system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, x: Mapping[str, Any], u: np.ndarray, options: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return lobatto_residuals(system, h, q0, v0, x["q_mid"], x["q"], x["v"], x["lam"], x["lam_mid"],
                                 x["lam_end"], u, u, u)

    def work(self, system: ConstrainedSystem, h: Any, q0: np.ndarray, v0: np.ndarray, x: Mapping[str, Any], u: np.ndarray, options: Mapping[str, Any] | None = None) -> Any:
        """The controls' work on the step (:func:`stage_work`), the same control at every stage."""
        return stage_work(system, h, q0, v0, x["q_mid"], x["q"], x["lam"], x["lam_mid"], u, u, u)

    def guess(self, system: ConstrainedSystem, h: Any, q: np.ndarray, v: np.ndarray, previous: Mapping[str, Any] | None, options: Mapping[str, Any]) -> dict[str, Any]:
        x = super().guess(system, h, q, v, previous, options)
        x["q_mid"] = q + 0.5 * h * v
        return x


LOBATTO_STEP = LobattoStep()
