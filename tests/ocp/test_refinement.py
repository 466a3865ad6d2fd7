"""Grid refinement (``solve_refined``) and its use by ``pyomo-mbdyn run`` (issue 14)."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.cli import main
from pyomo_mbdyn.errors import SolveFailedError
from pyomo_mbdyn.models import crane, pendulum, satellite_spin, three_link_arm
from pyomo_mbdyn.ocp import refinable, refinement_grids, solve, solve_refined
from pyomo_mbdyn.ocp.solve import REFINED_STAGE_OPTIONS, _with_defaults
from pyomo_mbdyn.solvers.ampl_driver import IPOPT_DEFAULTS, with_ipopt_defaults
from pyomo_mbdyn.solvers import get_solver


def _objective(model):
    import pyomo.environ as pyo

    return pyo.value(next(model.component_data_objects(pyo.Objective, active=True)))


@given(st.integers(1, 5000), st.integers(1, 200), st.integers(2, 8))
def test_refinement_grids_divide_down_to_the_coarsest(steps, coarsest, ratio):
    grids = refinement_grids(steps, coarsest, ratio)
    assert grids[-1] == steps
    assert all(b % a == 0 and 2 <= b // a <= ratio for a, b in zip(grids, grids[1:]))
    assert len(grids) == 1 or grids[0] >= coarsest
    # the coarsest grid cannot be divided once more without going below ``coarsest``
    assert not any(grids[0] % k == 0 and grids[0] // k >= coarsest for k in range(2, ratio + 1))


@pytest.fixture(scope="module")
def crane_refined():
    stages = []
    model, results = solve_refined(lambda n: crane.build("bem", steps=n), 160, coarsest=40,
                                   ratio=2, solver="casadi_ipopt", report=stages.append)
    return model, results, stages


def test_refined_crane_reaches_the_direct_optimum(crane_refined):
    """N = 160 from N = 40 (two halvings) ends where the direct solve from the
    interpolated guess ends (J = 83 256.67686…, benchmarks/README.md)."""
    model, results, stages = crane_refined
    direct = crane.build("bem", steps=160)
    solve(direct, "casadi_ipopt")
    assert model.dyn.config.steps == 160
    assert str(results.solver.termination_condition) == "optimal"
    assert _objective(model) == pytest.approx(_objective(direct), rel=1e-9)
    assert _objective(model) == pytest.approx(83256.67686, rel=1e-9)


def test_refinement_stages_are_reported_in_order(crane_refined):
    _, _, stages = crane_refined
    assert [s["steps"] for s in stages] == [40, 80, 160]
    assert [s["start"] for s in stages] == ["guess", "refined", "refined"]
    assert all(s["status"] == "optimal" and s["iterations"] > 0 for s in stages)
    assert all(s["build_seconds"] > 0 and s["solve_seconds"] > 0 for s in stages)
    # J(N) decreases towards the continuous optimum as O(h²): differences shrink ≈ 4×
    J = [s["objective"] for s in stages]
    assert J[0] > J[1] > J[2]
    assert 3.0 < (J[0] - J[1]) / (J[1] - J[2]) < 5.0


def test_refined_stages_start_near_the_solution():
    """From the refined guess a stage needs few iterations (crane REM 80 → 160: 4;
    from the interpolated guess at N = 160: 6)."""
    stages = []
    solve_refined(lambda n: crane.build("rem", steps=n), 160, coarsest=80,
                  solver="casadi_ipopt", report=stages.append)
    assert stages[1]["start"] == "refined" and stages[1]["iterations"] <= 5


def test_a_failed_stage_is_named():
    with pytest.raises(SolveFailedError, match=r"stage N = 40") as info:
        solve_refined(lambda n: crane.build("bem", steps=n), 80, coarsest=40,
                      solver="casadi_ipopt", options={"max_iter": 1})
    assert info.value.status == "maxIterations"


def test_ipopt_defaults_are_added_but_never_override():
    """One table of IPOPT defaults, applied by the IPOPT plugins; the user's options win,
    MUMPS's options only with MUMPS; the refined stages' options only where unset."""
    assert with_ipopt_defaults({}) == IPOPT_DEFAULTS
    assert with_ipopt_defaults({"mumps_pivtol": 1e-2})["mumps_pivtol"] == 1e-2
    assert not any(k.startswith("mumps_") for k in with_ipopt_defaults({"linear_solver": "ma27"}))
    opt = get_solver("casadi_ipopt")
    assert _with_defaults(opt, None, REFINED_STAGE_OPTIONS) == REFINED_STAGE_OPTIONS
    opt.options["constr_mult_init_max"] = 5.0
    assert "constr_mult_init_max" not in _with_defaults(opt, {}, REFINED_STAGE_OPTIONS)


def test_models_that_can_be_refined():
    """Direct optimal control with a chart: yes; forward simulation (no objective)
    and indirect DNCO: no — ``run`` solves those on the requested grid."""
    assert refinable(crane.build("rem", steps=8))
    assert refinable(three_link_arm.build("gc", steps=4))
    assert not refinable(satellite_spin.build(steps=4))
    assert not refinable(pendulum.build(steps=8))


def test_run_prints_the_refinement_stages(capsys):
    """Above 2 × coarsest steps ``run`` refines: N = 40, then 160 (4 × 40), one line each."""
    assert main(["run", "crane", "--steps", "160", "--coarsest", "40"]) == 0
    out = capsys.readouterr().out.splitlines()
    stages = [line for line in out if line.startswith("stage N = ")]
    assert [line.split()[3].rstrip(":") for line in stages] == ["40", "160"]
    assert "from the model's guess" in stages[0] and "from the grid before" in stages[1]
    assert any(line.split()[:2] == ["steps", "160"] for line in out)
    assert any(line.split()[:2] == ["stages", "2"] for line in out)


def test_run_json_carries_the_stages(capsys):
    assert main(["run", "crane", "--scheme", "rem", "--steps", "240", "--coarsest", "40",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)  # exactly one object
    assert [s["steps"] for s in result["stages"]] == [40, 240]
    assert result["steps"] == 240 and result["status"] == "optimal"
    assert result["iterations"] == sum(s["iterations"] for s in result["stages"])
    assert result["objective"] == pytest.approx(result["stages"][-1]["objective"])
    direct = crane.build("rem", steps=240)
    solve(direct, "casadi_ipopt")
    assert result["objective"] == pytest.approx(_objective(direct), rel=1e-9)


def test_run_without_refinement_has_no_stages(capsys):
    assert main(["run", "crane", "--steps", "160", "--coarsest", "40", "--no-refine",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert "stages" not in result and result["steps"] == 160
    assert result["objective"] == pytest.approx(83256.67686, rel=1e-9)


@pytest.mark.slow
def test_arm_rem_converges_at_n320_from_its_guess():
    """The stall of issue 14 (IPOPT from the interpolated guess at N = 320, lifted
    configurations) was MUMPS's pivot tolerance: with the library's IPOPT defaults
    (IPOPT_DEFAULTS) it converges directly."""
    m = three_link_arm.build("rem", steps=320, configurations="lifted")
    results = solve(m, "casadi_ipopt", options={"tol": 1e-8})
    assert _objective(m) == pytest.approx(3981054.52603, rel=1e-10)
    assert results.solver.iterations <= 12


def test_refined_guess_accepts_constraints_held_to_solver_tolerance():
    """A solved coarse trajectory fulfils the constraints to the solver's tolerance
    only (the sphere's lifted DMOCC at N = 80 over three turns: 3.9e-9, which the
    chart inverse's default 1e-9 refused — `run sphere --steps 640` crashed); a
    node far from the constraint manifold is a named error."""
    import numpy as np

    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.models import sphere
    from pyomo_mbdyn.ocp import interpolated_trajectory, refined_trajectory

    system = sphere.build_system()
    coarse = interpolated_trajectory(system, 0.25, 8, np.array([1.0, 0.5, 0.2, 2.0, -1.0, 0.5]))
    rng = np.random.default_rng(3)
    noisy = coarse.q + 1e-8 * rng.standard_normal(coarse.q.shape)
    fine = refined_trajectory(system, 0.125, 16, type(coarse).of_system(
        system, coarse.t, noisy, coarse.v, coarse.u, coarse.nu, {}))
    assert np.abs(fine.q[-1] - coarse.q[-1]).max() < 1e-7
    bad = noisy.copy()
    bad[3, 3:6] *= 1.5  # directors no longer orthonormal
    with pytest.raises(ConfigurationError, match="node 3 of the coarse trajectory"):
        refined_trajectory(system, 0.125, 16, type(coarse).of_system(
            system, coarse.t, bad, coarse.v, coarse.u, coarse.nu, {}))


def test_refinement_falls_back_to_the_guess_where_the_chart_cannot_follow(caplog):
    """The sphere turns three times: the rotation-vector chart is singular at |θ| = 2π
    and cannot be followed through the coarse solution; the finer stage then starts
    from the model's own guess (a warning says so) and still converges."""
    from pyomo_mbdyn.models import sphere

    stages = []
    with caplog.at_level("WARNING", logger="pyomo_mbdyn.ocp"):
        m, results = solve_refined(lambda n: sphere.build(steps=n), 160, coarsest=80, report=stages.append)
    assert [s["start"] for s in stages] == ["guess", "guess (chart)"]
    assert "starts from the model's own guess" in caplog.text
    assert str(results.solver.termination_condition) == "optimal"
