"""Which multi-start perturbation explores? (issue 34: the default chosen by measurement)

Every optimal-control model with a multibody scheme block, ``multistart(model, 8, seed=0)``
with each named perturbation at the default radius and at a larger one: how many distinct
optima the starts find, the best and the worst objective, the runs that failed, and the
wall time of the study (two local worker processes).  Run ``python -m
benchmarks.multistart_perturbations [--write]``; ``--write`` stores the table in
``benchmarks/pages/multistart.md``.
"""

import sys
import time

MODELS = ("three-link-arm", "crane", "four-bar", "slider-crank", "sphere", "satellite", "panda")
PERTURBATIONS = ("guess", "chart", "controls")
RADII = (1e-2, 1e-1)
STARTS = 8


def measure(models=MODELS, starts=STARTS):
    from pyomo_mbdyn.studies import multistart

    rows = []
    for model in models:
        for perturb in PERTURBATIONS:
            for radius in RADII:
                t0 = time.perf_counter()
                try:
                    table = multistart(model, starts, seed=0, perturb=perturb, radius=radius, workers=2,
                                       progress=False)
                except Exception as err:  # a perturbation the model cannot take: recorded, not fatal
                    rows.append({"model": model, "perturb": perturb, "radius": radius,
                                 "error": f"{type(err).__name__}: {err}"[:120]})
                    print(rows[-1], flush=True)
                    continue
                ok = table[table["optimum"].notna()]
                rows.append({"model": model, "perturb": perturb, "radius": radius,
                             "optima": int(ok["optimum"].nunique()),
                             "best": float(ok["objective"].min()) if len(ok) else None,
                             "worst": float(ok["objective"].max()) if len(ok) else None,
                             "start 0": float(table["objective"].iloc[0]),
                             "failed": int(len(table) - len(ok)), "seconds": time.perf_counter() - t0})
                print(rows[-1], flush=True)
    return rows


def table(rows):
    out = ["| model | perturb | radius | distinct optima | best J | worst J | start 0 J | failed | wall s |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['model']} | {r['perturb']} | {r['radius']:g} | refused: {r['error']} | | | | | |")
            continue
        fmt = (lambda x: "" if x is None else f"{x:.7g}")
        out.append(f"| {r['model']} | {r['perturb']} | {r['radius']:g} | {r['optima']} | {fmt(r['best'])} "
                   f"| {fmt(r['worst'])} | {fmt(r['start 0'])} | {r['failed']} | {r['seconds']:.1f} |")
    return "\n".join(out)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    from benchmarks._report import publish

    publish("multistart-perturbations", table(measure()).splitlines(), "--write" in argv)


if __name__ == "__main__":
    main()
