"""A fix for Pyomo's .nl writer, applied on ``import pyomo_mbdyn``.

Pyomo 6.10's AMPL writer (``pyomo.repn.ampl``) substitutes a named
``Expression`` that reduces to a single variable directly into the
expressions that use it.  It decides this *before* applying the expression's
pending multiplier, so ``Expression(expr=(x_fixed + y) * 0.5)`` (with
``x_fixed`` fixed) qualifies; the first use is written as ``0.5*y`` but every
later use, through ``AMPLBeforeChildDispatcher._before_named_expression``, as
``y``: the coefficient is dropped (reproduced in
``tests/solvers/test_pyomo_fixes.py``).  The scheme blocks share
subexpressions as named Expressions, so a time step next to a fixed initial
state hits exactly this case.

The fix returns the stored coefficient instead of 1.  It changes nothing for
expressions the writer already handles correctly.

A minimal reproducer (without the fix, ``x1`` solves to √(1/6) instead of √(2/3))::

    m = pyo.ConcreteModel()
    m.x0 = pyo.Var(initialize=0.0); m.x0.fix()
    m.y0 = pyo.Var(initialize=0.0); m.y0.fix()
    m.x1 = pyo.Var(initialize=1.0, bounds=(0.1, 5)); m.y1 = pyo.Var(initialize=1.0)
    m.e1 = pyo.Expression(expr=(m.x0 + m.x1) * 0.5)
    m.e2 = pyo.Expression(expr=(m.y0 + m.y1) * 0.5)
    m.twice = pyo.Constraint(expr=(m.e1 * m.e2 - 2 * m.e2 * m.e1) * m.x1 == -0.1)
    m.fix_y = pyo.Constraint(expr=m.y1 == 0.6)
    SolverFactory("casadi_ipopt_nl").solve(m)     # any AMPL-protocol solver

**Gated on the Pyomo versions it was checked against** (:data:`CHECKED`): the
writer's internals it replaces are private.  On another Pyomo the fix is not
installed and a warning says so; ``tests/solvers/test_pyomo_fixes.py`` then
shows whether that Pyomo still needs it.
"""

from __future__ import annotations

import logging

logger = logging.getLogger("pyomo_mbdyn.solvers")

__all__ = ["apply", "CHECKED"]

#: (major, minor) versions of Pyomo whose AMPL writer was read and found to drop the
#: coefficient (the reproducer above fails without the fix, passes with it)
CHECKED = ((6, 10),)

_applied = False


def _before_named_expression(visitor, child):
    from pyomo.repn.ampl import _CONSTANT, _GENERAL, _MONOMIAL

    _id = id(child)
    if _id in visitor.subexpression_cache:
        obj, repn, info = visitor.subexpression_cache[_id]
        if info[2]:
            if repn.linear:
                # the stored coefficient, not 1 (the multiplier was applied)
                return False, (_MONOMIAL,) + next(iter(repn.linear.items()))
            return False, (_CONSTANT, repn.const)
        return False, (_GENERAL, repn.duplicate())
    return True, None


def apply() -> None:
    """Install the fix (idempotent)."""
    global _applied
    if _applied:
        return
    from pyomo.version import version_info

    if tuple(version_info[:2]) not in CHECKED:
        logger.warning("pyomo_mbdyn: Pyomo %s is not one of the versions whose .nl writer fix was checked "
                       "(%s); the fix is not installed — run tests/solvers/test_pyomo_fixes.py to see whether "
                       "this Pyomo still drops named-expression coefficients",
                       ".".join(map(str, version_info[:3])), ", ".join(f"{a}.{b}" for a, b in CHECKED))
        return
    try:
        from pyomo.repn import ampl
    except ImportError:  # pragma: no cover - a Pyomo without the v2 writer
        return
    dispatcher_class = getattr(ampl, "AMPLBeforeChildDispatcher", None)
    if dispatcher_class is None or not hasattr(dispatcher_class, "_before_named_expression"):
        return
    original = dispatcher_class.__dict__["_before_named_expression"]
    original = getattr(original, "__func__", original)
    dispatcher_class._before_named_expression = staticmethod(_before_named_expression)
    handlers = getattr(ampl, "_before_child_handlers", None)
    if handlers is not None:
        for key, value in list(handlers.items()):
            if getattr(value, "__func__", value) is original:
                handlers[key] = _before_named_expression
    _applied = True
