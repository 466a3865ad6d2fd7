"""``python -m benchmarks``: the issue-14 comparison in one run, as markdown tables.

    python -m benchmarks               # run every series (long: up to an hour on 2 cores)
    python -m benchmarks --quick       # paper sizes and N <= 40 only (a few minutes)
    python -m benchmarks --tables-only # print the tables of the stored results
    python -m benchmarks ... --write   # and store them on their pages under benchmarks/pages

Every point runs in its own process (:mod:`benchmarks._point`); its result is
kept in ``benchmarks/results/<series>.jsonl`` (a rerun of a series replaces it).
A series in N stops once a solve exceeds 120 s wall or ends unconverged
(IPOPT ``max_wall_time`` = 120 s).  Timings never enter the test suite.
"""

import argparse
import math
import os

import numpy as np

from benchmarks._report import machine_line, write_section
from benchmarks.runner import RESULTS, load, series_run

J_STAR = 3981028.0  # issue 14: the continuous optimum of the arm (all sequences O(h²))
NS = [20, 40, 80, 160, 320, 640]
#: (model, scheme, configurations); None = the model's own choice (the chart forms for the
#: arm and the crane since issue 14), "lifted" = node configurations as variables
LIB_SERIES = [("crane", "bem", None), ("crane", "rem", None), ("three-link-arm", "rem", None),
              ("three-link-arm", "bem", None), ("three-link-arm", "gc", None), ("three-link-arm", "dmocc", None),
              ("three-link-arm", "rem", "lifted"), ("three-link-arm", "bem", "lifted"), ("crane", "bem", "lifted")]
HAND = ["arm-rem", "arm-rem-v", "arm-bem", "crane-bem", "crane-rem"]
#: hand-written problem → (library model, scheme, paper N)
PAIRS = {"arm-rem": ("three-link-arm", "rem", 20), "arm-rem-v": ("three-link-arm", "rem", 20),
         "arm-bem": ("three-link-arm", "bem", 20), "sphere": ("sphere", "dmocc", 30),
         "crane-bem": ("crane", "bem", 40), "crane-rem": ("crane", "rem", 40)}
DAE = {"legendre1": [20, 40, 80, 160, 320], "radau3": [10, 20, 40, 80, 160]}
CHAIN = [2, 3, 4, 6, 8, 12, 16]
#: series names get this prefix in --quick runs, so that a quick run never replaces the full results
PREFIX = [""]


def S(name):
    return PREFIX[0] + name


OK = ("optimal", "locallyOptimal", "Solve_Succeeded")


def _fresh(series):
    path = os.path.join(RESULTS, f"{series}.jsonl")
    if os.path.exists(path):
        os.remove(path)


REPEATS = 3


def run_paper(repeats=REPEATS):
    """The side-by-side points at the papers' sizes, each ``repeats`` times (the minimum is reported)."""
    _fresh(S("paper"))
    for _ in range(repeats):
        for name, (model, scheme, n) in PAIRS.items():
            series_run(S("paper"), [("hand", name, n)])
            series_run(S("paper"), [("hand", name, n, "same")])
            if name != "arm-rem-v":
                series_run(S("paper"), [("library", model, scheme, n)])
                if model == "three-link-arm":  # the lifted form beside the model's chart form
                    series_run(S("paper"), [("library", model, scheme, n, "lifted")])


def run(quick):
    ns = [n for n in NS if n <= 40] if quick else NS
    run_paper(1 if quick else REPEATS)
    for series in ("scaling", "hand_scaling", "dae", "chain"):
        _fresh(S(series))
    for model, scheme, form in LIB_SERIES:
        tail = () if form is None else (form,)
        series_run(S("scaling"), [("library", model, scheme, n) + tail for n in ns])
    for name in HAND:
        series_run(S("hand_scaling"), [("hand", name, n) for n in ns])
        series_run(S("hand_scaling"), [("hand", name, n, "same") for n in ns])
    for method, nfes in DAE.items():
        series_run(S("dae"), [("dae", method, n) for n in (nfes[:2] if quick else nfes)])
    for scheme in ("rem", "bem"):
        series_run(S("chain"), [("chain", scheme, k) for k in (CHAIN[:3] if quick else CHAIN)])


def _f(x, fmt="{:.2f}"):
    return "–" if x is None else fmt.format(x)


def _latest(rows, key):
    """The last stored result per key (a rerun of one point overrides the earlier)."""
    out = {}
    for r in rows:
        out[key(r)] = r
    return out


def _lib():
    """Scaling results keyed (model, scheme, N) for the models' own forms and
    (model, scheme, N, form) for the others."""
    def key(r):
        form = r.get("configurations")
        return (r.get("model"), r.get("scheme"), r.get("N")) + (() if form is None else (form,))
    return _latest(load(S("scaling")), key)


