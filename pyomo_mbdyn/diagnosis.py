"""Diagnosis of a built model: structure, residuals, conditioning, dependent equations.

:func:`diagnose` answers the question a failed (or suspiciously slow) solve
leaves: *what is wrong with the equations?*  It reads a built Pyomo model at
its current values (the guess, or a point a solver returned) and never changes
it.  What it computes, and why:

* **Degrees of freedom** — free variables in the active rows minus active
  equality rows.  Negative: over-determined, no solver can satisfy every row.
* **Structure** — the Dulmage–Mendelsohn partition
  (:func:`pyomo.contrib.incidence_analysis.dulmage_mendelsohn.dulmage_mendelsohn`)
  of the incidence of the equality rows in the free variables: the
  *over-constrained* set (more equations than the variables they contain — a
  condition stated twice, a row left without free variables) and the
  *under-constrained* set (variables the equations do not determine — for an
  optimal-control problem these are its degrees of freedom and expected).  The
  structure says nothing about the values: rows can be structurally fine and
  numerically dependent (the case below).
* **Residuals** — the rows violated most at the point, by their Pyomo names,
  which the scheme blocks build from bodies, joints and nodes
  (``dyn.momentum_balance[3,'link1.d1x']``, ``ocp.final_rest[1]``).
* **The Jacobian of the equality rows** at the point, from the library's CasADi
  translation (:mod:`pyomo_mbdyn.solvers.pyomo_to_casadi`; Pyomo's own
  derivative tools walk the deeply shared expressions of the DMOCC charts as
  trees and take minutes): its condition number, raw and with rows and columns
  scaled to unit 2-norm, the extreme entries, rows and columns by name.
* **Dependent equations** — the key finding.  The left singular vectors of the
  scaled equality Jacobian whose singular values vanish (``σ/σ_max <
  rank_tol``) span the combinations of rows that cancel: there the KKT matrix is
  singular, the multipliers are not unique (LICQ fails), and IPOPT must
  regularise or stalls.  Every row with weight in those vectors takes part, but
  one row per independent combination is redundant; of the rows involved the
  ones stated *last* in the model (component order) are named, because the
  scheme's dynamics, stated first, are independent by construction (for fixed
  controls they are the square system of a forward simulation), so the blame
  falls on the conditions added on top of them.  For each named row the
  combination it completes is listed (its other rows and coefficients, in the
  scaled Jacobian's terms).

Example — the satellite with all nine reduced final-rest rows (the model keeps
the rotors' three; the main body's six are the total momenta, conserved by the
dynamics): the structure is clean, the scaled Jacobian has six singular values
at round-off (1e-15 against 1.4e-4 for the next), and the dependent equations
are ``ocp.final_rest[1]`` … ``ocp.final_rest[6]``: each linear one the sum of the
50 ``dyn.momentum_matching[k, 'main.v…']`` rows of its component, each angular
one a combination of the 150 ``dyn.momentum_matching[k, 'main.w…']`` rows.

The SVD is dense up to ``dense_limit`` equality rows; larger models use the
``max_null`` smallest singular triplets, from the smallest eigenpairs of ``J Jᵀ``
(shift-invert ARPACK) refined by a Rayleigh–Ritz step on ``J`` itself (the
three-link arm at N = 80: the same σ as the dense SVD to ten digits, in 1 s
instead of 20).

IDAES: ``idaes=True`` adds the text of idaes-pse's
``DiagnosticsToolbox.report_structural_issues()`` (units, bounds, potential
evaluation errors; ``pip install 'pyomo_mbdyn[diagnostics]'``).  It walks every
expression as a tree and takes minutes on the DMOCC models (six on the
satellite).  IDAES's numerical tools (``report_numerical_issues``,
``DegeneracyHunter``) need PyNumero's ASL library from ``idaes get-extensions``
(and DegeneracyHunter a MILP solver, SCIP): not available from a ``pip install``,
which is why the numerical part here is computed by the library itself.
"""

import contextlib
import io
import math
from dataclasses import asdict, dataclass, field

import numpy as np

