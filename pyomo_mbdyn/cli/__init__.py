"""Command line: ``pyomo-mbdyn list | solvers | run | sweep | multistart``.

The names are a contract (see ARCHITECTURE.md).  ``run MODEL`` builds the
model, solves it through ``SolverFactory`` and prints the result as a table,
or with ``--json`` as one JSON object with the keys ``model, scheme, steps,
solver, status, objective, n_variables, n_constraints, n_equalities,
n_inequalities, iterations, import_seconds, build_seconds, solve_seconds,
wall_seconds, constraint_residual, horizon`` and, where they apply,
``energy_balance_error, momentum_error, hamiltonian_drift``.  The times are wall
seconds: ``import_seconds`` from the console script's start (after Python's own
start-up, about 20 ms) until the command line and what the run imports are loaded —
the package, Pyomo, NumPy, CasADi, the OCP layer with its schemes, the model's module;
``null`` when run as ``python -m pyomo_mbdyn.cli`` — then
``build_seconds`` (the model), ``solve_seconds`` (translation and solver; its part
inside IPOPT/Bonmin is ``solver_seconds``), and ``wall_seconds`` from the same start
until the result is printed: what is left of it after import, build and solve is
the evaluation (the diagnostics' columns, the model's ``evaluate``) and any files written.
The run imports no pandas (unless the model's own evaluation or diagnostics do).  Counts are of
the solved model: free variables (variable bounds, e.g. torque limits, are
not rows), active constraints, split into equality rows and inequality rows
(a row with lower and upper bound counts once); ``horizon`` is the final
time T = N h reached (the solver's value when the model's final time is free).
``--set KEY=VALUE`` (repeatable) passes an option of the model's ``build()``,
JSON-typed (``--set case=time``, ``--set distance=2.5``); an unknown key is
refused with the list of the model's options (``pyomo-mbdyn list --options MODEL``
lists them).  After the solve ``--save FILE`` writes the trajectory archive
(``"saved"`` in the JSON), ``--plot DIR`` the model's figures (PNG) and ``--html FILE`` an interactive 3-D view
(:func:`pyomo_mbdyn.plotting.animate_html`; ``"html"`` in the JSON); a failure
to write them leaves the result standing, adds ``error`` to it and exits 1.

With ``--steps N`` of at least ``2 × REFINE_FROM`` (:data:`pyomo_mbdyn.ocp.solve.REFINE_FROM`,
80; ``--coarsest`` changes it) a model whose ``build(scheme, steps=...)`` returns a
direct optimal-control scheme block ``dyn`` is solved by grid refinement
(:func:`pyomo_mbdyn.ocp.solve_refined`: e.g. N = 80, then 640 started from its
solution); each stage is printed as it ends, and the result carries them as
``stages`` (``iterations``, ``build_seconds``, ``solve_seconds`` and ``solver_seconds``
are then the sums over the stages).  ``--no-refine`` solves the N-step model directly.

``sweep MODEL --steps 20,40,80 [--scheme bem,rem]`` solves the model once per point of
the grid (each as ``run`` solves it) and ``multistart MODEL --starts K --seed S
[--radius R] [--perturb auto|guess|chart|controls]`` from K reproducible starts
(:mod:`pyomo_mbdyn.studies`), on ``--workers K`` local processes (default: one per
CPU) or on the Dask cluster at ``--scheduler ADDRESS``.  They print the table of runs
and the best run; with ``--json`` one JSON object ``{"model", "study", "runs": [one
record per task], "best": record or null, "options"}`` (on a bad request: ``{"model",
"study", "status": "error", "error"}``, exit status 2); ``--csv FILE`` also writes the
table.  Exit status 1: ``sweep`` when a run did not end optimal, ``multistart`` when
none did.

Here: the parser and :func:`main`; the commands in :mod:`.run_commands` (run, list, solvers,
diagnose) and :mod:`.study_commands` (sweep, multistart), their shared parts in :mod:`.common`.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Sequence

from .._version import __version__
from ..studies.run import run_model, solve_model  # noqa: F401  (the API's names, here as before)
from ..studies.size import count_components as _count, count_rows as _count_rows  # noqa: F401
from . import common
from .common import (EXIT_BAD_REQUEST, EXIT_FAILED, EXIT_INTERNAL, ArgumentError, _command_streams,  # noqa: F401
                     _Parser, _print_json, number)
from .run_commands import _cmd_diagnose, _cmd_list, _cmd_run, _cmd_solvers
from .study_commands import _add_study_arguments, _cmd_multistart, _cmd_sweep

__all__ = ["main"]

def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pyomo-mbdyn",
        description="Structure-preserving optimal control of multibody systems in Pyomo.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list", help="models with one-line descriptions, or one model's options")
    listing.add_argument("--options", metavar="MODEL", default=None,
                         help="the options of MODEL's build() (for run --set KEY=VALUE), with defaults")
    listing.add_argument("--json", action="store_true", help="with --options: one JSON object")
    listing.set_defaults(func=_cmd_list)
    sub.add_parser("solvers", help="available solvers and versions").set_defaults(
        func=_cmd_solvers
    )
    run = sub.add_parser("run", help="build, solve and evaluate a model")
    run.add_argument("model")
    run.add_argument("--scheme", default=None, help="discrete scheme (bem, rem, ...)")
    run.add_argument("--steps", type=number, default=None, help="number of time steps N")
    run.add_argument("--solver", default=None, help="solver name (default: get_solver())")
    run.add_argument("--coarsest", type=int, default=None, metavar="N",
                     help="coarsest grid of the grid refinement used from 2N steps "
                          "(default: pyomo_mbdyn.ocp.solve.REFINE_FROM = 80)")
    run.add_argument("--force", action="store_true",
                     help="build a request larger than this machine's memory holds by estimate "
                          "(pyomo_mbdyn.studies.size)")
    run.add_argument("--no-refine", action="store_true",
                     help="solve on the requested grid directly, without grid refinement")
    run.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="set",
                     help="a model option (an argument of the model's build(); VALUE is JSON-typed, "
                          "e.g. --set distance=2.5 --set objective='\"effort+time\"'; bare words are strings)")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    run.add_argument("--save", metavar="FILE", default=None,
                     help="save the solved trajectory (a .npz archive: pyomo_mbdyn.results.load) to FILE")
    run.add_argument("--plot", metavar="DIR", default=None,
                     help="write the model's figures (PNG) into DIR and print their paths")
    run.add_argument("--html", metavar="FILE", default=None,
                     help="write an interactive 3-D view of the solved motion (one self-contained HTML "
                          "file: rotate, zoom, play; controls and energy beside it) to FILE and print its path")
    run.set_defaults(func=_cmd_run)
    sweep = sub.add_parser("sweep", help="solve a model on every point of a grid of schemes and steps")
    sweep.add_argument("model")
    sweep.add_argument("--steps", default=None, metavar="N1,N2,...", help="numbers of time steps, e.g. 20,40,80")
    sweep.add_argument("--scheme", default=None, metavar="S1,S2,...", help="schemes, e.g. bem,rem")
    _add_study_arguments(sweep)
    sweep.set_defaults(func=_cmd_sweep)
    multi = sub.add_parser("multistart", help="solve a model from many perturbed starts; its distinct optima")
    multi.add_argument("model")
    multi.add_argument("--starts", type=int, default=8, metavar="K",
                       help="number of starts; start 0 is the model's own guess (default 8)")
    multi.add_argument("--seed", type=int, default=0, help="seed of the perturbations (default 0)")
    multi.add_argument("--radius", type=float, default=1e-2, metavar="R",
                       help="size of the perturbation (default 1e-2; see pyomo_mbdyn.studies.multistart)")
    multi.add_argument("--perturb", default="auto", choices=("auto", "guess", "chart", "controls"),
                       help="move the chart's joint angles where the model has a chart, else every free "
                            "variable (auto, the default), move every free variable (guess), the chart "
                            "(chart) or draw random controls (controls)")
    multi.add_argument("--scheme", default=None, help="discrete scheme (bem, rem, ...)")
    multi.add_argument("--steps", type=number, default=None, help="number of time steps N")
    _add_study_arguments(multi)
    multi.set_defaults(func=_cmd_multistart)
    diag = sub.add_parser("diagnose", help="structural and numerical diagnosis of a built model "
                                            "(dependent equations, residuals, conditioning)")
    diag.add_argument("model")
    diag.add_argument("--scheme", default=None, help="discrete scheme (bem, rem, ...)")
    diag.add_argument("--steps", type=number, default=None, help="number of time steps N")
    diag.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="set",
                      help="a model option, as for run (JSON-typed VALUE)")
    diag.add_argument("--force", action="store_true",
                      help="build a request larger than this machine's memory holds by estimate")
    diag.add_argument("--solve", action="store_true",
                      help="solve first, then diagnose the solution (or the solver's final point)")
    diag.add_argument("--solver", default=None, help="solver for --solve (default: get_solver())")
    diag.add_argument("--json", action="store_true", help="print one JSON object")
    diag.set_defaults(func=_cmd_diagnose)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit status (see :data:`EXIT_BAD_REQUEST` and its neighbours).

    Every path answers: with ``--json`` exactly one JSON object on stdout with
    ``status`` and ``error`` when something failed, without it one line on
    stderr — never a traceback (set ``PYOMO_MBDYN_TRACEBACK=1`` to see one for an
    internal error).  Run by the console script, ``run`` then ends its process at once
    (:func:`_leave`)."""
    code = _command(argv)
    if argv is None and _console_run():
        _leave(code)
    return code


