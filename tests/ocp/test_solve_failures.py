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


def test_half_turn_exclusion_keeps_the_target_and_removes_half_turns():
    """skew(R_tᵀR) = 0 also holds at R = R_t·(π about any axis); tr(R_tᵀR) ≥ 1 excludes
    exactly those, and is inactive (= 3) at the target."""
    import numpy as np
    import pyomo.environ as pyo

    from pyomo_mbdyn.mechanics.linalg import rotation_exp

    m = sphere.build(configurations="lifted")  # q_N as variables
    axis = np.array([1.0, 2.0, 3.0]) / np.sqrt(14)
    R_t = np.asarray(rotation_exp(0.7 * axis), float)
    rows_before = len(m.ocp.final_orientation)
    m.problem.fix_final_orientation("sphere", R_t, exclude_half_turns=True)
    trace_row = m.ocp.final_orientation[rows_before + 4]
    assert trace_row.lower == 1.0 and trace_row.upper is None
    N = m.dyn.config.steps
    body = m.dyn.body["sphere"]

    def value_at(R):
        # evaluate the row's body at R_N = R without touching the model's state
        values = {id(body.q[N, f"d{j + 1}{c}"]): R[i, j] for j in range(3) for i, c in enumerate("xyz")}
        from pyomo.core.expr.visitor import replace_expressions

        return pyo.value(replace_expressions(trace_row.body, values))

    half_turn = np.asarray(rotation_exp(np.pi * np.array([0.0, 0.6, 0.8])), float)
    assert abs(value_at(R_t) - 3.0) < 1e-12
    assert abs(value_at(R_t @ half_turn) + 1.0) < 1e-12
