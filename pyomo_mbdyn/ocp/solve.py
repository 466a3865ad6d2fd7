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

__all__ = ["solve", "ADVICE", "SUCCESS"]

#: termination conditions that count as a solution
SUCCESS = ("optimal", "locallyOptimal")

#: what to try, per termination condition
ADVICE = {
    "infeasible": (
        "No trajectory satisfies the dynamics, boundary conditions and bounds together: check that "
        "the final conditions agree with each other and can be reached from the initial state, "
        "relax control or rotation-increment bounds, or use more steps (with increment bounds a "
        "rotation by an angle a needs at least a/bound steps; a rest-to-rest motion at least two)."),
    "maxIterations": (
        "Raise max_iter (solver option), start from a better guess "
        "(pyomo_mbdyn.ocp.interpolated_trajectory, a forward simulation, or a coarser solution), "
        "or scale the problem."),
    "maxTimeLimit": "Raise the time limit or start from a better guess.",
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
