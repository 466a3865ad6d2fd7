"""The DNCO block and its discrete gradients (thesis §2.11).

Properties over random states (hypothesis) for the pendulum (n = 1), the
particle (n = 3, constant M) and the three-link arm (n = 3, M(α)):
the discrete-gradient identity, the directional property of the three-point
second derivative, Greenspan's 1-DOF formulas (8.16, 8.20–8.21) as the n = 1
case, the guarded removable singularity, the Pyomo replay of the CasADi
formulas, the structural check and the input errors.
"""

import hypothesis.extra.numpy as hnp
import numpy as np
import pyomo.environ as pyo
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.errors import ConfigurationError, StructuralError
from pyomo_mbdyn.mechanics.linalg import elementwise
from pyomo_mbdyn.models import particle, pendulum, three_link_arm_dnco
from pyomo_mbdyn.schemes import scheme_block
from pyomo_mbdyn.discretization.hamiltonian import (GUARD, costate_residual, discrete_gradient, discrete_hessian,
                                                   state_residual)
from pyomo_mbdyn.mechanics import HamiltonianSystem
from pyomo_mbdyn.ocp.dnco import parse_scheme
from pyomo_mbdyn.schemes.dnco import DNCOBlock
from pyomo_mbdyn.schemes.structure import expression_value
from pyomo_mbdyn.solvers import get_solver

SYSTEMS = {"pendulum": pendulum.build_system(), "particle": particle.build_system(),
           "arm": three_link_arm_dnco.build_system()}
#: (system, gradient) pairs; greenspan needs a constant mass matrix
CASES = [("pendulum", "greenspan"), ("pendulum", "gonzalez"), ("particle", "greenspan"),
         ("particle", "gonzalez"), ("arm", "gonzalez")]
ALL_CASES = CASES + [("pendulum", "midpoint"), ("particle", "midpoint"), ("arm", "midpoint")]


def _floats(lo, hi):
    """Physical magnitudes: values below 1e-8 become 0 (products of ~1e-156 numbers are
    subnormal, where relative round-off bounds no longer hold)."""
    return st.floats(lo, hi, allow_nan=False).map(lambda x: 0.0 if abs(x) < 1e-8 else x)


def _arrays(n, lo, hi):
    return hnp.arrays(np.float64, n, elements=_floats(lo, hi))


def _state(system_name, data, scale=1.0):
    """A random state: angles/positions in a box (particle away from the origin), momenta."""
    n = SYSTEMS[system_name].n
    q = data.draw(_arrays(n, -2, 2))
    if system_name == "particle":
        q = q + np.array([3.0, 0.0, 0.0])  # |q| ≥ 1
    pmax = 200.0 if system_name == "arm" else 3.0
    p = data.draw(_arrays(n, -pmax, pmax))
    return np.concatenate([q, p]) * scale


def _step(system_name, data, size):
    n = SYSTEMS[system_name].n
    d = data.draw(_arrays(2 * n, -1, 1))
    if system_name == "arm":
        d[n:] *= 100.0
    return size * d


@pytest.mark.parametrize("name, gradient", CASES)
@given(data=st.data())
def test_discrete_gradient_identity(name, gradient, data):
    """∇̄H(x, y)·(y - x) = H(y) - H(x) to round-off."""
    system = SYSTEMS[name]
    x = _state(name, data)
    y = x + _step(name, data, data.draw(st.sampled_from([1.0, 1e-1, 1e-3])))
    g = discrete_gradient(system, x, y, gradient)
    Hx, Hy = system.hamiltonian(x), system.hamiltonian(y)
    scale = abs(Hx) + abs(Hy) + np.abs(system.gradient(0.5 * (x + y)) * (y - x)).sum()
    assert abs(g @ (y - x) - (Hy - Hx)) <= 1e-13 * scale