def _console_run() -> bool:
    """Whether this process is the console script's (``_pyomo_mbdyn_launch``) running ``run``."""
    launched = getattr(sys.modules.get("_pyomo_mbdyn_launch"), "STARTED", None) is not None
    return launched and next((a for a in sys.argv[1:] if not a.startswith("-")), None) == "run"


def _leave(code: int) -> None:
    """End the process with ``code`` once ``run`` has answered, without tearing the interpreter
    down: freeing the solved model's objects, CasADi's functions and every module took 0.2 s of
    a 1.6 s cold ``run panda`` (issue 48), after the answer was printed.  The exit handlers run
    and the streams are flushed first; while a thread other than the daemons is alive the
    process ends as usual (returns)."""
    import atexit
    import os
    import threading

    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        return
    try:
        atexit._run_exitfuncs()  # logging's shutdown and whatever else was registered
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # a stream that cannot be flushed (a reader that left): the usual exit says so
        return
    os._exit(code)


def _command(argv: Sequence[str] | None) -> int:
    """:func:`main` without the console script's exit."""
    import os

    from ..errors import MbdynError

    common.READY[0] = time.perf_counter()  # the command line is imported (run adds the library's import)
    argv = sys.argv[1:] if argv is None else list(argv)
    wants_json = "--json" in argv
    command = next((a for a in argv if not a.startswith("-")), None)

    def refuse(message, status, code):
        if wants_json:
            _print_json({"command": command, "status": status, "error": message})
        print(f"pyomo-mbdyn: {message}", file=sys.stderr)
        return code

    from ..solvers.interrupts import exit_status, interruption_behind

    def interrupted(interrupt):  # Ctrl-C (130), SIGTERM (143): also inside a solver
        signum = exit_status(interrupt) - 128
        name = {2: "SIGINT", 15: "SIGTERM"}.get(signum, f"signal {signum}")
        return refuse(f"interrupted ({name})", "interrupted", exit_status(interrupt))

    try:  # a Ctrl-C while the parser is built (start-up) is answered as any other
        parser = build_parser()
        args = parser.parse_args(argv)
    except KeyboardInterrupt as interrupt:
        return interrupted(interrupt)
    except ArgumentError as err:
        return refuse(str(err), "error", EXIT_BAD_REQUEST)
    except SystemExit as exit:  # --help, --version: argparse printed what was asked
        return exit.code if isinstance(exit.code, int) else 0

    try:
        with _command_streams(wants_json):
            return args.func(args)
    except KeyboardInterrupt as interrupt:
        return interrupted(interrupt)
    except BrokenPipeError:  # the reader left (``pyomo-mbdyn list | head -1``): nothing more to say
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit would fail again
        return EXIT_FAILED
    except Exception as err:
        behind = interruption_behind(err)  # a signal that surfaced as another error
        if behind is not None:
            return interrupted(behind)
        if isinstance(err, MbdynError):
            return refuse(str(err), "error", EXIT_BAD_REQUEST)
        # a bug: one line, a distinct exit status
        if os.environ.get("PYOMO_MBDYN_TRACEBACK"):
            raise
        return refuse(f"internal error: {type(err).__name__}: {err} (please report it; "
                      f"PYOMO_MBDYN_TRACEBACK=1 shows the traceback)", "internal error", EXIT_INTERNAL)

