"""Which rotors to keep: Bonmin's algorithms against the enumeration of the subsets.

A script, not a test::

    python benchmarks/actuator_selection.py [--write]

The model ``satellite-actuator-selection`` (2 of 3 rotor motors, DMOCC §7.2):
first every pair solved as an NLP by IPOPT from the model's guess
(:func:`pyomo_mbdyn.ocp.enumerate_actuators`), then the MINLP by ``casadi_bonmin``
with each of Bonmin's algorithms (time limit 300 s): status, wall seconds, the
branch-and-bound nodes Bonmin's log reports, the pair kept and J.  ``--write``
replaces the table between ``<!-- actuator-selection -->`` markers in
benchmarks/README.md.
"""

import argparse
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks._report import publish  # noqa: E402

ALGORITHMS = ("B-BB", "B-OA", "B-QG", "B-Hyb", "B-iFP")


def _nodes(log):
    found = re.findall(r"took \d+ iterations and (\d+) nodes", log)
    return int(found[-1]) if found else None


def main(argv=None):
    import pyomo.environ as pyo

    from pyomo_mbdyn.models import satellite_actuator_selection as sas
    from pyomo_mbdyn.ocp import enumerate_actuators

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    rows = ["| method | status | wall s | nodes | kept | J |", "|---|---|---|---|---|---|"]
    t0 = time.perf_counter()
    table = enumerate_actuators(sas.build, options={"tol": 1e-8})
    total = time.perf_counter() - t0
    for _, row in table.iterrows():
        J = "–" if row["objective"] is None else f"{row['objective']:.6e}"
        rows.append(f"| IPOPT, pair fixed | {row['status']} | {row['seconds']:.2f} | – | "
                    f"{', '.join(row['actuators'])} | {J} |")
    rows.append(f"| enumeration (3 NLPs, with builds) | – | {total:.2f} | – | "
                f"{', '.join(table.iloc[0]['actuators'])} | {table.iloc[0]['objective']:.6e} |")
    for algorithm in ALGORITHMS:
        m = sas.build()
        solver = pyo.SolverFactory("casadi_bonmin")
        solver.options["bonmin.algorithm"] = algorithm
        solver.options["bonmin.time_limit"] = 300
        t0 = time.perf_counter()
        result = solver.solve(m, load_solutions=False)
        wall = time.perf_counter() - t0
        tc = result.solver.termination_condition
        kept, J = "–", "–"
        if tc in (pyo.TerminationCondition.optimal, pyo.TerminationCondition.locallyOptimal):
            m.solutions.load_from(result)
            kept, J = ", ".join(m.problem.active_actuators()), f"{pyo.value(m.ocp.control_effort):.6e}"
        rows.append(f"| Bonmin {algorithm} | {tc} | {wall:.2f} | {_nodes(getattr(solver, '_log', '') or '')} | "
                    f"{kept} | {J} |")
        print(rows[-1], flush=True)
    publish("actuator-selection", rows, args.write)


if __name__ == "__main__":
    main()
