"""`pyomo-mbdyn run MODEL --json` prints one object with the contract fields (ARCHITECTURE.md)."""

import importlib
import json

import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.cli import main
from pyomo_mbdyn.models import MODELS

CONTRACT = ("model", "scheme", "steps", "solver", "status", "objective", "n_variables",
            "n_constraints", "n_equalities", "n_inequalities", "iterations", "build_seconds",
            "solve_seconds", "constraint_residual", "horizon")
#: coarse grids keep the default run short (the other models run at their own N,
#: every model in seconds); the slow set runs these three at their own N
QUICK = {"three-link-arm": 10, "crane": 20, "pitcher": 8}


def _run_json(name, argv, capsys):
    code = main(argv)
    result = json.loads(capsys.readouterr().out)
    assert code == 0, result
    missing = [key for key in CONTRACT if key not in result]
    assert not missing, missing
    assert result["model"] == name and result["status"] in ("optimal", "locallyOptimal")
    assert result["n_variables"] > 0 and result["n_constraints"] > 0
    assert result["n_equalities"] + result["n_inequalities"] == result["n_constraints"]
    assert result["constraint_residual"] < 1e-6
    module = importlib.import_module(MODELS[name])
    if hasattr(module, "HORIZON"):
        assert result["horizon"] == pytest.approx(module.HORIZON, rel=1e-12)
    return result


def test_satellite_counts_its_rows_as_the_model_says(capsys):
    """The underactuated satellite's docstring counts 500 unknowns, 405 equations and
    251 inequalities (250 increment bounds, the trace row) at N = 50."""
    result = _run_json("satellite-underactuated", ["run", "satellite-underactuated", "--json"], capsys)
    assert (result["n_variables"], result["n_equalities"], result["n_inequalities"]) == (500, 405, 251)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_run_json_carries_the_contract_fields(name, capsys):
    argv = ["run", name, "--json"]
    if name in QUICK:
        argv += ["--steps", str(QUICK[name])]
    result = _run_json(name, argv, capsys)
    if name in QUICK:
        assert result["steps"] == QUICK[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(QUICK))
def test_run_json_at_the_models_own_steps(name, capsys):
    result = _run_json(name, ["run", name, "--json"], capsys)
    assert result["steps"] == importlib.import_module(MODELS[name]).STEPS
