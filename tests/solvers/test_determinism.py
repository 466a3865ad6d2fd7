"""The same model gives the same iterates whatever the machine's BLAS threads (issue 29).

The OpenBLAS inside the casadi wheel is threaded; a threaded dgemm rounds
differently with one thread and with two, so before issue 29 the three-link arm from
a perturbed start ended in other bits (and another iteration count) on another
machine.  The plugins now pin the solver's BLAS to
:data:`pyomo_mbdyn.solvers.threads.BLAS_THREADS` threads around every solve
(in process) or in the solver's environment (the AMPL path).  Each test solves one
problem with the ambient BLAS on one and on two threads and compares IPOPT's
iteration log line by line and the solution bit for bit.
"""

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401  (registers the solver plugins)
from pyomo_mbdyn.models import three_link_arm as arm
from pyomo_mbdyn.ocp.guess import perturb_start
from pyomo_mbdyn.solvers import threads


def _perturbed_arm():
    """The arm's REM problem (N = 20) from start 3 of the multistart at radius 0.1:
    12 iterations, and different last bits with one and two BLAS threads unpinned."""
    m = arm.build()
    perturb_start(m, 0.1, np.random.default_rng([0, 3]))
    m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    return m


def _iteration_lines(log):
    """IPOPT's per-iteration table (objective, infeasibilities, step sizes, …)."""
    rows = []
    for line in log.splitlines():
        fields = line.split()
        if fields and fields[0].rstrip("r").isdigit() and len(fields) >= 9:
            rows.append(line)
    return rows


def _solve(name, **kwds):
    m = _perturbed_arm()
    solver = pyo.SolverFactory(name)
    solver.options["print_level"] = 5
    results = solver.solve(m, logfile="ipopt.log", **kwds)
    assert str(results.solver.termination_condition) == "optimal"
    with open("ipopt.log") as f:
        log = f.read()
    x = np.array([v.value for v in m.component_data_objects(pyo.Var, active=True)], dtype=float)
    duals = np.array([m.dual[c] for c in m.component_data_objects(pyo.Constraint, active=True)], dtype=float)
    return results.solver.iterations, _iteration_lines(log), x, duals


def _same(first, second):
    iterations, lines, x, duals = first
    assert second[0] == iterations and iterations > 0
    assert second[1] == lines and len(lines) == iterations + 1
    assert second[2].tobytes() == x.tobytes()
    assert second[3].tobytes() == duals.tobytes()


def test_in_process_solve_is_independent_of_the_ambient_blas_threads():
    _solve("casadi_ipopt")  # loads IPOPT, MUMPS and their OpenBLAS into this process
    libs = threads.bundled_openblas()
    assert libs, "the casadi wheel's OpenBLAS is loaded after a solve"
    before = [lib.openblas_get_num_threads() for lib in libs]
    try:
        runs = []
        for count in (1, 2):
            for lib in libs:
                lib.openblas_set_num_threads(count)
            runs.append(_solve("casadi_ipopt"))
            assert [lib.openblas_get_num_threads() for lib in libs] == [count] * len(libs)  # restored
    finally:
        for lib, count in zip(libs, before):
            lib.openblas_set_num_threads(count)
    _same(*runs)


def test_blas_threads_sets_and_restores_the_count():
    _solve("casadi_ipopt")
    libs = threads.bundled_openblas()
    before = [lib.openblas_get_num_threads() for lib in libs]
    with threads.blas_threads(1):
        assert [lib.openblas_get_num_threads() for lib in libs] == [1] * len(libs)
        with threads.blas_threads(2):
            assert [lib.openblas_get_num_threads() for lib in libs] == [2] * len(libs)
        assert [lib.openblas_get_num_threads() for lib in libs] == [1] * len(libs)
    assert [lib.openblas_get_num_threads() for lib in libs] == before


def test_ampl_path_solve_is_independent_of_the_ambient_blas_threads(monkeypatch):
    runs = []
    for count in ("1", "2"):
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            monkeypatch.setenv(name, count)
        runs.append(_solve("casadi_ipopt_nl"))
    _same(*runs)


def test_solver_environment_pins_the_child_threads():
    env = threads.solver_environment({"PATH": "/bin", "OPENBLAS_NUM_THREADS": "8"})
    assert env["PATH"] == "/bin"
    assert env["OPENBLAS_NUM_THREADS"] == env["OMP_NUM_THREADS"] == env["MKL_NUM_THREADS"] == "1"
    assert threads.solver_environment({"A": "b"}, threads=3)["OMP_NUM_THREADS"] == "3"


@pytest.mark.parametrize("count", [0, -1, 1.5, True, "2"])
def test_bad_thread_counts_are_refused(count):
    from pyomo_mbdyn.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="BLAS_THREADS|threads"):
        with threads.blas_threads(count):
            pass
