"""The arm's optimal cost against time to solution: fourth order beside second order and collocation.

Issue 33: at equal |J - J*| on the three-link arm (thesis E3, rest to rest in T = 3),
build + solve of the fourth-order Lobatto IIIA–IIIB (in natural and in chart coordinates)
and cG(2) schemes against the library's
second-order schemes, pyomo.dae Radau (three points; one control per element as in
:mod:`benchmarks.dae_arm`, and one per collocation point) and a hand-written
Hermite–Simpson CasADi NLP in joint angles (:mod:`benchmarks.hermite_simpson`), all
in one run, each point in its own process (:mod:`benchmarks.runner`).

J* is the Richardson extrapolation of the two finest Lobatto optima (order 4),
printed with the Hermite–Simpson one beside it.  The time to reach |J - J*| ≤ E is
interpolated log-log between the measured points (wall seconds of build + solve,
and the process's CPU seconds); beyond the measured range it is extrapolated from
the last two points (marked "≈").

    python -m benchmarks.fourth_order [--write] [--quick]
"""

import argparse
import math
import sys

from benchmarks._report import publish
from benchmarks.runner import run_point

#: label → point arguments per size
SERIES = {
    "library lobatto (order 4)": [("library", "three-link-arm", "lobatto", n) for n in (10, 20, 40, 80, 160)],
    "library cg2 (order 4)": [("library", "three-link-arm", "cg2", n) for n in (10, 20, 40, 80, 160)],
    "library lobatto_gc (order 4, chart)": [("library", "three-link-arm", "lobatto_gc", n)
                                            for n in (10, 20, 30, 40, 50, 60, 80, 160)],
    "library rem": [("library", "three-link-arm", "rem", n) for n in (20, 40, 80, 160, 320)],
    "library bem": [("library", "three-link-arm", "bem", n) for n in (20, 40, 80, 160, 320)],
    "library gc": [("library", "three-link-arm", "gc", n) for n in (20, 40, 80, 160)],
    "library rattle": [("library", "three-link-arm", "rattle", n) for n in (20, 40, 80, 160)],
    "pyomo.dae radau3, u per element": [("dae", "radau3", n) for n in (10, 20, 40, 80, 160)],
    "pyomo.dae radau3, u per point": [("dae", "radau3u", n) for n in (5, 10, 20, 40)],
    "hand Hermite–Simpson (joint angles)": [("hermite-simpson", n) for n in (5, 10, 20, 30, 40, 80)],
}
QUICK = {"library lobatto (order 4)": 3, "library cg2 (order 4)": 3, "library lobatto_gc (order 4, chart)": 4,
         "hand Hermite–Simpson (joint angles)": 4}
TARGETS = (100.0, 10.0, 1.0)
OK = ("optimal", "locallyOptimal")


def _size(args):
    return int(args[-1])


def measure(quick=False):
    """``{label: [(N, result)]}`` in one run."""
    out = {}
    for label, points in SERIES.items():
        if quick:
            points = points[:QUICK.get(label, 2)]
        out[label] = []
        for args in points:
            result = run_point(list(args))
            out[label].append((_size(args), result))
            print(f"{label} N={_size(args)}: {result.get('status')} J={result.get('objective')} "
                  f"wall={result.get('wall_s', float('nan')):.2f}s", file=sys.stderr, flush=True)
    return out


def reference(results):
    """J* from the two finest Lobatto optima (order 4) and the Hermite–Simpson estimate beside it."""
    def richardson(label):
        done = [(n, r["objective"]) for n, r in results.get(label, []) if r.get("status") in OK]
        if len(done) < 2:
            return None
        (n1, j1), (n2, j2) = done[-2:]
        return j2 + (j2 - j1) / ((n2 / n1) ** 4 - 1), n1, n2

    return richardson("library lobatto (order 4)"), richardson("hand Hermite–Simpson (joint angles)")


def time_to(points, target, col):
    """Seconds (column ``col``) to reach |J - J*| ≤ target: log-log interpolation between
    measured points sorted by error; beyond them, extrapolated from the last two ("≈")."""
    points = sorted(points, key=lambda p: -p[0])
    if points and points[0][0] <= target:
        return f"≤ {points[0][col]:.2f}"
    for a, b in zip(points, points[1:]):
        if a[0] >= target >= b[0] and a[0] > b[0] > 0:
            s = (math.log(target) - math.log(a[0])) / (math.log(b[0]) - math.log(a[0]))
            return f"{math.exp(math.log(a[col]) + s * (math.log(b[col]) - math.log(a[col]))):.2f}"
    if len(points) >= 2 and points[-2][0] > points[-1][0] > 0:
        a, b = points[-2], points[-1]
        s = (math.log(target) - math.log(a[0])) / (math.log(b[0]) - math.log(a[0]))
        return f"≈ {math.exp(math.log(a[col]) + s * (math.log(b[col]) - math.log(a[col]))):.1f}"
    return "–"


def table(results):
    lobatto, hermite = reference(results)
    J_star = lobatto[0] if lobatto else None
    lines = ["| method | N / nfe | status | it | unknowns | J | abs(J - J*) | energy error | build s | solve s "
             "| wall s | CPU s |", "|---" * 12 + "|"]
    errors = {}
    for label, points in results.items():
        for n, r in points:
            ok = r.get("status") in OK and r.get("objective") is not None and J_star is not None
            err = abs(r["objective"] - J_star) if ok else None
            status = r.get("status")
            if ok and err > 0.1 * J_star:
                ok, status = False, f"{status}, other local optimum"
            energy = r.get("energy_error")
            lines.append(f"| {label} | {n} | {status} | {r.get('iterations')} | {r.get('unknowns')} | "
                         f"{r.get('objective', float('nan')) or float('nan'):.3f} | "
                         f"{'' if err is None else f'{err:.3g}'} | {'' if energy is None else f'{energy:.1e}'} | "
                         f"{r.get('build_s', float('nan')):.2f} | {r.get('solve_s', float('nan')):.2f} | "
                         f"{r.get('wall_s', float('nan')):.2f} | {r.get('cpu_s', float('nan')):.2f} |")
            if ok:
                errors.setdefault(label, []).append((err, r["wall_s"], r["cpu_s"]))
    lines += ["", f"J* = {J_star:.2f}: Richardson (order 4) of the Lobatto optima at N = {lobatto[1]}, {lobatto[2]}"
              + (f"; Hermite–Simpson at N = {hermite[1]}, {hermite[2]}: {hermite[0]:.2f}" if hermite else "")
              if lobatto else "J*: not reached", "",
              "Time to reach abs(J - J*) ≤ E (log-log between measured points; ≈ extrapolated from the last two; "
              "rows with another local optimum left out):", "",
              "| method | " + " | ".join(f"wall s, E = {e:g}" for e in TARGETS) + " | "
              + " | ".join(f"CPU s, E = {e:g}" for e in TARGETS) + " |", "|---" * (1 + 2 * len(TARGETS)) + "|"]
    for label, pts in errors.items():
        cells = [time_to(pts, e, 1) for e in TARGETS] + [time_to(pts, e, 2) for e in TARGETS]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fourth_order")
    parser.add_argument("--write", action="store_true", help="store the table on benchmarks/pages/fourth_order.md")
    parser.add_argument("--quick", action="store_true", help="the first sizes of each series only")
    args = parser.parse_args(argv)
    publish("issue33-fourth-order", table(measure(args.quick)), args.write)


if __name__ == "__main__":
    main()
