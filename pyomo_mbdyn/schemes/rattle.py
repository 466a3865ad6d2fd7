"""RATTLE, the constrained Störmer–Verlet scheme, as a Pyomo block.

Hairer, Lubich & Wanner, *Geometric Numerical Integration*, VII.1.4: per
interval ``[t_k, t_{k+1}]``, with the control u_k lumped half to each node,

    M((q_{k+1} - q_k)/h - v_k) + h/2 [∇V + G(q_k)ᵀλ - B(q_k)ᵀu_k] = 0         body[b].momentum_first_half
    Φ(q_{k+1}) = 0                                                      internal_constraint, joint_constraint
    M(v_{k+1} - (q_{k+1} - q_k)/h) + h/2 [∇V + G(q_{k+1})ᵀμ - B(q_{k+1})ᵀu_k] = 0   body[b].momentum_second_half
    G(q_{k+1}) v_{k+1} = 0                                              internal_hidden, joint_hidden

with interval multipliers λ (``body[b].lam``, ``joint[j].lam``) and μ
(``body[b].mu``, ``joint[j].mu``).  Symplectic and symmetric: the momentum
maps of symmetries are exact, the energy error stays bounded (O(h²), no
drift), the constraints hold at position and velocity level at every node.
The equations are :func:`pyomo_mbdyn.discretization.rattle.rattle_residuals`.
"""


from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..discretization.rattle import rattle_residuals
from .configuration_forms import Nodes
from .final_rest import MomentumRest
from .base import MultibodyBlockData
from .options import declare_scheme_block

if TYPE_CHECKING:
    #: the Pyomo block component: made by declare_scheme_block when this module is imported
    RATTLEBlock: type[Any]

__all__ = ["RATTLEBlock", "RATTLEBlockData"]


@declare_scheme_block("RATTLEBlock")
class RATTLEBlockData(MultibodyBlockData):
    """RATTLE (constrained Störmer–Verlet) with the multipliers λ and μ of its two half steps."""

    scheme = "rattle"
    CONFIGURATION_FORM = Nodes
    FINAL_REST = MomentumRest

    def _add_scheme_variables(self):
        self._add_interval_multipliers()  # λ: body[b].lam, joint[j].lam
        self._add_more_multipliers("mu")  # μ: body[b].mu, joint[j].mu

    def _add_discrete_equations(self):
        system = self.system
        residuals = self._residuals(
            "step", self.intervals,
            lambda i: (self.q_array(i), self.v_array(i), self.q_array(i + 1), self.v_array(i + 1),
                       self._lam_array(i), self._multiplier_array("mu", i), self.u_array(i)),
            lambda h, *args: rattle_residuals(system, h, *args))
        self._add_coordinate_equations("momentum_first_half", residuals)
        self._add_coordinate_equations("momentum_second_half", residuals)
        self._add_constraint_equations(residuals)
        # G(q_{k+1}) v_{k+1} = 0, row by row where Φ(q_{k+1}) = 0 is stated
        self._add_constraint_equations(residuals, "hidden_constraint", ("internal_hidden", "joint_hidden"))

    def _extras(self):
        out = super()._extras()
        out["mu"] = self._multiplier_values("mu")
        return out

    def _initialize_scheme(self, trajectory):
        super()._initialize_scheme(trajectory)
        self._initialize_multipliers("mu", trajectory)
