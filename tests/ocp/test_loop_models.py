"""The closed-loop models (issue 20): the four-bar and the slider-crank, optimal in every loop scheme.

Acceptance: BEM and REM reach the same optimum (objective to 1e-8 relative, controls and
configurations to 1e-6), as do DMOCC and DMOCC-LM; every constraint row — the dropped ones
included — holds to 1e-12 at every node; T + V + W is constant in BEM and REM; the
slider-crank's piston ends at its target.
"""

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.models import four_bar, slider_crank
from pyomo_mbdyn.ocp import solve


def solved(module, scheme, **options):
    m = module.build(scheme, **options)
    result = solve(m, options={"tol": 1e-12})
    assert result.solver.termination_condition == pyo.TerminationCondition.optimal
    J = pyo.value(next(m.component_data_objects(pyo.Objective, active=True)))
    return J, m.dyn.trajectory(), m


def closure(system, Q):
    return max(float(np.abs(np.asarray(system.constraints(q), float)).max()) for q in Q)


@pytest.fixture(scope="module")
def four_bar_optima():
    return {scheme: solved(four_bar, scheme) for scheme in four_bar.SCHEMES}


@pytest.mark.parametrize("pair", [("bem", "rem"), ("dmocc_lm", "dmocc")])
def test_four_bar_reduced_and_multiplier_schemes_reach_the_same_optimum(four_bar_optima, pair):
    (J_a, a, _), (J_b, b, _) = (four_bar_optima[s] for s in pair)
    assert abs(J_a / J_b - 1) < 1e-8
    assert np.abs(a.u - b.u).max() < 1e-6 * np.abs(a.u).max()
    assert np.abs(a.q - b.q).max() < 1e-6


@pytest.mark.parametrize("scheme", four_bar.SCHEMES)
def test_four_bar_loop_closed_at_every_node(four_bar_optima, scheme):
    _, tr, m = four_bar_optima[scheme]
    assert closure(m.dyn.system, tr.q) < 1e-12


@pytest.mark.parametrize("scheme", ["bem", "rem"])
def test_four_bar_energy_balance_is_exact(four_bar_optima, scheme):
    """E = T + V + W (W the work of the crank control) constant to round-off."""
    _, _, m = four_bar_optima[scheme]
    E = m.dyn.diagnostics()["E"].to_numpy()
    assert np.ptp(E) < 1e-11 * np.abs(E).max()


@pytest.mark.parametrize("scheme", ["bem", "rem"])
def test_slider_crank_reaches_its_target(scheme):
    J, tr, m = solved(slider_crank, scheme, target=1.2)
    piston = tr.coordinates.index("piston.x")
    assert tr.q[-1, piston] == pytest.approx(1.2, abs=1e-9)
    assert closure(m.dyn.system, tr.q) < 1e-12
    other = solved(slider_crank, "rem" if scheme == "bem" else "bem", target=1.2)[0]
    assert abs(J / other - 1) < 1e-8
