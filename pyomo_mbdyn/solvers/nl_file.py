"""Reading AMPL ``.nl`` files for CasADi's importer, and writing ``.sol`` files.

CasADi's ``NlpBuilder.import_nl`` understands the text .nl format with three
gaps that matter for Pyomo-written files:

* it rejects ``#`` comments (Pyomo writes them on header lines always, and on
  every expression line with ``symbolic_solver_labels=True``);
* it rejects suffix segments (``S``), through which Pyomo exports warm-start
  bound multipliers (``ipopt_zL_in``/``ipopt_zU_in``) and scaling factors;
* it has no if-then-else (``o35``, ``o65``, ``o72``: Pyomo's ``Expr_if``),
  no piecewise-linear terms (``o64``) and no logical constraints.

:func:`read_nl` turns a Pyomo .nl file into text CasADi accepts plus the data
it would have dropped, and names unsupported constructs by the segment (``C3``
is constraint row 3, ``O0`` the objective) in which they occur.

The .sol format written by :func:`write_sol` is the one of the AMPL Solver
Library's ``write_sol``, which Pyomo's ``ResultsReader_sol`` parses: a message,
``Options``, the counts, one dual per constraint, one value per variable,
``objno 0 <solve_result_num>``, then real-valued suffix tables.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__ = ["NlFile", "UnsupportedConstruct", "read_nl", "write_sol"]

#: .nl operator codes CasADi cannot import, with the Pyomo construct behind them.
UNSUPPORTED_OPERATORS = {
    35: "if-then-else (Pyomo Expr_if)",
    65: "if-then-else (Pyomo Expr_if)",
    72: "if-then-else (Pyomo Expr_if)",
    64: "piecewise-linear term",
    4: "remainder (mod)",
    55: "integer division",
    56: "precision()",
    57: "round()",
    58: "trunc()",
    11: "min() (nonsmooth)",
    12: "max() (nonsmooth)",
    13: "floor() (nonsmooth)",
    14: "ceil() (nonsmooth)",
    15: "abs() (nonsmooth)",
    47: "atanh()",
    50: "asinh()",
    52: "acosh()",
}

_OPERATOR_LINE = re.compile(r"^o(\d+)\s*$")
_SEGMENT_START = re.compile(r"^([CO])(\d+)")


class UnsupportedConstruct(ValueError):
    """The .nl file uses an expression CasADi's importer cannot read.

    Attributes ``construct`` (a readable name) and ``segment`` (``'C'`` or
    ``'O'`` followed by the row or objective number) locate it.
    """

    def __init__(self, construct: str, segment: str) -> None:
        self.construct = construct
        self.segment = segment
        kind = "constraint row" if segment[0] == "C" else "objective"
        super().__init__(
            f"{construct} in {kind} {segment[1:]} is not supported by CasADi's "
            f".nl importer"
        )


@dataclass
class NlFile:
    """A .nl file prepared for ``casadi.NlpBuilder.import_nl``.

    Attributes
    ----------
    text : str
        The file without comments and without suffix segments.
    n_var, n_con, n_obj : int
        Counts from the header.
    n_binary, n_integer : int
        Discrete variable counts from header line 7 (linear binary, linear
        integer, plus the nonlinear integer counts).
    suffixes : dict
        ``{name: (kind, {index: value})}`` for every ``S`` segment, ``kind``
        being 0 (variables), 1 (constraints), 2 (objectives) or 3 (problem).
    """

    text: str
    n_var: int
    n_con: int
    n_obj: int
    n_binary: int = 0
    n_integer: int = 0
    suffixes: dict = field(default_factory=dict)

    @property
    def n_discrete(self) -> int:
        return self.n_binary + self.n_integer


def _strip_comment(line):
    i = line.find("#")
    if i >= 0:
        line = line[:i]
    return line.rstrip()


def read_nl(path: str | os.PathLike[str]) -> NlFile:
    """Read a text .nl file; return an :class:`NlFile`.

    Raises
    ------
    UnsupportedConstruct
        For an expression CasADi cannot import (see ``UNSUPPORTED_OPERATORS``).
    ValueError
        For a binary .nl file or a malformed header.
    """
    with open(path, "r") as f:
        lines = [_strip_comment(line) for line in f]
    if not lines or not lines[0].startswith("g"):
        raise ValueError(
            f"{path}: not a text .nl file (binary .nl files are not supported)"
        )
    header = lines[:10]
    counts = header[1].split()
    n_var, n_con, n_obj = int(counts[0]), int(counts[1]), int(counts[2])
    # header line 7: nbv niv nlvb nlvc nlvo (the last three count nonlinear
    # integer variables in both, constraints only and objectives only)
    discrete = [int(t) for t in header[6].split()]
    n_binary = discrete[0]
    n_integer = discrete[1] + sum(discrete[2:5])

    body = []
    suffixes = {}
    segment = None
    i = 10
    while i < len(lines):
        line = lines[i]
        if line.startswith("S"):
            # S<kind> <n> <name>
            parts = line[1:].split()
            kind, count, name = int(parts[0]), int(parts[1]), parts[2]
            values = {}
            for entry in lines[i + 1 : i + 1 + count]:
                idx, val = entry.split()
                values[int(idx)] = float(val)
            suffixes[name] = (kind & 3, values)
            i += 1 + count
            continue
        start = _SEGMENT_START.match(line)
        if start:
            segment = line.split()[0]
        elif line[:1] in "VxrbkJGd" and line[:1].isalpha():
            segment = None
        op = _OPERATOR_LINE.match(line)
        if op and int(op.group(1)) in UNSUPPORTED_OPERATORS:
            raise UnsupportedConstruct(
                UNSUPPORTED_OPERATORS[int(op.group(1))], segment or "C?"
            )
        if line.startswith(("L", "F")):
            raise UnsupportedConstruct(
                "logical constraint" if line[0] == "L" else "external function",
                line.split()[0],
            )
        body.append(line)
        i += 1
    text = "\n".join(header + body) + "\n"
    return NlFile(text, n_var, n_con, n_obj, n_binary, n_integer, suffixes)


def write_sol(path: str | os.PathLike[str], message: str, x: Sequence[float] | np.ndarray,
              duals: Sequence[float] | np.ndarray, solve_result_num: int,
              var_suffixes: Iterable[tuple[str, Sequence[float] | np.ndarray]] = ()) -> None:
    """Write an AMPL .sol file as the AMPL Solver Library's ``write_sol`` does.

    Parameters
    ----------
    path : str
    message : str
        Solver message; Pyomo shows it as ``results.solver.message``.
    x : sequence of float, length n_var
    duals : sequence of float, length n_con
        Constraint duals, already in the AMPL sign convention.
    solve_result_num : int
        AMPL code: 0-99 solved, 200-299 infeasible, 300-399 unbounded,
        400-499 limit reached, 500-599 failure.
    var_suffixes : iterable of (name, sequence of float)
        Real-valued variable suffixes (kind 4 = real | var).
    """
    out = ["", message.strip(), "", "Options", "3", "1", "1", "0"]
    out += [str(len(duals)), str(len(duals)), str(len(x)), str(len(x))]
    out += [repr(float(v)) for v in duals]
    out += [repr(float(v)) for v in x]
    out.append(f"objno 0 {int(solve_result_num)}")
    for name, values in var_suffixes:
        out.append(f"suffix 4 {len(values)} {len(name) + 1} 0 0")
        out.append(name)
        out += [f"{i} {float(v)!r}" for i, v in enumerate(values)]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
