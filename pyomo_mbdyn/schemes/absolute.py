"""Node configurations from the absolute reparametrisation ``q_k = F(θ_k, q_ref)``.

DMOCC §5.3 (the satellite, the pitcher) writes every node configuration as
the chart of the system's tree, ``q_k = F(θ_k, q_ref)``
(:func:`~pyomo_mbdyn.discretization.chart`): root positions and rotation
vectors and joint coordinates θ_k are the unknowns, and the redundant
``q_k`` are named Expressions of θ_k alone.  The constraints Φ(q_k) = 0 then
hold identically, so a scheme drops the rows that state them (the
reparametrisation q_{k+1} = F(w_k, q_k) of REM and DMOCC, Φ(q_{k+1}) = 0 of
BEM) and keeps everything else — the same discrete equations in q and v,
hence the same solutions, with the size of the thesis's formulations in
joint angles (the three-link arm's REM: 45 unknowns per step instead of 81).

:class:`AbsoluteConfigurations` adds this form to a scheme block: the node
variables ``theta[k, j]`` (θ_0 fixed from the initial configuration), the
replacement of ``body[b].q`` by the chart, the final-configuration form
``"chart"`` (θ_N fixed), values, and initialisation from any trajectory (the
chart inverted node by node).  Joint angles are unrestricted; the rotation
vector of a free body must stay below 2π from the reference (the chart's
singularity), which the blocks' docstrings say.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

import numpy as np
import pyomo.environ as pyo
from pyomo.common.config import ConfigValue, In

from ..discretization import chart_coordinates, chart_replayed, chart_states
from ..errors import ConfigurationError
from .guesses import guess_chart_coordinates
from .configuration_forms import AbsoluteChart

if TYPE_CHECKING:
    from .configuration_forms import ConfigurationForm

__all__ = ["AbsoluteConfigurations", "declare_configurations"]

ABSOLUTE_DESCRIPTION = ("'absolute': node configurations q_k = F(θ_k, q_ref) of node chart coordinates θ_k "
                        "(joint angles, root positions and rotation vectors), constraints fulfilled exactly, "
                        "rotations of free bodies below 2π from the reference")


def declare_configurations(config: Any, forms: Iterable[str], default: str, description: str) -> Any:
    """Add the ``configurations`` option (the forms the block offers) to a block's CONFIG."""
    config.declare("configurations", ConfigValue(default=default, domain=In(list(forms)),
                                                 description=description))
    return config


