"""Solve one registry model as ``pyomo-mbdyn run`` does: build, solve (by grid
refinement where it applies), evaluate; the result dictionary of the run contract.

The one path from a model name to a result, shared by the command line
(:mod:`pyomo_mbdyn.cli`) and the studies (:func:`pyomo_mbdyn.studies.sweep` over a
model name); the contract's keys are listed in the command line's docstring.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numbers
import time

if TYPE_CHECKING:
    import numpy as np

__all__ = ["run_model", "solve_model"]


def run_model(name: str, scheme: str | None = None, steps: int | None = None, solver: str | None = None,
              options: Mapping[str, Any] | None = None, **refinement: Any) -> dict[str, Any]:
    """Build, solve and evaluate a model; return the result dictionary.

    ``options``: further keywords of the model's ``build`` (e.g.
    ``{"configurations": "lifted"}`` for the satellite); ``refinement``: the
    keywords ``coarsest``, ``refine``, ``report`` and ``force`` of :func:`solve_model`.

    Examples
    --------
    The particle of the thesis (indirect DNCO) on 10 steps, as
    ``pyomo-mbdyn run particle --steps 10`` reports it:

    >>> result = run_model("particle", steps=10)
    >>> result["model"], result["scheme"], result["steps"], result["status"]
    ('particle', 'dnco', 10, 'optimal')
    >>> result["n_variables"], result["n_equalities"]
    (144, 144)
    >>> result["energy_balance_error"] < 1e-9 and result["hamiltonian_drift"] < 1e-9
    True
    """
    return solve_model(name, scheme, steps, solver, options, **refinement)[0]


def _prepare(name: str) -> None:
    """Import what a run of the model ``name`` imports: the OCP layer (its schemes, the
    discretization, the mechanics), the solvers' selection and the model's own module.
    ``pyomo-mbdyn run`` calls it before its clock for the build starts, so that its
    ``import_seconds`` hold the run's imports, which fell between the timers before
    (issue 48).  A name that is no model is left to :func:`solve_model` to refuse."""
    from ..errors import MbdynError
    from ..mechanics import numeric  # noqa: F401
    from ..ocp import solve  # noqa: F401
    from ..plugins import model_spec
    from ..schemes import structure  # noqa: F401
    from ..solvers import get_solver  # noqa: F401
    from . import size  # noqa: F401

    try:
        model_spec(name)
    except MbdynError:
        pass  # solve_model refuses it, as it did before


def _node_columns(dyn: Any, names: Sequence[str]) -> dict[str, np.ndarray]:
    """The columns ``names`` of the scheme block ``dyn``'s per-node diagnostics, as arrays.

    A block with the diagnostics of the scheme base (every multibody scheme: the
    conservation table of its trajectory) gets them from
    :func:`pyomo_mbdyn.diagnostics.conservation_columns`, which computes only these
    columns and builds no pandas table (the run path loads no pandas, issue 48); a block
    with diagnostics of its own (DNCO's: H, and E with its own W) is asked for its table.
    The numbers are the table's either way (tests/test_cold_start.py).
    """
    from ..schemes.base import SchemeBlockData

    if getattr(type(dyn), "diagnostics", None) is SchemeBlockData.diagnostics:
        from ..diagnostics import conservation_columns

        # SchemeBlockData.diagnostics' conservation table, the selected columns alone
        tr = dyn.trajectory()
        return conservation_columns(dyn.system, dyn.step_length, tr.q, tr.v, tr.nu, tr.u,
                                    work=tr.extras.get("work"), columns=names)
    table = dyn.diagnostics()
    return {name: table[name].to_numpy() for name in names}


def _refined_build(spec, kwds, coarsest):
    """``(build(n), grids, coarsest model)`` when the model is to be solved by grid refinement, else None.

    Refinement applies when the grids have at least two stages, the model does not
    bring its own ``solve``, its ``build`` takes ``scheme`` and ``steps``, and the
    coarsest model is :func:`~pyomo_mbdyn.ocp.solve.refinable`."""
    from ..ocp.solve import refinable, refinement_grids

    steps = kwds.get("steps")
    if steps is None or not coarsest or spec.solve is not None:
        return None
    grids = refinement_grids(steps, coarsest)
    params = spec.parameters()
    if len(grids) < 2 or "steps" not in params or "scheme" not in params:
        return None
    first = spec.build(**{**kwds, "steps": grids[0]})
    if not refinable(first):
        return None
    built = {grids[0]: first}

    def build(n):
        model = built.pop(n, None)
        return model if model is not None else spec.build(**{**kwds, "steps": n})

    return build, grids, first


def solve_model(name: str, scheme: str | None = None, steps: int | None = None, solver: str | None = None,
                options: Mapping[str, Any] | None = None, coarsest: int | None = None, refine: bool = True,
                report: Callable[[Any], None] | None = None, force: bool = False) -> tuple[dict[str, Any], Any]:
    """As :func:`run_model`, returning ``(result dictionary, solved Pyomo model)``.

    With ``refine`` (default) a model with at least ``2 × coarsest`` steps
    (default :data:`~pyomo_mbdyn.ocp.solve.REFINE_FROM`) is solved by
    :func:`~pyomo_mbdyn.ocp.solve_refined` when it can be (see the module
    docstring); ``report(stage)`` is called after each stage, and the result
    holds the stages as ``stages``.  A request of many steps is first estimated and
    refused when the machine cannot hold it (:func:`pyomo_mbdyn.studies.size.check_size`;
    ``force=True`` builds it anyway).

    Examples
    --------
    >>> result, model = solve_model("particle", steps=10)
    >>> result["status"], model.dyn.trajectory().q.shape
    ('optimal', (11, 3))
    """
    import numpy as np
    import pyomo.environ as pyo

    from ..errors import ConfigurationError
    from ..mechanics.numeric import step_count
    from ..ocp.solve import REFINE_FROM, solve, solve_refined
    from ..plugins import model_spec
    from ..schemes.structure import expression_value
    from ..solvers import get_solver
    from .size import check_size, count_components, count_rows

    spec = model_spec(name)
    kwds = dict(options or {})
    spec.check_options(name, kwds)
    if scheme is not None:
        kwds["scheme"] = scheme
    if steps is not None:
        kwds["steps"] = steps
    if kwds.get("steps") is not None:  # before any build: --set steps=1e400, "ten", true
        kwds["steps"] = step_count(kwds["steps"], name)
    if coarsest is not None and (isinstance(coarsest, bool) or not isinstance(coarsest, numbers.Integral)
                                 or coarsest < 2):
        raise ConfigurationError(f"{name}: coarsest (the coarsest grid of the grid refinement, --coarsest) "
                                 f"must be an integer of at least 2 steps, got {coarsest!r}")
    coarsest = REFINE_FROM if coarsest is None else int(coarsest)
    check_size(name, spec.build, kwds, force=force)  # before a build the machine cannot hold
    t0 = time.perf_counter()
    refined = _refined_build(spec, kwds, coarsest) if refine else None
    first_build = time.perf_counter() - t0  # the coarsest model's (also when not refinable)
    stages: list[Any] = []
    if refined is not None:
        build, grids, first = refined

        def collect(stage):
            if not stages:
                stage["build_seconds"] += first_build
            stages.append(stage)
            if report is not None:
                report(stage)

        opt = get_solver(solver, model=first)
        model, results = solve_refined(build, grids[-1], coarsest=grids[0], solver=opt,
                                       report=collect)
        build_seconds = sum(st["build_seconds"] for st in stages)
        solve_seconds = sum(st["solve_seconds"] for st in stages)
    else:
        t0 = time.perf_counter()
        model = spec.build(**kwds)
        build_seconds = time.perf_counter() - t0
        opt = get_solver(solver, model=model)
        t0 = time.perf_counter()
        # a model may bring its own solve (e.g. a warm restart); both raise
        # SolveFailedError with the solver's status and advice unless they succeed
        results = (spec.solve or solve)(model, opt)
        solve_seconds = time.perf_counter() - t0
    dyn = model.dyn
    # the momentum maps the model conserves (all of L unless it says otherwise)
    conserved = list(spec.conserved_momenta)
    columns = _node_columns(dyn, ["E", "constraint_residual", *conserved])
    energy = columns["E"]
    L = np.column_stack([columns[c] for c in conserved]) if conserved else None
    scale_E = max(1.0, np.abs(energy).max())
    objective = None
    for obj in model.component_data_objects(pyo.Objective, active=True):
        objective = expression_value(obj.expr)  # DAG-safe (replayed charts)
    result = {
        "model": name,
        "scheme": dyn.scheme,
        "steps": dyn.config.steps,
        "solver": opt.name,
        "status": str(results.solver.termination_condition),
        "objective": objective,
        "n_variables": count_components(model, pyo.Var),
        "n_constraints": count_components(model, pyo.Constraint),
        "n_equalities": count_rows(model, equality=True),
        "n_inequalities": count_rows(model, equality=False),
        "horizon": float(pyo.value(dyn.h)) * dyn.config.steps,
        "iterations": (sum(st["iterations"] or 0 for st in stages) if stages
                       else getattr(results.solver, "iterations", None)),
        "build_seconds": build_seconds,
        "solve_seconds": solve_seconds,
        # the solver's own time (for casadi_*: IPOPT/Bonmin without .nl writing and import)
        "solver_seconds": (sum(st["solver_seconds"] or 0.0 for st in stages) if stages
                           else getattr(results.solver, "wallclock_time", None)),
        "constraint_residual": float(columns["constraint_residual"].max()),
        "energy_balance_error": (float((energy.max() - energy.min()) / scale_E)
                                 if spec.energy_balance else None),
        "momentum_error": float(np.abs(L - L[0]).max()) if L is not None else None,
    }
    start = getattr(model, "start_description", None)  # a model's own start (e.g. another scheme's optimum)
    if start is not None and not stages:
        result["start"] = start
    if stages:
        result["stages"] = stages
    # a model may add or override fields (e.g. ``hamiltonian_drift`` of DNCO models)
    if spec.evaluate is not None:
        result.update(spec.evaluate(model))
    return result, model
