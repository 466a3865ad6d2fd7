"""Thesis E7: a particle in a central gravitational field (indirect Gonzalez DNCO, Eqs. 8.49–8.53).

Measured here (casadi_ipopt, tol 1e-12), indirect, N = 10, 20, 40, 80, 160:
J_d = 0.752671, 0.738788, 0.735417, 0.734581, 0.734372;
H^d = 0.5709907, 0.5720861, 0.5723848, 0.5724609, 0.5724801 (constant over the
intervals to ≤ 1e-14 relative);
avg λ^q₃ = 0.3964851, 0.3909659, 0.3896183, 0.3892833, 0.3891997;
avg λ^p₃ = 0.3051451, 0.2997233, 0.2983821, 0.2980477, 0.2979642.
Differences of consecutive levels shrink by 3.7–4.1 (O(h²)).  The direct
Gonzalez transcription's H^d spreads by 0.0354, 0.0088, 0.0022 (N = 10, 20,
40).  T + V + W with W = -Σ u·Δq is constant to round-off (Gonzalez).

The full ladder N = 10·2ⁱ against the reference N = 1280 (thesis) is in the
``slow`` set (``pytest -m slow``, about two minutes more).
"""

import json

import numpy as np
import pytest
from dnco_solutions import solved

from pyomo_mbdyn.cli import main
from pyomo_mbdyn.ocp.costates import costates

LADDER = (10, 20, 40, 80, 160)


def _quantities(N):
    """(avg λ^q₃, avg λ^p₃, H^d) of the indirect solution."""
    m = solved("particle", "dnco", N)
    lam = costates(m.dyn)
    return np.array([lam[:, 2].mean(), lam[:, 5].mean(), m.dyn.interval_table()["Hd"].iloc[0]])


@pytest.mark.parametrize("steps", LADDER)
def test_indirect_discrete_hamiltonian_is_constant(steps):
    m = solved("particle", "dnco", steps)
    Hd = m.dyn.interval_table()["Hd"].to_numpy()
    assert np.ptp(Hd) < 1e-12 * np.abs(Hd).max()
    E = m.dyn.diagnostics()["E"].to_numpy()
    assert np.ptp(E) < 1e-12 * max(1.0, np.abs(E).max())


def test_solution_satisfies_the_control_equation_and_boundary_data():
    m = solved("particle", "dnco", 20)
    tr = m.dyn.trajectory()
    t, x, u, lam = tr.t, np.hstack([tr.q, tr.p]), tr.u, tr.costates
    np.testing.assert_allclose(u, lam[:, 3:], atol=1e-12)
    np.testing.assert_allclose(x[0], [1, 0, 0, 0, 1, 0], atol=0)
    np.testing.assert_allclose(x[-1], [0, 0, 1.5, 0, -1, 0], atol=0)
    assert t[-1] == pytest.approx(np.pi)


def test_second_order_convergence_of_costates_and_hamiltonian():
    values = np.array([_quantities(N) for N in LADDER])
    diffs = np.abs(values[:-1] - values[1:])
    ratios = diffs[:-1] / diffs[1:]
    assert np.all((ratios > 3.6) & (ratios < 4.2)), ratios
    assert np.all(np.abs(ratios[-1] - 4) < 0.05), ratios


def test_direct_transcription_does_not_conserve_hd():
    spreads = []
    for N in (10, 20, 40):
        m = solved("particle", "direct-gonzalez", N)
        spreads.append(np.ptp(m.dyn.interval_table(costates(m.dyn))["Hd"]))
    spreads = np.array(spreads)
    assert spreads[1] > 8e-3
    ratios = spreads[:-1] / spreads[1:]
    assert np.all((ratios > 3.8) & (ratios < 4.2)), ratios


def test_midpoint_state_breaks_energy_but_keeps_hd():
    m = solved("particle", "dnco-midpoint", 20)
    Hd = m.dyn.interval_table()["Hd"].to_numpy()
    assert np.ptp(Hd) < 1e-12 * np.abs(Hd).max()
    assert np.ptp(m.dyn.diagnostics()["E"]) > 1e-3


@pytest.mark.slow  # N up to 1280
def test_thesis_ladder_against_reference_1280():
    """Errors against N = 1280 follow C (h² - h_ref²): ratio (1/N² - 1/1280²)/(1/(2N)² - 1/1280²)."""
    ladder = [10 * 2**i for i in range(7)]
    reference = _quantities(1280)
    errors = np.array([np.abs(_quantities(N) - reference) for N in ladder])
    for i, N in enumerate(ladder[:-1]):
        expected = (1 / N**2 - 1 / 1280**2) / (1 / (2 * N) ** 2 - 1 / 1280**2)
        ratio = errors[i] / errors[i + 1]
        assert np.all(np.abs(ratio / expected - 1) < 0.1), (N, ratio, expected)
    Hd = solved("particle", "dnco", 1280).dyn.interval_table()["Hd"].to_numpy()
    assert np.ptp(Hd) < 1e-12 * np.abs(Hd).max()


def test_cli_run_particle_json(capsys):
    assert main(["run", "particle", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("model", "scheme", "steps", "status", "objective", "constraint_residual",
                "energy_balance_error", "momentum_error", "hamiltonian_drift"):
        assert key in result
    assert result["model"] == "particle" and result["scheme"] == "dnco" and result["steps"] == 20
    # the command line solves with IPOPT's default tol = 1e-8 (the tests above: 1e-12)
    assert result["hamiltonian_drift"] < 1e-9 and result["energy_balance_error"] < 1e-9
    assert result["momentum_error"] is None
    assert result["objective"] == pytest.approx(solved("particle", "dnco", 20).dyn.cost(), rel=1e-8)
