"""The control equation u = E λ / (2 w) with the weights of the objective that was solved.

The sphere's objective is J = h Σ ‖τ‖² (weights 1, DMOCC §7.1); the arm's and the
crane's J = h Σ ½|u|² (weights ½).  ``controls_from_multipliers`` reads the weights
from ``ocp.effort_weights`` — before, a default of ½ gave the sphere's controls
twice too large without a word.
"""

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.models import minimum_time_mass as mtm
from pyomo_mbdyn.models import sphere
from pyomo_mbdyn.ocp import multipliers


def _solved(m):
    m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.options["tol"] = 1e-10
    assert pyo.check_optimal_termination(opt.solve(m))
    return m


@pytest.fixture(scope="module")
def sphere_rem():
    return _solved(sphere.build("rem", 15))


def test_weights_one_read_from_the_objective(sphere_rem):
    dyn = sphere_rem.dyn
    assert {a: pyo.value(sphere_rem.ocp.effort_weights[a]) for a in dyn.actuated} == {a: 1.0 for a in dyn.actuated}
    u = dyn.trajectory().u
    assert np.abs(u).max() > 1.0
    np.testing.assert_allclose(multipliers.controls_from_multipliers(dyn), u, rtol=0, atol=1e-7 * np.abs(u).max())
    # the weights given by hand are taken as given: ½ instead of 1 doubles the controls
    half = multipliers.controls_from_multipliers(dyn, {a: 0.5 for a in dyn.actuated})
    np.testing.assert_allclose(half, 2 * u, rtol=0, atol=1e-7 * np.abs(u).max())


def test_weights_half_read_from_the_objective():
    m = _solved(mtm.build("rem", steps=8, objective="effort+time"))
    u = m.dyn.trajectory().u
    assert pyo.value(m.ocp.effort_weights["slide.slide"]) == 0.5
    np.testing.assert_allclose(multipliers.controls_from_multipliers(m.dyn), u, rtol=0, atol=1e-7 * np.abs(u).max())


def test_no_effort_objective_no_default_weights():
    m = _solved(mtm.build("rem", steps=8))  # minimum time alone: u bang-bang, not from λ alone
    with pytest.raises(ConfigurationError, match="no effort objective.*pass weights"):
        multipliers.controls_from_multipliers(m.dyn)


def test_minimise_control_effort_refuses_non_positive_weights():
    m = mtm.build("rem", steps=4, objective="time")
    with pytest.raises(ConfigurationError, match="weights must be positive.*slide.slide"):
        m.problem.minimise_control_effort({"slide.slide": -1.0})


def test_dmocc_says_why_it_has_no_momentum_multipliers():
    m = sphere.build("dmocc", 6)
    with pytest.raises(ConfigurationError, match="discrete Euler–Lagrange equations in configurations only"):
        multipliers.momentum_multipliers(m.dyn)
