"""A point mass hung from a revolute hinge on a massless rod (issue 34: planar modelling
without a tiny rigid body for a pendulum bob).

The joint's two rows (the mass turns in its plane, the rod keeps its length) must give what
every joint gives — admissible reparametrisations, G P = 0, B(q♯) P(q_mid) = I, the
null space as the reparametrisation's derivative, joint wrenches without net force or
moment — and the dynamics must be the pendulum's: against scipy on m L² θ̈ = -m g L cos θ + τ
at each scheme's order, energy exact in BEM, BEM = REM on an optimal swing.
"""

import casadi
import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import given, settings, strategies as st
from scipy.integrate import solve_ivp

from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.mechanics import MultibodySystem, PointMass, Prismatic, Revolute, RigidBody
from pyomo_mbdyn.ocp import OptimalControlProblem
from pyomo_mbdyn.schemes import scheme_block
from pyomo_mbdyn.schemes.gc import chain_inverse_dynamics
from pyomo_mbdyn.simulate import simulate

from systems import directions, increments, vectors

L, MASS, G = 1.5, 2.0, 9.81


def amax(x):
    return np.abs(np.asarray(x, dtype=float)).max(initial=0.0)


@st.composite
def rods(draw):
    """A bob on a rod from the ground, or from a rigid link hinged to the ground (or free)."""
    system = MultibodySystem("rod", gravity=(0, -G, 0))
    link = None
    parent_kind = draw(st.sampled_from(["ground", "hinged link", "free link"]))
    if parent_kind != "ground":
        link = RigidBody("link", draw(st.floats(0.5, 3.0)), tuple(draw(st.floats(0.5, 1.0)) for _ in range(3)),
                         position=draw(vectors(3, 2.0)))
        system.add_bodies(link)
    hinge = draw(vectors(3, 2.0))
    axis = draw(directions())
    rod = draw(vectors(3, 2.0).filter(lambda d: np.linalg.norm(np.cross(axis, d)) >= 0.2))
    bob = PointMass("bob", draw(st.floats(0.5, 3.0)), position=hinge + rod)
    system.add_bodies(bob)
    if parent_kind == "hinged link":
        system.add_joints(Revolute("shoulder", None, link, location=draw(vectors(3, 2.0)), axis=draw(directions())))
    system.add_joints(Revolute("rod", link, bob, location=hinge, axis=axis))
    return system


@settings(max_examples=40, deadline=None)
@given(system=rods(), data=st.data(), step=st.floats(0.05, 1.0))
def test_the_rod_is_a_joint_like_every_other(system, data, step):
    qk = system.reparametrise(data.draw(increments(system, 1.5)), system.q0)
    qk1 = system.reparametrise(data.draw(increments(system, step)), qk)
    for q in (qk, qk1):
        assert amax(system.constraints(q)) < 1e-12
        G_, P = system.constraint_jacobian(q), system.null_space(q)
        assert amax(G_ @ P) < 1e-12 and np.linalg.matrix_rank(P) == system.n - system.m == system.dof
    # the rod keeps its length and the mass its plane
    bob = system.body_coordinates(qk1, "bob")
    joint = system.joints["rod"]
    parent = system.body_coordinates(qk1, joint.parent) if joint.parent.name != "ground" else joint.parent.q0
    hinge = np.asarray(joint.parent.point(parent, joint.parent_point), float)
    hinge0 = np.asarray(joint.parent.point(joint.parent.q0, joint.parent_point), float)
    assert np.linalg.norm(bob - hinge) == pytest.approx(np.linalg.norm(joint.child.q0 - hinge0), rel=1e-12)
    # the contravariant input matrix inverts the midpoint null space
    q_mid = 0.5 * (qk + qk1)
    B, P = system.control_matrix(q_mid), system.null_space(q_mid)
    assert amax(B @ P - np.eye(system.dof)) < 1e-12 * max(1.0, amax(B) * amax(P))
    assert amax(system.constraint_jacobian(q_mid) @ P) < 1e-12
    # the null space is the reparametrisation's derivative
    w = casadi.SX.sym("w", system.n_velocities)
    F = system.reparametrise(np.array([w[i] for i in range(system.n_velocities)], dtype=object), qk)
    F = casadi.vertcat(*[casadi.SX(f) for f in F])
    J = casadi.Function("J", [w], [casadi.jacobian(F, w)])(np.zeros(system.n_velocities))
    assert amax(np.array(J) - system.null_space(qk)) < 1e-12
    # a joint torque is a wrench without net force or moment (link and bob together)
    if "link" in system.bodies:
        C = system.wrench_matrix(qk)
        col = system.layout["index"]["rod.angle"]
        phi = {b: system.body_coordinates(qk, b)[0:3] for b in system.bodies}
        force = C["link"][0:3, col] + C["bob"][0:3, col]
        moment = C["link"][3:6, col] + np.cross(phi["link"], C["link"][0:3, col]) + np.cross(phi["bob"], C["bob"][0:3, col])
        assert amax(force) < 1e-12 and amax(moment) < 1e-12


