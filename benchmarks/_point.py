"""One measured point, run in its own process (``python -m benchmarks._point KIND ...``).

Prints one JSON line: the phase times (wall seconds, and the process's CPU
seconds), iterations, status, objective, and the process's peak resident
memory (``ru_maxrss``) with the level after imports, so that every point's
memory is its own.  Kinds:

* ``library MODEL SCHEME N [FORM]`` — ``module.build`` (``FORM``: its
  ``configurations`` keyword, e.g. ``lifted``; default the model's choice) then
  ``casadi_ipopt`` (IPOPT ``max_wall_time`` = the time limit), phases from
  ``solver.timings``;
* ``hand NAME N [same]`` — :mod:`benchmarks.handwritten` (``same``: with the
  library's IPOPT defaults, ``pyomo_mbdyn.solvers.ampl_driver.IPOPT_DEFAULTS``);
* ``hand-robot ROBOT N`` — the joint-space NLP of :mod:`benchmarks.robots`;
* ``spatial-chain hand|SCHEME K N`` — :mod:`benchmarks.spatial_chain`;
* ``dae METHOD NFE`` — :mod:`benchmarks.dae_arm`;
* ``hermite-simpson N`` — :mod:`benchmarks.hermite_simpson`;
* ``chain SCHEME K`` — :mod:`benchmarks.chain`.
"""

import json
import sys

from benchmarks._measure import TIMELIMIT, library_point, rss_mb as _rss_mb


def main(argv):
    kind, args = argv[0], argv[1:]
    import numpy  # noqa: F401  (imports before the baseline)
    import casadi  # noqa: F401
    import pyomo.environ  # noqa: F401

    import pyomo_mbdyn.solvers  # noqa: F401
    if kind in ("library", "chain", "spatial-chain"):  # the library's own imports are not part of a build
        import pyomo_mbdyn.ocp  # noqa: F401
        import pyomo_mbdyn.schemes  # noqa: F401
        from pyomo_mbdyn.models import MODELS

        import importlib
        for name in MODELS.values():
            importlib.import_module(name)
    base = _rss_mb()
    if kind == "library":
        import importlib

        from pyomo_mbdyn.models import MODELS

        name, scheme, N = args[0], args[1], int(args[2])
        form = args[3] if len(args) > 3 else None
        module = importlib.import_module(MODELS[name])
        extra = {} if form is None else {"configurations": form}
        out = library_point(lambda: module.build(scheme=scheme, steps=N, **extra))
        out.update(model=name, scheme=scheme, N=N, configurations=form)
    elif kind == "hand":
        from benchmarks.handwritten import solve_handwritten

        same = len(args) > 2 and args[2] == "same"  # with the library's IPOPT defaults
        if same:
            from pyomo_mbdyn.solvers.ampl_driver import IPOPT_DEFAULTS
        out = solve_handwritten(args[0], int(args[1]), timelimit=TIMELIMIT,
                                ipopt_options=IPOPT_DEFAULTS if same else None)
        if same:
            out["options"] = "library"
    elif kind == "hand-robot":
        from benchmarks.robots import solve_handwritten

        out = solve_handwritten(args[0], int(args[1]))
        out.pop("theta")
        out.update(robot=args[0], N=int(args[1]))
    elif kind == "spatial-chain":
        from benchmarks import spatial_chain

        label, k, N = args[0], int(args[1]), int(args[2])
        out = spatial_chain.hand_point(k, N) if label == "hand" else spatial_chain.library_point(label, k, N)
        out.update(links=k, N=N, label=label)
    elif kind == "dae-robot":
        from benchmarks.dae_robot import solve_dae as solve_dae_robot

        out = solve_dae_robot(args[0], args[1], int(args[2]), timelimit=300.0)
    elif kind == "dae":
        from benchmarks.dae_arm import solve_dae

        out = solve_dae(args[0], int(args[1]), timelimit=TIMELIMIT)
    elif kind == "hermite-simpson":
        from benchmarks.hermite_simpson import solve as solve_hermite_simpson

        out = solve_hermite_simpson(int(args[0]), timelimit=TIMELIMIT)
    elif kind == "chain":
        from benchmarks.chain import build_chain

        scheme, k = args[0], int(args[1])
        out = library_point(lambda: build_chain(k, scheme), energy=False)
        out.update(scheme=scheme, links=k)
    else:
        raise SystemExit(f"unknown kind {kind!r}")
    out["rss_base_mb"] = base
    out["rss_peak_mb"] = _rss_mb()
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
