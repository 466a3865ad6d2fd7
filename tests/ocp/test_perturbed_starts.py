"""Perturbed starts for multi-start: on the constraint manifold (``perturb_chart``).

``perturb_chart`` moves the chart coordinates θ_k of the interior nodes and
rebuilds the start as the interpolated guess is built, so every start
configuration satisfies the joints exactly, the end nodes stay, and the moved
angles are those drawn.
"""

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from pyomo_mbdyn.discretization import chart_coordinates
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.models import minimum_time_mass as mtm
from pyomo_mbdyn.models import three_link_arm as arm
from pyomo_mbdyn.ocp.guess import perturb_chart

MODELS = {scheme: arm.build(scheme, 10) for scheme in ("bem", "rem", "gc")}
BEFORE = {scheme: m.dyn.trajectory() for scheme, m in MODELS.items()}


@settings(max_examples=8, deadline=None)
@example(scheme="bem", seed=2, radius=1.0)  # a node recovered 2π away
@given(scheme=st.sampled_from(sorted(MODELS)), seed=st.integers(0, 2**31 - 1),
       radius=st.floats(1e-3, 1.0))
def test_chart_start_is_on_the_manifold_with_the_drawn_angles(scheme, seed, radius):
    m = MODELS[scheme]
    m.dyn.initialize_from(BEFORE[scheme])
    theta = perturb_chart(m, radius, np.random.default_rng(seed))
    after = m.dyn.trajectory()
    system = m.dyn.system
    # every configuration satisfies the joints: Φ(q_k) = 0
    assert m.dyn.diagnostics()["constraint_residual"].max() < 1e-12
    # the end nodes stay; the interior nodes carry the drawn chart coordinates
    np.testing.assert_allclose(after.q[0], BEFORE[scheme].q[0], atol=1e-12)
    np.testing.assert_allclose(after.q[-1], BEFORE[scheme].q[-1], atol=1e-12)
    for k in range(1, len(after.q) - 1):  # (angles: equal modulo 2π)
        difference = chart_coordinates(system, after.q[k], start=theta[k]) - theta[k]
        np.testing.assert_allclose(np.angle(np.exp(1j * difference)), 0.0, atol=1e-9)
    before = np.array([chart_coordinates(system, q) for q in BEFORE[scheme].q])
    moved = np.abs(theta[1:-1] - np.unwrap(before[1:-1], axis=0))
    assert moved.max() <= radius + 1e-9


def test_chart_start_refuses_a_bad_radius_and_a_model_without_a_block():
    with pytest.raises(ConfigurationError, match="radius must be positive"):
        perturb_chart(MODELS["rem"], 0.0, np.random.default_rng(0))
    m = mtm.build("rem", steps=4)
    m.del_component("dyn")
    with pytest.raises(ConfigurationError, match="needs a multibody scheme block"):
        perturb_chart(m, 0.1, np.random.default_rng(0))
