"""DMOCC §7.3, the pitcher: structure and momentum consistency (spec T11).

The paper gives no parameters (the model documents its own), so its numbers
cannot be compared; what is tested is what holds for any parameters.
"""

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.models import pitcher
from pyomo_mbdyn.ocp import solve
from pyomo_mbdyn.simulate import simulate
from pyomo_mbdyn.simulate.stepper import Trajectory  # noqa: F401  (documented type)



def test_dimensions():
    system = pitcher.build_system()
    assert (system.n, system.m, system.dof) == (36, 31, 5)
    assert system.actuated == system.velocities  # every degree of freedom carries a muscle torque
    assert system.redundant_constraints() == []


def test_initial_state_and_problem_structure():
    m = pitcher.build()
    dyn = m.dyn
    assert dyn.config.steps == 36 and abs(dyn.h - 0.415 / 36) < 1e-15
    # θ₅ = -π/4: the forearm turned about e1 (elbow axis) by -π/4 from hanging:
    # d3 = R_x(-π/4) e3, and the hand (at -l/2 d3) points backwards and down
    d3 = np.array([pyo.value(dyn.body["forearm"].q[0, f"d3{c}"]) for c in "xyz"])
    np.testing.assert_allclose(d3, [0.0, np.sin(np.pi / 4), np.cos(np.pi / 4)], atol=1e-12)
    assert m.ocp.throw.sense == pyo.minimize
    for (i, a), var in dyn.u.items():
        assert var.ub == pitcher.TORQUE_LIMITS[a] and var.lb == -pitcher.TORQUE_LIMITS[a]
    assert len(m.ocp.elbow_range) == 36


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_angular_momentum_about_e3_changes_only_through_the_torso_torque(seed):
    """L₃(n+1) - L₃(n) = -h u^(R₁)_n for any torques (gravity has no moment about e3)."""
    system = pitcher.build_system()
    rng = np.random.default_rng(seed)
    N, h = 30, pitcher.HORIZON / 36
    u = rng.uniform(-20, 20, size=(N, 5))
    traj = simulate(system, pitcher.initial_configuration(system), np.zeros(system.n), h, N, u,
                    scheme="dmocc")
    from pyomo_mbdyn.diagnostics import trajectory_table

    table = trajectory_table(traj)
    L = table[["Lx", "Ly", "Lz"]].to_numpy()
    scale = np.abs(L).max()
    assert scale > 1.0  # the torques do turn the arm
    assert np.abs(np.diff(L[:, 2]) + h * u[:, 0]).max() < 1e-10 * scale
    # gravity's moment changes L₁, L₂: not conserved
    assert np.abs(np.diff(L[:, 0]) ).max() > 1e-3 * scale


def test_throw_optimum():
    m = pitcher.build()
    solve(m, "casadi_ipopt", options={"max_iter": 3000})
    tr_m = m.dyn.trajectory()
    q, u = tr_m.q, tr_m.u
    hand = np.asarray(pitcher.hand_position(m.dyn.system, q[-1]), float)
    assert hand[1] >= -1e-8 and hand[2] >= -1e-8
    assert pyo.value(m.ocp.hand_momentum) > 10.0
    L3 = m.dyn.diagnostics()["Lz"].to_numpy()
    assert np.abs(np.diff(L3) + m.dyn.h * u[:, 0]).max() < 1e-8 * max(1.0, np.abs(L3).max())
