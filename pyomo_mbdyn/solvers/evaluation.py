"""The model's values checked where a solver would stumble on them, named.

* :func:`check_finite_start`: a NaN or infinite starting value (a free or fixed
  variable) is refused before anything is written or translated — CasADi's .nl
  importer fails on it with "Unknown .nl segment" and IPOPT with "Invalid number",
  neither naming the variable;
* :func:`invalid_rows`: after IPOPT's "Invalid number in NLP function or
  derivative detected", the objective and constraints whose value at the
  starting point is not finite or cannot be evaluated (the log of a negative,
  a division by zero), by their Pyomo names, for the solver's message;
* :func:`with_model_defaults`: the solver options a model carries on its blocks
  (``_solver_defaults``, e.g. an ``OptimalControlProblem``'s ``solver_defaults``)
  added to a solve's options where neither the call nor the solver sets them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import io
import math

import pyomo.environ as pyo
from pyomo.common.log import LoggingIntercept

from ..errors import ConfigurationError

__all__ = ["check_finite_start", "invalid_rows", "expression_value", "with_model_defaults", "INVALID_NUMBER"]

#: the words of IPOPT's message on a non-finite function or derivative value
INVALID_NUMBER = "Invalid number"


def _blocks(model):
    return model.component_data_objects(pyo.Var, active=True, descend_into=True)


def with_model_defaults(model: Any, solver_options: Mapping[str, Any], keywords: dict[str, Any]) -> dict[str, Any]:
    """``keywords`` of a Pyomo ``solve`` call with ``options`` completed by the defaults
    that ``model``'s blocks carry in a dict attribute ``_solver_defaults`` (an
    :class:`~pyomo_mbdyn.ocp.OptimalControlProblem` records there what its rows need,
    its ``solver_defaults``), for the names that neither ``keywords["options"]`` nor
    ``solver_options`` (the solver object's own) set.  ``keywords`` is not changed."""
    defaults: dict[str, Any] = {}
    for block in model.component_data_objects(pyo.Block, descend_into=True):
        defaults.update(getattr(block, "_solver_defaults", None) or {})
    given = dict(keywords.get("options") or {})
    added = {k: v for k, v in defaults.items() if k not in given and k not in solver_options}
    if not added:
        return keywords
    return {**keywords, "options": {**added, **given}}


def check_finite_start(model: Any, solver_name: str, limit: int = 5) -> None:
    """Raise :class:`~pyomo_mbdyn.errors.ConfigurationError` naming the variables whose
    value is NaN or ±inf (``None`` is fine: the solver starts those at 0)."""
    bad = []
    for var in _blocks(model):
        value = var.value
        if isinstance(value, float) and not math.isfinite(value):
            bad.append(f"{var.name} = {value}")
    if bad:
        shown = ", ".join(bad[:limit]) + (f" and {len(bad) - limit} more" if len(bad) > limit else "")
        raise ConfigurationError(f"{solver_name}: non-finite starting values: {shown}; give every "
                                 f"variable a finite value (or None) before solving")


def invalid_rows(model: Any, limit: int = 5) -> list[str]:
    """``"name (reason)"`` for the active objective and constraints that cannot be
    evaluated, or evaluate to a non-finite number, at the model's current values."""
    found = []
    components = list(model.component_data_objects(pyo.Objective, active=True, descend_into=True))
    components += list(model.component_data_objects(pyo.Constraint, active=True, descend_into=True))
    for component in components:
        expr = component.expr if component.ctype is pyo.Objective else component.body
        try:
            with LoggingIntercept(io.StringIO(), "pyomo.core"):  # Pyomo logs the failure too
                value = pyo.value(expr)
        except (ValueError, ZeroDivisionError, OverflowError, ArithmeticError) as err:
            found.append(f"{component.name} ({type(err).__name__}: {err})")
        else:
            if value is not None and not math.isfinite(value):
                found.append(f"{component.name} (= {value})")
        if len(found) >= limit:
            break
    return found


def expression_value(expr: Any, memo: dict[int, tuple[Any, float]] | None = None, failures: str = "raise") -> float:
    """The value of a Pyomo expression, each subexpression evaluated once (``memo``,
    shareable across rows: id → (node, value), the node kept so that its id stays valid).

    ``pyo.value`` walks shared named Expressions, and subexpressions reused as the
    same Python object (the replayed charts of absolute configurations), as a
    tree, which is exponential in the nesting depth of the replayed CasADi
    graphs; here every node is evaluated once (a walk of the DAG, without
    recursion).  ``failures="nan"``: a missing value or a failing operation (log
    of a negative, division by zero) gives NaN instead of raising.
    """
    if isinstance(expr, (int, float)):
        return expr
    lenient = failures == "nan"
    memo = {} if memo is None else memo
    stack = [expr]
    while stack:
        e = stack[-1]
        if isinstance(e, (int, float)) or id(e) in memo:
            stack.pop()
            continue
        if e.is_named_expression_type():
            children = [e.expr]
        elif e.is_expression_type():
            children = list(e.args)
        else:
            value = pyo.value(e, exception=not lenient)
            memo[id(e)] = (e, math.nan if value is None and lenient else value)
            stack.pop()
            continue
        pending = [c for c in children if not isinstance(c, (int, float)) and id(c) not in memo]
        if pending:
            stack.extend(pending)
            continue
        values = [c if isinstance(c, (int, float)) else memo[id(c)][1] for c in children]
        if e.is_named_expression_type():
            value = values[0]
        else:
            try:
                value = e._apply_operation(values)
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                if not lenient:
                    raise
                value = math.nan
        memo[id(e)] = (e, value)
        stack.pop()
    return memo[id(expr)][1]