@pytest.mark.parametrize("name, gradient", ALL_CASES)
@given(data=st.data())
def test_three_point_second_derivative_is_directional(name, gradient, data):
    """∇̄ₓₓH(x_{k-1}, x_k, x_{k+1}) ½(x_{k+1} - x_{k-1}) = ∇̄H_{k,k+1} - ∇̄H_{k-1,k}.

    Up to round-off and the guard's documented change |r| δ²/(|Δx|² + δ²),
    r = ∇̄H_{k,k+1} - ∇̄H_{k-1,k} - H_β Δx (only the V-block for Greenspan).
    """
    system = SYSTEMS[name]
    n = system.n
    x = _state(name, data)
    size = data.draw(st.sampled_from([0.5, 1e-2]))
    x_prev, x_next = x - _step(name, data, size), x + _step(name, data, size)
    d = 0.5 * (x_next - x_prev)
    dd = d[:n] if gradient == "greenspan" else d
    assume(dd @ dd > 0)
    A = discrete_hessian(system, x_prev, x, x_next, gradient)
    g_prev = discrete_gradient(system, x_prev, x, gradient)
    g_next = discrete_gradient(system, x, x_next, gradient)
    rhs = g_next - g_prev
    Hb = system.hessian(x)
    scale = np.abs(Hb).max() * np.abs(d).max() + np.abs(g_prev).max() + np.abs(g_next).max()
    guard = np.abs(rhs - Hb @ d).max() * GUARD**2 / (dd @ dd + GUARD**2)
    np.testing.assert_allclose(A @ d, rhs, rtol=0, atol=1e-13 * scale + guard)


def test_midpoint_gradient_is_not_energy_consistent():
    system = SYSTEMS["pendulum"]
    x, y = np.array([0.1, 0.5]), np.array([1.1, -0.3])
    g = discrete_gradient(system, x, y, "midpoint")
    assert abs(g @ (y - x) - (system.hamiltonian(y) - system.hamiltonian(x))) > 0.1


@given(q=_arrays(3, -3, 3), p=_arrays(3, -3, 3))
def test_one_dof_greenspan_is_the_thesis_formula(q, p):
    """For n = 1: ∇̄V = (V(q₁) - V(q₀))/(q₁ - q₀) (8.16) and the costate rows are 8.20 with 8.21
    (three distinct nodes: the quotients of 8.21 need them)."""
    assume(min(abs(q[1] - q[0]), abs(q[2] - q[1]), abs(q[2] - q[0])) >= 1e-2)
    system = SYSTEMS["pendulum"]
    X = [np.array([q[k], p[k]]) for k in range(3)]
    V = lambda s: -9.81 * np.sin(s)  # noqa: E731
    greenspan = [(V(q[k + 1]) - V(q[k])) / (q[k + 1] - q[k]) for k in range(2)]
    G = [discrete_gradient(system, X[k], X[k + 1], "greenspan") for k in range(2)]
    for k in range(2):
        np.testing.assert_allclose(G[k], [greenspan[k], 0.5 * (p[k] + p[k + 1])], rtol=1e-12, atol=1e-12)
    Vqq = (greenspan[1] - greenspan[0]) / (0.5 * (q[2] - q[0]))  # 8.21
    np.testing.assert_allclose(discrete_hessian(system, *X, "greenspan"), [[Vqq, 0], [0, 1.0]],
                               rtol=1e-10, atol=1e-10)
    lam0, lam1, h = np.array([0.3, -1.2]), np.array([0.7, 0.4]), 0.1
    r = costate_residual(system, *X, lam0, lam1, h, G[0], G[1], "greenspan")
    thesis = [(lam1[0] - lam0[0]) / h - Vqq * 0.5 * (lam1[1] + lam0[1]),  # 8.20, first row
              (lam1[1] - lam0[1]) / h + 0.5 * (lam1[0] + lam0[0])]
    np.testing.assert_allclose(r, thesis, rtol=1e-10, atol=1e-10)


