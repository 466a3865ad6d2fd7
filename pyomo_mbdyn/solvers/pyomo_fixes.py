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
"""

import logging

logger = logging.getLogger("pyomo_mbdyn.solvers")

__all__ = ["apply"]

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


def apply():
    """Install the fix (idempotent)."""
    global _applied
    if _applied:
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
