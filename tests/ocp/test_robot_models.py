"""The robot models (issue 30): OCPs on arms read from their URDFs, checked against
Pinocchio and across schemes.

* GC on the UR5 and the Panda is the implicit midpoint rule in joint angles: its
  solved θ_k, ṽ_k, u_k satisfy
  ``pinocchio.rnea(θ_{k+½}, ṽ_{k+½}, (ṽ_{k+1} - ṽ_k)/h) + u_k = 0`` (u is minus the
  joint torque) — the dynamics of a library nobody here wrote, on URDFs the library
  imported itself.
* BEM = REM (the same discrete dynamics with and without multipliers) on the UR5 (and,
  marked slow, the Panda) at the model's grid, with the final state at rest (P(q_N)ᵀ M v_N = 0), inside the URDF's
  joint limits (to IPOPT's bound relaxation, 1e-8 max(1, |bound|)) and within the effort limits.
"""

import numpy as np
import pinocchio as pin  # the test extra installs `pin`
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn import robots
from pyomo_mbdyn.models import panda, ur5

from test_final_rest_is_rest import continuation_drift

MODULES = {"panda": panda, "ur5": ur5}


# the Panda's GC equals the hand-written joint-space NLP of benchmarks/robots.py to all digits of J
@pytest.mark.parametrize("robot, steps", [("ur5", 20), pytest.param("panda", 20, marks=pytest.mark.slow)])
def test_gc_solution_satisfies_the_joint_space_midpoint_rule_with_pinocchio(robot, steps):
    m = MODULES[robot].build("gc", steps=steps)
    assert str(m.problem.solve("casadi_ipopt").solver.termination_condition) == "optimal"
    tr = m.dyn.trajectory()
    model = pin.buildModelFromUrdf(robots.path(robot))
    data = model.createData()
    h = float(m.dyn.step_length)
    theta, vt, u = tr.theta, tr.vt, tr.u
    assert theta.shape == (steps + 1, model.nv) and u.shape == (steps, model.nv)
    residual = np.array([pin.rnea(model, data, (theta[k] + theta[k + 1]) / 2, (vt[k] + vt[k + 1]) / 2,
                                  (vt[k + 1] - vt[k]) / h) - u[k] for k in range(steps)])  # τ = u
    scale = np.abs(u).max()
    assert np.abs(residual).max() < 1e-8 * scale
    np.testing.assert_allclose(theta[-1], MODULES[robot].TARGET, atol=1e-12)
    assert np.abs(vt[-1]).max() < 1e-12
    # the configurations read back are the chart of θ (the compiled path of trajectory())
    q = np.array([np.asarray(m.dyn.system.reparametrise(t, m.dyn.system.q0), float) for t in theta[[0, -1]]])
    assert np.abs(tr.q[[0, -1]] - q).max() < 1e-12


@pytest.mark.parametrize("robot", ["ur5", pytest.param("panda", marks=pytest.mark.slow)])
def test_bem_equals_rem_and_stops_within_the_limits(robot):
    module = MODULES[robot]
    results = {}
    for scheme in ("rem", "bem"):
        m = module.build(scheme)
        assert str(m.problem.solve("casadi_ipopt").solver.termination_condition) == "optimal"
        results[scheme] = (pyo.value(m.ocp.control_effort), m.dyn.trajectory(), module.evaluate(m))
        # continued by the stepper under the holding control, the final state stays put
        assert continuation_drift(m) < 1e-8, scheme
    (J_rem, tr_rem, ev_rem), (J_bem, tr_bem, ev_bem) = results["rem"], results["bem"]
    assert J_bem == pytest.approx(J_rem, rel=1e-8)
    np.testing.assert_allclose(tr_bem.q, tr_rem.q, atol=1e-6)
    np.testing.assert_allclose(tr_bem.u, tr_rem.u, atol=1e-5 * np.abs(tr_rem.u).max())
    for ev in (ev_rem, ev_bem):
        assert ev["final_momentum"] < 1e-9          # at rest in every degree of freedom
        assert ev["final_joint_rate_max"] < 1e-8 and ev["final_kinetic_energy"] < 1e-12   # read in joint space
        assert ev["effort_ratio_max"] <= 1 + 1e-8
        # IPOPT relaxes every bound by bound_relax_factor 1e-8 × max(1, |bound|): at most ±2π here
        assert ev["joint_limit_margin_min"] >= -1e-8 * 2 * np.pi
