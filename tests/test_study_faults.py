"""Studies survive faults (issue 29): a lost worker or a task that never returns costs that
task only, every result computed is reported, and bad requests are refused before any run.

The faults are deterministic: a tiny build callable kills its own worker process
(SIGKILL) or never returns for the grid point that asks it to; the other points build
and solve the minimum-time mass on 6 steps (a fraction of a second each).
"""

import io
import json
import os
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pytest

import pyomo_mbdyn  # noqa: F401
import pyomo_mbdyn.studies
from pyomo_mbdyn.cli import main
from pyomo_mbdyn.errors import ConfigurationError, DestinationError
from pyomo_mbdyn.models import minimum_time_mass as mtm
from pyomo_mbdyn.solvers.output import capture_output
from pyomo_mbdyn.studies import multistart, process_executor, sweep, write_table_csv
from pyomo_mbdyn.studies import study as study_module

#: seconds a task may run in the timeout tests: far above a 6-step solve with its
#: imports (about 1 s on a loaded machine), so that only the task that hangs runs out
TIMEOUT = 10.0


def faulty(fault=None, steps=6):
    """A module-level build (picklable): the mass in J = effort + c T, or a fault in the worker."""
    if fault == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if fault == "hang":
        while True:
            time.sleep(1.0)
    return mtm.build("rem", steps=steps, objective="effort+time")


def _statuses(table):
    return table["status"].tolist()


def test_a_killed_worker_costs_only_the_task_it_was_running():
    """The study's own processes: the task that killed its worker is the one row lost
    (with the signal), the tasks after it run on a new process."""
    table = sweep(faulty, {"fault": ["kill", None, None, None]}, workers=2)
    assert _statuses(table) == ["error", "optimal", "optimal", "optimal"], table["message"].tolist()
    assert "worker lost" in table.loc[0, "message"] and "SIGKILL" in table.loc[0, "message"]
    assert (table["message"][1:] == "").all() and table["objective"][1:].notna().all()


def test_a_broken_process_pool_hands_its_tasks_to_new_processes():
    """A given ProcessPoolExecutor breaks when a worker dies: its unfinished tasks run again on
    the study's own processes, where the killer is the one row lost.  A pool broken before the
    study starts gives a full table too."""
    pool = process_executor(2)
    try:
        table = multistart(faulty, 3, perturb=kill_start_1, executor=pool)
        assert _statuses(table) == ["optimal", "error", "optimal"], table["message"].tolist()
        message = table.loc[1, "message"]
        assert "BrokenProcessPool" in message and "worker lost" in message and "SIGKILL" in message
        assert table.loc[0, "optimum"] == 0 and pd.isna(table.loc[1, "optimum"])
        again = sweep(faulty, {"steps": [6, 8]}, executor=pool)  # the pool is broken by now
        assert _statuses(again) == ["optimal", "optimal"], again["message"].tolist()
    finally:
        pool.shutdown()


def kill_start_1(model, rng):
    """A user's perturbation (module-level, picklable) that kills the worker of start 1 of seed 0
    (its generator is default_rng([seed, start]))."""
    if list(rng.bit_generator.seed_seq.entropy) == [0, 1]:
        os.kill(os.getpid(), signal.SIGKILL)


def test_a_task_that_never_returns_times_out_and_the_others_run():
    table = sweep(faulty, {"fault": [None, "hang", None]}, workers=2, task_timeout=TIMEOUT)
    assert _statuses(table) == ["optimal", "timeout", "optimal"], table["message"].tolist()
    assert "task_timeout" in table.loc[1, "message"] and "killed" in table.loc[1, "message"]
    assert pd.isna(table.loc[1, "objective"]) and table.loc[1, "fault"] == "hang"


def _warm_up(_):
    """A worker's start-up (spawn, imports, the solver plugin's first load) done before the timed
    tasks: on a given executor the task timeout runs from submission, and on a loaded machine
    that start-up alone took a healthy task past TIMEOUT (load ≈ 12 on 2 cores)."""
    import pyomo.environ as pyo

    pyo.SolverFactory("casadi_ipopt").solve(faulty())
    time.sleep(0.5)  # hold this worker, so that the second warm-up starts the second one
    return os.getpid()


