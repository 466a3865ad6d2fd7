"""Thesis E3 (Ch. 6, 7): the planar three-link arm, BEM = REM against GC.

The thesis prints no numbers for the arm; what it states, and what is tested
here, is structural: BEM and REM give exactly the same optimum (cost,
trajectory, and multipliers mapped by λ^REM = B(q♯) λ^BEM), the controls
equal those recovered from the multipliers (u = -B λᵖ), T + V + W (+ D) is
conserved by the energy-momentum schemes and not by GC, and the u₃ ≥ 0 and
damped cases of Ch. 6.
"""

import numpy as np
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.models import three_link_arm as arm
from pyomo_mbdyn.ocp import multipliers
from formulations import assert_multipliers_consistent, assert_same_optimum, cost, solve_with_duals


def solve(scheme, case="free", steps=arm.STEPS, configurations=None):
    return solve_with_duals(arm.build(scheme, steps=steps, case=case, configurations=configurations))


@pytest.fixture(scope="module")
def free():
    return {scheme: solve(scheme) for scheme in ("bem", "rem", "gc")}


def test_bem_and_rem_optima_coincide(free):
    assert_same_optimum(free["bem"], free["rem"])



def test_ripopt_reaches_the_same_optimum(free):
    """An independent NLP solver (pyomo-ripopt, AMPL protocol) from the same guess reaches the
    REM optimum IPOPT reached, the same trajectory and the final configuration (the satellite's
    cross-check, a minute long, runs with ``-m slow``)."""
    import pyomo.environ as pyo
    import pyomo_ripopt  # noqa: F401  (registers the "ripopt" solver; a test dependency)

    m = arm.build("rem", steps=arm.STEPS, case="free")
    opt = pyo.SolverFactory("ripopt")
    opt.options["tol"] = 1e-9
    assert opt.solve(m).solver.termination_condition == pyo.TerminationCondition.optimal
    assert abs(cost(m) - cost(free["rem"])) < 1e-9 * cost(free["rem"])
    ours, theirs = free["rem"].dyn.trajectory(), m.dyn.trajectory()
    assert np.abs(theirs.q - ours.q).max() < 1e-6 and np.abs(theirs.u - ours.u).max() < 1e-6 * np.abs(ours.u).max()
    np.testing.assert_allclose(arm.joint_angles(theirs.q[-1]), arm.ALPHAF, atol=1e-9)

def test_final_state_is_reached(free):
    for scheme, m in free.items():
        tr_m = m.dyn.trajectory()
        q, v = tr_m.q, tr_m.v
        np.testing.assert_allclose(arm.joint_angles(q[-1]), arm.ALPHAF, atol=1e-9, err_msg=scheme)
        B = np.asarray(m.dyn.system.control_matrix(q[-1]), float)
        assert np.abs(B @ v[-1]).max() < 1e-9, scheme
        assert np.abs(m.dyn.diagnostics()["constraint_residual"]).max() < 1e-9, scheme


def test_multipliers_of_bem_and_rem(free):
    """Thesis Eqs. 7.19–7.22 with the documented dual sign: u = -λᵖ (REM), u = -B λᵖ
    (BEM), λ^REM = B(q♯) λ^BEM, λ^BEM = P λ^REM, G λ^BEM = 0."""
    assert_multipliers_consistent(free["bem"].dyn, free["rem"].dyn)


def test_lifted_forms_have_the_same_optimum_and_multipliers(free):
    """Node configurations as variables (the Φ and reparametrisation rows stated):
    BEM = REM again, the same optimum as the model's chart forms, and the
    multipliers of the momentum rows unchanged (the chart only removes rows whose
    multipliers are projected out: Pᵀ G ᵀ = 0)."""
    lifted = {scheme: solve(scheme, configurations="lifted") for scheme in ("bem", "rem")}
    assert_same_optimum(lifted["bem"], lifted["rem"])
    assert_same_optimum(lifted["rem"], free["rem"])
    assert_multipliers_consistent(lifted["bem"].dyn, lifted["rem"].dyn)
    for scheme in ("bem", "rem"):
        lam, lam_chart = (multipliers.momentum_multipliers(m.dyn) for m in (lifted[scheme], free[scheme]))
        assert np.abs(lam - lam_chart).max() < 1e-6 * np.abs(lam).max(), scheme


def test_gc_controls_from_multipliers(free):
    tr_free = free["gc"].dyn.trajectory()
    u = tr_free.u
    assert np.abs(multipliers.controls_from_multipliers(free["gc"].dyn) - u).max() < 1e-8 * np.abs(u).max()


