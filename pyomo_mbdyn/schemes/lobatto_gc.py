"""The three-stage Lobatto IIIA–IIIB pair in chart coordinates, a fourth-order GC, as a Pyomo block.

Per interval ``[t_k, t_{k+1}]`` with the middle node θ_{k+½} (``theta_mid``) and the stage
controls ``u_start``, ``u`` (the middle stage) and ``u_end`` at t_k, t_{k+½}, t_{k+1}; S the
action of the quadratic through θ_k, θ_{k+½}, θ_{k+1} by Simpson's rule, p = ∂L/∂θ̇ and
F_s = P̃(Θ_s)ᵀB(q(Θ_s))ᵀu_s the stage forces:

    p(θ_k, ṽ_k) + ∂S/∂θ_k + (h/6) F_1 = 0                 start_momentum[i, j]
    ∂S/∂θ_{k+½} + (2h/3) F_2 = 0                          stage_balance[i, j]
    p(θ_{k+1}, ṽ_{k+1}) − ∂S/∂θ_{k+1} − (h/6) F_3 = 0      momentum_balance[i, j]

over the generalised velocities j, with the node unknowns ``theta[k, j]``, ``vt[k, j]`` of
:class:`~pyomo_mbdyn.schemes.gc.GCBlock` (and its two forms of node configurations,
option ``configurations``).  Fourth order, symplectic; the effort ``h Σ_k Σ_s b_s |u_s|²``
with Simpson's weights (the record's ``stages``).  The equations are
:func:`pyomo_mbdyn.discretization.lobatto_gc.lobatto_gc_residuals`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyomo.environ as pyo

from ..discretization.charts import chart_states
from ..discretization.lobatto_gc import lobatto_gc_residuals, lobatto_gc_work
from .gc import GCBlockData
from .options import declare_scheme_block

if TYPE_CHECKING:
    #: the Pyomo block component: made by declare_scheme_block when this module is imported
    LobattoGCBlock: type[Any]

__all__ = ["LobattoGCBlock", "LobattoGCBlockData"]


@declare_scheme_block("LobattoGCBlock")
class LobattoGCBlockData(GCBlockData):
    """Lobatto IIIA–IIIB with three stages on the system's chart: fourth order, symplectic,
    controls at the stages, 3 unknowns per generalised velocity and step.

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
    >>> m.dyn = scheme_block("lobatto_gc", system=pendulum, steps=4, horizon=0.4, controls=[[0.5]] * 4)
    >>> [name for name, _, _ in m.dyn.control_stages]
    ['u_start', 'u', 'u_end']
    >>> m.dyn.initialize_from(simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 4, [[0.5]] * 4, scheme="gc"))
    >>> result = pyo.SolverFactory("casadi_ipopt").solve(m, options={"tol": 1e-12})
    >>> stepped = simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 4, [[0.5]] * 4, scheme="lobatto_gc")
    >>> bool(np.abs(m.dyn.trajectory().q - stepped.q).max() < 1e-11)
    True
    """

    scheme = "lobatto_gc"

    def _add_scheme_variables(self):
        super()._add_scheme_variables()
        self.theta_mid = pyo.Var(self.intervals, self.velocities, initialize=0.0)

    def _theta_mid(self, i):
        return [self.theta_mid[i, j] for j in self.velocities]

    def _add_step_equations(self):
        system, rotation = self.system, self.rotation
        residuals = self._residuals(
            "step", self.intervals,
            lambda i: (self._theta(i), self._vt(i), self._theta_mid(i), self._theta(i + 1), self._vt(i + 1),
                       *self.stage_control_arrays(i)),
            lambda h, *args: lobatto_gc_residuals(system, h, *args, rotation=rotation),
            replayed=True)
        for group in ("start_momentum", "stage_balance", "momentum_balance"):
            self._add_velocity_equations(group, residuals)

    def _extras(self):
        out = super()._extras()
        theta_mid = np.array([[pyo.value(x) for x in self._theta_mid(i)] for i in self.intervals], float)
        out["theta_mid"] = theta_mid.reshape(self.config.steps, -1)
        # the middle-stage configurations q(θ_{k+½}): where the stage loads act (balance.momentum_balance)
        out["q_mid"] = chart_states(self.system, out["theta_mid"], rotation=self.rotation)
        # the controls' work per interval by the scheme's quadrature (the conservation table's W)
        stages = [[[pyo.value(x) for x in u] for u in self.stage_control_arrays(i)] for i in self.intervals]
        out["work"] = np.array([lobatto_gc_work(self.system, self.step_length, out["theta"][i], theta_mid[i],
                                                out["theta"][i + 1], *stages[i], rotation=self.rotation)
                                for i in self.intervals])
        return out

    def _initialize_scheme(self, trajectory):
        """θ_{k+½} from the guess's own (a trajectory of this scheme) or the midpoints of its θ."""
        super()._initialize_scheme(trajectory)
        theta = np.array([[self.theta[k, j].value for j in self.velocities] for k in self.nodes], float)
        values = trajectory.extras.get("theta_mid")
        if values is None or np.shape(values) != (self.config.steps, len(self.velocities)):
            values = 0.5 * (theta[:-1] + theta[1:])
        for i in self.intervals:
            for j, name in enumerate(self.velocities):
                self.theta_mid[i, name].value = float(values[i][j])
