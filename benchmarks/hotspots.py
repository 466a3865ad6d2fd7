"""The smaller hot spots of issue 14: Newton stepper against a CasADi rootfinder, model build times.

A script, not a test: ``python benchmarks/hotspots.py [--base REV] [--write]``
prints one markdown table.  Rows:

- steps per second of the library's Newton stepper (``Stepper.simulate``) and
  of CasADi ``rootfinder`` (plugins ``newton`` and ``kinsol``) on the *same*
  compiled step residual, started from the same guesses
  (``record.step.guess``), on satellite-spin with rotor friction (BEM,
  T = 5, 400 steps) and on the 4-body chain of ``benchmarks/stepping.py``
  (BEM and REM, h = 0.01, 500 steps); the last column is the largest
  difference of the rootfinder's trajectory from the stepper's;
- the build time of ``pyomo_mbdyn.models.<name>.build()`` (default options;
  imports done before; minimum of two builds) for the satellite, sphere,
  pitcher and three-link arm.

With ``--base REV`` the same measurements run first on a clean export of
commit REV (``git archive`` into a temporary directory, imported through
``PYTHONPATH``), then on this tree, one after the other in fresh processes,
and the table shows both.  ``--write`` records it in benchmarks/pages/hotspots.md.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILDS = ("satellite", "sphere", "pitcher", "three_link_arm")


# -- measurements (run in a worker process) ------------------------------------------
def _rootfinder_run(stepper, q0, v0, U, plugin):
    """Simulate with ``casadi.rootfinder`` on the stepper's own residual (one-step schemes)."""
    import casadi
    import numpy as np

    fun = getattr(stepper._residual, "residual", stepper._residual)  # before: the Function itself
    x = casadi.SX.sym("x", fun.size1_in(0))
    params = [casadi.SX.sym(f"p{i}", fun.size1_in(i)) for i in range(1, fun.n_in())]
    p = casadi.vertcat(*params)
    g = casadi.Function("g", [x, p], [fun(x, *params)[0]])
    rf = casadi.rootfinder("rf", plugin, g, {"abstol": 1e-12})
    step, system, h = stepper.step_equations, stepper.system, stepper.h
    Q, V, previous = [q0], [v0], None
    t0 = time.perf_counter()
    for k in range(len(U)):
        guess = step.guess(system, h, Q[-1], V[-1], previous, stepper.options)
        sol = rf(stepper._vector(guess), np.concatenate([Q[-1], V[-1], U[k]]))
        previous = stepper._parts(np.asarray(sol, float).ravel())
        Q.append(previous["q"])
        V.append(previous["v"])
    return time.perf_counter() - t0, np.array(Q)


def _stepping(label, system, q0, v0, h, steps, scheme, U=None):
    import numpy as np

    from pyomo_mbdyn.simulate import Stepper

    stepper = Stepper(system, h, scheme)
    U = np.zeros((steps, len(system.actuated))) if U is None else U
    stepper.simulate(q0, v0, 5, U[:5])  # warm up
    t0 = time.perf_counter()
    tr = stepper.simulate(q0, v0, steps, U)
    run = time.perf_counter() - t0
    rows = [{"case": f"{label} {scheme}", "method": "stepper", "steps_per_s": steps / run, "diff": 0.0,
             "iterations": float(np.mean(tr.newton_iterations))}]
    for plugin in ("newton", "kinsol"):
        try:
            run, Q = _rootfinder_run(stepper, q0, v0, U, plugin)
            rows.append({"case": f"{label} {scheme}", "method": f"rootfinder {plugin}",
                         "steps_per_s": steps / run, "diff": float(np.abs(Q - tr.q).max())})
        except Exception as err:  # a benchmark records failures instead of stopping
            rows.append({"case": f"{label} {scheme}", "method": f"rootfinder {plugin}",
                         "error": f"{type(err).__name__}: {str(err).splitlines()[0][:80]}"})
    return rows


