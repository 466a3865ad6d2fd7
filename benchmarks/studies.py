"""Studies: the speed-up of a multi-start from 1 to 2 workers, the per-task overhead, memory per task.

A script, not a test::

    python benchmarks/studies.py [--starts 16] [--write]

Rows: the three-link arm's multi-start (REM, N = 20, ``perturb="guess"``,
radius 0.1, seed 0; :func:`pyomo_mbdyn.studies.multistart`) on a local
process pool of 1 and of 2 workers (:func:`~pyomo_mbdyn.studies.process_executor`)
and on a Dask ``LocalCluster`` of 2 worker processes (as Dask configures
them, and with ``MALLOC_TRIM_THRESHOLD_`` raised, :data:`TRIM_THRESHOLD`); every executor is
started and warmed (an arm solve in every worker, so imports and CasADi's
compilation are outside the timing) before the study is timed, wall seconds
of the study alone.  Then the per-task overhead (200 empty tasks, warm
executors) and the peak resident memory of one worker after its arm solves
(``ru_maxrss``).  ``--write`` replaces the table between ``<!-- studies -->``
markers of its page under benchmarks/pages.
"""

import argparse
import functools
import os
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks._report import publish  # noqa: E402


#: Dask's nanny starts its workers with MALLOC_TRIM_THRESHOLD_=65536 (glibc gives freed
#: memory back at once); Pyomo's model building and IPOPT allocate and free a lot, and
#: run 10-20 % slower so.  The second Dask row raises it (128 MiB).
TRIM_THRESHOLD = str(128 * 2**20)


def _nothing(i):
    return i


def _peak_rss_mib(_):
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _arm_build(scheme="rem", steps=20):
    from pyomo_mbdyn.models import three_link_arm

    return three_link_arm.build(scheme, steps)


def _warm_worker():
    """One arm solve in this process (imports, CasADi's compiled formulas)."""
    from pyomo_mbdyn.ocp.solve import solve

    solve(_arm_build())


def _warm(executor, workers, client=None):
    """Every worker warmed: Dask's through ``client.run`` (on each worker), a pool's by
    two arm solves per worker (a pool hands tasks to whichever process is free)."""
    if client is not None:
        client.run(_warm_worker)
        return
    from pyomo_mbdyn.studies import multistart

    multistart(functools.partial(_arm_build), 2 * workers, seed=99, radius=1e-3, executor=executor,
               progress=False)


def _overhead(executor, tasks=200):
    t0 = time.perf_counter()
    list(executor.map(_nothing, range(tasks)))
    return (time.perf_counter() - t0) / tasks


def measure(starts):
    from distributed import Client, LocalCluster

    from pyomo_mbdyn.studies import best, multistart, process_executor

    rows, tables = [], {}

    def study(label, executor, workers, client=None):
        _warm(executor, workers, client)
        t0 = time.perf_counter()
        table = multistart(functools.partial(_arm_build), starts, seed=0, radius=0.1, executor=executor,
                           progress=False)
        wall = time.perf_counter() - t0
        overhead = _overhead(executor)
        memory = max(executor.map(_peak_rss_mib, range(2 * workers)))
        tables[label] = table
        solved = table["status"].isin(("optimal", "locallyOptimal")).sum()
        rows.append((label, workers, wall, table["seconds"].sum(), table["build_seconds"].sum(),
                     table["solve_seconds"].sum(), overhead, memory, solved,
                     float(best(table)["objective"]), int(table["optimum"].max()) + 1))

    for workers in (1, 2):
        with process_executor(workers) as pool:
            study(f"process pool, {workers} worker{'s' if workers > 1 else ''}", pool, workers)
    for trim in (None, TRIM_THRESHOLD):
        if trim is not None:  # the OS environment overrides Dask's pre-spawn-environ
            os.environ["MALLOC_TRIM_THRESHOLD_"] = trim
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
        try:
            label = "Dask LocalCluster, 2 workers" + ("" if trim is None else f", MALLOC_TRIM_THRESHOLD_={trim}")
            study(label, client.get_executor(), 2, client)
        finally:
            client.close()
            cluster.close()
            os.environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    one = rows[0][2]
    lines = ["| executor | workers | study wall s | speed-up | Σ task s | Σ build s | Σ solve s | overhead ms/task "
             "| peak RSS MiB/worker | solved | best J | optima |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for label, workers, wall, busy, built, solved_s, overhead, memory, solved, J, optima in rows:
        lines.append(f"| {label} | {workers} | {wall:.2f} | {one / wall:.2f} | {busy:.2f} | {built:.2f} "
                     f"| {solved_s:.2f} | {1e3 * overhead:.2f} "
                     f"| {memory:.0f} | {solved}/{starts} | {J:.7g} | {optima} |")
    labels = list(tables)
    same = all(tables[labels[0]]["objective"].equals(tables[k]["objective"]) for k in labels[1:])
    lines.append("")
    lines.append(f"{starts} starts; the objectives of all the tables are "
                 f"{'identical' if same else 'NOT identical'}.")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--starts", type=int, default=16)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    publish("studies", measure(args.starts), args.write)


if __name__ == "__main__":
    main()