from .errors import ConfigurationError
from .solvers.evaluation import expression_value

__all__ = [
    "CONFIG",
    "Dependency",
    "Diagnosis",
    "JacobianEntry",
    "Residual",
    "diagnose",
    "largest_residuals",
    "residual_summary",
    "solver_point",
]


def _config():
    from pyomo.common.config import (
        ConfigDict,
        ConfigValue,
        NonNegativeInt,
        PositiveFloat,
        PositiveInt,
    )

    config = ConfigDict("diagnose", implicit=False)
    config.declare("top", ConfigValue(default=10, domain=PositiveInt,
                                      description="How many residuals, entries, rows and columns to list"))
    config.declare("rank_tol", ConfigValue(default=1e-8, domain=PositiveFloat,
                                           description="σ/σ_max of the scaled equality Jacobian below which "
                                                       "a singular value counts as zero"))
    config.declare("weight_tol", ConfigValue(default=1e-6, domain=PositiveFloat,
                                             description="Weight below which a row takes no part in a "
                                                         "near-null combination"))
    config.declare("dense_limit", ConfigValue(default=500, domain=NonNegativeInt,
                                              description="Largest number of equality rows for the dense SVD"))
    config.declare("max_null", ConfigValue(default=30, domain=PositiveInt,
                                           description="Smallest singular values computed on the sparse path"))
    config.declare("large", ConfigValue(default=1e4, domain=PositiveFloat,
                                        description="|J_ij| from which a Jacobian entry counts as large"))
    config.declare("small", ConfigValue(default=1e-4, domain=PositiveFloat,
                                        description="|J_ij| up to which a nonzero entry counts as small"))
    config.declare("zero", ConfigValue(default=1e-10, domain=PositiveFloat,
                                       description="|J_ij| below which an entry counts as zero"))
    config.declare("names", ConfigValue(default=20, domain=PositiveInt,
                                        description="How many names of a structural set to keep"))
    config.declare("idaes", ConfigValue(default=False, domain=bool,
                                        description="Add idaes-pse's structural report (slow on DMOCC models)"))
    return config


#: the tolerances and limits of :func:`diagnose` (a Pyomo ConfigDict; keywords of ``diagnose``)
CONFIG = _config()


# ----------------------------------------------------------------------------- results
@dataclass
class Residual:
    """A row at the point: ``lower ≤ body ≤ upper`` violated by ``violation``.

    Examples
    --------
    >>> import pyomo.environ as pyo
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
    lower: float = None
    upper: float = None
    violation: float = 0.0


@dataclass
class JacobianEntry:
    """``∂ constraint / ∂ variable = value``; ``variable`` None for a row's norm,
    ``constraint`` None for a column's norm.

    Examples
    --------
    >>> import pyomo.environ as pyo
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
    condition_number: float = None
    scaled_condition_number: float = None
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
    idaes: str = None

    @property
    def structurally_singular(self):
        """Over-constrained rows, or (a square system) under-constrained variables."""
        return bool(self.n_overconstrained[1]) or (self.degrees_of_freedom == 0 and bool(self.n_underconstrained[0]))

    @property
    def healthy(self):
        """No structural singularity, no dependent equations, a finite Jacobian."""
        return not (self.structurally_singular or self.rank_deficiency or self.nonfinite_entries
                    or self.degrees_of_freedom < 0)

    def to_dict(self):
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


# ------------------------------------------------------------------ residuals (Pyomo)
def _evaluate(expr, memo):
    """The value of a Pyomo expression, every shared subexpression once (``memo``
    shared across rows), NaN where a value is missing or an operation fails."""
    return expression_value(expr, memo, failures="nan")


def _violation(body, lower, upper):
    if body is None or not math.isfinite(body):
        return math.inf
    below = lower - body if lower is not None else 0.0
    above = body - upper if upper is not None else 0.0
    return max(below, above, 0.0)


