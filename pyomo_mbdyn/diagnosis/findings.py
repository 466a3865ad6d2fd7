"""What a diagnosis found, and how it reads.

:class:`Diagnosis` holds the findings of :func:`~pyomo_mbdyn.diagnosis.diagnose` (degrees of
freedom, structural sets, residuals, Jacobian conditioning, dependent equations) as plain
fields; ``str(diagnosis)`` is the report, ``diagnosis.as_dict()`` the JSON of
``pyomo-mbdyn diagnose --json``."""

from __future__ import annotations

from typing import Any

import math
from dataclasses import asdict, dataclass, field

import numpy as np

__all__ = ["Residual", "JacobianEntry", "Dependency", "Diagnosis"]


@dataclass
class Residual:
    """A row at the point: ``lower ≤ body ≤ upper`` violated by ``violation``.

    Examples
    --------
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.diagnosis import diagnose, largest_residuals
    >>> m = pyo.ConcreteModel("twice")        # one condition stated twice
    >>> m.x = pyo.Var(initialize=0.0)
    >>> m.y = pyo.Var(initialize=0.0)
    >>> m.once = pyo.Constraint(expr=m.x + m.y == 1)
    >>> m.again = pyo.Constraint(expr=2 * m.x + 2 * m.y == 2)
    >>> m.cost = pyo.Objective(expr=m.x ** 2 + m.y ** 2)
    >>> largest_residuals(m, k=1)[0]
    Residual(name='again', body=0.0, lower=2.0, upper=2.0, violation=2.0)
    """

    name: str
    body: float
    lower: float | None = None
    upper: float | None = None
    violation: float = 0.0


@dataclass
class JacobianEntry:
    """``∂ constraint / ∂ variable = value``; ``variable`` None for a row's norm,
    ``constraint`` None for a column's norm.

    Examples
    --------
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.diagnosis import diagnose, largest_residuals
    >>> m = pyo.ConcreteModel("twice")        # one condition stated twice
    >>> m.x = pyo.Var(initialize=0.0)
    >>> m.y = pyo.Var(initialize=0.0)
    >>> m.once = pyo.Constraint(expr=m.x + m.y == 1)
    >>> m.again = pyo.Constraint(expr=2 * m.x + 2 * m.y == 2)
    >>> m.cost = pyo.Objective(expr=m.x ** 2 + m.y ** 2)
    >>> diagnose(m).largest_entries[0]
    JacobianEntry(constraint='again', variable='x', value=2.0)
    """

    constraint: str
    variable: str
    value: float


@dataclass
class Dependency:
    """``equation``'s row of the scaled equality Jacobian is a combination of others:
    ``row(equation) ≈ Σ coefficient · row(name)`` over ``rows`` (``(name, coefficient)``,
    largest first, at most ``top``); ``n_rows`` rows take part besides ``equation``.

    Examples
    --------
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.diagnosis import diagnose, largest_residuals
    >>> m = pyo.ConcreteModel("twice")        # one condition stated twice
    >>> m.x = pyo.Var(initialize=0.0)
    >>> m.y = pyo.Var(initialize=0.0)
    >>> m.once = pyo.Constraint(expr=m.x + m.y == 1)
    >>> m.again = pyo.Constraint(expr=2 * m.x + 2 * m.y == 2)
    >>> m.cost = pyo.Objective(expr=m.x ** 2 + m.y ** 2)
    >>> dependency = diagnose(m).dependencies[0]   # again = 1 · once (rows scaled to unit norm)
    >>> dependency.equation, dependency.n_rows, [(name, round(c, 6)) for name, c in dependency.rows]
    ('again', 1, [('once', 1.0)])
    """

    equation: str
    n_rows: int
    rows: list = field(default_factory=list)


