"""The scheme registry, and one battery of checks run on every scheme it lists.

For each record with step equations on a multibody system (bem, rem, dmocc,
dmocc_lm, gc, rattle, and any scheme added later): the square block solved by
IPOPT equals the Newton stepper; the momentum maps are exact where the record
says the scheme is momentum consistent (and visibly not otherwise); the
observed order of accuracy is the record's; and the three-link-arm OCP solves
to the continuous optimum within the scheme's discretisation error.
"""

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody, Spherical
from pyomo_mbdyn.models import three_link_arm
from pyomo_mbdyn.schemes import SCHEMES, record, scheme_block, scheme_names
from pyomo_mbdyn.simulate import simulate

from blocks import solve_block
from systems import director_double_pendulum

STEPPED = [name for name, rec in SCHEMES.items() if rec.step is not None and rec.system == "multibody"]
OPTIMAL_CONTROL = scheme_names(optimal_control=True)
#: the arm's continuous optimum (issue 14: pyomo.dae Radau and the library's O(h²)
#: sequences extrapolated; J* ≈ 3 981 028)
ARM_OPTIMUM = 3.981028e6


def free_pair():
    """Two rigid bodies on a spherical joint and a third on a revolute, no gravity,
    actuated joints: internal torques only, so L and p are conserved."""
    a = RigidBody("a", 2.0, (0.3, 0.25, 0.1), position=(0.0, 0.0, 0.0))
    b = RigidBody("b", 1.0, (0.1, 0.12, 0.05), position=(1.0, 0.2, 0.0))
    c = RigidBody("c", 0.5, (0.03, 0.05, 0.05), position=(1.8, 0.2, 0.1))
    system = MultibodySystem("free-pair")
    system.add_bodies(a, b, c)
    system.add_joints(Spherical("ball", a, b, location=(0.5, 0.1, 0.0)),
                      Revolute("hinge", b, c, location=(1.4, 0.2, 0.05), axis=(0, 0, 1)))
    system.actuate("ball")
    system.actuate("hinge")
    return system


def _controls(system, steps, h):
    t = h * (np.arange(steps) + 0.5)
    return np.array([[0.3 * np.sin(5 * tk + a) for a in range(len(system.actuated))] for tk in t])


def test_registry_lists_the_schemes_and_their_blocks():
    assert {"bem", "rem", "dmocc", "dmocc_lm", "gc", "rattle", "lobatto", "cg2", "quaternion", "dnco"} <= set(SCHEMES)
    for name, rec in SCHEMES.items():
        block = rec.block_class()
        assert block.__name__.endswith("Block") and "Keyword Arguments" in block.__doc__, name
        assert rec.order in (2, 4), name  # the observed order is test_observed_order's
    with pytest.raises(ConfigurationError, match="unknown scheme 'verlet'; available"):
        record("verlet")


@pytest.mark.parametrize("scheme", STEPPED)
def test_square_block_equals_stepper(scheme):
    system = free_pair()
    h, steps = 0.05, 6
    q0 = system.q0
    v0 = system.null_space(q0) @ np.linspace(0.5, -0.4, system.n_velocities)
    U = _controls(system, steps, h)
    stepped = simulate(system, q0, v0, h, steps, U, scheme=scheme)
    guess = simulate(system, q0, v0, h, steps, U, scheme="bem" if scheme != "bem" else "rem")
    _, q, v, u, _ = solve_block(scheme, system, q0, v0, steps, h, U, guess)
    assert np.abs(q - stepped.q).max() < 1e-9
    assert np.abs(v - stepped.v).max() < 1e-8 * max(1.0, np.abs(stepped.v).max())
    np.testing.assert_array_equal(u, U)


@pytest.mark.parametrize("scheme", STEPPED)
def test_momentum_maps(scheme):
    """Internal joint torques on a free system: total L and p constant to round-off for
    momentum-consistent schemes; the chart schemes drift visibly above round-off (gc at
    second order; lobatto_gc's L at fourth order, 6e-8 here: its rotation vectors are not
    acted on linearly by rotations, test_fourth_order checks the O(h⁴) and the exact p)."""
    system = free_pair()
    h, steps = 0.05, 40
    q0 = system.q0
    v0 = system.null_space(q0) @ np.linspace(0.5, -0.4, system.n_velocities)
    trajectory = simulate(system, q0, v0, h, steps, _controls(system, steps, h), scheme=scheme)
    L = np.array([np.asarray(system.angular_momentum(q, v), float) for q, v in zip(trajectory.q, trajectory.v)])
    p = np.array([np.asarray(system.linear_momentum(v), float) for v in trajectory.v])
    drift = max(np.abs(L - L[0]).max() / np.abs(L[0]).max(), np.abs(p - p[0]).max() / np.abs(p[0]).max())
    if record(scheme).momentum_consistent:
        assert drift < 1e-11
    else:
        assert drift > 1e-9


