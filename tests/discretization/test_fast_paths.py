"""The float fast paths equal the generic object-array formulas to round-off.

Charts (``chart``, ``chart_basis``, ``chart_velocity``, ``chart_coordinates``)
and the kinematic matrices G, B, P evaluate, for numbers, CasADi functions
compiled once per system from the same formulas; the Newton stepper solves
each iteration with CasADi's sparse QR inside one compiled call
(:class:`pyomo_mbdyn.simulate.stepper.NewtonFunction`).  No timings here.
"""

import gc
import weakref

import casadi
import numpy as np
import pytest

from pyomo_mbdyn.discretization import chart, chart_basis, chart_coordinates, chart_velocity
from pyomo_mbdyn.discretization import common
from pyomo_mbdyn.discretization.jets import directional_derivatives
from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody, Spherical, Universal
from pyomo_mbdyn.simulate.stepper import NewtonFunction, SimulationError, newton_solve


def chain():
    """Free-floating 4-body chain: revolute, spherical and universal joints."""
    bodies = [RigidBody(f"b{i}", 1.0 + i, (0.3, 0.4, 0.5), position=(i, 0.2 * i, 0)) for i in range(4)]
    system = MultibodySystem("chain", gravity=(0, -9.81, 0))
    system.add_bodies(*bodies)
    system.add_joints(
        Revolute("j0", bodies[0], bodies[1], location=(0.5, 0.1, 0), axis=(0, 0, 1)),
        Spherical("j1", bodies[1], bodies[2], location=(1.5, 0.3, 0)),
        Universal("j2", bodies[2], bodies[3], location=(2.5, 0.5, 0), axis=(0, 0, 1), child_axis=(1, 0, 0)),
    )
    for j in system.joints:
        system.actuate(j)
    return system


def grounded_chain():
    """Two bodies hung from the ground by a spherical joint, then a universal joint."""
    bodies = [RigidBody(f"b{i}", 1.0 + i, (0.3, 0.4, 0.5), position=(i, 0.2 * i, 0)) for i in range(2)]
    system = MultibodySystem("grounded", gravity=(0, -9.81, 0))
    system.add_bodies(*bodies)
    system.add_joints(Spherical("j0", None, bodies[0], location=(-0.5, -0.1, 0)),
                      Universal("j1", bodies[0], bodies[1], location=(0.5, 0.1, 0), axis=(0, 0, 1),
                                child_axis=(1, 0, 0)))
    for j in system.joints:
        system.actuate(j)
    return system


def generic_chart(system, theta, rotation):
    return np.asarray(system.reparametrise(np.asarray(theta, dtype=object), system.q0, rotation), float)


def generic_jets(system, theta, direction, rotation):
    """(q, P̃ ṽ, (Ṗ ṽ) ṽ) through Taylor jets (the generic path)."""
    out = directional_derivatives(lambda t: system.reparametrise(t, system.q0, rotation),
                                  np.asarray(theta, dtype=object), direction)
    return [np.asarray(x, float) for x in out]


def generic_basis(system, theta, rotation):
    """P̃(θ) column by column through Taylor jets."""
    return np.array([generic_jets(system, theta, e, rotation)[1] for e in np.eye(system.n_velocities)]).T


@pytest.mark.parametrize("rotation", ["exp", "cayley"])
def test_fast_chart_equals_generic_formula(rotation):
    system = chain()
    rng = np.random.default_rng(11)
    for _ in range(5):
        theta, vt = rng.uniform(-1.5, 1.5, system.n_velocities), rng.uniform(-1, 1, system.n_velocities)
        q = chart(system, theta, rotation)
        assert q.dtype == float and q.shape == (system.n,)
        assert np.abs(q - generic_chart(system, theta, rotation)).max() < 1e-14
        P = chart_basis(system, theta, rotation)
        P_jets = generic_basis(system, theta, rotation)
        assert np.abs(P - P_jets).max() < 1e-13
        for fast, slow in zip(chart_velocity(system, theta, vt, rotation), generic_jets(system, theta, vt, rotation)):
            assert np.abs(fast - slow).max() < 1e-12 * (1 + np.abs(slow).max())


