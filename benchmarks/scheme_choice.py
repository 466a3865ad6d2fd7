"""Choosing a scheme and a configuration form (issue 34: the user guide's measured table).

Every optimal-control scheme in each configuration form it accepts, on the three-link arm
(thesis E3, a planar chain) and the crane (thesis E5, a `CoordinateSystem`), each at its
model's N (20 and 40), each point in its own process: the unknowns, the iterations, build and solve time, the optimal
cost and the energy error of the optimum ((max E - min E) / max(1, |E|), E = T + V + W).
Run ``python -m benchmarks.scheme_choice [--write]``; ``--write`` stores the table in
``benchmarks/pages/scheme_choice.md``, which docs/guide/schemes.md quotes.
"""

import sys

from benchmarks.runner import run_point

#: (model, scheme, configuration forms it accepts; None = the block's own default)
CASES = [(model, scheme, forms) for model in ("three-link-arm", "crane") for scheme, forms in (
    ("bem", ("lifted", "absolute")), ("rem", ("lifted", "absolute")), ("dmocc", ("lifted", "absolute")),
    ("dmocc_lm", (None,)), ("gc", ("chart", "lifted")), ("rattle", (None,)), ("lobatto", (None,)),
    ("lobatto_gc", (None,)), ("cg2", (None,)))
    # the crane is a CoordinateSystem: the DMOCC schemes do not take one
    if not (model == "crane" and scheme.startswith("dmocc"))]
#: each model at its own N (its module's STEPS): the crane at N = 20 lands on other optima
STEPS = {"three-link-arm": 20, "crane": 40}


def measure(steps=STEPS):
    rows = []
    for model, scheme, forms in CASES:
        for form in forms:
            args = ["library", model, scheme, steps[model]] + ([form] if form else [])
            r = run_point(args)
            r.update(model=model, scheme=scheme, form=form or "default")
            rows.append(r)
            print(model, scheme, form, r.get("status"), r.get("objective"), r.get("wall_s"), flush=True)
    return rows


def table(rows):
    out = ["| model | N | scheme | form | status | unknowns | it | J | energy error | build s | solve s |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r.get("status") in ("crashed", "killed") or "unknowns" not in r:
            out.append(f"| {r['model']} | {STEPS[r['model']]} | {r['scheme']} | {r['form']} | {r.get('status')}: "
                       f"{str(r.get('stderr', ''))[-80:].strip()} | | | | | | |")
            continue
        energy = r.get("energy_error")
        out.append(f"| {r['model']} | {r['N']} | {r['scheme']} | {r['form']} | {r['status']} | {r['unknowns']} "
                   f"| {r.get('iterations')} | {r['objective']:.7g} | {'' if energy is None else f'{energy:.1e}'} "
                   f"| {r['build_s']:.2f} | {r['solve_s']:.2f} |")
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    from benchmarks._report import publish

    publish("scheme-choice", table(measure()), "--write" in argv)


if __name__ == "__main__":
    main()
