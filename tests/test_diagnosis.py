"""pyomo_mbdyn.diagnosis: structure, residuals, conditioning and dependent equations by name.

The showcase (issue 18): the satellite with all nine reduced final-rest rows. The
model keeps the rotors' three; the main body's six are the total linear and angular
momentum, which the dynamics conserve, so with them the equality Jacobian loses rank
six (the KKT matrix is singular) — and the diagnosis must name those six rows.
"""

import json

import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.cli import main
from pyomo_mbdyn.diagnosis import diagnose, largest_residuals, residual_summary, solver_point
from pyomo_mbdyn.errors import ConfigurationError, SolveFailedError
from pyomo_mbdyn.models import satellite, sphere
from pyomo_mbdyn.ocp import solve

#: the main body's six reduced final-rest rows (velocities main.vx … main.wz, in this order)
MAIN_REST_ROWS = [f"ocp.final_rest[{i}]" for i in range(1, 7)]


def satellite_with_all_rest_rows():
    """The satellite model with its final rest stated on all nine velocities.

    ``satellite.build`` calls ``require_final_rest(drop=<the main body's six>)``;
    the rows are rebuilt here without ``drop`` (a second ``require_final_rest`` is
    refused, so the block's record of the first is reset)."""
    m = satellite.build()
    m.ocp.del_component(m.ocp.final_rest)
    m.ocp.final_rest = pyo.ConstraintList()
    m.dyn._final_rest_required = False
    m.problem.require_final_rest()
    assert len(m.ocp.final_rest) == 9
    return m


@pytest.fixture(scope="module")
def singular():
    return satellite_with_all_rest_rows()


@pytest.fixture(scope="module")
def healthy_report():
    return diagnose(satellite.build())


def test_healthy_satellite_has_no_dependent_equations(healthy_report):
    d = healthy_report
    assert (d.n_variables, d.n_equalities, d.n_inequalities, d.degrees_of_freedom) == (600, 456, 301, 144)
    assert d.rank_deficiency == 0 and d.dependent_equations == [] and d.dependencies == []
    assert d.n_overconstrained == (0, 0) and not d.structurally_singular and d.healthy
    assert d.smallest_singular_values[0] > 1e-5  # scaled: 6.7e-5 at the guess
    # the simulated guess moves without reaching the target orientation
    assert d.residuals[0].name == "ocp.final_orientation[3]"
    assert d.residuals[0].violation == pytest.approx(0.76036, rel=1e-4)
    assert "Dependent equations: none" in str(d)


def test_singular_satellite_names_the_six_final_rest_rows(singular):
    d = diagnose(singular)
    assert d.n_equalities == 462 and d.degrees_of_freedom == 138
    assert d.n_overconstrained == (0, 0)  # structurally fine: the defect is numerical
    assert d.rank_deficiency == 6
    assert d.dependent_equations == MAIN_REST_ROWS
    assert max(d.smallest_singular_values[:6]) < 1e-12
    assert d.smallest_singular_values[6] > 1e-6
    assert not d.healthy and d.scaled_condition_number > 1e12
    # each row completes the sum of the momentum rows of its own component, one per interval
    by_row = {dep.equation: dep for dep in d.dependencies}
    for row, component, n_rows in (("ocp.final_rest[1]", "main.vx", 50), ("ocp.final_rest[4]", "main.wx", 150)):
        dep = by_row[row]
        assert dep.n_rows == n_rows
        assert all(name.startswith("dyn.momentum_matching[") for name, _ in dep.rows)
    assert all(name.endswith("'main.vx']") for name, _ in by_row["ocp.final_rest[1]"].rows)
    text = str(d)
    assert "Dependent equations (6" in text and all(row in text for row in MAIN_REST_ROWS)
    data = json.loads(json.dumps(d.to_dict()))
    assert data["dependent_equations"] == MAIN_REST_ROWS and data["healthy"] is False


def test_sparse_path_names_the_same_rows(singular):
    d = diagnose(singular, dense_limit=0)
    assert d.dependent_equations == MAIN_REST_ROWS
    assert d.condition_number is None and any("sparse path" in note for note in d.notes)


def test_after_the_solve_the_rows_are_still_named(singular):
    """IPOPT copes (its regularisation of the singular KKT matrix); the rows stay redundant."""
    solve(singular, "casadi_ipopt")
    d = diagnose(singular)
    assert d.max_residual < 1e-6
    assert d.dependent_equations == MAIN_REST_ROWS


