"""A robot arm's rest to rest (the ``panda``/``ur5`` models) with plain pyomo.dae collocation.

What a Pyomo user would write instead of the library's scheme blocks: the joint angles
θ and rates ω as states of the ODE θ̇ = ω, τ(θ, ω, ω̇) + u = 0 with τ the recursive
Newton–Euler inverse dynamics (the library's ``Chain.inverse_dynamics_function`` of the
same URDF, equal to ``pinocchio.rnea`` to 5e-16, replayed into Pyomo expressions at
every collocation point, values used twice as named Expressions), u piecewise constant
per finite element (the library's sign: minus the joint torque),
J = Σ_e h_e ½|u_e|², the URDF's joint limits on θ and effort limits on u, rest to rest
from the model's START to TARGET in its HORIZON.  ``dae.collocation`` LAGRANGE-LEGENDRE
ncp 1 is the implicit midpoint rule in joint angles — the library's GC, the same
discretisation — and LAGRANGE-RADAU ncp 3 a higher-order reference.  Solved by
``SolverFactory('casadi_ipopt')``.

    python -m benchmarks.dae_robot [--robot panda] [--table-only]
"""

import argparse
import importlib
import json
import time

import numpy as np

METHODS = {"legendre1": ("LAGRANGE-LEGENDRE", 1), "radau3": ("LAGRANGE-RADAU", 3)}
NFE = {"legendre1": [25, 50, 100, 200], "radau3": [10, 25, 50]}
GC_STEPS = [25, 50, 100, 200, 400]


def build_dae(robot, method, nfe):
    import pyomo.dae as dae
    import pyomo.environ as pyo

    from pyomo_mbdyn.mechanics.linalg import name_next, sharing
    from pyomo_mbdyn.mechanics.replay import replay
    from pyomo_mbdyn.models import MODELS
    from pyomo_mbdyn.simulate.recursive import Chain

    module = importlib.import_module(MODELS[robot])
    system = module.build_system()
    chain = Chain.from_system(system)
    assert list(chain.velocities) == list(system.velocities)
    rnea = chain.inverse_dynamics_function()
    n, T = system.dof, float(module.HORIZON)
    start, target = np.asarray(module.START, float), np.asarray(module.TARGET, float)
    limits = [system.urdf_limits[v.split(".")[0]] for v in system.velocities]

    m = pyo.ConcreteModel(f"{robot}-dae")
    m.t = dae.ContinuousSet(bounds=(0.0, T))
    m.j = pyo.Set(initialize=list(range(n)))
    m.theta = pyo.Var(m.t, m.j, bounds=lambda m, t, j: (limits[j].lower, limits[j].upper))
    m.w = pyo.Var(m.t, m.j)
    m.u = pyo.Var(m.t, m.j, bounds=lambda m, t, j: (-limits[j].effort, limits[j].effort))
    m.dtheta = dae.DerivativeVar(m.theta, wrt=m.t)
    m.dw = dae.DerivativeVar(m.w, wrt=m.t)
    m.shared = pyo.Expression(pyo.Any)

    torques = {}

    def tau(m, t):
        if t not in torques:
            with sharing(lambda expr: name_next(m.shared, expr)):
                torques[t] = replay(rnea, [[m.theta[t, j] for j in m.j], [m.w[t, j] for j in m.j],
                                           [m.dw[t, j] for j in m.j]])[0]
        return torques[t]

    m.kin = pyo.Constraint(m.t, m.j, rule=lambda m, t, j: m.dtheta[t, j] == m.w[t, j])
    m.dyn = pyo.Constraint(m.t, m.j, rule=lambda m, t, j: tau(m, t)[j] + m.u[t, j] == 0)
    discretizer = pyo.TransformationFactory("dae.collocation")
    discretizer.apply_to(m, nfe=nfe, ncp=METHODS[method][1], scheme=METHODS[method][0], wrt=m.t)
    discretizer.reduce_collocation_points(m, var=m.u, ncp=1, contset=m.t)
    t0, tf = m.t.first(), m.t.last()
    boundary = [t0] if METHODS[method][0] == "LAGRANGE-RADAU" else list(m.t.get_finite_elements())
    for t in boundary:  # the equations hold at the collocation points only (see dae_arm)
        for j in m.j:
            m.kin[t, j].deactivate()
            m.dyn[t, j].deactivate()
    for j in m.j:
        m.theta[t0, j].fix(start[j])
        m.w[t0, j].fix(0.0)
    m.final = pyo.Constraint(m.j, rule=lambda m, j: m.theta[tf, j] == target[j])
    m.rest = pyo.Constraint(m.j, rule=lambda m, j: m.w[tf, j] == 0)
    fe = list(m.t.get_finite_elements())
    inner = [next(t for t in m.t if a < t < b) for a, b in zip(fe[:-1], fe[1:])]
    m.obj = pyo.Objective(expr=sum((b - a) * 0.5 * sum(m.u[t, j] ** 2 for j in m.j)
                                   for a, b, t in zip(fe[:-1], fe[1:], inner)))
    # guess: quintic rest to rest in θ, controls from the inverse dynamics along it
    for t in m.t:
        s = t / T
        p, dp = 10 * s**3 - 15 * s**4 + 6 * s**5, (30 * s**2 - 60 * s**3 + 30 * s**4) / T
        ddp = (60 * s - 180 * s**2 + 120 * s**3) / T**2
        theta, w, dw = start + (target - start) * p, (target - start) * dp, (target - start) * ddp
        u = -chain.inverse_dynamics(theta, w, dw)
        for j in m.j:
            m.theta[t, j].value, m.w[t, j].value, m.u[t, j].value = theta[j], w[j], u[j]
            m.dtheta[t, j].value, m.dw[t, j].value = w[j], dw[j]
    for a, b, ti in zip(fe[:-1], fe[1:], inner):  # one control value per element
        for t in m.t:
            if a < t <= b or (t == a == t0):
                for j in m.j:
                    m.u[t, j].value = m.u[ti, j].value
    return m