def test_energy_balance_holds_for_em_schemes_and_fails_for_gc(free):
    """T + V + W is constant along the BEM and REM optima (to solver tolerance);
    GC's midpoint rule violates it: the spread of T + V + W is 1.6e-2 of the
    largest kinetic energy at N = 20 (measured; stated so that a change shows)."""
    spreads = {}
    for scheme, m in free.items():
        table = m.dyn.diagnostics()
        spreads[scheme] = (table["E"].max() - table["E"].min()) / table["T"].max()
    assert spreads["bem"] < 1e-11 and spreads["rem"] < 1e-11
    assert 5e-3 < spreads["gc"] < 5e-2


def test_gc_optimum_is_close_but_different(free):
    """GC is a different discretisation: its cost differs from REM's by ≈ 2e-5 (N = 20)."""
    gap = abs(cost(free["gc"]) - cost(free["rem"])) / cost(free["rem"])
    assert 1e-6 < gap < 1e-4


def test_bounded_case_keeps_u3_nonnegative_and_costs_more(free):
    """Case (i), the thesis's ū₃ ≥ 0 in its sign: the applied wrist torque u₃ = -ū₃ ≤ 0."""
    m = solve("rem", "bounded")
    tr_m = m.dyn.trajectory()
    u = tr_m.u
    assert u[:, 2].max() < 1e-8
    assert cost(m) > cost(free["rem"])
    table = m.dyn.diagnostics()
    assert (table["E"].max() - table["E"].min()) / table["T"].max() < 1e-10


def test_damped_case_conserves_energy_with_dissipation():
    """Case (ii), k = 300 in all joints: T + V + W + D constant along the REM optimum."""
    m = solve("rem", "damped")
    table = m.dyn.diagnostics()
    assert table["D"].iloc[-1] > 1.0  # the damping does dissipate
    assert (table["E"].max() - table["E"].min()) / table["T"].max() < 1e-10


@pytest.mark.parametrize("case", ["bounded", "damped"])
def test_gc_cases_solve_and_violate_energy_balance(case):
    m = solve("gc", case)
    table = m.dyn.diagnostics()
    assert (table["E"].max() - table["E"].min()) / table["T"].max() > 1e-4


def test_cost_converges_with_n():
    """Thesis Figs. 6.4/6.5: the costs converge as N grows (REM, N = 10, 20, 40)."""
    costs = [cost(solve("rem", steps=N)) for N in (10, 20, 40)]
    d1, d2 = costs[0] - costs[1], costs[1] - costs[2]
    assert abs(d2) < abs(d1) / 2.5  # second order: ratio ≈ 4


def _guess_residual(block):
    """Largest violation of the block's active equations at the current values."""
    import pyomo.environ as pyo

    worst = 0.0
    for c in block.component_data_objects(pyo.Constraint, active=True, descend_into=True):
        body = pyo.value(c.body)
        worst = max(worst, body - c.upper if c.has_ub() else 0.0, c.lower - body if c.has_lb() else 0.0)
    return worst


def test_refined_guess_is_consistent_and_leads_to_the_finer_optimum(free):
    """The N = 20 optimum interpolated onto N = 40 (``refined_trajectory``) fulfils
    every scheme equation (configurations on the manifold, velocities from the
    recursion, forces split exactly), and the N = 40 solve from it reaches the
    optimum the default guess reaches (J = 3 982 712.12543…)."""
    from pyomo_mbdyn.ocp import refined_trajectory, solve_refined

    m = arm.build("rem", steps=40)
    m.dyn.initialize_from(refined_trajectory(m.dyn.system, m.dyn.h, 40, free["rem"].dyn.trajectory()))
    assert _guess_residual(m.dyn) < 1e-9
    m, _ = solve_refined(lambda n: arm.build("rem", steps=n), 40, coarsest=20)
    assert cost(m) == pytest.approx(3982712.12543, rel=1e-10)


@pytest.mark.slow
def test_rem_converges_at_n160_by_refinement():
    """N = 160 (issue 14: stalls from the interpolated guess on the AMPL path) by
    grid refinement from N = 80: J within O(h²) of J* ≈ 3 981 028 (J(N) - J* ≈ 3.05e5 h²)."""
    from pyomo_mbdyn.ocp import solve_refined

    m, _ = solve_refined(lambda n: arm.build("rem", steps=n), 160, coarsest=80)
    h = arm.HORIZON / 160
    assert cost(m) == pytest.approx(3981133.14732, rel=1e-10)
    assert 0 < cost(m) - 3.981028e6 < 4e5 * h**2
