"""Time stepping of closed loops: every scheme that accepts them, against each other and UK.

The four-bar (crank-rocker) and the slider-crank of :mod:`pyomo_mbdyn.mechanics.examples`:
the loop closed to round-off at every node on every row (dropped ones included), T + V + W
conserved by the energy-momentum schemes, the reduced schemes equal to those with
multipliers, second order in h, and the multipliers of the closing joint equal to the
Udwadia–Kalaba forces of constraint.
"""

import numpy as np
import pytest

from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.mechanics import examples
from pyomo_mbdyn.simulate import simulate
from pyomo_mbdyn.simulate.udwadia_kalaba import UdwadiaKalabaSystem

FOUR_BAR = examples.four_bar()
SLIDER_CRANK = examples.slider_crank()
SCHEMES = ("bem", "rem", "dmocc_lm", "dmocc")


def closure(system, Q):
    return max(float(np.abs(np.asarray(system.constraints(q), float)).max()) for q in Q)


def run(system, scheme, N, T=0.4, u=0.3):
    return simulate(system, system.q0, np.zeros(system.n), T / N, N, controls=np.full((N, 1), u), scheme=scheme)


def work_balance(system, tr):
    """T + V - W_u at the nodes, W_u = Σ h u ν_A the work of the applied crank torque u."""
    M = system.mass_matrix()
    h = tr.t[1] - tr.t[0]
    a = system.velocities.index("A.angle")
    work = np.concatenate([[0.0], np.cumsum(tr.u[:, 0] * tr.nu[:, a] * h)])
    return np.array([0.5 * v @ M @ v + system.potential_energy(q) for q, v in zip(tr.q, tr.v)]) - work


@pytest.mark.parametrize("system", [FOUR_BAR, SLIDER_CRANK], ids=["four-bar", "slider-crank"])
@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_row_closed_at_every_node(system, scheme):
    tr = run(system, scheme, 16)
    assert closure(system, tr.q) < 1e-12
    assert tr.nu.shape == (16, system.n_velocities)


@pytest.mark.parametrize("system", [FOUR_BAR, SLIDER_CRANK], ids=["four-bar", "slider-crank"])
@pytest.mark.parametrize("scheme", ["bem", "rem"])
def test_energy_balance_is_exact(system, scheme):
    """T + V - W_u constant to round-off (thesis §2.3: the scheme conserves energy with the
    work of the controls through ν = B v_{k+½})."""
    tr = run(system, scheme, 16)
    balance = work_balance(system, tr)
    scale = 1.0 + np.abs(balance).max()
    assert np.ptp(balance) < 1e-12 * scale


@pytest.mark.parametrize("system", [FOUR_BAR, SLIDER_CRANK], ids=["four-bar", "slider-crank"])
def test_reduced_schemes_equal_those_with_multipliers(system):
    bem, rem = run(system, "bem", 8), run(system, "rem", 8)
    assert np.abs(bem.q - rem.q).max() < 1e-10 and np.abs(bem.v - rem.v).max() < 1e-10
    lm, dm = run(system, "dmocc_lm", 8), run(system, "dmocc", 8)
    assert np.abs(lm.q - dm.q).max() < 1e-10 and np.abs(lm.v - dm.v).max() < 1e-10


@pytest.mark.parametrize("scheme", SCHEMES)
def test_second_order_in_h(scheme):
    finals = [run(FOUR_BAR, scheme, N).q[-1] for N in (8, 16, 32)]
    ratio = np.abs(finals[0] - finals[1]).max() / np.abs(finals[1] - finals[2]).max()
    assert 3.6 < ratio < 4.4  # error ∝ h²


def static_holding(system, q):
    """(γ, u): the forces of constraint on the active rows and the crank control that hold the
    linkage at rest at q under gravity, Gᵀγ - Bᵀu = -∇V (u the applied torque; an exact
    solution of a regular system)."""
    G = np.asarray(system.active_jacobian(q), float)
    B = np.asarray(system.control_matrix(q), float)[system.actuated_indices]
    A = np.hstack([G.T, -B.T])
    x, *_ = np.linalg.lstsq(A, -system.potential_gradient(), rcond=None)
    assert np.abs(A @ x + system.potential_gradient()).max() < 1e-12
    return x[:G.shape[0]], x[G.shape[0]:]