def solver_point(results):
    """``[(variable, value)]`` of the point a solver returned in ``results`` without
    loading it (Pyomo keeps it there when ``load_solutions`` was off — the library's
    plugins after ``infeasible``), or None when ``results`` carries no point.

    Examples
    --------
    >>> import pyomo.environ as pyo
    >>> m = pyo.ConcreteModel("twice")        # one condition stated twice
    >>> m.x = pyo.Var(initialize=0.0)
    >>> m.y = pyo.Var(initialize=0.0)
    >>> m.once = pyo.Constraint(expr=m.x + m.y == 1)
    >>> m.again = pyo.Constraint(expr=2 * m.x + 2 * m.y == 2)
    >>> m.cost = pyo.Objective(expr=m.x ** 2 + m.y ** 2)
    >>> from pyomo_mbdyn import get_solver
    >>> results = get_solver("casadi_ipopt").solve(m, load_solutions=False)
    >>> [(var.name, round(value, 6)) for var, value in solver_point(results)]
    [('x', 0.5), ('y', 0.5)]
    >>> m.x.value                                  # the model keeps its values
    0.0
    """
    smap = getattr(results, "_smap", None)
    try:
        if smap is None or len(results.solution) == 0:
            return None
        variables = results.solution(0).variable
    except (AttributeError, IndexError, KeyError):
        return None
    point = []
    for label, data in variables.items():
        var = smap.bySymbol.get(label)
        if var is not None and data.get("Value") is not None:
            point.append((var, float(data["Value"])))
    return point or None


@contextlib.contextmanager
def _values_at(point):
    """Set the variables of ``point`` (``[(var, value)]``) for the duration, then restore them."""
    if not point:
        yield
        return
    saved = [(var, var.value) for var, _ in point]
    try:
        for var, value in point:
            var.set_value(value, skip_validation=True)
        yield
    finally:
        for var, value in saved:
            var.set_value(value, skip_validation=True)


def largest_residuals(model, k=5, point=None):
    """The ``k`` active constraints of ``model`` violated most, as :class:`Residual`, largest first.

    Evaluated in Pyomo at the variables' current values, or at ``point``
    (``[(var, value)]``, e.g. :func:`solver_point`; the model's values are
    restored).  Every shared subexpression is evaluated once, so this is cheap
    even for the DMOCC charts (no Jacobian, no CasADi).  A row that cannot be
    evaluated (a missing value, log of a negative) counts as violated by ``inf``.

    Examples
    --------
    >>> import pyomo.environ as pyo
    >>> m = pyo.ConcreteModel("twice")        # one condition stated twice
    >>> m.x = pyo.Var(initialize=0.0)
    >>> m.y = pyo.Var(initialize=0.0)
    >>> m.once = pyo.Constraint(expr=m.x + m.y == 1)
    >>> m.again = pyo.Constraint(expr=2 * m.x + 2 * m.y == 2)
    >>> m.cost = pyo.Objective(expr=m.x ** 2 + m.y ** 2)
    >>> [(r.name, r.violation) for r in largest_residuals(m)]
    [('again', 2.0), ('once', 1.0)]
    >>> m.x.value = 1.0
    >>> [(r.name, r.violation) for r in largest_residuals(m)]
    [('once', 0.0), ('again', 0.0)]
    """
    import pyomo.environ as pyo

    rows = []
    with _values_at(point):
        memo = {}
        for con in model.component_data_objects(pyo.Constraint, active=True, descend_into=True):
            lower, upper = _float(con.lb), _float(con.ub)
            body = float(_evaluate(con.body, memo))
            rows.append(Residual(con.name, body, lower, upper, float(_violation(body, lower, upper))))
    rows.sort(key=lambda r: -r.violation)
    return rows[:k]


