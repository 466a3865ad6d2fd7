"""Which actuators to keep: the enumeration that checks a mixed-integer answer.

:meth:`OptimalControlProblem.select_actuators` states the choice as binaries
y_a (|u_{i,a}| ≤ U_a y_a, Σ y_a ≤ k) for Bonmin.  The relaxation of such a
problem is nonconvex (the dynamics are), so a branch and bound over local NLP
solves is a heuristic; :func:`enumerate_actuators` is the honest global check
for a handful of actuators: every subset is solved as an NLP (its binaries
fixed, the other actuators' controls bounded to zero) from the same guess.
"""

import itertools
import time

import pandas as pd
import pyomo.environ as pyo

from ..errors import ConfigurationError

__all__ = ["enumerate_actuators", "fix_actuators"]


def fix_actuators(model, kept, problem=None):
    """Fix ``ocp.kept[a]`` to 1 for the actuators in ``kept`` and to 0 for the others."""
    problem = model.problem if problem is None else problem
    binaries = problem.block.component("kept")
    if binaries is None:
        raise ConfigurationError("fix_actuators: the problem has no actuator selection (select_actuators)")
    unknown = sorted(set(kept) - set(problem.block.actuators))
    if unknown:
        raise ConfigurationError(f"fix_actuators: unknown actuators {unknown}; "
                                 f"the actuators are {list(problem.block.actuators)}")
    for a in problem.block.actuators:
        binaries[a].fix(1 if a in kept else 0)


def enumerate_actuators(build, sizes=None, solver="casadi_ipopt", options=None):
    """Solve the NLP of every actuator subset; a pandas DataFrame, best first.

    ``build()`` returns a fresh model whose ``model.problem`` has
    :meth:`~pyomo_mbdyn.ocp.OptimalControlProblem.select_actuators` (each subset
    starts from the model's own guess); ``sizes`` are the subset sizes (default:
    those the count row allows, 1..k, or k with ``exactly``).  Columns:
    ``actuators`` (tuple), ``status``, ``objective`` (None unless the solve ended
    optimal), ``iterations``, ``seconds``.
    """
    first = build()
    problem = first.problem
    names = list(problem.block.actuators)
    count = problem.block.actuator_count
    k = int(pyo.value(count.upper))
    if sizes is None:
        sizes = [k] if count.equality else range(1, k + 1)
    rows = []
    for size in sizes:
        for kept in itertools.combinations(names, size):
            model = first if first is not None else build()
            first = None
            fix_actuators(model, kept)
            opt = pyo.SolverFactory(solver)
            for key, value in (options or {}).items():
                opt.options[key] = value
            t0 = time.perf_counter()
            result = opt.solve(model, load_solutions=False)
            seconds = time.perf_counter() - t0
            tc = result.solver.termination_condition
            objective = None
            if tc in (pyo.TerminationCondition.optimal, pyo.TerminationCondition.locallyOptimal):
                model.solutions.load_from(result)
                objective = pyo.value(next(model.component_data_objects(pyo.Objective, active=True)))
            rows.append({"actuators": kept, "status": str(tc), "objective": objective,
                         "iterations": getattr(result.solver, "iterations", None), "seconds": seconds})
    table = pd.DataFrame(rows)
    return table.sort_values("objective", na_position="last", kind="stable").reset_index(drop=True)
