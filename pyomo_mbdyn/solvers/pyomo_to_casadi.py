"""Translate a Pyomo model into a CasADi NLP, in process.

:func:`translate` walks the active objective and constraints of a Pyomo block
and returns a :class:`CasadiNLP`: SX expressions ``f(x)`` and ``g(x)`` over the
vector ``x`` of the unfixed variables that occur in them, with bounds, initial
values and the discrete flags Bonmin needs.

* Fixed variables, mutable Params and every subexpression without variables
  (Pyomo's ``NPV_*`` nodes) become numeric constants, evaluated when
  :func:`translate` runs; fixing or unfixing a variable in Pyomo is therefore
  seen by the next translation.
* Variables appear in ``x`` in the order in which the walk first meets them
  (objective first, then the constraints in declaration order); variables that
  occur in no active objective or constraint are not part of the NLP and keep
  their values, as with the AMPL writer.
* Every Pyomo expression node, and in particular every named ``Expression``
  (``is_named_expression_type()``), is translated **once**: the walker keeps a
  memo keyed by ``id(node)`` (holding the node, so that the id stays valid) and
  reuses the resulting SX node wherever the Pyomo node is shared.  The walk is
  iterative, so nesting depth is limited by memory only, and its cost is linear
  in the number of distinct Pyomo nodes.
* A maximisation is passed on as the minimisation of ``σ f`` with ``σ = -1``
  (``CasadiNLP.sigma``), exactly as Ipopt's AMPL interface does; the sign
  conventions of the multipliers are applied by the solver plugin
  (:mod:`pyomo_mbdyn.solvers.casadi_direct`).

Constructs CasADi cannot represent (``Expr_if``, external functions, logical
expressions, piecewise components, SOS constraints) raise
:class:`~pyomo_mbdyn.errors.UnsupportedModelError` naming the constraint or
objective (and the named Expression) in which they occur.  So do the nonsmooth
functions ``abs``, ``min``, ``max``, ``ceil`` and ``floor``: IPOPT and Bonmin's
NLP solves assume twice continuously differentiable functions, and a kink at the
optimum stalls them (``abs(x - 1)`` in an objective ends at the iteration
limit); the error says how to reformulate (:data:`NONSMOOTH_ADVICE`).  The AMPL
path refuses the same (:mod:`pyomo_mbdyn.solvers.nl_file`).
"""

from __future__ import annotations

from typing import Any

from dataclasses import dataclass, field
import math

import casadi as ca
import numpy as np

from ..errors import UnsupportedModelError

__all__ = ["CasadiNLP", "ExpressionTranslator", "translate"]


class _Unsupported(Exception):
    """Raised inside the walk; turned into UnsupportedModelError by the caller."""

    def __init__(self, construct, named=None):
        super().__init__(construct)
        self.construct = construct
        self.named = named


# --------------------------------------------------------------------- operators
# CasADi's overloaded Python operators cost ~12 µs per call (SWIG overload
# resolution); SX.binary/SX.unary with SX arguments cost ~1.5 µs.  Values in
# the walk are Python floats (constants, evaluated as Pyomo would) or SX.
_binary = ca.SX.binary
_unary_op = ca.SX.unary
_ADD, _SUB, _MUL, _DIV, _POW = ca.OP_ADD, ca.OP_SUB, ca.OP_MUL, ca.OP_DIV, ca.OP_POW
_LOG10 = 1.0 / math.log(10.0)
_constants: dict[float, ca.SX] = {}


def _sx(v):
    """An SX constant for a float (cached), or ``v`` itself."""
    if type(v) is float:
        c = _constants.get(v)
        if c is None:
            if len(_constants) > 100000:
                _constants.clear()
            c = _constants[v] = ca.SX(v)
        return c
    return v


def _sum(node, vals):
    const = 0.0
    out = None
    for v in vals:
        if type(v) is float:
            const += v
        elif out is None:
            out = v
        else:
            out = _binary(_ADD, out, v)
    if out is None:
        return const
    return _binary(_ADD, out, _sx(const)) if const != 0.0 else out


def _product(node, vals):
    a, b = vals
    if type(a) is float and type(b) is float:
        return a * b
    return _binary(_MUL, _sx(a), _sx(b))


def _division(node, vals):
    a, b = vals
    if type(a) is float and type(b) is float:
        return a / b
    return _binary(_DIV, _sx(a), _sx(b))


