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
import pyomo.environ as pyo
import pytest
from distributed import Client, LocalCluster

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn import results
from pyomo_mbdyn.cli import main
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.models import minimum_time_mass as mtm
from pyomo_mbdyn.studies import (SUCCESS, TIMING_COLUMNS, best, cluster_optima, multistart, process_executor,
                                 sweep, to_records)

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


def _arm_rows_are_local_optima(table):
    """Every row of a three-link-arm multistart that ended optimal is a local optimum of the
    arm's NLP: IPOPT started at the row's saved trajectory stays there (its J, its final
    state).  This holds at every optimum whichever one a start reached; a row whose J or
    trajectory were not those of a KKT point would move."""
    from pyomo_mbdyn.models import three_link_arm

    solved = table[table["status"] == "optimal"]
    assert len(solved) >= 1
    for _, row in solved.iterrows():
        m = three_link_arm.build()
        m.dyn.initialize_from(results.load(row["path"]))
        result = pyo.SolverFactory("casadi_ipopt").solve(m)
        assert str(result.solver.termination_condition) == "optimal"
        assert pyo.value(m.ocp.control_effort) == pytest.approx(row["objective"], rel=1e-7)
        trajectory = m.dyn.trajectory()
        np.testing.assert_allclose(np.concatenate([trajectory.q[-1], trajectory.v[-1]]), row["final_state"],
                                   atol=1e-6)


def _optima_are_numbered_by_objective(table):
    """Rows of one optimum share J (to 10⁻⁶) and final state; optima numbered 0, 1, … by J;
    ``best`` is the lowest J."""
    solved = table[table["optimum"].notna()]
    for _, group in solved.groupby("optimum"):
        assert np.allclose(group["objective"], group["objective"].iloc[0], rtol=1e-6)
    by_optimum = solved.groupby("optimum")["objective"].min()
    assert list(by_optimum.index) == list(range(len(by_optimum))) and by_optimum.is_monotonic_increasing
    assert best(table)["objective"] == solved["objective"].min() and best(table)["optimum"] == 0


def test_arm_multistart_rows_are_the_arm_s_local_optima_on_both_executors(pool, dask_client, tmp_path):
    """Eight starts of the arm (REM, N = 20): start 0 the interpolated guess, starts 1–7 every
    variable moved within ±0.1 (perturb="guess").

    Which optimum a start reaches follows the path of IPOPT's iterates, and that path follows
    the last bits of numpy's BLAS kernel (the guess and the model's constants are computed with
    it; benchmarks/pages/determinism.md).  Measured on an AMD EPYC under five OpenBLAS kernels:
    from the guess J = 3.9879·10⁶, starts 2 and 7 lower (2.8546·10⁶, 2.0242·10⁶; on an earlier
    machine starts 2, 4 and 7 at 1.8175·10⁶, 2.3216·10⁶, 2.0242·10⁶); not asserted.  What holds on every machine is:
    the same table on both executors (one machine, one kernel); start 0 is the model solved
    from its own guess in this process; every row is a local optimum of the arm's NLP; the
    optima are numbered by J."""
    from pyomo_mbdyn.models import three_link_arm

    local = multistart("three-link-arm", 8, seed=0, radius=0.1, perturb="guess", executor=pool,
                       save_dir=tmp_path / "local")
    remote = multistart("three-link-arm", 8, seed=0, radius=0.1, perturb="guess",
                        executor=dask_client.get_executor(), save_dir=tmp_path / "remote")
    pd.testing.assert_frame_equal(_without_timings(local).drop(columns="path"),
                                  _without_timings(remote).drop(columns="path"), check_exact=True)
    assert list(local["start"]) == list(range(8)) and (local["seed"] == 0).all()
    assert local["status"].isin(SUCCESS).all()
    m = three_link_arm.build()
    pyo.SolverFactory("casadi_ipopt").solve(m)
    assert local.loc[0, "objective"] == pytest.approx(pyo.value(m.ocp.control_effort), rel=1e-9)
    _arm_rows_are_local_optima(local)
    _optima_are_numbered_by_objective(local)
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


def test_the_default_perturbation_moves_the_arm_s_joint_angles(pool, tmp_path):
    """perturb="auto" (the default) moves the arm's joint angles (the chart: its starts satisfy
    the joints, tests/ocp/test_perturbed_starts.py); moving every variable is "guess".

    How many optima the 8 starts find follows the path of IPOPT's iterates and so numpy's BLAS
    kernel (benchmarks/pages/multistart.md, benchmarks/pages/determinism.md: measured, the chart
    starts find several optima and one below the guess's, the guess starts at radius 10⁻² only
    the guess's); what is asserted holds at every optimum: every row of either study is a local
    optimum of the arm's NLP, numbered by J."""
    table = multistart("three-link-arm", 8, seed=0, executor=pool, save_dir=tmp_path / "chart")
    assert (table["perturbation"].iloc[1:] == "chart").all() and pd.isna(table["perturbation"].iloc[0])
    plain = multistart("three-link-arm", 8, seed=0, perturb="guess", executor=pool, save_dir=tmp_path / "guess")
    assert (plain["perturbation"].iloc[1:] == "guess").all()
    # start 0 is not perturbed: the same solve in both studies
    assert table.loc[0, "objective"] == plain.loc[0, "objective"]
    for study in (table, plain):
        _arm_rows_are_local_optima(study)
        _optima_are_numbered_by_objective(study)


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