# -- the removable singularity Δx → 0 --------------------------------------------------
@pytest.mark.parametrize("name, gradient", ALL_CASES)
def test_guard_gives_the_limit_at_zero_step(name, gradient):
    system = SYSTEMS[name]
    x = np.array([0.3, -0.2, 0.5, 1.0, 2.0, -1.0])[: 2 * system.n] + (np.r_[3, 0, 0, 0, 0, 0]
                                                                      if name == "particle" else 0)
    g0 = discrete_gradient(system, x, x, gradient)
    assert np.all(np.isfinite(g0)) and np.array_equal(g0, system.gradient(x))
    # continuity: the quotient tends to ∇H(x_{k+½}) as O(|Δx|²)
    d = np.linspace(0.3, 1.0, 2 * system.n)
    errors = [np.abs(discrete_gradient(system, x, x + s * d, gradient) - system.gradient(x + 0.5 * s * d)).max()
              for s in (1e-2, 1e-3)]
    if gradient != "midpoint":
        assert errors[1] < errors[0] / 50
    # tiny steps: the numerator is round-off, ε|H|/|Δx|, plus the O(|Δx|) change of ∇H
    dx = 1e-7 * d
    bound = 10 * np.finfo(float).eps * max(1.0, abs(system.hamiltonian(x))) / np.linalg.norm(dx) + \
        np.abs(system.hessian(x)).max() * np.abs(dx).sum()
    assert np.abs(discrete_gradient(system, x, x + dx, gradient) - system.gradient(x)).max() < bound


@pytest.mark.parametrize("name, gradient", CASES)
def test_guarded_quotient_has_a_finite_jacobian_at_zero_step(name, gradient):
    """The CasADi Jacobian of ∇̄H(x, y) at y = x is ½∇ₓₓH(x) in each argument."""
    import casadi as ca

    system = SYSTEMS[name]
    n2 = 2 * system.n
    X, Y = ca.SX.sym("x", n2), ca.SX.sym("y", n2)
    g = discrete_gradient(system, np.array([X[i] for i in range(n2)], dtype=object),
                          np.array([Y[i] for i in range(n2)], dtype=object), gradient)
    J = ca.Function("J", [X, Y], [ca.jacobian(ca.vertcat(*g), ca.vertcat(X, Y))])
    x = np.linspace(0.2, 0.9, n2) + (np.r_[3, 0, 0, 0, 0, 0] if name == "particle" else 0)
    jac = np.array(J(x, x))
    assert np.all(np.isfinite(jac))
    H = system.hessian(x)
    np.testing.assert_allclose(jac[:, :n2], 0.5 * H, atol=1e-12 * np.abs(H).max())
    np.testing.assert_allclose(jac[:, n2:], 0.5 * H, atol=1e-12 * np.abs(H).max())


def test_square_system_solves_from_a_guess_with_zero_steps():
    """x_1 = x_2 = x_0 in the guess: Δx = 0 exactly on two intervals and in the
    three-point formula at k = 1; the guarded equations are finite and IPOPT
    reaches the solution found from the straight-line guess."""
    m = pendulum.build("dnco", 20)
    reference = pendulum.build("dnco", 20)
    for k in (1, 2):
        m.dyn.q[k, "q"].set_value(0.0)
        m.dyn.p[k, "q"].set_value(0.0)
    residuals = [expression_value(c.body) for c in m.dyn.component_data_objects(pyo.Constraint)]
    assert np.all(np.isfinite(residuals))
    opt = get_solver("casadi_ipopt")
    opt.options["tol"] = 1e-12
    for model in (m, reference):
        assert opt.solve(model).solver.termination_condition in (pyo.TerminationCondition.optimal,
                                                                 pyo.TerminationCondition.locallyOptimal)
    mine, theirs = m.dyn.trajectory(), reference.dyn.trajectory()
    np.testing.assert_allclose(np.hstack([mine.q, mine.p]), np.hstack([theirs.q, theirs.p]), atol=1e-9)


# -- the Pyomo block ----------------------------------------------------------------------
@pytest.mark.parametrize("name, gradient", [("arm", "gonzalez"), ("particle", "greenspan"),
                                            ("pendulum", "midpoint")])
