"""A REM solution given to the BEM (`initialize_from`) is a BEM solution: the BEM block recovers
the interval multipliers γ the REM eliminated (least squares on h G(q_{k+½})ᵀ γ = -r_k), so every
BEM row holds at the start and IPOPT stays there.  BEM = REM as a statement about each optimum,
checked from the REM side (the test of the same statement from the BEM side: equal J)."""

import dataclasses

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.models import four_bar, three_link_arm
from pyomo_mbdyn.ocp.solve import REFINED_STAGE_OPTIONS

STEPS = 10


def largest_equality_residual(model):
    return max(abs(pyo.value(c.body) - pyo.value(c.upper))
               for c in model.component_data_objects(pyo.Constraint, active=True) if c.equality)


@pytest.mark.parametrize("module", [three_link_arm, four_bar], ids=["tree", "closed loop"])
def test_bem_started_at_the_rem_optimum_is_at_its_optimum(module):
    rem = module.build("rem", steps=STEPS)
    rem.problem.solve("casadi_ipopt", options={"tol": 1e-12})
    bem = module.build("bem", steps=STEPS)
    bem.dyn.initialize_from(rem.dyn.trajectory())
    assert largest_equality_residual(bem) < 1e-9
    # at a solution: IPOPT's least-squares multipliers there are the solution's (the options of
    # solve_refined's refined stages; the problem's own default start is zero multipliers)
    result = bem.problem.solve("casadi_ipopt", options=REFINED_STAGE_OPTIONS)
    assert result.solver.iterations <= 2
    J_rem, J_bem = (pyo.value(next(m.component_data_objects(pyo.Objective, active=True))) for m in (rem, bem))
    assert J_bem == pytest.approx(J_rem, rel=1e-10)
    assert np.abs(bem.dyn.trajectory().q - rem.dyn.trajectory().q).max() < 1e-8


def test_multipliers_given_by_the_trajectory_are_kept():
    """A trajectory that carries γ (a BEM solution) sets them as they are, not recovered."""
    bem = three_link_arm.build("bem", steps=STEPS)
    bem.problem.solve("casadi_ipopt")
    tr = bem.dyn.trajectory()
    changed = tr.lam + 1.0
    other = three_link_arm.build("bem", steps=STEPS)
    other.dyn.initialize_from(dataclasses.replace(tr, extras={**tr.extras, "lam": changed}))
    assert np.array_equal(other.dyn.trajectory().lam, changed)
