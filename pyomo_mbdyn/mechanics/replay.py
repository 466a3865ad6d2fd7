"""CasADi functions replayed in any backend.

A CasADi ``SX`` function (e.g. symbolic derivatives computed once) is
evaluated instruction by instruction on numpy arrays of Pyomo expressions or
numbers; a work value used more than once is passed to
:func:`~pyomo_mbdyn.mechanics.linalg.shared` (a named Expression while a
scheme block is being built), so the Pyomo graph keeps CasADi's sharing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

import numpy as np

from .linalg import elementwise, shared

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["backend_of", "replay"]


def backend_of(values: Iterable[Any]) -> str:
    """``"float"``, ``"pyomo"`` or ``"casadi"``: the backend of the entries of ``values``.

    Numbers count as any backend; mixing CasADi and Pyomo expressions raises ``TypeError``.
    """
    kinds = set()
    for v in values:
        if isinstance(v, (int, float, np.floating, np.integer)):
            continue
        kinds.add("casadi" if type(v).__module__.startswith("casadi") else "pyomo")
    if "casadi" in kinds and "pyomo" in kinds:
        raise TypeError("cannot mix CasADi and Pyomo expressions in one formula")
    return kinds.pop() if kinds else "float"


_UNARY: dict[int, Callable[[Any], Any]] = {}
_BINARY: dict[int, Callable[[Any, Any], Any]] = {}


def _tables():
    import casadi as ca

    if _UNARY:
        return
    for name in ("exp", "log", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh"):
        _UNARY[getattr(ca, "OP_" + name.upper())] = lambda a, name=name: elementwise(name, a)
    _UNARY.update({ca.OP_ASSIGN: lambda a: a, ca.OP_NEG: lambda a: -a, ca.OP_SQ: lambda a: a * a,
                   ca.OP_TWICE: lambda a: 2 * a, ca.OP_INV: lambda a: 1 / a})
    _BINARY.update({ca.OP_ADD: lambda a, b: a + b, ca.OP_SUB: lambda a, b: a - b,
                    ca.OP_MUL: lambda a, b: a * b, ca.OP_DIV: lambda a, b: a / b,
                    ca.OP_POW: lambda a, b: a**b, ca.OP_CONSTPOW: lambda a, b: a**b})


_PROGRAMS: dict[int, tuple[Any, list[tuple], dict[int, int]]] = {}


def _program(fun):
    """The instruction list of ``fun`` as Python tuples ``(op, output, inputs, constant)``
    and the use count of every work value, read once per Function (each
    ``instruction_*`` call crosses into C++)."""
    import casadi as ca

    entry = _PROGRAMS.get(id(fun))
    if entry is not None and entry[0] is fun:
        return entry[1], entry[2]
    program, uses = [], {}
    for k in range(fun.n_instructions()):
        op = fun.instruction_id(k)
        ins = fun.instruction_input(k)
        const = float(fun.instruction_constant(k)) if op == ca.OP_CONST else None
        program.append((op, fun.instruction_output(k), ins, const))
        if op not in (ca.OP_CONST, ca.OP_INPUT):
            for i in ins:
                uses[i] = uses.get(i, 0) + 1
    if len(_PROGRAMS) > 256:
        _PROGRAMS.clear()
    _PROGRAMS[id(fun)] = (fun, program, uses)  # the Function is kept, so its id stays valid
    return program, uses


#: a work value used more than once is named (``shared``) only when the tree it
#: stands for has more than this many nodes; smaller ones are repeated in the
#: trees that use them.  Every repeat is bounded by this size, so the trees a
#: writer walks stay linear in the instructions, while most named Expressions
#: (each a Pyomo component entry, ~6 µs to add) are not created: the Panda's GC
#: step has 11 000 values used twice, of which ~N are larger than 8 nodes.
SHARE_ABOVE = 8


def replay(fun: Any, args: Sequence[npt.ArrayLike], share: bool = True) -> list[np.ndarray]:
    """Evaluate the SX function ``fun`` on arrays of Pyomo expressions (or numbers).

    Walks CasADi's instruction list; a work value used more than once whose tree
    has more than :data:`SHARE_ABOVE` nodes is passed to
    :func:`~pyomo_mbdyn.mechanics.linalg.shared` (a named Expression while a
    block is being built); smaller ones, and all with ``share=False``, are reused
    as the same Python object (a DAG: cheaper to build, walked once by the
    in-process translator, but expanded into a tree by Pyomo's .nl writer).
    """
    import casadi as ca

    _tables()
    program, uses = _program(fun)
    outputs = [np.zeros(fun.nnz_out(j), dtype=object) for j in range(fun.n_out())]
    work, size = {}, {}   # size: nodes of the tree a work value stands for (named: 1)
    CONST, INPUT, OUTPUT = ca.OP_CONST, ca.OP_INPUT, ca.OP_OUTPUT
    for op, out, ins, const in program:
        if op == CONST:
            work[out[0]], size[out[0]] = const, 1
            continue
        if op == INPUT:
            work[out[0]], size[out[0]] = args[ins[0]][ins[1]], 1
            continue
        if op == OUTPUT:
            outputs[out[0]][out[1]] = work[ins[0]]
            continue
        if op in _UNARY:
            value, n = _UNARY[op](work[ins[0]]), 1 + size[ins[0]]
        elif op in _BINARY:
            value, n = _BINARY[op](work[ins[0]], work[ins[1]]), 1 + size[ins[0]] + size[ins[1]]
        else:
            raise NotImplementedError(f"CasADi operation {op} has no Pyomo counterpart here")
        if share and n > SHARE_ABOVE and uses.get(out[0], 0) > 1:
            value, n = shared(value), 1
        work[out[0]], size[out[0]] = value, n
    return outputs