def test_contradictory_targets_diagnosed_at_the_solvers_final_point():
    m = sphere.build()
    m.problem.fix_final_position("sphere", sphere.TARGET + 1.0)  # a second target for the same point
    results = pyo.SolverFactory("casadi_ipopt").solve(m)
    assert str(results.solver.termination_condition) == "infeasible"
    assert solver_point(results) is not None
    d = diagnose(m, results=results)
    assert d.point == "the solver's final point"
    # IPOPT ends half-way between the two targets: 0.5 off each of the six rows
    assert {r.name for r in d.residuals[:6]} == {f"ocp.final_position[{i}]" for i in range(1, 7)}
    assert all(r.violation == pytest.approx(0.5, abs=1e-6) for r in d.residuals[:6])
    # the second target's rows repeat the first's Jacobian rows
    assert d.dependent_equations == ["ocp.final_position[4]", "ocp.final_position[5]", "ocp.final_position[6]"]
    assert d.dependencies[0].rows == [("ocp.final_position[1]", pytest.approx(1.0))]
    # the model keeps its values (nothing loaded after a failure)
    assert diagnose(m).point == "the current values"


def test_failed_solve_names_the_largest_residuals():
    m = sphere.build()
    m.problem.fix_final_position("sphere", sphere.TARGET + 1.0)
    with pytest.raises(SolveFailedError, match="infeasible") as info:
        solve(m, "casadi_ipopt")
    message = str(info.value)
    assert "Largest residuals at the solver's final point: ocp.final_position[" in message
    assert "(0.5)" in message and "pyomo-mbdyn diagnose" in message


def _toy():
    """x + y = 1, x − y = 0, x = 0.5 (consistent, one row too many) and a row on a fixed z."""
    m = pyo.ConcreteModel("toy")
    m.x, m.y = pyo.Var(initialize=0.0), pyo.Var(initialize=0.0)
    m.z = pyo.Var(initialize=2.0)
    m.z.fix()
    m.sum = pyo.Constraint(expr=m.x + m.y == 1)
    m.difference = pyo.Constraint(expr=m.x - m.y == 0)
    m.half = pyo.Constraint(expr=m.x == 0.5)
    m.fixed_row = pyo.Constraint(expr=m.z + 0 * m.x == 2)
    m.bound = pyo.Constraint(expr=m.x + 2 * m.y <= 4)
    return m


def test_overdetermined_toy_model():
    m = _toy()
    d = diagnose(m)
    assert d.degrees_of_freedom == -2 and not d.healthy
    assert d.n_overconstrained[1] == 4
    assert set(d.overconstrained_equations) == {"sum", "difference", "half", "fixed_row"}
    assert d.rank_deficiency == 2 and d.dependent_equations == ["half", "fixed_row"]
    by_row = {dep.equation: dep for dep in d.dependencies}
    assert by_row["fixed_row"].n_rows == 0  # no free variable at all
    coefficients = dict(by_row["half"].rows)  # x = ½ (x + y) + ½ (x − y), rows scaled to unit norm
    assert coefficients == {"sum": pytest.approx(2 ** -0.5), "difference": pytest.approx(2 ** -0.5)}
    assert [(r.name, r.violation) for r in d.residuals[:3]] == [("sum", 1.0), ("half", 0.5), ("difference", 0.0)]
    assert "constant row" in str(d)


def test_residuals_at_a_point_restore_the_values():
    m = _toy()
    point = [(m.x, 0.5), (m.y, 0.5)]
    assert largest_residuals(m, 1, point)[0].violation == 0.0
    assert m.x.value == 0.0 and m.y.value == 0.0
    assert largest_residuals(m, 1)[0].name == "sum"
    assert residual_summary(m) == ("Largest residuals at the model's current values (the solver returned "
                                   "no point): sum (1); half (0.5).")


def test_unknown_options_are_refused():
    with pytest.raises(ConfigurationError, match="diagnose"):
        diagnose(_toy(), tolerance=1e-3)


def test_cli_diagnose_json_and_text(capsys):
    assert main(["diagnose", "sphere", "--steps", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"] == "sphere" and out["status"] == "ok" and out["scheme"] == "dmocc"
    assert out["diagnosis"]["dependent_equations"] == [] and out["diagnosis"]["healthy"] is True
    assert out["diagnosis"]["degrees_of_freedom"] == 108
    assert main(["diagnose", "sphere", "--steps", "20", "--solve"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("solve (casadi_ipopt): optimal")
    assert "Diagnosis of model 'sphere'" in text and "Dependent equations: none" in text


def test_cli_diagnose_bad_request_is_one_json_object(capsys):
    assert main(["diagnose", "no-such-model", "--json"]) == 2
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["status"] == "error" and "unknown model" in out["error"]
    assert main(["diagnose", "sphere", "--set", "colour=1", "--json"]) == 2
    assert "no option 'colour'" in json.loads(capsys.readouterr().out)["error"]


def test_idaes_structural_report_when_installed():
    pytest.importorskip("idaes")
    d = diagnose(_toy(), idaes=True)
    assert "Structural singularity found" in d.idaes and "Degree" in d.idaes
    assert "idaes-pse DiagnosticsToolbox" in str(d)