@pytest.mark.parametrize("scheme", STEPPED)
def test_energy_balance(scheme):
    """Internal joint torques on a free system: T + V + W (W the controls' work as the scheme
    states it, ``trajectory.diagnostics()``) constant to round-off where the record says the
    scheme is energy consistent, and visibly not otherwise."""
    system = free_pair()
    h, steps = 0.05, 40
    q0 = system.q0
    v0 = system.null_space(q0) @ np.linspace(0.5, -0.4, system.n_velocities)
    trajectory = simulate(system, q0, v0, h, steps, _controls(system, steps, h), scheme=scheme)
    table = trajectory.diagnostics()
    spread = np.ptp(table["E"]) / table["T"].abs().max()
    if record(scheme).energy_consistent:
        assert spread < 1e-11
    else:
        assert spread > 1e-9


@pytest.mark.parametrize("scheme", STEPPED)
def test_observed_order(scheme):
    """Error at t = 0.5 against a 16× finer run of the same scheme, h and h/2."""
    system = director_double_pendulum()
    q0, v0 = system.q0, system.null_space(system.q0) @ np.array([1.0, -0.5])
    T = 0.5

    def final(steps):
        return simulate(system, q0, v0, T / steps, steps, scheme=scheme).q[-1]

    reference = final(320)
    errors = [np.abs(final(steps) - reference).max() for steps in (20, 40)]
    order = np.log2(errors[0] / errors[1])
    assert abs(order - record(scheme).order) < 0.25, errors


def test_scheme_solver_defaults_are_the_blocks_and_lose_to_the_call():
    """A record's ``ipopt_options`` become its blocks' solver defaults (cG(2): METIS), added
    only where the call sets nothing."""
    from pyomo_mbdyn.solvers.evaluation import with_model_defaults

    for scheme in OPTIMAL_CONTROL:
        m = three_link_arm.build(scheme, steps=2)
        assert getattr(m.dyn, "_solver_defaults", {}) == dict(record(scheme).ipopt_options), scheme
    m = three_link_arm.build("cg2", steps=2)
    assert with_model_defaults(m, {}, {})["options"]["mumps_pivot_order"] == 5
    assert with_model_defaults(m, {}, {"options": {"mumps_pivot_order": 3}})["options"]["mumps_pivot_order"] == 3


@pytest.mark.parametrize("scheme", OPTIMAL_CONTROL)
def test_three_link_arm_optimal_control(scheme):
    """The arm OCP (thesis E3, N = 20) solves with every OCP-capable scheme, meets its final
    configuration and rest (joint rates; BEM's node velocities keep components normal to
    the constraint manifold), and its J is the continuous optimum up to the O(h²) error (< 1 %)."""
    m = three_link_arm.build(scheme)
    result = pyo.SolverFactory("casadi_ipopt").solve(m)
    assert str(result.solver.termination_condition) == "optimal"
    J = pyo.value(m.ocp.control_effort)
    assert abs(J - ARM_OPTIMUM) < 1e-2 * ARM_OPTIMUM
    trajectory = m.dyn.trajectory()
    np.testing.assert_allclose(three_link_arm.joint_angles(trajectory.q[-1]), three_link_arm.ALPHAF, atol=1e-7)
    q_N, v_N = trajectory.q[-1], trajectory.v[-1]
    rates = np.asarray(m.dyn.system.control_matrix(q_N), float) @ v_N  # at rest: ν_N = B(q_N) v_N = 0
    assert np.abs(rates).max() < 1e-6


def test_records_say_what_blocks_accept():
    system = director_double_pendulum()
    system.add_friction("elbow", 1.0)
    for name in OPTIMAL_CONTROL:
        m = pyo.ConcreteModel()
        if record(name).friction:
            m.dyn = scheme_block(name, system=system, steps=2, horizon=1.0)
        else:
            with pytest.raises(ConfigurationError, match="friction"):
                m.dyn = scheme_block(name, system=system, steps=2, horizon=1.0)
