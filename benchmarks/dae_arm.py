"""The three-link arm in joint angles with plain pyomo.dae collocation.

What a Pyomo user would write instead of the library: the thesis E3 arm
(masses, lengths, inertias, gravity of ``pyomo_mbdyn/models/three_link_arm.py``) as an
ODE in the absolute link angles φ (φ_i = α_1 + … + α_i), Lagrange's equations

    Σ_k M_jk [cos(φ_j - φ_k) φ̈_k + sin(φ_j - φ_k) φ̇_k²] + ∂V/∂φ_j + (u_j - u_{j+1}) = 0,

M_jk = Σ_{i ≥ max(j,k)} m_i a_ij a_ik + δ_jk (E1_j + E2_j), a_ij = l_j (j < i), l_i/2 (j = i),
V = Σ m_i g c_i·e2, u the relative joint torques with the library's sign
(u·ν enters like ∇V), rest to rest from α₀ to α_f in T = 3,
J = ∫ ½|u|² dt = Σ_e h_e ½|u_e|², controls
piecewise constant per finite element (``reduce_collocation_points``), the
energy T + V + W with W = ∫ u·α̇ dt as a further state.  Discretised with
``TransformationFactory('dae.collocation')`` (LAGRANGE-RADAU ncp = 3 or
LAGRANGE-LEGENDRE ncp = 1) and solved by ``SolverFactory('casadi_ipopt')``.
"""

import time

import numpy as np

LINKS = ((30.0, 1.225, 143.3027, 7.0), (25.0, 1.0208, 88.0208, 6.0), (10.0, 0.4083, 60.2083, 8.0))
G, T = 9.81, 3.0
PHI0 = np.cumsum([np.pi / 2, -np.pi / 2, np.pi / 2])
PHIF = np.cumsum([np.pi / 2, 0.0, 0.0])
METHODS = {"radau3": ("LAGRANGE-RADAU", 3), "legendre1": ("LAGRANGE-LEGENDRE", 1),
           # controls at every collocation point (not one per element) and J by the Radau weights
           "radau3u": ("LAGRANGE-RADAU", 3)}
#: Radau IIA (three points) weights on [0, 1]
RADAU3_WEIGHTS = ((16 - 6 ** 0.5) / 36, (16 + 6 ** 0.5) / 36, 1 / 9)


def _coefficients():
    n = len(LINKS)
    a = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            a[i, j] = LINKS[j][3] if j < i else 0.5 * LINKS[i][3]
    M = np.zeros((n, n))
    for j in range(n):
        for k in range(n):
            M[j, k] = sum(LINKS[i][0] * a[i, j] * a[i, k] for i in range(max(j, k), n))
        M[j, j] += LINKS[j][1] + LINKS[j][2]
    gv = np.array([G * sum(LINKS[i][0] * a[i, j] for i in range(j, n)) for j in range(n)])
    return a, M, gv


def rest_to_rest(M, gv, s):
    """``(φ, ω, φ̈, u)`` of the quintic rest-to-rest profile from PHI0 to PHIF at s = t/T, with
    the relative joint torques u (library sign) that the equations of motion need along it."""
    p = 10 * s**3 - 15 * s**4 + 6 * s**5
    dp = (30 * s**2 - 60 * s**3 + 30 * s**4) / T
    ddp = (60 * s - 180 * s**2 + 120 * s**3) / T**2
    d = PHIF - PHI0
    phi, w, a = PHI0 + d * p, d * dp, d * ddp
    tau = -np.array([sum(M[j, k] * (np.cos(phi[j] - phi[k]) * a[k] + np.sin(phi[j] - phi[k]) * w[k] ** 2)
                         for k in range(3)) + gv[j] * np.cos(phi[j]) for j in range(3)])
    return phi, w, a, np.array([tau[0] + tau[1] + tau[2], tau[1] + tau[2], tau[2]])


