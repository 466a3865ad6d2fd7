"""Option files only when named: a file planted in the working directory takes nothing over.

IPOPT reads ``./ipopt.opt`` and CasADi's Bonmin ``./bonmin.opt`` whenever the
working directory holds one.  A planted file with the convergence tolerances at
1e20 made ``pyomo-mbdyn run three-link-arm`` report "optimal" after 0 iterations
at J = 7.80e6 (the optimum 3.99e6), and ``output_file`` with ``file_print_level
5`` overwrote any file the user could write with the solver log (issue 46).

Each test solves the same problem without and with the planted files in a
temporary working directory: J, the iteration count and the point are the same,
and the file the planted ``output_file`` names is neither created nor changed.
That the planted files would take the solve over is shown too: named with
``option_file_name`` (the way to use an option file), the same file does.
In process, CasADi's Bonmin cannot be kept from reading ``./bonmin.opt``: an
unnamed one is refused by name and nothing of it is read or written.
"""

import functools
import json
import os
import subprocess
import sys

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.models import three_link_arm
from pyomo_mbdyn.solvers.ampl_driver import read_option_file

from test_bonmin_options import knapsack as _knapsack

#: a small MINLP (binary knapsack, convex quadratic penalty): a few Bonmin nodes, each an IPOPT solve
knapsack = functools.partial(_knapsack, 12)

IPOPT_PATHS = ["casadi_ipopt", "casadi_ipopt_nl"]
STEPS = 10
LOOSE = "tol 1e20\ndual_inf_tol 1e20\nconstr_viol_tol 1e20\ncompl_inf_tol 1e20\n"


def plant(directory, victim):
    """The hostile files: IPOPT's and Bonmin's, both stopping at once and writing the
    log at level 5 over ``victim``.  Returns ``victim``'s content before the solve."""
    log = f"output_file {victim}\nfile_print_level 5\n"
    (directory / "ipopt.opt").write_text(LOOSE + log)
    (directory / "bonmin.opt").write_text("bonmin.algorithm B-BB\nbonmin.node_limit 1\nmax_iter 1\n"
                                          + LOOSE + log)
    victim.write_text("the user's file\n")
    return victim.read_text()


def arm():
    return three_link_arm.build(steps=STEPS)




def solve(build, name, **options):
    m = build()
    result = pyo.SolverFactory(name).solve(m, options=options)
    objective = next(m.component_data_objects(pyo.Objective, active=True))
    x = np.array([v.value for v in m.component_data_objects(pyo.Var) if v.value is not None])
    return (str(result.solver.termination_condition), result.solver.iterations,
            pyo.value(objective, exception=False), x)


def same(a, b):
    assert a[:3] == b[:3]
    np.testing.assert_array_equal(a[3], b[3])


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("name", IPOPT_PATHS)
def test_planted_ipopt_opt_changes_nothing(name, workdir):
    clean = solve(arm, name)
    assert clean[0] == "optimal" and clean[1] > 0
    victim = workdir / "victim.txt"
    before = plant(workdir, victim)
    same(solve(arm, name), clean)
    assert victim.read_text() == before
    # the same file, named, is read: IPOPT stops at the start and the log overwrites the victim
    hijacked = solve(arm, name, option_file_name="ipopt.opt")
    assert hijacked[1] == 0 and hijacked[2] > 1.5 * clean[2]
    assert victim.read_text() != before and "iter" in victim.read_text()


def test_bonmin_nl_ignores_planted_files(workdir):
    clean = solve(knapsack, "casadi_bonmin_nl")
    assert clean[0] == "optimal"
    victim = workdir / "victim.txt"
    before = plant(workdir, victim)
    same(solve(knapsack, "casadi_bonmin_nl"), clean)
    assert victim.read_text() == before
    # named, the planted bonmin.opt is read: one node, no search, the log over the victim
    hijacked = solve(knapsack, "casadi_bonmin_nl", option_file_name="bonmin.opt")
    assert hijacked[2] > clean[2] + 1e-6
    assert victim.read_text() != before


def test_bonmin_in_process_refuses_an_unnamed_bonmin_opt(workdir):
    clean = solve(knapsack, "casadi_bonmin")
    assert clean[0] == "optimal"
    same(clean, solve(knapsack, "casadi_bonmin_nl"))
    victim = workdir / "victim.txt"
    before = plant(workdir, victim)
    os.rename(workdir / "bonmin.opt", workdir / "kept.opt")
    # ipopt.opt alone: Bonmin's NLP solves do not read it
    same(solve(knapsack, "casadi_bonmin"), clean)
    os.rename(workdir / "kept.opt", workdir / "bonmin.opt")
    with pytest.raises(ConfigurationError, match=r"bonmin\.opt.*option_file_name"):
        solve(knapsack, "casadi_bonmin")
    assert victim.read_text() == before
    # named, it is used (read into the options; Bonmin's own reading agrees)
    hijacked = solve(knapsack, "casadi_bonmin", option_file_name="bonmin.opt")
    assert hijacked[2] > clean[2] + 1e-6
    assert victim.read_text() != before


