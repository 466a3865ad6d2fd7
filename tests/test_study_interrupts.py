"""Studies lose nothing on interrupt and replace nothing silently (issue 46.2, 46.3, 46.8).

A sweep or multistart on the command line says each run as it ends (one stderr line) and
keeps ``--csv`` a whole table of the runs finished so far; SIGINT / SIGTERM stops the
workers, prints (and writes) the table with the unfinished runs marked ``"interrupted"``
and ends with 130 / 143.  The signal is sent after the k-th run's line has been read
from the subprocess's stderr, never after a sleep.
"""

import csv
import json
import os
import re
import signal
import subprocess
import sys

import pytest

from pyomo_mbdyn.errors import ConfigurationError, DestinationError
from pyomo_mbdyn.plugins import models
from pyomo_mbdyn.studies import multistart, sweep

CLI = [sys.executable, "-m", "pyomo_mbdyn.cli"]
STARTS, K = 200, 3


def _interrupt_after_k_runs(signum, *extra):
    """``multistart three-link-arm --starts 200 --workers 1 --steps 10`` sent ``signum`` once
    the K-th run's line is on stderr; ``(rc, stdout, stderr)``."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(CLI + ["multistart", "three-link-arm", "--starts", str(STARTS), "--workers", "1",
                                   "--steps", "10", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("pyomo-mbdyn: three-link-arm: start ") and line.rstrip().endswith(f"({K} finished)"):
            proc.send_signal(signum)
            break
    out, err = proc.communicate(timeout=600)
    return proc.returncode, out, "".join(seen) + err


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupted_multistart_prints_and_writes_the_finished_runs(tmp_path, signum, status):
    rows = tmp_path / "rows.csv"
    rc, out, err = _interrupt_after_k_runs(signum, "--csv", str(rows))
    name = signal.Signals(signum).name
    assert rc == status, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"pyomo-mbdyn: interrupted ({name}): ") and last.endswith(f"of {STARTS} runs finished")
    finished = int(last.split(": ")[-1].split()[0])
    assert finished >= K
    with rows.open() as f:
        table = list(csv.DictReader(f))
    assert [int(r["task"]) for r in table] == list(range(STARTS))  # every run, in task order
    statuses = [r["status"] for r in table]
    assert statuses.count("interrupted") == STARTS - finished
    assert all(s == "optimal" for s in statuses[:K])  # the first K ran on the one worker, in order
    assert {r["message"] for r in table if r["status"] == "interrupted"} == \
        {f"not finished: the study was interrupted ({name})"}
    assert float(table[0]["objective"]) > 0
    assert f"table written to {rows}" in out
    marked = [line for line in out.splitlines() if re.match(r"\d+\s+\d+\s+0\s+interrupted\s", line)]
    assert len(marked) == STARTS - finished, out  # the printed table marks them too


def test_interrupted_multistart_with_json_prints_the_finished_runs(tmp_path):
    rc, out, err = _interrupt_after_k_runs(signal.SIGTERM, "--json")
    assert rc == 143
    lines = out.strip().splitlines()
    assert len(lines) == 1
    answer = json.loads(lines[0])
    assert answer["status"] == "interrupted" and answer["error"] == "interrupted (SIGTERM)"
    runs = answer["runs"]
    assert [r["start"] for r in runs] == list(range(STARTS))
    assert all(r["status"] == "optimal" and r["objective"] > 0 for r in runs[:K])
    assert runs[-1]["status"] == "interrupted" and runs[-1]["objective"] is None
    assert answer["best"]["status"] == "optimal"


def test_a_reused_save_dir_is_refused_unless_overwrite(tmp_path):
    first = sweep("particle", {"steps": [4]}, save_dir=tmp_path, workers=1)
    saved = tmp_path / "sweep-0000.npz"
    assert first["path"][0] == str(saved)
    before = saved.read_bytes()
    with pytest.raises(DestinationError, match=r"sweep-0000\.npz.*overwrite"):
        sweep("particle", {"steps": [5]}, save_dir=tmp_path, workers=1)
    assert saved.read_bytes() == before  # refused before any run
    again = sweep("particle", {"steps": [5]}, save_dir=tmp_path, workers=1, overwrite=True)
    assert again["status"][0] == "optimal" and saved.read_bytes() != before


def test_a_reused_save_dir_is_refused_on_the_command_line(tmp_path):
    (tmp_path / "start-0000.npz").write_bytes(b"an earlier study's")
    proc = subprocess.run(CLI + ["multistart", "particle", "--starts", "1", "--workers", "1", "--steps", "4",
                                 "--save-dir", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert "start-0000.npz" in proc.stderr and "--overwrite" in proc.stderr and "Traceback" not in proc.stderr
    assert (tmp_path / "start-0000.npz").read_bytes() == b"an earlier study's"


def test_a_huge_radius_is_a_named_error():
    """Issue 46.8: radius 1e300 reached IPOPT ("Invalid number in NLP function")."""
    with pytest.raises(ConfigurationError, match=r"radius 1e\+300 is beyond 1e\+06"):
        multistart("particle", 2, workers=1, radius=1e300)
    proc = subprocess.run(CLI + ["multistart", "particle", "--radius", "1e300"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 2 and "radius 1e+300 is beyond" in proc.stderr and "Traceback" not in proc.stderr


def test_a_huge_task_timeout_runs_the_sweep():
    """Issue 46.8: --task-timeout 1e308 was an OverflowError; it is no limit in practice."""
    proc = subprocess.run(CLI + ["sweep", "particle", "--steps", "4", "--workers", "1", "--task-timeout", "1e308",
                                 "--json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert [run["status"] for run in json.loads(proc.stdout)["runs"]] == ["optimal"]


#: steps per model for the registry's multistart: small and cheap (measured: 4–11 s per model
#: with one worker), yet enough for the model — the heavy top's quaternion guess needs h ≤ 1/60
#: (N = 6, 20: its Newton step diverges), the satellite N ≥ 22 (its rotors' turn; N = 21 is
#: infeasible), the UR5 at N = 3 and 10 stops at IPOPT's iteration limit (33 s, 125 s)
STEPS = {"heavy-top": 60, "satellite": 22, "panda": 3, "ur5": 2, "space-robot": 4}


@pytest.mark.parametrize("name", sorted(models()))
def test_every_model_finishes_the_default_multistart(name):
    """Issue 46.3: the default perturbation ("auto") of every registered model runs: start 1
    is moved (by its chart, or every variable where the system has none) and solved."""
    table = multistart(name, 2, options={"steps": STEPS.get(name, 6)}, workers=1)
    assert list(table["status"] != "error") == [True, True], list(table["message"])
    assert table["perturbation"][1] in ("chart", "guess")
