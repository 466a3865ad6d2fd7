"""One rule for a number of time steps N everywhere (issue 50: ``steps=40.0`` was refused by
``run`` but accepted by a block, the guesses and ``simulate``): a whole number ≥ 1 — an int, a
numpy integer or a float with a whole value — by :func:`pyomo_mbdyn.mechanics.numeric.step_count`,
with the same words wherever it is refused."""

import json

import numpy as np
import pytest

from pyomo_mbdyn.cli import main
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.mechanics.numeric import step_count
from pyomo_mbdyn.ocp import interpolated_trajectory
from pyomo_mbdyn.simulate import simulate
from test_bad_input import block, pendulum

RULE = "steps must be a whole number ≥ 1 (the number of time steps N)"


def _block_steps(steps):
    return len(block(steps=steps).dyn.trajectory().t) - 1


def _guess_steps(steps):
    return len(interpolated_trajectory(pendulum(), 0.1, steps, [1.0]).q) - 1


def _simulated_steps(steps):
    system = pendulum()
    return len(simulate(system, system.q0, np.zeros(system.n), 0.1, steps).t) - 1


ENTRY_POINTS = [_block_steps, _guess_steps, _simulated_steps, lambda steps: step_count(steps, "x")]


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=["block", "guess", "simulate", "step_count"])
@pytest.mark.parametrize("steps", [4, 4.0, np.int64(4), np.float64(4.0)], ids=repr)
def test_a_whole_number_is_taken_everywhere_as_that_many_steps(entry, steps):
    assert entry(steps) == 4


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=["block", "guess", "simulate", "step_count"])
@pytest.mark.parametrize("steps", [0, -2, 2.5, True, np.bool_(True), "4", float("inf"), float("nan")],
                         ids=repr)
def test_anything_else_is_refused_everywhere_in_the_same_words(entry, steps):
    with pytest.raises(ConfigurationError) as err:
        entry(steps)
    assert "steps must be a whole number ≥ 1" in str(err.value) and repr(steps) in str(err.value)


def test_the_command_line_takes_the_same_rule(capsys):
    assert main(["run", "pendulum", "--steps", "6.0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "optimal"
    assert main(["run", "pendulum", "--steps", "6.5", "--json"]) == 2
    assert RULE in json.loads(capsys.readouterr().out)["error"]