@pytest.mark.parametrize("name", IPOPT_PATHS + ["casadi_bonmin", "casadi_bonmin_nl"])
def test_named_option_file_is_read(name, workdir):
    """``option_file_name`` anywhere (here a relative name, outside any default) is read."""
    (workdir / "sub").mkdir()
    (workdir / "sub" / "limits.txt").write_text("# one iteration only\nmax_iter 1\n")
    if "ipopt" in name:
        status, iterations, _, _ = solve(arm, name, option_file_name="sub/limits.txt")
        assert status == "maxIterations" and iterations == 1
    else:  # every NLP of the search stopped after one iteration: no optimum found
        (workdir / "sub" / "limits.txt").write_text("max_iter 0\nbonmin.node_limit 1\n")
        status = solve(knapsack, name, option_file_name="sub/limits.txt")[0]
        assert status != "optimal"


@pytest.mark.parametrize("name", IPOPT_PATHS + ["casadi_bonmin", "casadi_bonmin_nl"])
def test_a_missing_named_file_is_refused_by_name(name, workdir):
    build = arm if "ipopt" in name else knapsack
    with pytest.raises(ConfigurationError, match=r"option_file_name.*missing\.opt.*not a readable file"):
        solve(build, name, option_file_name="missing.opt")


def test_named_output_file_is_written_where_named(workdir):
    """The AMPL driver solves in a directory of its own; an ``output_file`` the user names
    (relative) still lands in the user's directory."""
    status = solve(arm, "casadi_ipopt_nl", output_file="ipopt.log", file_print_level=3)[0]
    assert status == "optimal"
    assert "Optimal Solution Found" in (workdir / "ipopt.log").read_text()


def test_read_option_file(tmp_path):
    path = tmp_path / "x.opt"
    path.write_text('# comment\ntol 1e-9   # trailing\nmax_iter 12\nlinear_solver "mumps"\n'
                    'bonmin.algorithm B-OA\n')
    assert read_option_file(path) == {"tol": 1e-9, "max_iter": 12, "linear_solver": "mumps",
                                      "bonmin.algorithm": "B-OA"}
    path.write_text("tol\n")
    with pytest.raises(ValueError, match="'tol' has no value"):
        read_option_file(path)


def test_cli_run_ignores_planted_files(tmp_path):
    """``pyomo-mbdyn run three-link-arm --json`` from a directory holding the planted files
    gives the J and iterations it gives from a clean one."""

    def run(cwd):
        proc = subprocess.run([sys.executable, "-m", "pyomo_mbdyn.cli", "run", "three-link-arm", "--json",
                               "--steps", str(STEPS)], cwd=cwd, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        return out["status"], out["iterations"], out["objective"]

    (tmp_path / "clean").mkdir()
    (tmp_path / "planted").mkdir()
    victim = tmp_path / "victim.txt"
    before = plant(tmp_path / "planted", victim)
    clean = run(tmp_path / "clean")
    assert clean[0] == "optimal" and clean[1] > 0
    assert run(tmp_path / "planted") == clean
    assert victim.read_text() == before


FAKE_IPOPT = """#!{python}
# an 'ipopt' executable for the test: answers -v, records its command line, solves with the driver
import subprocess, sys
if sys.argv[1:] == ["-v"]:
    print("Ipopt 3.14.19 (Linux x86_64), ASL(20231111)")
    sys.exit(0)
with open({record!r}, "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\\n")
sys.exit(subprocess.call([sys.executable, "-I", {driver!r}, "ipopt"] + sys.argv[1:]))
"""


def test_ipopt_executable_from_get_solver_is_given_an_empty_option_file(tmp_path, monkeypatch):
    """The ``ipopt`` executable that :func:`get_solver` prefers gets ``option_file_name=/dev/null``
    (no ``./ipopt.opt``) unless an option names a file (``OF_`` options: Pyomo's own file)."""
    from pyomo.common import Executable

    from pyomo_mbdyn import get_solver
    from pyomo_mbdyn.solvers import ampl_driver

    bin_dir, record = tmp_path / "bin", tmp_path / "argv.txt"
    bin_dir.mkdir()
    fake = bin_dir / "ipopt"
    fake.write_text(FAKE_IPOPT.format(python=sys.executable, record=str(record), driver=ampl_driver.__file__))
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    Executable.rehash()
    try:
        solver = get_solver(model=arm())
        assert solver.name == "ipopt" and solver.executable() == str(fake)
        assert str(solver.solve(arm()).solver.termination_condition) == "optimal"
        result = solver.solve(arm(), options={"OF_max_iter": 1}, load_solutions=False)
        assert str(result.solver.termination_condition) == "maxIterations"
        (tmp_path / "named.opt").write_text("max_iter 2\n")
        result = solver.solve(arm(), options={"option_file_name": str(tmp_path / "named.opt")},
                              load_solutions=False)
        assert str(result.solver.termination_condition) == "maxIterations"
    finally:
        monkeypatch.undo()
        Executable.rehash()
    default, of_options, named = record.read_text().splitlines()
    assert f"option_file_name={os.devnull}" in default.split()
    assert [a for a in of_options.split() if a.startswith("option_file_name=")] == \
        [a for a in of_options.split() if a.endswith("_ipopt.opt")] != []
    assert named.split().count(f"option_file_name={tmp_path / 'named.opt'}") == 1
    assert f"option_file_name={os.devnull}" not in named.split()
