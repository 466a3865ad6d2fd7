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
  ``P(q_N)ᵀ[D2 L_d(q_{N-1}, q_N)] + (h/2) u_{N-1} = 0`` (DMOCC 3.21 with
  ``D2 L = 0``), dropping rows whose momenta are conserved anyway;
* bounds on the per-step rotation increments against aliasing (spec §0.7).

Which form each condition takes is read from the scheme's registry record
(``dyn.record``: ``final_configuration``, ``final_rest``, ``increments``,
``velocities_at_nodes``), never from its name.

Controls: ``u`` is the applied generalised force on the actuated coordinates (N for a
slider, N m for a hinge; :mod:`pyomo_mbdyn.mechanics.system`), so its bounds are the
actuators' force and torque limits as a data sheet states them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence, cast

import numpy as np
import numpy.typing as npt
import pyomo.environ as pyo

from ..errors import ConfigurationError, InputTypeError
from ..mechanics.linalg import matmul
from ..mechanics.numeric import check_numeric, non_number_kind, real
from ..schemes.configuration_forms import TURN_INCREMENT_LIMIT
from .bounds import Bounds

if TYPE_CHECKING:
    from ..schemes.base import MultibodyBlockData

__all__ = ["OptimalControlProblem", "TURN_INCREMENT_LIMIT"]


