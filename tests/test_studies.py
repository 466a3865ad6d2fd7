"""Sweeps and multi-start (pyomo_mbdyn.studies) on a local process pool and on a Dask cluster.

The same study gives the same table on every executor (the timing columns
aside): every task builds its model in its worker from the same spec, the starts
come from ``default_rng([seed, start])``, and the solves are deterministic.  A
Dask ``LocalCluster`` with two worker processes is started here and shut down
at the end of the module.
"""

import json

import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn import results
from pyomo_mbdyn.cli import main
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.models import minimum_time_mass as mtm
from pyomo_mbdyn.studies import (SUCCESS, TIMING_COLUMNS, best, cluster_optima, multistart, process_executor,
                                 sweep, to_records)

#: the arm's J from its interpolated guess (REM, N = 20; models/three_link_arm.py)
ARM_DEFAULT_J = 3.988e6
#: the record columns every run has
COLUMNS = ("status", "objective", "iterations", "build_seconds", "solve_seconds", "seconds", "message")


def effort_time_mass(steps, scheme="rem"):
    """A module-level build (picklable): the mass moved in J = effort + c T (one smooth optimum)."""
    return mtm.build(scheme, steps=steps, objective="effort+time")


def mass(steps, scheme="rem"):
    """A module-level build (picklable): the mass moved in minimum time, |u| ≤ U (T* = 2)."""
    return mtm.build(scheme, steps=steps)


def slower(model, rng):
    """A user's change of start s > 0: the final time fixed at a random T in [2.5, 3] (above T* = 2)."""
    model.dyn.final_time.fix(2.5 + 0.5 * rng.uniform())


@pytest.fixture(scope="module")
def pool():
    executor = process_executor(2)
    yield executor
    executor.shutdown()


@pytest.fixture(scope="module")
def dask_client():
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    yield client
    client.close()
    cluster.close()


def _without_timings(table):
    return table.drop(columns=[c for c in TIMING_COLUMNS if c in table.columns])


def test_sweep_is_the_same_on_a_process_pool_and_on_dask(pool, dask_client, tmp_path):
    grid = {"scheme": ["bem", "rem"], "steps": [10, 20]}
    local = sweep("minimum-time-mass", grid, executor=pool, options={"distance": 2.0}, save_dir=tmp_path)
    remote = sweep("minimum-time-mass", grid, executor=dask_client.get_executor(), options={"distance": 2.0},
                   save_dir=tmp_path)
    pd.testing.assert_frame_equal(_without_timings(local), _without_timings(remote), check_exact=True)
    # one row per grid point, the first key varying slowest
    assert list(zip(local["scheme"], local["steps"])) == [("bem", 10), ("bem", 20), ("rem", 10), ("rem", 20)]
    assert list(local.columns[:2 + len(COLUMNS)]) == ["scheme", "steps", *COLUMNS]
    assert (local["status"] == "optimal").all() and (local["message"] == "").all()
    # every scheme reaches T* = 2 sqrt(m d / U) on an even grid (the model's docstring)
    assert np.allclose(local["objective"], mtm.minimum_time(distance=2.0), rtol=1e-6)
    assert (local["iterations"] > 0).all() and (local["solver"] == "casadi_ipopt").all()
    # each solved trajectory saved with pyomo_mbdyn.results, its metadata the record's
    saved = results.load(local.loc[3, "path"])
    assert saved.steps == 20 and saved.scheme == "rem"
    assert saved.metadata["objective"] == local.loc[3, "objective"] and saved.metadata["status"] == "optimal"


def test_arm_multistart_finds_an_optimum_below_the_default_start(pool, dask_client):
    """From the interpolated guess the arm stops at J = 3.988e6; starts with every variable
    moved by 0.1 (perturb="guess") find lower optima.

    (Measured: starts 2, 4 and 7 of seed 0 end at 1.8175e6, 2.3216e6 and 2.0242e6, the
    others at the guess's optimum; start 7 takes 63 iterations where casadi's OpenBLAS
    runs threaded and 64 with one thread, as on both executors here.)"""
    local = multistart("three-link-arm", 8, seed=0, radius=0.1, perturb="guess", executor=pool)
    remote = multistart("three-link-arm", 8, seed=0, radius=0.1, perturb="guess",
                        executor=dask_client.get_executor())
    pd.testing.assert_frame_equal(_without_timings(local), _without_timings(remote), check_exact=True)
    assert list(local["start"]) == list(range(8)) and (local["seed"] == 0).all()
    assert local["status"].isin(SUCCESS).all()
    default = local.loc[0, "objective"]
    assert default == pytest.approx(ARM_DEFAULT_J, rel=1e-3)
    top = best(local)
    assert top["objective"] < 0.9 * default and top["optimum"] == 0 and top.name != 0
    # the runs that stop at the default optimum are one optimum, numbered after the better one
    same = np.isclose(local["objective"], default, rtol=1e-6)
    assert same.sum() >= 2 and local.loc[same, "optimum"].nunique() == 1
    assert local.loc[0, "optimum"] > 0
    # optima numbered by objective
    by_optimum = local.groupby("optimum")["objective"].min()
    assert list(by_optimum.index) == list(range(len(by_optimum))) and by_optimum.is_monotonic_increasing
    assert all(len(state) == len(local.loc[0, "final_state"]) for state in local["final_state"])


