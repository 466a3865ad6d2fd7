"""Command line: ``pyomo-mbdyn list | solvers | run``.

The names are a contract (see ARCHITECTURE.md).  ``run MODEL`` builds the
model, solves it through ``SolverFactory`` and prints the result as a table,
or with ``--json`` as one JSON object with the keys ``model, scheme, steps,
solver, status, objective, n_variables, n_constraints, n_equalities,
n_inequalities, iterations, build_seconds, solve_seconds,
constraint_residual, horizon`` and, where they apply,
``energy_balance_error, momentum_error, hamiltonian_drift``.  Counts are of
the solved model: free variables (variable bounds, e.g. torque limits, are
not rows), active constraints, split into equality rows and inequality rows
(a row with lower and upper bound counts once); ``horizon`` is the final
time T = N h reached (the solver's value when the model's final time is free).
``--set KEY=VALUE`` (repeatable) passes an option of the model's ``build()``,
JSON-typed (``--set case=time``, ``--set distance=2.5``); an unknown key is
refused with the list of the model's options.

With ``--steps N`` of at least ``2 × REFINE_FROM`` (:data:`pyomo_mbdyn.ocp.solve.REFINE_FROM`,
80; ``--coarsest`` changes it) a model whose ``build(scheme, steps=...)`` returns a
direct optimal-control scheme block ``dyn`` is solved by grid refinement
(:func:`pyomo_mbdyn.ocp.solve_refined`: e.g. N = 80, then 640 started from its
solution); each stage is printed as it ends, and the result carries them as
``stages`` (``iterations``, ``build_seconds``, ``solve_seconds`` and ``solver_seconds``
are then the sums over the stages).  ``--no-refine`` solves the N-step model directly.
"""

import argparse
import importlib
import inspect
import json
import sys
import time

__all__ = ["main"]


def _cmd_solvers(args):
    from .solvers import available_solvers

    rows = available_solvers()
    if not rows:
        print("no solver available")
        return 1
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        print(f"{r['name']:<{width}}  {r['kind']:<5}  {r['version']:<10}  {r['source']}")
    return 0


def _cmd_list(args):
    from pyomo_mbdyn.models import MODELS, description

    if not MODELS:
        print("no models installed yet")
    for name in MODELS:
        print(f"{name:<24}  {description(name)}")
    return 0


def _count(model, ctype):
    import pyomo.environ as pyo

    return sum(1 for c in model.component_data_objects(ctype, active=True, descend_into=True)
               if not (ctype is pyo.Var and c.fixed))


def _count_rows(model, equality):
    import pyomo.environ as pyo

    return sum(1 for c in model.component_data_objects(pyo.Constraint, active=True, descend_into=True)
               if bool(c.equality) == equality)


def run_model(name, scheme=None, steps=None, solver=None, options=None, **refinement):
    """Build, solve and evaluate a model; return the result dictionary.

    ``options``: further keywords of the model's ``build`` (e.g.
    ``{"configurations": "lifted"}`` for the satellite); ``refinement``: the
    keywords ``coarsest``, ``refine`` and ``report`` of :func:`solve_model`."""
    return solve_model(name, scheme, steps, solver, options, **refinement)[0]


def _refined_build(module, kwds, coarsest):
    """``(build(n), grids, coarsest model)`` when the model is to be solved by grid refinement, else None.

    Refinement applies when the grids have at least two stages, the model does not
    bring its own ``solve``, its ``build`` takes ``scheme`` and ``steps``, and the
    coarsest model is :func:`~pyomo_mbdyn.ocp.solve.refinable`."""
    from .ocp.solve import refinable, refinement_grids

    steps = kwds.get("steps")
    if steps is None or not coarsest or hasattr(module, "solve"):
        return None
    grids = refinement_grids(steps, coarsest)
    params = inspect.signature(module.build).parameters
    if len(grids) < 2 or "steps" not in params or "scheme" not in params:
        return None
    first = module.build(**{**kwds, "steps": grids[0]})
    if not refinable(first):
        return None
    built = {grids[0]: first}

    def build(n):
        model = built.pop(n, None)
        return model if model is not None else module.build(**{**kwds, "steps": n})

    return build, grids, first