def test_pyomo_equations_are_the_numeric_formulas(name, gradient):
    """The replayed CasADi graph in Pyomo evaluates to the float formulas at a random point."""
    system = SYSTEMS[name]
    n, N = system.n, 3
    rng = np.random.default_rng(1)
    q0 = rng.uniform(-1, 1, n) + (np.r_[3, 0, 0] if name == "particle" else 0)
    m = pyo.ConcreteModel()
    m.dyn = DNCOBlock(system=system, steps=N, horizon=0.6, gradient=gradient, initial_position=q0,
                      final_position=q0 + 0.5)
    x = np.array([[pyo.value(v) for v in m.dyn.x_array(k)] for k in range(N + 1)])
    x[1:N] += rng.uniform(-0.3, 0.3, (N - 1, 2 * n))
    u, lam = rng.uniform(-1, 1, (N, n)), rng.uniform(-1, 1, (N, 2 * n))
    m.dyn.initialize_from(x=x, u=u, lam=lam)
    h = m.dyn.h
    G = [discrete_gradient(system, x[k], x[k + 1], gradient) for k in range(N)]
    memo = {}
    for k in range(N):
        r = state_residual(system, x[k], x[k + 1], u[k], h, G[k])
        for i, dof in enumerate(system.names):
            assert expression_value(m.dyn.kinematics[k, dof].body, memo) == pytest.approx(r[i], rel=1e-12, abs=1e-9)
            assert expression_value(m.dyn.momentum_balance[k, dof].body, memo) == pytest.approx(
                r[n + i], rel=1e-12, abs=1e-9)
    for k in range(1, N):
        r = costate_residual(system, x[k - 1], x[k], x[k + 1], lam[k - 1], lam[k], h, G[k - 1], G[k], gradient)
        for i, dof in enumerate(system.names):
            assert expression_value(m.dyn.costate_q[k, dof].body, memo) == pytest.approx(r[i], rel=1e-12, abs=1e-9)
            assert expression_value(m.dyn.costate_p[k, dof].body, memo) == pytest.approx(
                r[n + i], rel=1e-12, abs=1e-9)


def test_square_system_counts_and_names():
    m = pendulum.build("dnco", 5)
    assert m.dyn.check_structure() == (2 * 4 + 3 * 5, 2 * 4 + 3 * 5)
    assert [c.local_name for c in m.dyn.component_objects(pyo.Constraint)] == [
        "kinematics", "momentum_balance", "costate_q", "costate_p", "control"]
    assert pendulum.build("direct-midpoint", 5).dyn.scheme == "direct-midpoint"


@pytest.mark.parametrize("free", ["q", "p"])
def test_non_square_system_fails_the_structural_check(free):
    m = pendulum.build("dnco", 5)
    getattr(m.dyn, free)[5, "q"].unfix()
    with pytest.raises(StructuralError) as info:
        m.dyn.check_structure()
    message = str(info.value)
    assert "24 unknowns, 23 equations" in message
    assert "unmatched variables: dyn." in message
    assert f"boundary states not fixed: dyn.{free}[5,q]" in message


def test_structurally_singular_square_system_names_equations():
    """Square counts, but two equations in the same single unknown: no perfect matching."""
    from pyomo_mbdyn.schemes.structure import check_structure

    m = pendulum.build("dnco", 5)
    m.dyn.q[5, "q"].unfix()
    m.dyn.p[5, "q"].unfix()
    m.extra1 = pyo.Constraint(expr=m.dyn.lam_q[0, "q"] == 1)
    m.extra2 = pyo.Constraint(expr=2 * m.dyn.lam_q[0, "q"] == 3)
    with pytest.raises(StructuralError) as info:
        check_structure(m)
    message = str(info.value)
    assert "25 unknowns, 25 equations (0 degrees of freedom)" in message
    assert "unmatched equations: extra" in message and "unmatched variables: dyn." in message


def test_direct_block_is_an_nlp_with_one_control_per_interval_and_dof():
    m = pyo.ConcreteModel()
    m.dyn = scheme_block("dnco", system=SYSTEMS["particle"], steps=4, horizon=1.0, method="direct",
                         initial_position=[1.0, 0, 0], final_position=[0, 1.0, 0])
    assert not hasattr(m.dyn, "lam_q") and not hasattr(m.dyn, "costate_q")
    assert m.dyn.objective.expr is m.dyn.cost
    with pytest.raises(StructuralError, match=r"30 unknowns, 24 equations \(6 degrees of freedom\).*n\(N - 2\)"):
        m.dyn.check_structure()


# -- input errors -----------------------------------------------------------------------
def _block(**options):
    base = dict(system=SYSTEMS["pendulum"], steps=4, horizon=1.0, initial_position=[0.0], final_position=[1.0])
    base.update(options)
    m = pyo.ConcreteModel()
    m.dyn = DNCOBlock(**base)
    return m


