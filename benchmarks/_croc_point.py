"""The robot problem of :mod:`benchmarks.robot_tools` in crocoddyl (BoxFDDP), one point; run by the
interpreter that has crocoddyl 3.2.0 and pin 3.9.0 (not the project's venv: the pip pair crocoddyl
3.2.1 + pin 4.1.0 drops gravity from the forward dynamics):

    /work/croc-venv/bin/python benchmarks/_croc_point.py '{"urdf": ..., "start": [...], "target": [...],
                                                          "T": 1.5, "N": 50}'

Prints one JSON line.  Imports neither pyomo_mbdyn nor casadi.  Before solving, crocoddyl's forward
dynamics (``DifferentialActionModelFreeFwdDynamics`` with ``ActuationModelFull``) is compared with
``pinocchio.aba`` at random states (and the model's gravity with 9.81 m/s²); if they differ by more
than 1e-9 relative the point reports ``refused: ...`` and no solution.

What crocoddyl solves differs from the NLP of the other tools, by its formulation:

* dynamics: ``IntegratedActionModelEuler`` — semi-implicit Euler, v_{k+1} = v_k + h ABA(θ_k, v_k, τ_k),
  θ_{k+1} = θ_k + h v_{k+1} — not the implicit midpoint rule (GC); same h = T/N and N;
* the objective: h Σ ½|τ_k|² (``ResidualModelControl``, the Euler model multiplies by h) plus penalties:
  the terminal state (θ_N, v_N) = (target, 0) as a quadratic penalty of weight ``TERMINAL_WEIGHT`` (FDDP has
  no terminal equality), the position and velocity limits as a quadratic barrier of weight
  ``LIMIT_WEIGHT`` on the running and terminal states (``ActivationModelQuadraticBarrier``: zero inside);
* the effort limits: BoxFDDP's box on τ_k (exact);
* the start: θ_0, v_0 = 0 exact (the shooting's initial state); guess: the quintic rest to rest, its torques
  by ``pinocchio.rnea`` (the other tools' guess).

Reported J is h Σ ½|τ_k|² of crocoddyl's solution (the penalties apart), with the terminal error and the
largest limit violation, so that the J can be read against the others'.
"""

import json
import resource
import sys
import time

TERMINAL_WEIGHT = 1e6
LIMIT_WEIGHT = 1e6
MAXITER = 5000


def check_forward_dynamics(model, samples=5, seed=0):
    """max relative difference of crocoddyl's free forward dynamics to ``pinocchio.aba``."""
    import crocoddyl
    import numpy as np
    import pinocchio as pin

    state = crocoddyl.StateMultibody(model)
    actuation = crocoddyl.ActuationModelFull(state)
    costs = crocoddyl.CostModelSum(state, actuation.nu)
    dam = crocoddyl.DifferentialActionModelFreeFwdDynamics(state, actuation, costs)
    dad, data, rng, worst = dam.createData(), model.createData(), np.random.default_rng(seed), 0.0
    for _ in range(samples):
        q, v, tau = (rng.uniform(-2, 2, model.nv) for _ in range(3))
        dam.calc(dad, np.concatenate([q, v]), tau)
        ref = pin.aba(model, data, q, v, tau)
        worst = max(worst, float(np.abs(np.asarray(dad.xout) - ref).max() / np.abs(ref).max()))
    gravity = float(np.linalg.norm(model.gravity.linear))
    if abs(gravity - 9.81) > 1e-12:
        worst = max(worst, 1.0)
    return worst


