"""Controls are the applied generalised forces (issue 34): ``u`` is what a motor applies —
the force along a slider in N, the torque about a hinge in N m — in every scheme, in the
optimal-control problems, the multipliers' control equation and the diagnostics.

A cart of mass m on a rail along e1, pushed by a constant u = F from rest, moves as Newton
says, x(t) = F t² / (2 m): every scheme integrates this motion exactly (it is quadratic in t).
Rest to rest over a distance the least-effort push is positive first and negative after, and
the work done on the cart, -W = Σ h u ν, is its kinetic energy at every node.
"""

import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings, strategies as st

from pyomo_mbdyn.schemes import scheme_block, scheme_names
from pyomo_mbdyn.mechanics import MultibodySystem, Prismatic, RigidBody
from pyomo_mbdyn.ocp import OptimalControlProblem, multipliers
from pyomo_mbdyn.simulate import UdwadiaKalabaSystem, simulate

MASS = 2.0
SCHEMES = scheme_names(optimal_control=True)


def cart(mass=MASS):
    system = MultibodySystem("cart")
    system.add_bodies(RigidBody("cart", mass, (1.0, 1.0, 1.0)))
    system.add_joints(Prismatic("rail", None, system.bodies["cart"], location=(0, 0, 0), axis=(1, 0, 0)))
    system.actuate("rail")
    return system


@settings(max_examples=10, deadline=None)
@given(force=st.floats(-5.0, 5.0).filter(lambda f: abs(f) > 0.1), mass=st.floats(0.5, 4.0))
@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_pushed_cart_moves_as_newton_says(scheme, force, mass):
    system, N, T = cart(mass), 8, 1.0
    tr = simulate(system, system.q0, np.zeros(system.n), T / N, N, np.full((N, 1), force), scheme=scheme)
    x = tr.q[:, 0] - system.q0[0]
    np.testing.assert_allclose(x, force * tr.t**2 / (2 * mass), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(tr.v[-1, 0], force * T / mass, rtol=1e-9)
    # W is the work done on the controls: T + W = 0 from rest
    table = tr.diagnostics()
    np.testing.assert_allclose(table["T"] + table["W"], 0.0, atol=1e-9 * table["T"].max())


@pytest.mark.parametrize("scheme", SCHEMES)
def test_rest_to_rest_pushes_then_brakes(scheme):
    """1 m along +x in 1 s, least effort: the applied force is positive on the first half and
    negative on the second (antisymmetric about T/2 where one control acts per interval; a
    scheme with controls at stages reports the first stage's), and the BEM's, REM's and GC's multipliers give it back
    through the control equation u = λᵖ / (2w) (w = ½: u = λᵖ)."""
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=cart(), steps=10, horizon=1.0)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({"rail.slide": 0.5})
    problem.fix_final_configuration({"rail": 1.0})
    problem.require_final_rest()
    assert str(problem.solve(duals=scheme in ("bem", "rem", "gc")).solver.termination_condition) == "optimal"
    u = m.dyn.trajectory().u[:, 0]
    assert (u[:5] > 0).all() and (u[5:] < 0).all()
    if len(m.dyn.control_variables(0, "rail.slide")) == 1:
        np.testing.assert_allclose(u, -u[::-1], atol=1e-6 * np.abs(u).max())
    if scheme in ("bem", "rem", "gc"):
        np.testing.assert_allclose(multipliers.controls_from_multipliers(m.dyn)[:, 0], u, rtol=1e-6, atol=1e-8)


def test_a_push_only_motor_is_a_lower_bound_of_zero():
    """bound_controls(0, None) is a motor that can only push along +x: it still brings the cart
    to 1 m (with a free final speed) and never pulls."""
    m = pyo.ConcreteModel()
    m.dyn = scheme_block("rem", system=cart(), steps=10, horizon=1.0)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort()
    problem.fix_final_configuration({"rail": 1.0})
    problem.bound_controls(0.0, None)
    result = problem.solve()
    assert str(result.solver.termination_condition) == "optimal"
    u = m.dyn.trajectory().u[:, 0]
    assert (u >= -1e-8).all() and u.max() > 0.1


def test_udwadia_kalaba_takes_the_applied_force():
    system = cart()
    uk = UdwadiaKalabaSystem.from_multibody(system, controls=lambda q, v, t: [3.0])
    result = uk.accelerations(system.q0, np.zeros(system.n))
    assert result.qdd[0] == pytest.approx(3.0 / MASS, rel=1e-12)
