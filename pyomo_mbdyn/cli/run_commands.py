"""``pyomo-mbdyn run``, ``list``, ``solvers`` and ``diagnose``: one model solved, evaluated and
reported (the contract of the package docstring, :mod:`pyomo_mbdyn.cli`); the studies are
:mod:`pyomo_mbdyn.cli.study_commands`, the parser and ``main`` the package's ``__init__``.
"""

from __future__ import annotations

import json
import sys
import time

from ..studies.run import _prepare, solve_model
from . import common
from .common import EXIT_BAD_REQUEST, _line, _print_json, parse_settings


def _cmd_solvers(args):
    from ..solvers import available_solvers

    rows = available_solvers()
    if not rows:
        print("no solver available")
        return 1
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        print(f"{r['name']:<{width}}  {r['kind']:<5}  {r['version']:<10}  {r['source']}")
    return 0


def _cmd_list(args):
    from pyomo_mbdyn.models import MODELS

    from ..errors import MbdynError
    from ..plugins import model_spec

    if args.options:
        spec = model_spec(args.options, "list")
        rows = spec.option_rows()
        if args.json:
            _print_json({"model": args.options, "options": rows,
                         "schemes": list(spec.schemes) if spec.schemes is not None else None})
            return 0
        print(f"{args.options}: {spec.description}")
        if spec.schemes is not None:
            print(f"schemes: {', '.join(spec.schemes)}")
        print("options (pyomo-mbdyn run MODEL --set KEY=VALUE, VALUE JSON-typed):")
        for row in rows:
            print(f"  {row['name']} = {json.dumps(row['default'], default=str)}")
            if row["description"]:
                print(f"      {row['description']}")
        return 0
    if not MODELS:
        print("no models installed yet")
    broken = 0
    for name in MODELS:  # a model that cannot be loaded is named, the others listed
        try:
            said = model_spec(name, "list").description
        except (MbdynError, ImportError) as err:
            broken += 1
            said = "(cannot be loaded; see the error)"
            print(_line(name, err), file=sys.stderr)
        print(f"{name:<24}  {said}")
    return 1 if broken else 0


def _json_safe(result):
    """The result's entries that a trajectory's metadata can hold (JSON values)."""
    return {k: v for k, v in result.items() if k != "stages"}


def _stage_line(stage):
    objective = "" if stage["objective"] is None else f", J = {stage['objective']:.12g}"
    start = {"guess": "the model's guess", "refined": "the grid before",
             "guess (chart)": "the model's guess (the chart cannot follow the grid before)"}.get(
        stage["start"], stage["start"])
    return (f"stage N = {stage['steps']} from {start}: {stage['status']}, "
            f"{stage['iterations']} iterations, {stage['build_seconds']:.1f} s build, "
            f"{stage['solve_seconds']:.1f} s solve{objective}")


