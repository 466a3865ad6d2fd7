"""pendulum: mathematical pendulum swung from horizontal to hanging, minimum effort (thesis E6, Ch. 8.1).

Data (Gerdts, via the thesis): m = 1, l = 1, g = 9.81, H = p²/(2ml²) + V,
V = -m g l sin q (q = 0 horizontal, q = π/2 hanging down); q: 0 → π/2,
p_0 = p_N = 0, T = 3, N = 20; J_d = h Σ ½u², u entering like ∇V (thesis §0).

Schemes (:func:`pyomo_mbdyn.ocp.dnco.parse_scheme`):

* ``dnco`` (default): the indirect H-conserving DNCO with Greenspan's
  quotient, thesis Eqs. 8.20–8.22 (a square system);
* ``direct-midpoint``: the NLP with midpoint state equations (its KKT system
  is the trapezoidal-costate DNCO 8.18);
* ``direct-greenspan``: the NLP with Greenspan state equations;
* ``dnco-midpoint``, ``dnco-gonzalez``, ``direct-gonzalez`` for comparison.

Initial guess: q linear in k, p = 0, u = 0, costates 0.  ``evaluate`` reports
``hamiltonian_drift`` (relative spread of H^d over the intervals; costates
from the duals for the direct schemes) and J_d as ``objective``.
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
    import pyomo.environ as pyo

__all__ = ["build_system", "build", "evaluate", "STEPS", "HORIZON", "SCHEMES", "MODEL"]

MASS, LENGTH, GRAVITY = 1.0, 1.0, 9.81
STEPS, HORIZON = 20, 3.0
Q0, QF = 0.0, np.pi / 2
SCHEMES = ("dnco", "direct-midpoint", "direct-greenspan", "dnco-midpoint", "dnco-gonzalez", "direct-gonzalez")


def build_system() -> HamiltonianSystem:
    """H(q, p) = p²/(2ml²) - m g l sin q."""
    return HamiltonianSystem(1, lambda q: [[MASS * LENGTH**2]],
                             lambda q: -MASS * GRAVITY * LENGTH * elementwise("sin", q[0]),
                             names=["q"], name="pendulum")


@model_build
def build(scheme: str = "dnco", steps: int = STEPS, gradient: str | None = None) -> pyo.ConcreteModel:
    """The pendulum problem ``m`` (``m.dyn`` a DNCOBlock; ``m.dual`` for direct schemes);
    options: ``MODEL.options``."""
    return dnco_model(build_system(), scheme, steps, HORIZON, name="pendulum", default_gradient="greenspan",
                      gradient=gradient, initial_position=[Q0], final_position=[QF])


def evaluate(model: pyo.ConcreteModel) -> dict[str, Any]:
    """``hamiltonian_drift``, ``hamiltonian`` (H^d_{0,1}) and ``objective`` = J_d."""
    from pyomo_mbdyn.ocp.costates import dnco_summary

    return dnco_summary(model.dyn)


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="mathematical pendulum, horizontal to hanging, indirect H-conserving DNCO (thesis E6)",
    build=build,
    options={
        "gradient": "the discrete gradient of the DNCO where the scheme names none ('dnco', 'direct'): "
                    "'gonzalez', 'greenspan' or 'midpoint' (default greenspan)",
    },
    schemes=SCHEMES,
    evaluate=evaluate,
    # no momentum map is conserved (gravity and u act); T + V + W is reported
    conserved_momenta=(),
    # units of the figures: coordinates, controls, energy, time, discrete Hamiltonian H^d
    # (the unit of ½|u|²), the residuals of the state, costate and control equations
    units={"q": "rad", "u": "N m", "energy": "J", "time": "s", "Hd": "(N m)²", "constraint": "each equation's own"},
)
