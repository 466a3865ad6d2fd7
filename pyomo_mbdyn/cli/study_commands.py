"""``pyomo-mbdyn sweep`` and ``multistart``: a study of runs on local processes or a Dask cluster
(:mod:`pyomo_mbdyn.studies`), printed as a table or one JSON object.
"""

import sys

from .common import EXIT_BAD_REQUEST, EXIT_FAILED, EXIT_INTERNAL, _line, _print_json, number, parse_settings


def _split_list(text, flag, kind=str):
    """``"20,40,80"`` → ``[20, 40, 80]`` (``kind`` applied to each item)."""
    from ..errors import ConfigurationError

    items = [item.strip() for item in text.split(",")]
    if not text.strip() or not all(items):
        raise ConfigurationError(f"{flag} {text!r}: expected a comma-separated list, e.g. {flag} 20,40,80")
    try:
        return [kind(item) for item in items]
    except ValueError:
        raise ConfigurationError(f"{flag} {text!r}: expected {kind.__name__} values, e.g. 20,40,80") from None


def _study_executor(args):
    """``(executor, close)`` for ``--scheduler``; ``(None, None)``: the study's own supervised
    processes (``--workers``: a lost worker or a run beyond ``--task-timeout`` costs that run only)."""
    from ..errors import ConfigurationError

    if args.scheduler is None:
        return None, None
    try:
        from distributed import Client
    except ImportError:
        raise ConfigurationError(
            "--scheduler needs Dask's distributed scheduler: pip install 'pyomo_mbdyn[dask]'") from None
    try:
        client = Client(args.scheduler)
    except (ValueError, TypeError) as err:  # not an address: "notaurl", an unknown scheme
        raise ConfigurationError(f"--scheduler {args.scheduler!r}: not a scheduler address ({err}); "
                                 f"expected e.g. tcp://host:8786") from None
    except (OSError, TimeoutError) as err:
        raise ConfigurationError(f"--scheduler {args.scheduler!r}: cannot connect ({err})") from None
    return client.get_executor(), client.close


def _study_table(args, study, options, on_record=None):
    """Run the study that ``args`` asks for; its table (``options``: the parsed ``--set``,
    completed with ``--scheme`` / ``--steps`` for a multistart).  Everything is checked
    before anything runs: the options, the ``--csv`` destination
    (:class:`~pyomo_mbdyn.errors.DestinationError`), ``--save-dir`` (an earlier study's
    files in it are not replaced without ``--overwrite``) and the other arguments (by the
    study), the scheduler's address.  ``on_record(index, record)`` as each run ends."""
    from ..studies import multistart, sweep
    from ..atomic import check_destination

    if args.csv is not None:
        check_destination(args.csv, what="--csv table")
    grid = {}
    if study == "sweep":
        if args.scheme is not None:
            grid["scheme"] = _split_list(args.scheme, "--scheme")
        if args.steps is not None:
            grid["steps"] = _split_list(args.steps, "--steps", number)
    from pyomo_mbdyn.models import check_steps

    if "steps" in grid:  # before any run: a bad grid point fails no worker
        grid["steps"] = [check_steps(args.model, steps) for steps in grid["steps"]]
    elif args.steps is not None:
        args.steps = check_steps(args.model, args.steps)
    executor, close = _study_executor(args)
    common = {"executor": executor, "workers": args.workers, "task_timeout": args.task_timeout,
              "solver": args.solver, "save_dir": args.save_dir, "overwrite": args.overwrite, "on_record": on_record}
    try:
        if study == "sweep":
            table = sweep(args.model, grid, options=options, **common)
        else:
            options.update({k: v for k, v in (("scheme", args.scheme), ("steps", args.steps)) if v is not None})
            table = multistart(args.model, args.starts, seed=args.seed, perturb=args.perturb,
                               radius=args.radius, options=options, **common)
    finally:
        if close is not None:
            try:
                close()
            except Exception as err:  # the results stand; say it and go on
                print(f"pyomo-mbdyn: closing the Dask client failed: {type(err).__name__}: {err}", file=sys.stderr)
    return table


def _print_study(table, best):
    import pandas as pd

    from ..studies import SUCCESS

    inputs = list(table.columns[:list(table.columns).index("status")])
    shown = inputs + [c for c in ("status", "objective", "iterations", "build_seconds", "solve_seconds",
                                  "optimum") if c in table.columns]
    with pd.option_context("display.width", 200, "display.max_columns", 40):
        print(table[shown].to_string())
    from ..studies.study import INTERRUPTED

    for task, row in table[~table["status"].isin(SUCCESS + (INTERRUPTED,))].iterrows():  # (the same message)
        print(f"run {task}: {row['status']}: {row['message']}")
    if "optimum" in table.columns:
        for label, group in table[table["optimum"].notna()].groupby("optimum"):
            print(f"optimum {label}: J = {group['objective'].min():.12g} from start(s) "
                  f"{', '.join(str(start) for start in group['start'])}")
    if best is None:
        print(f"best run: none ended {' or '.join(SUCCESS)}")
    else:
        described = ", ".join(f"{key}={best[key]}" for key in inputs)
        print(f"best run: {best.name} ({described}): J = {best['objective']:.12g}")


