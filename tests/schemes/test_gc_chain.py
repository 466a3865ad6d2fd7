"""GC on a chain of revolute and prismatic joints states its momentum balance through the
recursive Newton–Euler algorithm (``schemes.gc.chain_inverse_dynamics``): the same
equation as the natural-coordinate formula P̃ᵀ[M(P̃Δṽ + h Ṗṽṽ) + h f] to round-off, on
random chains, in O(dof) operations; systems where it would not be GC's equation keep
the natural-coordinate formula."""

import casadi as ca
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pyomo_mbdyn.discretization import gc_residuals
from pyomo_mbdyn.discretization.common import symbols
from pyomo_mbdyn.schemes.gc import chain_inverse_dynamics
import systems


def _step(system, dynamics, h=0.05):
    d = system.n_velocities
    m = len(system.actuated) if hasattr(system, "actuated") else d
    z, e = symbols("z", 5 * d + m)
    parts = [e[i * d:(i + 1) * d] for i in range(5)]
    u = e[5 * d:]
    r = gc_residuals(system, h, parts[0], parts[1], parts[2], parts[3], u, "exp", nu=parts[4],
                     inverse_dynamics=dynamics)
    rows = [ca.SX(x) for g in ("kinematics", "momentum_balance", "joint_rates") for x in r[g]]
    return ca.Function("step", [z], [ca.vertcat(*rows)])


def _actuated_all(system):
    for joint in system.joints:
        system.actuate(joint)
    return system


@settings(max_examples=15, deadline=None)
@given(kinds=st.lists(st.sampled_from(["revolute", "prismatic"]), min_size=1, max_size=4),
       seed=st.integers(0, 2**16))
def test_the_chain_step_is_the_natural_coordinate_step(kinds, seed):
    system = _actuated_all(systems.chain(kinds, seed=seed))
    dynamics = chain_inverse_dynamics(system)
    assert dynamics is not None
    general, recursive = _step(system, None), _step(system, dynamics)
    x = np.random.default_rng(seed).uniform(-1.0, 1.0, general.size1_in(0))
    a, b = (np.asarray(f(x), float).ravel() for f in (general, recursive))
    assert np.abs(a - b).max() < 1e-11 * (1.0 + np.abs(a).max())


@pytest.mark.parametrize("system, rotation", [
    (lambda: systems.chain(["spherical", "revolute"]), "exp"),          # not revolute/prismatic
    (lambda: systems.chain(["revolute"] * 3, tree=True), "exp"),      # a tree, not a chain
    (lambda: systems.chain(["revolute"], grounded=False), "exp"),       # a free root body
    (lambda: systems.chain(["revolute", "prismatic"]), "cayley"),       # θ is not the joint angle
])
def test_systems_where_it_is_not_gcs_equation_keep_the_chart(system, rotation):
    assert chain_inverse_dynamics(system(), rotation) is None


def test_the_ur5_block_states_the_recursive_step():
    """The block's step is the natural-coordinate step to round-off, in less than half
    its instructions (UR5: about 2 000 against 4 600)."""
    from pyomo_mbdyn.models import ur5

    m = ur5.build("gc", steps=2)
    step = m.dyn.uniform_residuals()[0].function if m.dyn.uniform_residuals() else None
    system = m.dyn.system
    general = _step(system, None, h=m.dyn.step_length)
    recursive = _step(system, chain_inverse_dynamics(system), h=m.dyn.step_length)
    x = np.random.default_rng(3).uniform(-1.0, 1.0, general.size1_in(0))
    a, b = (np.asarray(f(x), float).ravel() for f in (general, recursive))
    assert np.abs(a - b).max() < 1e-11 * (1.0 + np.abs(a).max())
    assert recursive.n_instructions() < 0.5 * general.n_instructions()
    if step is not None:  # the block's compiled step is the recursive one
        assert step.n_instructions() < 0.5 * general.n_instructions()
