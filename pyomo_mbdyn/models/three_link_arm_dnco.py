"""three-link-arm, indirect: the planar three-link arm in joint angles as a DNCO (thesis E3, Ch. 8.2).

Joint angles α = (α₁, α₂, α₃): α₁ absolute, α₂ and α₃ relative; the absolute
link angles are θ = (α₁, α₁ + α₂, α₁ + α₂ + α₃).  Table 6.1 (m, E1, E2, l):
(30, 1.225, 143.3027, 7), (25, 1.0208, 88.0208, 6), (10, 0.4083, 60.2083, 8);
in planar motion only E = E1 + E2 enters, as the rotational inertia of each
link about its centre of mass.  The links are slender and planar, centres of
mass at mid-length: c_i = Σ_{j<i} l_j e(θ_j) + ½ l_i e(θ_i), e(θ) = (cos θ, sin θ).
Gravity g = 9.81 along -e2: V = Σ m_i g c_i·e2.

Mass matrix: with a_ij = l_j (j < i), ½ l_i (j = i), 0 (j > i),

    M^θ_jk = Σ_i m_i a_ij a_ik cos(θ_j - θ_k) + δ_jk E_j,   M(α) = Sᵀ M^θ S,

S the lower-triangular matrix of ones (θ = S α); M depends on α₂, α₃ only.

Problem: α_0 = (π/2, -π/2, π/2) (link 1 up, link 2 horizontal, link 3 up),
α_f = (π/2, 0, 0) (all up), p_0 = p_f = 0, T = 3, N = 40, J_d = h Σ ½|u|²
(u the joint torques with the sign of ∇V).  Scheme ``dnco``: Gonzalez state
equations and H-conserving costates (8.49–8.53); ``direct-gonzalez``,
``direct-midpoint`` for comparison.

Initial guess (:func:`rest_to_rest_guess`): α on the quintic rest-to-rest
profile, p = M(α)α̇, u from the momentum balance, costates 0; with
``warm_start=True`` (default for ``dnco``) the direct Gonzalez transcription is
solved first and its states, controls and dual costates start the square
system.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from pyomo_mbdyn.mechanics.linalg import elementwise
from pyomo_mbdyn.mechanics import HamiltonianSystem
from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.ocp.dnco import dnco_model
from pyomo_mbdyn.models import model_build

if TYPE_CHECKING:
    import pyomo.environ as pyo

__all__ = ["build_system", "build", "evaluate", "mass_matrix", "potential", "centres_of_mass", "rest_to_rest_guess", "STEPS", "HORIZON", "ALPHA0", "ALPHAF", "LINKS", "MODEL"]

STEPS, HORIZON, GRAVITY = 40, 3.0, 9.81
#: Table 6.1: mass, E1, E2, length
LINKS = ((30.0, 1.225, 143.3027, 7.0), (25.0, 1.0208, 88.0208, 6.0), (10.0, 0.4083, 60.2083, 8.0))
ALPHA0 = np.array([np.pi / 2, -np.pi / 2, np.pi / 2])
ALPHAF = np.array([np.pi / 2, 0.0, 0.0])


def _absolute(alpha):
    return [alpha[0], alpha[0] + alpha[1], alpha[0] + alpha[1] + alpha[2]]


def _lever(i, j):
    """a_ij: the coefficient of ė(θ_j) in the velocity of centre i."""
    return LINKS[j][3] if j < i else (0.5 * LINKS[i][3] if j == i else 0.0)


def mass_matrix(alpha: Any) -> list[list[Any]]:
    """M(α) (3 × 3) in joint angles, any backend."""
    theta = _absolute(alpha)
    Mt = [[0.0] * 3 for _ in range(3)]
    for j in range(3):
        for k in range(3):
            coefficient = sum(LINKS[i][0] * _lever(i, j) * _lever(i, k) for i in range(3))
            Mt[j][k] = coefficient * (1.0 if j == k else elementwise("cos", theta[j] - theta[k]))
        Mt[j][j] = Mt[j][j] + LINKS[j][1] + LINKS[j][2]
    # M = Sᵀ M^θ S with S lower-triangular ones: M_ab = Σ_{j≥a, k≥b} M^θ_jk
    return [[sum(Mt[j][k] for j in range(a, 3) for k in range(b, 3)) for b in range(3)] for a in range(3)]


def centres_of_mass(alpha: Any) -> list[Any]:
    """Centres of mass c_i (3 × 2), any backend."""
    theta = _absolute(alpha)
    out, tip = [], [0.0, 0.0]
    for i, (_, _, _, length) in enumerate(LINKS):
        c, s = elementwise("cos", theta[i]), elementwise("sin", theta[i])
        out.append([tip[0] + 0.5 * length * c, tip[1] + 0.5 * length * s])
        tip = [tip[0] + length * c, tip[1] + length * s]
    return out


def potential(alpha: Any) -> Any:
    """V = Σ m_i g c_i·e2."""
    return sum(LINKS[i][0] * GRAVITY * c[1] for i, c in enumerate(centres_of_mass(alpha)))


def build_system() -> HamiltonianSystem:
    """The arm in joint angles (shoulder, elbow, wrist) as a HamiltonianSystem with M(α) and V(α)."""
    return HamiltonianSystem(3, mass_matrix, potential, names=["shoulder", "elbow", "wrist"],
                             name="three-link-arm")


def rest_to_rest_guess(system: HamiltonianSystem, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Node states (N+1, 6) and controls (N, 3) of the quintic rest-to-rest profile.

    α_k = α_0 + s(t_k/T)(α_f - α_0), s(τ) = τ³(10 - 15τ + 6τ²); p_k = M(α_k) α̇_k;
    u from the momentum balance of the Gonzalez state equations, so only the
    kinematic rows are violated (by O(h²)).
    """
    from pyomo_mbdyn.discretization.hamiltonian import discrete_gradient

    h = HORIZON / steps
    tau = np.arange(steps + 1) / steps
    s = tau**3 * (10 - 15 * tau + 6 * tau**2)
    ds = 30 * tau**2 * (1 - tau) ** 2 / HORIZON
    alpha = ALPHA0 + np.outer(s, ALPHAF - ALPHA0)
    rate = np.outer(ds, ALPHAF - ALPHA0)
    p = np.array([np.array(mass_matrix(a), dtype=float) @ r for a, r in zip(alpha, rate)])
    x = np.hstack([alpha, p])
    u = np.array([-(x[k + 1, 3:] - x[k, 3:]) / h - discrete_gradient(system, x[k], x[k + 1])[:3]
                  for k in range(steps)])
    return x, u