def parse_settings(settings):
    """``["key=value", …]`` → ``{key: value}`` with JSON-typed values (``2.5``, ``true``,
    ``[1, 2]``, ``"text"``); a value that is not JSON is taken as a string."""
    from .errors import ConfigurationError

    options = {}
    for item in settings or ():
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ConfigurationError(f"--set {item!r}: expected KEY=VALUE with KEY a model option name")
        try:
            options[key] = json.loads(text)
        except ValueError:
            options[key] = text
    return options


def _check_options(name, module, options):
    """Refuse options the model's ``build()`` does not take, naming the ones it does."""
    from .errors import ConfigurationError

    parameters = inspect.signature(module.build).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return
    unknown = sorted(set(options) - set(parameters))
    if unknown:
        offered = [p for p in parameters if p not in ("scheme", "steps")]
        raise ConfigurationError(f"model {name!r} takes no option {unknown[0]!r}; its options are {offered}")


def solve_model(name, scheme=None, steps=None, solver=None, options=None, coarsest=None,
                refine=True, report=None):
    """As :func:`run_model`, returning ``(result dictionary, solved Pyomo model)``.

    With ``refine`` (default) a model with at least ``2 × coarsest`` steps
    (default :data:`~pyomo_mbdyn.ocp.solve.REFINE_FROM`) is solved by
    :func:`~pyomo_mbdyn.ocp.solve_refined` when it can be (see the module
    docstring); ``report(stage)`` is called after each stage, and the result
    holds the stages as ``stages``."""
    import numpy as np
    import pyomo.environ as pyo

    from pyomo_mbdyn.models import MODELS

    from .errors import ConfigurationError
    from .ocp.solve import REFINE_FROM, solve, solve_refined
    from .schemes.structure import expression_value
    from .solvers import get_solver

    if name not in MODELS:
        raise ConfigurationError(f"unknown model {name!r}; available: {sorted(MODELS)}")
    module = importlib.import_module(MODELS[name])
    kwds = dict(options or {})
    _check_options(name, module, kwds)
    if scheme is not None:
        kwds["scheme"] = scheme
    if steps is not None:
        kwds["steps"] = steps
    coarsest = REFINE_FROM if coarsest is None else int(coarsest)
    t0 = time.perf_counter()
    refined = _refined_build(module, kwds, coarsest) if refine else None
    first_build = time.perf_counter() - t0  # the coarsest model's (also when not refinable)
    stages = []
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
        model = module.build(**kwds)
        build_seconds = time.perf_counter() - t0
        opt = get_solver(solver, model=model)
        t0 = time.perf_counter()
        # a model may bring its own solve (e.g. a warm restart); both raise
        # SolveFailedError with the solver's status and advice unless they succeed
        results = getattr(module, "solve", solve)(model, opt)
        solve_seconds = time.perf_counter() - t0
    dyn = model.dyn
    table = dyn.diagnostics()
    energy = table["E"].to_numpy()
    # the momentum maps the model conserves (all of L unless it says otherwise)
    conserved = list(getattr(module, "CONSERVED_MOMENTA", ("Lx", "Ly", "Lz")))
    L = table[conserved].to_numpy() if conserved else None
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
        "n_variables": _count(model, pyo.Var),
        "n_constraints": _count(model, pyo.Constraint),
        "n_equalities": _count_rows(model, equality=True),
        "n_inequalities": _count_rows(model, equality=False),
        "horizon": float(pyo.value(dyn.h)) * dyn.config.steps,
        "iterations": (sum(st["iterations"] or 0 for st in stages) if stages
                       else getattr(results.solver, "iterations", None)),
        "build_seconds": build_seconds,
        "solve_seconds": solve_seconds,
        # the solver's own time (for casadi_*: IPOPT/Bonmin without .nl writing and import)
        "solver_seconds": (sum(st["solver_seconds"] or 0.0 for st in stages) if stages
                           else getattr(results.solver, "wallclock_time", None)),
        "constraint_residual": float(table["constraint_residual"].max()),
        "energy_balance_error": (float((energy.max() - energy.min()) / scale_E)
                                 if getattr(module, "ENERGY_BALANCE", True) else None),
        "momentum_error": float(np.abs(L - L[0]).max()) if L is not None else None,
    }
    if stages:
        result["stages"] = stages
    # a model may add or override fields (e.g. ``hamiltonian_drift`` of DNCO models)
    evaluate = getattr(module, "evaluate", None)
    if evaluate is not None:
        result.update(evaluate(model))
    return result, model


