"""Studies: parameter sweeps and multi-start, one solve per task, on any executor.

:func:`sweep` solves one model per point of a grid (``{"steps": [20, 40],
"scheme": ["bem", "rem"]}``); :func:`multistart` solves one model from many
reproducible starting points and labels the distinct optima it reaches.  Both
run their tasks on any :class:`concurrent.futures.Executor`: by default on
local worker processes of the study's own (``workers``; supervised, so that a
lost process or a task beyond ``task_timeout`` costs that task only); a
Dask cluster through ``distributed.Client(address)
.get_executor()`` (``pip install "pyomo_mbdyn[dask]"``), which is how a study
leaves one machine::

    from distributed import Client
    from pyomo_mbdyn.studies import best, multistart

    client = Client("tcp://scheduler:8786")       # or Client(LocalCluster(...))
    table = multistart("three-link-arm", 1000, seed=0, radius=0.1,
                       executor=client.get_executor())
    print(best(table))

Every task builds its model inside the worker from a small picklable spec
(a model name and keywords, or a callable and keywords: Pyomo models are never
shipped between processes), solves it, and returns a plain dict, so a study
gives the same numbers on every executor (same seed, same starts, same
deterministic solves): the tables agree up to the :data:`TIMING_COLUMNS`,
provided the workers run casadi's BLAS alike — one thread each, as Dask's
workers and those of :func:`process_executor` do (:data:`WORKER_ENVIRONMENT`).
A task that fails (an infeasible problem, an iteration limit, an error while
building) is a row with its ``status`` and ``message``, never dropped and never
the end of the study; so is a task whose worker process was lost (killed by a
signal, crashed: ``"error"``, the message says ``worker lost`` and how) and, with
``task_timeout``, a task that ran out of time (``"timeout"``).  Every other task
runs, and every result computed is reported.  On the study's own processes (the
default) exactly the task that was on the lost or overrunning process fails; on a
given executor the study survives what that executor allows
(:mod:`pyomo_mbdyn.studies.pool` says what: a broken process pool's unfinished tasks
run again on processes of the study's own).

Records (one row of the pandas DataFrame per task, in task order whatever the
order of completion; the index is the task number):

========================  ==================================================
the task's inputs         sweep: one column per grid key (the grid point);
                          multistart: ``start`` (0 is the model's own
                          guess) and ``seed``
``status``                the solver's termination condition (``"optimal"``,
                          ``"locallyOptimal"``, ``"maxIterations"``,
                          ``"infeasible"``, …), ``"error"`` for an exception
                          that is not a failed solve or a lost worker,
                          ``"timeout"`` for a task beyond ``task_timeout``
``objective``             the active objective's value (None unless solved)
``iterations``            solver iterations (None when unknown or failed)
``build_seconds``         building the model (and moving its start)
``solve_seconds``         the solve
``seconds``               the whole task, measured in the worker
``message``               the error's text, or ``""``
``path``                  with ``save_dir``: the saved trajectory
                          (:mod:`pyomo_mbdyn.results`), None when not saved
``final_state``           multistart: node N of the configurations and
                          velocities, ``q_N`` then ``v_N`` (a list)
``optimum``               multistart: the label of the distinct optimum
                          (0 the best, 1 the next, …; NA when not solved)
========================  ==================================================

A sweep over a registry model name adds the other fields of
``pyomo-mbdyn run --json`` (``scheme``, ``steps``, ``solver``, ``horizon``,
``constraint_residual``, … ; :func:`pyomo_mbdyn.studies.run.solve_model`), except
``model`` and ``stages``.

Process pools pickle what they ship: ``build`` and a ``perturb`` callable must
be module-level functions (or :func:`functools.partial` of them), and a script
that runs a study on the default pool must guard its entry point with
``if __name__ == "__main__":`` (the "spawn" start method imports it again in
every worker).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

import inspect
import itertools
import math
import os
import pickle
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ConfigurationError, DestinationError
from .tables import best, cluster_optima, to_records, write_table_csv
from .tasks import COLUMNS, SUCCESS, Task, run_task

__all__ = ["sweep", "multistart", "best", "cluster_optima", "to_records", "write_table_csv", "process_executor",
           "SUCCESS", "TIMING_COLUMNS", "PERTURBATIONS", "PROGRESS_MIN_TASKS", "WORKER_ENVIRONMENT", "INTERRUPTED",
           "MAX_RADIUS"]

#: status of a task that had not finished when the study was interrupted (SIGINT / SIGTERM)
INTERRUPTED = "interrupted"

#: the largest ``radius`` of the named perturbations: a start moved by more is no start
#: (1e300 makes IPOPT's first evaluation overflow: "Invalid number in NLP function")
MAX_RADIUS = 1e6


#: columns that differ between runs of the same study: wall-clock times
#: (``solver_seconds`` is one of the ``run`` fields of a sweep over a model name)
TIMING_COLUMNS = ("build_seconds", "solve_seconds", "seconds", "solver_seconds")

#: the named perturbations of :func:`multistart` (or pass a callable ``perturb(model, rng)``)
PERTURBATIONS = ("auto", "guess", "chart", "controls")

#: ``progress=None`` shows a bar from this many tasks on, when stderr is a terminal
PROGRESS_MIN_TASKS = 5

#: environment of the worker processes of :func:`process_executor`: one BLAS / OpenMP
#: thread per process, as Dask's nanny gives its workers (its ``pre-spawn-environ``).
#: The solves then round alike on both (the threaded OpenBLAS inside casadi's IPOPT
#: and MUMPS rounds differently: the arm's start 7 of seed 0 at radius 0.1 takes 63
#: iterations with its default threads, 64 with one), and one task per core does not
#: oversubscribe the cores.
WORKER_ENVIRONMENT = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}

#: the range of a nullable Int64 column
_INT64 = (-2**63, 2**63 - 1)


# -- checking the spec (in the caller, before any task runs) ------------------------
def _resolve_build(build, what):
    """``(build, parameters of its build())``; a model name must be in the registry."""
    if isinstance(build, str):
        from ..plugins import model_spec

        function = model_spec(build, what).build
    elif callable(build):
        function = build
    else:
        raise ConfigurationError(f"{what}: build must be a model name or a callable build(**keywords) -> model, "
                                 f"got {build!r}")
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):  # no signature to check against
        return build, None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return build, None
    return build, [name for name, p in parameters.items()
                   if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)]


def _check_keys(what, build, keys, accepted, where):
    if accepted is None:
        return
    unknown = [key for key in keys if key not in accepted]
    if unknown:
        if isinstance(build, str):
            owner = f"model {build!r}"
        else:
            owner = f"{getattr(getattr(build, 'func', build), '__name__', repr(build))}()"
        raise ConfigurationError(
            f"{what}: {owner} takes no {where} key {unknown[0]!r}; its options are {accepted}")


def _check_common(what, options, solver, solve_options, save_dir, executor=None, workers=None, task_timeout=None):
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise ConfigurationError(f"{what}: executor must be a concurrent.futures.Executor (a process or thread "
                                 f"pool, a Dask client's get_executor()), got {executor!r}")
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
            raise ConfigurationError(f"{what}: workers must be a positive integer, got {workers!r}")
        if executor is not None:
            raise ConfigurationError(f"{what}: workers={workers!r} sizes the study's own processes; "
                                     f"give either workers or executor, not both")
    if task_timeout is not None:
        try:
            ok = not isinstance(task_timeout, bool) and math.isfinite(task_timeout) and task_timeout > 0
        except TypeError:
            ok = False
        if not ok:
            raise ConfigurationError(f"{what}: task_timeout must be a positive finite number of seconds (or None), "
                                     f"got {task_timeout!r}")
    if options is not None and not isinstance(options, dict):
        raise ConfigurationError(f"{what}: options must be a dict of build keywords, got {options!r}")
    if solver is not None and not isinstance(solver, str):
        raise ConfigurationError(f"{what}: solver must be a solver name (workers create their own solver), "
                                 f"got {solver!r}")
    if solve_options is not None and not isinstance(solve_options, dict):
        raise ConfigurationError(f"{what}: solve_options must be a dict of solver options, got {solve_options!r}")
    if save_dir is not None and not isinstance(save_dir, (str, os.PathLike)):
        raise ConfigurationError(f"{what}: save_dir must be a directory path, got {save_dir!r}")
    if save_dir is not None and (executor is None or isinstance(executor, (ProcessPoolExecutor, ThreadPoolExecutor))):
        _check_save_dir(what, Path(save_dir))  # on this machine: where the workers save


def _check_save_dir(what, path):
    """Refuse a ``save_dir`` that is not a directory and cannot become one, before anything runs."""
    if path.exists() and not path.is_dir():
        raise DestinationError(f"{what}: save_dir {str(path)!r} is a file, not a directory: the trajectories "
                               f"cannot be saved there; give a directory (it is created if missing)")
    ancestor = path
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise DestinationError(f"{what}: save_dir {str(path)!r} cannot be created: {str(ancestor)!r} is a file, "
                               f"not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise DestinationError(f"{what}: save_dir {str(path)!r} cannot be written: no permission to write in "
                               f"{str(ancestor)!r}")


def _check_overwrite(what, tasks, overwrite, executor):
    """Refuse to replace the trajectories an earlier study saved in ``save_dir`` (the files
    this study would write: ``sweep-<task>.npz``, ``start-<s>.npz``) unless ``overwrite``.
    Checked on this machine, where the study's own processes or a local pool save; a Dask
    cluster's workers save on their own file system, which is not looked at."""
    if overwrite or not (executor is None or isinstance(executor, (ProcessPoolExecutor, ThreadPoolExecutor))):
        return
    taken = [task.save_path for task in tasks if task.save_path is not None and os.path.lexists(task.save_path)]
    if taken:
        raise DestinationError(
            f"{what}: save_dir {str(Path(taken[0]).parent)!r} holds {len(taken)} trajectory file(s) of an earlier "
            f"study that this one would replace ({Path(taken[0]).name}, …); give another directory, remove them, "
            f"or pass overwrite=True (--overwrite)")


