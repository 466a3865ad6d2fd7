"""particle: a unit mass in a central gravitational field, thrusters, minimum effort (thesis E7, Ch. 8.2).

Data: M = I₃, ``V = -1/|q|``, ``H = ½|p|² + V``; q_0 = (1, 0, 0), p_0 = (0, 1, 0),
q_f = (0, 0, 1.5), p_f = (0, -1, 0), T = π, N = 20; J_d = h Σ ½|u|² with u
entering like ∇V.  Uncontrolled, the particle would run the unit semicircle
q = (cos t, sin t, 0) to (-1, 0, 0); the thrusters lift it to the e3 axis.

Schemes (:func:`pyomo_mbdyn.ocp.dnco.parse_scheme`): ``dnco`` (default;
the indirect DNCO with the Gonzalez gradient, H_α = ∇H(x_{k+½}), and the
H-conserving costates 8.49–8.53 with H_β = ∇ₓₓH(x_k)), ``direct-gonzalez``,
``direct-midpoint``, ``dnco-midpoint``.

Initial guess (thesis): the uncontrolled semicircle q = (cos t, sin t, 0),
p = (-sin t, cos t, 0) at the nodes, controls and costates 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pyomo_mbdyn.mechanics.linalg import elementwise
from pyomo_mbdyn.mechanics import HamiltonianSystem
from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.ocp.dnco import dnco_model
from pyomo_mbdyn.models import model_build

if TYPE_CHECKING:
    import numpy.typing as npt
    import pyomo.environ as pyo

__all__ = ["build_system", "build", "evaluate", "semicircle", "STEPS", "HORIZON", "SCHEMES", "MODEL"]

STEPS, HORIZON = 20, np.pi
Q0, P0 = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
QF, PF = np.array([0.0, 0.0, 1.5]), np.array([0.0, -1.0, 0.0])
SCHEMES = ("dnco", "direct-gonzalez", "direct-midpoint", "dnco-midpoint")


def build_system() -> HamiltonianSystem:
    """``H(q, p) = ½|p|² - 1/|q|``."""
    return HamiltonianSystem(3, lambda q: np.eye(3),
                             lambda q: -1.0 / elementwise("sqrt", q[0] * q[0] + q[1] * q[1] + q[2] * q[2]),
                             names=["x", "y", "z"], name="particle")


def semicircle(t: npt.ArrayLike) -> np.ndarray:
    """Node states (len(t), 6) of the uncontrolled unit circle."""
    t = np.asarray(t, dtype=float)
    zero = np.zeros_like(t)
    return np.column_stack([np.cos(t), np.sin(t), zero, -np.sin(t), np.cos(t), zero])


@model_build
def build(scheme: str = "dnco", steps: int = STEPS, gradient: str | None = None) -> pyo.ConcreteModel:
    """The particle problem ``m`` (``m.dyn`` a DNCOBlock), started from the semicircle;
    options: ``MODEL.options``."""
    m = dnco_model(build_system(), scheme, steps, HORIZON, name="particle", default_gradient="gonzalez",
                   gradient=gradient,
                   initial_position=Q0, initial_momentum=P0, final_position=QF, final_momentum=PF)
    m.dyn.initialize_from(x=semicircle(m.dyn.h * np.arange(steps + 1)))
    return m


def evaluate(model: pyo.ConcreteModel) -> dict[str, Any]:
    """``hamiltonian_drift``, ``hamiltonian`` (H^d_{0,1}) and ``objective`` = J_d."""
    from pyomo_mbdyn.ocp.costates import dnco_summary

    return dnco_summary(model.dyn)


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="particle in a central gravitational field, indirect H-conserving DNCO (thesis E7)",
    build=build,
    options={
        "gradient": "the discrete gradient of the DNCO where the scheme names none ('dnco', 'direct'): "
                    "'gonzalez', 'greenspan' or 'midpoint' (default gonzalez)",
    },
    schemes=SCHEMES,
    evaluate=evaluate,
    # thrusters act: angular momentum is not conserved; T + V + W is reported
    conserved_momenta=(),
    # units of the figures: unit mass in the field V = -1/|q|, the thesis's example is nondimensional
    units={"q": "1", "u": "1", "energy": "1", "time": "1", "Hd": "1", "constraint": "1"},
)