@dataclass
class Diagnosis:
    """What :func:`diagnose` found; ``str()`` is a readable report, :meth:`to_dict` JSON-ready.

    Examples
    --------
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.diagnosis import diagnose, largest_residuals
    >>> m = pyo.ConcreteModel("twice")        # one condition stated twice
    >>> m.x = pyo.Var(initialize=0.0)
    >>> m.y = pyo.Var(initialize=0.0)
    >>> m.once = pyo.Constraint(expr=m.x + m.y == 1)
    >>> m.again = pyo.Constraint(expr=2 * m.x + 2 * m.y == 2)
    >>> m.cost = pyo.Objective(expr=m.x ** 2 + m.y ** 2)
    >>> d = diagnose(m)
    >>> d.degrees_of_freedom, d.rank_deficiency, d.dependent_equations, d.healthy
    (0, 1, ['again'], False)
    >>> print("\\n".join(str(d).splitlines()[-2:]))
    Dependent equations (1: the scaled equality Jacobian loses rank; the KKT matrix is singular,
    the multipliers are not unique)
      again  ≈ +1·once
    >>> d.to_dict()["dependent_equations"]
    ['again']
    """

    model: str
    point: str
    n_variables: int
    n_equalities: int
    n_inequalities: int
    degrees_of_freedom: int
    #: Dulmage–Mendelsohn partition of the equality rows (names, at most ``names`` each; counts in full)
    overconstrained_variables: list
    overconstrained_equations: list
    underconstrained_variables: list
    underconstrained_equations: list
    n_overconstrained: tuple
    n_underconstrained: tuple
    residuals: list
    max_residual: float
    jacobian_shape: tuple
    condition_number: float | None = None
    scaled_condition_number: float | None = None
    #: smallest singular values of the scaled equality Jacobian, relative to the largest
    smallest_singular_values: list = field(default_factory=list)
    rank_deficiency: int = 0
    dependent_equations: list = field(default_factory=list)
    dependencies: list = field(default_factory=list)
    largest_entries: list = field(default_factory=list)
    smallest_entries: list = field(default_factory=list)
    n_large_entries: int = 0
    n_small_entries: int = 0
    largest_rows: list = field(default_factory=list)
    smallest_rows: list = field(default_factory=list)
    largest_columns: list = field(default_factory=list)
    smallest_columns: list = field(default_factory=list)
    #: rows and variables weighing most in the smallest singular vectors (the weakest direction)
    weakest_rows: list = field(default_factory=list)
    weakest_variables: list = field(default_factory=list)
    nonfinite_entries: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    idaes: str | None = None

    @property
    def structurally_singular(self) -> bool:
        """Over-constrained rows, or (a square system) under-constrained variables."""
        return bool(self.n_overconstrained[1]) or (self.degrees_of_freedom == 0 and bool(self.n_underconstrained[0]))

    @property
    def healthy(self) -> bool:
        """No structural singularity, no dependent equations, a finite Jacobian."""
        return not (self.structurally_singular or self.rank_deficiency or self.nonfinite_entries
                    or self.degrees_of_freedom < 0)

    def to_dict(self) -> dict[str, Any]:
        """The diagnosis as plain JSON types (non-finite numbers as None), with ``healthy``
        and ``structurally_singular``."""
        return {**_plain(asdict(self)), "healthy": self.healthy,
                "structurally_singular": self.structurally_singular}

    def __str__(self):
        return _format(self)


def _plain(obj):
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    if isinstance(obj, np.integer):
        return int(obj)
    return obj


def _num(x):
    if x is None:
        return "—"
    if not math.isfinite(x):
        return str(x)
    return f"{x:.3g}" if 1e-3 <= abs(x) < 1e4 or x == 0 else f"{x:.2e}"


def _listing(items, total, indent="    "):
    more = f" … ({total} in all)" if total > len(items) else ""
    return indent + (", ".join(items) if items else "none") + more