def test_multistart_draws_controls_or_calls_the_users_function(pool):
    # random controls: the starts differ, and all end at the one optimum T* = 2
    table = multistart(mass, 3, seed=1, perturb="controls", radius=2.0, executor=pool, options={"steps": 10})
    assert (table["status"] == "optimal").all(), table["message"].tolist()
    assert (table["optimum"] == 0).all() and np.allclose(table["objective"], 2.0, rtol=1e-7)
    assert table["iterations"].nunique() > 1
    # a user's function changes starts 1.. only, in the worker, with the start's generator
    table = multistart(mass, 4, seed=3, perturb=slower, executor=pool, options={"steps": 10})
    assert table.loc[0, "objective"] == pytest.approx(2.0, rel=1e-7)
    assert ((table["objective"][1:] >= 2.5) & (table["objective"][1:] <= 3.0)).all()
    expected = table["objective"].rank(method="dense").astype(int) - 1  # each start its own optimum
    assert table["optimum"].tolist() == expected.tolist()
    again = multistart(mass, 4, seed=3, perturb=slower, executor=pool, options={"steps": 10})
    pd.testing.assert_frame_equal(_without_timings(again), _without_timings(table), check_exact=True)
    other = multistart(mass, 2, seed=4, perturb=slower, executor=pool, options={"steps": 10})
    assert other.loc[1, "objective"] != table.loc[1, "objective"]  # another seed, another start


def test_multistart_on_the_chart_reaches_the_mass_optimum_from_moved_positions(pool):
    """perturb="chart": the slider's interior positions moved (on its prismatic joint);
    the one optimum T* = 2 from every start, in different iteration counts."""
    table = multistart(mass, 3, seed=2, perturb="chart", radius=0.3, executor=pool, options={"steps": 10})
    assert (table["status"] == "optimal").all(), table["message"].tolist()
    assert (table["optimum"] == 0).all() and np.allclose(table["objective"], 2.0, rtol=1e-7)
    assert table["iterations"].nunique() > 1


def test_the_default_perturbation_explores_the_arm_s_optima(pool):
    """perturb="auto" (the default) moves the arm's joint angles: the 8 starts at the default
    radius find more than the model's own optimum, and a better one (the arm's rest-to-rest
    problem is nonconvex: benchmarks/pages/multistart.md); moving every variable instead stays
    at the model's optimum."""
    table = multistart("three-link-arm", 8, seed=0, executor=pool)
    assert (table["perturbation"].iloc[1:] == "chart").all() and pd.isna(table["perturbation"].iloc[0])
    assert table["optimum"].nunique() >= 2, table[["objective", "optimum"]]
    assert table["objective"].min() < 0.9 * table["objective"].iloc[0]
    plain = multistart("three-link-arm", 8, seed=0, perturb="guess", executor=pool)
    assert plain["optimum"].nunique() == 1 and (plain["perturbation"].iloc[1:] == "guess").all()


def test_the_default_perturbation_moves_every_variable_where_the_chart_cannot_follow(pool):
    """The sphere turns three times: its rotation vector does not reach the guess's last nodes,
    so "auto" moves every free variable (and says so), where "chart" fails the start."""
    table = multistart("sphere", 2, seed=0, executor=pool)
    assert table.loc[1, "perturbation"] == "guess" and table.loc[1, "status"] == "optimal"
    chart = multistart("sphere", 2, seed=0, perturb="chart", executor=pool)
    assert chart.loc[1, "status"] == "error" and "not reached by the chart" in chart.loc[1, "message"]


def test_failed_tasks_are_rows_with_their_status_and_message(pool, capsys):
    # an iteration limit, on the default executor (a process pool of the study's own), with a progress bar
    limited = sweep(effort_time_mass, {"steps": [10, 12]}, solve_options={"max_iter": 2}, progress=True)
    assert "2/2" in capsys.readouterr().err
    assert list(limited["steps"]) == [10, 12]
    assert (limited["status"] == "maxIterations").all()
    assert limited["message"].str.contains("max_iter").all()  # the advice of ocp.solve
    assert limited["objective"].isna().all() and best(limited) is None
    # an over-determined problem (one step cannot bring the arm to rest) beside one that solves
    table = sweep("three-link-arm", {"steps": [1, 4]}, executor=pool)
    assert list(table["status"]) == ["infeasible", "optimal"]
    assert "over-determine" in table.loc[0, "message"] and table.loc[1, "message"] == ""
    assert best(table).name == 1
    # a multistart whose every start fails: a row each, no optimum
    failed = multistart(effort_time_mass, 2, solve_options={"max_iter": 1}, executor=pool, options={"steps": 10})
    assert (failed["status"] == "maxIterations").all() and failed["optimum"].isna().all()


