"""Thesis E1 (Fig. 4.9): the three-rotor satellite with joint friction k = 100.

Every tick of the thesis's J₃ panel for the contravariant B reads 1336.6779;
the plain-midpoint ("kov") B lets J₃ wander (panel 1300–1600).
"""

import json

import numpy as np
import pytest

from pyomo_mbdyn.diagnostics import trajectory_table
from pyomo_mbdyn.models import satellite_spin
from pyomo_mbdyn.simulate import simulate


def _run(steps, contravariant=True, case="friction", scheme="bem"):
    system = satellite_spin.build_system(case)
    q0, v0, u = satellite_spin.initial_state(system, case)
    options = {"contravariant": contravariant} if scheme == "bem" else {}
    tr = simulate(system, q0, v0, satellite_spin.HORIZON / steps, steps, np.tile(u, (steps, 1)),
                  scheme=scheme, **options)
    return trajectory_table(tr)


@pytest.mark.parametrize("steps", satellite_spin.STEPS)
@pytest.mark.parametrize("scheme", ["bem", "rem"])
def test_angular_momentum_stays_at_the_thesis_value(steps, scheme):
    table = _run(steps, scheme=scheme)
    assert np.all(np.round(table["Lz"], 4) == 1336.6779)
    assert np.abs(table["Lz"] - table["Lz"].iloc[0]).max() < 1e-9
    # friction dissipates: T falls, and T + D stays constant
    assert table["T"].iloc[-1] < 0.9 * table["T"].iloc[0]
    assert np.abs(table["E"] - table["E"].iloc[0]).max() < 1e-10 * table["E"].iloc[0]


def test_plain_midpoint_B_does_not_conserve_angular_momentum():
    drift = {}
    for steps in satellite_spin.STEPS:
        table = _run(steps, contravariant=False)
        drift[steps] = np.abs(table["Lz"] - 1336.6779).max()
    # measured: about 180, 40 and 2.6 for N = 5, 20, 80 (thesis panel 1300–1600)
    assert drift[5] > 100 and drift[20] > 10 and drift[80] > 1
    assert drift[5] > drift[20] > drift[80]  # the error shrinks with h


def test_constant_rotor_torques_change_no_total_angular_momentum():
    table = _run(20, case="torque")
    L = table[["Lx", "Ly", "Lz"]].to_numpy()
    assert np.abs(L).max() < 1e-9  # from rest, internal torques only
    assert table["T"].iloc[-1] > 1.0  # but the rotors spin up


def test_cli_runs_the_model_as_a_pyomo_block(capsys):
    from pyomo_mbdyn.cli import main

    assert main(["run", "satellite-spin", "--steps", "5", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("model", "scheme", "steps", "solver", "status", "objective", "n_variables",
                "n_constraints", "iterations", "build_seconds", "solve_seconds",
                "constraint_residual", "energy_balance_error", "momentum_error"):
        assert key in result
    assert result["status"] == "optimal" and result["n_variables"] == result["n_constraints"]
    assert result["energy_balance_error"] < 1e-10 and result["momentum_error"] < 1e-8