def residual_summary(model, results=None, k=5):
    """One sentence naming the ``k`` largest residuals, for a failed solve's message:
    at the point ``results`` carries (:func:`solver_point`) when there is one, else at
    the model's current values.  Returns '' when nothing is violated.

    Examples
    --------
    >>> import pyomo.environ as pyo
    >>> m = pyo.ConcreteModel("twice")        # one condition stated twice
    >>> m.x = pyo.Var(initialize=0.0)
    >>> m.y = pyo.Var(initialize=0.0)
    >>> m.once = pyo.Constraint(expr=m.x + m.y == 1)
    >>> m.again = pyo.Constraint(expr=2 * m.x + 2 * m.y == 2)
    >>> m.cost = pyo.Objective(expr=m.x ** 2 + m.y ** 2)
    >>> residual_summary(m, k=2)
    "Largest residuals at the model's current values (the solver returned no point): again (2); once (1)."
    """
    point = solver_point(results) if results is not None else None
    rows = [r for r in largest_residuals(model, k, point) if r.violation > 0]
    if not rows:
        return ""
    status = str(getattr(getattr(results, "solver", None), "termination_condition", ""))
    if point is not None:
        where = "at the solver's final point"
    elif status in ("maxIterations", "maxTimeLimit"):  # Pyomo loads the last iterate at a limit
        where = "at the solver's last iterate"
    else:
        where = "at the model's current values (the solver returned no point)"
    listed = "; ".join(f"{r.name} ({_num(r.violation)})" for r in rows)
    return f"Largest residuals {where}: {listed}."


# ----------------------------------------------------------------- Jacobian (CasADi)
def _jacobian(model):
    """``(constraints, variables, J (csr), g, lbg, ubg)`` of the active rows at the
    variables' current values (None → 0), rows in the model's component order."""
    import casadi as ca
    import pyomo.environ as pyo
    import scipy.sparse as sp

    from .solvers.pyomo_to_casadi import translate

    objectives = [o for o in model.component_data_objects(pyo.Objective, active=True, descend_into=True)]
    for o in objectives:  # not needed here, and at most one may be active for the translation
        o.deactivate()
    try:
        nlp = translate(model, "diagnose", structured=True)
    finally:
        for o in objectives:
            o.activate()
    jac_g = nlp.extras.get("functions", {}).get("jac_g")
    if jac_g is not None:  # mapped step Functions: their derivatives are assembled per step
        g, J = jac_g(nlp.x0, [])
    else:
        J, g = ca.Function("diagnose", [nlp.x], [ca.jacobian(nlp.g, nlp.x), nlp.g])(nlp.x0)
    J = sp.csc_matrix(J.sparse() if hasattr(J, "sparse") else np.asarray(J)).tocsr()
    g = np.asarray(g, float).ravel()
    position = {id(c): i for i, c in enumerate(
        model.component_data_objects(pyo.Constraint, active=True, descend_into=True))}
    order = np.argsort([position[id(c)] for c in nlp.constraints], kind="stable")
    constraints = [nlp.constraints[i] for i in order]
    return constraints, nlp.variables, J[order], g[order], nlp.lbg[order], nlp.ubg[order]


def _norms(A, axis):
    import scipy.sparse as sp

    return np.sqrt(np.asarray(sp.csr_matrix(A).multiply(A).sum(axis=axis), float).ravel())


def _scaled(A):
    """``D_r⁻¹ A D_c⁻¹`` with rows, then columns, of unit 2-norm (zero norms left alone)."""
    import scipy.sparse as sp

    r = _norms(A, 1)
    r[r == 0] = 1.0
    S = sp.diags(1.0 / r) @ A
    c = _norms(S, 0)
    c[c == 0] = 1.0
    return (S @ sp.diags(1.0 / c)).tocsr()


def _dense_svd(A, full):
    import scipy.linalg as la

    try:
        return la.svd(A, full_matrices=full, lapack_driver="gesdd")
    except la.LinAlgError:  # gesdd may not converge where gesvd does
        return la.svd(A, full_matrices=full, lapack_driver="gesvd")