def _check_picklable(what, executor, **objects):
    """A process pool pickles what it ships: say so before anything runs."""
    if executor is not None and not isinstance(executor, ProcessPoolExecutor):
        return
    for name, obj in objects.items():
        if obj is None or isinstance(obj, str):
            continue
        try:
            pickle.dumps(obj)
        except Exception as err:
            raise ConfigurationError(
                f"{what}: {name} {obj!r} cannot be sent to a worker process ({err}); use a module-level "
                f"function or functools.partial of one") from None


def _grid_points(grid):
    """The Cartesian product of ``grid`` (dict of lists), the first key varying slowest."""
    if not isinstance(grid, dict):
        raise ConfigurationError(f"sweep: grid must be a dict of lists, got {grid!r}")
    if not grid:
        raise ConfigurationError("sweep: the grid is empty; give at least one key with a list of values")
    for key, values in grid.items():
        if not isinstance(key, str):
            raise ConfigurationError(f"sweep: grid key {key!r} is not a keyword name")
        if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
            raise ConfigurationError(f"sweep: grid[{key!r}] must be a list of values, got {values!r}")
    lists = {key: list(values) for key, values in grid.items()}  # once: a generator is read only once
    for key, values in lists.items():
        if not values:
            raise ConfigurationError(f"sweep: grid[{key!r}] is empty")
    return [dict(zip(lists, _plain_values(combo))) for combo in itertools.product(*lists.values())]


