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

from __future__ import annotations

from typing import Any

import io
import math

import numpy as np

from ..errors import ConfigurationError
from .findings import Dependency, Diagnosis, JacobianEntry, Residual
from .jacobian import _dependencies, _dependent_rows, _jacobian, _norms, _scaled, _spectrum
from .residuals import _values_at, _violation, largest_residuals, residual_summary, solver_point

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


def diagnose(model: Any, results: Any = None, **kwds: Any) -> Diagnosis:
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


