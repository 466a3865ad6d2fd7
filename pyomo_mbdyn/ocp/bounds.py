"""Bounds of a problem in physical terms: controls, joint coordinates, URDF limits, increments.

:class:`Bounds` is the part of :class:`~pyomo_mbdyn.ocp.OptimalControlProblem` that bounds
what a user reads: controls (N, N m), joint coordinates (rad, m, from the assembled
configuration, in every scheme: variable bounds where the block's configuration form has the
coordinate as an unknown, rows on its expression otherwise), the position and effort limits of a
URDF, and the rotation increments of the reduced schemes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyomo.environ as pyo

from ..errors import ConfigurationError
from ..mechanics.numeric import check_numeric, real
from ..schemes.configuration_forms import is_rotation

if TYPE_CHECKING:
    from ..mechanics.urdf import JointLimits
    from ..schemes.base import MultibodyBlockData

__all__ = ["Bounds"]


class Bounds:
    """Mixin of :class:`~pyomo_mbdyn.ocp.OptimalControlProblem` (see the module docstring); uses its
    ``dyn``, ``block`` and :meth:`~pyomo_mbdyn.ocp.OptimalControlProblem.joint_coordinates`."""

    #: set by :class:`~pyomo_mbdyn.ocp.OptimalControlProblem` (declared here for the type checker)
    dyn: MultibodyBlockData
    block: Any

    if TYPE_CHECKING:
        def joint_coordinates(self) -> Any: ...

    def bound_controls(self, lower: float | dict[str, float] | None = None,
                       upper: float | dict[str, float] | None = None) -> None:
        """``lower_a ≤ u[i, a] ≤ upper_a`` at every interval (N or N m, the sign of ``u``).

        ``lower``, ``upper``: a number for every actuator, a dict by actuated
        coordinate (others unbounded), or None.  ``u`` is the applied
        generalised force (:mod:`pyomo_mbdyn.mechanics.system`): a motor that can
        only push along its axis is ``bound_controls(0, U)``; a symmetric bound
        ``|u| ≤ U`` is ``bound_controls(-U, U)``.  Bounds of variables, not
        rows: the problem size does not change.
        """
        dyn = self.dyn
        names = list(dyn.actuated)
        lo = self._bounds_per("bound_controls", "lower", lower, names)
        hi = self._bounds_per("bound_controls", "upper", upper, names)
        bad = {a: (lo[a], hi[a]) for a in names if lo[a] is not None and hi[a] is not None and lo[a] > hi[a]}
        if bad:
            raise ConfigurationError(f"bound_controls: lower > upper for {bad}")
        for i in dyn.intervals:
            for a in names:
                for var in dyn.control_variables(i, a):  # every control stage of the scheme
                    if lo[a] is not None:
                        var.setlb(lo[a])
                    if hi[a] is not None:
                        var.setub(hi[a])

    def bound_joint(self, joint: str, lower: float | dict[str, float] | None = None,
                    upper: float | dict[str, float] | None = None) -> None:
        """``lower ≤ θ_k ≤ upper`` for the joint coordinates of ``joint`` at every node k ≥ 1.

        ``joint``: a joint name (all its coordinates) or a coordinate name
        (``"elbow.angle"``); ``lower``, ``upper``: a number (rad or m, from
        ``system.q0`` as in :meth:`joint_coordinates`; for several coordinates,
        a number for all or a dict by coordinate) or None.  Variable bounds where
        the coordinate is an unknown (chart forms), else the rows
        ``ocp.joint_bound[k, name]``.  The initial value must lie within the
        bounds (it is fixed).  A coordinate the scheme cannot express raises
        :class:`~pyomo_mbdyn.errors.NotRepresentableError`.
        """
        from ..schemes.configuration_forms import reference_coordinates
        from .kinematics import joint_dofs

        dyn, form = self.dyn, self.dyn.configuration_form
        dofs = joint_dofs(dyn.system, joint, "bound_joint")
        form.check(dofs, f"bound_joint({joint!r})")
        lo = self._bounds_per("bound_joint", "lower", lower, dofs)
        hi = self._bounds_per("bound_joint", "upper", upper, dofs)
        theta0 = dict(zip(dyn.velocities, reference_coordinates(dyn)))
        for d in dofs:
            if lo[d] is None and hi[d] is None:
                raise ConfigurationError(f"bound_joint({joint!r}): give lower or upper for {d!r}")
            if lo[d] is not None and hi[d] is not None and lo[d] > hi[d]:
                raise ConfigurationError(f"bound_joint({joint!r}): lower {lo[d]} > upper {hi[d]} for {d!r}")
            if not ((lo[d] is None or lo[d] <= theta0[d] + 1e-12) and (hi[d] is None or theta0[d] <= hi[d] + 1e-12)):
                raise ConfigurationError(f"bound_joint({joint!r}): the initial value {d} = {theta0[d]:.6g} lies "
                                         f"outside [{lo[d]}, {hi[d]}] (the initial state is fixed)")
        if form.bound_joint(dofs, lo, hi):
            return
        coordinate = self.joint_coordinates()
        if self.block.component("joint_bound") is None:
            self.block.joint_bound = pyo.Constraint(pyo.Any)
        for k in dyn.nodes:
            if k == 0:
                continue
            for d in dofs:
                self.block.joint_bound[k, d] = (lo[d], coordinate[k, d], hi[d])

    def apply_joint_limits(self, limits: dict[str, JointLimits] | None = None) -> list[str]:
        """The position limits of every joint in ``limits`` through :meth:`bound_joint`
        (rows or variable bounds, as there); returns the joints bounded.

        ``limits``: ``{joint: JointLimits}`` (default ``system.urdf_limits``, from
        :meth:`MultibodySystem.from_urdf <pyomo_mbdyn.mechanics.MultibodySystem.from_urdf>`);
        joints without position limits (continuous, planar, floating) are left free.
        The initial configuration must lie within the limits (it is fixed): a URDF's
        zero often does not (the Panda's fourth joint: upper −0.0698 rad).
        """
        limits = self._joint_limits("apply_joint_limits", limits)
        bounded = []
        for joint, lim in limits.items():
            if lim.lower is None and lim.upper is None:
                continue
            self.bound_joint(joint, lim.lower, lim.upper)
            bounded.append(joint)
        return bounded

    def apply_effort_limits(self, limits: dict[str, JointLimits] | None = None) -> list[str]:
        """``|u[i, a]| ≤ effort`` for every actuated coordinate of a joint in ``limits`` with
        an effort limit (N m or N; :meth:`bound_controls`); returns the coordinates bounded.

        ``limits``: ``{joint: JointLimits}`` (default ``system.urdf_limits``).  A joint
        with an effort limit but no actuated coordinate is a :class:`ConfigurationError`
        (its limit could not be applied).
        """
        limits = self._joint_limits("apply_effort_limits", limits)
        actuated = set(self.dyn.actuated)
        bound = {}
        for joint, lim in limits.items():
            if lim.effort is None:
                continue
            dofs = [d for d in lim.dofs if d in actuated]
            if not dofs:
                raise ConfigurationError(f"apply_effort_limits: joint {joint!r} has an effort limit "
                                         f"({lim.effort}) but none of its coordinates {list(lim.dofs)} is actuated")
            bound.update({d: float(lim.effort) for d in dofs})
        if bound:
            self.bound_controls({d: -e for d, e in bound.items()}, bound)
        return list(bound)

    def apply_velocity_limits(self, limits: dict[str, JointLimits] | None = None, scale: float = 1.0,
                              node_rates: bool | None = None) -> list[str]:
        """The velocity limits of every joint in ``limits`` on the step's mean joint rate, and on the
        joint rates at the nodes where the scheme has them as unknowns; returns the coordinates bounded.

        ``limits``: ``{joint: JointLimits}`` (default ``system.urdf_limits``, from
        :meth:`MultibodySystem.from_urdf <pyomo_mbdyn.mechanics.MultibodySystem.from_urdf>`), with
        ``JointLimits.velocity`` v_max in rad/s or m/s; joints without one are left free, and so is a
        velocity of 0, which several URDFs write for "not stated" (example-robot-data's double pendulum:
        a joint that may not move has equal position limits instead).  ``scale`` (> 0, default 1)
        multiplies every limit (0.8: keep a fifth in reserve).  One coordinate per joint bounded
        (revolute, continuous, prismatic); a velocity limit on a joint of several coordinates is refused.

        The measure, the same in every scheme that expresses the joint coordinates
        (:meth:`joint_coordinates`):

        * every interval i: ``|θ_{i+1} − θ_i| ≤ h v_max`` — the mean rate of the step, on the step in
          the configuration form's own terms (the chart difference of gc and the absolute forms, the
          increment w_i of rem/dmocc lifted, the half-angle step of the node forms): the rows
          ``ocp.velocity_limit[i, coordinate]``, ranged ``−h v_max ≤ θ_{i+1} − θ_i ≤ h v_max``
          (linear in the chart and increment forms; with a free final time
          ``−v_max ≤ (θ_{i+1} − θ_i)/h ≤ v_max``);
        * where the joint rates at the nodes are unknowns (gc, lobatto_gc: the chart velocity ṽ_k,
          which is θ̇_k for these joints): the variable bounds ``|ṽ_k| ≤ v_max`` at k ≥ 1 (the initial
          rate is fixed and must lie within).  In gc the mean rate is the nodes' mean
          (θ_{k+1} − θ_k = h(ṽ_k + ṽ_{k+1})/2), so its rows are implied; lobatto_gc's are not, and
          they bound its middle stage too: the quadratic through θ_k, θ_{k+½}, θ_{k+1} whose action
          Simpson's rule takes has at t_{k+½} the rate (θ_{k+1} − θ_k)/h exactly.

        ``node_rates``: None (default) bounds the node rates where they are unknowns and nothing more;
        ``True`` also bounds, in the schemes with node velocities v_k off the tangent space (bem, rem,
        rattle), their joint rates by the one definition of :mod:`pyomo_mbdyn.joint_space`, the
        M-orthogonal projection θ̇_k = (PᵀMP)⁻¹PᵀM v_k: variables ``ocp.node_rate[k, coordinate]``
        (all coordinates, the limited ones bounded) with the rows ``P(q_k)ᵀ M (v_k − P(q_k) θ̇_k) = 0``
        (``ocp.node_rate_projection``, k ≥ 1; trees only); ``False`` bounds no node rates at all (gc:
        the mean rows alone).  Not the default, by measurement on the Panda's default problem (rem,
        N = 50, docs/guide "Robots from URDF"): with the mean rates bounded, the node rates alternate
        about them step by step (the midpoint rule's node velocities carry a zigzag the configurations
        do not follow) and reach 1.85 v_max in joint 7 while every step's rate is within, and the
        torques of the joints at their limit alternate too (second difference up to 0.23 of the effort
        limit in joint 7, GC's 0.04); bounding the node rates as well removes both (0.03) and moves J
        by 0.1 % (196.58 → 196.78), at about 4× the time (38 iterations, 17 s against 33, 4.3 s).
        The final rest, θ̇_N = 0, is stated by :meth:`require_final_rest`.

        Before the solve: a joint whose target (:meth:`fix_final_configuration`, called before or after)
        lies farther from the start than ``T v_max`` cannot reach it and is a
        :class:`ConfigurationError` ("needs at least … s at the URDF's velocity limits"; T the horizon,
        with a free final time its upper bound).  That is the plain bound: with rest at both ends the
        shortest time is longer (gc: the node rates rise from zero, ``T − h``), and what is left the
        solver reports as infeasible.  Bad input — a velocity that is negative, NaN or not a number,
        ``scale`` not positive, unknown joints, a coordinate bounded twice, ``node_rates=True`` on a
        scheme without node velocities (dmocc) — is a :class:`ConfigurationError` naming it.
        """
        from ..schemes.configuration_forms import reference_coordinates

        what = "apply_velocity_limits"
        source = "the URDF's" if limits is None else "the given"
        limits = self._joint_limits(what, limits)
        scale = real(scale, f"{what}: scale", positive=True)
        if not (node_rates is None or isinstance(node_rates, bool)):
            raise ConfigurationError(f"{what}: node_rates must be None, True or False, got {node_rates!r}")
        dyn, form = self.dyn, self.dyn.configuration_form
        system = dyn.system
        bound = {}
        for joint, lim in limits.items():
            v_max = _velocity_number(what, joint, lim.velocity)
            if v_max is None:
                continue
            dofs = list(system.joints[joint].dofs)
            if len(dofs) != 1:
                raise ConfigurationError(f"{what}: joint {joint!r} ({system.joints[joint].kind}) has the "
                                         f"coordinates {dofs}; a velocity limit ({v_max}) bounds one rate")
            bound[dofs[0]] = scale * v_max
        if not bound:
            return []
        form.check(list(bound), what)
        applied = getattr(self, "_velocity_limits", {})
        twice = sorted(set(bound) & set(applied))
        if twice:
            raise ConfigurationError(f"{what}: the velocity of {twice} is bounded already (an earlier call)")
        rates: dict[str, Any] = {d: None if node_rates is False else form.node_rates(d) for d in bound}
        projected = node_rates is True and all(r is None for r in rates.values())
        if projected:
            if not dyn.record.velocities_at_nodes:
                raise ConfigurationError(f"{what}: node_rates=True, but the {dyn.scheme} block has no node "
                                         "velocities (its rates are the steps' mean rates, bounded anyway)")
            if system.has_loops:
                raise ConfigurationError(f"{what}: node_rates=True on a system with closed loops: the joint "
                                         "rates of the projection are defined for trees (bound the mean rates)")
        theta0 = dict(zip(dyn.velocities, reference_coordinates(dyn)))
        for d, v_max in bound.items():
            if rates[d] is not None and abs(pyo.value(rates[d][0])) > v_max * (1 + 1e-12):
                raise ConfigurationError(f"{what}: the initial rate of {d!r}, {pyo.value(rates[d][0]):.6g}, "
                                         f"exceeds {source} velocity limit {v_max:.6g} (the initial state is fixed)")
        self._check_reachable(what, bound, source)
        self._velocity_limits = {**applied, **bound}
        self._velocity_source = {**getattr(self, "_velocity_source", {}), **{d: source for d in bound}}
        if self.block.component("velocity_limit") is None:
            self.block.velocity_limit = pyo.Constraint(pyo.Any)
        rows = self.block.velocity_limit
        for d, v_max in bound.items():
            steps = form.joint_steps(d, np.array([theta0[name] for name in dyn.velocities]))
            for i in dyn.intervals:
                if dyn.free_horizon:
                    rows[i, d] = (-v_max, steps[i] / dyn.h, v_max)
                else:
                    rows[i, d] = (-v_max * dyn.step_length, steps[i], v_max * dyn.step_length)
            if rates[d] is not None:
                for k in dyn.nodes:
                    if k == 0:
                        continue
                    var = rates[d][k]
                    var.setlb(max(-v_max, var.lb if var.lb is not None else -np.inf))
                    var.setub(min(v_max, var.ub if var.ub is not None else np.inf))
        if projected:
            self._bound_projected_rates(bound)
        return list(bound)

    def _bound_projected_rates(self, bound):
        """``ocp.node_rate[k, j]`` with ``P(q_k)ᵀ M (v_k − P(q_k) θ̇_k) = 0`` at k ≥ 1 and the limited
        rates bounded (:meth:`apply_velocity_limits`, ``node_rates=True``)."""
        dyn, system = self.dyn, self.dyn.system
        if self.block.component("node_rate") is None:
            names = list(dyn.velocities)
            M = np.asarray(system.mass_matrix(), float)
            self.block.node_rate = pyo.Var(dyn.nodes, names, initialize=0.0)
            rows = {}
            for k in dyn.nodes:
                if k == 0:
                    continue
                P = np.asarray(system.null_space(dyn.q_array(k)), dtype=object)
                theta_dot = np.array([self.block.node_rate[k, j] for j in names], dtype=object)
                residual = P.T @ (M @ (np.asarray(dyn.v_array(k), dtype=object) - P @ theta_dot))
                rows.update({(k, j): residual[a] == 0 for a, j in enumerate(names)})
            self.block.node_rate_projection = pyo.Constraint(list(rows), rule=lambda b, k, j: rows[k, j])
        for d, v_max in bound.items():
            for k in dyn.nodes:
                if k > 0:
                    self.block.node_rate[k, d].setlb(-v_max)
                    self.block.node_rate[k, d].setub(v_max)

    def _check_reachable(self, what, bound=None, source=None, target=None):
        """Raise if a joint's target lies farther from its start than ``T v_max`` (see
        :meth:`apply_velocity_limits`); a no-op until both the target and the limits are known."""
        from ..schemes.configuration_forms import reference_coordinates

        target = getattr(self, "_final_coordinates", None) if target is None else target
        bound = getattr(self, "_velocity_limits", {}) if bound is None else bound
        if not target or not bound:
            return
        dyn = self.dyn
        T = (np.inf if dyn.final_time.ub is None else float(dyn.final_time.ub)) if dyn.free_horizon else dyn.final_time_value
        theta0 = dict(zip(dyn.velocities, reference_coordinates(dyn)))
        sources = getattr(self, "_velocity_source", {})
        need = {d: abs(target[d] - theta0[d]) / v_max for d, v_max in bound.items() if d in target}
        late = sorted((d for d in need if need[d] > T * (1 + 1e-12)), key=need.get, reverse=True)
        if late:
            d, v_max = late[0], bound[late[0]]  # the joint that needs the longest, the others listed
            unit = "rad" if is_rotation(d) else "m"
            others = (f"; also {', '.join(f'{o.rsplit(chr(46), 1)[0]!r} ({need[o]:.6g} s)' for o in late[1:])}"
                      if late[1:] else "")
            raise ConfigurationError(
                f"{what}: joint {d.rsplit('.', 1)[0]!r} moves {abs(target[d] - theta0[d]):.6g} {unit} from "
                f"{theta0[d]:.6g} to {target[d]:.6g}, which needs at least {need[d]:.6g} s at "
                f"{source or sources.get(d, 'the')} velocity limits ({v_max:.6g} {unit}/s){others}; the horizon is "
                f"T = {T:.6g} s — lengthen it or move the target")

    def _joint_limits(self, what, limits):
        from ..mechanics.urdf import JointLimits

        if limits is None:
            limits = getattr(self.dyn.system, "urdf_limits", None)
            if limits is None:
                raise ConfigurationError(f"{what}: {self.dyn.system} has no urdf_limits (not built by "
                                         "MultibodySystem.from_urdf); pass limits={joint: JointLimits(...)}")
        if not isinstance(limits, dict) or not all(isinstance(v, JointLimits) for v in limits.values()):
            raise ConfigurationError(f"{what}: limits must map joint names to JointLimits, got {limits!r:.200}")
        unknown = sorted(set(limits) - set(self.dyn.system.joints))
        if unknown:
            raise ConfigurationError(f"{what}: limits name joints {unknown} that {self.dyn.system} does not have")
        return limits

    @staticmethod
    def _bounds_per(what, side, value, names):
        if value is None:
            return {a: None for a in names}
        if isinstance(value, dict):
            unknown = sorted(set(value) - set(names))
            if unknown:
                raise ConfigurationError(f"{what}: {side} names {unknown}, not among {names}")
            out = {a: None for a in names}
            out.update({a: _bound_number(what, side, v, a) for a, v in value.items()})
            return out
        return {a: _bound_number(what, side, value, a) for a in names}

    def bound_rotation_increments(self, limit: float = 1.0) -> None:
        """``|rotation increment| ≤ limit`` per step and rotation coordinate (anti-aliasing).

        Needs a reduced scheme with increments ``w`` (rem, dmocc).  In dmocc's
        absolute form the increments are the chart differences θ_{k+1} - θ_k,
        bounded by the linear rows ``ocp.rotation_increment`` (exact for joint
        angles; for the rotation vector of a free body a first-order proxy of
        the rotation angle of the step)."""
        from ..discretization.registry import scheme_names

        dyn = self.dyn
        if not dyn.record.increments:
            raise ConfigurationError(f"{dyn.scheme}: no rotation increments to bound (use one of "
                                     f"{scheme_names(increments=True)})")
        check_numeric(limit, "bound_rotation_increments: limit", "a positive number")
        if not limit > 0:
            raise ConfigurationError(f"bound_rotation_increments: limit must be positive, got {limit!r}")
        rotations = [j for j in dyn.velocities if is_rotation(j)]
        dyn.configuration_form.bound_increments(rotations, float(limit), self.block, "rotation_increment")


def _velocity_number(what, joint, value):
    """A joint's velocity limit as a float, None where it states none (absent, 0 or infinite)."""
    if value is None:
        return None
    check_numeric(value, f"{what}: velocity limit of {joint!r}", "a non-negative number or None")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigurationError(f"{what}: velocity limit of {joint!r} must be a non-negative number or None, "
                                 f"got {value!r}") from None
    if np.isnan(number) or number < 0:
        raise ConfigurationError(f"{what}: velocity limit of {joint!r} must be a non-negative number, got {value!r}")
    return None if number == 0 or np.isinf(number) else number


def _bound_number(what, side, value, name):
    if value is None:
        return None
    check_numeric(value, f"{what}: {side} bound of {name!r}", "a number or None")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigurationError(f"{what}: {side} bound of {name!r} must be a number or None, got {value!r}") from None
    if np.isnan(number):
        raise ConfigurationError(f"{what}: {side} bound of {name!r} is NaN")
    return None if np.isinf(number) else number