def generic_chart_coordinates(system, q, v, rotation, tol=1e-12):
    """The Gauss–Newton inverse of the chart over the generic formulas (as before the fast path)."""
    theta = np.zeros(system.n_velocities)
    for _ in range(50):
        r = generic_chart(system, theta, rotation) - q
        if np.abs(r).max() < tol:
            break
        theta = theta - np.linalg.lstsq(generic_basis(system, theta, rotation), r, rcond=None)[0]
    return theta, np.linalg.lstsq(generic_basis(system, theta, rotation), v, rcond=None)[0]


@pytest.mark.parametrize("rotation", ["exp", "cayley"])
def test_fast_chart_inverse_equals_generic_inverse(rotation):
    system = chain()
    rng = np.random.default_rng(12)
    for _ in range(4):
        theta, vt = rng.uniform(-0.8, 0.8, system.n_velocities), rng.uniform(-1, 1, system.n_velocities)
        q = generic_chart(system, theta, rotation)
        v = generic_jets(system, theta, vt, rotation)[1]
        th, w = chart_coordinates(system, q, v, rotation)
        th_generic, w_generic = generic_chart_coordinates(system, q, v, rotation)
        assert np.abs(th - th_generic).max() < 1e-12
        assert np.abs(w - w_generic).max() < 1e-12
        assert np.abs(th - theta).max() < 1e-10
        assert np.abs(generic_chart(system, th, rotation) - q).max() < 1e-12