def _power(node, vals):
    a, b = vals
    if type(a) is float and type(b) is float:
        return float(a**b)
    # a constant exponent gives CasADi's constpow/sq/sqrt forms, as a**b does
    return _binary(_POW, _sx(a), _sx(b))


def _negation(node, vals):
    v = vals[0]
    return -v if type(v) is float else _unary_op(ca.OP_NEG, v)


_UNARY = {
    "log": ca.OP_LOG,
    "sin": ca.OP_SIN,
    "cos": ca.OP_COS,
    "tan": ca.OP_TAN,
    "sinh": ca.OP_SINH,
    "cosh": ca.OP_COSH,
    "tanh": ca.OP_TANH,
    "asin": ca.OP_ASIN,
    "acos": ca.OP_ACOS,
    "atan": ca.OP_ATAN,
    "asinh": ca.OP_ASINH,
    "acosh": ca.OP_ACOSH,
    "atanh": ca.OP_ATANH,
    "exp": ca.OP_EXP,
    "sqrt": ca.OP_SQRT,
    "log10": None,  # log(x) / log(10), as casadi.log10
}

#: how to state a nonsmooth function smoothly, for the error that refuses it
NONSMOOTH_ADVICE = ("nonsmooth: IPOPT needs twice-differentiable functions; reformulate it, e.g. |x| as "
                    "sqrt(x**2 + eps**2) or as x = xp - xn with xp, xn >= 0 and |x| = xp + xn, max(a, b) "
                    "as t >= a, t >= b with t minimised")

#: nonsmooth unary functions, refused by name
_NONSMOOTH = ("abs", "ceil", "floor")


def _unary(node, vals):
    name = node.getname()
    if name in _NONSMOOTH:
        raise _Unsupported(f"{name}() ({NONSMOOTH_ADVICE})")
    if name not in _UNARY:
        raise _Unsupported(f"the function {name}()")
    v = vals[0]
    if type(v) is float:
        return float(node._apply_operation([v]))  # evaluated as Pyomo does
    if name == "log10":
        return _binary(_MUL, _sx(_LOG10), _unary_op(ca.OP_LOG, v))
    return _unary_op(_UNARY[name], v)


def _fold(op):
    def combine(node, vals):
        if all(type(v) is float for v in vals):
            return float(node._apply_operation(vals))
        out = _sx(vals[0])
        for v in vals[1:]:
            out = _binary(op, out, _sx(v))
        return out

    return combine


def _handlers():
    from pyomo.core import expr as E

    table = {
        E.SumExpression: _sum,
        E.LinearExpression: _sum,
        E.ProductExpression: _product,  # also MonomialTermExpression
        E.DivisionExpression: _division,
        E.PowExpression: _power,
        E.NegationExpression: _negation,
        E.UnaryFunctionExpression: _unary,  # also AbsExpression ('abs')
    }
    unsupported = {
        E.MaxExpression: f"max() ({NONSMOOTH_ADVICE})",
        E.MinExpression: f"min() ({NONSMOOTH_ADVICE})",
        E.Expr_ifExpression: "if-then-else (Pyomo Expr_if)",
        E.ExternalFunctionExpression: "external function",
        E.RelationalExpression: "relational expression",
        E.BooleanExpression: "logical expression",
    }
    try:  # pyomo.contrib.piecewise (Pyomo >= 6.7)
        from pyomo.contrib.piecewise import PiecewiseLinearExpression

        unsupported[PiecewiseLinearExpression] = "piecewise-linear expression"
    except ImportError:  # pragma: no cover
        pass
    return table, unsupported


