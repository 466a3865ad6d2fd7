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

from ..errors import MbdynError, SolveFailedError

__all__ = ["solve", "solve_refined", "ADVICE", "SUCCESS", "REFINE_FROM"]

#: termination conditions that count as a solution
SUCCESS = ("optimal", "locallyOptimal")

#: coarsest grid of :func:`solve_refined` by default: the paper models converge
#: from their interpolated guesses at N ≤ 80 (benchmarks/README.md, "Convergence at scale")
REFINE_FROM = 80

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
    "unbounded": "The objective is unbounded below: add an effort objective or bounds.",
    "error": (
        "The solver stopped with an error: rerun with tee=True to see its log; check that the "
        "initial guess is finite and that the model evaluates there."),
}


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


def solve(model, solver=None, options=None, tee=False, accept=SUCCESS):
    """Solve ``model``; return Pyomo's results or raise :class:`SolveFailedError`.

    Parameters
    ----------
    model : a Pyomo model (e.g. from a ``pyomo_mbdyn.models`` module)
    solver : a solver name, a SolverFactory object, or None for ``get_solver()``
    options : dict of solver options
    accept : termination conditions treated as success
    """
    from ..solvers import get_solver

    _check_degrees_of_freedom(model)
    opt = solver if hasattr(solver, "solve") else get_solver(solver, model=model)
    try:
        results = opt.solve(model, tee=tee, options=dict(options or {}))
    except MbdynError:
        raise
    except ValueError as err:  # raised by Pyomo's writers on trivially infeasible rows
        raise SolveFailedError(
            f"the model was not passed to {opt.name}: {err}. {ADVICE['infeasible']}",
            status="infeasible") from None
    status = str(results.solver.termination_condition)
    if status not in accept:
        message = results.solver.message or ""
        raise SolveFailedError(
            f"{opt.name} ended with status {status!r}"
            + (f" ({message})" if message else "")
            + f" after {getattr(results.solver, 'iterations', '?')} iterations. "
            + ADVICE.get(status, ADVICE["error"]),
            status=status)
    return results


def solve_refined(build, steps, coarsest=REFINE_FROM, solver=None, options=None, tee=False,
                  accept=SUCCESS):
    """Solve ``build(steps)`` by grid refinement; return ``(model, results)``.

    ``build(n)`` returns a model with a scheme block ``dyn`` on ``n`` steps
    and its own guess (e.g. ``lambda n: three_link_arm.build("rem", steps=n)``).
    The grid is halved while it stays an integer above ``coarsest``; the
    coarsest model is solved from its own guess, and every finer one from the
    solution before it, interpolated by
    :func:`~pyomo_mbdyn.ocp.guess.refined_trajectory` (within O(h²) of the
    finer solution, so Newton's method converges in a few iterations).  With
    ``steps ≤ coarsest`` this is :func:`solve` on ``build(steps)``.  Each stage
    raises :class:`SolveFailedError` as :func:`solve` does.

    Why: from the interpolated guess the first Newton step of the lifted
    schemes is large (the guess costs twice the optimum); at N ≥ 160 IPOPT
    then needs inertia corrections of 10⁷–10¹⁰ and stalls, while the
    refinement reaches N = 320 and 640 in 4–5 iterations per stage.
    """
    from .guess import refined_trajectory

    grids = [int(steps)]
    while grids[-1] > coarsest and grids[-1] % 2 == 0:
        grids.append(grids[-1] // 2)
    previous = model = results = None
    for n in reversed(grids):
        model = build(n)
        if previous is not None:
            dyn = model.dyn
            model.dyn.initialize_from(refined_trajectory(dyn.system, dyn.h, n, previous))
        results = solve(model, solver=solver, options=options, tee=tee, accept=accept)
        previous = model.dyn.trajectory()
    return model, results
