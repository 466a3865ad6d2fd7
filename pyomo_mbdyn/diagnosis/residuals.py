"""The rows a point violates most, by their Pyomo names, and the point a solver returned."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import contextlib
import math

from ..solvers.evaluation import expression_value
from .findings import Residual, _num

__all__ = ["solver_point", "largest_residuals", "residual_summary"]


def _evaluate(expr, memo):
    """The value of a Pyomo expression, every shared subexpression once (``memo``
    shared across rows), NaN where a value is missing or an operation fails."""
    return expression_value(expr, memo, failures="nan")


def _violation(body, lower, upper):
    if body is None or not math.isfinite(body):
        return math.inf
    below = lower - body if lower is not None else 0.0
    above = body - upper if upper is not None else 0.0
    return max(below, above, 0.0)


def solver_point(results: Any) -> list[tuple[Any, float]] | None:
    """``[(variable, value)]`` of the point a solver returned in ``results`` without
    loading it (Pyomo keeps it there when ``load_solutions`` was off — the library's
    plugins after ``infeasible``), or None when ``results`` carries no point.

    Examples
    --------
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.diagnosis import diagnose, largest_residuals
    >>> m = pyo.ConcreteModel("twice")        # one condition stated twice
    >>> m.x = pyo.Var(initialize=0.0)
    >>> m.y = pyo.Var(initialize=0.0)
    >>> m.once = pyo.Constraint(expr=m.x + m.y == 1)
    >>> m.again = pyo.Constraint(expr=2 * m.x + 2 * m.y == 2)
    >>> m.cost = pyo.Objective(expr=m.x ** 2 + m.y ** 2)
    >>> from pyomo_mbdyn import get_solver
    >>> results = get_solver("casadi_ipopt").solve(m, load_solutions=False)
    >>> [(var.name, round(value, 6)) for var, value in solver_point(results)]
    [('x', 0.5), ('y', 0.5)]
    >>> m.x.value                                  # the model keeps its values
    0.0
    """
    smap = getattr(results, "_smap", None)
    try:
        if smap is None or len(results.solution) == 0:
            return None
        variables = results.solution(0).variable
    except (AttributeError, IndexError, KeyError):
        return None
    point = []
    for label, data in variables.items():
        var = smap.bySymbol.get(label)
        if var is not None and data.get("Value") is not None:
            point.append((var, float(data["Value"])))
    return point or None


@contextlib.contextmanager
def _values_at(point):
    """Set the variables of ``point`` (``[(var, value)]``) for the duration, then restore them."""
    if not point:
        yield
        return
    saved = [(var, var.value) for var, _ in point]
    try:
        for var, value in point:
            var.set_value(value, skip_validation=True)
        yield
    finally:
        for var, value in saved:
            var.set_value(value, skip_validation=True)


def largest_residuals(model: Any, k: int = 5, point: Sequence[tuple[Any, float]] | None = None) -> list[Residual]:
    """The ``k`` active constraints of ``model`` violated most, as :class:`Residual`, largest first.

    Evaluated in Pyomo at the variables' current values, or at ``point``
    (``[(var, value)]``, e.g. :func:`solver_point`; the model's values are
    restored).  Every shared subexpression is evaluated once, so this is cheap
    even for the DMOCC charts (no Jacobian, no CasADi).  A row that cannot be
    evaluated (a missing value, log of a negative) counts as violated by ``inf``.

    Examples
    --------
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.diagnosis import diagnose, largest_residuals
    >>> m = pyo.ConcreteModel("twice")        # one condition stated twice
    >>> m.x = pyo.Var(initialize=0.0)
    >>> m.y = pyo.Var(initialize=0.0)
    >>> m.once = pyo.Constraint(expr=m.x + m.y == 1)
    >>> m.again = pyo.Constraint(expr=2 * m.x + 2 * m.y == 2)
    >>> m.cost = pyo.Objective(expr=m.x ** 2 + m.y ** 2)
    >>> [(r.name, r.violation) for r in largest_residuals(m)]
    [('again', 2.0), ('once', 1.0)]
    >>> m.x.value = 1.0
    >>> [(r.name, r.violation) for r in largest_residuals(m)]
    [('once', 0.0), ('again', 0.0)]
    """
    import pyomo.environ as pyo

    rows = []
    with _values_at(point):
        memo: dict[int, tuple[Any, float]] = {}
        for con in model.component_data_objects(pyo.Constraint, active=True, descend_into=True):
            lower, upper = _float(con.lb), _float(con.ub)
            body = float(_evaluate(con.body, memo))
            rows.append(Residual(con.name, body, lower, upper, float(_violation(body, lower, upper))))
    rows.sort(key=lambda r: -r.violation)
    return rows[:k]


def residual_summary(model: Any, results: Any = None, k: int = 5) -> str:
    """One sentence naming the ``k`` largest residuals, for a failed solve's message:
    at the point ``results`` carries (:func:`solver_point`) when there is one, else at
    the model's current values.  Returns '' when nothing is violated.

    Examples
    --------
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.diagnosis import diagnose, largest_residuals
    >>> m = pyo.ConcreteModel("twice")        # one condition stated twice
    >>> m.x = pyo.Var(initialize=0.0)
    >>> m.y = pyo.Var(initialize=0.0)
    >>> m.once = pyo.Constraint(expr=m.x + m.y == 1)
    >>> m.again = pyo.Constraint(expr=2 * m.x + 2 * m.y == 2)
    >>> m.cost = pyo.Objective(expr=m.x ** 2 + m.y ** 2)
    >>> residual_summary(m, k=2)
    "Largest residuals at the model's current values (the solver returned no point): again (2); once (1)."
    """
    point = solver_point(results) if results is not None else None
    rows = [r for r in largest_residuals(model, k, point) if r.violation > 0]
    if not rows:
        return ""
    status = str(getattr(getattr(results, "solver", None), "termination_condition", ""))
    if point is not None:
        where = "at the solver's final point"
    elif status in ("maxIterations", "maxTimeLimit"):  # Pyomo loads the last iterate at a limit
        where = "at the solver's last iterate"
    else:
        where = "at the model's current values (the solver returned no point)"
    listed = "; ".join(f"{r.name} ({_num(r.violation)})" for r in rows)
    return f"Largest residuals {where}: {listed}."


def _float(value):
    return None if value is None else float(value)