def solve_dae(robot, method, nfe, timelimit=300.0):
    import pyomo.environ as pyo

    import pyomo_mbdyn.solvers  # noqa: F401  (registers casadi_ipopt)

    w0 = time.perf_counter()
    m = build_dae(robot, method, nfe)
    w1 = time.perf_counter()
    opt = pyo.SolverFactory("casadi_ipopt")
    results = opt.solve(m, timelimit=timelimit)
    w2 = time.perf_counter()
    status = str(results.solver.termination_condition)
    return {"robot": robot, "label": f"pyomo.dae {method}", "N": nfe, "status": status,
            "iterations": getattr(results.solver, "iterations", None),
            "objective": pyo.value(m.obj) if status == "optimal" else None,
            "build_s": w1 - w0, "solve_s": w2 - w1, "wall_s": w2 - w0,
            "unknowns": sum(1 for v in m.component_data_objects(pyo.Var) if not v.fixed)}


def table(rows):
    """Markdown rows and J* from the library GC's two finest converged grids (Richardson, O(h²))."""
    gc = sorted((r for r in rows if r["label"] == "library gc" and r.get("objective") is not None),
                key=lambda r: r["N"])
    j_star = None
    if len(gc) >= 2:
        a, b = gc[-2], gc[-1]
        ratio = (b["N"] / a["N"]) ** 2
        j_star = (ratio * b["objective"] - a["objective"]) / (ratio - 1)
    lines = ["| method | N / nfe | status | it | unknowns | J | J - J* | build [s] | build per unknown [ms] "
             "| total [s] |", "|---" * 10 + "|"]
    for r in rows:
        err = None if j_star is None or r.get("objective") is None else r["objective"] - j_star
        lines.append(f"| {r['label']} | {r['N']} | {r['status']} | {r.get('iterations')} | {r['unknowns']} "
                     f"| {'–' if r.get('objective') is None else format(r['objective'], '.6f')} "
                     f"| {'–' if err is None else format(err, '.2e')} | {r['build_s']:.2f} "
                     f"| {1e3 * r['build_s'] / r['unknowns']:.3f} | {r['wall_s']:.2f} |")
    return "\n".join(lines), j_star


def main(argv=None):
    from benchmarks._report import machine_line
    from benchmarks.runner import load, record, run_point

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", default="panda")
    parser.add_argument("--point", nargs=3, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--table-only", action="store_true")
    args = parser.parse_args(argv)
    if args.point is not None:
        print(json.dumps(solve_dae(args.point[0], args.point[1], int(args.point[2]))))
        return None
    if not args.table_only:
        print(machine_line())
        for method, nfes in NFE.items():
            for nfe in nfes:
                result = run_point(["dae-robot", args.robot, method, nfe], hard_timeout=900)
                result.update(robot=args.robot, label=f"pyomo.dae {method}", N=nfe)
                record("dae_robot", result)
                print(json.dumps({k: result.get(k) for k in ("label", "N", "status", "iterations", "objective",
                                                             "build_s", "wall_s", "unknowns")}), flush=True)
        for N in GC_STEPS:
            result = run_point(["library", args.robot, "gc", N], hard_timeout=900)
            result.update(robot=args.robot, label="library gc", N=N)
            record("dae_robot", result)
            print(json.dumps({k: result.get(k) for k in ("label", "N", "status", "iterations", "objective",
                                                         "build_s", "wall_s", "unknowns")}), flush=True)
    latest = {}
    for r in load("dae_robot"):
        if r.get("robot") == args.robot:
            latest[(r["label"], r["N"])] = r
    text, j_star = table(list(latest.values()))
    print(text)
    print(f"\nJ* = {j_star:.6f} (Richardson from the library GC's two finest grids)" if j_star else "")
    return None


if __name__ == "__main__":
    main()