def _plain_values(values):
    return [v.item() if isinstance(v, np.generic) else v for v in values]


# -- running -------------------------------------------------------------------
def process_executor(max_workers: int | None = None,
                     environment: Mapping[str, str] | None = None) -> ProcessPoolExecutor:
    """A local :class:`~concurrent.futures.ProcessPoolExecutor` on the "spawn" start
    method (fresh interpreters: safe with CasADi's and BLAS's threads), with
    ``max_workers`` processes (default ``os.cpu_count()``), each of which sets
    ``environment`` (default :data:`WORKER_ENVIRONMENT`: one BLAS thread, as on a
    Dask worker) before its first task.  A pool made otherwise runs the tasks too,
    but its solves may round differently from a Dask cluster's.

    Examples
    --------
    Pass it as the ``executor`` of :func:`sweep` or :func:`multistart`
    (``sweep("particle", {"steps": [20, 40]}, executor=pool)``); no process
    starts before the first task is submitted:

    >>> from concurrent.futures import ProcessPoolExecutor
    >>> with process_executor(max_workers=2) as pool:
    ...     print(isinstance(pool, ProcessPoolExecutor))
    True
    """
    import multiprocessing

    if max_workers is not None and (isinstance(max_workers, bool) or not isinstance(max_workers, int)
                                    or max_workers < 1):
        raise ConfigurationError(f"workers must be a positive integer, got {max_workers!r}")
    environment = dict(WORKER_ENVIRONMENT if environment is None else environment)
    return ProcessPoolExecutor(max_workers=max_workers or os.cpu_count() or 1,
                               mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start_worker, initargs=(environment,))