def test_cluster_optima_and_best_on_a_table():
    table = pd.DataFrame({
        "start": [0, 1, 2, 3, 4, 5],
        "status": ["optimal", "optimal", "maxIterations", "optimal", "locallyOptimal", "optimal"],
        "objective": [5.0, 2.0, None, 2.0 * (1 + 1e-9), 5.0, 2.0],
        "final_state": [[0.0, 1.0], [0.0, 1.0], None, [0.0, 1.0 + 1e-9], [0.0, 1.0], [0.5, 1.0]],
    })
    labels = cluster_optima(table)
    # 1 and 3 agree in J and state; 5 has the same J but another final state; 0 and 4 the worse J
    assert labels.tolist() == [2, 0, pd.NA, 0, 2, 1]
    assert best(table).name == 1  # the lowest J, the first in task order on a tie
    assert to_records(best(table))["start"] == 1
    assert cluster_optima(table, objective_rtol=1e-12).tolist() == [3, 0, pd.NA, 2, 3, 1]


@pytest.mark.parametrize("call, match", [
    (lambda: sweep("no-such-model", {"steps": [10]}), "unknown model 'no-such-model'"),
    (lambda: sweep("particle", {}), "grid is empty"),
    (lambda: sweep("particle", {"steps": []}), r"grid\['steps'\] is empty"),
    (lambda: sweep("particle", {"scheme": "dnco"}), "must be a list"),
    (lambda: sweep("particle", {"speed": [1.0]}), "no grid key 'speed'"),
    (lambda: sweep(effort_time_mass, {"stepz": [10]}), r"effort_time_mass\(\) takes no grid key 'stepz'"),
    (lambda: sweep(effort_time_mass, {"steps": [10]}, options={"steps": 4}), "'steps' is both"),
    (lambda: sweep("particle", {"steps": [10]}, solve_options={"max_iter": 5}), "callable build"),
    (lambda: sweep(lambda steps: None, {"steps": [10]}), "cannot be sent to a worker"),
    (lambda: multistart("particle", 0), "starts must be an integer ≥ 1, got 0"),
    (lambda: multistart("particle", 2, seed=-1), "seed must be"),
    (lambda: multistart("particle", 2, perturb="charts"), "unknown perturb 'charts'"),
    (lambda: multistart("particle", 2, radius=0.0), "radius must be positive"),
    (lambda: multistart("no-such-model", 2), "unknown model"),
    (lambda: multistart("particle", 2, options={"horizon": 3}), "no options key 'horizon'"),
])
def test_bad_requests_are_refused_before_anything_runs(call, match):
    with pytest.raises(ConfigurationError, match=match):
        call()


def _contract(capsys, argv, study):
    code = main(argv)
    captured = capsys.readouterr()
    out = json.loads(captured.out)  # exactly one JSON object
    assert {"model", "study", "runs", "best"} <= set(out) and out["study"] == study
    for run in out["runs"]:
        assert set(COLUMNS) <= set(run)
    return code, out


def test_cli_sweep_json_on_the_cluster(capsys, dask_client):
    argv = ["sweep", "minimum-time-mass", "--steps", "10,20", "--scheme", "bem", "--set", "distance=2",
            "--scheduler", dask_client.scheduler.address, "--json"]
    code, out = _contract(capsys, argv, "sweep")
    assert code == 0 and out["model"] == "minimum-time-mass" and out["options"] == {"distance": 2}
    runs = [(r["scheme"], r["steps"], r["status"]) for r in out["runs"]]
    assert runs == [("bem", 10, "optimal"), ("bem", 20, "optimal")]
    assert out["best"]["objective"] == min(r["objective"] for r in out["runs"])
    # a bad request: still exactly one JSON object, with status and error, and exit status 2
    assert main(["sweep", "no-such-model", "--steps", "10", "--json"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["study"] == "sweep" and out["status"] == "error" and "no-such-model" in out["error"]


def test_cli_multistart_json_and_table(capsys, dask_client):
    argv = ["multistart", "minimum-time-mass", "--starts", "3", "--seed", "2", "--steps", "10",
            "--set", "objective=effort+time", "--workers", "2"]
    code, out = _contract(capsys, argv + ["--json"], "multistart")
    assert code == 0 and [r["start"] for r in out["runs"]] == [0, 1, 2]
    assert all(r["seed"] == 2 and r["status"] == "optimal" and r["optimum"] == 0 for r in out["runs"])
    assert out["best"]["optimum"] == 0 and out["options"] == {"objective": "effort+time", "steps": 10}
    assert main(argv[:-2] + ["--scheduler", dask_client.scheduler.address]) == 0
    printed = capsys.readouterr().out
    assert "optimum 0: J = " in printed and "best run: " in printed
