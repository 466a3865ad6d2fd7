"""The three-stage Lobatto IIIA–IIIB pair, a fourth-order variational integrator, as a Pyomo block.

Per interval ``[t_k, t_{k+1}]`` with the middle-stage configuration q_{k+½}, the
stage multipliers Γ_1, Γ_2, Γ_3 and the stage controls u_1, u_2, u_3 at
t_k, t_{k+½}, t_{k+1} (F_s = -∇V - G(Q_s)ᵀΓ_s + B(Q_s)ᵀu_s, Q = (q_k, q_{k+½}, q_{k+1})):

    M((q_{k+½} - q_k)/h - v_k/2) = h (F_1/12 + F_2/24)          body[b].stage_configuration
    Φ(q_{k+½}) = 0                                            internal_stage, joint_stage
    M((q_{k+1} - q_k)/h - v_k) = h (F_1 + 2 F_2)/6               body[b].step_configuration
    Φ(q_{k+1}) = 0                                            internal_constraint, joint_constraint
    M(v_{k+1} - v_k) = h (F_1 + 4 F_2 + F_3)/6                    body[b].momentum_balance
    G(q_{k+1}) v_{k+1} = 0                                    internal_hidden, joint_hidden

with ``body[b].q_mid`` (q_{k+½}), the multipliers ``lam``, ``lam_mid``, ``lam_end`` on
``body[b]`` and ``joint[j]``, and the controls ``u_start``, ``u`` (the middle stage) and
``u_end``.  Fourth order; symplectic, so the momentum maps of symmetries are exact and the
energy error stays bounded (O(h⁴), no drift); the constraints hold at every node on position
and velocity level.  The control effort is ``h Σ_k Σ_s b_s |u_s|²`` with the weights
b = (⅙, ⅔, ⅙) (Simpson's rule; the record's ``stages``, the block's ``control_stages``).
The equations are :func:`pyomo_mbdyn.discretization.lobatto.lobatto_residuals`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyomo.environ as pyo

from ..discretization.lobatto import lobatto_residuals, stage_work
from .base import MultibodyBlockData
from .configuration_forms import Nodes
from .final_rest import MomentumRest
from .options import declare_scheme_block

if TYPE_CHECKING:
    #: the Pyomo block component: made by declare_scheme_block when this module is imported
    LobattoBlock: type[Any]

__all__ = ["LobattoBlock", "LobattoBlockData"]

#: the stage multipliers by name: Γ_1 (``lam``, the base's interval multipliers), Γ_2, Γ_3
STAGE_MULTIPLIERS = ("lam", "lam_mid", "lam_end")


@declare_scheme_block("LobattoBlock")
class LobattoBlockData(MultibodyBlockData):
    """Lobatto IIIA–IIIB with three stages: fourth order, symplectic, controls at the stages.

    Examples
    --------
    A hinged link driven by a torque, a fixed control at every stage: the block's
    square system is the Newton stepper's step.

    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.mechanics import examples
    >>> from pyomo_mbdyn.schemes import scheme_block
    >>> from pyomo_mbdyn.simulate import simulate
    >>> pendulum = examples.pendulum()
    >>> m = pyo.ConcreteModel()
    >>> m.dyn = scheme_block("lobatto", system=pendulum, steps=4, horizon=0.4, controls=[[0.5]] * 4)
    >>> m.dyn.control_stages
    (('u_start', 0.0, 0.16666666666666666), ('u', 0.5, 0.6666666666666666), ('u_end', 1.0, 0.16666666666666666))
    >>> m.dyn.initialize_from(simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 4, [[0.5]] * 4, scheme="bem"))
    >>> result = pyo.SolverFactory("casadi_ipopt").solve(m)
    >>> stepped = simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 4, [[0.5]] * 4, scheme="lobatto")
    >>> bool(np.abs(m.dyn.trajectory().q - stepped.q).max() < 1e-9)
    True
    """

    scheme = "lobatto"
    CONFIGURATION_FORM = Nodes
    FINAL_REST = MomentumRest

    def _add_scheme_variables(self):
        self._add_interval_multipliers()  # Γ_1: body[b].lam, joint[j].lam
        for stage in STAGE_MULTIPLIERS[1:]:  # Γ_2, Γ_3
            self._add_more_multipliers(stage)
        self._add_interval_coordinates("q_mid")

    def _add_discrete_equations(self):
        system = self.system
        residuals = self._residuals(
            "step", self.intervals,
            lambda i: (self.q_array(i), self.v_array(i), self._interval_coordinate_array("q_mid", i),
                       self.q_array(i + 1), self.v_array(i + 1), *(self._multiplier_array(s, i) for s in STAGE_MULTIPLIERS),
                       *self.stage_control_arrays(i)),
            lambda h, *args: lobatto_residuals(system, h, *args))
        self._add_coordinate_equations("stage_configuration", residuals)
        self._add_coordinate_equations("step_configuration", residuals)
        self._add_coordinate_equations("momentum_balance", residuals)
        self._add_constraint_equations(residuals, "stage_constraint", ("internal_stage", "joint_stage"))
        self._add_constraint_equations(residuals)
        self._add_constraint_equations(residuals, "hidden_constraint", ("internal_hidden", "joint_hidden"))

    def _extras(self):
        out = super()._extras()
        for stage in STAGE_MULTIPLIERS[1:]:
            out[stage] = self._multiplier_values(stage)
        out["q_mid"] = np.array([[pyo.value(x) for x in self._interval_coordinate_array("q_mid", i)]
                                 for i in self.intervals])
        # the controls' work per interval by the scheme's quadrature (the conservation table's W)
        q, v = self.configuration_values(), self.velocity_values()
        stages = [[[pyo.value(x) for x in u] for u in self.stage_control_arrays(i)] for i in self.intervals]
        out["work"] = np.array([stage_work(self.system, self.step_length, q[i], v[i], out["q_mid"][i], q[i + 1],
                                           out["lam"][i], out["lam_mid"][i], *stages[i]) for i in self.intervals])
        return out

    def _initialize_scheme(self, trajectory):
        """The stage configurations from the guess's own (a Lobatto trajectory) or the
        midpoints of its nodes; the stage multipliers from the guess's where it has them."""
        super()._initialize_scheme(trajectory)
        self._initialize_interval_coordinates("q_mid", trajectory, trajectory.q)
        for stage in STAGE_MULTIPLIERS[1:]:
            self._initialize_multipliers(stage, trajectory)
