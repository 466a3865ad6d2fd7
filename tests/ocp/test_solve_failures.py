"""Requests that cannot be solved end with a clear message and a non-zero exit status."""

import json

import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.cli import main
from pyomo_mbdyn.errors import MbdynError, SolveFailedError
from pyomo_mbdyn.models import sphere
from pyomo_mbdyn.ocp import solve


def test_contradictory_final_positions_are_reported_as_infeasible():
    m = sphere.build()
    m.problem.fix_final_position("sphere", sphere.TARGET + 1.0)  # a second, different target
    with pytest.raises(SolveFailedError, match="infeasible") as info:
        solve(m, "casadi_ipopt")
    assert info.value.status == "infeasible"
    assert "final conditions" in str(info.value)  # says what to check


def test_too_few_steps_are_caught_before_solving(capsys):
    """One step cannot bring the arm to rest at its target: more equations than unknowns."""
    assert main(["run", "three-link-arm", "--steps", "1"]) == 1
    err = capsys.readouterr().err
    assert "equality constraints but only" in err and "too few" in err
    assert "Traceback" not in err


def test_failure_in_json_mode_is_one_object(capsys):
    assert main(["run", "three-link-arm", "--steps", "1", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "infeasible" and out["model"] == "three-link-arm"
    assert "over-determine" in out["error"]


def test_solver_iteration_limit_reports_status_and_advice():
    m = sphere.build()
    with pytest.raises(SolveFailedError) as info:
        solve(m, "casadi_ipopt", options={"max_iter": 2})
    assert info.value.status == "maxIterations"
    assert "max_iter" in str(info.value)
    assert isinstance(info.value, MbdynError) and isinstance(info.value, RuntimeError)


def test_unknown_model_and_bad_options_exit_cleanly(capsys):
    assert main(["run", "no-such-model"]) == 2
    assert "unknown model" in capsys.readouterr().err
    assert main(["run", "three-link-arm", "--scheme", "quaternion"]) == 2
    assert "not offered" in capsys.readouterr().err