def _hand():
    return _latest(load(S("hand_scaling")), lambda r: (r.get("name"), r.get("N"), r.get("options")))


def exponent(ns, ts):
    """Least-squares slope of log t against log N."""
    if len(ns) < 2:
        return None
    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0])


def _best(rows):
    """Minimum wall and CPU over the repeats of one point (all must have converged)."""
    ok = [r for r in rows if r.get("status") in OK]
    if not ok:
        return rows[-1] if rows else None
    best = dict(min(ok, key=lambda r: r["cpu_s"]))
    best["wall_s"] = min(r["wall_s"] for r in ok)
    best["repeats"] = len(rows)
    return best


def table_side_by_side():
    rows = load(S("paper"))
    lines = ["| problem | N | library wall s | library CPU s | (build / translate / nlpsol / IPOPT s) | it "
             "| hand wall s | hand CPU s | it | unknowns lib / hand | ratio wall | ratio CPU | J library | J hand "
             "| agreeing digits | hand wall s, library's IPOPT options (it) | ratio wall |",
             "|---" * 17 + "|"]
    for name, (model, scheme, n) in PAIRS.items():
        L = _best([r for r in rows if r.get("model") == model and r.get("scheme") == scheme and r.get("N") == n
                   and r.get("configurations") is None])
        H = _best([r for r in rows if r.get("name") == name and r.get("N") == n and not r.get("options")])
        H2 = _best([r for r in rows if r.get("name") == name and r.get("N") == n and r.get("options")])
        if L is None or H is None:
            continue
        same = " – | – |"
        if H2 is not None and H2.get("status") in OK:
            same = (f" {_f(H2['wall_s'], '{:.3f}')} ({H2.get('iterations')}) "
                    f"| {_f(L['wall_s'] / H2['wall_s'], '{:.1f}')}× |")
        lines.append(_pair_row(name, n, L, H) + same)
        lifted = _best([r for r in rows if r.get("model") == model and r.get("scheme") == scheme
                        and r.get("N") == n and r.get("configurations") == "lifted"])
        if lifted is not None:
            lines.append(_pair_row(f"{name} (library lifted)", n, lifted, H) + " – | – |")
    # N >= 160 from the scaling series (one solve each)
    lib, hand = _lib(), _hand()
    for name, (model, scheme, _) in PAIRS.items():
        for n in NS:
            if n >= 160 and (model, scheme, n) in lib and (name, n, None) in hand:
                H2 = hand.get((name, n, "library"))
                same = " – | – |"
                if H2 is not None and H2.get("status") in OK:
                    same = (f" {_f(H2['wall_s'], '{:.3f}')} ({H2.get('iterations')}) "
                            f"| {_f(lib[(model, scheme, n)]['wall_s'] / H2['wall_s'], '{:.1f}')}× |")
                lines.append(_pair_row(name, n, lib[(model, scheme, n)], hand[(name, n, None)]) + same)
    return "\n".join(lines)


def _pair_row(name, n, L, H):
    okL, okH = L.get("status") in OK, H.get("status") in OK
    digits = None
    if okL and okH:
        rel = abs(L["objective"] - H["objective"]) / abs(H["objective"])
        digits = -math.log10(max(rel, 1e-16))
    phases = " / ".join(_f(L.get(k)) for k in ("build_s", "translate_s", "nlpsol_s", "ipopt_s"))
    return (f"| {name} | {n} | {_f(L.get('wall_s'))} | {_f(L.get('cpu_s'))} | {phases} "
            f"| {L.get('iterations')} {'' if okL else L.get('status')} | {_f(H.get('wall_s'), '{:.3f}')} "
            f"| {_f(H.get('cpu_s'), '{:.3f}')} | {H.get('iterations')} {'' if okH else H.get('status')} "
            f"| {L.get('unknowns')} / {H.get('unknowns')} "
            f"| {_f(L['wall_s'] / H['wall_s'], '{:.1f}')}× | {_f(L['cpu_s'] / H['cpu_s'], '{:.1f}')}× "
            f"| {_f(L.get('objective') if okL else None, '{:.10g}')} | {_f(H.get('objective') if okH else None, '{:.10g}')} "
            f"| {_f(digits, '{:.1f}')} |")


