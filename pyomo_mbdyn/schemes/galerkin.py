"""The energy–momentum time finite element cG(2), fourth order, as a Pyomo block.

Per interval ``[t_k, t_{k+1}]`` with q, v quadratic through the nodes and the middle
values ``body[b].q_mid``, ``body[b].v_mid`` (t_{k+½}), the multipliers γ_1, γ_2
(``lam``, ``lam_late`` on ``body[b]`` and ``joint[j]``) and the controls u_1, u_2
(``u``, ``u_late``) at the two Gauss points τ_g = ½ ∓ √3/6:

    q̇(τ_g) = v(τ_g)                                            body[b].kinematics_1, kinematics_2
    M v̇(τ_g) + ∇V + G(q(τ_g))ᵀγ_g - B(q(τ_g))ᵀu_g = 0           body[b].momentum_1, momentum_2
    Φ(q_{k+1}) = 0                                             internal_constraint, joint_constraint
    G(q(τ_2)) q̇(τ_2) - G(q(τ_1)) q̇(τ_1) = 0                    internal_rate, joint_rate

Energy (T + V + W, W by the Gauss rule), momentum maps and the constraints at the nodes
exact; fourth order for q and the generalised velocities; the node velocities keep an
O(h²) component normal to the constraint manifold.  The control effort is
``h Σ_k Σ_g ½ |u_g|²`` (the Gauss weights).  The equations are
:func:`pyomo_mbdyn.discretization.galerkin.galerkin_residuals`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyomo.environ as pyo

from ..discretization.galerkin import galerkin_residuals, galerkin_work
from .base import MultibodyBlockData
from .configuration_forms import Nodes
from .final_rest import MomentumRest
from .options import declare_scheme_block

if TYPE_CHECKING:
    #: the Pyomo block component: made by declare_scheme_block when this module is imported
    GalerkinBlock: type[Any]

__all__ = ["GalerkinBlock", "GalerkinBlockData"]


@declare_scheme_block("GalerkinBlock")
class GalerkinBlockData(MultibodyBlockData):
    """cG(2), the fourth-order energy–momentum time finite element, controls at the Gauss points.

    Examples
    --------
    A hinged link driven by a torque of 0.5 N m: the block's square system (solved to
    tol 1e-12) is the Newton stepper's step, and T + V + W is constant to round-off.

    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.mechanics import examples
    >>> from pyomo_mbdyn.schemes import scheme_block
    >>> from pyomo_mbdyn.simulate import simulate
    >>> pendulum = examples.pendulum()
    >>> m = pyo.ConcreteModel()
    >>> m.dyn = scheme_block("cg2", system=pendulum, steps=4, horizon=0.4, controls=[[0.5]] * 4)
    >>> [name for name, c, b in m.dyn.control_stages]
    ['u', 'u_late']
    >>> m.dyn.initialize_from(simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 4, [[0.5]] * 4, scheme="bem"))
    >>> result = pyo.SolverFactory("casadi_ipopt").solve(m, options={"tol": 1e-12})
    >>> stepped = simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 4, [[0.5]] * 4, scheme="cg2")
    >>> bool(np.abs(m.dyn.trajectory().q - stepped.q).max() < 1e-9)
    True
    >>> bool(np.ptp(m.dyn.diagnostics()["E"]) < 1e-10)
    True
    """

    scheme = "cg2"
    CONFIGURATION_FORM = Nodes
    FINAL_REST = MomentumRest

    def _add_scheme_variables(self):
        self._add_interval_multipliers()  # γ_1: body[b].lam, joint[j].lam
        self._add_more_multipliers("lam_late")  # γ_2
        self._add_interval_coordinates("q_mid")
        self._add_interval_coordinates("v_mid")

    def _add_discrete_equations(self):
        system = self.system
        residuals = self._residuals(
            "step", self.intervals,
            lambda i: (self.q_array(i), self.v_array(i), self._interval_coordinate_array("q_mid", i),
                       self._interval_coordinate_array("v_mid", i), self.q_array(i + 1), self.v_array(i + 1),
                       self._lam_array(i), self._multiplier_array("lam_late", i), *self.stage_control_arrays(i)),
            lambda h, *args: galerkin_residuals(system, h, *args))
        for group in ("kinematics_1", "kinematics_2", "momentum_1", "momentum_2"):
            self._add_coordinate_equations(group, residuals)
        self._add_constraint_equations(residuals)
        self._add_constraint_equations(residuals, "constraint_rate_difference", ("internal_rate", "joint_rate"))

    def _extras(self):
        out = super()._extras()
        out["lam_late"] = self._multiplier_values("lam_late")
        for var in ("q_mid", "v_mid"):
            out[var] = np.array([[pyo.value(x) for x in self._interval_coordinate_array(var, i)]
                                 for i in self.intervals])
        q = self.configuration_values()
        stages = [[[pyo.value(x) for x in u] for u in self.stage_control_arrays(i)] for i in self.intervals]
        out["work"] = np.array([galerkin_work(self.system, self.step_length, q[i], out["q_mid"][i], q[i + 1],
                                              *stages[i]) for i in self.intervals])
        return out

    def _initialize_scheme(self, trajectory):
        """The middle nodes from the guess's own (a cG(2) trajectory) or the midpoints of its
        nodes; γ_2 from the guess's where it has them."""
        super()._initialize_scheme(trajectory)
        self._initialize_interval_coordinates("q_mid", trajectory, trajectory.q)
        self._initialize_interval_coordinates("v_mid", trajectory, trajectory.v)
        self._initialize_multipliers("lam_late", trajectory)
