"""Solving an optimal-control model, with a clear report when it fails.

:func:`solve` runs a ``SolverFactory`` solver (by default
:func:`~pyomo_mbdyn.solvers.get_solver`) and either returns the results of a
successful solve or raises :class:`~pyomo_mbdyn.errors.SolveFailedError`
naming the solver's termination condition and what to try — never a bare
traceback from inside Pyomo.  Contradictions that Pyomo detects while writing
the model (a constraint left with only fixed variables and violated, e.g.
two final conditions fixing the same coordinate to different values) are
reported the same way, before any solver runs.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from ..errors import ConfigurationError, MbdynError, SolveFailedError
from ..schemes.structure import expression_value

if TYPE_CHECKING:
    import pyomo.environ as pyo

logger = logging.getLogger("pyomo_mbdyn.ocp")

__all__ = ["solve", "solve_refined", "declare_duals",
           "refinable", "refinement_grids", "grid_dependence", "ADVICE", "SUCCESS", "REFINE_FROM",
           "PROBLEM_REFINE_FROM", "JUMP_TOLERANCE", "REFINED_STAGE_OPTIONS"]

#: termination conditions that count as a solution
SUCCESS = ("optimal", "locallyOptimal")

#: coarsest grid of :func:`solve_refined` by default: the paper models converge
#: from their interpolated guesses at N ≤ 80 (benchmarks/README.md, "Convergence at scale")
REFINE_FROM = 80

#: coarsest grid of :meth:`OptimalControlProblem.solve <pyomo_mbdyn.ocp.OptimalControlProblem.solve>`
#: by default (``refine=True``): a problem on N ≥ 2·50 steps whose block holds its own guess is
#: solved on ``refinement_grids(N, 50)`` (50 then N for N = 100, 200, 400), so every N starts from
#: the same coarse optimum instead of a different local optimum reached from the rest guess at
#: each N.  Measured (benchmarks/pages/refinement.md): the acrobot's GC gives J = 32.43 / 24.44 /
#: 22.44 at N = 50 / 100 / 200 (one branch, differences in the ratio 4 of order 2; from a
#: 25-step grid, whose optimum J = 76.8 does not resolve the swing-up, N = 100 reached another
#: optimum, 26.44), where the direct solves jump (32.43 / 45.81 / 7238)
PROBLEM_REFINE_FROM = 50

#: relative tolerance κ of :func:`grid_dependence`: the coarse grid's J may lie up to κ·|J| from
#: the converged value.  0.5: the acrobot's 50-step J lies 49 % above its limit on the branch
#: that N = 100 and 200 converge to (benchmarks/pages/refinement.md); a jump between optima
#: there is a factor (45.8 against 24.4, 7238 against 22.4)
JUMP_TOLERANCE = 0.5

#: IPOPT options of the refined stages of :func:`solve_refined`: the starting
#: multipliers are IPOPT's least-squares estimate at the refined guess, which lies
#: near the solution, instead of zero (IPOPT discards estimates above
#: ``constr_mult_init_max``, by default 1e3; the arm's optimal multipliers exceed 1e7).
#: Measured: the arm's REM from N = 80 to 640 in 2 iterations instead of 3; no
#: change for the crane, or for the arm's BEM from N/2.
REFINED_STAGE_OPTIONS = {"constr_mult_init_max": 1e20}

#: the solvers the option tables above are meant for (IPOPT built with MUMPS)
_IPOPT_MUMPS = ("casadi_ipopt", "casadi_ipopt_nl")

#: what to try, per termination condition
ADVICE = {
    "infeasible": (
        "No trajectory satisfies the dynamics, boundary conditions and bounds together: check that "
        "the final conditions agree with each other and can be reached from the initial state, "
        "relax control or rotation-increment bounds, or use more steps (with increment bounds a "
        "rotation by an angle a needs at least a/bound steps; a rest-to-rest motion at least two)."),
    "maxIterations": (
        "Raise max_iter (solver option), start from a better guess "
        "(pyomo_mbdyn.ocp.interpolated_trajectory, a forward simulation, or a coarser solution: "
        "pyomo_mbdyn.ocp.refined_trajectory, solve_refined), "
        "or scale the problem."),
    "maxTimeLimit": ("Raise the time limit or start from a better guess (a coarser solution: "
                     "pyomo_mbdyn.ocp.solve_refined)."),
    # the generic text; a failed solve says which case it is (_unbounded_advice)
    "unbounded": ("The objective is unbounded below, or the iterates diverged: add an effort objective or "
                  "bounds if the objective can decrease without end, else start from a better guess."),
    "error": (
        "The solver stopped with an error: rerun with tee=True to see its log; check that the "
        "initial guess is finite and that the model evaluates there."),
    # stopped by the divergence watch (pyomo_mbdyn.solvers.watch), instead of a long restoration loop
    "diverging": (
        "IPOPT was moving away from every feasible trajectory: the objective it reached lies below what "
        "the dynamics allow, bought with violated rows (a start far from feasible, or rows and unknowns "
        "of very different scales, e.g. light distal links in natural coordinates). Start from a "
        "feasible trajectory: the optimum of the same problem in the 'gc' scheme mapped into this "
        "scheme's unknowns (pyomo_mbdyn.ocp.start_from_scheme(model, reference) with reference() "
        "building the problem with scheme='gc'), a forward simulation, or a coarser solution "
        "(solve_refined); scale the problem (IPOPT's nlp_scaling_method, or units that bring rows and "
        "unknowns to similar sizes); or use more steps. The watch's thresholds are solver options "
        "(divergence_watch.window, .growth, .floor, .reference); options={'divergence_watch': False} "
        "lets the solve run on."),
}


#: what to try when IPOPT reports 'unbounded' ("Iterates diverging") on an objective that is
#: bounded below: the iterates ran away from the start, the objective did not
_DIVERGED = (
    "so the problem is not unbounded: the iterates diverged (IPOPT stops when |x| passes "
    "diverging_iterates_tol, 1e20 by default), typically from a start far from any solution such as "
    "the rest guess q_k = q_0 with a large final motion. Start from pyomo_mbdyn.ocp.interpolated_trajectory "
    "(or a forward simulation, or a coarser solution: solve_refined), bound the controls (bound_controls) "
    "or the rotation increments (bound_rotation_increments), or use more steps.")


def _proven_lower_bound(objective):
    """A lower bound of ``objective`` that its algebraic form proves, or None: a quadratic
    (Pyomo's standard representation) whose squares have non-negative weights and whose
    linear terms are in variables bounded on the side the objective decreases along (or
    squared as well).  Bilinear or non-polynomial objectives give None."""
    import pyomo.environ as pyo
    from pyomo.repn.standard_repn import generate_standard_repn

    try:
        repn = generate_standard_repn(objective.expr, quadratic=True)
    except Exception:  # noqa: BLE001 - an expression the representation cannot read: no proof
        return None
    if repn.nonlinear_expr is not None:
        return None
    sense = 1.0 if objective.sense == pyo.minimize else -1.0
    squared = {}
    for coef, (a, b) in zip(repn.quadratic_coefs, repn.quadratic_vars):
        c = sense * pyo.value(coef)
        if a is not b or c < 0:
            return None
        squared[id(a)] = squared.get(id(a), 0.0) + c
    lower = sense * pyo.value(repn.constant)
    for coef, var in zip(repn.linear_coefs, repn.linear_vars):
        c = sense * pyo.value(coef)
        if squared.get(id(var), 0.0) > 0:  # c x + a x² ≥ -c²/(4a)
            lower -= c * c / (4.0 * squared[id(var)])
            continue
        bound = var.lb if c > 0 else var.ub
        if bound is None:
            return None
        lower += c * bound
    return sense * lower


def _unbounded_advice(model):
    """What an 'unbounded' status means for this model: with an objective that is bounded
    below (the library's control effort, or a form :func:`_proven_lower_bound` proves) the
    iterates diverged and a better start is what helps; only an objective without such a
    bound gets the advice to add an effort objective or bounds."""
    import pyomo.environ as pyo

    objectives = list(model.component_data_objects(pyo.Objective, active=True, descend_into=True))
    if not objectives:
        return f"The model has no active objective, {_DIVERGED}"
    objective = objectives[0]
    block = objective.parent_block()
    effort = block.component("control_effort") if block is not None else None
    if effort is not None and (objective is effort or objective.local_name == "objective"):
        return (f"The objective {objective.name!r} is the control effort h Σ w u² (≥ 0, from "
                f"minimise_control_effort{', plus the final-time term' if objective is not effort else ''}), "
                + _DIVERGED)
    lower = _proven_lower_bound(objective)
    if lower is not None:
        return f"The objective {objective.name!r} is bounded below (≥ {lower:.6g} by its form), " + _DIVERGED
    return (f"The objective {objective.name!r} is not bounded below by its form (no control-effort term, "
            "minimise_control_effort): add an effort objective or bounds on the variables it can decrease "
            "along; if it is bounded after all, the iterates diverged: start from a better guess "
            "(pyomo_mbdyn.ocp.interpolated_trajectory).")


def _check_degrees_of_freedom(model):
    """More equality rows than free variables cannot be solved: say so before solving.

    Counts active equality constraints and unfixed variables (no expression
    traversal: named expressions may nest deeply, as in the minimal DMOCC form).
    """
    import pyomo.environ as pyo

    rows = sum(1 for c in model.component_data_objects(pyo.Constraint, active=True, descend_into=True)
               if c.equality)
    free = sum(1 for v in model.component_data_objects(pyo.Var, descend_into=True) if not v.fixed)
    if rows > free:
        raise SolveFailedError(
            f"the model has {rows} equality constraints but only {free} free variables — the "
            "conditions over-determine the problem (the same quantity imposed twice, or too few "
            "steps: a rest-to-rest motion needs at least two).", status="infeasible")


def _with_defaults(opt, options, defaults):
    """``options`` with ``defaults`` added for the library's IPOPT plugins, where
    neither ``options`` nor ``opt.options`` set them (other solvers: unchanged)."""
    options = dict(options or {})
    if getattr(opt, "name", None) not in _IPOPT_MUMPS:
        return options
    if str(options.get("linear_solver", opt.options.get("linear_solver", "mumps"))) != "mumps":
        defaults = {k: v for k, v in defaults.items() if not k.startswith("mumps_")}
    return {**{k: v for k, v in defaults.items() if k not in opt.options}, **options}


def declare_duals(model: pyo.Block) -> Any:
    """Add ``model.dual = Suffix(direction=IMPORT)`` unless the model has it; return it.

    The solver then reports the multiplier of every row; the library reads them
    with one sign convention, λ = -dual for the Lagrangian ``J + Σ λ·g`` with each
    row ``g`` as the block states it (:mod:`pyomo_mbdyn.ocp.multipliers`), e.g.
    ``dyn.trajectory().momentum_multipliers``.  A component named ``dual`` that is
    not an imported Suffix is a :class:`ConfigurationError`.

    Examples
    --------
    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
    >>> from pyomo_mbdyn.schemes import REMBlock
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> def swing_up(steps):                 # a quarter turn in 1 s, rest to rest, least effort
    ...     m = pyo.ConcreteModel()
    ...     m.dyn = REMBlock(system=pendulum, steps=steps, horizon=1.0)
    ...     problem = OptimalControlProblem(m.dyn)
    ...     effort = problem.minimise_control_effort()
    ...     problem.fix_final_configuration([np.pi / 2])
    ...     problem.require_final_rest()
    ...     m.dyn.initialize_from(interpolated_trajectory(pendulum, m.dyn.step_length, steps, [np.pi / 2]))
    ...     return m
    >>> m = swing_up(4)
    >>> dual = declare_duals(m)
    >>> dual is m.dual, declare_duals(m) is dual      # declared once
    (True, True)
    >>> str(solve(m).solver.termination_condition)
    'optimal'
    >>> m.dyn.trajectory().momentum_multipliers.shape   # one λ per interval and joint rate
    (4, 1)
    """
    import pyomo.environ as pyo

    dual = model.component("dual")
    if dual is None:
        model.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
        return model.dual
    if not isinstance(dual, pyo.Suffix) or not dual.import_enabled():
        raise ConfigurationError(f"duals=True: the model has a component 'dual' that is not an imported Suffix "
                                 f"({type(dual).__name__}); rename it so the solver's multipliers can be read")
    return dual


def solve(model: pyo.Block, solver: Any = None, options: Mapping[str, Any] | None = None, tee: bool = False,
          accept: Sequence[str] = SUCCESS, duals: bool = False) -> Any:
    """Solve ``model``; return Pyomo's results or raise :class:`SolveFailedError`.

    Parameters
    ----------
    model : a Pyomo model (e.g. from a ``pyomo_mbdyn.models`` module)
    solver : a solver name, a SolverFactory object, or None for ``get_solver()``
    options : dict of solver options (the library's IPOPT plugins add the
        problem's ``OptimalControlProblem.solver_defaults`` and the library's defaults,
        :data:`pyomo_mbdyn.solvers.ampl_driver.IPOPT_DEFAULTS`, unless given here
        or on the solver)
    accept : termination conditions treated as success
    duals : bool
        Declare the ``dual`` Suffix first (:func:`declare_duals`) so that the
        multipliers are read back: ``dyn.trajectory().momentum_multipliers``,
        :func:`pyomo_mbdyn.ocp.momentum_multipliers`, λ = -dual.
    """
    from ..solvers import get_solver
    from ..solvers.interrupts import raise_if_interrupted

    if duals:
        declare_duals(model)
    _check_degrees_of_freedom(model)
    opt = solver if hasattr(solver, "solve") else get_solver(solver, model=model)
    try:
        try:
            results = opt.solve(model, tee=tee, options=dict(options or {}))
        finally:  # Ctrl-C / SIGTERM noted while CasADi ran (it swallows the exception): stop here
            raise_if_interrupted()
    except MbdynError:
        raise
    except ValueError as err:  # raised by Pyomo's writers on trivially infeasible rows
        raise SolveFailedError(
            f"the model was not passed to {opt.name}: {err}. {ADVICE['infeasible']}",
            status="infeasible") from None
    status = str(results.solver.termination_condition)
    if getattr(results.solver, "divergence", None):  # the solver's divergence watch stopped it
        status = "diverging"
    if status not in accept:
        message = results.solver.message or ""
        # the rows violated most where the solver stopped (the point kept in results after
        # 'infeasible', loaded at a limit, else the start); cheap: one Pyomo evaluation of
        # the rows, no Jacobian; a report that fails leaves the message as it was
        from ..diagnosis import residual_summary

        try:
            residuals = residual_summary(model, results, k=5)
        except Exception as err:  # noqa: BLE001 - the solver's failure is the error to report
            logger.debug("no residuals for the failure message: %s", err)
            residuals = ""
        if residuals:
            residuals = (f" {residuals} Dependent equations and conditioning: "
                         "pyomo_mbdyn.diagnosis.diagnose(model), or pyomo-mbdyn diagnose MODEL.")
        raise SolveFailedError(
            f"{opt.name} ended with status {status!r}"
            + (f" ({message})" if message else "")
            + f" after {getattr(results.solver, 'iterations', '?')} iterations. "
            + (_unbounded_advice(model) if status == "unbounded" else ADVICE.get(status, ADVICE["error"]))
            + residuals,
            status=status)
    return results


def refinable(model: pyo.Block) -> bool:
    """Whether :func:`solve_refined` can start ``model``'s finer grids from its solution:
    an optimal-control problem (an active objective) on a scheme block ``model.dyn``
    of a direct optimal-control scheme on a multibody system (the scheme record's
    ``optimal_control``) whose configurations have a chart
    (:func:`~pyomo_mbdyn.discretization.chart_coordinates`, which
    :func:`~pyomo_mbdyn.ocp.guess.refined_trajectory` interpolates).  Forward
    simulations (no objective; their guess is the stepper's solution) are not.

    Examples
    --------
    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
    >>> from pyomo_mbdyn.schemes import REMBlock
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> def swing_up(steps):                 # a quarter turn in 1 s, rest to rest, least effort
    ...     m = pyo.ConcreteModel()
    ...     m.dyn = REMBlock(system=pendulum, steps=steps, horizon=1.0)
    ...     problem = OptimalControlProblem(m.dyn)
    ...     effort = problem.minimise_control_effort()
    ...     problem.fix_final_configuration([np.pi / 2])
    ...     problem.require_final_rest()
    ...     m.dyn.initialize_from(interpolated_trajectory(pendulum, m.dyn.step_length, steps, [np.pi / 2]))
    ...     return m
    >>> refinable(swing_up(4))
    True
    >>> simulation = pyo.ConcreteModel()
    >>> simulation.dyn = REMBlock(system=pendulum, steps=4, horizon=1.0, controls=np.zeros((4, 1)))
    >>> refinable(simulation)
    False
    """
    import pyomo.environ as pyo

    from ..discretization import chart_coordinates

    dyn = model.component("dyn")
    record = getattr(dyn, "record", None)
    if record is None or not record.optimal_control or not hasattr(dyn, "initialize_from"):
        return False
    if next(model.component_data_objects(pyo.Objective, active=True), None) is None:
        return False
    try:
        chart_coordinates(dyn.system, dyn.system.q0)
    except (MbdynError, ValueError, NotImplementedError, TypeError, AttributeError):
        return False
    return True


def refinement_grids(steps: int, coarsest: int = REFINE_FROM, ratio: int = 8) -> list[int]:
    """The grids of :func:`solve_refined`, coarsest first: from ``steps`` down, each
    grid the one after it divided by the largest integer k ≤ ``ratio`` that leaves
    an integer grid of at least ``coarsest`` steps, as long as there is one.

    >>> refinement_grids(640), refinement_grids(480), refinement_grids(640, ratio=2)
    ([80, 640], [80, 480], [80, 160, 320, 640])
    >>> refinement_grids(150), refinement_grids(161)
    ([150], [161])
    """
    grids = [int(steps)]
    while True:
        n = grids[-1]
        k = next((k for k in range(int(ratio), 1, -1) if n % k == 0 and n // k >= coarsest), None)
        if k is None:
            return grids[::-1]
        grids.append(n // k)


def grid_dependence(j_coarse: float, j_fine: float, coarse_steps: int, fine_steps: int, order: float,
                    tolerance: float = JUMP_TOLERANCE) -> str | None:
    """The message of a :class:`~pyomo_mbdyn.errors.GridDependenceWarning`, or None: whether the
    objective ``j_fine`` on ``fine_steps`` departs from ``j_coarse`` on ``coarse_steps`` by more
    than a scheme of ``order`` p predicts.

    A scheme of order p gives ``J_N = J* + C h_N^p + …`` on one branch of optima, so
    ``J_c - J_N = C (h_c^p - h_N^p)``.  Two grids do not determine C; the stated bound is
    ``|C| h_c^p ≤ κ |J|`` (κ = ``tolerance``: the coarse grid's J within κ of the converged one),
    which predicts ``|J_N - J_c| ≤ κ · max(|J_N|, |J_c|) · (1 - (N_c/N)^p)``.  A larger change
    means the fine grid converged to another local optimum than the one the coarse grid's
    solution was refined from (or the coarse grid does not resolve the motion).

    >>> grid_dependence(32.43, 24.44, 50, 100, 2) is None    # the acrobot's branch, refined
    True
    >>> print(grid_dependence(32.43, 7238.2, 50, 200, 2))    # doctest: +ELLIPSIS
    the objective on N = 200 steps, J = 7238.2, departs from J = 32.43 on N = 50 ...
    """
    j_coarse, j_fine = float(j_coarse), float(j_fine)
    if not (np.isfinite(j_coarse) and np.isfinite(j_fine)):
        return None
    predicted = tolerance * max(abs(j_coarse), abs(j_fine)) * (1.0 - (coarse_steps / fine_steps) ** order)
    change = abs(j_fine - j_coarse)
    if change <= predicted:
        return None
    return (f"the objective on N = {fine_steps} steps, J = {j_fine:.6g}, departs from J = {j_coarse:.6g} "
            f"on N = {coarse_steps} by {change:.3g}, more than a scheme of order {order} predicts "
            f"(≤ {predicted:.3g}: κ·|J|·(1 − (N_c/N)^p), κ = {tolerance}): the two grids reached different "
            "local optima. Compare starts: pyomo_mbdyn.studies.multistart (or the CLI's pyomo-mbdyn "
            "multistart), another coarse grid (solve_refined(coarsest=…)), or refine=False.")


def solve_refined(build: Callable[[int], pyo.ConcreteModel], steps: int, coarsest: int = REFINE_FROM,
                  solver: Any = None, options: Mapping[str, Any] | None = None, tee: bool = False,
                  accept: Sequence[str] = SUCCESS, ratio: int = 8,
                  report: Callable[[dict[str, Any]], object] | None = None, duals: bool = False,
                  fallback: bool = False) -> tuple[Any, Any]:
    """Solve ``build(steps)`` by grid refinement; return ``(model, results)``.

    ``build(n)`` returns a model with a scheme block ``dyn`` on ``n`` steps
    and its own guess (e.g. ``lambda n: three_link_arm.build("rem", steps=n)``).
    The grids are :func:`refinement_grids` (each at most ``ratio`` times finer
    than the one before, none below ``coarsest``: 80 and 640 for 640; with
    ``ratio=2``: 80, 160, 320, 640); the coarsest model is solved from its own
    guess, and every finer one from the solution before it, interpolated by
    :func:`~pyomo_mbdyn.ocp.guess.refined_trajectory` (within O(H²) of the
    finer solution, H the coarse step), with IPOPT's least-squares multipliers
    at that guess as starting multipliers (:data:`REFINED_STAGE_OPTIONS`, for
    ``casadi_ipopt`` and ``casadi_ipopt_nl``, unless ``options`` set them).
    Without a coarser grid (``steps < 2·coarsest``, or no divisor) this is
    :func:`solve` on ``build(steps)``.  A stage that fails raises
    :class:`SolveFailedError` as :func:`solve` does, naming the stage.  Where the
    chart cannot follow the coarse solution (a free body turned through a
    multiple of 2π: the rotation vector's singularity, e.g. the sphere's three
    turns), the finer stage starts from the model's own guess, with a warning.

    ``duals=True`` declares the ``dual`` Suffix on the finest model (:func:`declare_duals`).

    ``fallback=True``: a coarser stage that cannot be built or solved (an
    :class:`~pyomo_mbdyn.errors.MbdynError`) is logged and the next stage starts
    from its own guess (``start`` ``"guess (fallback)"``), so the finest grid is
    always tried (what :meth:`OptimalControlProblem.solve
    <pyomo_mbdyn.ocp.OptimalControlProblem.solve>` uses).

    When the finest stage was started from the stage before, its J is compared
    with that stage's (:func:`grid_dependence`, the scheme's ``record.order``); a
    departure beyond what the order predicts is a
    :class:`~pyomo_mbdyn.errors.GridDependenceWarning`.

    ``report``, if given, is called after each solved stage with a dict
    ``{"steps", "start" ("guess": the model's own; "refined": from the stage
    before; "guess (chart)": the model's own where the chart could not follow the
    stage before), "status", "iterations", "objective", "build_seconds" (build and
    refined guess), "solve_seconds" (the :func:`solve` call), "solver_seconds"
    (the solver's own time where it reports one, else None)}``.

    Why: from the interpolated guess the first Newton step of the lifted
    schemes is large (the guess costs twice the optimum, and IPOPT starts from
    zero multipliers); at N = 640 the arm's REM then needs inertia corrections
    and stalls, while from the N = 80 solution both REM and BEM converge in 2–3
    iterations.  One large refinement is cheaper than a ladder of halvings:
    CasADi's derivative set-up, not IPOPT, dominates each stage's time
    (benchmarks/README.md, "Convergence at scale").

    Examples
    --------
    A tiny problem on 8 steps, started from its solution on 4:

    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
    >>> from pyomo_mbdyn.schemes import REMBlock
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> def swing_up(steps):                 # a quarter turn in 1 s, rest to rest, least effort
    ...     m = pyo.ConcreteModel()
    ...     m.dyn = REMBlock(system=pendulum, steps=steps, horizon=1.0)
    ...     problem = OptimalControlProblem(m.dyn)
    ...     effort = problem.minimise_control_effort()
    ...     problem.fix_final_configuration([np.pi / 2])
    ...     problem.require_final_rest()
    ...     m.dyn.initialize_from(interpolated_trajectory(pendulum, m.dyn.step_length, steps, [np.pi / 2]))
    ...     return m
    >>> stages = []
    >>> model, results = solve_refined(swing_up, 8, coarsest=4, report=stages.append)
    >>> [(stage["steps"], stage["start"], stage["status"]) for stage in stages]
    [(4, 'guess', 'optimal'), (8, 'refined', 'optimal')]
    >>> model.dyn.config.steps, str(results.solver.termination_condition)
    (8, 'optimal')
    """
    import time

    import pyomo.environ as pyo

    from ..solvers import get_solver
    from .guess import refined_trajectory

    grids = refinement_grids(steps, coarsest, ratio)
    previous = model = results = None
    objectives = {}
    for n in grids:
        t0 = time.perf_counter()
        start = "guess" if previous is None else "refined"
        try:
            model = build(n)
        except MbdynError as err:
            if not (fallback and n != grids[-1]):
                raise
            logger.warning("grid refinement %s: stage N = %d not built (%s); the next stage starts "
                           "from its own guess", grids, n, err)
            previous = None
            continue
        if previous is not None:
            dyn = model.dyn
            if dyn.free_horizon:  # the coarse optimum's final time
                dyn.final_time.set_value(float(previous.t[-1]), skip_validation=True)
            try:
                model.dyn.initialize_from(refined_trajectory(dyn.system, dyn.step_length, n, previous))
            except ConfigurationError as err:  # the chart cannot follow the coarse solution
                logger.warning("solve_refined: stage N = %d starts from the model's own guess: %s", n, err)
                start = "guess (chart)"
        elif n != grids[0]:
            start = "guess (fallback)"
        t1 = time.perf_counter()
        opt = solver if hasattr(solver, "solve") else get_solver(solver, model=model)
        stage_options = options if start != "refined" else \
            _with_defaults(opt, options, REFINED_STAGE_OPTIONS)
        try:
            results = solve(model, solver=opt, options=stage_options, tee=tee, accept=accept,
                            duals=duals and n == grids[-1])
        except SolveFailedError as err:
            if len(grids) == 1:
                raise
            if fallback and n != grids[-1]:
                logger.warning("grid refinement %s: stage N = %d failed (%s); the next stage starts "
                               "from its own guess", grids, n, err)
                previous = None
                continue
            raise SolveFailedError(f"grid refinement {grids}, stage N = {n}: {err}",
                                   status=err.status) from None
        objective = next((expression_value(o.expr) for o in
                          model.component_data_objects(pyo.Objective, active=True)), None)
        objectives[n] = (start, objective)
        if report is not None:
            report({"steps": n, "start": start,
                    "status": str(results.solver.termination_condition),
                    "iterations": getattr(results.solver, "iterations", None),
                    "objective": objective, "build_seconds": t1 - t0,
                    "solve_seconds": time.perf_counter() - t1,
                    "solver_seconds": getattr(results.solver, "wallclock_time", None)})
        previous = model.dyn.trajectory()
    _warn_if_grid_dependent(model, grids, objectives)
    return model, results


def _warn_if_grid_dependent(model, grids, objectives):
    """The :class:`GridDependenceWarning` of :func:`solve_refined` (see there)."""
    import warnings

    from ..errors import GridDependenceWarning

    if len(grids) < 2 or objectives.get(grids[-1], ("",))[0] != "refined":
        return
    coarse = grids[-2]
    order = getattr(getattr(model.dyn, "record", None), "order", None)
    if coarse not in objectives or not order or objectives[coarse][1] is None:
        return
    message = grid_dependence(objectives[coarse][1], objectives[grids[-1]][1], coarse, grids[-1], order)
    if message is not None:
        warnings.warn(f"{model.dyn.scheme} on {model.dyn.system}: {message}", GridDependenceWarning,
                      stacklevel=3)
