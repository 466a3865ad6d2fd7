"""Study edge cases of issue 46.3 and 46.8 that are not about a running study's interrupt.

* a grid whose values are generators (read once) is swept, not an empty table
  (it was ``KeyError: 'objective'``);
* a task time limit beyond what the operating system's wait takes (1e308 s) is waited
  for in slices at the pool level (it was ``OverflowError``);
* the study's worker processes start with SIGINT blocked, so that a Ctrl-C in the
  terminal (sent to every process of the group) while a worker is still starting
  cannot print a ``KeyboardInterrupt`` traceback of the worker's own;
* a Ctrl-C while the command line builds its parser ends with the one line and 130;
* ``perturb_chart`` on a Hamiltonian system (the DNCO's particle) is a named
  ConfigurationError, which ``perturb="auto"`` answers by moving every variable
  (it was ``AttributeError: 'HamiltonianSystem' object has no attribute 'n_velocities'``).
"""

import signal

import numpy as np
import pytest

from pyomo_mbdyn import cli
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.models import particle
from pyomo_mbdyn.ocp.guess import perturb_chart
from pyomo_mbdyn.studies import sweep
from pyomo_mbdyn.studies.pool import run_supervised


def _sigint_blocked(_):
    """In a worker: is SIGINT blocked, and is it ignored?"""
    return (signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []),
            signal.getsignal(signal.SIGINT) is signal.SIG_IGN)


def test_a_grid_of_generators_is_swept_point_by_point():
    table = sweep("particle", {"steps": (n for n in (4, 5)), "scheme": iter(["dnco"])}, workers=1)
    assert list(table["steps"]) == [4, 5] and list(table["scheme"]) == ["dnco", "dnco"]
    assert list(table["status"]) == ["optimal", "optimal"], list(table["message"])
    assert (table["objective"] >= 0).all()


def test_an_empty_generator_in_the_grid_is_named():
    with pytest.raises(ConfigurationError, match=r"grid\['steps'\] is empty"):
        sweep("particle", {"steps": (n for n in ())}, workers=1)


def test_a_time_limit_beyond_the_systems_wait_is_waited_for_in_slices():
    outcomes = list(run_supervised([-1, -2, 3], abs, 1, timeout=1e308))
    assert sorted((task, result, failure) for task, result, failure in outcomes) == \
        [(-2, 2, None), (-1, 1, None), (3, 3, None)]


def test_workers_start_with_sigint_blocked_and_ignored():
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    [(task, result, failure)] = run_supervised([0], _sigint_blocked, 1)
    assert failure is None and result == (True, True)
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before  # the parent's mask is restored


def test_ctrl_c_while_the_parser_is_built_ends_with_one_line(monkeypatch, capsys):
    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["multistart", "particle", "--starts", "2"]) == 130
    out, err = capsys.readouterr()
    assert out == "" and err == "pyomo-mbdyn: interrupted (SIGINT)\n"


def test_perturb_chart_on_a_hamiltonian_system_is_named():
    model = particle.build(steps=4)
    with pytest.raises(ConfigurationError, match=r"perturb_chart: .*'particle' \(HamiltonianSystem\) has no chart"):
        perturb_chart(model, 0.01, np.random.default_rng(0))
