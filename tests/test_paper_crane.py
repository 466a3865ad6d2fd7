"""Thesis E5 (Ch. 7.2): the underactuated overhead crane, BEM = REM against GC.

The thesis prints no numbers; it states that BEM and REM give equal results,
that T + V + W is conserved by the BEM and not by GC.  Tested here, together
with the multiplier relations of §2.12 for a system whose input rows are not
dual to its null space (B P ≠ I).
"""

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.errors import AssemblyError
from pyomo_mbdyn.mechanics import CoordinateSystem
from pyomo_mbdyn.models import crane
from pyomo_mbdyn.ocp import multipliers


def solve(scheme, steps=crane.STEPS):
    m = crane.build(scheme, steps=steps)
    m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.options["tol"] = 1e-10
    result = opt.solve(m)
    assert result.solver.termination_condition == pyo.TerminationCondition.optimal, scheme
    return m


@pytest.fixture(scope="module")
def solved():
    return {scheme: solve(scheme) for scheme in ("bem", "rem", "gc")}


def cost(m):
    return pyo.value(m.ocp.control_effort)


def test_bem_equals_rem(solved):
    bem, rem = solved["bem"], solved["rem"]
    assert abs(cost(bem) - cost(rem)) < 1e-8 * cost(rem)
    _, qb, vb, ub, _ = bem.dyn.trajectory_arrays()
    _, qr, vr, ur, _ = rem.dyn.trajectory_arrays()
    assert np.abs(qb - qr).max() < 1e-6 and np.abs(vb - vr).max() < 1e-6
    assert np.abs(ub - ur).max() < 1e-6 * np.abs(ur).max()


def test_solutions_are_physical_and_reach_the_target(solved):
    """Rope length r β > 0 and load below the trolley (z > 0) at every node (spec §7.6)."""
    for scheme, m in solved.items():
        _, q, v, _, _ = m.dyn.trajectory_arrays()
        assert q[:, 1].min() > 0 and q[:, 3].min() > 0, scheme
        np.testing.assert_allclose(q[-1], crane.QF, atol=1e-9, err_msg=scheme)
        assert np.abs(v[-1]).max() < 1e-9, scheme


def test_multipliers(solved):
    """u = -B λᵖ (BEM), u = -B P λᵖ (REM); λ^BEM = P λ^REM, G λ^BEM = 0."""
    bem, rem = solved["bem"].dyn, solved["rem"].dyn
    for dyn in (bem, rem):
        _, _, _, u, _ = dyn.trajectory_arrays()
        assert np.abs(multipliers.controls_from_multipliers(dyn) - u).max() < 1e-8 * np.abs(u).max()
    lam_bem, lam_rem = multipliers.momentum_multipliers(bem), multipliers.momentum_multipliers(rem)
    scale = np.abs(lam_bem).max()
    assert np.abs(multipliers.bem_from_rem(bem, lam_rem) - lam_bem).max() < 1e-8 * scale
    assert np.abs(multipliers.rem_from_bem(bem, lam_bem) - lam_rem).max() < 1e-8 * scale
    _, q, _, _, _ = bem.trajectory_arrays()
    for i, lam in enumerate(lam_bem):
        G = np.asarray(bem.system.constraint_jacobian(0.5 * (q[i] + q[i + 1])), float)
        assert abs(G @ lam).max() < 1e-9 * scale * np.abs(G).max()


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
            inputs={"trolley.s": [-1.0, 0, 0, 0]}, q0=crane.Q0, additive=True)
        with pytest.raises(AssemblyError, match=message):
            system.validate()
