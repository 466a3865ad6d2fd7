"""Small optimisation problems with known solutions, shared by solver tests."""

import numpy as np
import pyomo.environ as pyo


def hs071():
    """Hock–Schittkowski problem 71 (the IPOPT documentation example).

    Optimum x* = (1, 4.7430, 3.8211, 1.3794), f* = 17.014017.
    """
    m = pyo.ConcreteModel("hs071")
    m.x = pyo.Var([1, 2, 3, 4], bounds=(1, 5), initialize={1: 1, 2: 5, 3: 5, 4: 1})
    x = m.x
    m.obj = pyo.Objective(expr=x[1] * x[4] * (x[1] + x[2] + x[3]) + x[3])
    m.product = pyo.Constraint(expr=x[1] * x[2] * x[3] * x[4] >= 25)
    m.sphere = pyo.Constraint(expr=sum(x[i] ** 2 for i in x) == 40)
    return m


def add_dual_suffixes(m, export=False):
    direction = pyo.Suffix.IMPORT_EXPORT if export else pyo.Suffix.IMPORT
    m.dual = pyo.Suffix(direction=direction)
    m.ipopt_zL_out = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    m.ipopt_zU_out = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    if export:
        m.ipopt_zL_in = pyo.Suffix(direction=pyo.Suffix.EXPORT)
        m.ipopt_zU_in = pyo.Suffix(direction=pyo.Suffix.EXPORT)
    return m


#: Equality-constrained QP data: min ½ xᵀQx + cᵀx  s.t.  A x = b.
QP_Q = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 2.0]])
QP_C = np.array([-1.0, 2.0, 0.5])
QP_A = np.array([[1.0, 1.0, 1.0], [1.0, -1.0, 2.0]])
QP_B = np.array([1.0, 0.5])


def equality_qp():
    m = pyo.ConcreteModel("eq_qp")
    m.I = pyo.RangeSet(0, 2)
    m.J = pyo.RangeSet(0, 1)
    m.x = pyo.Var(m.I, initialize=0.0)
    m.obj = pyo.Objective(
        expr=0.5 * sum(QP_Q[i, j] * m.x[i] * m.x[j] for i in m.I for j in m.I)
        + sum(QP_C[i] * m.x[i] for i in m.I)
    )
    m.row = pyo.Constraint(m.J, rule=lambda m, j: sum(QP_A[j, i] * m.x[i] for i in m.I) == QP_B[j])
    return m


def equality_qp_kkt():
    """Exact KKT solution: Q x + c = Aᵀ y, A x = b (y in the AMPL dual sign)."""
    n, k = QP_Q.shape[0], QP_A.shape[0]
    K = np.block([[QP_Q, -QP_A.T], [QP_A, np.zeros((k, k))]])
    sol = np.linalg.solve(K, np.concatenate([-QP_C, QP_B]))
    return sol[:n], sol[n:]


def bounded_qp(n=30):
    """A strictly convex QP with active bounds and inequalities (for warm starts)."""
    rng = np.random.default_rng(7)
    R = rng.normal(size=(n, n))
    Q = R @ R.T / n + np.eye(n)
    c = rng.normal(size=n) * 3
    A = rng.normal(size=(n // 3, n))
    m = pyo.ConcreteModel("bounded_qp")
    m.I = pyo.RangeSet(0, n - 1)
    m.J = pyo.RangeSet(0, n // 3 - 1)
    m.x = pyo.Var(m.I, bounds=(-1, 1), initialize=0.0)
    m.obj = pyo.Objective(
        expr=0.5 * sum(Q[i, j] * m.x[i] * m.x[j] for i in m.I for j in m.I)
        + sum(c[i] * m.x[i] for i in m.I)
    )
    m.ineq = pyo.Constraint(m.J, rule=lambda m, j: sum(A[j, i] * m.x[i] for i in m.I) <= 0.5)
    return m


def discrete_pendulum_ocp(N=120):
    """A nonlinear optimal-control NLP: 3N+2 variables, 2N+2 constraints.

    Swing-up of a damped pendulum by forward Euler; the effort objective makes
    the optimum unique near the initial guess.
    """
    h = 2.0 / N
    m = pyo.ConcreteModel("pendulum_ocp")
    m.K = pyo.RangeSet(0, N)
    m.U = pyo.RangeSet(0, N - 1)
    m.th = pyo.Var(m.K, initialize=lambda m, k: 1.0 * k / N)
    m.om = pyo.Var(m.K, initialize=0.5)
    m.u = pyo.Var(m.U, bounds=(-3, 3), initialize=0.0)
    m.obj = pyo.Objective(expr=h * sum(m.u[k] ** 2 for k in m.U) + sum((m.th[k] - 1.0) ** 2 for k in m.K) * h)
    m.kin = pyo.Constraint(m.U, rule=lambda m, k: m.th[k + 1] == m.th[k] + h * m.om[k])
    m.dyn = pyo.Constraint(
        m.U,
        rule=lambda m, k: m.om[k + 1] == m.om[k] + h * (-pyo.sin(m.th[k]) - 0.1 * m.om[k] + m.u[k]),
    )
    m.th0 = pyo.Constraint(expr=m.th[0] == 0.0)
    m.om0 = pyo.Constraint(expr=m.om[0] == 0.0)
    return m