class AbsoluteConfigurations:
    """Mixin of the scheme blocks that offer ``configurations="absolute"`` (see the module docstring).

    The block calls :meth:`_add_chart_variables` among its variables and
    :meth:`_absolute_configurations` before stating its equations.
    """

    if TYPE_CHECKING:  # a mixin of scheme blocks: the block's (Pyomo's, untyped) attributes
        def __getattr__(self, name: str) -> Any: ...

    @property
    def absolute(self) -> bool:
        """True when node configurations are the chart of node variables θ_k."""
        return self.configurations == "absolute"

    @property
    def configuration_form(self) -> ConfigurationForm:
        """:class:`~pyomo_mbdyn.schemes.configuration_forms.AbsoluteChart` (θ_N fixed) in the
        absolute form, else the block's lifted form."""
        # a mixin: self is a MultibodyBlockData, whose configuration_form super() finds
        return AbsoluteChart(self) if self.absolute else super().configuration_form  # type: ignore[arg-type, misc]

    def _add_chart_variables(self, increments=False):
        """``theta[k, j]`` at every node; with ``increments`` also the Expressions
        ``w[k, j] = θ_{k+1} - θ_k`` that stand for the relative increments (exact for
        revolute, prismatic and cylindrical joints and positions; a first-order proxy
        for rotation vectors)."""
        self.theta = pyo.Var(self.nodes, self.velocities, initialize=0.0)
        if increments:
            self.w = pyo.Expression(self.intervals, self.velocities,
                                    rule=lambda b, k, j: b.theta[k + 1, j] - b.theta[k, j])

    def _theta(self, k):
        return np.array([self.theta[k, j] for j in self.velocities], dtype=object)

    def _absolute_configurations(self):
        """Replace the node configuration variables by the named Expressions
        q_k = F(θ_k, q_ref), built by replaying the chart's compiled CasADi Function
        (:func:`~pyomo_mbdyn.discretization.charts.chart_replayed`: the same formula;
        values used twice named only above :data:`~pyomo_mbdyn.mechanics.replay.SHARE_ABOVE`
        nodes: the arm's small trees get none, the Panda's .nl file stays 6 MB instead of
        429 MB of expanded trees)."""
        rotation = self.rotation
        # made when first read: the structured path calls the compiled chart instead
        self._chart_nodes = self._node_values(
            lambda k: chart_replayed(self.system, self._theta(k), rotation, share=True))
        self._replace_node_variables("q", self._chart_nodes)

    def compiled_node_expressions(self) -> tuple[Any, list[tuple[list[Any], list[Any]]]] | None:
        """The node configurations as the compiled chart of θ_k, for translators that can
        call it instead of walking the Expressions (:mod:`pyomo_mbdyn.solvers.pyomo_to_casadi`):
        ``(function, [(θ_k variables, [ExpressionData, ...]), ...])`` with ``function(θ) =
        q(θ)`` in the global coordinate order, for the nodes whose Expressions still state
        q_k = F(θ_k): not made yet, or holding what the block made (a node a user changed
        is left out, and a translator walks it)."""
        if not self.absolute or not hasattr(self, "_chart_nodes"):
            return None
        from ..discretization.charts import chart_function
        from .deferred import is_deferred

        index = self._coordinate_index()
        made = self._chart_nodes.made
        nodes = []
        for k in self.nodes:
            data = [self.body[name].q[k, c] for name, c in index]
            if not all(is_deferred(d) or (k in made and d.arg(0) is made[k][i]) for i, d in enumerate(data)):
                continue
            nodes.append(([self.theta[k, j] for j in self.velocities], data))
        return chart_function(self.system, self.rotation), nodes

    def theta_values(self, k: int) -> np.ndarray:
        """Chart coordinates θ_k as floats."""
        return np.array([pyo.value(self.theta[k, j]) for j in self.velocities], dtype=float)

    def configuration_values(self) -> np.ndarray:
        """Node configurations from the chart of the θ_k values (absolute form), by the
        compiled chart (:func:`~pyomo_mbdyn.discretization.chart_states`), not through
        the Expressions' Pyomo trees."""
        if not self.absolute:
            return super().configuration_values()  # type: ignore[misc]  # a mixin: SolutionValues's, after it in the MRO
        # without vt chart_states returns the configurations alone
        return chart_states(self.system, [self.theta_values(k) for k in self.nodes], rotation=self.rotation)  # type: ignore[return-value]

    def _fix_initial_state(self):
        super()._fix_initial_state()
        if not self.absolute:
            return
        try:
            theta0 = chart_coordinates(self.system, self.q_initial, rotation=self.rotation, start=self.theta_initial)
        except ValueError as err:
            raise ConfigurationError(f"{self.scheme} block (configurations='absolute'): the initial "
                                     f"configuration is outside the chart: {err}") from None
        for j, name in enumerate(self.velocities):
            self.theta[0, name].fix(theta0[j])
            for k in self.nodes:
                if k > 0:
                    self.theta[k, name].value = theta0[j]

    def _initialize_scheme(self, trajectory):
        super()._initialize_scheme(trajectory)
        if not self.absolute:
            return
        theta = getattr(trajectory, "theta", None)
        if theta is None:  # invert the chart node by node, continuing from the previous node
            theta0 = [self.theta[0, name].value for name in self.velocities]
            theta = guess_chart_coordinates(f"{self.scheme} block {self.name!r}", self.system, trajectory,
                                            self.rotation, theta0, first="previous")
        for k in self.nodes:
            for j, name in enumerate(self.velocities):
                if not self.theta[k, name].fixed:
                    self.theta[k, name].set_value(theta[k][j], skip_validation=True)
