"""The basic energy-momentum scheme (BEM) as a Pyomo block.

Thesis §2.3, Eq. (3.21)–(3.23): per interval ``[t_k, t_{k+1}]``

    q_{k+1} - q_k - h v_{k+½} = 0                                  kinematics
    M (v_{k+1} - v_k) + h [G(q_{k+½})ᵀγ + B(q♯)ᵀ(Kν + u) + ∇V] = 0  momentum_balance
    Φ(q_{k+1}) = 0                                                 internal_constraint, joint_constraint
    ν - B(q♯) v_{k+½} = 0                                          joint_rates

with interval multipliers γ_{k,k+1} (``body[b].lam``, ``joint[j].lam``).  The
equations are those of :func:`pyomo_mbdyn.discretization.bem_residuals`.

Node configurations in two forms (option ``configurations``): ``"lifted"``
(default) keeps them as variables with Φ(q_{k+1}) = 0 as equations;
``"absolute"`` writes them as the chart ``q_k = F(θ_k, q_ref)`` of node
variables ``theta[k, j]`` (:mod:`.absolute`), which fulfils Φ(q_k) = 0
identically, so those rows drop out; the multipliers γ stay (the forces of
constraint in the momentum balance).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyomo.common.config import Bool, ConfigValue

from ..discretization import bem_residuals
from .absolute import ABSOLUTE_DESCRIPTION, AbsoluteConfigurations, declare_configurations
from .configuration_forms import Nodes
from .final_rest import MomentumRest
from .base import MultibodyBlockData
from .options import declare_rotation, declare_scheme_block, multibody_config

if TYPE_CHECKING:
    #: the Pyomo block component: made by declare_scheme_block when this module is imported
    BEMBlock: type[Any]

__all__ = ["BEMBlock", "BEMBlockData"]


@declare_scheme_block("BEMBlock")
class BEMBlockData(AbsoluteConfigurations, MultibodyBlockData):
    """Energy-momentum scheme with interval multipliers (a DAE of index 3 made discrete).

    Examples
    --------
    Forward simulation through a solver: with every control fixed the block is a
    square system, whose solution is the Newton stepper's (the same equations):

    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> from pyomo_mbdyn.ocp import solve
    >>> from pyomo_mbdyn.schemes import BEMBlock
    >>> from pyomo_mbdyn.simulate import simulate
    >>> m = pyo.ConcreteModel()
    >>> m.dyn = BEMBlock(system=pendulum, steps=4, horizon=0.4, controls=np.zeros((4, 1)))
    >>> str(solve(m).solver.termination_condition)
    'optimal'
    >>> tr = m.dyn.trajectory()
    >>> tr.q.shape, tr.lam.shape          # 5 nodes of q; 11 multipliers per interval
    ((5, 12), (4, 11))
    >>> np.allclose(tr.q, simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 4, controls=np.zeros((4, 1))).q)
    True
    >>> float(np.ptp(m.dyn.diagnostics()["E"])) < 1e-8     # the energy is conserved
    True
    """

    scheme = "bem"
    CONFIGURATION_FORM = Nodes
    FINAL_REST = MomentumRest
    CONFIG = declare_configurations(
        declare_rotation(multibody_config()), ("lifted", "absolute"), "lifted",
        "'lifted': node configurations as variables with Φ(q_{k+1}) = 0 as equations; "
        + ABSOLUTE_DESCRIPTION + " (the rotation option chooses the chart's rotation map).")
    CONFIG.declare("contravariant", ConfigValue(
        default=True, domain=Bool, description="Use B(q♯) (True) or the plain-midpoint B (False)."))

    def _add_scheme_variables(self):
        self._add_interval_multipliers()
        if self.absolute:
            self._add_chart_variables()

    def _initialize_scheme(self, trajectory):
        """Without multipliers in ``trajectory`` (a REM or chart solution, a simulation of
        another scheme), the interval multipliers γ_{k,k+1} that balance its momentum:
        the least-squares solution of h G(q_{k+½})ᵀ γ = -r_k, r_k the momentum-balance
        residual (thesis Eq. 3.22) at γ = 0 with the trajectory's q, v, ν, u.  At a
        solution of the REM (the same discrete solutions) r_k lies in range(Gᵀ) and
        the BEM starts at its solution with every row satisfied; a guess gets the
        force split that fits it best."""
        if trajectory.lam is None and self.system.bodies and self.record.joint_rates:
            import dataclasses

            import numpy as np

            system, h, contravariant = self.system, self.step_length, self.config.contravariant
            q, v, nu, u = (np.asarray(getattr(trajectory, a), float) for a in ("q", "v", "nu", "u"))
            m = len(system.active_labels())
            lam = np.empty((self.config.steps, m))
            for k in range(self.config.steps):
                r = bem_residuals(system, h, q[k], v[k], q[k + 1], v[k + 1], np.zeros(m), nu[k], u[k],
                                  contravariant)["momentum_balance"]
                G = np.asarray(system.active_jacobian(0.5 * (q[k] + q[k + 1])), float)
                lam[k] = np.linalg.lstsq(h * G.T, -np.asarray(r, float), rcond=None)[0]
            trajectory = dataclasses.replace(trajectory, extras={**trajectory.extras, "lam": lam})
        super()._initialize_scheme(trajectory)

    def _add_discrete_equations(self):
        system, contravariant = self.system, self.config.contravariant
        if self.absolute:
            self._absolute_configurations()
        residuals = self._residuals(
            "step", self.intervals,
            lambda i: (self.q_array(i), self.v_array(i), self.q_array(i + 1), self.v_array(i + 1),
                       self._lam_array(i), self.nu_array(i), self.u_array(i)),
            lambda h, q0, v0, q1, v1, lam, nu, u: bem_residuals(system, h, q0, v0, q1, v1, lam, nu, u,
                                                                contravariant))
        self._add_coordinate_equations("kinematics", residuals)
        self._add_coordinate_equations("momentum_balance", residuals)
        if not self.absolute:
            self._add_constraint_equations(residuals)
        self._add_velocity_equations("joint_rates", residuals)
