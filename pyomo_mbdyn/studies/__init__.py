"""Studies: parameter sweeps and multi-start, one solve per task, on any executor.

* :mod:`~pyomo_mbdyn.studies.study`: :func:`sweep`, :func:`multistart`,
  :func:`best`, :func:`cluster_optima` — tasks built in the workers, run on a
  local process pool or a Dask cluster (see that module's docstring);
* :mod:`~pyomo_mbdyn.studies.run`: :func:`solve_model` — one registry model
  solved as ``pyomo-mbdyn run`` solves it (a sweep's task over a model name);
* :mod:`~pyomo_mbdyn.studies.tasks`: one task as a worker runs it (build, start, solve, record);
  :mod:`~pyomo_mbdyn.studies.tables`: the distinct optima, the best run, records and CSV;
* :mod:`~pyomo_mbdyn.studies.pool`: running the tasks so that a lost worker or a
  task beyond its time limit costs that task only.

The names of :mod:`.study` are imported when first read: :mod:`.study` and
:mod:`.tables` import pandas, which ``pyomo-mbdyn run`` — :mod:`.run` alone — does not
need (issue 48, cold start; tests/test_cold_start.py).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .run import run_model, solve_model

if TYPE_CHECKING:
    from .study import (PERTURBATIONS, PROGRESS_MIN_TASKS, SUCCESS, TIMING_COLUMNS, WORKER_ENVIRONMENT, best,
                        cluster_optima, multistart, process_executor, sweep, to_records, write_table_csv)

#: the names this package exports from :mod:`.study`, imported on first access
_FROM_STUDY = ("PERTURBATIONS", "PROGRESS_MIN_TASKS", "SUCCESS", "TIMING_COLUMNS", "WORKER_ENVIRONMENT", "best",
               "cluster_optima", "multistart", "process_executor", "sweep", "to_records", "write_table_csv")

__all__ = ["sweep", "multistart", "best", "cluster_optima", "to_records", "process_executor", "run_model",
           "solve_model", "write_table_csv", "SUCCESS", "TIMING_COLUMNS", "PERTURBATIONS", "PROGRESS_MIN_TASKS",
           "WORKER_ENVIRONMENT"]


def __getattr__(name: str) -> Any:
    """``pyomo_mbdyn.studies.sweep`` and the other names of :mod:`.study`, imported when first read."""
    if name in _FROM_STUDY:
        value = getattr(importlib.import_module(".study", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