@pytest.mark.parametrize("options, words", [
    ({"steps": -3}, ["steps", "-3"]),
    ({"steps": 1}, ["steps", "at least 2", "1"]),
    ({"horizon": 0.0}, ["horizon", "0.0"]),
    ({"gradient": "simpson"}, ["gradient", "simpson"]),
    ({"method": "shooting"}, ["method", "shooting"]),
    ({"final_position": [1.0, 2.0]}, ["final_position", "length n = 1", "[1.0, 2.0]"]),
    ({"initial_momentum": [0.0, 0.0, 0.0]}, ["initial_momentum", "[0.0, 0.0, 0.0]"]),
    ({"final_position": None}, ["final_position", "required"]),
    ({"system": "pendulum"}, ["system", "HamiltonianSystem"]),
    ({"stepz": 4}, ["stepz"]),
])
def test_bad_options_name_the_option_and_value(options, words):
    with pytest.raises(ConfigurationError) as info:
        _block(**options)
    for word in words:
        assert word in str(info.value)


def test_greenspan_needs_a_constant_mass_matrix():
    with pytest.raises(ConfigurationError, match="greenspan.*gonzalez"):
        pyo.ConcreteModel().dyn = DNCOBlock(system=SYSTEMS["arm"], steps=4, horizon=1.0, gradient="greenspan",
                                            initial_position=[0, 0, 0], final_position=[1, 1, 1])


def test_bad_systems_and_schemes():
    with pytest.raises(ConfigurationError, match="n must be a positive int"):
        HamiltonianSystem(0, lambda q: [[1.0]], lambda q: 0.0)
    with pytest.raises(ConfigurationError, match="shape"):
        HamiltonianSystem(2, lambda q: [[1.0]], lambda q: q[0])
    with pytest.raises(ConfigurationError, match="positive definite"):
        HamiltonianSystem(1, lambda q: [[-1.0]], lambda q: q[0])
    with pytest.raises(ConfigurationError, match="symmetric"):
        HamiltonianSystem(2, lambda q: [[1.0, q[0]], [0.0, 1.0]], lambda q: q[0])
    with pytest.raises(ConfigurationError, match="distinct names"):
        HamiltonianSystem(2, lambda q: np.eye(2), lambda q: q[0], names=["a", "a"])
    with pytest.raises(TypeError, match="potential must be callable"):
        HamiltonianSystem(1, lambda q: [[1.0]], 3.0)
    with pytest.raises(ConfigurationError, match="'direct-simpson'.*direct-midpoint"):
        parse_scheme("direct-simpson")
    with pytest.raises(ConfigurationError, match="unknown DNCO scheme 'rem'"):
        pendulum.build("rem")
    assert parse_scheme("dnco", "greenspan") == ("indirect", "greenspan")
    assert parse_scheme("direct-gonzalez") == ("direct", "gonzalez")


def test_direct_block_has_no_own_costates():
    m = _block(method="direct")
    with pytest.raises(ConfigurationError, match="costates_from_duals"):
        m.dyn.interval_table()


def test_hamiltonian_system_backends_agree():
    """The same callables in floats, CasADi and Pyomo."""
    import casadi as ca

    system = HamiltonianSystem(2, lambda q: [[2.0 + elementwise("cos", q[1]), 0.5], [0.5, 1.0]],
                               lambda q: q[0] ** 2 * elementwise("sin", q[1]), names=["a", "b"])
    x = np.array([0.3, -0.4, 1.1, 0.2])
    M = np.array([[2.0 + np.cos(-0.4), 0.5], [0.5, 1.0]])
    H = 0.5 * x[2:] @ np.linalg.solve(M, x[2:]) + 0.09 * np.sin(-0.4)
    assert system.hamiltonian(x) == pytest.approx(H, rel=1e-14)
    X = ca.SX.sym("x", 4)
    value = ca.Function("f", [X], [system.hamiltonian(np.array([X[i] for i in range(4)], dtype=object))])
    assert float(value(x)) == pytest.approx(H, rel=1e-14)
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(4), initialize=dict(enumerate(x)))
    assert pyo.value(system.hamiltonian(np.array([m.x[i] for i in range(4)], dtype=object))) == pytest.approx(
        H, rel=1e-14)
