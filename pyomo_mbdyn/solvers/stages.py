"""Stage structure: the NLP's unknowns and rows ordered interval by interval.

A structure-exploiting solver such as fatrop (in the casadi wheel; Riccati recursion
instead of a sparse LDLᵀ of the whole KKT matrix) takes an optimal control problem
in *stage form*: unknowns ``[x_0, u_0, x_1, u_1, …, x_N, u_N]`` (states ``x_k``,
controls ``u_k``) and, stage by stage, first the **gap rows**
``x_{k+1} − F_k(x_k, u_k) = 0`` (the identity on ``x_{k+1}``, nothing else of stage
k+1) and then the stage's **path rows** ``c_k(x_k, u_k)`` (equalities or
inequalities); the Hessian of the Lagrangian must be block diagonal by stage.
CasADi's fatrop interface reads the layout as ``N`` and the per-stage sizes ``nx``,
``nu``, ``ng`` (``structure_detection="manual"``).

The library's schemes state *implicit* steps: the midpoint rule of GC, the discrete
gradients of REM and BEM, the DNCO pendulum's rows are ``r(node k, node k+1,
interval k) = 0``, not ``x_{k+1} = F(x_k, u_k)``.  They fit only **lifted**: the
unknowns of node k+1 that interval k's rows share with interval k+1's become the
state ``x_{k+1}`` *and* a copy ``z_k`` among the controls of stage k; interval k's
rows are stated in ``(x_k, z_k, u_k)`` as path equalities of stage k, and the gap row
is ``x_{k+1} − z_k = 0``.  Unknowns a single stage uses are controls of that stage (no
copy).  The lifted NLP has the same solutions: the gap rows make each copy equal to
its original, the rows' multipliers are the original ones, and each unknown's value is
read from its own (home) column.

:func:`grid_positions` places every unknown on the scheme block's grid (``("node",
k)`` or ``("interval", k)``, read from the first index set of its component: the
block's ``nodes`` or ``intervals``); :class:`StagePlan` assigns every group of rows
(a walked row, or all rows of one interval of a mapped step) and every unknown to a
stage; :class:`StageLayout` is the resulting order of columns and rows.  What does not
fit is refused with a :class:`~pyomo_mbdyn.errors.ConfigurationError` naming it:

* an unknown off the grid (a free final time, a global parameter: it couples all
  stages);
* a row over more than one interval, or over nodes that are not k and k+1 of one
  interval (a periodicity condition q_N = q_0);
* an objective whose Hessian couples unknowns of two stages;
* a model with more than one scheme grid.

The ordering is used by :mod:`pyomo_mbdyn.solvers.pyomo_to_casadi` (``translate(…,
stage_wise=True)``) for the ``casadi_fatrop`` plugin
(:mod:`pyomo_mbdyn.solvers.casadi_direct`).

Examples
--------
Two intervals: node 1's unknown is shared by both intervals (a state of stage 1 with a
copy in stage 0), node 2's only by interval 1 (a control of stage 1):

>>> plan = StagePlan([("node", 1), ("node", 2), ("interval", 0), ("interval", 1)],
...                  [[0, 2], [0, 1, 3]], pairs=[], steps=2)
>>> plan.group_stage, plan.nx, plan.nu
([0, 1], [0, 1], [2, 2])
>>> plan.copy_stage
{0: 0}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigurationError

__all__ = ["grid_positions", "StagePlan", "StageLayout", "stage_order"]

#: a place on the grid: ("node", k) for k = 0..N or ("interval", k) for k = 0..N-1
Position = tuple[str, int]


def _grids(block):
    """The blocks under ``block`` that carry a time grid (``nodes`` and ``intervals`` Sets)."""
    from pyomo.core.base.set import RangeSet, Set

    sets = (Set, RangeSet)
    out = []
    for b in block.block_data_objects(active=True, descend_into=True):
        nodes, intervals = b.component("nodes"), b.component("intervals")
        if nodes is not None and intervals is not None and nodes.ctype in sets and intervals.ctype in sets:
            out.append(b)
    return out


def grid_positions(block: Any, variables: Sequence[Any], solver_name: str = "casadi_fatrop") -> tuple[list[Position], int]:
    """``(positions, N)``: where each of ``variables`` lies on the one scheme grid of
    ``block`` (``("node", k)`` or ``("interval", k)``) and the number of intervals.

    An unknown is placed by the first index set of its component: the grid's ``nodes``
    or ``intervals``.  Raises :class:`~pyomo_mbdyn.errors.ConfigurationError` naming the
    first unknown that is not on the grid, or when the model has no grid or several.

    Examples
    --------
    >>> import pyomo.environ as pyo
    >>> m = pyo.ConcreteModel()
    >>> m.nodes, m.intervals = pyo.RangeSet(0, 2), pyo.RangeSet(0, 1)
    >>> m.q, m.u, m.T = pyo.Var(m.nodes), pyo.Var(m.intervals, [1, 2]), pyo.Var()
    >>> grid_positions(m, [m.q[1], m.u[0, 2]])
    ([('node', 1), ('interval', 0)], 2)
    >>> grid_positions(m, [m.T])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pyomo_mbdyn.errors.ConfigurationError: casadi_fatrop: the stage structure does not fit: the unknown T ...
    """
    grids = _grids(block)
    if len(grids) != 1:
        what = "no scheme block (no 'nodes' and 'intervals' Sets)" if not grids else \
            f"{len(grids)} scheme grids ({', '.join(g.name for g in grids[:3])})"
        raise ConfigurationError(f"{solver_name}: the stage structure needs one time grid, but the model has {what}; "
                                 "solve it with casadi_ipopt")
    grid = grids[0]
    kinds = {id(grid.component("nodes")): "node", id(grid.component("intervals")): "interval"}
    steps = len(grid.component("intervals"))
    positions: list[Position] = []
    for v in variables:
        comp = v.parent_component()
        index_set = comp.index_set()
        first = next(iter(index_set.subsets()), index_set) if comp.is_indexed() else None
        kind = kinds.get(id(first)) if first is not None else None
        if kind is None:
            raise ConfigurationError(
                f"{solver_name}: the stage structure does not fit: the unknown {v.name} is not indexed by the "
                f"grid's nodes or intervals ({grid.name}); a global unknown (a free final time, a parameter) "
                "couples all stages. Solve it with casadi_ipopt")
        index = v.index()
        positions.append((kind, int(index[0] if isinstance(index, tuple) else index)))
    return positions, steps


class StagePlan:
    """Which stage each group of rows and each unknown belongs to (the module docstring).

    Parameters
    ----------
    positions : list of (kind, k)
        Each unknown's place on the grid (:func:`grid_positions`).
    groups : list of list of int
        The unknowns (indices into ``positions``) of each group of rows placed together.
    pairs : list of (int, int)
        Pairs of distinct unknowns the objective couples nonlinearly (its Hessian's
        off-diagonal pattern); both must end in one stage.
    steps : int
        N, the number of intervals.
    labels, names : list of str, optional
        A name for each group and each unknown, for the errors.

    Attributes
    ----------
    group_stage : list of int
        The stage of each group.
    stage_of : list of int
        The stage of each unknown's own (home) column.
    is_state : list of bool
        Whether an unknown is a state of its stage (then it has a copy in the stage before).
    copy_stage : dict
        Unknown → stage of its copy (the stage before its home).
    nx, nu : list of int
        States and controls (copies included) per stage, N+1 entries.
    """

    def __init__(self, positions: Sequence[Position], groups: Sequence[Sequence[int]],
                 pairs: Sequence[tuple[int, int]], steps: int, labels: Sequence[str] | None = None,
                 names: Sequence[str] | None = None, solver_name: str = "casadi_fatrop") -> None:
        self.steps = steps
        self.group_stage = [self._stage(positions, g, steps, labels[i] if labels else f"row group {i}", solver_name)
                            for i, g in enumerate(groups)]
        used: list[set[int]] = [set() for _ in positions]
        for g, s in zip(groups, self.group_stage):
            for i in g:
                used[i].add(s)
        self.stage_of, self.is_state, self.copy_stage = [], [], {}
        for i, (kind, k) in enumerate(positions):
            if kind == "interval" or not used[i]:
                self.stage_of.append(k)
                self.is_state.append(False)
            elif used[i] == {k - 1, k}:  # shared by interval k-1 and stage k: a state with a copy
                self.stage_of.append(k)
                self.is_state.append(True)
                self.copy_stage[i] = k - 1
            else:  # one stage uses it: a control there
                self.stage_of.append(next(iter(used[i])))
                self.is_state.append(False)
        for a, b in pairs:
            if self.stage_of[a] != self.stage_of[b]:
                name = (lambda i: names[i] if names else f"{positions[i][0]} {positions[i][1]}")  # noqa: E731
                raise ConfigurationError(
                    f"{solver_name}: the stage structure does not fit: the objective couples unknowns of "
                    f"{name(a)} and {name(b)}, which fall in stages {self.stage_of[a]} and {self.stage_of[b]} "
                    "(the Hessian must be block diagonal by stage). Solve it with casadi_ipopt")
        last = max(self.stage_of + self.group_stage, default=0)
        self.nx = [0] * (last + 1)
        self.nu = [0] * (last + 1)
        for i, s in enumerate(self.stage_of):
            if self.is_state[i]:
                self.nx[s] += 1
            else:
                self.nu[s] += 1
        for i, s in self.copy_stage.items():
            self.nu[s] += 1

    @staticmethod
    def _stage(positions, group, steps, label, solver_name):
        nodes = {positions[i][1] for i in group if positions[i][0] == "node"}
        intervals = {positions[i][1] for i in group if positions[i][0] == "interval"}
        if len(intervals) > 1:
            where = f"intervals {sorted(intervals)}"
        elif intervals:
            k = next(iter(intervals))
            if nodes <= {k, k + 1}:
                return k
            where = f"interval {k} and nodes {sorted(nodes)}"
        elif not nodes:
            return 0  # a row without unknowns: anywhere
        elif len(nodes) == 1:
            return next(iter(nodes))
        elif len(nodes) == 2 and max(nodes) - min(nodes) == 1:
            return min(nodes)
        else:
            where = f"nodes {sorted(nodes)}"
        raise ConfigurationError(
            f"{solver_name}: the stage structure does not fit: {label} couples {where}; a row must lie within "
            "one interval k (its nodes k, k+1 and its own unknowns). Solve it with casadi_ipopt")


@dataclass(frozen=True)
class StageLayout:
    """The stage order of a lifted NLP: what its columns and rows are.

    ``columns[j]`` is the original unknown at lifted column j (its home or its copy),
    ``home[i]`` the lifted column of unknown i, ``rows[r]`` the lifted row of original
    row r (gap rows have no original row), ``N``, ``nx``, ``nu``, ``ng`` the sizes fatrop
    reads (N+1 entries each), ``column_stage[j]`` the stage of column j.

    Examples
    --------
    The plan of the module docstring, with row 0 on interval 0, row 1 on interval 1 and
    the gap row of unknown 0 built last:

    >>> plan = StagePlan([("node", 1), ("node", 2), ("interval", 0), ("interval", 1)],
    ...                  [[0, 2], [0, 1, 3]], pairs=[], steps=2)
    >>> columns, order, layout = stage_order(plan, [0, 1, 0], [None, None, 0], [0, 1])
    >>> columns  # stage 0: u_0 and the copy of unknown 0; stage 1: x_1 = unknown 0, then its controls
    [(2, False), (0, True), (0, False), (1, False), (3, False)]
    >>> order, layout.rows, layout.home, (layout.N, layout.nx, layout.nu, layout.ng)
    ([2, 0, 1], (1, 2), (2, 3, 0, 4), (1, (0, 1), (2, 2), (1, 1)))
    """

    N: int
    nx: tuple[int, ...]
    nu: tuple[int, ...]
    ng: tuple[int, ...]
    columns: tuple[int, ...]
    home: tuple[int, ...]
    rows: tuple[int, ...]
    column_stage: tuple[int, ...]

    @property
    def n_columns(self) -> int:
        return len(self.columns)

    @property
    def n_rows(self) -> int:
        return sum(self.nx[1:]) + sum(self.ng)

    def hessian_fits(self, rows: Sequence[int], cols: Sequence[int]) -> list[tuple[int, int]]:
        """The entries (lifted column pairs) of a Hessian pattern that join two stages
        (none when it is block diagonal by stage, as fatrop needs)."""
        stage = self.column_stage
        return [(r, c) for r, c in zip(rows, cols) if stage[r] != stage[c]]

    def solution(self, x: np.ndarray, lam_x: np.ndarray, lam_g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(x, lam_x, lam_g)`` of the original NLP from the lifted one's: each unknown
        from its home column (a copy's bound multiplier is zero: copies are unbounded),
        each row's multiplier from its lifted row."""
        home, rows = list(self.home), list(self.rows)
        return np.asarray(x)[home], np.asarray(lam_x)[home], np.asarray(lam_g)[rows]

    def lifted_multipliers(self, lam_x: np.ndarray, lam_g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Starting multipliers of the lifted NLP from the original ones (gap rows and
        copies 0)."""
        lx = np.zeros(self.n_columns)
        lx[list(self.home)] = lam_x
        lg = np.zeros(self.n_rows)
        lg[list(self.rows)] = lam_g
        return lx, lg


def stage_order(plan: StagePlan, row_stage: Sequence[int], gap_of: Sequence[int | None],
                original_rows: Sequence[int]) -> tuple[list[tuple[int, bool]], list[int], StageLayout]:
    """The stage order of columns and rows.

    The rows are given in the order they were built (original rows and gap rows mixed):
    ``row_stage[r]`` is the stage of built row r, ``gap_of[r]`` the unknown whose gap row
    it is (None for an original row), ``original_rows[i]`` the built row of original row
    i.  Returns ``(columns, row_order, layout)``: the lifted columns as ``(unknown,
    is_copy)``, the built rows in lifted order, and the layout.
    """
    stages = len(plan.nx)
    columns: list[tuple[int, bool]] = []
    column_stage: list[int] = []
    states_of: list[list[int]] = [[] for _ in range(stages)]
    for s in range(stages):
        states = [i for i, st in enumerate(plan.stage_of) if st == s and plan.is_state[i]]
        controls = [i for i, st in enumerate(plan.stage_of) if st == s and not plan.is_state[i]]
        copies = [i for i, st in plan.copy_stage.items() if st == s]
        states_of[s] = states
        for i, copy in [(i, False) for i in states] + [(i, False) for i in controls] + [(i, True) for i in sorted(copies)]:
            columns.append((i, copy))
            column_stage.append(s)
    gap_row = {i: r for r, i in enumerate(gap_of) if i is not None}
    order: list[int] = []
    ng = [0] * stages
    for s in range(stages):
        if s + 1 < stages:
            order += [gap_row[i] for i in states_of[s + 1]]  # the identity on x_{s+1}, in its order
        path = [r for r, st in enumerate(row_stage) if st == s and gap_of[r] is None]
        ng[s] = len(path)
        order += path
    position = {r: p for p, r in enumerate(order)}
    home = [0] * len(plan.stage_of)
    for j, (i, copy) in enumerate(columns):
        if not copy:
            home[i] = j
    layout = StageLayout(N=stages - 1, nx=tuple(plan.nx), nu=tuple(plan.nu), ng=tuple(ng),
                         columns=tuple(i for i, _ in columns), home=tuple(home),
                         rows=tuple(position[r] for r in original_rows),
                         column_stage=tuple(column_stage))
    return columns, order, layout
