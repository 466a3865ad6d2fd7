"""Interval residuals: the scheme's formula stated at every key, and offered to solvers.

A scheme states one discretisation formula (a function of the step h and the
interval's arguments, :mod:`pyomo_mbdyn.discretization`) at every interval or
node.  :class:`IntervalResiduals` is the part of a multibody block that does it:
:meth:`~IntervalResiduals._residuals` gathers the arguments into a
:class:`ResidualFamily` (residuals computed when first asked for), the
``_add_*_equations`` helpers turn the families into Constraints named after
what they state, and :meth:`~IntervalResiduals.uniform_residuals` hands solvers
the same formula as one compiled CasADi Function per family
(:class:`UniformResiduals`), so that a solver path may evaluate it mapped over
the keys instead of walking the rows' expressions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable

import numpy as np
import pyomo.environ as pyo

from ..discretization.common import step_scalar
from ..mechanics.linalg import sharing
from .deferred import ResidualRows

__all__ = ["IntervalResiduals", "ResidualFamily", "UniformResiduals"]


class ResidualFamily(dict):
    """The residuals of one formula at every key: ``family[k] = residual(*arguments(k))``.

    ``arguments(k)`` returns the formula's arguments at key ``k`` (arrays of
    Pyomo variables or expressions, or None), ``residual`` is the
    discretisation layer's function (a dict of residual groups).  The
    ``_add_*_equations`` helpers record in ``rows[k]`` which Constraint states
    which entry: ``(group, position, ConstraintData)``.

    The arguments are gathered at once; a key's residuals are computed when
    first asked for (``family[k]``: by a row's expression being built, see
    :mod:`pyomo_mbdyn.schemes.deferred`), so that a solver path that evaluates the
    formula as a compiled Function never pays for the Pyomo expressions.
    ``evaluate(args)`` computes one key's residuals; by default
    ``residual(*args)`` on the Pyomo arguments, but a block passes the replay
    of the formula's CasADi Function (see ``MultibodyBlockData._residuals``).
    """

    #: the arguments of each key; the constraint data stating each key's entries (group, position, data)
    arguments: dict[Any, Any]
    rows: dict[Any, list[Any]]

    def __init__(self, name: str, keys: Iterable[Any], arguments: Callable[[Any], Any], residual: Callable[..., Any],
                 evaluate: Callable[[Any], Any] | None = None, sharer: Callable[[Any], Any] | None = None) -> None:
        super().__init__()
        self.name, self.residual, self.arguments, self.rows = name, residual, {}, {}
        self._evaluate = (lambda args: residual(*args)) if evaluate is None else evaluate
        self._sharer = sharer
        for k in keys:
            self.arguments[k] = arguments(k)

    def __missing__(self, k):
        if k not in self.arguments:
            raise KeyError(k)
        if self._sharer is None:
            value = self._evaluate(self.arguments[k])
        else:  # values used twice become the block's named Expressions, as while it was built
            with sharing(self._sharer):
                value = self._evaluate(self.arguments[k])
        self[k] = value
        return value


def _signature(args):
    return tuple(None if a is None else len(a) for a in args)


def _record_rows(residuals, group, con, locate):
    """Note in ``residuals.rows`` the constraint data stating each entry (``locate(*index)`` →
    ``(key, position)``)."""
    if not isinstance(residuals, ResidualFamily):
        return
    for index, data in con.items():
        key, position = locate(*index)
        residuals.rows.setdefault(key, []).append((group, position, data))


class UniformResiduals:
    """One CasADi ``Function`` ``r = F(z)`` stated at many keys (intervals or nodes).

    ``inputs[i]`` are the Pyomo variables or expressions that make up ``z`` at
    the i-th key, ``rows[i]`` the Constraints that state ``r = 0`` there, built
    from the same formula.  A solver may evaluate ``F`` mapped over the keys
    instead of walking the rows' expressions
    (:mod:`pyomo_mbdyn.solvers.pyomo_to_casadi`); it must check that each row is
    still active and :meth:`unchanged`.
    """

    def __init__(self, function: Any, keys: list[Any], inputs: list[Any], rows: list[Any],
                 expected: Callable[[Any], Any]) -> None:
        self.function, self.keys, self.inputs, self.rows = function, keys, inputs, rows
        self._expected = expected

    def unchanged(self, i: int) -> bool:
        """True if every row of the i-th key still states the block's residual = 0:
        not built yet (:func:`~pyomo_mbdyn.schemes.deferred.is_deferred`), or built and
        with the very body the block made (a user's ``set_value`` replaces it)."""
        from .deferred import is_deferred

        rows = self.rows[i]
        if all(is_deferred(c) for c in rows):
            return True
        expected = self._expected(i)
        return all(is_deferred(c) or c.body is e for c, e in zip(rows, expected))

    def __repr__(self):
        return f"UniformResiduals({self.function.name()}, {len(self.keys)} keys, " \
               f"{self.function.size1_in(0)} inputs, {self.function.size1_out(0)} rows)"


class IntervalResiduals:
    """Mixin of :class:`~pyomo_mbdyn.schemes.base.MultibodyBlockData`: the formula at every key, as rows
    and as compiled Functions for solvers (see the module docstring)."""

    def _residuals(self, name, keys, arguments, residual, replayed=False, timed=True):
        """``{k: residual(h, *arguments(k))}`` for every key ``k`` (interval or node) as a
        :class:`ResidualFamily`, which the ``_add_*_equations`` helpers turn into
        Constraints and which :meth:`uniform_residuals` offers to solvers.

        ``h`` is the step: the float T/N for a fixed horizon (a constant of the
        compiled formula), or with a free horizon the named Expression
        ``final_time``/N, passed as one more argument of every key (``timed=False``:
        a formula without h, called as ``residual(*arguments(k))``).

        ``replayed=True`` builds the Pyomo expressions by replaying the formula's
        CasADi Function (:meth:`_replayed`).  It pays where the formula is costly to
        trace through Pyomo's operators (the chart's Taylor jets: GC builds 3–5×
        faster) but shares every work value CasADi uses twice as a named
        Expression, which some AMPL solvers handle badly (pyomo-ripopt on the
        replayed satellite DMOCC: 21 GB instead of 3 GB), so it is opt-in."""
        if timed and self.free_horizon:
            # h enters as an argument; the keys are built by replaying the formula, whose
            # trace sees h as a scalar symbol (Pyomo's operators would turn a one-entry
            # array times an expression into a scalar: the one-dof reduced rows)
            replayed = True
            step = np.array([self.h], dtype=object)
            arguments = (lambda given: lambda k: (step,) + tuple(given(k)))(arguments)
            residual = (lambda given: lambda h, *args: given(step_scalar(h[0]), *args))(residual)
        elif timed:
            residual = (lambda given, h: lambda *args: given(h, *args))(residual, float(self.h))
        evaluate = (lambda args: self._replayed(name, residual, args)) if replayed else None
        family = ResidualFamily(name, keys, arguments, residual, evaluate, sharer=self._share)
        self._families.append(family)
        return family

    def _replayed(self, name, residual, args):
        """One key's residuals, built by replaying the formula's CasADi Function on the
        Pyomo arguments (:func:`~pyomo_mbdyn.mechanics.replay.replay`): the formula is
        traced once per signature, and every key costs one Pyomo node per CasADi
        instruction instead of a fresh trace of the formula through Pyomo's
        operators (5–10× faster builds for the chart-based schemes).  Falls back to
        ``residual(*args)`` for a formula with operations the replay cannot map."""
        from ..mechanics.replay import replay

        formula = self._formula(name, residual, _signature(args))
        if formula is None:
            return residual(*args)
        fun, groups = formula
        z = np.array([x for a in args if a is not None for x in a], dtype=object)
        try:
            outputs = replay(fun, [z])
        except NotImplementedError:
            return residual(*args)
        return dict(zip(groups, outputs))

    def _cache_key(self, kind, name, signature):
        """Key of a compiled formula: everything in the block's options that can reach
        its equations (all but the system, which keys the cache, and fixed controls)."""
        free = self.free_horizon  # then h is an argument of the formula, and horizon only a start value
        skip = ("system", "controls") + (("horizon",) if free else ())
        options = tuple((k, repr(v)) for k, v in self.config.items() if k not in skip)
        return (kind, type(self).__name__, name, "free" if free else float(self.h), options, signature)

    def _formula(self, name, residual, sizes):
        """``(Function z ↦ residual groups, group names)`` of a formula at one signature,
        cached per system, grid and options; None when the residuals are not arrays."""
        import casadi

        from ..discretization.common import compiled_function, symbols

        key = self._cache_key("formula", name, sizes)

        def build():
            args, columns = [], []
            for i, size in enumerate(sizes):
                if size is None:
                    args.append(None)
                    continue
                column, entries = symbols(f"a{i}", size)
                args.append(entries)
                columns.append(column)
            res = residual(*args)
            groups = [g for g, value in res.items() if isinstance(value, (np.ndarray, list, tuple))]
            outputs = [casadi.densify(casadi.vertcat(*[casadi.SX(e) for e in res[g]])) if len(res[g])
                       else casadi.SX(0, 1) for g in groups]
            z = casadi.vertcat(*columns) if columns else casadi.SX(0, 1)
            return casadi.Function(f"{self.scheme}_{name}", [z], outputs), groups

        return compiled_function(self.system, key, build)

    def _add_coordinate_equations(self, group, residuals, index_set=None):
        """``body[b].<group>[k, c]``: the entries of ``residuals[k][group]`` (length n)."""
        index_set = self.intervals if index_set is None else index_set
        where = {key: g for g, key in enumerate(self._coordinate_index())}
        for name in self.system.bodies:
            blk = self.body[name]
            con = ResidualRows(index_set, blk.coordinates,
                               residual=lambda b, k, c, name=name: residuals[k][group][where[name, c]])
            blk.add_component(group, con)
            _record_rows(residuals, group, con, lambda k, c, name=name: (k, where[name, c]))

    def _add_velocity_equations(self, group, residuals, index_set=None):
        """``<group>[k, j]`` over the generalised velocities (length dof), or ``index_set``
        (``reduced_coordinates`` for the reduced rows)."""
        index_set = self.velocities if index_set is None else index_set
        index = {j: n for n, j in enumerate(index_set)}
        con = ResidualRows(self.intervals, index_set, residual=lambda b, k, j: residuals[k][group][index[j]])
        self.add_component(group, con)
        _record_rows(residuals, group, con, lambda k, j: (k, index[j]))

    def _add_loop_closure_equations(self, residuals):
        """``joint[j].loop_closure[k, r]``: the kept rows of the loop-closing joints at q_{k+1}
        (``residuals[k]["loop_closure"]``, reduced schemes on loops; none for a tree)."""
        if not self.system.has_loops:
            return
        labels = self.system.constraint_labels()
        rows = [labels[i] for i in self.system.loop_reduction.loop_rows]
        for jname in self.system.layout["loop_joints"]:
            mine = {int(label[len(jname) + 1:-1]): p for p, label in enumerate(rows)
                    if label.rsplit("[", 1)[0] == jname}
            if not mine:
                continue
            blk = self.joint[jname]
            con = ResidualRows(self.intervals, sorted(mine),
                               residual=lambda b, k, r, mine=mine: residuals[k]["loop_closure"][mine[r]])
            blk.add_component("loop_closure", con)
            _record_rows(residuals, "loop_closure", con, lambda k, r, mine=mine: (k, mine[r]))

    def _add_constraint_equations(self, residuals, group="constraint",
                                  names=("internal_constraint", "joint_constraint")):
        """Rows per constraint at nodes k = 1..N: by default Φ(q_k) = 0 as
        ``body[b].internal_constraint`` and ``joint[j].joint_constraint``
        (``residuals[k - 1][group]`` in the order of ``constraint_labels``)."""
        row_of = {(id(owner), r): g for g, (owner, r) in enumerate(self._constraint_index())}
        steps = pyo.RangeSet(1, self.config.steps)
        rule = lambda b, k, r: residuals[k - 1][group][row_of[id(b), r]]  # noqa: E731
        for owners, name in ((self.system.bodies, names[0]), (self.system.joints, names[1])):
            for owner in owners:
                blk = (self.body if owners is self.system.bodies else self.joint)[owner]
                con = ResidualRows(steps, blk.internal if name == names[0] else blk.rows, residual=rule)
                blk.add_component(name, con)
                _record_rows(residuals, group, con, lambda k, r, blk=blk: (k - 1, row_of[id(blk), r]))

    def uniform_residuals(self) -> list[UniformResiduals]:
        """The block's equations as :class:`UniformResiduals`: per residual family
        and per argument signature, one CasADi Function of one key's arguments
        (built once per system, grid and options, and reused by later solves),
        with the inputs and rows of every key that shares the signature.

        Keys whose arguments or rows differ from the others (the first DMOCC
        interval, with its initial-momentum condition) form their own group;
        groups with a single key are left to the solver's generic walk.
        """
        out = []
        for family in getattr(self, "_families", ()):
            groups: dict[Any, Any] = {}
            for k, args in family.arguments.items():
                rows = family.rows.get(k)
                if not rows:
                    continue
                signature = (tuple(None if a is None else len(a) for a in args),
                             tuple((g, p) for g, p, _ in rows))
                groups.setdefault(signature, []).append(k)
            for signature, keys in groups.items():
                if len(keys) < 2:
                    continue
                function = self._uniform_function(family, signature)
                if function is None:
                    continue
                inputs = [[x for a in family.arguments[k] if a is not None for x in a] for k in keys]
                rows = [[data for _, _, data in family.rows[k]] for k in keys]
                expected = (lambda family, keys: lambda i: [family[keys[i]][g][p] for g, p, _ in
                                                            family.rows[keys[i]]])(family, keys)
                out.append(UniformResiduals(function, keys, inputs, rows, expected))
        return out

    def _uniform_function(self, family, signature):
        """``F(z)``: the family's residual on CasADi symbols (cached per system, see
        :func:`~pyomo_mbdyn.discretization.common.compiled_function`)."""
        import casadi

        from ..discretization.common import compiled_function

        sizes, entries = signature
        key = self._cache_key("uniform", family.name, signature)
        formula = self._formula(family.name, family.residual, sizes)

        def build():
            fun, groups = formula
            z = casadi.SX.sym("z", fun.size1_in(0))
            outputs = dict(zip(groups, fun.call([z])))
            r = casadi.vertcat(*[outputs[g][p] for g, p in entries])
            return casadi.Function(f"{self.scheme}_{family.name}", [z], [r], ["z"], ["r"])

        return compiled_function(self.system, key, build)