def _cmd_run(args):
    from ..errors import MbdynError, SolveFailedError

    stages = []

    def report(stage):
        stages.append(stage)
        # progress: on stdout, or with --json on stderr (stdout holds the one object, with the stages)
        print(_stage_line(stage), flush=True)

    request = {"model": args.model, "scheme": args.scheme, "steps": args.steps, "solver": args.solver}
    ready = common.READY[0]
    try:
        _prepare(args.model)  # the library a run imports, and the model's module: part of import_seconds
        ready = time.perf_counter()
        result, model = solve_model(args.model, args.scheme, args.steps, args.solver,
                                    options=parse_settings(args.set), coarsest=args.coarsest,
                                    refine=not args.no_refine,
                                    report=report, force=args.force)
    except SolveFailedError as err:
        if args.json:
            failed = {**request, "status": err.status, "error": str(err)}
            if stages:
                failed["stages"] = stages
            _print_json(failed)
        print(_line(args.model, err), file=sys.stderr)
        return 1
    except MbdynError as err:  # construction, options, guesses: before or instead of a solve
        if args.json:
            _print_json({**request, "status": "error", "error": str(err)})
        print(_line(args.model, err), file=sys.stderr)
        return 2
    figures, plot_error = [], None
    if args.save is not None:
        from ..trajectory import Trajectory

        try:
            result["saved"] = str(Trajectory.from_block(model.dyn, **_json_safe(result)).save(args.save))
        except Exception as err:  # the solve stands: print it, then say what failed
            plot_error = f"--save {args.save}: {type(err).__name__}: {err}"
    if args.plot is not None:
        from ..figures import model_figures

        try:
            figures = [str(p) for p in model_figures(args.model, model, args.plot)]
        except Exception as err:  # the solve stands: print it, then say what failed
            failed = f"--plot {args.plot}: {type(err).__name__}: {err}"
            plot_error = failed if plot_error is None else f"{plot_error}; {failed}"
    html = None
    if args.html is not None:
        from ..plotting import animate_html

        try:
            title = f"{args.model}: {result.get('scheme')}, N = {result.get('steps')}, {result.get('status')}"
            if isinstance(result.get("objective"), float):
                title += f", J = {result['objective']:.6g}"
            html = str(animate_html(model.dyn.trajectory(), args.html, system=model.dyn.system, title=title))
        except Exception as err:  # the solve stands, as after a --plot failure
            failed = f"--html {args.html}: {type(err).__name__}: {err}"
            plot_error = failed if plot_error is None else f"{plot_error}; {failed}"
    started = getattr(sys.modules.get("_pyomo_mbdyn_launch"), "STARTED", None)
    result["import_seconds"] = None if started is None or ready is None else ready - started
    result["wall_seconds"] = None if started is None else time.perf_counter() - started
    if args.json:
        if args.plot is not None:
            result["figures"] = figures
        if args.html is not None:
            result["html"] = html
        if plot_error is not None:
            result["error"] = plot_error
        _print_json(result)
    else:
        width = max(len(k) for k in result)
        for key, value in result.items():
            if key == "stages":  # printed above, one line each
                value = len(value)
            print(f"{key:<{width}}  {value}")
        for path in figures:
            print(f"{'figure':<{width}}  {path}")
        if html is not None:
            print(f"{'html':<{width}}  {html}")
    if plot_error is not None:
        print(_line(args.model, plot_error), file=sys.stderr)
        return 1
    return 0 if result["status"] in ("optimal", "locallyOptimal") else 1


def _cmd_diagnose(args):
    """``diagnose MODEL``: build the model as ``run`` does (``--scheme``, ``--steps``,
    ``--set``), optionally solve it (``--solve``), and print the report of
    :func:`pyomo_mbdyn.diagnosis.diagnose` at the model's point (after a failed solve:
    at the solver's final point, which is not loaded).  ``--json``: one object
    ``{"model", "scheme", "steps", "status": "ok", "diagnosis": {...}}`` with ``"solve":
    {"solver", "status", "message", "iterations"}`` after ``--solve``; a bad request
    ``{"model", "status": "error", "error"}`` and exit status 2.  A diagnosis that finds
    problems is still a successful run: exit status 0."""
    from ..diagnosis import diagnose
    from ..errors import MbdynError
    from ..plugins import model_spec

    request = {"model": args.model, "scheme": args.scheme, "steps": args.steps}
    try:
        spec = model_spec(args.model, "diagnose")
        kwds = parse_settings(args.set)
        spec.check_options(args.model, kwds)
        kwds.update({k: v for k, v in (("scheme", args.scheme), ("steps", args.steps)) if v is not None})
        from ..studies.size import check_size

        check_size(args.model, spec.build, kwds, force=args.force)  # before a build too large to hold
        model = spec.build(**kwds)
        if args.solve:
            from ..solvers import get_solver

            opt = get_solver(args.solver, model=model)
    except MbdynError as err:
        if args.json:
            _print_json({**request, "status": "error", "error": str(err)})
        print(_line(args.model, err), file=sys.stderr)
        return EXIT_BAD_REQUEST
    solved, failed_results = None, None
    if args.solve:
        from ..ocp.solve import SUCCESS

        try:
            results = opt.solve(model)
            status = str(results.solver.termination_condition)
            solved = {"solver": opt.name, "status": status, "message": results.solver.message,
                      "iterations": getattr(results.solver, "iterations", None)}
            if status not in SUCCESS:
                failed_results = results
        except (MbdynError, ValueError) as err:  # refused by the solver: diagnose the model as built
            solved = {"solver": opt.name, "status": getattr(err, "status", None) or "error", "error": str(err)}
    diagnosis = diagnose(model, results=failed_results)
    if args.json:
        out = {**request, "status": "ok", "diagnosis": diagnosis.to_dict()}
        out["scheme"] = getattr(getattr(model, "dyn", None), "scheme", args.scheme)
        if solved is not None:
            out["solve"] = solved
        _print_json(out)
        return 0
    if solved is not None:
        said = solved.get("message") or solved.get("error") or ""
        print(f"solve ({solved['solver']}): {solved['status']}" + (f" — {said}" if said else ""))
    print(diagnosis)
    return 0
