"""The solver plugins on their failure paths: files cleaned up, the driver isolated,
time limits, crashes told from handled failures, evaluation errors named.

Every failure path of the AMPL-protocol plugin (``casadi_ipopt_nl``) is run with
Pyomo's temporary directory pointed at an empty directory, which must be empty
again afterwards, with Pyomo's temporary-file context stack as it was.
"""

import os
import stat

import pyomo.environ as pyo
import pytest
from pyomo.common.tempfiles import TempfileManager

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.errors import ConfigurationError, MbdynError, SolverError, UnsupportedModelError
from pyomo_mbdyn.solvers import casadi_plugin


def _model():
    m = pyo.ConcreteModel("small")
    m.x = pyo.Var(initialize=1.0, bounds=(-5, 5))
    m.y = pyo.Var(initialize=1.0)
    m.c = pyo.Constraint(expr=m.x**2 + m.y**2 == 1)
    m.o = pyo.Objective(expr=(m.x - 2) ** 2 + m.y)
    return m


def _with_binary():
    m = _model()
    m.b = pyo.Var(domain=pyo.Binary, initialize=0)
    m.d = pyo.Constraint(expr=m.x <= 1 + m.b)
    return m


def _with_if():
    m = _model()
    m.e = pyo.Constraint(expr=pyo.Expr_if(m.x >= 0, m.x, -m.x) <= 3)
    return m


@pytest.fixture
def tempdir(tmp_path):
    before = TempfileManager.tempdir  # (a thread-local proxy: set and restore by hand)
    TempfileManager.tempdir = str(tmp_path)
    depth = len(TempfileManager._context_stack)
    try:
        yield tmp_path
    finally:
        TempfileManager.tempdir = before
    assert sorted(os.listdir(tmp_path)) == []
    assert len(TempfileManager._context_stack) == depth


@pytest.mark.parametrize("build, options, error, match", [
    (_with_binary, {}, UnsupportedModelError, "integer or binary variables \\(b\\)"),
    (_with_if, {}, UnsupportedModelError, "constraint 'e'"),
    (_model, {"no_such_option": 1}, ConfigurationError, "rejected its options"),
], ids=["discrete", "expr_if", "option"])
def test_refusals_leave_no_file_behind(tempdir, build, options, error, match):
    solver = pyo.SolverFactory("casadi_ipopt_nl")
    for key, value in options.items():
        solver.options[key] = value
    with pytest.raises(error, match=match):
        solver.solve(build())


def test_a_timed_out_process_is_max_time_limit_and_leaves_no_file(tempdir, monkeypatch):
    # the process gets timelimit + TIMEOUT_GRACE (+ Pyomo's 1 s); made 0.01 s here
    monkeypatch.setattr(casadi_plugin, "TIMEOUT_GRACE", -1.99)
    m = _model()
    results = pyo.SolverFactory("casadi_ipopt_nl").solve(m, timelimit=1.0)
    assert results.solver.termination_condition == pyo.TerminationCondition.maxTimeLimit
    assert "was stopped after" in results.solver.message
    assert pyo.value(m.x) == 1.0  # nothing loaded: the model keeps its start


@pytest.mark.parametrize("name", ["casadi_ipopt", "casadi_ipopt_nl"])
@pytest.mark.parametrize("limit", [0, -1.0, float("nan"), "soon"])
def test_a_timelimit_that_is_not_positive_is_refused(name, limit):
    with pytest.raises(ConfigurationError, match="timelimit must be a positive number of seconds"):
        pyo.SolverFactory(name).solve(_model(), timelimit=limit)


def test_a_crash_is_told_from_a_handled_failure(tempdir, tmp_path_factory):
    """A solver process killed by a signal: a SolverError naming the signal, no file left."""
    bin_dir = tmp_path_factory.mktemp("bin")
    crasher = bin_dir / "python-that-crashes"
    crasher.write_text("#!/bin/sh\nkill -SEGV $$\n")
    crasher.chmod(crasher.stat().st_mode | stat.S_IEXEC)
    solver = pyo.SolverFactory("casadi_ipopt_nl")
    solver.set_executable(str(crasher), validate=False)
    with pytest.raises(SolverError, match="crashed \\(SIGSEGV"):
        solver.solve(_model())


def test_the_driver_ignores_the_working_directory(tmp_path, monkeypatch):
    """A checkout in the working directory cannot shadow what the driver imports."""
    for module in ("casadi", "nl_file", "selection", "numpy"):
        (tmp_path / f"{module}.py").write_text("raise ImportError('shadowed by the working directory')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    results = pyo.SolverFactory("casadi_ipopt_nl").solve(_model())
    assert results.solver.termination_condition == pyo.TerminationCondition.optimal


@pytest.mark.parametrize("name", ["casadi_ipopt", "casadi_ipopt_nl"])
def test_a_non_finite_start_is_refused_by_name(name):
    m = _model()
    m.y.set_value(float("nan"), skip_validation=True)
    with pytest.raises(ConfigurationError, match="non-finite starting values: y = nan") as info:
        pyo.SolverFactory(name).solve(m)
    assert isinstance(info.value, (MbdynError, ValueError))


@pytest.mark.parametrize("name", ["casadi_ipopt", "casadi_ipopt_nl"])
def test_an_evaluation_error_names_the_row(name):
    m = _model()
    m.x.setlb(None)
    m.x.set_value(-1.0)
    m.logarithm = pyo.Constraint(expr=pyo.log(m.x) + m.y >= -10)
    results = pyo.SolverFactory(name).solve(m, load_solutions=False)
    assert results.solver.termination_condition == pyo.TerminationCondition.error
    assert "Invalid number" in results.solver.message
    assert "At the starting point: logarithm (ValueError: math domain error)" in results.solver.message


def _nonsmooth(kind):
    from pyomo.core.expr import MaxExpression, MinExpression

    m = _model()
    term = {"abs": lambda: abs(m.x - 1), "max": lambda: MaxExpression((m.x, m.y)),
            "min": lambda: MinExpression((m.x, m.y)), "floor": lambda: pyo.floor(m.x)}[kind]()
    m.kink = pyo.Constraint(expr=term <= 2)
    return m


@pytest.mark.parametrize("name", ["casadi_ipopt", "casadi_ipopt_nl"])
@pytest.mark.parametrize("kind", ["abs", "max", "min", "floor"])
def test_nonsmooth_functions_are_refused_by_name(tempdir, name, kind):
    """IPOPT assumes twice-differentiable functions: abs/min/max/floor refused, the row named,
    a smooth reformulation suggested (both paths; Pyomo's .nl writer cannot write min/max)."""
    with pytest.raises(UnsupportedModelError, match=f"{kind}\\(\\).*constraint 'kink'|constraint 'kink'.*") as info:
        pyo.SolverFactory(name).solve(_nonsmooth(kind))
    assert f"{kind}()" in str(info.value) and "kink" in str(info.value)
    assert isinstance(info.value, ValueError)
