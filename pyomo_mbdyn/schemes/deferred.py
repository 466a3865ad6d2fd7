"""Rows ``r(k) = 0`` and node Expressions whose Pyomo expressions are built when a
consumer first reads them.

A scheme block states the same residual ``r = F(z_k)`` at every interval.  The
structured in-process path evaluates ``F`` as one compiled CasADi Function
mapped over the intervals (:mod:`pyomo_mbdyn.solvers.mapped`) and never reads
the rows' expression trees; building them anyway was most of the time of
building a model on a spatial arm (the Panda's GC at N = 50: 4 of 5 s,
550 000 Pyomo nodes).  :class:`ResidualRows` is a Constraint whose rows exist
(active, indexed, with their duals, bounds ``0 = r``) from the start but whose
expressions are made by the rule on first access of the expression itself
(``expr``, ``body``, ``to_bounded_expression()``, a writer, a walker, the
user's ``pyo.value``).  The Pyomo model stays the single source of truth: a
row the user deactivated, replaced (``set_value``) or read is seen as such by
every solver path, and ``clone``/``pickle`` build the rows before copying them.

The node values a block states as Expressions of its unknowns (the chart forms'
q_k = F(θ_k), v_k = P̃(θ_k) ṽ_k) are :class:`DeferredExpression` entries in the
same way: the structured path calls the compiled chart instead
(``compiled_node_expressions``), a user's row that names q[k, c] builds node k.

The precedent is Pyomo's own ``TemplateDataMixin``
(:mod:`pyomo.core.base.constraint`), which regenerates a row from its rule on
access of ``expr``.
"""

from __future__ import annotations

from typing import Any, Callable
from weakref import ref

from pyomo.core.base.constraint import ConstraintData, IndexedConstraint
from pyomo.core.base.expression import ExpressionData, IndexedExpression
from pyomo.core.expr.relational_expr import EqualityExpression

__all__ = ["ResidualRows", "DeferredExpression", "is_deferred"]

_SLOT = ConstraintData._expr  # the slot that holds a row's relational expression
_ARGS = ExpressionData._args_  # the slot that holds a named Expression's (expr,)


class _Deferred:
    """Marker stored in the slot of a row whose expression was not built yet."""

    __slots__ = ()

    def __repr__(self):
        return "<deferred row>"

    def __reduce__(self):
        return "DEFERRED"

    def __deepcopy__(self, memo):
        return self


DEFERRED = _Deferred()


class DeferredRowData(ConstraintData):
    """A row ``residual(k) = 0`` of a :class:`ResidualRows` whose expression is built on
    first access; it becomes a plain :class:`~pyomo.core.base.constraint.ConstraintData`
    then.  Bounds and the equality flag are known without building it."""

    __slots__ = ()

    @property
    def _expr(self):
        expr = _SLOT.__get__(self)
        if expr is DEFERRED:
            self._build()
            expr = _SLOT.__get__(self)
        return expr

    @_expr.setter
    def _expr(self, value):
        _SLOT.__set__(self, value)

    def _build(self):
        component = self.parent_component()
        index = self.index()
        args = index if type(index) is tuple else (index,)
        residual = component._residual(component.parent_block(), *args)
        if residual.__class__ in (int, float) or not hasattr(residual, "is_potentially_variable"):
            raise ValueError(
                f"Constraint '{self.name}': its residual is the constant {residual!r}; "
                "a row that states nothing cannot be built.")
        _SLOT.__set__(self, EqualityExpression((residual, 0)))
        self.__class__ = ConstraintData

    @property
    def lb(self) -> float | None:
        return 0.0 if _SLOT.__get__(self) is DEFERRED else ConstraintData.lb.__get__(self)

    @property
    def ub(self) -> float | None:
        return 0.0 if _SLOT.__get__(self) is DEFERRED else ConstraintData.ub.__get__(self)

    @property
    def equality(self) -> bool:
        return True if _SLOT.__get__(self) is DEFERRED else ConstraintData.equality.__get__(self)

    def has_lb(self) -> bool:
        return True if _SLOT.__get__(self) is DEFERRED else ConstraintData.has_lb(self)

    def has_ub(self) -> bool:
        return True if _SLOT.__get__(self) is DEFERRED else ConstraintData.has_ub(self)