def _cmd_study(args, study):
    """``sweep`` / ``multistart``: run the study, then report it.  A bad request (exit 2)
    is refused before any solve.  Once the runs are done their results are always
    printed (the table, or the one JSON object): a failure afterwards (writing
    ``--csv``: exit 1; a bug in the reporting: exit 3) is added to them as ``error``
    (with ``--json`` also ``"status": "error"``) and said on stderr.  Each run that ends
    is said on stderr and ``--csv`` rewritten with the runs finished so far; SIGINT /
    SIGTERM during the runs reports them all the same (the unfinished ones with status
    ``"interrupted"``, with ``--json`` ``"status": "interrupted"``) and exits 130 / 143."""
    from ..errors import MbdynError
    from ..solvers.interrupts import exit_status, interruption_behind
    from ..studies import SUCCESS, best as best_run, to_records, write_table_csv
    from ..studies.study import INTERRUPTED, _table

    errors, code = [], None

    def failed(what, err, status):
        nonlocal code
        errors.append(f"{what}: {type(err).__name__}: {err}")
        code = status if code is None else max(code, status)

    finished, csv_failed = {}, []

    def on_record(index, record):
        """A run ended: one line on stderr; ``--csv`` rewritten with every finished run
        (atomically: the file always holds a whole table of the runs finished so far)."""
        finished[index] = record
        print(f"pyomo-mbdyn: {args.model}: {'start' if study == 'multistart' else 'run'} {index}: "
              f"{record['status']} ({len(finished)} finished)", file=sys.stderr, flush=True)
        if args.csv is not None and not csv_failed:
            done = sorted(finished)
            try:
                write_table_csv(_table([finished[i] for i in done]).set_axis(done), args.csv)
            except Exception as err:  # said once at the end; the study goes on
                csv_failed.append(err)

    interrupt = None
    try:
        options = parse_settings(args.set)
        table = _study_table(args, study, options, on_record)
    except MbdynError as err:
        if args.json:
            _print_json({"model": args.model, "study": study, "status": "error", "error": str(err)})
        print(f"pyomo-mbdyn: {err}", file=sys.stderr)
        return EXIT_BAD_REQUEST
    except KeyboardInterrupt as err:  # SIGINT / SIGTERM: the finished runs are reported
        table = getattr(err, "table", None)
        if table is None:  # before any run started
            raise
        interrupt = err
        interruption_behind(err)  # answered here: not raised again when the command ends
    try:
        best = best_run(table)
    except Exception as err:  # the runs stand: print them
        best = None
        failed("internal error while choosing the best run", err, EXIT_INTERNAL)
    written = None
    if args.csv is not None:
        try:
            written = write_table_csv(table, args.csv)
        except OSError as err:  # a DestinationError: the file system changed since the check
            failed(f"--csv {args.csv}", err, EXIT_FAILED)
        except Exception as err:
            failed(f"internal error while writing --csv {args.csv}", err, EXIT_INTERNAL)
    if args.json:
        try:
            runs = to_records(table)
            chosen = to_records(best)
        except Exception as err:
            runs, chosen = table.to_dict("records"), None
            failed("internal error while converting the runs to JSON", err, EXIT_INTERNAL)
        out = {"model": args.model, "study": study, "runs": runs, "best": chosen, "options": options}
        if errors:
            out.update(status="error", error="; ".join(errors))
        if interrupt is not None:
            out.update(status="interrupted", error="; ".join([_interrupted(interrupt)] + errors))
        _print_json(out)
    else:
        try:
            _print_study(table, best)
        except Exception as err:  # print the runs plainly
            print(table.to_string())
            failed("internal error while printing the table", err, EXIT_INTERNAL)
        if written is not None:
            print(f"table written to {written}")
    for error in errors:
        print(_line(args.model, error), file=sys.stderr)
    if interrupt is not None:
        done = int((table["status"] != INTERRUPTED).sum())
        print(f"pyomo-mbdyn: {_interrupted(interrupt)}: {done} of {len(table)} runs finished", file=sys.stderr)
        return exit_status(interrupt)
    if code is not None:
        return code
    if study == "sweep":
        return 0 if table["status"].isin(SUCCESS).all() else EXIT_FAILED
    return 0 if best is not None else EXIT_FAILED


def _interrupted(interrupt):
    from ..solvers.interrupts import exit_status

    signum = exit_status(interrupt) - 128
    return f"interrupted ({ {2: 'SIGINT', 15: 'SIGTERM'}.get(signum, f'signal {signum}') })"


def _cmd_sweep(args):
    return _cmd_study(args, "sweep")


def _cmd_multistart(args):
    return _cmd_study(args, "multistart")


def _add_study_arguments(parser):
    parser.add_argument("--solver", default=None, help="solver name (default: get_solver())")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="set",
                        help="a model option, as for run (JSON-typed VALUE)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, default=None, metavar="K",
                       help="local worker processes (default: one per CPU, at most one per run); a process "
                            "that dies costs only the run it was on, the others run on a new one")
    where.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="run on the Dask cluster whose scheduler is at ADDRESS (e.g. tcp://host:8786)")
    parser.add_argument("--task-timeout", type=float, default=None, metavar="S", dest="task_timeout",
                        help="seconds a run may take; a run that has not ended by then is reported with "
                             "status 'timeout' and its worker process killed and replaced (on a Dask "
                             "cluster it is abandoned); default: no limit (a run that never returns "
                             "waits until Ctrl-C / SIGTERM, which keep the finished runs)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print one JSON object")
    out.add_argument("--csv", default=None, metavar="FILE",
                     help="also write the table of runs to FILE (checked before any run)")
    parser.add_argument("--save-dir", default=None, metavar="DIR",
                        help="save each solved trajectory (.npz, pyomo_mbdyn.results) into DIR, created if "
                             "missing (with --scheduler: on the workers' file system); trajectories of an "
                             "earlier study in DIR are not replaced (refused) unless --overwrite")
    parser.add_argument("--overwrite", action="store_true",
                        help="let --save-dir replace the trajectory files of an earlier study")