def _format(d):
    lines = [f"Diagnosis of model {d.model!r} at {d.point}",
             f"  {d.n_variables} free variables, {d.n_equalities} equality rows, {d.n_inequalities} inequality "
             f"rows: {d.degrees_of_freedom} degrees of freedom"
             + (" (over-determined)" if d.degrees_of_freedom < 0 else "")]
    lines.append("Structure (Dulmage–Mendelsohn partition of the equality rows)")
    nv, ne = d.n_overconstrained
    if ne:
        lines.append(f"  over-constrained: {ne} equations in {nv} variables")
        lines.append(_listing(d.overconstrained_equations, ne))
    else:
        lines.append("  over-constrained: none")
    nv, ne = d.n_underconstrained
    expected = " — the degrees of freedom, expected in an optimisation problem" if d.degrees_of_freedom > 0 else ""
    lines.append(f"  under-constrained: {nv} variables, {ne} equations{expected}")
    if nv and d.degrees_of_freedom <= 0:
        lines.append(_listing(d.underconstrained_variables, nv))
    lines.append(f"Residuals (largest {len(d.residuals)}; max {_num(d.max_residual)})")
    width = max((len(r.name) for r in d.residuals), default=0)
    for r in d.residuals:
        bounds = (f"= {_num(r.lower)}" if r.lower is not None and r.lower == r.upper
                  else f"in [{_num(r.lower)}, {_num(r.upper)}]")
        lines.append(f"  {r.name:<{width}}  {_num(r.violation):>9}  (body {_num(r.body)} {bounds})")
    m, n = d.jacobian_shape
    lines.append(f"Jacobian of the equality rows ({m} × {n})")
    if d.nonfinite_entries:
        for e in d.nonfinite_entries:
            lines.append(f"  not finite: ∂ {e.constraint} / ∂ {e.variable} = {e.value}")
    if d.scaled_condition_number is not None:
        lines.append(f"  condition number {_num(d.condition_number)}; with rows and columns scaled to unit norm "
                     f"{_num(d.scaled_condition_number)}")
        lines.append("  smallest scaled singular values (σ/σ_max): "
                     + ", ".join(_num(v) for v in d.smallest_singular_values[:6]))
    if d.largest_entries:
        e = d.largest_entries[0]
        lines.append(f"  largest entry {_num(e.value)}: ∂ {e.constraint} / ∂ {e.variable} "
                     f"({d.n_large_entries} entries ≥ large)")
        e = d.smallest_entries[0]
        lines.append(f"  smallest nonzero entry {_num(e.value)}: ∂ {e.constraint} / ∂ {e.variable} "
                     f"({d.n_small_entries} entries ≤ small)")
        lines.append(f"  largest row {d.largest_rows[0].constraint} ({_num(d.largest_rows[0].value)}), "
                     f"smallest row {d.smallest_rows[0].constraint} ({_num(d.smallest_rows[0].value)})")
        lines.append(f"  largest column {d.largest_columns[0].variable} ({_num(d.largest_columns[0].value)}), "
                     f"smallest column {d.smallest_columns[0].variable} ({_num(d.smallest_columns[0].value)})")
    if d.rank_deficiency:
        lines.append(f"Dependent equations ({d.rank_deficiency}: the scaled equality Jacobian loses rank; "
                     "the KKT matrix is singular, the multipliers are not unique)")
        for dep in d.dependencies:
            shown = ", ".join(f"{c:+.3g}·{name}" for name, c in dep.rows[:3])
            more = f", … ({dep.n_rows} rows in all)" if dep.n_rows > 3 else ""
            if dep.n_rows == 0:
                lines.append(f"  {dep.equation}  has no free variable at all (a constant row)")
            else:
                lines.append(f"  {dep.equation}  ≈ {shown}{more}")
    elif d.scaled_condition_number is not None:
        lines.append("Dependent equations: none")
        if d.weakest_rows:
            lines.append("  weakest direction (smallest singular value): rows "
                         + ", ".join(name for name, _ in d.weakest_rows[:3])
                         + (("; variables " + ", ".join(name for name, _ in d.weakest_variables[:3]))
                            if d.weakest_variables else ""))
    for note in d.notes:
        lines.append(f"Note: {note}")
    if d.idaes:
        lines.append("idaes-pse DiagnosticsToolbox.report_structural_issues():")
        lines.append(d.idaes.rstrip())
    return "\n".join(lines)