def _stage_line(stage):
    objective = "" if stage["objective"] is None else f", J = {stage['objective']:.12g}"
    start = {"guess": "the model's guess", "refined": "the grid before",
             "guess (chart)": "the model's guess (the chart cannot follow the grid before)"}.get(
        stage["start"], stage["start"])
    return (f"stage N = {stage['steps']} from {start}: {stage['status']}, "
            f"{stage['iterations']} iterations, {stage['build_seconds']:.1f} s build, "
            f"{stage['solve_seconds']:.1f} s solve{objective}")


def _cmd_run(args):
    from .errors import SolveFailedError

    stages = []

    def report(stage):
        stages.append(stage)
        if not args.json:  # --json prints exactly one object: the stages are in it
            print(_stage_line(stage), flush=True)

    try:
        result, model = solve_model(args.model, args.scheme, args.steps, args.solver,
                                    options=parse_settings(args.set), coarsest=args.coarsest,
                                    refine=not args.no_refine,
                                    report=report)
    except SolveFailedError as err:
        if args.json:
            failed = {"model": args.model, "scheme": args.scheme, "steps": args.steps,
                      "solver": args.solver, "status": err.status, "error": str(err)}
            if stages:
                failed["stages"] = stages
            print(json.dumps(failed))
        print(f"pyomo-mbdyn: {args.model}: {err}", file=sys.stderr)
        return 1
    figures = []
    if args.plot is not None:
        from .figures import model_figures

        figures = [str(p) for p in model_figures(args.model, model, args.plot)]
    if args.json:
        if args.plot is not None:
            result["figures"] = figures
        print(json.dumps(result))
    else:
        width = max(len(k) for k in result)
        for key, value in result.items():
            if key == "stages":  # printed above, one line each
                value = len(value)
            print(f"{key:<{width}}  {value}")
        for path in figures:
            print(f"{'figure':<{width}}  {path}")
    return 0 if result["status"] in ("optimal", "locallyOptimal") else 1


def build_parser():
    parser = argparse.ArgumentParser(
        prog="pyomo-mbdyn",
        description="Structure-preserving optimal control of multibody systems in Pyomo.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="models with one-line descriptions").set_defaults(func=_cmd_list)
    sub.add_parser("solvers", help="available solvers and versions").set_defaults(
        func=_cmd_solvers
    )
    run = sub.add_parser("run", help="build, solve and evaluate a model")
    run.add_argument("model")
    run.add_argument("--scheme", default=None, help="discrete scheme (bem, rem, ...)")
    run.add_argument("--steps", type=int, default=None, help="number of time steps N")
    run.add_argument("--solver", default=None, help="solver name (default: get_solver())")
    run.add_argument("--coarsest", type=int, default=None, metavar="N",
                     help="coarsest grid of the grid refinement used from 2N steps "
                          "(default: pyomo_mbdyn.ocp.solve.REFINE_FROM = 80)")
    run.add_argument("--no-refine", action="store_true",
                     help="solve on the requested grid directly, without grid refinement")
    run.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="set",
                     help="a model option (an argument of the model's build(); VALUE is JSON-typed, "
                          "e.g. --set distance=2.5 --set objective='\"effort+time\"'; bare words are strings)")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    run.add_argument("--plot", metavar="DIR", default=None,
                     help="write the model's figures (PNG) into DIR and print their paths")
    run.set_defaults(func=_cmd_run)
    return parser


def main(argv=None):
    from .errors import MbdynError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except MbdynError as err:
        print(f"pyomo-mbdyn: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
