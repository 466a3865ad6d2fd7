"""The last node's velocity from the projected discrete Legendre transform (DMOCC 3.16).

``final_velocity`` solves the (dof × dof) reduced system (PᵀMP)ν = Pᵀp̃⁺; the
paper states v = M⁻¹Q p̃⁺ with Q = I - Gᵀ(GM⁻¹Gᵀ)⁻¹GM⁻¹.  Here Q is built
explicitly with numpy from G(q_N) and B(q_N) on random admissible
configurations of the pitcher chain, and both must agree; the Pyomo path
(the replay of the same formula in a model) must give the same numbers.
"""

import numpy as np
import pyomo.environ as pyo
from hypothesis import given, strategies as st

from pyomo_mbdyn.discretization import final_velocity
from pyomo_mbdyn.discretization.common import numeric_kinematics, thesis_controls
from pyomo_mbdyn.discretization.variational import lagrangian_slopes
from pyomo_mbdyn.mechanics.linalg import name_next, sharing
from pyomo_mbdyn.models import pitcher
from pyomo_mbdyn.schemes.structure import expression_value

SYSTEM = pitcher.build_system()


def _states(seed):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=5) * 0.5
    step = rng.normal(size=5) * 0.05
    q_prev = np.asarray(SYSTEM.reparametrise(theta, SYSTEM.q0), float)
    q = np.asarray(SYSTEM.reparametrise(theta + step, SYSTEM.q0), float)
    return q_prev, q, rng.normal(size=5) * 10, 0.005 + 0.02 * rng.random()


def _paper(q_prev, q, u, h):
    M = np.asarray(SYSTEM.mass_matrix(), float)  # (n × n), diagonal for directors
    G, B = numeric_kinematics(SYSTEM, q, ("G", "B"))
    G = G.reshape(SYSTEM.m, SYSTEM.n)
    _, D2 = lagrangian_slopes(SYSTEM, h, q_prev, q)
    p = np.asarray(D2, float) - B.T @ np.asarray(thesis_controls(SYSTEM, u), float) * (0.5 * h)
    Minv = np.linalg.inv(M)
    Q = np.eye(SYSTEM.n) - G.T @ np.linalg.solve(G @ Minv @ G.T, G @ Minv)
    return Minv @ Q @ p, G


@given(st.integers(0, 10_000))
def test_reduced_solve_equals_the_papers_projection(seed):
    q_prev, q, u, h = _states(seed)
    expected, G = _paper(q_prev, q, u, h)
    v = np.asarray(final_velocity(SYSTEM, h, q_prev, q, u), float)
    scale = np.abs(expected).max()
    assert np.abs(v - expected).max() < 1e-10 * scale
    assert np.abs(G @ v).max() < 1e-10 * scale  # consistent with the constraints (3.19)


def test_pyomo_replay_gives_the_same_numbers():
    q_prev, q, u, h = _states(7)
    m = pyo.ConcreteModel()
    m.q = pyo.Var(range(SYSTEM.n), initialize=dict(enumerate(q)))
    m.u = pyo.Var(range(5), initialize=dict(enumerate(u)))
    m.T = pyo.Var(initialize=36 * h)
    m.shared_terms = pyo.Expression(pyo.Any)

    with sharing(lambda expr: name_next(m.shared_terms, expr)):
        v = final_velocity(SYSTEM, m.T / 36, q_prev, [m.q[i] for i in range(SYSTEM.n)], [m.u[a] for a in range(5)])
    expected, _ = _paper(q_prev, q, u, h)
    memo = {}  # pyo.value would walk the shared elimination entries as a tree
    values = np.array([expression_value(x, memo) for x in v])
    assert np.abs(values - expected).max() < 1e-10 * np.abs(expected).max()
