"""Interrupts end a run with an answer (issue 29): Ctrl-C and SIGTERM, also inside IPOPT.

The command line answers SIGINT with exit status 130 and SIGTERM with 143, after one
line on stderr (with ``--json`` also exactly one JSON object on stdout, status
``"interrupted"``), and leaves no solver files behind.  Inside the in-process IPOPT an
interrupt is raised as ``KeyboardInterrupt`` (CasADi polls Python's handlers and
swallows the exception; :func:`pyomo_mbdyn.solvers.interrupts.interruptible` raises it
again), not reported as a failed solve.

The signal is sent at a point the test observes, never after a sleep: the command
line's grid refinement prints a line when its first stage (N = 40) ends, and the
next (N = 320, seconds) is then running; the in-process test sends the signal
from IPOPT's own log output, i.e. from inside the solve.
"""

import json
import os
import signal
import subprocess
import sys

import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.models import three_link_arm as arm
from pyomo_mbdyn.solvers.interrupts import Terminated, exit_status, interruptible

CLI = [sys.executable, "-m", "pyomo_mbdyn.cli"]


def _interrupt_second_stage(signum, *extra):
    """Run ``run three-link-arm --steps 640 --coarsest 40`` (stages N = 40, 320, 640) and
    send ``signum`` when the first stage's
    line appears (on stdout, or on stderr with --json); ``(rc, stdout, stderr)``."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with_json = "--json" in extra
    proc = subprocess.Popen(CLI + ["run", "three-link-arm", "--steps", "640", "--coarsest", "40", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    watched = proc.stderr if with_json else proc.stdout
    seen = []
    for line in watched:
        seen.append(line)
        if line.startswith("stage N = 40"):
            proc.send_signal(signum)
            break
    out, err = proc.communicate(timeout=600)
    if with_json:
        err = "".join(seen) + err
    else:
        out = "".join(seen) + out
    return proc.returncode, out, err


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_during_the_second_stage_ends_with_one_line(tmp_path, signum, status):
    rc, out, err = _interrupt_second_stage(signum)
    assert rc == status, (out, err)
    name = signal.Signals(signum).name
    assert err.strip().splitlines()[-1] == f"pyomo-mbdyn: interrupted ({name})"
    assert "Traceback" not in err
    assert not list(tmp_path.glob("*.nl")) and not list(tmp_path.glob("*.sol"))


def test_sigterm_with_json_prints_exactly_one_object(tmp_path):
    rc, out, err = _interrupt_second_stage(signal.SIGTERM, "--json")
    assert rc == 143
    lines = out.strip().splitlines()
    assert len(lines) == 1
    answer = json.loads(lines[0])
    assert answer["status"] == "interrupted" and answer["error"] == "interrupted (SIGTERM)"
    assert "stage N = 40" in err  # the progress went to stderr


def test_sigterm_on_the_ampl_path_removes_the_solver_files(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    rc, out, err = _interrupt_second_stage(signal.SIGTERM, "--solver", "casadi_ipopt_nl")
    assert rc == 143
    left = [p.name for p in tmp_path.rglob("*") if p.suffix in (".nl", ".sol", ".json", ".opt")]
    assert left == []


class _SignalOnIterations:
    """A stdout for IPOPT's log that sends ``signum`` to this process at the iteration table."""

    def __init__(self, signum):
        self.signum, self.sent = signum, False

    def write(self, text):
        if not self.sent and "iter" in text and "objective" in text:
            self.sent = True
            os.kill(os.getpid(), self.signum)
        return len(text)

    def flush(self):
        pass


