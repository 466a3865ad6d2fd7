"""Defaults that solve (issue 46, item 7): a model's default start reaches an optimum, or the
model says by name why the request cannot be met — never a failure inside its guess.

- The crane with the Lobatto pair starts from the REM optimum, simulated by the scheme
  (tests/schemes/test_fourth_order.py checks the optimum); ``run`` reports the start.
- The satellite below its default grid (N < 50) simulates its guess on 50 steps and samples
  it at the coarse nodes (at N = 10 the scheme's Newton step could not follow the rotors);
  a grid too coarse for the rotors to turn as far as the reorientation needs under the
  increment bound is refused with the number of steps that can.
"""

import numpy as np
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.models import satellite
from pyomo_mbdyn.studies.run import solve_model


@pytest.mark.parametrize("scheme", ["lobatto", "lobatto_gc"])
def test_run_reports_the_lobatto_pair_s_start_on_the_crane(scheme):
    result, model = solve_model("crane", scheme=scheme, steps=20)
    assert result["status"] == "optimal"
    assert result["start"] == model.start_description
    assert result["start"].startswith("the rem optimum (N = 20") and result["start"].endswith(scheme)


@pytest.mark.parametrize("steps", [30, 49])
def test_satellite_below_its_default_grid_starts_from_a_sampled_finer_simulation(steps):
    result, model = solve_model("satellite", steps=steps)
    assert result["status"] == "optimal"
    assert result["momentum_error"] < 1e-9  # the discrete motion keeps the zero angular momentum
    L = model.dyn.trajectory().diagnostics()[["Lx", "Ly", "Lz"]].to_numpy()
    assert np.abs(L).max() < 1e-9


@pytest.mark.parametrize("steps", [4, 10, 20])
def test_satellite_on_a_grid_too_coarse_for_its_rotors_is_refused_by_name(steps):
    with pytest.raises(ConfigurationError, match=rf"satellite: {steps} steps cannot turn the rotors by the "
                                                 r"[0-9.]+ rad .* increment_bound = 1 rad .* use steps ≥ 21"):
        satellite.build(steps=steps)


@pytest.mark.parametrize("steps", [4, 10])
def test_run_satellite_on_a_coarse_grid_is_refused_in_one_line(capsys, steps):
    """``pyomo-mbdyn run satellite --steps 10`` used to fail inside its simulated guess (Newton,
    step 2); now the request is refused before anything is simulated, with the reason."""
    from pyomo_mbdyn.cli import main

    assert main(["run", "satellite", "--steps", str(steps)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert err.startswith(f"pyomo-mbdyn: satellite: {steps} steps cannot turn the rotors") and "steps ≥ 21" in err


def test_satellite_takes_each_scheme_s_own_configuration_form_by_default():
    """``configurations`` defaults per scheme (DMOCC's ``"absolute"``, GC its chart): ``run
    satellite --scheme gc`` solves instead of refusing DMOCC's form by name."""
    result, model = solve_model("satellite", scheme="gc")
    assert result["status"] == "optimal" and model.dyn.configurations == "chart"
    assert satellite.build("dmocc", steps=50).dyn.configurations == "absolute"