def pendulum(position=(L, 0.0, 0.0)):
    bob = PointMass("bob", MASS, position=position)
    system = MultibodySystem("pendulum", gravity=(0, -G, 0))
    system.add_bodies(bob)
    system.add_joints(Revolute("rod", None, bob, location=(0, 0, 0), axis=(0, 0, 1)))
    system.actuate("rod")
    return system


@pytest.mark.parametrize("scheme, order", [("bem", 2), ("rem", 2), ("dmocc", 2), ("gc", 2), ("rattle", 2),
                                           ("lobatto", 4), ("lobatto_gc", 4), ("cg2", 4)])
def test_the_bob_swings_as_the_pendulum_equation_says(scheme, order):
    """From horizontal, a constant applied torque u = τ = 3 N m for 1 s: the angle against
    scipy's solution of m L² θ̈ = -m g L cos θ + τ, at the scheme's order."""
    system, T, tau = pendulum(), 1.0, 3.0
    ref = solve_ivp(lambda t, y: [y[1], (-MASS * G * L * np.cos(y[0]) + tau) / (MASS * L**2)], (0, T), [0, 0],
                    rtol=1e-12, atol=1e-12).y[0, -1]
    errors = []
    for N in (50, 100):
        x, y = simulate(system, system.q0, np.zeros(3), T / N, N, tau * np.ones((N, 1)), scheme=scheme).q[-1][:2]
        errors.append(abs(np.arctan2(y, x) - ref))
    assert np.log2(errors[0] / errors[1]) == pytest.approx(order, abs=0.1)


def _swing_up(scheme, steps=40):
    """The bob from hanging to horizontal and at rest in 2 s, least effort, solved from the
    block's own start; ``(model, problem)``."""
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=pendulum(position=(0.0, -L, 0.0)), steps=steps, horizon=2.0)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort()
    problem.fix_final_configuration({"rod": np.pi / 2})
    problem.require_final_rest()
    assert str(problem.solve().solver.termination_condition) == "optimal"
    return m, problem


def test_energy_is_exact_and_bem_equals_rem_on_a_swing_up():
    """Hanging to horizontal and at rest in 2 s with the least effort: BEM and REM give one
    optimum, the bob stays on its rod, T + V + W holds to round-off; GC's momentum balance runs
    through the recursive Newton–Euler chain (the bob a mass at the rod's end)."""
    assert chain_inverse_dynamics(pendulum(position=(0.0, -L, 0.0))) is not None
    costs = {}
    for scheme in ("bem", "rem", "gc"):
        m, _ = _swing_up(scheme)
        trajectory = m.dyn.trajectory()
        assert np.allclose(np.linalg.norm(trajectory.q, axis=1), L, atol=1e-10)
        assert np.allclose(trajectory.q[-1], [L, 0, 0], atol=1e-8)
        if scheme != "gc":
            assert np.ptp(trajectory.diagnostics()["E"]) < 1e-10
        costs[scheme] = pyo.value(m.ocp.control_effort)
    assert costs["bem"] == pytest.approx(costs["rem"], rel=1e-9)
    assert costs["gc"] == pytest.approx(costs["rem"], rel=1e-3)  # the same problem, another second-order scheme


@pytest.mark.parametrize("scheme", ["dmocc", "dmocc_lm", "rattle", "lobatto", "lobatto_gc", "cg2"])
def test_every_scheme_swings_the_bob_up(scheme):
    """The same swing-up from the block's own start (no guess: the middle nodes of the
    fourth-order schemes start at the initial configuration), the bob at rest on its rod at
    the end, and the same optimum as REM's to the schemes' discretisation error."""
    costs = {}
    for name in ("rem", scheme):
        m, problem = _swing_up(name)
        assert np.allclose(m.dyn.trajectory().q[-1], [L, 0, 0], atol=1e-8)
        assert pyo.value(problem.joint_coordinates()[40, "rod.angle"]) == pytest.approx(np.pi / 2, abs=1e-8)
        costs[name] = pyo.value(m.ocp.control_effort)
    assert costs[scheme] == pytest.approx(costs["rem"], rel=2e-2)


def test_bad_rods_are_refused_by_name():
    bob = PointMass("bob", 1.0, position=(0, 0, 2.0))
    with pytest.raises(ConfigurationError, match=r"Revolute\('rod'\): the point mass 'bob' lies on the hinge axis"):
        Revolute("rod", None, bob, location=(0, 0, 0), axis=(0, 0, 1))
    with pytest.raises(ConfigurationError, match="hung from a Revolute hinge on a massless rod"):
        Prismatic("rail", None, bob, axis=(1, 0, 0))