def test_closing_joint_multipliers_equal_the_udwadia_kalaba_force_at_rest():
    """Held at rest by the static crank torque, BEM stays at q0 and its multipliers of the closing
    joint D are the Udwadia–Kalaba forces of constraint (γ = -λ_UK) at q0 with that torque."""
    system = FOUR_BAR
    gamma, u = static_holding(system, system.q0)
    tr = run(system, "bem", 4, u=float(u[0]))
    assert np.abs(tr.q - system.q0).max() < 1e-12
    uk = UdwadiaKalabaSystem.from_multibody(system, controls=lambda q, v, t: u, rows="active")
    result = uk.accelerations(system.q0, np.zeros(system.n))
    assert np.abs(result.qdd).max() < 1e-10 * 9.81  # the torque holds the linkage (round-off of g)
    labels = system.active_labels()
    rows = [labels.index("D[0]"), labels.index("D[1]")]
    for k in range(4):
        assert np.abs(tr.lam[k][rows] + result.multipliers[rows]).max() < 1e-8 * np.abs(result.multipliers).max()
    # UK with every row (its pseudo-inverse) gives the same ideal force
    full = UdwadiaKalabaSystem.from_multibody(system, controls=lambda q, v, t: u).accelerations(system.q0, np.zeros(system.n))
    assert np.abs(full.ideal - result.ideal).max() < 1e-9


def test_closing_joint_multipliers_converge_to_udwadia_kalaba_in_motion():
    """In motion the interval multiplier γ_{k,k+1} is the UK force at (q_{k+½}, v_{k+½}) up to O(h²)."""
    system = FOUR_BAR
    labels = system.active_labels()
    rows = [labels.index("D[0]"), labels.index("D[1]")]
    uk = UdwadiaKalabaSystem.from_multibody(system, controls=lambda q, v, t: [0.3], rows="active")
    errors = []
    for N in (10, 20, 40):
        tr = run(system, "bem", N)
        k = N // 2 - 1  # the interval ending at t = 0.2
        q_mid, v_mid = 0.5 * (tr.q[k] + tr.q[k + 1]), 0.5 * (tr.v[k] + tr.v[k + 1])
        lam = uk.accelerations(q_mid, v_mid).multipliers
        errors.append(np.abs(tr.lam[k][rows] + lam[rows]).max())
    assert 3.5 < errors[0] / errors[1] < 4.5 and 3.5 < errors[1] / errors[2] < 4.5


@pytest.mark.parametrize("scheme", ["gc", "rattle"])
def test_schemes_without_loops_say_so(scheme):
    with pytest.raises(ConfigurationError, match="closed loops|loop"):
        run(FOUR_BAR, scheme, 2)


def test_spatial_loop_with_two_degrees_of_freedom():
    """The RSSR linkage (no redundant row; 5 dependent spherical-joint rates solved by elimination):
    every scheme closes the loop, BEM = REM and DMOCC = DMOCC-LM to round-off."""
    system = examples.spatial_four_bar()
    assert system.independent == ["A.angle", "B.wx"] and len(system.dependent) == 5
    v0 = np.asarray(system.null_space(system.q0), float) @ np.array([1.0, 0.5])
    runs = {scheme: simulate(system, system.q0, v0, 0.02, 20, controls=np.full((20, 1), -0.2), scheme=scheme)
            for scheme in SCHEMES}
    for tr in runs.values():
        assert closure(system, tr.q) < 1e-12
    assert np.abs(runs["bem"].q - runs["rem"].q).max() < 1e-12
    assert np.abs(runs["dmocc"].q - runs["dmocc_lm"].q).max() < 1e-12
    balance = work_balance(system, runs["bem"])
    assert np.ptp(balance) < 1e-12 * (1.0 + np.abs(balance).max())