def _start_worker(environment):
    """Initializer of :func:`process_executor`'s processes (casadi loads its BLAS at the first solve)."""
    os.environ.update(environment)


def _progress_bar(progress, total, study):
    show = progress if progress is not None else (total >= PROGRESS_MIN_TASKS and sys.stderr.isatty())
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=study, unit="run", file=sys.stderr)


def _execute(tasks, executor, progress, study, workers=None, task_timeout=None, on_record=None):
    """Run ``tasks``; their records in task order, one for every task whatever happens
    to the others (:mod:`pyomo_mbdyn.studies.pool`): a task whose worker was lost or
    that timed out, or whose future failed, is a row with its ``status`` and ``message``.

    ``executor`` None: on ``workers`` supervised processes of the study's own (default
    min(tasks, CPUs)); otherwise on ``executor``.  ``on_record(index, record)`` is called
    as each task ends (in the order they end).  An interruption (``KeyboardInterrupt``, the
    command line's SIGTERM) stops the workers and is raised again with ``records``: the
    finished tasks' records and, for the others, rows with status :data:`INTERRUPTED`."""
    from .pool import run_on_executor, run_supervised

    bar = _progress_bar(progress, len(tasks), study)
    records = [None] * len(tasks)
    try:
        if executor is None:
            workers = min(len(tasks), workers or os.cpu_count() or 1)
            outcomes = run_supervised(tasks, run_task, workers, task_timeout, _start_worker, (WORKER_ENVIRONMENT,))
        else:
            outcomes = run_on_executor(tasks, run_task, executor, task_timeout, _start_worker, (WORKER_ENVIRONMENT,))
        try:
            for task, record, failure in outcomes:
                records[task.index] = record if failure is None else _failed(task, *failure)
                if on_record is not None:
                    on_record(task.index, records[task.index])
                if bar is not None:
                    bar.update(1)
        finally:
            outcomes.close()  # the workers are stopped before anything else happens
    except KeyboardInterrupt as interrupt:
        name = getattr(interrupt, "args", None) and interrupt.args[0] or "SIGINT"
        for task in tasks:
            if records[task.index] is None:
                records[task.index] = _failed(task, INTERRUPTED, f"not finished: the study was interrupted ({name})")
        interrupt.records = records
        raise
    finally:
        if bar is not None:
            bar.close()
    return records


def _interrupted_table(interrupt, finish):
    """Attach the table of an interrupted study to the interruption (``interrupt.table``)."""
    records = getattr(interrupt, "records", None)
    if records is not None:
        interrupt.table = finish(_table(records))


def _failed(task, status, message):
    """The record of a task that returned none: its inputs, ``status`` and ``message``."""
    record = dict(task.inputs)
    record.update({key: None for key in COLUMNS})
    record.update(status=status, message=message)
    if task.save_path is not None:
        record["path"] = None
    if task.study == "multistart":
        record["final_state"] = None
        record["perturbation"] = None
    return record


def _table(records):
    """The records as a DataFrame; columns of integers (and None) as nullable Int64."""
    table = pd.DataFrame.from_records(records)
    for column in table.columns:
        values = [r.get(column) for r in records if r.get(column) is not None]
        if values and all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
                          and _INT64[0] <= v <= _INT64[1] for v in values):
            table[column] = table[column].astype("Int64")  # else Python ints (a seed beyond 2**63)
    table["objective"] = table["objective"].astype(float)
    return table