def table_scaling():
    lib, hand = _lib(), _hand()
    lines = ["| series | N | status | it | build s | translate s | nlpsol s | IPOPT s | total wall s | CPU s "
             "| peak RSS MB (after imports) | J |",
             "|---" * 12 + "|"]
    fits = []
    for model, scheme, form in LIB_SERIES:
        tail = () if form is None else (form,)
        pts = [lib[(model, scheme, n) + tail] for n in NS if (model, scheme, n) + tail in lib]
        label = f"{model} {scheme}" + ("" if form is None else f" {form}")
        for r in pts:
            lines.append(
                f"| {label} | {r['N']} | {r.get('status')} | {r.get('iterations')} | {_f(r.get('build_s'))} "
                f"| {_f(r.get('translate_s'))} | {_f(r.get('nlpsol_s'))} | {_f(r.get('ipopt_s'))} "
                f"| {_f(r.get('wall_s'))} | {_f(r.get('cpu_s'))} "
                f"| {_f(r.get('rss_peak_mb'), '{:.0f}')} ({_f(r.get('rss_base_mb'), '{:.0f}')}) "
                f"| {_f(r.get('objective'), '{:.10g}')} |")
        fits.append((f"library {label}", [r for r in pts if r.get("status") in OK]))
    for name, options in ((h, o) for h in HAND for o in (None, "library")):
        pts = [hand[(name, n, options)] for n in NS if (name, n, options) in hand]
        label = name if options is None else f"{name} (library's IPOPT options)"
        for r in pts:
            lines.append(
                f"| hand {label} | {r['N']} | {r.get('status')} | {r.get('iterations')} | {_f(r.get('build_s'))} "
                f"| – | {_f(r.get('nlpsol_s'))} | {_f(r.get('solve_s'))} | {_f(r.get('wall_s'))} "
                f"| {_f(r.get('cpu_s'))} | {_f(r.get('rss_peak_mb'), '{:.0f}')} ({_f(r.get('rss_base_mb'), '{:.0f}')}) "
                f"| {_f(r.get('objective'), '{:.10g}')} |")
        fits.append((f"hand {label}", [r for r in pts if r.get("status") in OK]))
    lines += ["", "Fitted exponents p in time ∝ N^p (log-log least squares over the converged points with N ≥ 40):",
              "", "| series | N range | p (total wall) | p (CPU) | p (build) | p (nlpsol) | p (IPOPT) |",
              "|---|---|---|---|---|---|---|"]
    for label, pts in fits:
        pts = [r for r in pts if r["N"] >= 40]
        if len(pts) < 2:
            lines.append(f"| {label} | – | – | – | – | – | – |")
            continue
        ns = [r["N"] for r in pts]

        def p(key):
            vals = [r.get(key) for r in pts]
            return None if any(v is None or v <= 0 for v in vals) else exponent(ns, vals)
        ipopt = "ipopt_s" if label.startswith("library") else "solve_s"
        lines.append(f"| {label} | {min(ns)}–{max(ns)} | {_f(p('wall_s'))} | {_f(p('cpu_s'))} | {_f(p('build_s'))} "
                     f"| {_f(p('nlpsol_s'))} | {_f(p(ipopt))} |")
    return "\n".join(lines)


def table_chain():
    rows = _latest(load(S("chain")), lambda r: (r.get("scheme"), r.get("links")))
    lines = ["| scheme | links k | status | it | unknowns | build s | translate s | nlpsol s | IPOPT s "
             "| total wall s | CPU s | peak RSS MB | J |", "|---" * 13 + "|"]
    fits = []
    for scheme in ("rem", "bem"):
        pts = [rows[(scheme, k)] for k in CHAIN if (scheme, k) in rows]
        for r in pts:
            lines.append(f"| {scheme} | {r['links']} | {r.get('status')} | {r.get('iterations')} | {r.get('unknowns')} "
                         f"| {_f(r.get('build_s'))} | {_f(r.get('translate_s'))} | {_f(r.get('nlpsol_s'))} "
                         f"| {_f(r.get('ipopt_s'))} | {_f(r.get('wall_s'))} | {_f(r.get('cpu_s'))} "
                         f"| {_f(r.get('rss_peak_mb'), '{:.0f}')} | {_f(r.get('objective'), '{:.8g}')} |")
        ok = [r for r in pts if r.get("status") in OK]
        if len(ok) >= 2:
            ks = [r["links"] for r in ok]
            fits.append(f"| {scheme} | {min(ks)}–{max(ks)} | {_f(exponent(ks, [r['wall_s'] for r in ok]))} "
                        f"| {_f(exponent(ks, [r['cpu_s'] for r in ok]))} "
                        f"| {_f(exponent(ks, [r['cpu_s'] / r['iterations'] for r in ok]))} "
                        f"| {_f(exponent(ks, [r['nlpsol_s'] for r in ok]))} "
                        f"| {_f(exponent(ks, [r['build_s'] + r['translate_s'] for r in ok]))} |")
    lines += ["", "Fitted exponents in k (all converged points):", "",
              "| scheme | k range | p (wall) | p (CPU) | p (CPU per iteration) | p (nlpsol) | p (build + translate) |",
              "|---|---|---|---|---|---|---|"] + fits
    return "\n".join(lines)


