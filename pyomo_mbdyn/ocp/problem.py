"""Optimal-control problems on top of a scheme block.

:class:`OptimalControlProblem` adds one named sub-block (by default ``ocp`` on
the parent of the scheme block) with the objective and the boundary
conditions.  It touches the scheme block only where a condition is best
stated on the block's own components: a final configuration fixes node
variables (q_N or θ_N) and, in the ``"nodes"`` form, deactivates the rows
Φ(q_N) = 0 that the fixed q_N fulfils; rotation-increment bounds are bounds
of the increment variables.  The conditions:

* control effort ``J = h Σ_i Σ_a w_a u[i, a]²`` (the papers' objective, DMOCC
  §1.5: ``J_d = h Σ ‖τ_n‖²``);
* free final time T (blocks built with ``free_horizon``, ``h = T/N``) and the
  time objective ``weight · T``, alone or added to the effort;
* final position of a body point; final orientation through the skew part of
  ``R_targetᵀ R_N`` (three regular rows — never the degenerate diagonal form
  (7.1) of the DMOCC paper, whose Jacobian vanishes at the solution);
* final rest: ``v_N = 0`` for the energy-momentum schemes, and for the
  variational schemes the reduced discrete Legendre transform
  ``P(q_N)ᵀ[D2 L_d(q_{N-1}, q_N)] - (h/2) u_{N-1} = 0`` (DMOCC 3.21 with
  ``D2 L = 0``), dropping rows whose momenta are conserved anyway;
* bounds on the per-step rotation increments against aliasing (spec §0.7).

Which form each condition takes is read from the scheme's registry record
(``dyn.record``: ``final_configuration``, ``final_rest``, ``increments``,
``velocities_at_nodes``), never from its name.

Sign convention: ``u`` is minus the applied generalised force (see
:mod:`pyomo_mbdyn.mechanics.system`); the effort objective does not see it.
"""

import warnings

import numpy as np
import pyomo.environ as pyo

from ..errors import ConfigurationError, InputTypeError, ModellingWarning
from ..mechanics.linalg import as_array, matmul
from ..discretization import lagrangian_slopes

__all__ = ["OptimalControlProblem"]