class DeferredExpressionData(ExpressionData):
    """An entry of a :class:`DeferredExpression` whose expression is made by the
    component's source on first access; it becomes a plain ExpressionData then."""

    __slots__ = ()

    @property
    def _args_(self):
        args = _ARGS.__get__(self)
        if args is DEFERRED:
            component = self.parent_component()
            index = self.index()
            value = component._source(component.parent_block(), *(index if type(index) is tuple else (index,)))
            self.__class__ = ExpressionData
            self.set_value(value)
            return _ARGS.__get__(self)
        return args

    @_args_.setter
    def _args_(self, value):
        _ARGS.__set__(self, value)


def is_deferred(data: Any) -> bool:
    """True while ``data`` (a row of :class:`ResidualRows` or an entry of
    :class:`DeferredExpression`) has not been built, read or replaced: it then states
    exactly what its component's rule makes."""
    kind = type(data)
    if kind is DeferredRowData:
        return _SLOT.__get__(data) is DEFERRED
    if kind is DeferredExpressionData:
        return _ARGS.__get__(data) is DEFERRED
    return False


class ResidualRows(IndexedConstraint):
    """``ResidualRows(*index_sets, residual=f)``: the rows ``f(block, *k) = 0`` for every
    index ``k``, with expressions built on first access (see the module docstring).

    ``f`` returns the residual (a Pyomo expression), not a relational expression.
    Every other use is a Constraint's: the ctype is ``Constraint``, rows can be
    deactivated, replaced with ``set_value``, read by the writers and walkers.

    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.schemes.deferred import ResidualRows, is_deferred
    >>> m = pyo.ConcreteModel()
    >>> m.x = pyo.Var([1, 2])
    >>> m.r = ResidualRows([1, 2], residual=lambda b, k: b.x[k] ** 2 - k)
    >>> is_deferred(m.r[2]), m.r[2].ub, m.r[2].equality     # known without building the row
    (True, 0.0, True)
    >>> print(m.r[2].expr)                                  # built now, by the rule
    x[2]**2 - 2  ==  0
    >>> is_deferred(m.r[2]), is_deferred(m.r[1])
    (False, True)
    """

    _ComponentDataClass = ConstraintData

    def __init__(self, *args: Any, residual: Callable[..., Any], **kwargs: Any) -> None:
        if not callable(residual):
            raise TypeError(f"ResidualRows: residual must be callable, got {type(residual).__name__}")
        self._residual = residual
        super().__init__(*args, **kwargs)

    def construct(self, data: Any = None) -> None:
        _construct_deferred(self, DeferredRowData, _SLOT, active=True)


class DeferredExpression(IndexedExpression):
    """``DeferredExpression(*index_sets, source=f)``: named Expressions ``f(block, *k)``
    for every index ``k``, each made on first access (see the module docstring);
    otherwise an indexed ``Expression`` (``set_value`` replaces an entry).

    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.schemes.deferred import DeferredExpression, is_deferred
    >>> m = pyo.ConcreteModel()
    >>> m.x = pyo.Var([1, 2], initialize=3.0)
    >>> m.y = DeferredExpression([1, 2], source=lambda b, k: 2 * b.x[k])
    >>> is_deferred(m.y[1]), pyo.value(m.y[1]), is_deferred(m.y[1]), is_deferred(m.y[2])
    (True, 6.0, False, True)
    """

    def __init__(self, *args: Any, source: Callable[..., Any], **kwargs: Any) -> None:
        if not callable(source):
            raise TypeError(f"DeferredExpression: source must be callable, got {type(source).__name__}")
        self._source = source
        super().__init__(*args, **kwargs)

    def construct(self, data: Any = None) -> None:
        _construct_deferred(self, DeferredExpressionData, _ARGS)


def _construct_deferred(component, data_class, slot, active=False):
    """One entry of ``data_class`` per index of ``component``, its ``slot`` DEFERRED
    (Pyomo's own construction would call the rule at every index)."""
    if component._constructed:
        return
    component._constructed = True
    if component._anonymous_sets is not None:
        for anonymous in component._anonymous_sets:
            anonymous.construct()
    owner = ref(component)
    entries = component._data
    for index in component.index_set():
        entry = data_class.__new__(data_class)
        entry._component = owner
        if active:
            entry._active = True
        entry._index = index
        slot.__set__(entry, DEFERRED)
        entries[index] = entry