def _richardson():
    """J* from the two finest converged hand-written arm REM solutions (O(h²))."""
    hand = _hand()
    best = None
    for name in ("arm-rem", "arm-rem-v"):
        pts = [hand[(name, n, None)] for n in NS if (name, n, None) in hand and hand[(name, n, None)].get("status") in OK]
        if len(pts) >= 2 and (best is None or pts[-1]["N"] > best[2]):
            a, b = pts[-2], pts[-1]
            r = (b["N"] / a["N"]) ** 2
            best = ((r * b["objective"] - a["objective"]) / (r - 1), a["N"], b["N"])
    return best


def table_dae():
    lib = _lib()
    dae = _latest(load(S("dae")), lambda r: (r.get("method"), r.get("N")))
    rows = []
    for (method, n), r in sorted(dae.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        rows.append((f"pyomo.dae {method}", n, r))
    for scheme in ("rem", "bem", "gc", "dmocc"):
        for n in NS:
            r = lib.get(("three-link-arm", scheme, n))
            if r is not None:
                rows.append((f"library {scheme}", n, r))
    hand = _hand()
    for name in ("arm-rem", "arm-rem-v"):
        for n in NS:
            r = hand.get((name, n))
            if r is not None:
                rows.append((f"hand {name}", n, r))
    lines = ["| method | N / nfe | status | it | unknowns | J | J - J* | energy balance error | wall s | CPU s |",
             "|---" * 10 + "|"]
    by_method = {}
    for label, n, r in rows:
        ok = r.get("status") in OK and r.get("objective") is not None
        err = r["objective"] - J_STAR if ok else None
        status = r.get("status")
        if ok and abs(err) > 0.1 * J_STAR:  # another local optimum: not on the sequence to J*
            ok, status = False, f"{status}, other local optimum"
        lines.append(f"| {label} | {n} | {status} | {r.get('iterations')} | {r.get('unknowns')} "
                     f"| {_f(r.get('objective'), '{:.3f}')} | {_f(err, '{:.0f}')} "
                     f"| {_f(r.get('energy_error'), '{:.1e}')} | {_f(r.get('wall_s'))} | {_f(r.get('cpu_s'))} |")
        if ok:
            by_method.setdefault(label, []).append((abs(err), r["wall_s"], r["cpu_s"], n))
    rich = _richardson()
    lines += ["", f"J* = {J_STAR:.0f} (issue 14)" + (
        f"; Richardson from the hand-written REM at N = {rich[1]}, {rich[2]}: {rich[0]:.1f}" if rich else ""), "",
        "Time to reach a given error |J - J*| (log-log interpolation between the measured points; "
        "'>' = not reached in the measured range):", "",
        "Rows marked 'other local optimum' are left out.", "",
        "| method | error constant C (|J-J*| ≈ C/N²) | wall s at 2000 | at 500 | at 100 | CPU s at 2000 | at 500 | at 100 |",
        "|---|---|---|---|---|---|---|---|"]
    for label, pts in by_method.items():
        pts.sort(key=lambda p: -p[0])
        C = np.median([e * n * n for e, _, _, n in pts])
        cells = []
        for col in (1, 2):
            for target in (2000.0, 500.0, 100.0):
                cells.append(_interp(pts, target, col))
        lines.append(f"| {label} | {C:.3g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _interp(pts, target, col):
    for a, b in zip(pts, pts[1:]):
        if a[0] >= target >= b[0] and a[0] > 0 and b[0] > 0 and a[0] != b[0]:
            s = (math.log(target) - math.log(a[0])) / (math.log(b[0]) - math.log(a[0]))
            return f"{math.exp(math.log(a[col]) + s * (math.log(b[col]) - math.log(a[col]))):.2f}"
    if pts and pts[0][0] <= target:
        return f"≤ {pts[0][col]:.2f}"
    return "> " + (f"{pts[-1][col]:.2f}" if pts else "–")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="paper sizes and N <= 40 only")
    parser.add_argument("--tables-only", action="store_true", help="print the stored results")
    parser.add_argument("--write", action="store_true", help="store the tables on their pages under benchmarks/pages")
    parser.add_argument("--paper-only", action="store_true", help="run only the side-by-side points")
    args = parser.parse_args(argv)
    if args.quick:
        PREFIX[0] = "quick-"
    if args.paper_only:
        run_paper()
    elif not args.tables_only:
        run(args.quick)
    sections = {"issue14-side-by-side": table_side_by_side(), "issue14-scaling": table_scaling(),
                "issue14-dae": table_dae(), "issue14-chain": table_chain()}
    for name, table in sections.items():
        text = f"{machine_line()}\n\n{table}"
        print(f"## {name}\n\n{text}\n")
        if args.write:
            write_section(name, text)


if __name__ == "__main__":
    main()