class ExpressionTranslator:
    """Pyomo expressions → CasADi SX, with shared nodes translated once.

    One translator holds the variable map and the memo for a whole model, so a
    named Expression used by many constraints becomes one SX node.  Attributes
    after use: ``variables`` (the unfixed Pyomo variables met, in order),
    ``symbols`` (their SX symbols), ``visits`` (the number of Pyomo expression
    nodes translated, a measure of the walk's work: each distinct node counts
    once however often it is shared).
    """

    def __init__(self) -> None:
        from pyomo.common.numeric_types import native_numeric_types

        self._native = native_numeric_types
        self._handlers, self._unsupported = _handlers()
        self._dispatch: dict[type, Any] = {}
        self._memo: dict[int, tuple[Any, Any]] = {}  # id(node) -> (node, value): the node keeps the id valid
        self._var_index: dict[int, int] = {}  # id(var) -> position in self.variables
        self.variables: list[Any] = []
        self.symbols: list[ca.SX] = []
        self.visits = 0

    # -- leaves -------------------------------------------------------------
    def _leaf(self, node):
        """The value of a non-expression node: a float or an SX symbol."""
        if node.is_variable_type():
            if node.fixed:
                value = node.value
                if value is None:
                    raise ValueError(
                        f"variable '{node.name}' is fixed but has no value; give it one "
                        "or unfix it"
                    )
                return float(value)
            i = self._var_index.get(id(node))
            if i is None:
                i = len(self.variables)
                self._var_index[id(node)] = i
                self.variables.append(node)
                self.symbols.append(ca.SX.sym(f"x{i}"))
            return self.symbols[i]
        # Params, NumericConstant, ...
        return float(node.value if hasattr(node, "value") else node)

    def _handler(self, cls):
        handler = self._dispatch.get(cls)
        if handler is None:
            for base in cls.__mro__:
                if base in self._unsupported:
                    construct = self._unsupported[base]

                    def handler(node, vals, _c=construct):
                        raise _Unsupported(_c)

                    handler.refuses = True
                    break
                if base in self._handlers:
                    handler = self._handlers[base]
                    break
            else:

                def handler(node, vals, _c=cls.__name__):
                    raise _Unsupported(f"the expression type {_c}")

                handler.refuses = True

            self._dispatch[cls] = handler
        return handler

    # -- the walk -------------------------------------------------------------
    def translate(self, expr: Any) -> ca.SX | float:
        """Return the SX expression (or float) of the Pyomo expression ``expr``.

        Raises ``_Unsupported`` (internal) for constructs CasADi cannot take;
        :func:`translate` turns it into ``UnsupportedModelError``.
        """
        done = self._first(expr)
        if done is not None:
            return done[0]
        memo = self._memo
        native = self._native
        # frames: [node, args, next index, child values, combine]
        stack = []
        try:
            stack.append(self._frame(expr))
            while stack:
                frame = stack[-1]
                args = frame[1]
                i = frame[2]
                if i < len(args):
                    frame[2] = i + 1
                    child = args[i]
                    if type(child) in native:
                        frame[3].append(float(child))
                        continue
                    hit = memo.get(id(child))
                    if hit is not None:
                        frame[3].append(hit[1])
                        continue
                    if not child.is_expression_type():
                        frame[3].append(self._leaf(child))
                        continue
                    if not child.is_potentially_variable():
                        value = float(child())
                        memo[id(child)] = (child, value)
                        frame[3].append(value)
                        continue
                    stack.append(self._frame(child))
                    continue
                node, _, _, vals, handler = stack.pop()
                self.visits += 1
                value = vals[0] if handler is None else handler(node, vals)
                memo[id(node)] = (node, value)
                if stack:
                    stack[-1][3].append(value)
                else:
                    return value
        except _Unsupported as err:
            # name the innermost named Expression on the path, if any
            for frame in reversed(stack):
                if frame[0].is_named_expression_type() and hasattr(frame[0], "name"):
                    err.named = frame[0].name
                    break
            raise
        raise AssertionError("unreachable: the walk returns when its stack empties")  # for the type checker

    def _first(self, expr):
        """(value,) when ``expr`` needs no walk, else None."""
        if type(expr) in self._native:
            return (float(expr),)
        hit = self._memo.get(id(expr))
        if hit is not None:
            return (hit[1],)
        if not expr.is_expression_type():
            return (self._leaf(expr),)
        if not expr.is_potentially_variable():
            return (float(expr()),)
        return None

    def _frame(self, node):
        """A new stack frame; refuses unsupported nodes before visiting their arguments."""
        if node.is_named_expression_type():
            return [node, (node.expr,), 0, [], None]
        handler = self._dispatch.get(type(node)) or self._handler(type(node))
        if getattr(handler, "refuses", False):
            handler(node, ())
        return [node, node.args, 0, [], handler]


