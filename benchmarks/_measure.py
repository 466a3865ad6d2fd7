"""A library build and solve, measured in the process that runs it (:mod:`benchmarks._point`).

Phase times (wall and CPU seconds; translation, IPOPT and loading from ``solver.timings``),
iterations, status, objective, unknowns and, for a solved point, the energy error.
"""

import resource
import time

TIMELIMIT = 120.0


def rss_mb():
    """The process's peak resident memory (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def library_point(build, timelimit=TIMELIMIT, energy=True):
    """Build with ``build()`` and solve in process; the measured phases."""
    import numpy as np
    import pyomo.environ as pyo

    from pyomo_mbdyn.solvers import get_solver

    w0, c0 = time.perf_counter(), time.process_time()
    model = build()
    w1, c1 = time.perf_counter(), time.process_time()
    opt = get_solver("casadi_ipopt", model=model)
    results = opt.solve(model, timelimit=timelimit)
    w2, c2 = time.perf_counter(), time.process_time()
    t = dict(getattr(opt, "timings", {}))
    status = str(results.solver.termination_condition)
    out = {"status": status, "iterations": getattr(results.solver, "iterations", None),
           "build_s": w1 - w0, "solve_s": w2 - w1, "wall_s": w2 - w0, "cpu_s": c2 - c0,
           "translate_s": t.get("translate"), "nlpsol_s": t.get("nlpsol"),
           "ipopt_s": t.get("solve"), "load_s": t.get("load"),
           "unknowns": sum(1 for v in model.component_data_objects(pyo.Var) if not v.fixed),
           # (step groups evaluated as compiled code, step groups): solvers.compiled
           "native_groups": list(getattr(opt, "native_groups", (0, 0)))}
    out["objective"] = next((pyo.value(o) for o in model.component_data_objects(pyo.Objective, active=True)),
                            None)
    if energy and status in ("optimal", "locallyOptimal"):
        E = model.dyn.diagnostics()["E"].to_numpy()
        out["energy_error"] = float((E.max() - E.min()) / max(1.0, np.abs(E).max()))
    return out
