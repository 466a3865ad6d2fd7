"""Thesis E6: the mathematical pendulum, indirect H-conserving DNCO against direct transcriptions.

Measured here (casadi_ipopt, tol 1e-12): J_d for N = 10, 20, 40, 80 is
7.87813, 6.75814, 6.51522, 6.45639 (direct midpoint), 7.69959, 6.71187,
6.50352, 6.45346 (direct Greenspan) and 7.70040, 6.71193, 6.50353, 6.45346
(indirect).  The indirect H^d is constant to ≈ 1e-13 (H^d = 1.80481 at
N = 20); the direct solutions' H^d spreads over the intervals by 1.65, 0.430,
0.123, 0.031 (midpoint) and 0.541, 0.130, 0.032, 0.0079 (Greenspan), i.e. as
O(h²).  T + V + W is constant to ≈ 1e-14 with Greenspan and spreads by 0.070
with the midpoint rule at N = 20.
"""

import json

import numpy as np
import pytest
from dnco_solutions import solved

from pyomo_mbdyn.cli import main
from pyomo_mbdyn.ocp.costates import costates

STEPS = (10, 20, 40, 80)


def _Hd(m):
    return m.dyn.interval_table(costates(m.dyn))["Hd"].to_numpy()


@pytest.mark.parametrize("steps", STEPS)
def test_indirect_discrete_hamiltonian_is_constant(steps):
    m = solved("pendulum", "dnco", steps)
    Hd = _Hd(m)
    assert np.ptp(Hd) < 1e-12 * np.abs(Hd).max()
    assert m.dyn.diagnostics()["constraint_residual"].max() < 1e-9


@pytest.mark.parametrize("scheme, spread_20", [("direct-midpoint", 0.4), ("direct-greenspan", 0.12)])
def test_direct_discrete_hamiltonian_varies_as_h_squared(scheme, spread_20):
    spreads = np.array([np.ptp(_Hd(solved("pendulum", scheme, N))) for N in STEPS])
    assert spreads[1] > spread_20
    ratios = spreads[:-1] / spreads[1:]
    assert np.all((ratios > 3.4) & (ratios < 4.3)), ratios
    assert 3.9 < ratios[-1] < 4.1


@pytest.mark.parametrize("scheme", ["dnco", "direct-greenspan"])
def test_greenspan_conserves_energy_with_work(scheme):
    E = solved("pendulum", scheme, 20).dyn.diagnostics()["E"].to_numpy()
    assert np.ptp(E) < 1e-12 * max(1.0, np.abs(E).max())


def test_midpoint_does_not_conserve_energy():
    E = solved("pendulum", "direct-midpoint", 20).dyn.diagnostics()["E"].to_numpy()
    assert np.ptp(E) > 0.05


@pytest.mark.parametrize("steps", STEPS)
def test_indirect_cost_is_at_least_the_direct_greenspan_optimum(steps):
    indirect = solved("pendulum", "dnco", steps).dyn.cost()
    direct = solved("pendulum", "direct-greenspan", steps).dyn.cost()
    assert indirect >= direct
    assert indirect - direct < 1e-3 * direct  # both discretise the same problem


def test_costs_converge_as_h_squared():
    for scheme in ("dnco", "direct-midpoint", "direct-greenspan"):
        J = np.array([solved("pendulum", scheme, N).dyn.cost() for N in STEPS])
        d = J[:-1] - J[1:]
        assert np.all(d > 0) and 3.5 < d[-2] / d[-1] < 4.5, (scheme, J)


def test_indirect_gonzalez_variant_also_conserves_hd():
    """For n = 1 the Gonzalez gradient over x = (q, p) differs from Greenspan's quotient,
    but its three-point second derivative has the directional property too."""
    Hd = _Hd(solved("pendulum", "dnco-gonzalez", 20))
    assert np.ptp(Hd) < 1e-12 * np.abs(Hd).max()
    assert abs(Hd[0] - _Hd(solved("pendulum", "dnco", 20))[0]) > 1e-3


def test_cli_run_pendulum_json(capsys):
    assert main(["run", "pendulum", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("model", "scheme", "steps", "solver", "status", "objective", "n_variables", "n_constraints",
                "iterations", "build_seconds", "solve_seconds", "constraint_residual", "energy_balance_error",
                "momentum_error", "hamiltonian_drift"):
        assert key in result
    assert result["scheme"] == "dnco" and result["steps"] == 20
    assert result["n_variables"] == result["n_constraints"] == 2 * 19 + 3 * 20
    assert result["hamiltonian_drift"] < 1e-9  # IPOPT's default tol = 1e-8 on the command line
    assert result["objective"] == pytest.approx(solved("pendulum", "dnco", 20).dyn.cost(), rel=1e-8)
