"""What a study's table says: the distinct optima, the best run, plain records, CSV.

A study is a pandas DataFrame, one row per task (:mod:`pyomo_mbdyn.studies.study`);
:func:`cluster_optima` labels the distinct optima of a multi-start (same J and same
final state), :func:`best` picks the best solved run, :func:`to_records` and
:func:`write_table_csv` hand the table on as plain Python values or a CSV file."""

from __future__ import annotations

import os
from typing import Any

import math
from pathlib import Path

import numpy as np
import pandas as pd

from ..atomic import atomic_write
from ..errors import DestinationError
from .tasks import SUCCESS


__all__ = ["cluster_optima", "best", "to_records", "write_table_csv"]


def _solved(table):
    return table["status"].isin(SUCCESS) & table["objective"].notna()


def cluster_optima(table: pd.DataFrame, objective_rtol: float = 1e-6, state_tol: float = 1e-4) -> pd.Series:
    """Labels of the distinct optima in a :func:`multistart` table, 0 the best.

    The solved runs (status in :data:`SUCCESS`) are taken by increasing
    objective (ties in task order); a run joins the first optimum whose best run
    has an objective within ``objective_rtol`` (relative) of its own and, where
    both have a ``final_state``, a final state within ``state_tol`` ·
    max(1, \\|state\\|∞) in every entry; otherwise it starts the next optimum.
    Returns a pandas Series (nullable Int64, NA for runs not solved) on the
    table's index.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({                 # four runs of a multistart, one not solved
    ...     "status": ["optimal", "optimal", "maxIterations", "optimal"],
    ...     "objective": [2.5, 1.0, None, 1.0 + 1e-10],
    ...     "final_state": [[0.0, 1.0], [1.0, 0.0], None, [1.0, 0.0]]})
    >>> cluster_optima(table).tolist()      # runs 1 and 3 found the same optimum
    [1, 0, <NA>, 0]
    """
    labels = pd.Series(pd.NA, index=table.index, dtype="Int64")
    solved = table[_solved(table)]
    representatives: list[tuple[float, Any]] = []
    for index in solved.sort_values("objective", kind="stable").index:
        objective = float(table.at[index, "objective"])
        state = table.at[index, "final_state"] if "final_state" in table.columns else None
        state = None if state is None or (np.ndim(state) == 0 and pd.isna(state)) else np.asarray(state, float)
        for label, (best_objective, best_state) in enumerate(representatives):
            if abs(objective - best_objective) > objective_rtol * max(abs(objective), abs(best_objective), 1e-300):
                continue
            if state is not None and best_state is not None:
                if state.shape != best_state.shape:
                    continue
                scale = max(1.0, float(np.abs(best_state).max(initial=0.0)))
                if np.abs(state - best_state).max(initial=0.0) > state_tol * scale:
                    continue
            labels[index] = label
            break
        else:
            labels[index] = len(representatives)
            representatives.append((objective, state))
    return labels


def best(table: pd.DataFrame) -> pd.Series | None:
    """The row (a pandas Series, named by its task number) with the lowest objective
    among the runs that ended optimal (the first in task order on a tie), or None
    when no run did."""
    solved = table[_solved(table)]
    if solved.empty:
        return None
    return solved.loc[solved["objective"].idxmin()]


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def to_records(table: pd.DataFrame | pd.Series | None) -> list[dict[str, Any]] | dict[str, Any] | None:
    """The rows of a study table (or one row, a Series, e.g. :func:`best`'s) as
    plain JSON-ready dicts: numpy scalars as Python numbers, NA and NaN as None.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({                 # four runs of a multistart, one not solved
    ...     "status": ["optimal", "optimal", "maxIterations", "optimal"],
    ...     "objective": [2.5, 1.0, None, 1.0 + 1e-10],
    ...     "final_state": [[0.0, 1.0], [1.0, 0.0], None, [1.0, 0.0]]})
    >>> to_records(table)[2]
    {'status': 'maxIterations', 'objective': None, 'final_state': None}
    >>> to_records(best(table))
    {'status': 'optimal', 'objective': 1.0, 'final_state': [1.0, 0.0]}
    """
    if table is None:
        return None
    if isinstance(table, pd.Series):
        return {str(k): _plain(v) for k, v in table.items()}
    return [{str(k): _plain(v) for k, v in row.items()} for row in table.to_dict("records")]


def write_table_csv(table: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write a study table to ``path`` as CSV: one line per task (index label
    ``task``), ``final_state`` as a JSON list; return ``path`` as a Path.

    The file is written atomically (:func:`pyomo_mbdyn.atomic.atomic_write`).
    Raises :class:`~pyomo_mbdyn.errors.DestinationError` (an ``OSError``) naming
    ``path`` when the file cannot be written (a directory, a missing directory, no
    permission); :func:`pyomo_mbdyn.atomic.check_destination` refuses such a path
    before a study starts.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> table = pd.DataFrame({"start": [0, 1], "status": ["optimal", "error"], "objective": [2.0, None],
    ...                       "final_state": [[1.0, 0.0], None]})
    >>> path = write_table_csv(table, os.path.join(tempfile.mkdtemp(), "runs.csv"))
    >>> print(path.read_text().strip())
    task,start,status,objective,final_state
    0,0,optimal,2.0,"[1.0, 0.0]"
    1,1,error,,
    """
    import json

    written = table.copy()
    if "final_state" in written.columns:
        written["final_state"] = [None if _plain(s) is None else json.dumps(_plain(s)) for s in written["final_state"]]
    try:  # atomically: a failed write (a full disk) leaves an earlier table intact
        with atomic_write(path, "w", encoding="utf-8", newline="", what="CSV table") as f:
            written.to_csv(f, index_label="task")
    except DestinationError:
        raise
    except OSError as err:
        raise DestinationError(f"cannot write the table {str(path)!r}: {err.strerror or err}") from None
    return Path(path)
