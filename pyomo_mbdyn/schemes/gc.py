"""The midpoint rule in generalised coordinates (GC), the baseline scheme.

Thesis §2.5, Eq. (3.40)–(3.42), for systems with a minimal-coordinate map:
here the chart ``q(θ) = F(θ, q_ref)`` of the absolute nodal reparametrisation
(for chains of revolute joints from the ground, θ are the joint angles).
Node variables ``theta[k, j]`` and ``vt[k, j]``; the redundant ``q``, ``v`` of
every body follow from the chart, in two forms (option ``configurations``):

* ``"chart"`` (default): ``body[b].q`` and ``body[b].v`` are named Expressions
  ``q(θ_k)``, ``v(θ_k, ṽ_k)``; the NLP carries only θ, ṽ, ν and u — the size
  of the thesis's formulations and of a collocation in joint angles (the arm:
  12 unknowns per step against 81 in the lifted form);
* ``"lifted"``: ``q``, ``v`` are variables tied to the chart by
  ``body[b].chart`` and ``body[b].chart_velocity`` (as the other schemes'
  node variables, e.g. to impose conditions on them).

Both give the same trajectory.  The equations are those of
:func:`~pyomo_mbdyn.discretization.gc_residuals`; neither energy nor
momentum consistent.  On a chain of revolute and prismatic joints from the ground
(a robot arm) the momentum balance's M̃ a + c + g is evaluated by the recursive
Newton–Euler algorithm (:func:`chain_inverse_dynamics`), the same equation in O(dof)
operations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import pyomo.environ as pyo
from pyomo.common.config import ConfigValue, In

from ..discretization import chart_coordinates, chart_jets, chart_states, chart_transpose, gc_residuals
from ..discretization.charts import chart_state
from ..discretization.common import applied, compiled_function
from ..errors import ConfigurationError
from .configuration_forms import Chart
from .final_rest import ChartVelocityRest
from .base import MultibodyBlockData
from .guesses import guess_chart_coordinates
from .options import declare_rotation, declare_scheme_block, multibody_config

if TYPE_CHECKING:
    #: the Pyomo block component: made by declare_scheme_block when this module is imported
    GCBlock: type[Any]

    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["GCBlock", "chain_inverse_dynamics"]


def chain_inverse_dynamics(system: ConstrainedSystem, rotation: str = "exp") -> Callable[..., Any] | None:
    """``(θ, ṽ, a) ↦ τ = M̃(θ) a + c(θ, ṽ) + g(θ)`` (order of ``system.velocities``) by the
    recursive Newton–Euler algorithm of :meth:`Chain.from_system
    <pyomo_mbdyn.simulate.recursive.Chain.from_system>`, as a callable for
    :func:`~pyomo_mbdyn.discretization.gc_residuals` in any backend, or None where it does
    not state GC's equation: systems that are not a chain of revolute and prismatic
    joints from the ground without friction, the Cayley chart (``rotation="cayley"``:
    θ is not the joint angle).  Checked once per system at a random state against the
    natural-coordinate formula ``P̃ᵀ[M(P̃ a + Ṗṽṽ) + ∇V]`` and ``B P̃ = I``.

    Examples
    --------
    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()               # 1 kg, centre of mass 0.5 m from the hinge
    >>> rnea = chain_inverse_dynamics(pendulum)
    >>> float(rnea([0.0], [0.0], [0.0])[0].round(4))  # the weight's moment, horizontal
    4.905
    """
    from ..mechanics import MultibodySystem

    if rotation != "exp" or not isinstance(system, MultibodySystem) or not system.n_velocities:
        return None
    function = compiled_function(system, ("chain inverse dynamics",), lambda: _chain_function(system))
    if function is None:
        return None
    return lambda theta, vt, a: applied(function, theta, vt, a)[0]


def _chain_function(system):
    import casadi

    from ..simulate.recursive import Chain

    try:
        chain = Chain.from_system(system)
    except (ConfigurationError, AttributeError, IndexError, KeyError, ValueError):
        return None
    names = list(system.velocities)
    if sorted(chain.velocities) != sorted(names):
        return None
    into_chain = [names.index(v) for v in chain.velocities]
    into_system = [chain.velocities.index(v) for v in names]
    rnea = chain.inverse_dynamics_function()
    theta, vt, a = (casadi.SX.sym(x, len(names)) for x in ("theta", "vt", "a"))
    tau = rnea(theta[into_chain], vt[into_chain], a[into_chain])
    function = casadi.Function("chain_inverse_dynamics", [theta, vt, a], [tau[into_system]])
    # the same equation as the natural-coordinate formula, or not used
    rng = np.random.default_rng(0)
    th, w, acc = (rng.uniform(-1.0, 1.0, len(names)) for _ in range(3))
    q, v, conv, Pa = chart_jets(system, th, w, acc)
    reference = chart_transpose(system, th, np.diag(system.mass_matrix()) * (Pa + conv) + system.potential_gradient())
    B = np.asarray(system.control_matrix(q), float)
    P = np.column_stack([chart_jets(system, th, w, e)[3] for e in np.eye(len(names))])
    value = np.asarray(function(th, w, acc), float).ravel()
    scale = 1.0 + np.abs(reference).max()
    if np.abs(value - reference).max() > 1e-9 * scale or np.abs(B @ P - np.eye(len(names))).max() > 1e-9:
        return None
    return function


@declare_scheme_block("GCBlock")
class GCBlockData(MultibodyBlockData):
    """Midpoint rule in the generalised coordinates of the system's chart.

    Examples
    --------
    The pendulum released from the horizontal; the unknowns are the joint angle
    and its rate at the nodes:

    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> from pyomo_mbdyn.ocp import solve
    >>> from pyomo_mbdyn.schemes import GCBlock
    >>> m = pyo.ConcreteModel()
    >>> m.dyn = GCBlock(system=pendulum, steps=4, horizon=0.4, controls=np.zeros((4, 1)))
    >>> str(solve(m).solver.termination_condition)
    'optimal'
    >>> [round(float(m.dyn.theta[k, "hinge.angle"].value), 2) for k in m.dyn.nodes]
    [0.0, -0.09, -0.36, -0.8, -1.35]
    """

    scheme = "gc"
    CONFIGURATION_FORM = Chart
    FINAL_REST = ChartVelocityRest
    CONFIG = declare_rotation(multibody_config())
    CONFIG.declare("configurations", ConfigValue(
        default="chart", domain=In(["chart", "lifted"]),
        description="Node configurations and velocities as Expressions of the chart coordinates "
                    "(\"chart\") or as variables with chart equations (\"lifted\")."))

    def _add_scheme_variables(self):
        self.theta = pyo.Var(self.nodes, self.velocities, initialize=0.0)
        self.vt = pyo.Var(self.nodes, self.velocities, initialize=0.0)

    def _theta(self, k):
        return [self.theta[k, j] for j in self.velocities]

    def _vt(self, k):
        return [self.vt[k, j] for j in self.velocities]

    def _add_discrete_equations(self):
        self._add_step_equations()
        self._add_node_values()

    def _add_step_equations(self):
        """The midpoint rule's rows per interval (:func:`~pyomo_mbdyn.discretization.gc_residuals`)."""
        system, rotation = self.system, self.rotation
        dynamics = chain_inverse_dynamics(system, rotation)
        residuals = self._residuals(
            "step", self.intervals,
            lambda i: (self._theta(i), self._vt(i), self._theta(i + 1), self._vt(i + 1), self.u_array(i),
                       self.nu_array(i)),
            lambda h, th0, vt0, th1, vt1, u, nu: gc_residuals(system, h, th0, vt0, th1, vt1, u, rotation, nu=nu,
                                                              inverse_dynamics=dynamics),
            replayed=True)
        for group in ("kinematics", "momentum_balance", "joint_rates"):
            self._add_velocity_equations(group, residuals)

    def _add_node_values(self):
        """The node configurations and velocities q(θ_k), P̃(θ_k)ṽ_k: named Expressions (``"chart"``)
        or variables with the rows ``body[b].chart`` and ``body[b].chart_velocity`` (``"lifted"``)."""
        system, rotation = self.system, self.rotation
        if self.configurations == "chart":
            # node values for results and user conditions; not part of the scheme's equations
            # (made when first read: the structured solve and trajectory() never read them)
            nodes = self._node_values(lambda k: chart_state(system, self._theta(k), self._vt(k), rotation))
            self._replace_node_variables("q", lambda k: nodes(k)[0])
            self._replace_node_variables("v", lambda k: nodes(k)[1])
            return
        steps = pyo.RangeSet(1, self.config.steps)

        def chart_residuals(theta, vt, q, v):
            q_chart, v_chart = chart_state(system, theta, vt, rotation)
            return {"chart": np.asarray(q, dtype=object) - q_chart, "chart_velocity": np.asarray(v, dtype=object) - v_chart}

        chart_residuals = self._residuals(
            "chart", steps, lambda k: (self._theta(k), self._vt(k), self.q_array(k), self.v_array(k)),
            chart_residuals, timed=False)
        self._add_coordinate_equations("chart", chart_residuals, steps)
        self._add_coordinate_equations("chart_velocity", chart_residuals, steps)

    def _chart_values(self):
        theta = np.array([[pyo.value(self.theta[k, j]) for j in self.velocities] for k in self.nodes], float)
        vt = np.array([[pyo.value(self.vt[k, j]) for j in self.velocities] for k in self.nodes], float)
        return chart_states(self.system, theta, vt, self.rotation)

    def configuration_values(self) -> np.ndarray:
        """Node configurations q(θ_k): in the chart form from the θ values by the compiled
        chart (:func:`~pyomo_mbdyn.discretization.chart_states`), not through the named
        Expressions' Pyomo trees (the panda at N = 20: 88 s that way)."""
        if self.configurations == "chart":
            return self._chart_values()[0]
        return super().configuration_values()

    def velocity_values(self) -> np.ndarray:
        """Node velocities P̃(θ_k) ṽ_k, in the chart form by the compiled chart."""
        if self.configurations == "chart":
            return self._chart_values()[1]
        return super().velocity_values()

    def _fix_initial_state(self):
        super()._fix_initial_state()
        theta0, vt0 = chart_coordinates(self.system, self.q_initial, self.v_initial, self.rotation,
                                        start=self.theta_initial)
        for j, name in enumerate(self.velocities):
            self.theta[0, name].fix(theta0[j])
            self.vt[0, name].fix(vt0[j])
            for k in self.nodes:
                if k > 0:
                    self.theta[k, name].value = theta0[j]
                    self.vt[k, name].value = vt0[j]

    def _initialize_scheme(self, trajectory):
        theta, vt = getattr(trajectory, "theta", None), getattr(trajectory, "vt", None)
        shape = (self.config.steps + 1, len(self.velocities))
        if theta is None or vt is None or np.shape(theta) != shape or np.shape(vt) != shape:
            # from another scheme (an absolute form's trajectory has θ but no ṽ): invert the chart
            # node by node, continuing
            theta0 = [self.theta[0, name].value for name in self.velocities]
            theta, vt = guess_chart_coordinates(f"{self.scheme} block {self.name!r}", self.system, trajectory,
                                                self.rotation, theta0, velocities=True)
        for k in self.nodes:
            for j, name in enumerate(self.velocities):
                if not self.theta[k, name].fixed:
                    self.theta[k, name].set_value(theta[k][j], skip_validation=True)
                    self.vt[k, name].set_value(vt[k][j], skip_validation=True)