def _spectrum(S, config, k=None):
    """``(σ_max, σ ascending, U, v)`` of ``S`` (m × n): every singular value (dense,
    up to ``dense_limit`` rows), or the ``k`` (default ``max_null``) smallest (sparse);
    the columns of ``U`` are the left singular vectors of the listed σ (with the left
    null space beyond n when m > n), ``v`` the right singular vector of the smallest σ.

    Sparse path: the smallest eigenpairs of ``S Sᵀ`` by shift-invert Lanczos
    (ARPACK), then a Rayleigh–Ritz step in that subspace — the SVD of the small
    ``Sᵀ U`` — so that σ is computed from ``S`` itself, not squared (to about
    1e-12 σ_max instead of 1e-8)."""
    import scipy.linalg as la
    import scipy.sparse.linalg as spla

    m, n = S.shape
    k = config.max_null if k is None else k
    if m <= config.dense_limit or m <= k + 1:
        U, s, Vt = _dense_svd(S.toarray(), full=m > n)
        v = Vt[len(s) - 1] if len(s) else None
        s = np.concatenate([s, np.zeros(m - len(s))])  # m > n: the left null space beyond n
        return (s[0] if len(s) else 0.0), s[::-1], U[:, ::-1], v
    s_max = spla.svds(S, k=1, return_singular_vectors=False)[0]
    start = np.random.default_rng(0).standard_normal(m)  # reproducible, and in no subspace's complement
    _, U = spla.eigsh((S @ S.T).tocsc(), k=k, sigma=-1e-10 * s_max ** 2, which="LM", v0=start)
    P, s, Qt = la.svd(np.asarray(S.T @ U), full_matrices=False)
    order = np.argsort(s)
    return s_max, s[order], U @ Qt.T[:, order], P[:, order[0]]


def _dependent_rows(U0, weight_tol):
    """Indices of the rows to name as dependent: one per column of ``U0`` (an
    orthonormal basis of the vanishing row combinations), chosen greedily from the
    last row backwards — the latest-stated rows whose weights are independent."""
    d = U0.shape[1]
    chosen, basis = [], np.zeros((0, d))
    for i in range(U0.shape[0] - 1, -1, -1):
        w = U0[i]
        r = w - basis.T @ (basis @ w)
        norm = np.linalg.norm(r)
        if norm > max(weight_tol, 1e-3 * np.linalg.norm(w)) and np.linalg.norm(w) > weight_tol:
            chosen.append(i)
            basis = np.vstack([basis, r / norm])
            if len(chosen) == d:
                break
    return chosen


def _dependencies(U0, chosen, names, weight_tol, top):
    """For each chosen row j, the vanishing combination with coefficient 1 on j and 0
    on the other chosen rows (``C = U0 · U0[chosen]⁺``), as ``row_j ≈ Σ c_i row_i``."""
    if not chosen:
        return []
    C = U0 @ np.linalg.pinv(U0[chosen])
    found = []
    for a, j in enumerate(chosen):
        col = -C[:, a] / C[j, a]
        scale = np.abs(col).max()
        others = [i for i in np.argsort(-np.abs(col), kind="stable")
                  if i != j and abs(col[i]) > weight_tol * scale]
        found.append(Dependency(names[j], len(others), [(names[i], float(col[i])) for i in others[:top]]))
    return found


# ------------------------------------------------------------------------------ diagnose
def diagnose(model, results=None, **kwds):
    """Diagnose ``model`` at its current values (or at the point ``results`` carries).

    Parameters
    ----------
    model : a built Pyomo model (or block); read, never changed
    results : SolverResults of a failed solve, optional — evaluate at the point
        the solver returned there (:func:`solver_point`) without loading it
    **kwds : tolerances and limits, see :data:`CONFIG` (``top``, ``rank_tol``,
        ``weight_tol``, ``dense_limit``, ``max_null``, ``large``, ``small``,
        ``zero``, ``names``, ``idaes``)

    Returns
    -------
    Diagnosis
        ``str(d)`` is the report; ``d.dependent_equations`` the rows to drop
        (or to state otherwise), ``d.to_dict()`` the JSON form.

    See the module docstring for what is computed and why.

    Examples
    --------
    >>> import pyomo.environ as pyo
    >>> m = pyo.ConcreteModel("twice")        # one condition stated twice
    >>> m.x = pyo.Var(initialize=0.0)
    >>> m.y = pyo.Var(initialize=0.0)
    >>> m.once = pyo.Constraint(expr=m.x + m.y == 1)
    >>> m.again = pyo.Constraint(expr=2 * m.x + 2 * m.y == 2)
    >>> m.cost = pyo.Objective(expr=m.x ** 2 + m.y ** 2)
    >>> d = diagnose(m)
    >>> d.n_variables, d.n_equalities, d.degrees_of_freedom
    (2, 2, 0)
    >>> d.structurally_singular, d.rank_deficiency, d.dependent_equations
    (False, 1, ['again'])
    """
    try:
        config = CONFIG(kwds)
    except (ValueError, TypeError) as err:
        raise ConfigurationError(f"diagnose: {err}") from None
    point = solver_point(results) if results is not None else None
    with _values_at(point):
        report = _diagnose(model, config)
        if point is not None:
            report.point = "the solver's final point"
        if config.idaes:
            report.idaes = _idaes_report(model)
    return report