@model_build
def build(scheme: str = "dnco", steps: int = STEPS, warm_start: bool | None = None,
          gradient: str | None = None) -> pyo.ConcreteModel:
    """The arm problem ``m`` (``m.dyn`` a DNCOBlock), started from :func:`rest_to_rest_guess`.

    ``warm_start`` (default: True for the indirect schemes) starts the square
    system from the solved direct Gonzalez transcription (states, controls,
    costates from its duals); it needs a solver (:func:`pyomo_mbdyn.solvers.get_solver`).
    """
    system = build_system()
    options: dict[str, Any] = dict(initial_position=ALPHA0, final_position=ALPHAF)
    m = dnco_model(system, scheme, steps, HORIZON, name="three-link-arm", gradient=gradient, **options)
    x, u = rest_to_rest_guess(system, steps)
    m.dyn.initialize_from(x=x, u=u)
    if warm_start is None:
        warm_start = m.dyn.config.method == "indirect"
    if warm_start:
        from pyomo_mbdyn.ocp.costates import costates_from_duals
        from pyomo_mbdyn.solvers import get_solver

        guess = dnco_model(system, "direct-gonzalez", steps, HORIZON, **options)
        guess.dyn.initialize_from(x=x, u=u)
        get_solver(model=guess).solve(guess)
        trajectory = guess.dyn.trajectory()
        x, u = np.hstack([trajectory.q, trajectory.p]), trajectory.u
        m.dyn.initialize_from(x=x, u=u, lam=costates_from_duals(guess.dyn) if hasattr(m.dyn, "lam_q") else None)
    return m


def evaluate(model: pyo.ConcreteModel) -> dict[str, Any]:
    """``hamiltonian_drift``, ``hamiltonian`` (H^d_{0,1}) and ``objective`` = J_d."""
    from pyomo_mbdyn.ocp.costates import dnco_summary

    return dnco_summary(model.dyn)


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="planar three-link arm in joint angles, indirect H-conserving DNCO (thesis E3, Ch. 8)",
    build=build,
    options={
        "gradient": "the discrete gradient of the DNCO where the scheme names none ('dnco', 'direct'): "
                    "'gonzalez', 'greenspan' or 'midpoint' (default gonzalez)",
        "warm_start": "start the indirect square system from the solved direct transcription (default: true for "
                      "the indirect schemes)",
    },
    evaluate=evaluate,
    conserved_momenta=(),
)
