"""The model's values checked where a solver would stumble on them, named.

* :func:`check_finite_start`: a NaN or infinite starting value (a free or fixed
  variable) is refused before anything is written or translated — CasADi's .nl
  importer fails on it with "Unknown .nl segment" and IPOPT with "Invalid number",
  neither naming the variable;
* :func:`invalid_rows`: after IPOPT's "Invalid number in NLP function or
  derivative detected", the objective and constraints whose value at the
  starting point is not finite or cannot be evaluated (the log of a negative,
  a division by zero), by their Pyomo names, for the solver's message.
"""

import io
import math

import pyomo.environ as pyo
from pyomo.common.log import LoggingIntercept

from ..errors import ConfigurationError

__all__ = ["check_finite_start", "invalid_rows", "INVALID_NUMBER"]

#: the words of IPOPT's message on a non-finite function or derivative value
INVALID_NUMBER = "Invalid number"


def _blocks(model):
    return model.component_data_objects(pyo.Var, active=True, descend_into=True)


def check_finite_start(model, solver_name, limit=5):
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


def invalid_rows(model, limit=5):
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