@pytest.mark.parametrize("rotation", ["exp", "cayley"])
def test_replayed_chart_on_pyomo_variables_equals_the_formula(rotation):
    """chart_replayed: q(θ) as Pyomo expressions of θ (the absolute configuration
    forms' nodes), equal to the traced formula at random θ."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.discretization import chart_replayed

    system = chain()
    m = pyo.ConcreteModel()
    m.theta = pyo.Var(range(system.n_velocities))
    q = chart_replayed(system, [m.theta[j] for j in range(system.n_velocities)], rotation)
    assert len(q) == system.n
    rng = np.random.default_rng(13)
    for _ in range(3):
        theta = rng.uniform(-1.5, 1.5, system.n_velocities)
        for j, t in enumerate(theta):
            m.theta[j].value = t
        values = np.array([pyo.value(e) for e in q])
        assert np.abs(values - generic_chart(system, theta, rotation)).max() < 1e-13
    assert np.abs(np.asarray(chart_replayed(system, theta, rotation)) - chart(system, theta, rotation)).max() == 0


def test_configuration_outside_the_chart_still_raises():
    system = chain()
    q = system.q0.copy()
    q[3:6] *= 1.1  # directors no longer orthonormal: no θ reaches it
    with pytest.raises(ValueError, match="configuration not reached by the chart"):
        chart_coordinates(system, q)


def test_symbolic_inputs_keep_the_generic_path():
    system = chain()
    theta = casadi.SX.sym("t", system.n_velocities)
    q = chart(system, np.array([theta[i] for i in range(system.n_velocities)], dtype=object))
    assert q.dtype == object
    f = casadi.Function("q", [theta], [casadi.vertcat(*[casadi.SX(e) for e in q])])
    t = np.linspace(-0.5, 0.5, system.n_velocities)
    assert np.abs(np.asarray(f(t)).ravel() - chart(system, t)).max() < 1e-14


def test_numeric_kinematics_equal_the_formulas():
    system = chain()
    rng = np.random.default_rng(13)
    for _ in range(3):
        q = chart(system, rng.uniform(-1, 1, system.n_velocities))
        G, B, B_plain, P = common.numeric_kinematics(system, q, ("G", "B", "B_plain", "P"))
        assert np.abs(G - np.asarray(system.constraint_jacobian(q), float)).max() < 1e-14
        assert np.abs(B - np.asarray(system.control_matrix(q), float)).max() < 1e-13
        assert np.abs(B_plain - np.asarray(system.control_matrix(q, False), float)).max() < 1e-13
        assert np.abs(P - np.asarray(system.null_space(q), float)).max() < 1e-14


def test_compiled_functions_follow_changes_of_the_system_and_go_with_it():
    system = MultibodySystem("grows")
    a = RigidBody("a", 1.0, (1, 1, 1))
    system.add_bodies(a)
    assert chart(system, np.zeros(6)).shape == (12,)
    b = RigidBody("b", 1.0, (1, 1, 1), position=(1, 0, 0))
    system.add_bodies(b)
    system.add_joints(Revolute("r", a, b, location=(0.5, 0, 0), axis=(0, 0, 1)))
    theta = np.r_[np.zeros(6), 0.3]
    assert np.abs(chart(system, theta) - generic_chart(system, theta, "exp")).max() < 1e-14
    assert system in common._COMPILED
    alive = weakref.ref(system)
    del system
    gc.collect()
    assert alive() is None  # the cache does not keep the system alive


def test_newton_function_solves_with_the_sparse_jacobian():
    x, p = casadi.SX.sym("x", 3), casadi.SX.sym("p", 2)
    r = casadi.vertcat(x[0] ** 2 - p[0], x[1] * x[0] - p[1], casadi.sin(x[2]) + x[0] - 1)
    fun = casadi.Function("f", [x, p], [r, casadi.jacobian(r, x)])
    newton = NewtonFunction(fun)
    x0, p0 = np.array([1.3, 0.2, 0.1]), np.array([2.0, 1.0])
    res, dx = newton(x0, p0)
    R, J = (np.asarray(m) for m in fun(x0, p0))
    assert np.abs(res - R.ravel()).max() < 1e-15
    assert np.abs(dx - np.linalg.solve(J, -R.ravel())).max() < 1e-14
    sol, it = newton_solve(newton, x0, (p0,), 1e-12, 25, 1.0, "test")
    assert np.abs(sol - [np.sqrt(2), 1 / np.sqrt(2), np.arcsin(1 - np.sqrt(2))]).max() < 1e-14
    assert np.allclose(newton_solve(fun, x0, (p0,), 1e-12, 25, 1.0, "test")[0], sol, rtol=0, atol=0)


def test_singular_newton_matrix_is_reported():
    x = casadi.SX.sym("x", 2)
    r = casadi.vertcat(x[0] - x[1], x[0] - x[1] + 1)
    fun = casadi.Function("f", [x], [r, casadi.jacobian(r, x)])
    with pytest.raises(SimulationError, match="singular Newton matrix"):
        newton_solve(fun, np.array([1.0, 2.0]), (), 1e-12, 25, 1.0, "test")


@pytest.mark.parametrize("scheme, form", [("gc", "chart"), ("rem", "absolute"), ("bem", "absolute"),
                                          ("dmocc", "absolute")])
def test_solved_block_values_by_the_compiled_chart_equal_its_expressions(scheme, form):
    """``trajectory()`` of the chart-based forms reads q (and GC's v) from the θ values
    by the compiled chart (``chart_states``), no longer through the named Expressions'
    Pyomo trees: both give the same numbers at random θ, ṽ (spherical and universal
    joints: rotation vectors and joint angles)."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.discretization import chart_states
    from pyomo_mbdyn.schemes import scheme_block

    system = grounded_chain()
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=system, steps=3, horizon=0.3, configurations=form)
    rng = np.random.default_rng(14)
    for var in ("theta", "vt"):
        if m.dyn.component(var) is not None:
            for x in m.dyn.component(var).values():
                x.set_value(rng.uniform(-1.0, 1.0))
    expressions = {"q": m.dyn.configuration_values()}
    through_pyomo = {"q": np.array([[pyo.value(x) for x in m.dyn.q_array(k)] for k in m.dyn.nodes])}
    if scheme == "gc":
        expressions["v"] = m.dyn.velocity_values()
        through_pyomo["v"] = np.array([[pyo.value(x) for x in m.dyn.v_array(k)] for k in m.dyn.nodes])
    for name, values in expressions.items():
        assert values.shape == (4, system.n)
        assert np.abs(values - through_pyomo[name]).max() < 1e-13 * (1 + np.abs(values).max()), name
    tr = m.dyn.trajectory()
    assert np.array_equal(tr.q, expressions["q"])
    theta = tr.theta if hasattr(tr, "theta") else None
    assert theta is not None and np.abs(chart_states(system, theta) - tr.q).max() < 1e-14