def solve(problem):
    import crocoddyl
    import numpy as np
    import pinocchio as pin

    model = pin.buildModelFromUrdf(problem["urdf"])
    mismatch = check_forward_dynamics(model)
    if mismatch > 1e-9:
        return {"status": f"refused: crocoddyl's forward dynamics differ from pinocchio.aba by {mismatch:.1e}"
                          f" (crocoddyl {crocoddyl.__version__}, pin {pin.__version__})"}
    start, target = np.asarray(problem["start"], float), np.asarray(problem["target"], float)
    T, N = float(problem["T"]), int(problem["N"])
    h, n = T / N, model.nv
    state = crocoddyl.StateMultibody(model)
    actuation = crocoddyl.ActuationModelFull(state)
    vmax, effort = np.asarray(model.velocityLimit, float), np.asarray(model.effortLimit, float)
    bounds = crocoddyl.ActivationBounds(np.concatenate([model.lowerPositionLimit, -vmax]),
                                        np.concatenate([model.upperPositionLimit, vmax]))

    def limits():
        return crocoddyl.CostModelResidual(state, crocoddyl.ActivationModelQuadraticBarrier(bounds),
                                           crocoddyl.ResidualModelState(state, np.zeros(2 * n), actuation.nu))

    running_costs = crocoddyl.CostModelSum(state, actuation.nu)
    effort_cost = crocoddyl.CostModelResidual(state, crocoddyl.ResidualModelControl(state, actuation.nu))
    running_costs.addCost("effort", effort_cost, 1.0)
    running_costs.addCost("limits", limits(), LIMIT_WEIGHT)
    terminal_costs = crocoddyl.CostModelSum(state, actuation.nu)
    x_target = np.concatenate([target, np.zeros(n)])
    terminal_costs.addCost("target", crocoddyl.CostModelResidual(
        state, crocoddyl.ResidualModelState(state, x_target, actuation.nu)), TERMINAL_WEIGHT)
    terminal_costs.addCost("limits", limits(), LIMIT_WEIGHT)
    running = crocoddyl.IntegratedActionModelEuler(
        crocoddyl.DifferentialActionModelFreeFwdDynamics(state, actuation, running_costs), h)
    running.u_lb, running.u_ub = -effort, effort
    terminal = crocoddyl.IntegratedActionModelEuler(
        crocoddyl.DifferentialActionModelFreeFwdDynamics(state, actuation, terminal_costs), 0.0)
    x0 = np.concatenate([start, np.zeros(n)])
    shooting = crocoddyl.ShootingProblem(x0, [running] * N, terminal)
    solver = crocoddyl.SolverBoxFDDP(shooting)
    solver.th_stop = 1e-9
    trace = []

    class Trace(crocoddyl.CallbackAbstract):
        def __call__(self, solver):
            trace.append((float(solver.cost), float(solver.stop)))

    solver.setCallbacks([Trace()])
    # guess: the quintic rest to rest and its torques (the other tools' guess)
    s = np.linspace(0, 1, N + 1)
    shape = 10 * s**3 - 15 * s**4 + 6 * s**5
    rate, acc = (30 * s**2 - 60 * s**3 + 30 * s**4) / T, (60 * s - 180 * s**2 + 120 * s**3) / T**2
    data = model.createData()
    qs = [start + (target - start) * c for c in shape]
    xs = [np.concatenate([q, (target - start) * r]) for q, r in zip(qs, rate)]
    us = [np.clip(pin.rnea(model, data, qs[k], xs[k][n:], (target - start) * acc[k]), -effort, effort)
          for k in range(N)]
    t0 = time.perf_counter()
    converged = solver.solve(xs, us, MAXITER, False)
    t1 = time.perf_counter()
    X, U = np.array(solver.xs), np.array(solver.us)
    lower, upper = np.concatenate([model.lowerPositionLimit, -vmax]), np.concatenate([model.upperPositionLimit, vmax])
    violation = float(max(0.0, (lower - X).max(), (X - upper).max()))
    return {"status": "converged" if converged else f"not converged ({MAXITER} iterations)",
            "iterations": int(solver.iter), "objective": float(h * 0.5 * (U**2).sum()),
            "cost": float(solver.cost), "stop": float(solver.stop), "solve_s": t1 - t0,
            # the first iteration whose cost is within 1e-6 (relative) of the last one's
            "iterations_to_cost": next(k + 1 for k, (c, _) in enumerate(trace)
                                       if abs(c - trace[-1][0]) <= 1e-6 * abs(trace[-1][0])) if trace else None,
            "terminal_error": float(np.abs(X[-1] - x_target).max()), "limit_violation": violation,
            "effort_ratio_max": float((np.abs(U) / effort).max()), "aba_mismatch": mismatch,
            "versions": f"crocoddyl {crocoddyl.__version__}, pin {pin.__version__}"}


def main(argv):
    w0, c0 = time.perf_counter(), time.process_time()
    out = solve(json.loads(argv[0]))
    out.update(wall_s=time.perf_counter() - w0, cpu_s=time.process_time() - c0,
               rss_peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
