"""Models as parameterised families: every option through ``pyomo-mbdyn run MODEL --set … --json``.

Each test runs the command line in process (``cli.main``) and checks the
result against what is computed independently here — a paper's printed value,
a closed form, a symmetry, a scaling law, the physics of the variant — never a
number taken from an earlier run of the same code.  ``--save`` writes the solved
trajectory where a check needs the motion itself.
"""

import json

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from pyomo_mbdyn import results
from pyomo_mbdyn.cli import main
from pyomo_mbdyn.models import MODELS, options


def run(capsys, model, *arguments, expect=0):
    """``pyomo-mbdyn run MODEL ARGUMENTS --json`` → the result object."""
    code = main(["run", model, *arguments, "--json"])
    out = capsys.readouterr().out.strip().splitlines()
    result = json.loads(out[-1])
    assert code == expect, result.get("error")
    return result


def setting(key, value):
    return ["--set", f"{key}={json.dumps(value)}"]


def saved(capsys, tmp_path, model, *arguments):
    """``run`` with ``--save``: (result, trajectory)."""
    path = tmp_path / f"{model}-{len(list(tmp_path.iterdir()))}.npz"
    result = run(capsys, model, *arguments, "--save", str(path))
    return result, results.load(result["saved"])


# -- every option is documented and listed -------------------------------------------------------
@pytest.mark.parametrize("model", sorted(MODELS))
def test_every_option_of_every_model_is_documented_and_listed(model, capsys):
    rows = options(model)
    assert all(row["description"] for row in rows), [row["name"] for row in rows if not row["description"]]
    assert main(["list", "--options", model, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in listed["options"]] == [row["name"] for row in rows]
    assert main(["list", "--options", model]) == 0
    text = capsys.readouterr().out
    assert all(f"  {row['name']} = " in text for row in rows)


def test_an_unknown_model_in_list_options_is_a_bad_request(capsys):
    assert main(["list", "--options", "five-bar"]) == 2
    assert "unknown model 'five-bar'" in capsys.readouterr().err


# -- satellite (DMOCC §7.2) -------------------------------------------------------------------------
PAPER_SATELLITE, PAPER_UNDERACTUATED = 2.8242e6, 2.9168e6


def printed(value, digits=5):
    """``value`` rounded to the paper's significant digits."""
    return float(f"{value:.{digits - 1}e}")


def test_satellite_table_data_against_the_closed_forms_it_rounds(capsys):
    """Table 4.1 as printed moves J by no more than its rounding of the data moves the data."""
    pi = np.pi
    exact = [320 * pi, 256 * pi / 9, 64 * pi, 1024 * pi / 9, 135 * pi, 45 * pi / 16, 135 * pi / 4,
             11 / 12, 5 / 4, 19 / 12]
    table = [1005.3096, 89.3609, 201.0619, 357.4434, 424.1150, 8.8357, 106.0288, 0.9167, 1.25, 1.5833]
    rounding = max(abs(t / e - 1) for t, e in zip(table, exact))
    J_exact = run(capsys, "satellite")["objective"]
    J_table = run(capsys, "satellite", *setting("data", "table"))["objective"]
    assert printed(J_exact) == PAPER_SATELLITE
    assert abs(J_table / PAPER_SATELLITE - 1) <= 1e-4  # the spec's acceptance for the printed data
    assert 0 < abs(J_table / J_exact - 1) <= 2 * rounding


def test_satellite_target_negated_is_the_mirror_motion(capsys, tmp_path):
    """A half turn about -a is a half turn about a (spec §3.2): the same J; the final
    orientation is exp(θ̂) of the target asked for."""
    target = -np.pi / np.sqrt(14) * np.array([1.0, 2.0, 3.0])
    result, trajectory = saved(capsys, tmp_path, "satellite", *setting("target", target.tolist()))
    assert printed(result["objective"]) == PAPER_SATELLITE
    d = trajectory.q[-1, 3:12].reshape(3, 3).T  # main-body directors as columns
    np.testing.assert_allclose(d, Rotation.from_rotvec(target).as_matrix(), atol=1e-7)


def test_satellite_another_target(capsys, tmp_path):
    """A quarter turn about e3 is reached, with the total angular momentum zero throughout."""
    target = [0.0, 0.0, np.pi / 2]
    result, trajectory = saved(capsys, tmp_path, "satellite", *setting("target", target))
    d = trajectory.q[-1, 3:12].reshape(3, 3).T
    np.testing.assert_allclose(d, Rotation.from_rotvec(target).as_matrix(), atol=1e-7)
    assert result["momentum_error"] < 1e-6
    assert 0 < result["objective"] < PAPER_SATELLITE  # a smaller turn costs less than the half turn


def test_satellite_without_rotor_3_is_the_papers_underactuated_case(capsys):
    removed = run(capsys, "satellite", *setting("remove_rotor", 3), *setting("guess", "interpolate"))
    assert printed(removed["objective"]) == PAPER_UNDERACTUATED
    kept = run(capsys, "satellite", *setting("rotors", [1, 2]), *setting("guess", "interpolate"))
    assert kept["objective"] == pytest.approx(removed["objective"], rel=1e-10)
    refused = run(capsys, "satellite", *setting("remove_rotor", 3), *setting("rotors", [1, 2]), expect=2)
    assert "not both" in refused["error"]


def test_satellite_half_turn_row_increment_bound_and_guess_leave_the_optimum(capsys):
    """The trace row is inactive at the optimum, the rotor steps stay below 0.7 rad, and the
    interpolated guess reaches the same optimum: the paper's J for each."""
    base = run(capsys, "satellite")
    without = run(capsys, "satellite", *setting("exclude_half_turns", False))
    assert without["n_inequalities"] == base["n_inequalities"] - 1
    bounded = run(capsys, "satellite", *setting("increment_bound", 0.7))
    interpolated = run(capsys, "satellite", *setting("guess", "interpolate"))
    for other in (without, bounded, interpolated):
        assert other["objective"] == pytest.approx(base["objective"], rel=1e-8)


def test_satellite_with_every_final_rest_row_has_six_dependent_rows(capsys):
    """final_rest="all" keeps the main body's six rows: they are the total momenta, conserved and
    zero, so six rows are dependent (one per conserved component)."""
    assert main(["diagnose", "satellite", *setting("final_rest", "all"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["diagnosis"]
    assert report["rank_deficiency"] == 6
    default = run(capsys, "satellite")
    assert report["n_equalities"] == default["n_equalities"] + 6


@pytest.mark.slow
def test_satellite_minimal_configurations_reach_the_paper(capsys):
    """The paper's relative (minimal) form; 40 s."""
    result = run(capsys, "satellite", *setting("configurations", "minimal"), *setting("guess", "interpolate"))
    assert printed(result["objective"]) == PAPER_SATELLITE


def test_satellite_options_are_validated(capsys):
    for key, value, pattern in (("data", "rounded", "data must be one of"), ("remove_rotor", 4, "remove_rotor"),
                                ("target", [1, 2], "rotation vector of 3 finite numbers"),
                                ("final_rest", "none", "final_rest must be one of")):
        assert pattern in run(capsys, "satellite", *setting(key, value), expect=2)["error"]


# -- three-link arm (thesis E3) ------------------------------------------------------------------
MASSES = (30.0, 25.0, 10.0)


def test_arm_gravity_enters_the_potential_and_the_energy_balance(capsys, tmp_path):
    """g = 3.71: V = Σ m_i g y_i at every node (the centres of mass read from the directors'
    trajectory here), and the BEM keeps T + V + W to round-off."""
    result, trajectory = saved(capsys, tmp_path, "three-link-arm", "--scheme", "bem",
                               *setting("gravity", 3.71), *setting("configurations", "lifted"))
    table = trajectory.diagnostics() if trajectory.system is not None else None
    y = trajectory.q[:, [1, 13, 25]]
    V = 3.71 * y @ np.array(MASSES)
    from pyomo_mbdyn.models import three_link_arm

    trajectory.system = three_link_arm.build_system(gravity=3.71)
    table = trajectory.diagnostics()
    np.testing.assert_allclose(table["V"], V, rtol=1e-12, atol=1e-9)
    E = (table["T"] + table["V"] + table["W"]).to_numpy()
    assert np.abs(E - E[0]).max() < 1e-8 * np.abs(E).max()
    g981 = run(capsys, "three-link-arm", "--scheme", "bem")
    assert result["objective"] < g981["objective"]  # less weight to carry


def _joint_angles(q):
    """Absolute link angles from d1 (x, y components), relative joint angles by differences."""
    absolute = np.unwrap(np.arctan2(q[:, [4, 16, 28]], q[:, [3, 15, 27]]), axis=0)
    return np.column_stack([absolute[:, 0], np.diff(absolute, axis=1)])


@pytest.mark.parametrize("guess", ["rest", "simulated"])
def test_arm_guesses_reach_the_target_at_rest(guess, capsys, tmp_path):
    """From the thesis's constant guess and from a simulated motion the BEM reaches α_f at rest,
    T + V + W kept; the simulated guess (a motion of the scheme) leads to the optimum of the
    interpolated guess."""
    result, trajectory = saved(capsys, tmp_path, "three-link-arm", "--scheme", "bem",
                               *setting("guess", guess), *setting("configurations", "lifted"))
    alpha = _joint_angles(trajectory.q)
    np.testing.assert_allclose(alpha[-1], [np.pi / 2, 0.0, 0.0], atol=1e-8)
    np.testing.assert_allclose(alpha[0], [np.pi / 2, -np.pi / 2, np.pi / 2], atol=1e-12)
    for link in range(3):  # at rest: ω = ½ Σ d_i × ḋ_i of every link vanishes at t_N
        d, d_dot = trajectory.q[-1, 12 * link + 3:12 * link + 12], trajectory.v[-1, 12 * link + 3:12 * link + 12]
        omega = 0.5 * sum(np.cross(d[3 * i:3 * i + 3], d_dot[3 * i:3 * i + 3]) for i in range(3))
        assert np.abs(omega).max() < 1e-8
    assert result["energy_balance_error"] < 1e-8
    if guess == "simulated":
        interpolated = run(capsys, "three-link-arm", "--scheme", "bem", *setting("configurations", "lifted"))
        assert result["objective"] == pytest.approx(interpolated["objective"], rel=1e-8)


def test_arm_bounded_case_keeps_the_applied_wrist_torque_non_positive(capsys, tmp_path):
    """Case (i): the thesis's ū₃ = -u₃ ≥ 0, i.e. the applied wrist torque u₃ ≤ 0."""
    result, trajectory = saved(capsys, tmp_path, "three-link-arm", *setting("case", "bounded"))
    wrist = trajectory.u[:, 2]
    assert wrist.max() < 1e-7 and wrist.max() > -1e-5  # bound held, and active
    free = run(capsys, "three-link-arm")
    assert result["objective"] > free["objective"]


def test_arm_dnco_gradient_option(capsys):
    """The indirect DNCO with the midpoint gradient: H^d constant for the discrete gradients only."""
    gonzalez = run(capsys, "three-link-arm", "--scheme", "dnco", "--steps", "20")
    midpoint = run(capsys, "three-link-arm", "--scheme", "dnco", "--steps", "20", *setting("gradient", "midpoint"))
    assert gonzalez["hamiltonian_drift"] < 1e-8
    assert midpoint["objective"] == pytest.approx(gonzalez["objective"], rel=0.05)  # both O(h²)
    refused = run(capsys, "three-link-arm", "--scheme", "rem", *setting("gradient", "midpoint"), expect=2)
    assert "gradient applies to the DNCO schemes" in refused["error"]


def test_arm_keep_all_motors_is_the_nlp(capsys):
    """keep_motors=3 of 3: the MINLP has one point, the fully actuated NLP."""
    nlp = run(capsys, "three-link-arm", "--scheme", "gc")
    minlp = run(capsys, "three-link-arm", "--scheme", "gc", *setting("keep_motors", 3))
    assert minlp["active_actuators"] == ["shoulder.angle", "elbow.angle", "wrist.angle"]
    assert minlp["objective"] == pytest.approx(nlp["objective"], rel=1e-7)


# -- crane (thesis E5) --------------------------------------------------------------------------
def test_crane_reduced_final_rest_is_rest_in_the_degrees_of_freedom(capsys, tmp_path):
    """Three rows Pᵀ M v_N = 0 instead of v_N = 0: the tangent part of v_N vanishes (P from the
    thesis's Eq. 7.6, written here), the optimum within solver tolerance, one row fewer."""
    full = run(capsys, "crane")
    result, trajectory = saved(capsys, tmp_path, "crane", *setting("final_rest", "reduced"))
    assert result["n_equalities"] == full["n_equalities"] - 1
    assert result["objective"] == pytest.approx(full["objective"], rel=1e-7)
    s, beta, x, z = trajectory.q[-1]
    r = 0.1
    P = np.array([[1, 0, 0], [0, z, 0], [1, 0, -z], [0, r**2 * beta, x - s]])
    M = np.diag([10.0, 0.1, 100.0, 100.0])
    tangent = P @ np.linalg.solve(P.T @ M @ P, P.T @ M @ trajectory.v[-1])
    assert np.abs(tangent).max() < 1e-8
    lifted = run(capsys, "crane", *setting("final_rest", "reduced"), *setting("configurations", "lifted"))
    assert lifted["objective"] == pytest.approx(result["objective"], rel=1e-7)


# -- sphere (DMOCC §7.1) ------------------------------------------------------------------------
def test_sphere_translation_and_rotation_decouple_and_translation_is_quadratic(capsys):
    """Force and torque act at the centre of an isotropic sphere: J = J_translation(d) + J_rotation,
    with J_translation quadratic in the displacement d (a linear-quadratic problem) and zero for
    no motion."""
    start, target = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 2.0])
    J = run(capsys, "sphere")["objective"]
    assert printed(J, 7) == 533.5767  # the paper
    J_rotation = run(capsys, "sphere", *setting("target", start.tolist()))["objective"]
    J_translation = run(capsys, "sphere", *setting("turns", 0))["objective"]
    J_double = run(capsys, "sphere", *setting("turns", 0),
                   *setting("target", (start + 2 * (target - start)).tolist()))["objective"]
    at_rest = run(capsys, "sphere", *setting("turns", 0), *setting("target", start.tolist()))["objective"]
    assert at_rest < 1e-12
    assert J_double == pytest.approx(4 * J_translation, rel=1e-7)
    assert J == pytest.approx(J_translation + J_rotation, rel=1e-7)


def test_sphere_on_few_steps_guesses_the_turns_its_increment_bound_carries(capsys):
    """Three turns on 10 steps would be 1.88 rad per step, beyond the increment bound (1 rad): the
    default guess makes the one turn the bound carries (and says so) and solves — the same problem
    as asking for one turn — where it ended in IPOPT's "Error in step computation"; three turns
    asked for explicitly are refused by name."""
    from pyomo_mbdyn.errors import ModellingWarning

    with pytest.warns(ModellingWarning, match="the initial guess makes 1 "):
        default = run(capsys, "sphere", "--steps", "10")
    one = run(capsys, "sphere", "--steps", "10", *setting("turns", 1))
    assert default["status"] == one["status"] == "optimal"
    assert default["objective"] == pytest.approx(one["objective"], rel=1e-9)
    refused = run(capsys, "sphere", "--steps", "10", *setting("turns", 3), expect=2)
    assert "use steps >= 19, turns <= 1" in refused["error"]


def test_sphere_lifted_configurations_and_increment_bound(capsys):
    minimal = run(capsys, "sphere", "--steps", "30", *setting("configurations", "minimal"))
    lifted = run(capsys, "sphere", *setting("configurations", "lifted"), *setting("increment_bound", 0.9))
    assert lifted["objective"] == pytest.approx(minimal["objective"], rel=1e-7)


# -- DNCO models (thesis Ch. 8) --------------------------------------------------------------------
@pytest.mark.parametrize("model", ["pendulum", "particle"])
def test_dnco_gradients_conserve_the_discrete_hamiltonian(model, capsys):
    """Every discrete gradient keeps H^d constant along the indirect solution (to the Newton
    tolerance); the three are O(h²) apart in J."""
    values = {}
    for gradient in ("gonzalez", "greenspan", "midpoint"):
        result = run(capsys, model, *setting("gradient", gradient))
        assert result["hamiltonian_drift"] < 1e-9
        values[gradient] = result["objective"]
    spread = max(values.values()) / min(values.values()) - 1
    assert 0 < spread < 0.02
    assert "names another gradient" in run(capsys, model, "--scheme", "dnco-gonzalez",
                                           *setting("gradient", "midpoint"), expect=2)["error"]


# -- minimum-time mass, pitcher, forward-dynamics models ------------------------------------------
def test_minimum_time_mass_options_reach_the_closed_form(capsys):
    """Rest to rest over d with |u| ≤ U: T* = 2√(m d / U) (bang-bang), for other data too."""
    mass, distance, limit = 2.0, 3.0, 1.5
    result = run(capsys, "minimum-time-mass", *setting("mass", mass), *setting("distance", distance),
                 *setting("force_limit", limit), *setting("horizon", 5.0), *setting("bounds", [1.0, 10.0]))
    assert result["horizon"] == pytest.approx(2 * np.sqrt(mass * distance / limit), rel=1e-8)
    effort = run(capsys, "minimum-time-mass", *setting("objective", "effort+time"), *setting("time_weight", 2.0),
                 *setting("configurations", "lifted"))
    assert effort["status"] == "optimal"


def test_pitcher_fixed_time_and_increment_limit(capsys):
    fixed = run(capsys, "pitcher", *setting("free_time", False), *setting("horizon", 0.3))
    assert fixed["horizon"] == pytest.approx(0.3)
    free = run(capsys, "pitcher")
    assert free["objective"] <= fixed["objective"] + 1e-9  # the free time can only do better
    limited = run(capsys, "pitcher", *setting("increment_limit", 0.3), *setting("configurations", "absolute"))
    assert limited["objective"] >= free["objective"] - 1e-9


def test_satellite_spin_variants(capsys):
    """Thesis E1: with the contravariant B the total angular momentum is exact, with the plain
    midpoint B it drifts; rotor torques from rest keep the (zero) momentum exactly."""
    exact = run(capsys, "satellite-spin")
    plain = run(capsys, "satellite-spin", *setting("contravariant", False))
    torque = run(capsys, "satellite-spin", *setting("case", "torque"), *setting("initialize", False))
    assert exact["momentum_error"] < 1e-9 < plain["momentum_error"]
    assert torque["momentum_error"] < 1e-9


def test_heavy_top_from_the_initial_state(capsys):
    """Without the stepper's start IPOPT solves one step from the initial state (more steps need
    the start); the quaternion scheme keeps the energy and the angular momentum about the vertical
    (the symmetry of gravity) to the solver's tolerance (1e-8)."""
    result = run(capsys, "heavy-top", "--steps", "1", *setting("initialize", False))
    assert result["status"] == "optimal"
    assert max(result["momentum_error"], result["energy_balance_error"], result["constraint_residual"]) < 1e-7


def test_actuator_selection_options(capsys):
    """keep=3: every motor, the fully actuated optimum (the paper's J); a fixed cost per kept
    motor adds exactly its sum to the objective of the fixed subset."""
    all_three = run(capsys, "satellite-actuator-selection", *setting("keep", 3))
    assert printed(all_three["objective"]) == PAPER_SATELLITE
    kept = ["axle2.angle", "axle3.angle"]
    plain = run(capsys, "satellite-actuator-selection", *setting("kept", kept), *setting("bound", 3000.0))
    costly = run(capsys, "satellite-actuator-selection", *setting("kept", kept), *setting("cost", 1e5),
                 *setting("increment_bound", 1.0))
    assert costly["objective"] - plain["objective"] == pytest.approx(2e5, rel=1e-6)


def test_satellite_underactuated_options(capsys):
    result = run(capsys, "satellite-underactuated", *setting("exclude_half_turns", True),
                 *setting("increment_bound", 1.0))
    assert printed(result["objective"]) == PAPER_UNDERACTUATED


# -- closed loops: four-bar and slider-crank (issue 20) ---------------------------------------------
def holding_torque(system, q):
    """The crank control that holds the linkage at rest at q: Gᵀγ + Bᵀu = -∇V on the active rows."""
    G = np.asarray(system.active_jacobian(q), float)
    B = np.asarray(system.control_matrix(q), float)[system.actuated_indices]
    A = np.hstack([G.T, B.T])
    x = np.linalg.lstsq(A, -system.potential_gradient(), rcond=None)[0]
    assert np.abs(A @ x + system.potential_gradient()).max() < 1e-12
    return x[G.shape[0]:]


def test_four_bar_target_and_horizon(capsys, tmp_path):
    """The crank ends at the target (read from the saved configuration by the chart, not from the
    model), at rest, after the horizon; with target 0 the optimum costs less than holding still
    with the static torque (a feasible motion of cost ½ T u_s²)."""
    from pyomo_mbdyn.discretization import chart_coordinates
    from pyomo_mbdyn.mechanics import examples

    system = examples.four_bar()
    result, tr = saved(capsys, tmp_path, "four-bar", *setting("target", -0.8), *setting("horizon", 1.5))
    assert result["status"] == "optimal" and result["horizon"] == pytest.approx(1.5)
    theta = chart_coordinates(system, tr.q[-1], atol=1e-10)
    assert theta[0] == pytest.approx(-0.8, abs=1e-9)
    assert result["dropped_constraints"] == ["D[2]", "D[3]", "D[4]"] and result["constraint_residual"] < 1e-12
    still = run(capsys, "four-bar", *setting("target", 0.0))
    u_s = holding_torque(system, system.q0)
    assert 0 < still["objective"] < 0.5 * 1.0 * float(u_s @ u_s)
    assert run(capsys, "four-bar", *setting("target", 3.5), expect=2)["error"].startswith(
        "four-bar: target must lie within (-π, π) rad")


def test_slider_crank_target_reached_and_refused_beyond_the_dead_centres(capsys, tmp_path):
    """The piston's x at t_N (the body's coordinate in the saved trajectory) is the target; a target
    at or beyond a dead centre (L ± r = 0.7, 1.3 m) is refused by name."""
    result, tr = saved(capsys, tmp_path, "slider-crank", *setting("target", 0.8))
    piston = tr.coordinates.index("piston.x")
    assert tr.q[-1, piston] == pytest.approx(0.8, abs=1e-9)
    assert result["piston_final"] == pytest.approx(tr.q[-1, piston], abs=1e-15)
    failed = run(capsys, "slider-crank", *setting("target", 1.3), expect=2)
    assert "target = 1.3 m is not reachable without a dead centre" in failed["error"]