@dataclass
class CasadiNLP:
    """``min σ f(x)  s.t.  lbg ≤ g(x) ≤ ubg,  lbx ≤ x ≤ ubx`` with Pyomo's components.

    ``variables[i]`` is the Pyomo variable of ``x[i]``, ``constraints[j]`` the
    Pyomo constraint of ``g[j]``; ``f`` is already multiplied by ``sigma``
    (+1 minimise, -1 maximise).  ``discrete[i]`` marks integer/binary variables.
    ``visits`` counts the Pyomo expression nodes translated.
    """

    x: object
    f: object
    g: object
    lbx: np.ndarray
    ubx: np.ndarray
    lbg: np.ndarray
    ubg: np.ndarray
    x0: np.ndarray
    discrete: list
    variables: list
    constraints: list
    objective: object = None
    sigma: float = 1.0
    visits: int = 0
    extras: dict = field(default_factory=dict)

    @property
    def n_var(self) -> int:
        return len(self.variables)

    @property
    def n_con(self) -> int:
        return len(self.constraints)


_UNSUPPORTED_COMPONENTS = ("SOSConstraint", "LogicalConstraint", "Disjunct", "Disjunction")


def _check_components(block):
    """Refuse active components that have no place in an NLP."""
    from pyomo.core.base.block import Block

    names = set(_UNSUPPORTED_COMPONENTS)
    for b in block.block_data_objects(active=True, descend_into=True):
        for comp in b.component_objects(descend_into=False, active=True):
            ctype = comp.ctype
            if ctype is Block:
                continue
            if getattr(ctype, "__name__", "") in names:
                raise UnsupportedModelError(
                    f"{ctype.__name__} '{comp.name}' cannot be passed to CasADi: "
                    "reformulate it with (smooth) constraints or transform it first "
                    "(e.g. TransformationFactory('gdp.bigm') for disjunctions)."
                )


def _uniform_groups(block):
    """The :class:`~pyomo_mbdyn.schemes.residuals.UniformResiduals` offered by the active
    blocks under ``block`` (any block with a ``uniform_residuals()`` method), each
    reduced to the keys whose rows are all active and unchanged."""
    groups, claimed = [], set()
    for b in block.block_data_objects(active=True, descend_into=True):
        offer = getattr(type(b), "uniform_residuals", None)
        if offer is None:
            continue
        for group in offer(b):
            keep = []
            for i, rows in enumerate(group.rows):
                if all(c.active and id(c) not in claimed for c in rows) and group.unchanged(i):
                    keep.append(i)
                    claimed.update(id(c) for c in rows)
            if len(keep) > 1:
                groups.append((group, keep))
            else:
                for i in keep:
                    claimed.difference_update(id(c) for c in group.rows[i])
    return groups, claimed


def translate(block: Any, solver_name: str = "casadi", skip_trivial_constraints: bool = False, structured: bool = True,
              compiled: str = "never", stage_wise: bool = False) -> CasadiNLP:
    """Translate the active objective and constraints of ``block`` to a :class:`CasadiNLP`.

    Parameters
    ----------
    block : a constructed Pyomo model or block
    solver_name : str
        Used in error messages.
    skip_trivial_constraints : bool
        Leave out constraints whose body has no unfixed variable (after
        checking that they hold to 1e-8, like Pyomo's writers); by default they
        are kept as constant rows, as the AMPL writer does.
    structured : bool
        Evaluate the equations that scheme blocks state at every interval as
        one CasADi Function mapped over the intervals (see
        :meth:`~pyomo_mbdyn.schemes.residuals.IntervalResiduals.uniform_residuals`);
        the NLP is then a CasADi MX graph.  With False every constraint is
        walked into one flat SX graph.  Both give the same NLP.
    compiled : str
        With ``structured``: ``"auto"``, ``"always"`` or ``"never"``, whether the
        mapped step Functions are evaluated as native code
        (:mod:`pyomo_mbdyn.solvers.compiled`); the same NLP either way.
    stage_wise : bool
        Order unknowns and rows stage by stage, lifted where the steps are implicit
        (:mod:`pyomo_mbdyn.solvers.stages`): ``x``, ``g`` and their bounds are then
        the lifted NLP's (copies and gap rows included), ``variables`` and
        ``constraints`` the model's, and ``extras["stages"]`` the
        :class:`~pyomo_mbdyn.solvers.stages.StageLayout` that maps between them.
        A model that does not fit raises ``ConfigurationError``.  With
        ``structured`` the lifted NLP is the mapped MX graph without its derivative
        Functions (``extras`` has no ``"functions"``: CasADi's fatrop interface
        accepts none, and CasADi differentiates the graph itself); without, one SX
        graph.

    Raises
    ------
    UnsupportedModelError
        For an expression CasADi cannot represent (naming the component), more
        than one active objective, or SOS/logical/disjunctive components.
    ValueError
        For a fixed variable without a value.
    """
    from pyomo.common.gc_manager import PauseGC

    with PauseGC():  # as Pyomo's writers: no cyclic GC passes over the growing graph
        return _translate(block, solver_name, skip_trivial_constraints, structured, compiled, stage_wise)