def build_dae(method, nfe):
    import pyomo.environ as pyo
    import pyomo.dae as dae

    a, M, gv = _coefficients()
    J = range(3)
    m = pyo.ConcreteModel("arm-dae")
    m.t = dae.ContinuousSet(bounds=(0.0, T))
    m.j = pyo.Set(initialize=list(J))
    m.phi = pyo.Var(m.t, m.j)
    m.w = pyo.Var(m.t, m.j)
    m.u = pyo.Var(m.t, m.j, initialize=0.0)
    m.work = pyo.Var(m.t, initialize=0.0)
    m.dphi = dae.DerivativeVar(m.phi, wrt=m.t)
    m.dw = dae.DerivativeVar(m.w, wrt=m.t)
    m.dwork = dae.DerivativeVar(m.work, wrt=m.t)

    def torque(m, t, j):
        return m.u[t, j] - (m.u[t, j + 1] if j < 2 else 0.0)

    m.kin = pyo.Constraint(m.t, m.j, rule=lambda m, t, j: m.dphi[t, j] == m.w[t, j])
    m.dyn = pyo.Constraint(m.t, m.j, rule=lambda m, t, j: sum(
        M[j, k] * (pyo.cos(m.phi[t, j] - m.phi[t, k]) * m.dw[t, k]
                   + pyo.sin(m.phi[t, j] - m.phi[t, k]) * m.w[t, k] ** 2) for k in J)
        + gv[j] * pyo.cos(m.phi[t, j]) + torque(m, t, j) == 0)
    m.qwork = pyo.Constraint(m.t, rule=lambda m, t: m.dwork[t] == sum(torque(m, t, j) * m.w[t, j] for j in J))
    discretizer = pyo.TransformationFactory("dae.collocation")
    discretizer.apply_to(m, nfe=nfe, ncp=METHODS[method][1], scheme=METHODS[method][0], wrt=m.t)
    per_point = method == "radau3u"
    if not per_point:
        discretizer.reduce_collocation_points(m, var=m.u, ncp=1, contset=m.t)
    t0, tf = m.t.first(), m.t.last()
    # the equations hold at the collocation points only: at t0 (Radau) and at every element
    # boundary (Legendre) they would define free derivative values through free controls
    boundary = [t0] if METHODS[method][0] == "LAGRANGE-RADAU" else list(m.t.get_finite_elements())
    for t in boundary:
        for j in J:
            m.kin[t, j].deactivate()
            m.dyn[t, j].deactivate()
        m.qwork[t].deactivate()
    for j in J:
        m.phi[t0, j].fix(PHI0[j])
        m.w[t0, j].fix(0.0)
    m.work[t0].fix(0.0)
    m.final = pyo.Constraint(m.j, rule=lambda m, j: m.phi[tf, j] == PHIF[j])
    m.rest = pyo.Constraint(m.j, rule=lambda m, j: m.w[tf, j] == 0)
    # J = Σ_elements h_e ½|u_e|² on the controls' one value per element (an objective through
    # the cost state would leave IPOPT without curvature in u at zero multipliers: it stalls)
    fe = list(m.t.get_finite_elements())
    inner = [next(t for t in m.t if a < t < b) for a, b in zip(fe[:-1], fe[1:])]
    if per_point:  # J = Σ_e h_e Σ_c b_c ½|u(t_ec)|², the collocation's own quadrature
        points = [[t for t in m.t if a < t <= b] for a, b in zip(fe[:-1], fe[1:])]
        m.obj = pyo.Objective(expr=sum((b - a) * sum(w * 0.5 * sum(m.u[t, j] ** 2 for j in J)
                                                     for w, t in zip(RADAU3_WEIGHTS, ts))
                                       for a, b, ts in zip(fe[:-1], fe[1:], points)))
    else:
        m.obj = pyo.Objective(expr=sum((b - a) * 0.5 * sum(m.u[t, j] ** 2 for j in J)
                                       for a, b, t in zip(fe[:-1], fe[1:], inner)))
    # guess: quintic rest-to-rest profile, controls from the equations of motion along it,
    # cost and work by the trapezoidal rule
    times = list(m.t)
    prev = None
    for t in times:
        phi, w, dw, u = rest_to_rest(M, gv, t / T)
        tau = u - np.append(u[1:], 0.0)  # the generalised forces of the relative torques
        for j in J:
            m.phi[t, j].value, m.w[t, j].value, m.u[t, j].value = phi[j], w[j], u[j]
            m.dphi[t, j].value, m.dw[t, j].value = w[j], dw[j]
        rate_c, rate_w = 0.5 * float(u @ u), float(tau @ w)
        m.dwork[t].value = rate_w
        if prev is not None:
            tp, pc, pw = prev
            m.work[t].value = m.work[tp].value + 0.5 * (t - tp) * (pw + rate_w)
        prev = (t, rate_c, rate_w)
    if per_point:  # u(t0) enters no active row and not J: fixed at its guess
        for j in J:
            m.u[t0, j].fix()
        return m
    # one control value per element (the guess must satisfy the interpolation constraints)
    for a, b, ti in zip(fe[:-1], fe[1:], inner):
        for t in m.t:
            if a < t <= b or (t == a == t0):
                for j in J:
                    m.u[t, j].value = m.u[ti, j].value
    return m


def energy_error(m):
    """max - min of T + V + W over the finite-element boundaries, relative to max(1, |E|)."""
    import pyomo.environ as pyo

    a, M, gv = _coefficients()
    E = []
    for t in m.t.get_finite_elements():
        phi = np.array([pyo.value(m.phi[t, j]) for j in range(3)])
        w = np.array([pyo.value(m.w[t, j]) for j in range(3)])
        kin = 0.5 * sum(M[j, k] * np.cos(phi[j] - phi[k]) * w[j] * w[k] for j in range(3) for k in range(3))
        pot = float(gv @ np.sin(phi))
        E.append(kin + pot + pyo.value(m.work[t]))
    E = np.array(E)
    return float((E.max() - E.min()) / max(1.0, np.abs(E).max()))


def solve_dae(method, nfe, timelimit=120.0):
    import pyomo.environ as pyo

    import pyomo_mbdyn.solvers  # noqa: F401  (registers casadi_ipopt with the SolverFactory)

    w0, c0 = time.perf_counter(), time.process_time()
    m = build_dae(method, nfe)
    w1, c1 = time.perf_counter(), time.process_time()
    opt = pyo.SolverFactory("casadi_ipopt")
    results = opt.solve(m, timelimit=timelimit)
    w2, c2 = time.perf_counter(), time.process_time()
    t = dict(getattr(opt, "timings", {}))
    status = str(results.solver.termination_condition)
    ok = status in ("optimal", "locallyOptimal")
    return {"method": method, "N": nfe, "status": status,
            "iterations": getattr(results.solver, "iterations", None),
            "objective": pyo.value(m.obj) if ok else None,
            "energy_error": energy_error(m) if ok else None,
            "build_s": w1 - w0, "solve_s": w2 - w1, "wall_s": w2 - w0, "cpu_s": c2 - c0,
            "translate_s": t.get("translate"), "nlpsol_s": t.get("nlpsol"), "ipopt_s": t.get("solve"),
            "unknowns": sum(1 for v in m.component_data_objects(pyo.Var) if not v.fixed)}
