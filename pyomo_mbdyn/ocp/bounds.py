"""Bounds of a problem in physical terms: controls, joint coordinates, URDF limits, increments.

:class:`Bounds` is the part of :class:`~pyomo_mbdyn.ocp.OptimalControlProblem` that bounds
what a user reads: controls (N, N m), joint coordinates (rad, m, from the assembled
configuration, in every scheme: variable bounds where the block's configuration form has the
coordinate as an unknown, rows on its expression otherwise), the position and effort limits of a
URDF, and the rotation increments of the reduced schemes.
"""

import numpy as np
import pyomo.environ as pyo

from ..errors import ConfigurationError
from ..mechanics.numeric import check_numeric
from ..schemes.configuration_forms import is_rotation

__all__ = ["Bounds"]


class Bounds:
    """Mixin of :class:`~pyomo_mbdyn.ocp.OptimalControlProblem` (see the module docstring); uses its
    ``dyn``, ``block`` and :meth:`~pyomo_mbdyn.ocp.OptimalControlProblem.joint_coordinates`."""

    def bound_controls(self, lower=None, upper=None):
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

    def bound_joint(self, joint, lower=None, upper=None):
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

    def apply_joint_limits(self, limits=None):
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

    def apply_effort_limits(self, limits=None):
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

    def bound_rotation_increments(self, limit=1.0):
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