def _translate(block, solver_name, skip_trivial_constraints, structured=True, compiled="never", stage_wise=False):
    from pyomo.common.errors import InfeasibleConstraintException
    from pyomo.core.base.constraint import Constraint
    from pyomo.core.base.objective import Objective, maximize

    _check_components(block)
    tr = ExpressionTranslator()
    if structured:
        _seed_compiled_nodes(block, tr)

    def walk(expr, component, kind):
        try:
            return tr.translate(expr)
        except _Unsupported as err:
            where = f"{kind} '{component.name}'"
            if err.named and err.named != component.name:
                where = f"Expression '{err.named}' (used by {where})"
            raise UnsupportedModelError(
                f"{solver_name}: {err.construct} in {where} cannot be passed to CasADi. "
                "Reformulate it smoothly (e.g. replace Expr_if by a smooth approximation)."
            ) from None

    objectives = list(block.component_data_objects(Objective, active=True, descend_into=True))
    if len(objectives) > 1:
        raise UnsupportedModelError(
            f"{solver_name}: the model has {len(objectives)} active objectives "
            f"({', '.join(o.name for o in objectives[:3])}); deactivate all but one."
        )
    sigma = 1.0
    objective = None
    f = 0.0
    if objectives:
        objective = objectives[0]
        sigma = -1.0 if objective.sense == maximize else 1.0
        f = walk(objective.expr, objective, "objective")
        f = -f if sigma < 0 else f

    uniform, claimed = _uniform_groups(block) if structured else ([], set())
    constraints, g, lbg, ubg = [], [], [], []
    for con in block.component_data_objects(Constraint, active=True, descend_into=True):
        if id(con) in claimed:
            continue
        lb, body, ub = con.to_bounded_expression(True)
        if lb is None and ub is None:
            continue
        value = walk(body, con, "constraint")
        if type(value) is float and skip_trivial_constraints:
            if (lb is not None and lb - value > 1e-8) or (ub is not None and value - ub > 1e-8):
                raise InfeasibleConstraintException(
                    f"model contains a trivially infeasible constraint '{con.name}' "
                    f"(fixed body value {value} outside bounds [{lb}, {ub}])."
                )
            continue
        constraints.append(con)
        g.append(value)
        lbg.append(-math.inf if lb is None else float(lb))
        ubg.append(math.inf if ub is None else float(ub))

    # the inputs of the mapped rows, walked like any expression (fixed variables are
    # constants); keys whose inputs are one function of fewer variables (q_k = chart(θ_k))
    # are passed composed with it (solvers.mapped.composed_groups)
    from .mapped import composed_groups

    keyed = []
    for group, keep in uniform:
        inputs = []
        for i in keep:
            z = [walk(entry, group.rows[i][0], "constraint") for entry in group.inputs[i]]
            inputs.append(ca.vertcat(*[ca.SX(v) if type(v) is float else v for v in z]))
        keyed.append(inputs)
    lifted = None
    n_walked = len(g)
    if stage_wise:  # solvers.stages: the next node's shared unknowns copied into the interval's stage
        lifted = _Lifted(block, solver_name, tr, f, g, constraints, keyed)
        g = g + lifted.gap_rows
        lbg += [0.0] * len(lifted.gap_rows)
        ubg += [0.0] * len(lifted.gap_rows)
        keyed = lifted.keyed
    mapped, mapped_inputs, mapped_rows, composed = [], [], 0, []
    for gi, ((group, keep), inputs) in enumerate(zip(uniform, keyed)):
        for function, keys, z in composed_groups(group.function, inputs):
            for k in keys:
                for con in group.rows[keep[k]]:
                    lb, ub = con.lb, con.ub  # a row not built yet is not built for this
                    constraints.append(con)
                    lbg.append(-math.inf if lb is None else float(lb))
                    ubg.append(math.inf if ub is None else float(ub))
                    if lifted is not None:
                        lifted.row_stage.append(lifted.key_stage[gi][k])
            mapped.append((function, len(keys)))
            if function is not group.function:
                composed.append((function.name(), len(keys)))
            mapped_inputs.append(ca.vertcat(*z))
            mapped_rows += len(keys) * function.size1_out(0)

    variables = tr.variables
    n = len(variables)
    lbx = np.full(n, -math.inf)
    ubx = np.full(n, math.inf)
    x0 = np.zeros(n)
    discrete = [False] * n
    for i, v in enumerate(variables):
        lo, hi = v.bounds
        if lo is not None:
            lbx[i] = lo
        if hi is not None:
            ubx[i] = hi
        if v.value is not None:
            x0[i] = v.value
        if v.is_integer() or v.is_binary():
            discrete[i] = True
    x = ca.vertcat(*tr.symbols) if n else ca.SX(0, 1)
    g_sx = ca.vertcat(*[ca.SX(v) if type(v) is float else v for v in g]) if g else ca.SX(0, 1)
    f_sx = ca.SX(f) if type(f) is float else f
    extras = {}
    if lifted is not None:  # columns and rows in stage order
        x, lbx, ubx, x0, discrete, order = lifted.order(n_walked, len(constraints), lbx, ubx, x0, discrete)
        lbg, ubg = [lbg[r] for r in order], [ubg[r] for r in order]
        extras["stages"] = lifted.layout
    if uniform:
        from .mapped import mapped_nlp

        x, f_sx, g_sx, extras["functions"], native = mapped_nlp(x, f_sx, g_sx, mapped, mapped_inputs, compiled)
        if lifted is not None:  # the derivative Functions are of the rows unordered: CasADi's AD instead
            del extras["functions"]
        extras["native"] = (native, len(mapped))  # groups whose derivatives are compiled, of all
        extras["mapped"] = [(group.function.name(), len(keep)) for group, keep in uniform]
        extras["composed"] = composed  # the groups passed as F∘G (q_k = chart(θ_k))
        extras["mapped_rows"] = mapped_rows  # the last rows of the NLP
    if lifted is not None:
        g_sx = g_sx[order]
    return CasadiNLP(
        x=x,
        f=f_sx,
        g=g_sx,
        lbx=lbx,
        ubx=ubx,
        lbg=np.array(lbg, dtype=float),
        ubg=np.array(ubg, dtype=float),
        x0=x0,
        discrete=discrete,
        variables=variables,
        constraints=constraints,
        objective=objective,
        sigma=sigma,
        visits=tr.visits,
        extras=extras,
    )


