"""Thesis E2: the heavy symmetric top in steady precession (Ch. 5.5).

The quaternion energy-momentum scheme conserves energy and L_3 for any h; it
and the director energy-momentum scheme converge to the analytic precession
with order 2, the director scheme being the more accurate at equal h.
"""

import json

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.models import heavy_top as ht
from pyomo_mbdyn.schemes import scheme_block
from pyomo_mbdyn.schemes.quaternion import quaternion_state
from pyomo_mbdyn.simulate import simulate
from pyomo_mbdyn.discretization.quaternion import QuaternionTop, director_trajectory
from pyomo_mbdyn.simulate.quaternion import QuaternionStepper


@pytest.fixture(scope="module")
def top():
    system = ht.build_system()
    q0, v0 = ht.initial_state(system)
    quaternion = QuaternionTop.from_system(system)
    quat0, p0 = quaternion_state(quaternion, q0, v0)
    return system, q0, v0, quaternion, quat0, p0


def _error(q):
    ref = ht.reference_position(ht.HORIZON)
    return np.linalg.norm(q[-1, 0:3] - ref) / np.linalg.norm(ref)


def test_initial_state_is_the_papers(top):
    system, q0, v0, quaternion, quat0, p0 = top
    np.testing.assert_allclose(quat0, ht.initial_quaternion(), atol=1e-14)
    # the same physical state in both descriptions: energies agree
    E_quat = quaternion.kinetic_energy(quat0, p0) + quaternion.potential_energy(quat0)
    E_dir = system.kinetic_energy(v0) + system.potential_energy(q0)
    assert E_quat == pytest.approx(E_dir, rel=1e-13)
    np.testing.assert_allclose(q0[0:3], ht.reference_position(0.0), atol=1e-15)


def test_quaternion_scheme_conserves_energy_and_L3(top):
    system, q0, v0, quaternion, quat0, p0 = top
    Q, P, _, _ = QuaternionStepper(quaternion, 0.01).simulate(quat0, p0, 100)
    E = np.array([quaternion.kinetic_energy(q, p) + quaternion.potential_energy(q) for q, p in zip(Q, P)])
    L3 = np.array([quaternion.angular_momentum(q, p)[2] for q, p in zip(Q, P)])
    assert np.ptp(E) < 1e-12 * abs(E[0]) and np.ptp(L3) < 1e-12 * abs(L3[0])
    assert np.abs(np.einsum("ij,ij->i", Q, Q) - 1).max() < 1e-13


def test_a_step_that_turns_the_top_past_what_the_scheme_resolves_says_so(top):
    """ω ≈ 139 rad/s: at h = 1/30 s a step turns 4.6 rad, past what the quaternion midpoint rule
    resolves; the failure names the angle per step and says to take more steps."""
    from pyomo_mbdyn.simulate.stepper import SimulationError

    system, q0, v0, quaternion, quat0, p0 = top
    with pytest.raises(SimulationError, match=r"turns 4\.6\d rad per step .* use more steps"):
        QuaternionStepper(quaternion, 1 / 30).simulate(quat0, p0, 30)


def test_both_schemes_converge_with_order_two_and_directors_are_more_accurate(top):
    system, q0, v0, quaternion, quat0, p0 = top
    errors = {"quaternion": [], "bem": []}
    for N in (200, 400, 800):
        Q, P, _, _ = QuaternionStepper(quaternion, 1.0 / N).simulate(quat0, p0, N)
        errors["quaternion"].append(_error(director_trajectory(quaternion, system, Q, P, 1.0 / N)[0]))
        errors["bem"].append(_error(simulate(system, q0, v0, 1.0 / N, N, scheme="bem").q))
    for scheme, e in errors.items():
        orders = np.log2(np.array(e[:-1]) / np.array(e[1:]))
        assert np.all(np.abs(orders - 2) < 0.1), (scheme, orders)
    # measured: quaternion 0.415, 0.103, 0.0256; directors 0.0208, 0.0053, 0.0013
    assert all(d < q / 10 for d, q in zip(errors["bem"], errors["quaternion"]))


def test_block_solved_by_ipopt_equals_the_stepper(top):
    system, q0, v0, quaternion, quat0, p0 = top
    steps, horizon = 20, 0.2
    Q, P, _, _ = QuaternionStepper(quaternion, horizon / steps).simulate(quat0, p0, steps)
    m = pyo.ConcreteModel()
    m.dyn = scheme_block("quaternion", system=system, steps=steps, horizon=horizon,
                         initial_configuration=q0, initial_velocity=v0)
    m.dyn.initialize_from(simulate(system, q0, v0, horizon / steps, steps, scheme="bem"))
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.options["tol"] = 1e-13
    assert opt.solve(m).solver.termination_condition == pyo.TerminationCondition.optimal
    Qb, Pb = m.dyn.quaternion_arrays()
    assert np.abs(Qb - Q).max() < 1e-10
    assert np.abs(Pb - P).max() < 1e-9 * np.abs(P).max()


def test_cli_runs_the_quaternion_block(capsys):
    from pyomo_mbdyn.cli import main

    assert main(["run", "heavy-top", "--steps", "50", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["scheme"] == "quaternion" and result["status"] == "optimal"
    assert result["energy_balance_error"] < 1e-12 and result["momentum_error"] < 1e-12
