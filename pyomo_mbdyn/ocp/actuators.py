"""Which actuators to keep: the enumeration that checks a mixed-integer answer.

:meth:`OptimalControlProblem.select_actuators` states the choice as binaries
y_a (|u_{i,a}| ≤ U_a y_a, Σ y_a ≤ k) for Bonmin.  The relaxation of such a
problem is nonconvex (the dynamics are), so a branch and bound over local NLP
solves is a heuristic; :func:`enumerate_actuators` is the honest global check
for a handful of actuators: every subset is solved as an NLP (its binaries
fixed, the other actuators' controls bounded to zero) from the same guesses
(the model's own and perturbations of it, :func:`~pyomo_mbdyn.ocp.guess.perturb_start`).
"""

from __future__ import annotations

import itertools
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

import numpy as np
import pyomo.environ as pyo

from ..errors import ConfigurationError

if TYPE_CHECKING:
    import pandas as pd

    from .problem import OptimalControlProblem

__all__ = ["enumerate_actuators", "fix_actuators", "NODE_RESOLVES"]

#: Bonmin options for a nonconvex selection: every B-BB node NLP re-solved twice
#: more from random points near the problem's starting point (uniform within
#: ±10⁻², as :func:`~pyomo_mbdyn.ocp.guess.perturb_start`), the best kept.
#: Bonmin's own default (no re-solves) keeps whatever local optimum the warm
#: start leads to.  The draws come from one generator seeded by
#: ``bonmin.random_generator_seed`` (give it: otherwise the sequence continues
#: from earlier solves in the process); different seeds can end in different
#: subsets, so take the best over a few (benchmarks/README.md, the arm).
NODE_RESOLVES = {"bonmin.num_resolve_at_node": 2, "bonmin.random_point_type": "Andreas",
                 "bonmin.random_point_perturbation_interval": 1e-2}


def fix_actuators(model: pyo.ConcreteModel, kept: Iterable[str],
                  problem: OptimalControlProblem | None = None) -> None:
    """Fix ``ocp.kept[a]`` to 1 for the actuators in ``kept`` and to 0 for the others.

    Examples
    --------
    A two-link arm with motors at shoulder and elbow, of which one is to be kept:

    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.mechanics import examples
    >>> from pyomo_mbdyn.ocp import OptimalControlProblem
    >>> from pyomo_mbdyn.schemes import REMBlock
    >>> arm = examples.double_pendulum()
    >>> m = pyo.ConcreteModel()
    >>> m.dyn = REMBlock(system=arm, steps=4, horizon=1.0)
    >>> m.problem = OptimalControlProblem(m.dyn)
    >>> effort = m.problem.minimise_control_effort()
    >>> kept = m.problem.select_actuators(1, bound=100.0)
    >>> fix_actuators(m, ["elbow.angle"])          # the NLP of the subset {elbow}
    >>> {a: (kept[a].value, kept[a].fixed) for a in kept}
    {'shoulder.angle': (0, True), 'elbow.angle': (1, True)}
    >>> m.problem.active_actuators()
    ['elbow.angle']
    """
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


def enumerate_actuators(build: Callable[[], pyo.ConcreteModel], sizes: Iterable[int] | None = None,
                        solver: str = "casadi_ipopt", options: Mapping[str, Any] | None = None, starts: int = 1,
                        radius: float = 1e-2, seed: int = 0, per_start: bool = False) -> pd.DataFrame:
    """Solve the NLP of every actuator subset, from the same starts; a pandas DataFrame, best first.

    ``build()`` returns a fresh model whose ``model.problem`` has
    :meth:`~pyomo_mbdyn.ocp.OptimalControlProblem.select_actuators`; ``sizes``
    are the subset sizes (default: those the count row allows, 1..k, or k with
    ``exactly``).  Every subset is solved from ``starts`` guesses: start 0 is
    the model's own guess, start s > 0 that guess moved by
    :func:`~pyomo_mbdyn.ocp.guess.perturb_start` (uniform within ±``radius``,
    Bonmin's ``random_point_type = Andreas``) with the generator seeded by
    ``(seed, s)`` — the same perturbation for every subset.  The subsets'
    problems are nonconvex, so one start can stop far above the subset's best
    local optimum (the arm's shoulder + wrist pair: 9.0·10⁷ from its guess,
    3.7·10⁶ from a start 10⁻² away); the best over starts is the subset's value.

    Columns: ``actuators`` (tuple), ``status`` (of the best start, or of the
    last when none ended optimal), ``objective`` (None unless a start ended
    optimal), ``start`` (which start gave it), ``optimal_starts`` (how many
    ended optimal), ``iterations`` (of the best start), ``seconds`` (all starts).
    With ``per_start=True`` one row per subset and start instead (columns
    ``actuators``, ``start``, ``status``, ``objective``, ``iterations``,
    ``seconds``), in enumeration order.
    """
    from .guess import perturb_start

    if not (isinstance(starts, (int, np.integer)) and starts >= 1):
        raise ConfigurationError(f"enumerate_actuators: starts must be a positive integer, got {starts!r}")
    first = build()
    problem = first.problem
    names = list(problem.block.actuators)
    count = problem.block.actuator_count
    k = int(pyo.value(count.upper))
    if sizes is None:
        sizes = [k] if count.equality else range(1, k + 1)
    runs = []
    for size in sizes:
        for kept in itertools.combinations(names, size):
            model = first if first is not None else build()
            first = None
            fix_actuators(model, kept)
            guess = [(v, v.value) for v in model.component_data_objects(pyo.Var, descend_into=True)]
            for start in range(starts):
                for var, value in guess:
                    var.set_value(value, skip_validation=True)
                if start:
                    perturb_start(model, radius, np.random.default_rng([seed, start]))
                runs.append({"actuators": kept, "start": start, **_solve_subset(model, solver, options)})
    import pandas as pd  # here, not at module level: no pandas on a model build (issue 48)
    runs = pd.DataFrame(runs)
    if per_start:
        return runs
    rows = []
    for kept, group in runs.groupby("actuators", sort=False):
        solved = group[group["objective"].notna()]
        best = solved.loc[solved["objective"].idxmin()] if len(solved) else group.iloc[-1]
        rows.append({"actuators": kept, "status": best["status"], "objective": best["objective"],
                     "start": int(best["start"]), "optimal_starts": len(solved),
                     "iterations": best["iterations"], "seconds": group["seconds"].sum()})
    table = pd.DataFrame(rows)
    return table.sort_values("objective", na_position="last", kind="stable").reset_index(drop=True)


def _solve_subset(model, solver, options):
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
    return {"status": str(tc), "objective": objective,
            "iterations": getattr(result.solver, "iterations", None), "seconds": seconds}