def _seed_compiled_nodes(block, tr):
    """Node Expressions that a block states as a compiled function of its variables
    (``compiled_node_expressions()``: the absolute forms' q_k = F(θ_k)) enter the
    translator's memo as that function called on the variables' symbols — CasADi builds
    the same graph in C++ instead of the translator walking each node's Pyomo tree
    (the Panda's REM at N = 100: 35 000 walks, 1.4 s), or building it: the Expressions
    are made on first read (:mod:`pyomo_mbdyn.schemes.deferred`).  The block leaves out
    a node whose Expressions were changed; the walk translates it."""
    for b in block.block_data_objects(active=True, descend_into=True):
        offer = getattr(type(b), "compiled_node_expressions", None)
        hint = offer(b) if offer is not None else None
        if not hint:
            continue
        function, nodes = hint
        memo = tr._memo
        for variables, entries in nodes:
            args = [tr._leaf(v) for v in variables]
            values = function(ca.vertcat(*[ca.SX(a) if type(a) is float else a for a in args]))
            for i, data in enumerate(entries):
                value = values[i]
                memo[id(data)] = (data, float(value) if value.is_constant() else value)


class _Lifted:
    """The stage-wise lifting of one translation (:mod:`pyomo_mbdyn.solvers.stages`):
    plans the stages from the rows' unknowns, makes the copies, substitutes them into
    the rows of the stage before their home and states the gap rows; then orders the
    columns and rows (:meth:`order`)."""

    def __init__(self, block, solver_name, tr, f, walked, constraints, keyed):
        from .stages import StagePlan, grid_positions

        symbols = tr.symbols
        positions, steps = grid_positions(block, tr.variables, solver_name)
        X = ca.vertcat(*symbols) if symbols else ca.SX(0, 1)
        groups, labels = [], []
        if walked:
            rows = ca.vertcat(*[ca.SX(v) if type(v) is float else v for v in walked])
            sp = ca.jacobian_sparsity(rows, X)
            cols = _row_columns(sp)
            for r, con in enumerate(constraints[:len(walked)]):
                groups.append(cols[r])
                labels.append(f"the constraint {con.name}")
        key_groups = []
        for inputs in keyed:  # one group per key: all rows of a mapped step at one interval
            first = len(groups)
            cols = _row_columns(ca.jacobian_sparsity(ca.vertcat(*inputs), X)) if inputs else []
            offset = 0
            for z in inputs:
                groups.append(sorted({c for r in range(offset, offset + z.numel()) for c in cols[r]}))
                labels.append("the rows of a mapped step")
                offset += z.numel()
            key_groups.append(range(first, len(groups)))
        pairs = _objective_pairs(f, X)
        plan = StagePlan(positions, groups, pairs, steps, labels, [v.name for v in tr.variables], solver_name)
        self.plan = plan
        self.copies = {i: ca.SX.sym(f"copy{i}") for i in sorted(plan.copy_stage)}
        by_stage: dict[int, tuple[list, list]] = {}
        for i, s in plan.copy_stage.items():
            old, new = by_stage.setdefault(s, ([], []))
            old.append(symbols[i])
            new.append(self.copies[i])

        def substituted(expr, stage):
            if stage not in by_stage or type(expr) is float:
                return expr
            old, new = by_stage[stage]
            return ca.substitute(expr, ca.vertcat(*old), ca.vertcat(*new))

        n_walked = len(walked)
        self.row_stage = list(plan.group_stage[:n_walked])
        stages_walked: dict[int, list[int]] = {}
        for r, s in enumerate(self.row_stage):
            stages_walked.setdefault(s, []).append(r)
        for s, rs in stages_walked.items():
            if s not in by_stage:
                continue
            exprs = [walked[r] for r in rs if type(walked[r]) is not float]
            done = ca.vertsplit(substituted(ca.vertcat(*exprs), s)) if exprs else []
            it = iter(done)
            for r in rs:
                if type(walked[r]) is not float:
                    walked[r] = next(it)
        self.keyed = [[substituted(z, plan.group_stage[g]) for z, g in zip(inputs, gs)]
                      for inputs, gs in zip(keyed, key_groups)]
        self.key_stage = [[plan.group_stage[g] for g in gs] for gs in key_groups]
        # the gap rows x_{k+1} − z_k (+1 on the state: fatrop requires the identity)
        self.gap_unknowns = sorted(plan.copy_stage)
        self.gap_rows = [symbols[i] - self.copies[i] for i in self.gap_unknowns]
        self.row_stage += [plan.copy_stage[i] for i in self.gap_unknowns]
        self.symbols = symbols
        self.layout = None

    def order(self, n_walked, n_con, lbx, ubx, x0, discrete):
        """The lifted columns ``(x, lbx, ubx, x0, discrete)`` in stage order and the built
        rows' order (built: walked rows, gap rows, mapped rows)."""
        from .stages import stage_order

        n_gap = len(self.gap_rows)
        gap_of = [None] * n_walked + list(self.gap_unknowns) + [None] * (n_con - n_walked)
        original = list(range(n_walked)) + [r + n_gap for r in range(n_walked, n_con)]
        columns, order, layout = stage_order(self.plan, self.row_stage, gap_of, original)
        self.layout = layout
        x = ca.vertcat(*[self.copies[i] if copy else self.symbols[i] for i, copy in columns]) if columns \
            else ca.SX(0, 1)
        home = [not copy for _, copy in columns]
        idx = [i for i, _ in columns]
        return (x, np.where(home, lbx[idx], -math.inf), np.where(home, ubx[idx], math.inf), x0[idx],
                [discrete[i] for i in idx], order)


def _row_columns(sp):
    """The columns of each row of a sparsity pattern."""
    out = [[] for _ in range(sp.size1())]
    rows, cols = sp.get_triplet()
    for r, c in zip(rows, cols):
        out[r].append(c)
    return out


def _objective_pairs(f, X):
    """Pairs of distinct unknowns the objective couples (its Hessian's off-diagonal pattern)."""
    if type(f) is float or X.numel() == 0:
        return []
    idx = [i for i, nonlinear in enumerate(ca.which_depends(f, X, 2, False)) if nonlinear]
    if len(idx) < 2:
        return []
    H = ca.hessian(f, ca.vertcat(*[X[i] for i in idx]))[0]
    rows, cols = H.sparsity().get_triplet()
    return [(idx[r], idx[c]) for r, c in zip(rows, cols) if r < c]