# -- studies -------------------------------------------------------------------
def sweep(build: str | Callable[..., Any], grid: Mapping[str, Sequence[Any]],
          solve_options: Mapping[str, Any] | None = None, executor: Executor | None = None,
          solver: str | None = None, progress: bool | None = None,
          options: Mapping[str, Any] | None = None, save_dir: str | os.PathLike[str] | None = None,
          workers: int | None = None, task_timeout: float | None = None, overwrite: bool = False,
          on_record: Callable[[int, dict[str, Any]], Any] | None = None) -> pd.DataFrame:
    """Solve one model per point of ``grid``; a pandas DataFrame, one row per point.

    Interrupts: a ``KeyboardInterrupt`` (Ctrl-C, the command line's SIGTERM) stops the
    workers and is raised again with the attribute ``table``: the finished tasks' rows and,
    for the others, rows with status :data:`INTERRUPTED`.

    Parameters
    ----------
    build : str or callable
        A declared model's name (:func:`pyomo_mbdyn.plugins.models`): each point is solved as
        ``pyomo-mbdyn run`` solves it (:func:`pyomo_mbdyn.studies.run.solve_model`, grid
        refinement from 2 × 80 steps included; the grid keys ``scheme`` and
        ``steps`` and the model's build options).  Or a picklable callable
        ``build(**point) -> model``, solved by :func:`pyomo_mbdyn.ocp.solve`.
    grid : dict of lists
        ``{"steps": [20, 40], "scheme": ["bem", "rem"]}``: one task per point of
        the Cartesian product, the first key varying slowest (row 0: 20/bem,
        row 1: 20/rem, row 2: 40/bem, …).
    solve_options : dict, optional
        Solver options (``{"max_iter": 100}``) for a callable ``build``.  A model
        name is solved as ``run`` solves it, without solver options: for those, pass
        ``functools.partial(model_spec(name).build)`` as ``build``.
    executor : concurrent.futures.Executor, optional
        Where the tasks run (not shut down here): default ``workers`` supervised
        "spawn" processes of the study's own (:func:`pyomo_mbdyn.studies.pool.run_supervised`,
        set up as :func:`process_executor`'s), stopped at the end; a Dask cluster:
        ``distributed.Client(address).get_executor()``.  See the module docstring for
        what each survives.
    workers : int ≥ 1, optional
        The number of the study's own processes (default min(tasks, CPUs)); not with
        ``executor``.
    task_timeout : float > 0, optional
        Seconds a task may run, from the moment its worker process takes it (on a
        given executor: from the moment it is handed over, a fresh worker's start-up
        included): a task that has not returned by then is a row with status
        ``"timeout"``, its process is killed and replaced, and the other tasks run.
        On a thread pool or a Dask cluster the task cannot be stopped: it is
        abandoned and its worker stays busy until it returns.  Default: no limit.
    solver : str, optional
        A solver name (default :func:`pyomo_mbdyn.get_solver`'s choice in the worker).
    progress : bool, optional
        A tqdm bar on stderr: True, False, or None for one when there are at least
        :data:`PROGRESS_MIN_TASKS` tasks and stderr is a terminal.
    options : dict, optional
        Build keywords common to every point (a grid key must not repeat one).
    save_dir : path, optional
        Save each solved trajectory there as ``sweep-<task>.npz``
        (:class:`pyomo_mbdyn.results.SolvedTrajectory`; the directory is created if
        missing); its path in ``path``.  A file this study would write that is there
        already (an earlier study's) is refused before any run (DestinationError) unless
        ``overwrite`` (on this machine; not on a Dask cluster's workers).
    overwrite : bool
        Let ``save_dir`` replace an earlier study's files.
    on_record : callable, optional
        ``on_record(index, record)`` as each task ends (the command line prints a line and
        rewrites ``--csv``).

    Returns
    -------
    pandas.DataFrame
        One row per point, in grid order: the grid keys, then ``status``,
        ``objective``, ``iterations``, ``build_seconds``, ``solve_seconds``,
        ``seconds``, ``message`` (and ``path``; see the module docstring, which
        also lists the ``run`` fields a model name adds).

    Raises
    ------
    ConfigurationError
        An unknown model, an empty grid or an empty list of values, a grid or option
        key the build does not take, solve options with a model name, ``workers``
        that is not a positive integer or given with ``executor``, a ``task_timeout``
        that is not a positive finite number (any finite one is waited for: 1e308 s
        in slices, :mod:`pyomo_mbdyn.studies.pool`).
    DestinationError
        A ``save_dir`` that is a file or cannot be created (checked on this machine
        unless ``executor`` is a Dask cluster's).
    """
    what = "sweep"
    _check_common(what, options, solver, solve_options, save_dir, executor, workers, task_timeout)
    build, accepted = _resolve_build(build, what)
    points = _grid_points(grid)
    options = dict(options or {})
    _check_keys(what, build, list(grid), accepted, "grid")
    _check_keys(what, build, list(options), accepted, "options")
    both = sorted(set(grid) & set(options))
    if both:
        raise ConfigurationError(f"sweep: {both[0]!r} is both a grid key and an option; give it once")
    if isinstance(build, str) and solve_options:
        raise ConfigurationError(
            f"sweep: solve_options {solve_options!r} apply to a callable build; a model name is solved as "
            f"`pyomo-mbdyn run` solves it.  Pass functools.partial(<module>.build) as build to set them")
    _check_picklable(what, executor, build=build)
    tasks = [Task(index=i, study="sweep", build=build, kwargs={**options, **point}, inputs=point, solver=solver,
                   solve_options=dict(solve_options or {}),
                   save_path=None if save_dir is None else str(Path(save_dir) / f"sweep-{i:04d}.npz"))
             for i, point in enumerate(points)]
    _check_overwrite(what, tasks, overwrite, executor)
    try:
        return _table(_execute(tasks, executor, progress, what, workers, task_timeout, on_record))
    except KeyboardInterrupt as interrupt:
        _interrupted_table(interrupt, lambda table: table)
        raise


