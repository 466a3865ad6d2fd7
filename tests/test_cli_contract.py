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
QUICK = {"three-link-arm": 10, "crane": 20, "pitcher": 8, "panda": 20, "ur5": 20, "space-robot": 4}


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
    if hasattr(module, "HORIZON_BOUNDS"):  # free final time: the T reached, within its bounds
        lower, upper = module.HORIZON_BOUNDS
        assert lower <= result["horizon"] <= upper
    elif hasattr(module, "HORIZON"):
        assert result["horizon"] == pytest.approx(module.HORIZON, rel=1e-12)
    return result


def test_pitcher_counts_as_the_paper(capsys):
    """DMOCC Remark 7.4: 361 unknowns including T and 180 equality rows (N = 36); T is free."""
    result = _run_json("pitcher", ["run", "pitcher", "--json"], capsys)
    assert (result["n_variables"], result["n_equalities"], result["n_inequalities"]) == (361, 180, 2)
    assert result["final_time"] == result["horizon"] != pytest.approx(0.415)


def test_minimum_time_mass_reaches_the_closed_form_time(capsys):
    argv = ["run", "minimum-time-mass", "--scheme", "dmocc", "--set", "distance=6", "--set", "force_limit=1.5",
            "--json"]
    result = _run_json("minimum-time-mass", argv, capsys)
    assert result["exact_horizon"] == pytest.approx(2 * (2.0 * 6 / 1.5) ** 0.5, rel=1e-14)
    assert abs(result["horizon"] - result["exact_horizon"]) < 1e-6


def test_set_rejects_unknown_options_by_name(capsys):
    assert main(["run", "minimum-time-mass", "--set", "velocity=3"]) == 2
    err = capsys.readouterr().err
    assert "no option 'velocity'" in err and "'distance'" in err
    assert main(["run", "minimum-time-mass", "--set", "=3"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err


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


def test_actuator_selection_reports_the_kept_motors(capsys):
    result = _run_json("satellite-actuator-selection", ["run", "satellite-actuator-selection", "--json"], capsys)
    assert result["solver"] == "casadi_bonmin"  # chosen for the binaries
    assert len(result["active_actuators"]) == 2
    assert set(result["active_actuators"]) <= {"axle1.angle", "axle2.angle", "axle3.angle"}


#: bad requests on every path: (argv, what the error names)
BAD_REQUESTS = [
    (["run", "no-such-model"], "unknown model 'no-such-model'"),
    (["run", "particle", "--steps", "ten"], "invalid number value: 'ten'"),
    (["run", "particle", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    (["run"], "the following arguments are required: model"),
    (["run", "minimum-time-mass", "--set", "distance"], "KEY=VALUE"),
    (["run", "minimum-time-mass", "--set", "mass=-2"], "mass"),
    (["run", "minimum-time-mass", "--scheme", "euler"], "euler"),
    (["sweep", "particle", "--steps", "10,x"], "--steps '10,x'"),
    (["multistart", "particle", "--starts", "0"], "starts must be an integer"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
]


@pytest.mark.parametrize("argv, named", BAD_REQUESTS, ids=[" ".join(a) for a, _ in BAD_REQUESTS])
def test_bad_requests_answer_one_json_object_or_one_line(argv, named, capsys):
    """With --json: exactly one JSON object on stdout, with status and error, exit 2;
    without: nothing on stdout, one line on stderr naming the problem, exit 2."""
    assert main(argv + ["--json"]) == 2
    out, err = capsys.readouterr()
    answer = json.loads(out)  # exactly one object: json.loads refuses trailing text
    assert answer["status"] == "error" and named in answer["error"], answer
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and named in err and len(err.strip().splitlines()) == 1, err


def test_a_plotting_failure_after_the_solve_still_prints_the_result(capsys, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    argv = ["run", "particle", "--plot", str(blocker / "figures")]
    assert main(argv + ["--json"]) == 1
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert result["status"] in ("optimal", "locallyOptimal") and result["objective"] is not None
    assert "--plot" in result["error"] and result["figures"] == []
    assert main(argv) == 1
    out, err = capsys.readouterr()
    assert "objective" in out and "--plot" in err and len(err.strip().splitlines()) == 1


def test_save_and_plot_failures_are_both_reported_after_the_solve(capsys, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    argv = ["run", "particle", "--save", str(blocker / "run.npz"), "--plot", str(blocker / "figures"), "--json"]
    assert main(argv) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["status"] in ("optimal", "locallyOptimal") and "saved" not in result
    assert "--save" in result["error"] and "--plot" in result["error"]


def test_save_writes_the_trajectory_with_the_result_as_metadata(capsys, tmp_path):
    from pyomo_mbdyn import results

    assert main(["run", "particle", "--save", str(tmp_path / "run"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    saved = results.load(result["saved"])
    assert result["saved"].endswith("run.npz") and saved.metadata["objective"] == result["objective"]
    assert saved.steps == result["steps"]


def test_an_internal_error_is_one_line_and_exit_3(capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr("pyomo_mbdyn.cli.run_commands.solve_model", broken)
    assert main(["run", "particle", "--json"]) == 3
    out, err = capsys.readouterr()
    answer = json.loads(out)
    assert answer["status"] == "internal error" and "ZeroDivisionError: a bug" in answer["error"]
    assert main(["run", "particle"]) == 3
    out, err = capsys.readouterr()
    assert out == "" and "internal error" in err and "Traceback" not in err


def test_a_reader_that_leaves_early_is_no_internal_error(tmp_path):
    """``pyomo-mbdyn list | head -1``: the reader closes the pipe; the command stops quietly
    (exit status 1) instead of reporting a BrokenPipeError as an internal error."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "pyomo_mbdyn.cli", "list"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=tmp_path)
    proc.stdout.close()  # the reader leaves before the first line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "internal error" not in err and "Traceback" not in err, err


def test_the_console_script_reports_its_import_and_wall_time_and_they_add_up(tmp_path):
    """`pyomo-mbdyn run --json` as a user starts it: the phases it times are disjoint parts of
    its wall time (import, build, solve; the rest is evaluation), none negative; run as a
    module (no console script) the import time is unknown and says so (null)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYOMO_MBDYN_COMPILE": "never"}
    script = os.path.join(os.path.dirname(sys.executable), "pyomo-mbdyn")
    out = subprocess.run([script, "run", "particle", "--json"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    result = json.loads(out.stdout)
    assert out.returncode == 0, out.stderr
    parts = [result[k] for k in ("import_seconds", "build_seconds", "solve_seconds")]
    assert all(p >= 0 for p in parts) and result["solver_seconds"] <= result["solve_seconds"]
    assert sum(parts) <= result["wall_seconds"]
    out = subprocess.run([sys.executable, "-m", "pyomo_mbdyn.cli", "run", "particle", "--json"], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=300)
    result = json.loads(out.stdout)
    assert result["import_seconds"] is None and result["wall_seconds"] is None