class OptimalControlProblem:
    """Objective and boundary conditions for a scheme block ``dyn``.

    Parameters
    ----------
    dyn : a scheme block on a MultibodySystem whose record allows optimal control
        (``record.optimal_control``: bem, rem, dmocc, dmocc_lm, gc, rattle, …)
    name : str
        Name of the sub-block added to the model holding ``dyn``.
    """

    def __init__(self, dyn, name="ocp"):
        rec = getattr(dyn, "record", None)
        if rec is None or not rec.optimal_control:
            raise ConfigurationError(
                f"{getattr(dyn, 'scheme', dyn)!r}: no direct optimal control on this block "
                "(forward dynamics only, or not a multibody scheme block)")
        self.dyn = dyn
        model = dyn.parent_block()
        if model.component(name) is not None:
            raise ConfigurationError(f"the model already has a component named {name!r}")
        model.add_component(name, pyo.Block())
        self.block = model.component(name)
        self.block.final_position = pyo.ConstraintList()
        self.block.final_orientation = pyo.ConstraintList()
        self.block.final_configuration = pyo.ConstraintList()
        self.block.final_rest = pyo.ConstraintList()

    # -- objective -------------------------------------------------------------
    def minimise_control_effort(self, weights=None):
        """``J = h Σ_i Σ_a w_a u[i, a]²``; ``weights`` maps actuated names to w_a (default 1).

        Called once per problem (a second call is a :class:`ConfigurationError`:
        the objective would be replaced silently)."""
        dyn = self.dyn
        if weights is not None and not isinstance(weights, dict):
            raise InputTypeError(f"minimise_control_effort: weights must be a dict {{actuated coordinate: w}}, "
                                 f"got {type(weights).__name__} {weights!r}")
        w = {a: 1.0 for a in dyn.actuated}
        unknown = set(weights or {}) - set(w)
        if unknown:
            raise ConfigurationError(f"minimise_control_effort: no actuated coordinates {sorted(unknown)}; "
                                     f"actuated: {list(w)}")
        w.update(weights or {})
        bad = {a: value for a, value in w.items() if not _positive_number(value)}
        if bad:
            raise ConfigurationError(f"minimise_control_effort: weights must be positive and finite, got {bad}")
        if self.block.component("control_effort") is not None:
            raise ConfigurationError("minimise_control_effort: already called on this problem; a second call "
                                     "would replace the objective — build a new problem for other weights")
        # the weights as stated, for the control equation u = -E λ / (2 w) (ocp.multipliers)
        self.block.effort_weights = pyo.Param(list(dyn.actuated), initialize={a: float(w[a]) for a in dyn.actuated})
        self.block.control_effort = pyo.Objective(
            expr=dyn.h * sum(w[a] * dyn.u[i, a] ** 2 for i in dyn.intervals for a in dyn.actuated))
        return self._combined_objective() or self.block.control_effort

    # -- free final time -----------------------------------------------------------
    def free_final_time(self, lower, upper):
        """The final time T free within ``lower ≤ T ≤ upper``; returns the variable ``dyn.final_time``.

        The scheme block must have been built with ``free_horizon=(lower, upper)``
        (then ``h = T/N`` is a named Expression in its equations); this sets new
        bounds on that variable.  Controls keep their meaning (forces), so
        ``J = h Σ|u|²`` stays the effort of the motion.
        """
        dyn = self._free_horizon_block("free_final_time")
        bounds = (float(lower), float(upper))
        if not (0.0 < bounds[0] < bounds[1] < np.inf):
            raise ConfigurationError(f"free_final_time: need 0 < lower < upper < inf, got ({lower!r}, {upper!r})")
        dyn.final_time.setlb(bounds[0])
        dyn.final_time.setub(bounds[1])
        if not bounds[0] <= dyn.final_time.value <= bounds[1]:
            dyn.final_time.set_value(min(max(dyn.final_time.value, bounds[0]), bounds[1]))
        return dyn.final_time

    def minimise_final_time(self, weight=1.0):
        """Minimise ``weight · T`` (time-optimal control), alone or added to the effort objective.

        Needs a free final time (:meth:`free_final_time`).  The term is the
        Expression ``ocp.final_time_cost``; with :meth:`minimise_control_effort` also
        called (before or after), the one active objective is ``ocp.objective`` =
        effort + ``weight · T`` and ``ocp.control_effort`` is deactivated (its value
        stays readable).
        """
        dyn = self._free_horizon_block("minimise_final_time")
        if not (isinstance(weight, (int, float)) and np.isfinite(weight) and weight > 0):
            raise ConfigurationError(f"minimise_final_time: weight must be a positive number, got {weight!r}")
        if self.block.component("final_time_cost") is not None:
            raise ConfigurationError("minimise_final_time: already called on this problem")
        self.block.final_time_cost = pyo.Expression(expr=float(weight) * dyn.final_time)
        combined = self._combined_objective()
        if combined is None:
            self.block.objective = pyo.Objective(expr=self.block.final_time_cost)
            combined = self.block.objective
        return combined

    def _free_horizon_block(self, what):
        dyn = self.dyn
        if not dyn.free_horizon:
            raise ConfigurationError(
                f"{what}: the {dyn.scheme} block {dyn.name!r} was built with a fixed horizon "
                f"T = {dyn.config.horizon}; build it with free_horizon=(lower, upper) "
                "(h = T/N is a constant of its equations otherwise)")
        return dyn

    def _combined_objective(self):
        """Effort + time: one active ``ocp.objective`` when both terms are asked for, else None."""
        effort, time_cost = self.block.component("control_effort"), self.block.component("final_time_cost")
        if effort is None or time_cost is None:
            return None
        effort.deactivate()
        if self.block.component("objective") is not None:
            self.block.del_component("objective")
        self.block.objective = pyo.Objective(expr=effort.expr + time_cost)
        return self.block.objective

    # -- final conditions ---------------------------------------------------------
    def _final_q(self, body):
        N = self.dyn.config.steps
        blk = self.dyn.body[body]
        return np.array([blk.q[N, c] for c in blk.coordinates], dtype=object)

    def _body(self, what, body):
        bodies = self.dyn.system.bodies
        if not isinstance(body, str) or body not in bodies:
            raise ConfigurationError(f"{what}: no body named {body!r} in {self.dyn.system}; bodies: {list(bodies)}")
        return bodies[body]

    def fix_final_position(self, body, target, point=(0, 0, 0)):
        """The body point (components in the body frame, or the name of a body point) at
        ``target`` (3 finite numbers) at t_N."""
        b = self._body("fix_final_position", body)
        target = _finite_vector(target, 3, f"fix_final_position of {body!r}: target")
        components = b.point_components(point)
        q = self._final_q(body)
        position = b.point(q, components) if b.has_orientation else q[0:3]
        for k in range(3):
            self.block.final_position.add(position[k] == float(target[k]))

    def fix_final_orientation(self, body, R_target=np.eye(3), exclude_half_turns=False):
        """skew(R_targetᵀ R_N) = 0 with R_N = [d_1 d_2 d_3] at t_N (three regular rows).

        The skew part also vanishes when R_N differs from R_target by a half
        turn (π about any axis), and there its Jacobian has rank 2.  When the
        target itself is a half turn from the start (the satellite: π about
        (1, 2, 3)/√14), the initial orientation is such a point.  With
        ``exclude_half_turns`` the inequality ``tr(R_targetᵀ R_N) ≥ 1``
        (relative rotation below π/2) removes those points; it is inactive at
        R_N = R_target (trace 3), so the optimum is unchanged.  Off by default:
        it adds a row to the paper's problem sizes.
        """
        b = self._body("fix_final_orientation", body)
        if not b.has_orientation:
            raise ConfigurationError(f"fix_final_orientation: {b} has no orientation (a point mass)")
        R_target = _rotation_matrix(R_target, f"fix_final_orientation of {body!r}: R_target")
        q = self._final_q(body)
        d = [q[3:6], q[6:9], q[9:12]]
        R = np.array([[d[j][i] for j in range(3)] for i in range(3)], dtype=object)
        E = matmul(R_target.T, R)
        for i, j in ((2, 1), (0, 2), (1, 0)):
            self.block.final_orientation.add(E[i, j] - E[j, i] == 0)
        if exclude_half_turns:
            self.block.final_orientation.add(E[0, 0] + E[1, 1] + E[2, 2] >= 1.0)

    #: generalised velocities whose increments add up exactly under the relative
    #: reparametrisation (one fixed axis in the parent): Σ_k w_k = θ_N - θ_0
    _ADDITIVE = {"revolute", "prismatic", "cylindrical"}

    def fix_final_configuration(self, theta):
        """The final configuration ``q_f = q(θ)`` of the system's chart.

        ``θ`` are the chart coordinates (:func:`~pyomo_mbdyn.discretization.chart`:
        the absolute reparametrisation from ``system.q0``; for a chain of
        revolute joints from the ground, the joint-angle changes from the
        reference configuration).  Each scheme gets its regular form (thesis
        §2.10; spec §7.5):

        * ``"chart"`` (gc, dmocc with absolute configurations): ``θ_N = θ`` (fixed);
        * ``"increments"`` (rem, dmocc): ``Σ_k w_k = θ - θ_0`` (dof rows), exact for
          revolute, prismatic and cylindrical joints whose increments add up;
        * ``"nodes"`` (bem, dmocc_lm, rattle): ``q_N = q_f`` fixed, and
          ``Φ(q_N) = 0`` deactivated since ``q_f`` fulfils it (otherwise LICQ fails).

        The form is the block's ``final_configuration_form`` (from its record).

        Once per block: a second call (from this or another problem on the same
        block) is a :class:`ConfigurationError` — it would override the first target
        in the ``chart`` and ``nodes`` forms and contradict it in the ``increments``
        form.  The ``nodes`` form fixes ``q(θ)``, in which a rotation angle is
        known only modulo 2π: a target more than π from the start in a rotation
        coordinate (``hinge.angle`` = 100 rad, say) gives a :class:`ModellingWarning`
        — how many turns the motion makes is then left to the initial guess — and
        the ``increments`` and ``chart`` forms (rem, dmocc, gc) impose the angle itself.
        """
        from ..discretization import chart, chart_coordinates

        dyn, system = self.dyn, self.dyn.system
        form = dyn.final_configuration_form
        N = dyn.config.steps
        try:
            theta = np.asarray(theta, float).reshape(-1)
        except (TypeError, ValueError):
            raise ConfigurationError(f"fix_final_configuration: expected {system.n_velocities} chart coordinates "
                                     f"for {list(dyn.velocities)}, got {theta!r}") from None
        if theta.shape != (system.n_velocities,) or not np.all(np.isfinite(theta)):
            raise ConfigurationError(
                f"fix_final_configuration: expected {system.n_velocities} finite chart coordinates "
                f"for {list(dyn.velocities)}, got {theta.tolist()}")
        previous = getattr(dyn, "_final_configuration_target", None)
        if previous is not None:
            raise ConfigurationError(
                f"fix_final_configuration: the final configuration of the {dyn.scheme} block {dyn.name!r} is "
                f"already fixed (θ = {previous}); a second call would override or contradict it — build a new "
                f"problem (and block) for another target")
        if form == "nodes":
            self._warn_turns(theta)
        if form == "chart":
            dyn._final_configuration_target = theta.tolist()
            for j, name in enumerate(dyn.velocities):
                dyn.theta[N, name].fix(theta[j])
            return
        if form == "increments":
            kinds = {}
            for joint in system.joints.values():
                for d in joint.dofs:
                    kinds[d] = joint.kind
            additive = getattr(system, "additive_increments", False)
            bad = [] if additive else [j for j in dyn.velocities if kinds.get(j) not in self._ADDITIVE]
            if bad:
                raise ConfigurationError(
                    f"fix_final_configuration on a {dyn.scheme} block: the increments of {bad} do not "
                    "add up (free bodies, spherical or universal joints); impose the final state with "
                    "fix_final_position / fix_final_orientation instead")
            theta0 = chart_coordinates(system, dyn.q_initial)
            dyn._final_configuration_target = theta.tolist()
            for j, name in enumerate(dyn.velocities):
                self.block.final_configuration.add(
                    sum(dyn.w[i, name] for i in dyn.intervals) == float(theta[j] - theta0[j]))
            return
        q_f = np.asarray(chart(system, theta), float)
        dyn._final_configuration_target = theta.tolist()
        for idx, (name, c) in enumerate(dyn._coordinate_index()):
            dyn.body[name].q[N, c].fix(q_f[idx])
        for name in system.bodies:
            if dyn.body[name].component("internal_constraint") is not None:
                for r in dyn.body[name].internal:
                    dyn.body[name].internal_constraint[N, r].deactivate()
        for name in system.joints:
            for r in dyn.joint[name].rows:
                dyn.joint[name].joint_constraint[N, r].deactivate()

    def _warn_turns(self, theta):
        """The ``nodes`` form knows rotation angles modulo 2π: say so for targets beyond π from the start."""
        from ..discretization import chart_coordinates

        dyn = self.dyn
        theta0 = chart_coordinates(dyn.system, dyn.q_initial)
        for j, name in enumerate(dyn.velocities):
            if not name.split(".", 1)[1].startswith(("w", "angle")):
                continue
            change = float(theta[j] - theta0[j])
            if abs(change) > np.pi:
                wrapped = (change + np.pi) % (2 * np.pi) - np.pi
                warnings.warn(
                    f"fix_final_configuration on the {dyn.scheme} block {dyn.name!r}: {name} = {theta[j]:.6g} rad is "
                    f"{change:.6g} rad from the start, but the {dyn.scheme} scheme fixes the final configuration "
                    f"q(θ), which holds the angle only modulo 2π (as a change of {wrapped:.6g} rad): the number of "
                    f"turns is left to the initial guess; rem, dmocc and gc impose the angle itself",
                    ModellingWarning, stacklevel=3)

    def require_final_rest(self, drop=(), reduced=True):
        """Rest at t_N; ``drop`` names generalised velocities whose momentum rows
        are left out (momenta conserved anyway, e.g. the linear momentum of a
        free system without external forces — the rows would be redundant).

        Forms, by the record's ``final_rest``: ``"chart_velocity"`` (gc) ṽ_N = 0;
        ``"joint_rates"`` (bem, rem, rattle) with ``reduced`` (default) the joint
        rates ``ν_N = B(q_N) v_N = 0`` (thesis §2.10: dof rows, LICQ holds), else
        all of ``v_N = 0``; ``"legendre"`` (variational schemes) the reduced
        discrete Legendre transform (see the module docstring)."""
        dyn = self.dyn
        N = dyn.config.steps
        drop = [drop] if isinstance(drop, str) else list(drop)
        unknown = [j for j in drop if j not in dyn.velocities]
        if unknown:
            raise ConfigurationError(f"require_final_rest: drop names {unknown}, which are not generalised "
                                     f"velocities of the {dyn.scheme} block; they are {list(dyn.velocities)}")
        if getattr(dyn, "_final_rest_required", False):
            raise ConfigurationError(f"require_final_rest: already required on the {dyn.scheme} block "
                                     f"{dyn.name!r}; the rows would be stated twice (redundant, LICQ fails)")
        dyn._final_rest_required = True
        keep = [j for j in dyn.velocities if j not in set(drop)]
        form = dyn.record.final_rest
        if form == "chart_velocity":
            for name in keep:
                dyn.vt[N, name].fix(0.0)
            return
        if form == "joint_rates":
            if reduced:
                q_N, v_N = dyn.q_array(N), dyn.v_array(N)
                nu = matmul(dyn.system.control_matrix(q_N), as_array(v_N))
                for j, name in enumerate(dyn.velocities):
                    if name in keep:
                        self.block.final_rest.add(nu[j] == 0)
                return
            for name in dyn.system.bodies:
                for c in dyn.body[name].coordinates:
                    self.block.final_rest.add(dyn.body[name].v[N, c] == 0)
            return
        system, h = dyn.system, dyn.h
        q_prev, q_N = dyn.q_array(N - 1), dyn.q_array(N)
        _, D2 = lagrangian_slopes(system, h, q_prev, q_N)
        reduced = matmul(system.null_space(q_N).T, as_array(D2))
        u_full = {a: dyn.u[N - 1, a] for a in dyn.actuated}
        for j, name in enumerate(dyn.velocities):
            if name in keep:
                self.block.final_rest.add(reduced[j] - 0.5 * h * u_full.get(name, 0.0) == 0)

    # -- which actuators to keep (mixed-integer) -------------------------------------
    def select_actuators(self, max_active, bound, cost=None, exactly=False):
        """Choose which actuators to keep: a binary ``ocp.kept[a]`` per actuator with

            -U_a y_a ≤ u[i, a] ≤ U_a y_a   at every interval i  (``ocp.actuator_off``),
            Σ_a y_a ≤ k   (``exactly``: = k)                   (``ocp.actuator_count``),

        and, with ``cost`` (a number for every actuator or a dict per actuator), the
        fixed costs Σ_a c_a y_a added to the objective (``ocp.actuator_cost``).
        ``bound`` is U (a number or a dict per actuator): it must hold at the optimum
        of every subset for the MINLP to compare the subsets fairly, so choose it
        above the torques the kept actuators need.  The problem is a MINLP: solve it
        with ``casadi_bonmin`` (or ``bonmin``); :meth:`active_actuators` reads the
        chosen set.  With ``y`` fixed it is the NLP of that subset (u of the others
        bounded to zero), which is how :func:`pyomo_mbdyn.ocp.enumerate_actuators`
        checks the MINLP's answer.  Works with any scheme (u is common to all).
        """
        dyn = self.dyn
        names = list(dyn.actuated)
        if self.block.component("kept") is not None:
            raise ConfigurationError("select_actuators: already called on this problem")
        if not (isinstance(max_active, (int, np.integer)) and 1 <= max_active <= len(names)):
            raise ConfigurationError(f"select_actuators: max_active must be an integer in 1..{len(names)} "
                                     f"(the actuators {names}), got {max_active!r}")
        U = self._per_actuator("bound", bound, names)
        bad = {a: u for a, u in U.items() if not (np.isfinite(u) and u > 0)}
        if bad:
            raise ConfigurationError(f"select_actuators: bound must be positive and finite, got {bad}")
        c = self._per_actuator("cost", 0.0 if cost is None else cost, names)
        bad = {a: v for a, v in c.items() if not (np.isfinite(v) and v >= 0)}
        if bad:
            raise ConfigurationError(f"select_actuators: costs must be non-negative and finite, got {bad}")
        blk = self.block
        blk.actuators = pyo.Set(initialize=names, ordered=True)
        blk.kept = pyo.Var(blk.actuators, domain=pyo.Binary, initialize=1)
        blk.actuator_off = pyo.Constraint(
            dyn.intervals, blk.actuators, [-1, 1],
            rule=lambda b, i, a, side: side * dyn.u[i, a] <= U[a] * b.kept[a])
        count = sum(blk.kept[a] for a in names)
        blk.actuator_count = pyo.Constraint(expr=(count == max_active) if exactly else (count <= max_active))
        if any(c.values()):
            blk.actuator_cost = pyo.Expression(expr=sum(c[a] * blk.kept[a] for a in names))
            objectives = [o for o in dyn.model().component_data_objects(pyo.Objective, active=True)]
            if len(objectives) != 1:
                raise ConfigurationError(f"select_actuators: the costs need one active objective, found "
                                         f"{[o.name for o in objectives]}")
            objective = objectives[0]
            if objective is blk.component("objective"):
                objective.expr = objective.expr + blk.actuator_cost
            else:
                objective.deactivate()
                blk.objective = pyo.Objective(expr=objective.expr + blk.actuator_cost, sense=objective.sense)
        return blk.kept

    @staticmethod
    def _per_actuator(what, value, names):
        if isinstance(value, dict):
            unknown = sorted(set(value) - set(names))
            missing = sorted(set(names) - set(value))
            if unknown or missing:
                raise ConfigurationError(f"select_actuators: {what} per actuator: unknown {unknown}, "
                                         f"missing {missing}; the actuators are {names}")
            return {a: float(value[a]) for a in names}
        try:
            return {a: float(value) for a in names}
        except (TypeError, ValueError):
            raise ConfigurationError(f"select_actuators: {what} must be a number or a dict per actuator, "
                                     f"got {value!r}") from None

    def active_actuators(self):
        """The actuators kept (``ocp.kept[a]`` ≥ ½ in the current values), in the system's order."""
        kept = self.block.component("kept")
        if kept is None:
            raise ConfigurationError("active_actuators: select_actuators was not called on this problem")
        return [a for a in self.block.actuators if kept[a].value is not None and kept[a].value >= 0.5]

    # -- bounds ---------------------------------------------------------------
    def bound_rotation_increments(self, limit=1.0):
        """|rotation increment| ≤ limit per step and rotation coordinate (anti-aliasing).

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
        if not limit > 0:
            raise ConfigurationError(f"bound_rotation_increments: limit must be positive, got {limit!r}")
        rotations = [j for j in dyn.velocities if j.split(".", 1)[1].startswith(("w", "angle"))]
        if isinstance(dyn.w, pyo.Var):
            for j in rotations:
                for i in dyn.intervals:
                    dyn.w[i, j].setlb(-limit)
                    dyn.w[i, j].setub(limit)
            return
        self.block.rotation_increment = pyo.Constraint(
            dyn.intervals, rotations, rule=lambda b, i, j: (-limit, dyn.w[i, j], limit))


def _positive_number(value):
    try:
        value = float(value)
    except (TypeError, ValueError):
        return False
    return bool(np.isfinite(value) and value > 0)


def _finite_vector(value, size, what):
    try:
        v = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ConfigurationError(f"{what} must be {size} finite numbers, got {value!r}") from None
    if v.shape != (size,) or not np.all(np.isfinite(v)):
        raise ConfigurationError(f"{what} must be {size} finite numbers, got {value!r}")
    return v


def _rotation_matrix(value, what, tol=1e-8):
    try:
        R = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ConfigurationError(f"{what} must be a 3×3 rotation matrix, got {value!r}") from None
    if R.shape != (3, 3) or not np.all(np.isfinite(R)):
        raise ConfigurationError(f"{what} must be a 3×3 rotation matrix of finite numbers, got {value!r}")
    err = np.abs(R.T @ R - np.eye(3)).max()
    if err > tol or np.linalg.det(R) < 0:
        raise ConfigurationError(f"{what} is not a rotation (max |RᵀR - I| = {err:.2e}, det = "
                                 f"{np.linalg.det(R):.3g}): give an orthonormal, right-handed matrix")
    return R