def worker():
    import importlib

    import numpy as np

    import pyomo_mbdyn  # noqa: F401
    import pyomo_mbdyn.ocp  # noqa: F401  (imports outside the build times)
    import pyomo_mbdyn.schemes  # noqa: F401
    import pyomo_mbdyn.simulate  # noqa: F401
    from pyomo_mbdyn.models import satellite_spin

    sys.path.insert(0, HERE)
    from stepping import four_body_system

    results = {"stepping": [], "build": [], "package": pyomo_mbdyn.__file__}
    system = satellite_spin.build_system("friction")
    q0, v0, u = satellite_spin.initial_state(system, "friction")
    steps = 400
    results["stepping"] += _stepping("satellite-spin (friction)", system, q0, v0, satellite_spin.HORIZON / steps,
                                     steps, "bem", np.tile(u, (steps, 1)))
    system, q0, v0 = four_body_system()
    for scheme in ("bem", "rem"):
        results["stepping"] += _stepping("4-body chain", system, q0, v0, 0.01, 500, scheme)
    for name in BUILDS:
        module = importlib.import_module(f"pyomo_mbdyn.models.{name}")
        times = []
        for _ in range(2):
            t0 = time.perf_counter()
            module.build()
            times.append(time.perf_counter() - t0)
        results["build"].append({"model": name, "seconds": min(times)})
    print(json.dumps(results))


# -- driver ---------------------------------------------------------------------------
def _run_worker(pythonpath=None):
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker"], env=env, cwd=tempfile.gettempdir(),
                         check=True, capture_output=True, text=True).stdout
    results = json.loads(out.strip().splitlines()[-1])
    print(f"measured {results['package']}", file=sys.stderr)
    return results


def _export(rev, where):
    """A clean copy of commit ``rev`` importable as ``pyomo_mbdyn`` (models at pyomo_mbdyn.models)."""
    archive = subprocess.run(["git", "-C", ROOT, "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", where], input=archive, check=True)
    if os.path.isdir(os.path.join(where, "models")):  # before the models moved into the package
        os.symlink(os.path.join(where, "models"), os.path.join(where, "pyomo_mbdyn", "models"))
    return where


def table(runs):
    """``runs``: [(label, results)], e.g. [("before", ...), ("after", ...)]."""
    sys.path.insert(0, HERE)
    from _report import machine_line

    labels = [label for label, _ in runs]
    load = ", load average %.1f" % os.getloadavg()[0] if hasattr(os, "getloadavg") else ""
    lines = [machine_line() + load, "",
             "| case | method | " + " | ".join(f"steps/s {lb}" for lb in labels)
             + " | max abs q difference from the stepper |",
             "|---|---|" + "---|" * len(labels) + "---|"]
    keyed = [{(r["case"], r["method"]): r for r in res["stepping"]} for _, res in runs]
    for key in keyed[-1]:
        cells = []
        for k in keyed:
            r = k.get(key, {})
            cells.append(f"{r['steps_per_s']:.0f}" if "steps_per_s" in r else r.get("error", ""))
        r = keyed[-1][key]
        diff = f"{r['diff']:.1e}" if r.get("diff") else ("" if "diff" in r else "")
        if key[1] == "stepper":
            diff = f"(mean Newton iterations {r['iterations']:.2f})"
        lines.append(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + f" | {diff} |")
    lines += ["", "| model build() | " + " | ".join(f"seconds {lb}" for lb in labels)
              + (" | speed-up |" if len(runs) > 1 else ""),
              "|---|" + "---|" * len(labels) + ("---|" if len(runs) > 1 else "")]
    builds = [{r["model"]: r["seconds"] for r in res["build"]} for _, res in runs]
    for name in builds[-1]:
        cells = [f"{b[name]:.2f}" for b in builds]
        ratio = f" | {builds[0][name] / builds[-1][name]:.1f}x" if len(runs) > 1 else ""
        lines.append(f"| {name} | " + " | ".join(cells) + ratio + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--base", help="also measure this commit (before), e.g. 799b0a3")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    if args.worker:
        return worker()
    runs = []
    if args.base:
        with tempfile.TemporaryDirectory() as tmp:
            runs.append((f"{args.base} (before)", _run_worker(_export(args.base, tmp))))
    runs.append(("this tree", _run_worker(ROOT)))
    text = table(runs)
    print(text)
    if args.write:
        sys.path.insert(0, HERE)
        from _report import write_section

        write_section("hotspots", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