class OptimalControlProblem(Bounds):
    """Objective and boundary conditions for a scheme block ``dyn``.

    Parameters
    ----------
    dyn : a scheme block on a MultibodySystem whose record allows optimal control
        (``record.optimal_control``: bem, rem, dmocc, dmocc_lm, gc, rattle, …)
    name : str
        Name of the sub-block added to the model holding ``dyn``.
    """

    def __init__(self, dyn: MultibodyBlockData, name: str = "ocp") -> None:
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
        #: IPOPT options this problem passes to the library's IPOPT plugins (``casadi_ipopt``,
        #: ``casadi_ipopt_nl``, through ``SolverFactory`` too) unless the call or the solver
        #: sets them: a model records here a measured choice for its own start (the four-bar:
        #: zero initial multipliers); a warm start from a solution overrides it
        #: (:data:`pyomo_mbdyn.ocp.solve.REFINED_STAGE_OPTIONS`)
        self.solver_defaults: dict[str, Any] = {}
        self.block._solver_defaults = self.solver_defaults
        #: the statements made on this problem, in order: ``(method name, args, keywords)``;
        #: :meth:`solve` replays them on a coarser copy of the block (grid refinement)
        self.statements: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self._depth = 0
        self._names_after_statements = set(self.block.component_map())
        # whether the block holds its own guess: at creation, and the values after the last statement
        self._own_guess = bool(getattr(dyn, "never_solved", False))
        self._values_after_statements = dyn._value_fingerprint() if self._own_guess else None
        #: the stages of the last :meth:`solve` (``solve_refined``'s reports), one per grid
        self.stages: list[dict[str, Any]] = []

    def solve(self, solver: Any = None, options: Mapping[str, Any] | None = None, tee: bool = False,
              duals: bool = False, refine: bool = True, **keywords: Any) -> Any:
        """Solve the problem; returns Pyomo's results of the solve on the block's own grid.

        ``refine=True`` (default): when the block still holds its own guess (no
        ``initialize_from``, no earlier solve, no value set after the problem's statements),
        its grid N has a coarser grid of at least
        :data:`~pyomo_mbdyn.ocp.solve.PROBLEM_REFINE_FROM` = 50 steps
        (:func:`~pyomo_mbdyn.ocp.solve.refinement_grids`, ratio ≤ 8: N = 100, 200, 400 → 50;
        N < 100 is solved directly) and the model holds nothing but the block and this
        problem, the problem is solved by grid refinement, the
        mechanism of the command line (:func:`~pyomo_mbdyn.ocp.solve.solve_refined`): the
        statements made on this problem (:attr:`statements`) are replayed on a copy of the
        block on the coarse grid (same scheme, system and options), that copy is solved from
        its own guess, and its solution, interpolated (:func:`~pyomo_mbdyn.ocp.refined_trajectory`),
        starts the solve of this model.  The coarse grid only supplies the start: the problem
        solved last is this model, unchanged.  Why: from the rest guess each N can land on a
        different local optimum (the acrobot's GC: J = 32.4 / 45.8 / 7238 at N = 50 / 100 /
        200); from one coarse optimum the grids follow one branch (32.4 / 24.4 / 22.4), and
        the fine solves take fewer iterations (benchmarks/pages/refinement.md).  If the coarse stage fails, this model is solved
        from its own guess.  A fine J that departs from the coarse J by more than the
        scheme's order predicts is a :class:`~pyomo_mbdyn.errors.GridDependenceWarning`.
        :attr:`stages` holds one report per grid.

        ``refine=False``, or a start of your own (``dyn.initialize_from``), or components
        added to the model outside this problem: :func:`pyomo_mbdyn.ocp.solve` on this model
        from its current values.

        ``duals=True`` declares the ``dual`` Suffix first, so that
        ``dyn.trajectory().momentum_multipliers`` (λ = -dual) is filled.
        """
        from .solve import PROBLEM_REFINE_FROM, refinement_grids, solve, solve_refined

        if not isinstance(refine, bool):
            raise ConfigurationError(f"solve: refine must be True or False, got {refine!r}")
        model = self.dyn.model()
        steps = int(self.dyn.config.steps)
        self.stages = []
        reason = self._not_refinable() if refine else "refine=False"
        grids = refinement_grids(steps, PROBLEM_REFINE_FROM) if reason is None else [steps]
        if len(grids) == 1:
            results = solve(model, solver=solver, options=options, tee=tee, duals=duals, **keywords)
            self.stages = [{"steps": steps, "start": "guess" if reason is None else reason,
                            "status": str(results.solver.termination_condition),
                            "iterations": getattr(results.solver, "iterations", None)}]
            return results

        def build(n):
            return model if n == steps else self.coarse_copy(n)

        _, results = solve_refined(build, steps, coarsest=PROBLEM_REFINE_FROM, solver=solver,
                                   options=options, tee=tee, report=self.stages.append, duals=duals,
                                   fallback=True, **keywords)
        return results

    def _not_refinable(self):
        """Why :meth:`solve` does not refine (a short phrase), or None."""
        dyn = self.dyn
        solutions = getattr(getattr(dyn.model(), "solutions", None), "solutions", ())
        if (not self._own_guess or len(solutions)
                or dyn._value_fingerprint() != self._values_after_statements):
            return "the block's current values (initialize_from or an earlier solve)"
        if any(name == "select_actuators" for name, _, _ in self.statements):
            return "a mixed-integer problem (select_actuators)"
        model = dyn.model()
        if dyn.parent_block() is not model:
            return "a block inside another block"
        for component in model.component_objects((pyo.Var, pyo.Constraint, pyo.Objective, pyo.Block),
                                                 active=True, descend_into=False):
            if component is not dyn and component is not self.block:
                return f"the model's own component {component.name!r}"
        if set(self.block.component_map()) != self._names_after_statements:
            return "components added to the problem block"
        return None

    def coarse_copy(self, steps: int) -> pyo.ConcreteModel:
        """A new model with this problem on ``steps`` steps: a block of the same scheme, system
        and options (``dyn.config``) named as this one, and the :attr:`statements` replayed on
        an :class:`OptimalControlProblem` of the same name.  What :meth:`solve` refines from;
        components of the model outside this problem are not copied.

        Examples
        --------
        >>> import numpy as np
        >>> import pyomo.environ as pyo
        >>> from pyomo_mbdyn.mechanics import examples
        >>> from pyomo_mbdyn.schemes import scheme_block
        >>> m = pyo.ConcreteModel()
        >>> m.dyn = scheme_block("rem", system=examples.pendulum(), steps=40, horizon=1.0)
        >>> problem = OptimalControlProblem(m.dyn)
        >>> effort = problem.minimise_control_effort()
        >>> problem.fix_final_configuration([np.pi / 2])
        >>> [name for name, _, _ in problem.statements]
        ['minimise_control_effort', 'fix_final_configuration']
        >>> coarse = problem.coarse_copy(10)
        >>> coarse.dyn.config.steps, coarse.ocp.control_effort.active
        (10, True)
        """
        from ..schemes import scheme_block

        dyn = self.dyn
        options = {key: dyn.config[key] for key in dyn.config.keys() if dyn.config[key] is not None}
        options["steps"] = int(steps)
        coarse = pyo.ConcreteModel()
        coarse.add_component(dyn.local_name, scheme_block(dyn.scheme, **options))
        problem = OptimalControlProblem(coarse.component(dyn.local_name), name=self.block.local_name)
        problem.solver_defaults.update(self.solver_defaults)
        for name, args, keywords in self.statements:
            getattr(problem, name)(*args, **keywords)
        return coarse

    # -- objective -------------------------------------------------------------
    def minimise_control_effort(self, weights: dict[str, float] | None = None) -> Any:
        """``J = h Σ_i Σ_a w_a u[i, a]²``; ``weights`` maps actuated names to w_a (default 1).

        Called once per problem (a second call is a :class:`ConfigurationError`:
        the objective would be replaced silently).  A system without actuators
        (no controls: the effort would be the constant 0) is a
        :class:`ConfigurationError`."""
        dyn = self.dyn
        if not list(dyn.actuated):
            raise ConfigurationError(
                f"minimise_control_effort: {dyn.system} has no actuators, so the {dyn.scheme} block "
                f"{dyn.name!r} has no controls u and the effort h Σ u² would be the constant 0; actuate "
                f"the driven joints first (system.actuate(joint), before building the block) or state "
                f"another objective")
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
        # the weights as stated, for the control equation u = E λ / (2 w) (ocp.multipliers)
        self.block.effort_weights = pyo.Param(list(dyn.actuated), initialize={a: float(w[a]) for a in dyn.actuated})
        self.block.control_effort = pyo.Objective(expr=dyn.control_effort(w))
        return self._combined_objective() or self.block.control_effort

    # -- free final time -----------------------------------------------------------
    def free_final_time(self, lower: float, upper: float) -> Any:
        """The final time T free within ``lower ≤ T ≤ upper``; returns the variable ``dyn.final_time``.

        The scheme block must have been built with ``free_horizon=(lower, upper)``
        (then ``h = T/N`` is a named Expression in its equations); this sets new
        bounds on that variable.  Controls keep their meaning (forces), so
        ``J = h Σ|u|²`` stays the effort of the motion.
        """
        dyn = self._free_horizon_block("free_final_time")
        bounds = (real(lower, "free_final_time: lower", finite=False),
                  real(upper, "free_final_time: upper", finite=False))
        if not (0.0 < bounds[0] < bounds[1] < np.inf):
            raise ConfigurationError(f"free_final_time: need 0 < lower < upper < inf, got ({lower!r}, {upper!r})")
        dyn.final_time.setlb(bounds[0])
        dyn.final_time.setub(bounds[1])
        if not bounds[0] <= dyn.final_time.value <= bounds[1]:
            dyn.final_time.set_value(min(max(dyn.final_time.value, bounds[0]), bounds[1]))
        return dyn.final_time

    def minimise_final_time(self, weight: float = 1.0) -> Any:
        """Minimise ``weight · T`` (time-optimal control), alone or added to the effort objective.

        Needs a free final time (:meth:`free_final_time`).  The term is the
        Expression ``ocp.final_time_cost``; with :meth:`minimise_control_effort` also
        called (before or after), the one active objective is ``ocp.objective`` =
        effort + ``weight · T`` and ``ocp.control_effort`` is deactivated (its value
        stays readable).
        """
        dyn = self._free_horizon_block("minimise_final_time")
        if not (isinstance(weight, (int, float)) and not isinstance(weight, bool)
                and np.isfinite(weight) and weight > 0):
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

    def fix_final_position(self, body: str, target: npt.ArrayLike, point: npt.ArrayLike | str = (0, 0, 0)) -> None:
        """The body point (components in the body frame, or the name of a body point) at
        ``target`` (3 finite numbers) at t_N."""
        b = self._body("fix_final_position", body)
        target = _finite_vector(target, 3, f"fix_final_position of {body!r}: target")
        components = b.point_components(point)
        q = self._final_q(body)
        position = b.point(q, components) if b.has_orientation else q[0:3]
        for k in range(3):
            self.block.final_position.add(position[k] == float(target[k]))

    def fix_final_orientation(self, body: str, R_target: npt.ArrayLike = np.eye(3), exclude_half_turns: bool = False,
                              relative: bool = False) -> None:
        """skew(R_targetᵀ R_N) = 0 with R_N = [d_1 d_2 d_3] at t_N (three regular rows).

        ``relative=True``: ``R_target`` is the body's rotation from its reference configuration
        (``system.q0``), i.e. the rows state ``R_N = R_target D_0`` with ``D_0`` the reference
        directors.  A body read from URDF has its principal axes as directors, which may lie a
        half turn from the world axes (the space robot's satellite: D_0 ≈ diag(1, −1, −1)), so a
        small turn of such a body is stated relative, never as ``R_N = R_target``.

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
        if not isinstance(relative, bool):
            raise ConfigurationError(f"fix_final_orientation: relative must be True or False, got {relative!r}")
        if relative:
            system = self.dyn.system
            D0 = np.column_stack(b.directors(system.body_coordinates(system.q0, b.name))).astype(float)
            R_target = R_target @ D0
        q = self._final_q(body)
        d = [q[3:6], q[6:9], q[9:12]]
        R = np.array([[d[j][i] for j in range(3)] for i in range(3)], dtype=object)
        E = matmul(cast(np.ndarray, R_target).T, R)  # a rotation matrix since _rotation_matrix
        for i, j in ((2, 1), (0, 2), (1, 0)):
            self.block.final_orientation.add(E[i, j] - E[j, i] == 0)
        if exclude_half_turns:
            self.block.final_orientation.add(E[0, 0] + E[1, 1] + E[2, 2] >= 1.0)

    def fix_final_configuration(self, joint_angles: dict[str, float] | npt.ArrayLike) -> None:
        """The final configuration: every joint coordinate at t_N, turns included.

        ``joint_angles``: a dict by coordinate (``"elbow.angle"``) or by joint
        with one coordinate (``"elbow"``), or a sequence in the order of
        ``dyn.velocities``; rad for rotations, m for slides and positions,
        measured from the reference configuration in which the system was
        assembled (``system.q0``; free bodies: root position and rotation
        vector).  The same target means the same final joint angles in every
        scheme; each gets its regular form (thesis §2.10; spec §7.5), from the
        block's ``final_configuration_form``:

        * ``"chart"`` (gc; bem, rem, dmocc with absolute configurations):
          ``θ_N = θ`` (fixed);
        * ``"increments"`` (rem, dmocc): ``Σ_k w_k = θ - θ_0`` (dof rows), exact
          for revolute, prismatic and cylindrical joints whose increments add up,
          with the increments of a rotation more than π from the start bounded
          by :data:`TURN_INCREMENT_LIMIT` so that no step aliases a turn (so also
          the steps of θ in the absolute forms of bem, rem, dmocc, rows
          ``ocp.turn_increment``);
        * ``"nodes"`` (bem, dmocc_lm, rattle): ``q_N = q(θ)`` fixed and ``Φ(q_N) = 0``
          deactivated since ``q(θ)`` fulfils it (otherwise LICQ fails).  A
          configuration holds a rotation only modulo 2π, so for a revolute or
          cylindrical angle more than π from the start the number of turns is
          imposed by the row ``θ - π ≤ θ_N ≤ θ + π`` (``ocp.final_turns``) on the
          joint angle summed over the steps
          (:mod:`pyomo_mbdyn.schemes.configuration_forms`) — inactive at the solution, it
          selects the turn.

        Raises :class:`~pyomo_mbdyn.errors.NotRepresentableError` where the form
        cannot carry the target: increments that do not add up (spherical,
        universal joints, free bodies in rem/dmocc), or a rotation vector more
        than π from the start in a node form.  Once per block: a second call
        (from this or another problem on the same block) is a
        :class:`ConfigurationError` — it would override the first target in the
        ``chart`` and ``nodes`` forms and contradict it in the ``increments`` form.

        Examples
        --------
        >>> from pyomo_mbdyn.models import three_link_arm
        >>> m = three_link_arm.build(scheme="bem", configurations="lifted", steps=4, case="free")
        >>> m.dyn.final_configuration_form
        'nodes'
        """
        from .kinematics import dof_values

        dyn, system = self.dyn, self.dyn.system
        names = system.independent if system.has_loops else None
        theta = dof_values(system, joint_angles, "fix_final_configuration", names)
        target = dict(zip(names or dyn.velocities, np.asarray(theta, float)))
        self._check_reachable("fix_final_configuration", target=target)  # velocity limits applied before
        # a float array; the block's signature says Sequence[float], which an ndarray is not to mypy
        dyn.state_final_configuration(theta, self)  # type: ignore[arg-type]
        self._final_coordinates = target

    def fix_final_joints(self, joint_angles: dict[str, float]) -> None:
        """Some joint coordinates at t_N, the others free: ``ocp.final_joint[name]``,
        ``θ_N[name] = value`` on :meth:`joint_coordinates` (rad, m; measured from
        ``system.q0`` as there, turns included).

        For a robot on a free base (``from_urdf(..., floating_base=True)``) the arm's final
        pose while the base ends wherever its momentum takes it; where every coordinate is
        given, :meth:`fix_final_configuration` states the scheme's regular form instead.
        ``joint_angles``: a dict by coordinate (``"elbow.angle"``) or by joint with one
        coordinate.  Unknown joints, coordinates the block cannot express as joint
        coordinates (e.g. a free body's rotation in the increment forms), non-finite values
        and a second call naming the same coordinate are :class:`ConfigurationError`.
        """
        from .kinematics import joint_dofs

        dyn = self.dyn
        if not isinstance(joint_angles, dict) or not joint_angles:
            raise ConfigurationError(f"fix_final_joints: expected a non-empty dict {{joint or coordinate: value}}, "
                                     f"got {joint_angles!r}")
        values = {}
        for key, value in joint_angles.items():
            dofs = joint_dofs(dyn.system, key, "fix_final_joints")
            if len(dofs) != 1:
                raise ConfigurationError(f"fix_final_joints: joint {key!r} has the coordinates {dofs}; give each by name")
            values[dofs[0]] = _finite_vector([value], 1, f"fix_final_joints: the value of {key!r}")[0]
        theta = self.joint_coordinates()
        missing = [name for name in values if (dyn.nodes.last(), name) not in theta]
        if missing:
            raise ConfigurationError(f"fix_final_joints: the {dyn.scheme} block's {dyn.configuration_form} form "
                                     f"has no joint coordinate for {missing}; it has {sorted({n for _, n in theta})}")
        existing = self.block.component("final_joint")
        if existing is None:
            self.block.final_joint = pyo.Constraint(pyo.Any)
            existing = self.block.final_joint
        again = [name for name in values if name in existing]
        if again:
            raise ConfigurationError(f"fix_final_joints: {again} already fixed at t_N")
        last = dyn.nodes.last()
        for name, value in values.items():
            existing[name] = theta[last, name] == float(value)

    def joint_coordinates(self) -> Any:
        """The joint coordinates at the nodes, ``ocp.joint_coordinate[k, name]`` (rad, m).

        Measured from ``system.q0`` in every scheme, turns included: the chart
        coordinates θ_k (chart forms), ``θ_0 + Σ_{i<k} w_i`` (increment forms),
        the summed half-angle steps of the node configurations (node forms) —
        see :mod:`pyomo_mbdyn.schemes.configuration_forms`.  Indexed by the coordinates the
        block can express (all in the chart forms); built on the first call.
        """
        from ..schemes.configuration_forms import reference_coordinates

        existing = self.block.component("joint_coordinate")
        if existing is not None:
            return existing
        dyn, form = self.dyn, self.dyn.configuration_form
        names = [d for d in dyn.velocities if form.reason(d) is None]
        theta0 = reference_coordinates(dyn)
        values = {}
        for name in names:
            for k, expr in form.joint_coordinates(name, theta0).items():
                values[k, name] = expr
        self.block.joint_coordinate = pyo.Expression(dyn.nodes, names, initialize=values)
        return self.block.joint_coordinate

    def point(self, body: str, point: npt.ArrayLike | str = (0.0, 0.0, 0.0), name: str | None = None) -> Any:
        """A body point at every node: ``ocp.<name>[k, "x" | "y" | "z"]`` (m), an indexed Expression.

        ``point`` is the point's components in the body frame (directors) or the
        name of a body point (``points=`` of the body); a point mass has only
        its position.  ``name`` defaults to ``"<body>_<point>"``.  Use it for
        targets, path constraints and objectives as plain Pyomo expressions.

        Examples
        --------
        An obstacle the arm's tip must keep 2 m away from, at every node::

            tip = problem.point("link3", "tip")
            m.clearance = pyo.Constraint(
                m.dyn.nodes, rule=lambda m, k: (tip[k, "x"] - 10.0) ** 2 + (tip[k, "y"] - 5.0) ** 2 >= 2.0 ** 2)
        """
        from .kinematics import AXES, point_at_node

        b = self._body("point", body)
        components = b.point_components(point) if b.has_orientation else None
        label = point if isinstance(point, str) else "point"
        name = name or f"{body}_{label}"
        if not isinstance(name, str) or not name.isidentifier():
            raise ConfigurationError(f"point: name must be a Python identifier, got {name!r}")
        if self.block.component(name) is not None:
            raise ConfigurationError(f"point: the problem already has a component named {name!r}; pass name=")
        dyn = self.dyn
        values = {}
        for k in dyn.nodes:
            position = point_at_node(dyn, b, components, k)
            for i, axis in enumerate(AXES):
                values[k, axis] = position[i]
        self.block.add_component(name, pyo.Expression(dyn.nodes, AXES, initialize=values))
        return self.block.component(name)


    def require_final_rest(self, drop: str | Iterable[str] = (), reduced: bool = True, form: str | None = None) -> None:
        """Rest at t_N; ``drop`` names generalised velocities whose momentum rows
        are left out (momenta conserved anyway, e.g. the linear momentum of a
        free system without external forces — the rows would be redundant).

        What each scheme imposes, by the record's ``final_rest``:

        * ``"chart_velocity"`` (gc): ṽ_N = 0 (the chart velocity; the node velocity
          is tangent, so the system is at rest).
        * ``"joint_rates"`` (bem, rem, rattle), ``reduced=True`` (default), ``form``:

          - ``"momenta"`` (default): the dof rows ``P(q_N)ᵀ M v_N = 0`` (one per
            ``system.independent`` coordinate; with closed loops ``P = P_t N``, so
            these are the independent rows of the M-orthogonal form; LICQ holds).
            The node velocity of the lifted schemes (bem, rem) need not be tangent
            (G(q_N) v_N ≠ 0); these rows leave it only in M⁻¹ range(G(q_N)ᵀ), which
            is exactly the node velocity that keeps the configuration still: the
            stepper continued from (q_N, v_N) under the holding control
            u = -P(q_N)ᵀ∇V (zero without gravity) stays at q_N
            (q_{N+1} = q_N, v_{N+1} = -v_N; tests/ocp/test_final_rest_is_rest.py).
            For rattle (G v_N = 0 at the nodes) they mean v_N = 0.
          - ``"joint_rates"``: the joint rates ``ν_N = B(q_N) v_N = 0`` of the
            contravariant control matrix (thesis §2.10; with loops the independent
            rows E_iᵀ B_t v_N).  Kept for reproducing numbers that were computed
            with them: for bem/rem this is *not* rest in general — the kernel of B
            is not M⁻¹ range(Gᵀ), so a node velocity with P(q_N)ᵀ M v_N ≠ 0 (kinetic
            energy in the degrees of freedom) passes it (issue 30).  Only for a
            system whose inputs are dual to its null space (a MultibodySystem);
            for a ``CoordinateSystem`` (inputs not dual, e.g. the crane, whose B
            is the input matrix) it is a :class:`ConfigurationError`.

          With ``reduced=False``: all of ``v_N = 0`` (n rows; ``form`` is not taken).
        * ``"legendre"`` (dmocc, dmocc_lm): the reduced discrete Legendre transform
          (see the module docstring); ``form`` is not taken.
        """
        dyn = self.dyn
        drop = [drop] if isinstance(drop, str) else list(drop)
        unknown = [j for j in drop if j not in dyn.velocities]
        if unknown:
            raise ConfigurationError(f"require_final_rest: drop names {unknown}, which are not generalised "
                                     f"velocities of the {dyn.scheme} block; they are {list(dyn.velocities)}")
        keep = [j for j in dyn.velocities if j not in set(drop)]
        dyn.state_final_rest(self.block.final_rest, keep, reduced=reduced, form=form)

    # -- which actuators to keep (mixed-integer) -------------------------------------
    def select_actuators(self, max_active: int, bound: float | dict[str, float],
                         cost: float | dict[str, float] | None = None, exactly: bool = False) -> Any:
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
        if not (isinstance(max_active, (int, np.integer)) and not isinstance(max_active, bool)
                and 1 <= max_active <= len(names)):
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
        stages = [name for name, _, _ in dyn.control_stages if name != "u"]
        if stages:  # the scheme's other control stages are switched off with the actuator
            blk.actuator_off_stages = pyo.Constraint(
                dyn.intervals, stages, blk.actuators, [-1, 1],
                rule=lambda b, i, s, a, side: side * dyn.component(s)[i, a] <= U[a] * b.kept[a])
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
        check_numeric(list(value.values()) if isinstance(value, dict) else value,
                      f"select_actuators: {what}", "a number or a dict of numbers per actuator")
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

    def active_actuators(self) -> list[str]:
        """The actuators kept (``ocp.kept[a]`` ≥ ½ in the current values), in the system's order."""
        kept = self.block.component("kept")
        if kept is None:
            raise ConfigurationError("active_actuators: select_actuators was not called on this problem")
        return [a for a in self.block.actuators if kept[a].value is not None and kept[a].value >= 0.5]

#: the methods that state the problem, recorded by :meth:`OptimalControlProblem.solve`'s refinement
STATEMENTS = ("minimise_control_effort", "free_final_time", "minimise_final_time", "fix_final_position",
              "fix_final_orientation", "fix_final_configuration", "fix_final_joints", "joint_coordinates",
              "point", "require_final_rest", "select_actuators", "bound_controls", "bound_joint",
              "apply_joint_limits", "apply_effort_limits", "apply_velocity_limits",
              "bound_rotation_increments")


def _recorded(method):
    """``method`` that appends ``(name, args, keywords)`` to ``problem.statements`` when it
    succeeds (outermost calls only: a statement calling another is one statement)."""
    import functools

    @functools.wraps(method)
    def statement(self, *args, **keywords):
        self._depth += 1
        try:
            out = method(self, *args, **keywords)
        finally:
            self._depth -= 1
        if self._depth == 0:
            self.statements.append((method.__name__, args, keywords))
            self._names_after_statements = set(self.block.component_map())
            if self._own_guess:  # a statement may set values (a fixed final θ_N): still the own guess
                self._values_after_statements = self.dyn._value_fingerprint()
        return out

    return statement


for _name in STATEMENTS:
    setattr(OptimalControlProblem, _name, _recorded(getattr(OptimalControlProblem, _name)))
del _name


def _positive_number(value):
    if non_number_kind(value):
        return False
    try:
        value = float(value)
    except (TypeError, ValueError):
        return False
    return bool(np.isfinite(value) and value > 0)


def _finite_vector(value: npt.ArrayLike, size: int, what: str) -> np.ndarray:
    check_numeric(value, what, f"{size} finite numbers")
    try:
        v = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ConfigurationError(f"{what} must be {size} finite numbers, got {value!r}") from None
    if v.shape != (size,) or not np.all(np.isfinite(v)):
        raise ConfigurationError(f"{what} must be {size} finite numbers, got {value!r}")
    return v


def _rotation_matrix(value: npt.ArrayLike, what: str, tol: float = 1e-8) -> np.ndarray:
    check_numeric(value, what, "a 3×3 rotation matrix")
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