def _diagnose(model, config):
    import scipy.sparse as sp
    from pyomo.contrib.incidence_analysis.dulmage_mendelsohn import dulmage_mendelsohn

    notes, top = [], config.top
    constraints, variables, J, g, lbg, ubg = _jacobian(model)
    names = [c.name for c in constraints]
    vnames = [v.name for v in variables]
    unset = sum(1 for v in variables if v.value is None)
    if unset:
        notes.append(f"{unset} variables have no value; evaluated at 0")
    equality = np.isfinite(lbg) & (lbg == ubg)
    eq_rows = np.flatnonzero(equality)
    eq_names = [names[i] for i in eq_rows]
    A = J[eq_rows]
    m, n = A.shape

    # structure: Dulmage–Mendelsohn partition of the equality rows' incidence
    structural = A.tocoo()  # CasADi's structural nonzeros, a value 0 at this point included
    pattern = sp.coo_matrix((np.ones(structural.nnz), (structural.row, structural.col)), shape=A.shape)
    rdm, cdm = dulmage_mendelsohn(pattern)
    over_eq = list(rdm.overconstrained) + list(rdm.unmatched)
    under_var = list(cdm.unmatched) + list(cdm.underconstrained)
    limit = config.names

    # residuals at the point
    viol = np.array([_violation(gi, None if not math.isfinite(lo) else lo, None if not math.isfinite(up) else up)
                     for gi, lo, up in zip(g, lbg, ubg)])
    residuals = [Residual(names[i], float(g[i]), _bound(lbg[i]), _bound(ubg[i]), float(viol[i]))
                 for i in np.argsort(-viol, kind="stable")[:top]]

    report = Diagnosis(
        model=model.name, point="the current values", n_variables=len(variables), n_equalities=m,
        n_inequalities=len(constraints) - m, degrees_of_freedom=len(variables) - m,
        overconstrained_variables=[vnames[j] for j in cdm.overconstrained][:limit],
        overconstrained_equations=[eq_names[i] for i in over_eq][:limit],
        underconstrained_variables=[vnames[j] for j in under_var][:limit],
        underconstrained_equations=[eq_names[i] for i in rdm.underconstrained][:limit],
        n_overconstrained=(len(cdm.overconstrained), len(over_eq)),
        n_underconstrained=(len(under_var), len(rdm.underconstrained)),
        residuals=residuals, max_residual=float(viol.max()) if len(viol) else 0.0,
        jacobian_shape=(m, n), notes=notes)

    # extreme entries, rows and columns of the whole Jacobian (raw)
    Jc = J.tocoo()
    finite = np.isfinite(Jc.data)
    if not finite.all():
        bad = np.flatnonzero(~finite)[:top]
        report.nonfinite_entries = [JacobianEntry(names[Jc.row[i]], vnames[Jc.col[i]], float(Jc.data[i]))
                                    for i in bad]
        notes.append(f"{int((~finite).sum())} Jacobian entries are not finite at the point: "
                     "no conditioning or rank analysis")
        return report
    mag = np.abs(Jc.data)
    nonzero = np.flatnonzero(mag > config.zero)

    def entry(i):
        return JacobianEntry(names[Jc.row[i]], vnames[Jc.col[i]], float(Jc.data[i]))

    report.largest_entries = [entry(i) for i in nonzero[np.argsort(-mag[nonzero], kind="stable")][:top]]
    report.smallest_entries = [entry(i) for i in nonzero[np.argsort(mag[nonzero], kind="stable")][:top]]
    report.n_large_entries = int((mag >= config.large).sum())
    report.n_small_entries = int(((mag > config.zero) & (mag <= config.small)).sum())
    rn, cn = _norms(J, 1), _norms(J, 0)
    report.largest_rows = [JacobianEntry(names[i], None, float(rn[i])) for i in np.argsort(-rn, kind="stable")[:top]]
    report.smallest_rows = [JacobianEntry(names[i], None, float(rn[i])) for i in np.argsort(rn, kind="stable")[:top]]
    report.largest_columns = [JacobianEntry(None, vnames[j], float(cn[j]))
                              for j in np.argsort(-cn, kind="stable")[:top]]
    report.smallest_columns = [JacobianEntry(None, vnames[j], float(cn[j]))
                               for j in np.argsort(cn, kind="stable")[:top]]
    if m == 0:
        return report

    # conditioning and dependent equations: SVD of the scaled equality Jacobian
    S = _scaled(A)
    sparse = m > config.dense_limit
    if sparse:
        notes.append(f"sparse path ({m} equality rows > dense_limit {config.dense_limit}): the "
                     f"{min(config.max_null, m - 1)} smallest singular values (ARPACK), of the scaled "
                     "Jacobian only")
    try:
        s_max, s, U, v = _spectrum(S, config)
    except (np.linalg.LinAlgError, ArithmeticError, RuntimeError) as err:  # ARPACK's errors are RuntimeErrors
        notes.append(f"no singular values: {type(err).__name__}: {err} (try dense_limit={m})")
        return report
    if s_max == 0:
        notes.append("the equality Jacobian is zero at the point")
        return report
    rel = s / s_max
    report.smallest_singular_values = [float(x) for x in rel[:top]]
    report.scaled_condition_number = float(s_max / s[0]) if s[0] > 0 else math.inf
    if not sparse:  # unscaled, the smallest σ is out of ARPACK's reach (σ_min² ≪ ε σ_max²)
        import scipy.linalg as la

        raw = la.svdvals(A.toarray())
        raw = np.concatenate([raw, np.zeros(m - len(raw))])
        report.condition_number = float(raw[0] / raw[-1]) if raw[-1] > 0 else math.inf
    d = int((rel < config.rank_tol).sum())
    if sparse and d == len(rel):
        notes.append(f"all {d} computed singular values vanish: raise max_null to see the whole null space")
    report.rank_deficiency = d
    weak = U[:, :max(d, 1)]
    weight = np.linalg.norm(weak, axis=1)
    report.weakest_rows = [(eq_names[i], float(weight[i])) for i in np.argsort(-weight, kind="stable")[:top]]
    if v is not None:  # the right singular vector of the smallest σ: which variables move
        v = np.abs(v)
        report.weakest_variables = [(vnames[j], float(v[j])) for j in np.argsort(-v, kind="stable")[:top]]
    if d:
        U0 = U[:, :d]
        chosen = sorted(_dependent_rows(U0, config.weight_tol))
        report.dependent_equations = [eq_names[i] for i in chosen]
        report.dependencies = _dependencies(U0, chosen, eq_names, config.weight_tol, top)
    return report


def _bound(value):
    return float(value) if math.isfinite(value) else None


def _float(value):
    return None if value is None else float(value)


def _idaes_report(model):
    """idaes-pse's ``report_structural_issues()`` as text."""
    try:
        from idaes.core.util.diagnostics_tools.diagnostics_toolbox import (
            DiagnosticsToolbox,
        )
    except ImportError:
        try:
            from idaes.core.util.model_diagnostics import DiagnosticsToolbox
        except ImportError:
            raise ConfigurationError("diagnose(idaes=True) needs idaes-pse: "
                                     "pip install 'pyomo_mbdyn[diagnostics]'") from None
    stream = io.StringIO()
    DiagnosticsToolbox(model).report_structural_issues(stream=stream)
    return stream.getvalue()


# ------------------------------------------------------------------------------ report
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