def test_a_timeout_on_a_given_process_pool_kills_its_processes_and_the_rest_run():
    pool = process_executor(2)
    try:
        assert len(set(pool.map(_warm_up, range(2)))) == 2  # both workers started before the clock runs
        table = sweep(faulty, {"fault": ["hang", None, None]}, executor=pool, task_timeout=TIMEOUT)
    finally:
        pool.shutdown()
    assert _statuses(table) == ["timeout", "optimal", "optimal"], table["message"].tolist()
    assert "task_timeout" in table.loc[0, "message"]


def test_a_dask_cluster_without_workers_fails_the_study_instead_of_waiting(monkeypatch):
    """Dask leaves the futures of a cluster without workers pending for ever; the study asks the
    scheduler and, after NO_WORKERS seconds without any, reports the unfinished tasks as failed."""
    from distributed import Client, LocalCluster

    from pyomo_mbdyn.studies import pool as pool_module

    monkeypatch.setattr(pool_module, "POLL", 0.2)
    monkeypatch.setattr(pool_module, "NO_WORKERS", 1.0)
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster, Client(cluster) as client:
        table = sweep(faulty, {"steps": [6, 8]}, executor=client.get_executor())
    assert _statuses(table) == ["error", "error"], table["message"].tolist()
    assert all("the Dask cluster has had no workers" in m for m in table["message"])


def test_a_sweep_on_threads_leaves_stdout_and_stderr_as_they_were(capsys):
    before = sys.stdout, sys.stderr
    with ThreadPoolExecutor(2) as threads:
        table = sweep("minimum-time-mass", {"steps": [6, 8, 10, 12]}, executor=threads)
    assert sys.stdout is before[0] and sys.stderr is before[1]
    assert _statuses(table) == ["optimal"] * 4
    printed = capsys.readouterr()
    assert "Ipopt" not in printed.out + printed.err  # every solver log stayed in its capture


