"""The reduced energy-momentum scheme (REM) as a Pyomo block.

Thesis §2.4, Eq. (3.34): the BEM premultiplied by ``P(q_{k+½})ᵀ`` (which
removes the multipliers) with the nodal reparametrisation
``q_{k+1} = F(w_{k+1}, q_k)`` (which fulfils the constraints exactly).
Velocities stay variables, so Jacobians are sparse and model size is linear
in N; node configurations in two forms (option ``configurations``):
``"lifted"`` (default) keeps them as variables, with the reparametrisation as
equations, and ``"absolute"`` writes them as the chart ``q_k = F(θ_k, q_ref)``
of node variables ``theta[k, j]`` (:mod:`.absolute`, the DMOCC paper's
absolute reparametrisation): the reparametrisation rows drop out, ``w`` are
the Expressions ``θ_{k+1} - θ_k``, and the NLP has the thesis's size in
joint angles (the three-link arm: 45 unknowns per step against 81):

    q_{k+1} - F(w_k, q_k) = 0 (lifted)                         body[b].reparametrisation
    Φ_L(q_{k+1}) = 0 (closed loops, lifted)                   joint[j].loop_closure
    q_{k+1} - q_k - h v_{k+½} = 0                             body[b].kinematics
    P(q_{k+½})ᵀ{M(v_{k+1} - v_k) + h Bᵀ K ν + h ∇V} + h u = 0 momentum_balance
    ν - B(q♯) v_{k+½} = 0                                     joint_rates

The equations are those of :func:`pyomo_mbdyn.discretization.rem_residuals`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyomo.environ as pyo

from ..discretization import rem_residuals
from .absolute import ABSOLUTE_DESCRIPTION, AbsoluteConfigurations, declare_configurations
from .configuration_forms import Increments
from .final_rest import MomentumRest
from .base import MultibodyBlockData
from .options import declare_rotation, declare_scheme_block, multibody_config

if TYPE_CHECKING:
    #: the Pyomo block component: made by declare_scheme_block when this module is imported
    REMBlock: type[Any]

__all__ = ["REMBlock", "REMBlockData"]


@declare_scheme_block("REMBlock")
class REMBlockData(AbsoluteConfigurations, MultibodyBlockData):
    """Energy-momentum scheme reduced by the discrete null space method.

    Examples
    --------
    Swing a pendulum up by a quarter turn, rest to rest, with the least effort:

    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
    >>> from pyomo_mbdyn.schemes import REMBlock
    >>> m = pyo.ConcreteModel()
    >>> m.dyn = REMBlock(system=pendulum, steps=4, horizon=1.0)
    >>> problem = OptimalControlProblem(m.dyn)
    >>> effort = problem.minimise_control_effort()
    >>> problem.fix_final_configuration({"hinge.angle": np.pi / 2})
    >>> problem.require_final_rest()
    >>> m.dyn.initialize_from(interpolated_trajectory(pendulum, m.dyn.step_length, 4, [np.pi / 2]))
    >>> str(problem.solve().solver.termination_condition)
    'optimal'
    >>> tr = m.dyn.trajectory()
    >>> round(float(tr.w.sum()), 6)       # the increments add up to the quarter turn
    1.570796
    >>> tr.u.shape                         # one torque per interval
    (4, 1)
    """

    scheme = "rem"
    CONFIGURATION_FORM = Increments
    FINAL_REST = MomentumRest
    CONFIG = declare_configurations(
        declare_rotation(multibody_config()), ("lifted", "absolute"), "lifted",
        "'lifted': node configurations as variables with the reparametrisation "
        "q_{k+1} = F(w_k, q_k) as equations; " + ABSOLUTE_DESCRIPTION + ".")

    def _add_scheme_variables(self):
        if self.absolute:
            self._add_chart_variables(increments=True)
        else:
            self.w = pyo.Var(self.intervals, self.velocities, initialize=0.0)

    def _add_discrete_equations(self):
        system, rotation, absolute = self.system, self.rotation, self.absolute
        if absolute:
            self._absolute_configurations()
        residuals = self._residuals(
            "step", self.intervals,
            lambda i: (self.q_array(i), self.v_array(i), None if absolute else [self.w[i, j] for j in self.velocities],
                       self.q_array(i + 1), self.v_array(i + 1), self.nu_array(i), self.u_array(i)),
            lambda h, q0, v0, w, q1, v1, nu, u: rem_residuals(system, h, q0, v0, w, q1, v1, nu, u, rotation))
        if not absolute:
            self._add_coordinate_equations("reparametrisation", residuals)
            self._add_loop_closure_equations(residuals)
        self._add_coordinate_equations("kinematics", residuals)
        self._add_velocity_equations("momentum_balance", residuals, self.reduced_coordinates)
        self._add_velocity_equations("joint_rates", residuals)