@pytest.mark.parametrize("signum, raised", [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated)])
def test_interrupt_inside_in_process_ipopt_is_an_interruption(monkeypatch, signum, raised):
    m = arm.build(steps=20)
    previous = signal.signal(signal.SIGTERM, lambda s, f: (_ for _ in ()).throw(Terminated(s)))
    try:
        stream = _SignalOnIterations(signum)
        monkeypatch.setattr(sys, "stdout", stream)
        with pytest.raises(raised) as info:
            pyo.SolverFactory("casadi_ipopt").solve(m, tee=True)
        assert stream.sent
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert exit_status(info.value) == 128 + signum
    # nothing was loaded: the model keeps its guess, and the handlers are restored
    assert signal.getsignal(signal.SIGTERM) is previous


def test_interruptible_leaves_handlers_and_outcome_alone_without_a_signal():
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with interruptible():
        value = sum(range(10))
    assert value == 45
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_json_mode_keeps_pyomo_log_records_off_stdout(monkeypatch):
    """With --json stdout carries the one object only: Pyomo's log handler (which holds the
    stdout stream itself) writes to stderr, and the record Pyomo logs for an evaluation cut by
    a signal ("evaluating object as numeric value") is dropped — the run answers
    "interrupted" instead (the SIGTERM test above met it when the signal arrived in a
    Pyomo evaluation rather than inside IPOPT)."""
    import contextlib
    import io
    import logging

    from pyomo_mbdyn import cli
    from pyomo_mbdyn.solvers import interrupts

    out, err = io.StringIO(), io.StringIO()
    handler = next(h for h in logging.getLogger("pyomo").handlers if isinstance(h, logging.StreamHandler))
    previous = handler.setStream(out)   # as at import: the handler holds what is stdout
    monkeypatch.setattr(logging.getLogger(), "handlers", [])  # Pyomo's handler is silent beside root handlers
    monkeypatch.setattr("sys.stdout", out)
    try:
        with contextlib.redirect_stderr(err), cli._command_streams(True):
            print("progress")
            logging.getLogger("pyomo.core").error("a pyomo error")
            monkeypatch.setattr(interrupts, "_received", [signal.SIGTERM])
            logging.getLogger("pyomo.common.numeric_types").error("evaluating object as numeric value: x")
            monkeypatch.setattr(interrupts, "_received", [])
            cli._print_json({"status": "interrupted"})
    finally:
        handler.setStream(previous)
    assert out.getvalue().splitlines() == ['{"status": "interrupted"}']
    assert err.getvalue().splitlines() == ["progress", "ERROR: a pyomo error"]


@pytest.mark.parametrize("signum, status, with_json", [(signal.SIGINT, 130, False), (signal.SIGTERM, 143, False),
                                                       (signal.SIGINT, 130, True)])
def test_signal_while_the_package_imports_ends_with_one_line(signum, status, with_json):
    """The console script's entry point (``_pyomo_mbdyn_launch.main``) imports the package
    itself: a signal sent when that import starts (the launcher says so on stderr with
    PYOMO_MBDYN_LAUNCH_TRACE=1) ends as every interrupt of the command line does — one line,
    130/143, with --json one object — never Python's KeyboardInterrupt traceback.  (Should
    the import win the race, the command line's own handlers answer the same way.)"""
    from importlib.metadata import entry_points

    (script,) = [ep for ep in entry_points(group="console_scripts") if ep.name == "pyomo-mbdyn"]
    assert script.value == "_pyomo_mbdyn_launch:main"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYOMO_MBDYN_LAUNCH_TRACE": "1"}
    extra = ["--json"] if with_json else []
    proc = subprocess.Popen([sys.executable, "-m", "_pyomo_mbdyn_launch", "run", "three-link-arm", "--steps", "640",
                             "--coarsest", "40", *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    first = proc.stderr.readline()
    assert first == "pyomo-mbdyn: importing\n"
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=600)
    name = signal.Signals(signum).name
    assert proc.returncode == status, (out, err)
    assert "Traceback" not in err and err.strip().splitlines()[-1] == f"pyomo-mbdyn: interrupted ({name})"
    if with_json:
        (line,) = out.strip().splitlines()
        assert json.loads(line)["status"] == "interrupted"
