"""Solved values read back: node configurations and velocities, trajectories, multipliers.

:class:`SolutionValues` is the part of a multibody block that reads the
current variable values into arrays and a
:class:`~pyomo_mbdyn.trajectory.Trajectory` — recovering the velocities and
joint rates of the schemes that have none as unknowns — and the momentum
multipliers from a ``dual`` Suffix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyomo.environ as pyo

from ..discretization.common import interval_control_work, interval_joint_rates
from ..trajectory import Trajectory

__all__ = ["SolutionValues"]


class SolutionValues:
    """Mixin of :class:`~pyomo_mbdyn.schemes.base.MultibodyBlockData`: values, trajectory and multipliers
    of the current point (see the module docstring).  Its hooks are 15–18 of "Implementing a
    scheme" (:mod:`pyomo_mbdyn.schemes.base`): schemes without velocity variables implement
    ``_recover_velocities``; ``configuration_values``, ``velocity_values`` and ``_extras`` have
    defaults."""

    if TYPE_CHECKING:  # a mixin of MultibodyBlockData: the block's (Pyomo's, untyped) attributes
        def __getattr__(self, name: str) -> Any: ...

    def configuration_values(self) -> np.ndarray:
        """Node configurations (N+1, n) as floats from the current variable values (hook 15)."""
        return np.array([[pyo.value(x) for x in self.q_array(k)] for k in self.nodes], dtype=float)

    def velocity_values(self) -> np.ndarray:
        """Node velocities (N+1, n) as floats from the current variable values (blocks
        with velocity variables; hook 16)."""
        return np.array([[pyo.value(x) for x in self.v_array(k)] for k in self.nodes], dtype=float)

    def trajectory(self) -> Trajectory:
        """The current values as a :class:`~pyomo_mbdyn.trajectory.Trajectory`: node
        configurations and velocities (recovered where the scheme has no velocity
        variables), interval controls and joint rates, the scheme's own unknowns
        as extras (``lam``, ``w``, ``theta``, …) and the run's metadata."""
        N = self.config.steps
        q = self.configuration_values()
        u = np.array([[pyo.value(x) for x in self.u_array(i)] for i in self.intervals]).reshape(N, -1)
        if self.uses_velocities:
            v = self.velocity_values()
        else:
            v = self._recover_velocities(q, u)
        if self.record.joint_rates:
            nu = np.array([[pyo.value(x) for x in self.nu_array(i)] for i in self.intervals]).reshape(N, -1)
        else:
            nu = self._recover_joint_rates(q)
        extras = self._extras()
        if not self.record.joint_rates and "work" not in extras and len(self.actuated):
            # no joint-rate unknowns: the controls' work as force × displacement, not from recovered rates
            extras["work"] = interval_control_work(self.system, q, u)
        return Trajectory.of_system(self.system, self.step_length * np.arange(N + 1), q, v, u, nu, self._metadata(),
                                    **extras)

    def _extras(self):
        """The scheme's own unknowns by name (multipliers ``lam``, increments ``w``, chart ``theta``);
        hook 18 (extend: an override adds to ``super()._extras()``)."""
        out = {}
        if self.system.bodies and self.body[next(iter(self.system.bodies))].component("lam") is not None:
            out["lam"] = np.array([[pyo.value(x) for x in self._lam_array(i)] for i in self.intervals])
        for stage, _, _ in self.control_stages:  # the controls of the other stages
            if stage != "u":
                out[stage] = np.array([[pyo.value(self.component(stage)[i, a]) for a in self.actuated]
                                       for i in self.intervals]).reshape(self.config.steps, -1)
        for name, index in (("w", self.intervals), ("theta", self.nodes), ("vt", self.nodes)):
            if self.component(name) is not None:
                values = self.component(name)
                out[name] = np.array([[pyo.value(values[k, j]) for j in self.velocities] for k in index])
        dual = self.model().component("dual")
        if (self.record.multipliers and isinstance(dual, pyo.Suffix) and dual.import_enabled()
                and self.momentum_rows(0)[0] in dual):
            out["momentum_multipliers"] = self.momentum_multiplier_values(dual)
        return out

    def momentum_rows(self, i: int) -> list[Any]:
        """The momentum-balance rows of interval i: one per coordinate (record ``multipliers``
        ``"redundant"``: bem, ``body[b].momentum_balance[i, c]``) or per generalised velocity
        (``"reduced"``, ``"chart"``: rem, gc, ``momentum_balance[i, j]``)."""
        if self.record.multipliers.per_coordinate:
            return [self.body[b].momentum_balance[i, c] for b, c in self._coordinate_index()]
        return [self.momentum_balance[i, j] for j in self.reduced_coordinates]

    def momentum_multiplier_values(self, dual: Any) -> np.ndarray:
        """λ^p = -dual of the momentum rows per interval, (N, n) or (N, dof): the multipliers of
        the Lagrangian J + Σ λ·g with every row g as the block states it
        (:mod:`pyomo_mbdyn.ocp.multipliers` states the convention and reads them with checks).
        A row without a dual value gives NaN."""
        return np.array([[-dual[row] if row in dual else np.nan for row in self.momentum_rows(i)]
                         for i in self.intervals], dtype=float)

    def _recover_velocities(self, q, u):
        """Hook 17, required for schemes without velocity variables (the record's
        ``velocities_at_nodes`` False): v from q and u."""
        raise NotImplementedError(f"{type(self).__name__} does not implement the required hook "
                                  "'_recover_velocities' (its scheme has no node velocities; see "
                                  "'Implementing a scheme' in pyomo_mbdyn.schemes.base)")

    def _recover_joint_rates(self, q):
        """ν_{k,k+1} = P(q_{k+½})⁺ (q_{k+1} - q_k)/h for schemes without joint-rate variables."""
        return interval_joint_rates(self.system, q, self.step_length)