def test_captures_in_threads_hold_their_own_output_only():
    before = sys.stdout, sys.stderr
    logs = [io.StringIO() for _ in range(4)]
    barrier = threading.Barrier(4)

    def solve(k):
        with capture_output(logs[k]):
            barrier.wait()  # all four captures active at once
            for _ in range(200):
                print(f"thread {k}")
                print(f"thread {k} err", file=sys.stderr)

    workers = [threading.Thread(target=solve, args=(k,)) for k in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert (sys.stdout, sys.stderr) == before
    for k, log in enumerate(logs):
        assert set(log.getvalue().splitlines()) == {f"thread {k}", f"thread {k} err"}


def test_a_seed_beyond_int64_is_a_seed():
    """numpy's SeedSequence takes any non-negative integer; the table keeps it exact."""
    table = multistart(faulty, 2, seed=10**30, options={"steps": 6})
    assert _statuses(table) == ["optimal", "optimal"] and table["seed"].tolist() == [10**30] * 2


@pytest.mark.parametrize("call, match", [
    (lambda: multistart(faulty, 2, seed=True), "seed must be an integer ≥ 0, got True"),
    (lambda: multistart(faulty, 2, seed=1.5), "seed must be an integer ≥ 0, got 1.5"),
    (lambda: multistart(faulty, True), "starts must be an integer ≥ 1, got True"),
    (lambda: multistart(faulty, 2, radius=True), "radius must be positive and finite, got True"),
    (lambda: multistart(faulty, 2, radius=float("nan")), "radius must be positive and finite, got nan"),
    (lambda: multistart(faulty, 2, workers=0), "workers must be a positive integer, got 0"),
    (lambda: sweep(faulty, {"steps": [6]}, workers=True), "workers must be a positive integer, got True"),
    (lambda: sweep(faulty, {"steps": [6]}, workers=2, executor=ThreadPoolExecutor(1)), "either workers or executor"),
    (lambda: sweep(faulty, {"steps": [6]}, task_timeout=0), "task_timeout must be a positive finite number"),
    (lambda: sweep(faulty, {"steps": [6]}, task_timeout=float("inf")), "got inf"),
    (lambda: sweep(faulty, {"steps": [6]}, task_timeout="5"), "got '5'"),
    (lambda: sweep(faulty, {"steps": [6]}, executor="pool"), "executor must be a concurrent.futures.Executor"),
])
def test_bad_arguments_are_refused_before_anything_runs(call, match, monkeypatch):
    monkeypatch.setattr(study_module, "_execute", _no_run)
    with pytest.raises(ConfigurationError, match=match):
        call()


def _no_run(*args, **kwargs):
    raise AssertionError("a task ran")


def test_a_save_dir_that_is_a_file_is_refused_before_anything_runs(tmp_path, monkeypatch):
    monkeypatch.setattr(study_module, "_execute", _no_run)
    (tmp_path / "taken").write_text("")
    with pytest.raises(DestinationError, match="save_dir '.*taken' is a file, not a directory"):
        sweep(faulty, {"steps": [6]}, save_dir=tmp_path / "taken")
    with pytest.raises(DestinationError, match="save_dir '.*taken/runs' cannot be created: '.*taken' is a file"):
        multistart(faulty, 2, save_dir=tmp_path / "taken" / "runs")


def test_write_table_csv_names_the_path_it_cannot_write(tmp_path):
    table = pd.DataFrame({"start": [0], "status": ["optimal"], "final_state": [[1.0, 2.0]]})
    assert write_table_csv(table, tmp_path / "runs.csv").read_text().splitlines()[1] == '0,0,optimal,"[1.0, 2.0]"'
    with pytest.raises(DestinationError, match=f"cannot write the CSV table '{tmp_path}'"):
        write_table_csv(table, tmp_path)


# -- the command line -----------------------------------------------------------------
def _one_json(capsys):
    out = capsys.readouterr().out
    assert len(out.strip().splitlines()) == 1, out
    return json.loads(out)


@pytest.mark.parametrize("argv, match", [
    (["sweep", "minimum-time-mass", "--steps", "6", "--scheduler", "notaurl"], "--scheduler 'notaurl': not a "),
    (["sweep", "minimum-time-mass", "--steps", "6", "--task-timeout", "0"], "task_timeout must be a positive"),
    (["sweep", "minimum-time-mass", "--steps", "6", "--task-timeout", "nan"], "task_timeout must be a positive"),
    (["multistart", "minimum-time-mass", "--workers", "0"], "workers must be a positive integer, got 0"),
    (["multistart", "minimum-time-mass", "--seed", "-1"], "seed must be an integer ≥ 0, got -1"),
    (["multistart", "minimum-time-mass", "--radius", "inf"], "radius must be positive and finite, got inf"),
    (["sweep", "minimum-time-mass", "--steps", "6", "--save-dir", "taken"], "save_dir 'taken' is a file"),
])
def test_cli_bad_requests_are_one_json_object_and_exit_2(argv, match, capsys, monkeypatch):
    monkeypatch.setattr(study_module, "_execute", _no_run)
    open("taken", "w").close()  # the test's own directory (conftest)
    assert main(argv + ["--json"]) == 2
    out = _one_json(capsys)
    assert out["status"] == "error" and match in out["error"], out


def test_cli_csv_destination_is_checked_before_any_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(study_module, "_execute", _no_run)
    assert main(["sweep", "minimum-time-mass", "--steps", "6", "--csv", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"cannot write the --csv table '{tmp_path}': it is a directory" in captured.err
    assert main(["sweep", "minimum-time-mass", "--steps", "6", "--csv", "missing/runs.csv"]) == 2
    assert "--csv table 'missing/runs.csv'" in capsys.readouterr().err


def test_cli_prints_the_runs_when_writing_the_csv_fails_afterwards(capsys, monkeypatch):
    def refuse(table, path):
        raise DestinationError(f"cannot write the table {str(path)!r}: No space left on device")

    monkeypatch.setattr(pyomo_mbdyn.studies, "write_table_csv", refuse)
    assert main(["sweep", "minimum-time-mass", "--steps", "6,8", "--csv", "runs.csv"]) == 1
    captured = capsys.readouterr()
    assert "optimal" in captured.out and "best run: " in captured.out
    assert "--csv runs.csv: DestinationError: cannot write the table 'runs.csv': No space" in captured.err


def test_cli_reports_the_runs_when_a_step_after_them_fails(capsys, monkeypatch):
    """A bug after the solves (here: choosing the best run) is exit 3, with every run reported."""
    def broken(table):
        raise RuntimeError("no best today")

    monkeypatch.setattr(pyomo_mbdyn.studies, "best", broken)
    seed = 10**30
    assert main(["multistart", "minimum-time-mass", "--starts", "2", "--seed", str(seed), "--steps", "6",
                 "--json"]) == 3
    out = _one_json(capsys)
    assert [run["status"] for run in out["runs"]] == ["optimal", "optimal"]
    assert [run["seed"] for run in out["runs"]] == [seed, seed]
    assert out["status"] == "error" and "no best today" in out["error"] and out["best"] is None
