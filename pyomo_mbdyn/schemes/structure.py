"""Structural checks of Pyomo blocks: square, structurally non-singular systems.

Named Expressions are walked once (scheme blocks share many subexpressions),
and the incidence graph goes to
:class:`pyomo.contrib.incidence_analysis.IncidenceGraphInterface`.
"""

from __future__ import annotations

from typing import Any, Sequence

import pyomo.environ as pyo

from ..errors import StructuralError
from ..solvers.evaluation import expression_value  # noqa: F401  (re-exported: one DAG evaluator)

__all__ = ["check_structure", "expression_value"]


def _incident_variables(expr, memo):
    """Unfixed variables of ``expr`` (id → var); named Expressions are walked once (``memo``)."""
    found, stack = {}, [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, (int, float)):
            continue
        if e.is_variable_type():
            if not e.fixed:
                found[id(e)] = e
        elif e.is_named_expression_type():
            key = id(e)
            if key not in memo:
                memo[key] = _incident_variables(e.expr, memo)
            found.update(memo[key])
        elif e.is_expression_type():
            stack.extend(e.args)
    return found


def check_structure(block: Any, notes: Sequence[str] = ()) -> tuple[int, int]:
    """Check that the active equalities of ``block`` in its free variables form a
    square, structurally non-singular system.

    The incidence is collected with each named Expression walked once (the
    DNCO equations share many), and handed to
    :class:`pyomo.contrib.incidence_analysis.IncidenceGraphInterface`, whose
    Dulmage–Mendelsohn partition gives the unmatched variables and equations.
    Raises :class:`~pyomo_mbdyn.errors.StructuralError` naming them (followed
    by ``notes``); returns ``(n_variables, n_equations)``.
    """
    import networkx as nx
    from pyomo.contrib.incidence_analysis import IncidenceGraphInterface

    constraints = [c for c in block.component_data_objects(pyo.Constraint, active=True, descend_into=True)
                   if c.equality]
    memo: dict[Any, Any]
    variables: list[Any]
    memo, incidence, variables, column = {}, [], [], {}
    for con in constraints:
        row = _incident_variables(con.body, memo)
        for key, var in row.items():
            if key not in column:
                column[key] = len(variables)
                variables.append(var)
        incidence.append([column[key] for key in row])
    M = len(constraints)
    graph = nx.Graph()
    graph.add_nodes_from(range(M), bipartite=0)
    graph.add_nodes_from(range(M, M + len(variables)), bipartite=1)
    graph.add_edges_from((i, M + j) for i, row in enumerate(incidence) for j in row)
    igraph = IncidenceGraphInterface((graph, variables, constraints))
    var_dm, con_dm = igraph.dulmage_mendelsohn()
    if len(variables) == M and not var_dm.unmatched and not con_dm.unmatched:
        return len(variables), M

    def names(items, limit=12):
        listed = [c.name for c in items[:limit]]
        return ", ".join(listed) + (f", … ({len(items)} in all)" if len(items) > limit else "")

    parts = [f"{block.name}: {len(variables)} unknowns, {M} equations "
             f"({len(variables) - M} degrees of freedom)"]
    if var_dm.unmatched:
        parts.append(f"unmatched variables: {names(var_dm.unmatched)}")
    if con_dm.unmatched:
        parts.append(f"unmatched equations: {names(con_dm.unmatched)}")
    if var_dm.underconstrained:
        parts.append(f"underconstrained variables: {names(var_dm.underconstrained)}")
    if con_dm.overconstrained:
        parts.append(f"overconstrained equations: {names(con_dm.overconstrained)}")
    parts += list(notes)
    raise StructuralError("; ".join(parts))