def multistart(build: str | Callable[..., Any], starts: int, seed: int = 0,
               perturb: str | Callable[[Any, np.random.Generator], Any] = "auto", radius: float = 1e-2,
               solve_options: Mapping[str, Any] | None = None, executor: Executor | None = None,
               solver: str | None = None, progress: bool | None = None, options: Mapping[str, Any] | None = None,
               save_dir: str | os.PathLike[str] | None = None, objective_rtol: float = 1e-6, state_tol: float = 1e-4,
               workers: int | None = None, task_timeout: float | None = None, overwrite: bool = False,
               on_record: Callable[[int, dict[str, Any]], Any] | None = None) -> pd.DataFrame:
    """Solve one model from ``starts`` starting points; a DataFrame with its distinct optima labelled.

    Start 0 is the model's own guess.  Start s > 0 is that guess moved with the
    generator ``numpy.random.default_rng([seed, s])`` (the same starts on every
    executor, and start s the same whatever ``starts`` is):

    * ``perturb="auto"`` (the default): ``"chart"`` where the model's block has a chart
      that reaches every node of its guess, else ``"guess"`` (a system without a chart —
      the DNCO's Hamiltonian systems — or a rotation beyond the chart's reach: the sphere's
      three turns).  Measured on the models (benchmarks/pages/multistart.md): moving the
      chart finds the most distinct optima (the three-link arm: 2 at radius 1e-2 and 8 at
      0.1, where moving every variable finds 1 and 3); the column ``perturbation`` says
      which one each start got;
    * ``perturb="guess"``: every free variable moved uniformly within ±``radius``,
      clipped to its bounds (:func:`pyomo_mbdyn.ocp.guess.perturb_start`);
    * ``perturb="chart"``: the chart coordinates (joint angles, …) of the
      interior nodes moved uniformly within ±``radius`` and the start rebuilt on
      the constraint manifold (:func:`pyomo_mbdyn.ocp.guess.perturb_chart`);
    * ``perturb="controls"``: random controls, every free ``model.dyn.u[i, a]``
      drawn uniformly within ``u_guess ± radius · scale_a``, clipped to its
      bounds, where ``scale_a`` is the guess's largest \\|u[·, a]\\| (if that is
      zero, the largest finite bound of u[·, a], else 1): ``radius=1`` moves
      each control by up to the guess's peak of that actuator; the states keep
      the guess;
    * a callable ``perturb(model, rng)`` (picklable) that changes the model in place.

    Each start is solved by :func:`pyomo_mbdyn.ocp.solve` (``solver``,
    ``solve_options``).  The runs that end optimal are grouped into distinct
    optima (:func:`cluster_optima`): two runs are one optimum when their
    objectives agree to the relative tolerance ``objective_rtol`` and their final
    states (q_N, v_N) to ``state_tol`` (relative to max(1, \\|state\\|∞)).

    Parameters
    ----------
    build : str or callable
        A declared model's name (:func:`pyomo_mbdyn.plugins.models`) (built by its module's
        ``build(**options)``) or a picklable ``build(**options) -> model``.
    starts : int ≥ 1
    seed : int ≥ 0
        Any size (numpy's ``SeedSequence`` takes them all); the ``seed`` column holds
        Python integers when it exceeds 2**63 - 1.
    radius : float > 0
        Size of the named perturbations.
    options : dict, optional
        Build keywords (``{"scheme": "rem", "steps": 20}``).
    executor, workers, task_timeout, solver, progress, save_dir, overwrite, on_record :
        As for :func:`sweep` (trajectories saved as ``start-<s>.npz``); an interrupt, too.

    Returns
    -------
    pandas.DataFrame
        One row per start, in start order: ``start``, ``seed``, ``status``,
        ``objective``, ``iterations``, ``build_seconds``, ``solve_seconds``,
        ``seconds``, ``message``, (``path``), ``final_state``, ``perturbation`` (the one
        applied; None for start 0) and ``optimum`` (0 the best optimum; NA for a run that
        did not end optimal).

    Raises
    ------
    ConfigurationError
        An unknown model or option, ``starts`` < 1, a seed that is negative or not an
        integer (a bool included), an unknown ``perturb`` name, a radius that is not
        positive, finite and ≤ :data:`MAX_RADIUS`, and the bad ``workers`` / ``task_timeout`` of :func:`sweep`.
    DestinationError
        As for :func:`sweep`.
    """
    what = "multistart"
    _check_common(what, options, solver, solve_options, save_dir, executor, workers, task_timeout)
    build, accepted = _resolve_build(build, what)
    if isinstance(starts, bool) or not isinstance(starts, (int, np.integer)) or starts < 1:
        raise ConfigurationError(f"multistart: starts must be an integer ≥ 1, got {starts!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ConfigurationError(f"multistart: seed must be an integer ≥ 0, got {seed!r}")
    if not callable(perturb) and perturb not in PERTURBATIONS:
        raise ConfigurationError(f"multistart: unknown perturb {perturb!r}; choose from {list(PERTURBATIONS)} "
                                 f"or pass a callable perturb(model, rng)")
    if not callable(perturb):
        try:
            ok = math.isfinite(radius) and radius > 0
        except TypeError:
            ok = False
        if not ok or isinstance(radius, bool):
            raise ConfigurationError(f"multistart: radius must be positive and finite, got {radius!r}")
        if radius > MAX_RADIUS:
            raise ConfigurationError(f"multistart: radius {radius!r} is beyond {MAX_RADIUS:g}: the moved start "
                                     f"would overflow the solver's evaluations; give a radius ≤ {MAX_RADIUS:g}")
    options = dict(options or {})
    _check_keys(what, build, list(options), accepted, "options")
    _check_picklable(what, executor, build=build, perturb=perturb)
    seed = int(seed)
    tasks = [Task(index=s, study="multistart", build=build, kwargs=options, inputs={"start": s, "seed": seed},
                   solver=solver, solve_options=dict(solve_options or {}), start=s, seed=seed, perturb=perturb,
                   radius=float(radius) if not callable(perturb) else 0.0,
                   save_path=None if save_dir is None else str(Path(save_dir) / f"start-{s:04d}.npz"))
             for s in range(int(starts))]
    _check_overwrite(what, tasks, overwrite, executor)

    def finish(table):
        table["optimum"] = cluster_optima(table, objective_rtol, state_tol)
        return table

    try:
        return finish(_table(_execute(tasks, executor, progress, what, workers, task_timeout, on_record)))
    except KeyboardInterrupt as interrupt:
        _interrupted_table(interrupt, finish)
        raise


