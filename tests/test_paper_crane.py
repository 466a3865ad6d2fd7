"""Thesis E5 (Ch. 7.2): the underactuated overhead crane, BEM = REM against GC.

The thesis prints no numbers; it states that BEM and REM give equal results,
that T + V + W is conserved by the BEM and not by GC.  Tested here, together
with the multiplier relations of §2.12 for a system whose input rows are not
dual to its null space (B P ≠ I).
"""

import numpy as np
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.errors import AssemblyError
from pyomo_mbdyn.mechanics import CoordinateSystem
from pyomo_mbdyn.models import crane
from formulations import assert_multipliers_consistent, assert_same_optimum, cost, solve_with_duals


def solve(scheme, steps=crane.STEPS):
    return solve_with_duals(crane.build(scheme, steps=steps))


@pytest.fixture(scope="module")
def solved():
    return {scheme: solve(scheme) for scheme in ("bem", "rem", "gc")}


def test_bem_equals_rem(solved):
    assert_same_optimum(solved["bem"], solved["rem"])


def test_solutions_are_physical_and_reach_the_target(solved):
    """Rope length r β > 0 and load below the trolley (z > 0) at every node (spec §7.6)."""
    for scheme, m in solved.items():
        tr_m = m.dyn.trajectory()
        q, v = tr_m.q, tr_m.v
        assert q[:, 1].min() > 0 and q[:, 3].min() > 0, scheme
        np.testing.assert_allclose(q[-1], crane.QF, atol=1e-9, err_msg=scheme)
        assert np.abs(v[-1]).max() < 1e-9, scheme


def test_multipliers(solved):
    """u = -B λᵖ (BEM), u = -B P λᵖ (REM, B P ≠ I here); λ^BEM = P λ^REM, G λ^BEM = 0."""
    assert_multipliers_consistent(solved["bem"].dyn, solved["rem"].dyn)


def test_energy_balance(solved):
    """T + V + W constant for BEM and REM; GC's spread is 2.1e-2 of max T (N = 40, measured)."""
    spread = {}
    for scheme, m in solved.items():
        table = m.dyn.diagnostics()
        spread[scheme] = (table["E"].max() - table["E"].min()) / table["T"].max()
    assert spread["bem"] < 1e-12 and spread["rem"] < 1e-12
    assert 1e-2 < spread["gc"] < 5e-2


def test_gc_optimum_differs(solved):
    """GC's cost is below BEM's by 3.8e-4 (relative, N = 40): another discretisation."""
    gap = (cost(solved["bem"]) - cost(solved["gc"])) / cost(solved["bem"])
    assert 1e-4 < gap < 1e-3


def test_coordinate_system_checks_its_formulas():
    good = crane.build_system()
    assert good.validate()["dof"] == 3

    def wrong_jacobian(q):
        s, beta, x, z = q
        return [[-2.0 * (x - s), -2.0 * beta, 2.0 * (x - s), 2.0 * z]]  # r² missing

    def quartic(q):
        s, beta, x, z = q
        d = (x - s) * (x - s) + z * z
        return [d * d - crane.RADIUS**4 * beta**4]

    def quartic_jacobian(q):
        s, beta, x, z = q
        d = (x - s) * (x - s) + z * z
        return [[-4 * d * (x - s), -4 * crane.RADIUS**4 * beta**3, 4 * d * (x - s), 4 * d * z]]

    for constraint, message in (((crane._rope, wrong_jacobian), "Jacobian"),
                                ((quartic, quartic_jacobian), "not quadratic")):
        system = CoordinateSystem(
            "bad-crane", groups={"trolley": (("s",), (1.0,)), "winch": (("beta",), (1.0,)),
                                 "load": (("x", "z"), (1.0, 1.0))},
            constraints={"rope": constraint}, velocities=crane.VELOCITIES,
            null_space=crane._null_space, reparametrise=crane._reparametrise,
            inputs={"trolley.s": [1.0, 0, 0, 0]}, q0=crane.Q0, additive=True)
        with pytest.raises(AssemblyError, match=message):
            system.validate()
