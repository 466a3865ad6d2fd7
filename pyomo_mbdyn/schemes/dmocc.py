"""DMOCC: the variational midpoint scheme, reduced and with multipliers.

DMOCC paper §3 (Leyendecker, Ober-Blöbaum, Marsden, Ortiz): the forced
constrained discrete Euler–Lagrange equations of the midpoint discrete
Lagrangian with trapezoidal constraints, as momentum matching at every node.
Node 0 carries the initial momentum condition ``p⁻_0 = M v_0`` (3.21).  The
equations are :func:`~pyomo_mbdyn.discretization.dmocc_lm_residuals` and
:func:`~pyomo_mbdyn.discretization.dmocc_residuals`.

``dmocc_lm`` (3.6): node configurations and node multipliers λ_k, k < N;
``dmocc`` (3.12): the discrete null space method, ``q_{k+1} = F(w_k, q_k)``,
in two forms (option ``configurations``): ``"lifted"`` (default) keeps the
node configurations as variables with the reparametrisation as equations
(sparse Jacobians, model size linear in N); ``"minimal"`` is the paper's
form: only the increments w and the controls are unknowns, and ``q_k`` are
nested named expressions (for the sphere, N = 30: 360 unknowns and 192
constraints, DMOCC §7.1).  The nesting makes every later equation depend on
all earlier increments (dense Jacobians); prefer the lifted form for large N.
``"absolute"`` is the paper's absolute reparametrisation
``q_k = F(θ_k, q_ref)`` (DMOCC §5.3, used for the satellite and the pitcher):
node chart coordinates ``theta[k, j]`` (root positions and rotation vectors,
joint angles; :func:`~pyomo_mbdyn.discretization.chart`) are the unknowns
and ``q_k`` named expressions of ``θ_k`` alone — sparse like the lifted form,
with the constraints fulfilled exactly like the minimal one, but rotations of
a free body must stay below 2π from the reference (the rotation vector's
singularity); joint angles are unrestricted.  The increments ``w`` are then
the expressions ``θ_{k+1} - θ_k`` (exact for revolute, prismatic and
cylindrical joints and positions; a first-order proxy for rotation vectors).

Controls are piecewise constant, ``u[i, a]`` on ``[t_i, t_{i+1}]``, lumped to
the nodes with weight h/2 (3.10–3.11); ``u`` is the applied generalised force, the
paper's τ.  No velocity variables: node
velocities are recovered from the projected discrete Legendre transform.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyomo.environ as pyo

from ..discretization import dmocc_lm_residuals, dmocc_residuals
from .absolute import AbsoluteConfigurations, declare_configurations
from .configuration_forms import Increments, Nodes
from .final_rest import LegendreRest
from .base import MultibodyBlockData
from .options import declare_rotation, declare_scheme_block, initial_state, multibody_config

if TYPE_CHECKING:
    #: the Pyomo block components: made by declare_scheme_block when this module is imported
    DMOCCBlock: type[Any]
    DMOCCLMBlock: type[Any]

__all__ = ["DMOCCBlock", "DMOCCLMBlock"]


class _VariationalBlockData(MultibodyBlockData):
    FINAL_REST = LegendreRest

    def _recover_velocities(self, q, u):
        """v_0 and the projected discrete Legendre transform at the other nodes (DMOCC 3.16)."""
        return self.record.step.node_velocities(self.system, self.step_length, q, u, self.v_initial)

    def _initial_velocity(self):
        v0 = self.config.initial_velocity
        return np.zeros(self.system.n) if v0 is None else np.asarray(v0, float)

    def _node_controls(self, k):
        return (self.u_array(k - 1) if k > 0 else None), self.u_array(k)


@declare_scheme_block("DMOCCLMBlock")
class DMOCCLMBlockData(_VariationalBlockData):
    """Variational midpoint scheme with node multipliers (DMOCC Eq. 3.6).

    Examples
    --------
    A forward simulation (controls fixed); the node velocities are recovered
    from the discrete Legendre transform:

    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> from pyomo_mbdyn.ocp import solve
    >>> from pyomo_mbdyn.schemes import DMOCCLMBlock
    >>> m = pyo.ConcreteModel()
    >>> m.dyn = DMOCCLMBlock(system=pendulum, steps=4, horizon=0.4, controls=np.zeros((4, 1)))
    >>> m.dyn.uses_velocities, m.dyn.final_configuration_form
    (False, 'nodes')
    >>> str(solve(m).solver.termination_condition)
    'optimal'
    >>> tr = m.dyn.trajectory()
    >>> tr.v.shape, tr.lam.shape          # velocities recovered; node multipliers λ_0 … λ_3
    ((5, 12), (4, 11))
    """

    scheme = "dmocc_lm"
    CONFIGURATION_FORM = Nodes

    def _add_scheme_variables(self):
        self._add_interval_multipliers()  # node multipliers λ_k, k = 0..N-1

    def _add_discrete_equations(self):
        system, v0 = self.system, self._initial_velocity()

        def arguments(k):
            u_prev, u = self._node_controls(k)
            q_prev = self.q_array(k - 1) if k > 0 else None
            return q_prev, self.q_array(k), self.q_array(k + 1), self._lam_array(k), u_prev, u

        residuals = self._residuals(
            "step", self.intervals, arguments,
            lambda h, q_prev, q, q1, lam, u_prev, u: dmocc_lm_residuals(system, h, q_prev, q, q1, lam, u_prev, u,
                                                                     v0=v0))
        self._add_coordinate_equations("momentum_matching", residuals)
        self._add_constraint_equations(residuals)


@declare_scheme_block("DMOCCBlock")
class DMOCCBlockData(AbsoluteConfigurations, _VariationalBlockData):
    """Variational midpoint scheme reduced by the discrete null space method (DMOCC Eq. 3.12).

    Examples
    --------
    The three forms of the node configurations, and a forward simulation that
    agrees with the Newton stepper:

    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> from pyomo_mbdyn.ocp import solve
    >>> from pyomo_mbdyn.schemes import DMOCCBlock
    >>> from pyomo_mbdyn.simulate import simulate
    >>> for form in ("lifted", "minimal", "absolute"):    # unknowns: q, w, u, or w, u, or θ, u
    ...     m = pyo.ConcreteModel()
    ...     m.dyn = DMOCCBlock(system=pendulum, steps=4, horizon=0.4, configurations=form)
    ...     print(form, sum(1 for x in m.component_data_objects(pyo.Var) if not x.fixed))
    lifted 56
    minimal 8
    absolute 8
    >>> m = pyo.ConcreteModel()
    >>> m.dyn = DMOCCBlock(system=pendulum, steps=4, horizon=0.4, controls=np.zeros((4, 1)))
    >>> str(solve(m).solver.termination_condition)
    'optimal'
    >>> stepped = simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 4, controls=np.zeros((4, 1)), scheme="dmocc")
    >>> np.allclose(m.dyn.trajectory().q, stepped.q)
    True
    """

    scheme = "dmocc"
    CONFIGURATION_FORM = Increments
    CONFIG = declare_configurations(
        declare_rotation(multibody_config()), ("lifted", "minimal", "absolute"), "lifted",
        "Node configurations as variables with reparametrisation equations "
        "('lifted': sparse, linear in N), as nested expressions "
        "q_{k+1} = F(w_k, q_k) ('minimal': the DMOCC paper's relative form), or "
        "as q_k = F(θ_k, q_ref) of node chart coordinates θ_k ('absolute': the "
        "paper's absolute reparametrisation, sparse; rotations below 2π from the "
        "reference).")

    def _add_scheme_variables(self):
        if self.absolute:
            self._add_chart_variables(increments=True)
        else:
            self.w = pyo.Var(self.intervals, self.velocities, initialize=0.0)

    def _minimal_configurations(self):
        """Replace the node configuration variables by q_k = F(w_{k-1}, q_{k-1})."""
        system, config = self.system, self.config
        q = np.asarray(initial_state(system, config)[0], float)
        nodes = {0: q}
        for k in self.intervals:
            w = [self.w[k, j] for j in self.velocities]
            nodes[k + 1] = system.reparametrise(w, nodes[k], self.rotation)
        self._replace_node_variables("q", nodes)

    def configuration_values(self) -> np.ndarray:
        """As the base method; in the minimal form by the numeric recursion
        q_{k+1} = F(w_k, q_k) (evaluating the nested expressions node by node
        would revisit every earlier node for each entry); in the absolute form
        by the chart ``q_k = F(θ_k, q_ref)``."""
        if self.configurations != "minimal":
            return super().configuration_values()
        q = [np.array([pyo.value(x) for x in self.q_array(0)], dtype=float)]
        for k in self.intervals:
            w = np.array([pyo.value(self.w[k, j]) for j in self.velocities], dtype=float)
            q.append(np.asarray(self.system.reparametrise(w, q[-1], self.rotation), float))
        return np.array(q)

    def _add_discrete_equations(self):
        system = self.system
        v0 = self._initial_velocity()
        form = self.configurations
        if form == "minimal":
            self._minimal_configurations()
        elif form == "absolute":
            self._absolute_configurations()
        rotation = self.rotation

        def arguments(k):
            u_prev, u = self._node_controls(k)
            q_prev = self.q_array(k - 1) if k > 0 else None
            w = None if form == "absolute" else [self.w[k, j] for j in self.velocities]
            return q_prev, self.q_array(k), w, self.q_array(k + 1), u_prev, u

        residuals = self._residuals(
            "step", self.intervals, arguments,
            lambda h, q_prev, q, w, q1, u_prev, u: dmocc_residuals(system, h, q_prev, q, w, q1, u_prev, u,
                                                                v0=v0, rotation=rotation))
        if form == "lifted":
            self._add_coordinate_equations("reparametrisation", residuals)
            self._add_loop_closure_equations(residuals)
        self._add_velocity_equations("momentum_matching", residuals, self.reduced_coordinates)
