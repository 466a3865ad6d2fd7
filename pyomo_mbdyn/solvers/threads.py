"""One BLAS thread inside IPOPT and MUMPS: the same iterates on every machine and load.

The OpenBLAS that the ``casadi`` wheel bundles (``libcasadi-tp-openblas``, a
pthreads build) starts one thread per core, and MUMPS's dense frontal
factorisations call it.  A threaded ``dgemm``/``dgemv`` splits its work by the
number of threads and so rounds differently with 1, 2 or 16 of them: on the
three-link arm from a perturbed start IPOPT takes 64 iterations with one thread
and 63 with two, and the final iterates differ in their last bits
(benchmarks/README.md, "Determinism").  A result that depends on the machine it
ran on is not a result, so every solve of the library's plugins runs with
:data:`BLAS_THREADS` threads:

* in process (``casadi_ipopt``, ``casadi_bonmin``): :func:`blas_threads` sets
  the bundled OpenBLAS's thread count around the ``nlpsol`` call and restores it
  afterwards;
* in a child process (``casadi_ipopt_nl``, ``casadi_bonmin_nl``, an ``ipopt``
  executable found on PATH): :func:`solver_environment` adds
  ``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS`` to the
  child's environment (the variables Dask's nanny and
  :data:`pyomo_mbdyn.studies.WORKER_ENVIRONMENT` set for their workers).

One thread costs nothing measurable on the papers' problems (their fronts are
small; benchmarks/README.md); set ``pyomo_mbdyn.solvers.threads.BLAS_THREADS =
None`` to leave the libraries' own thread counts alone (results may then differ
between machines in their last digits).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import contextlib
import ctypes
import glob
import os

__all__ = ["BLAS_THREADS", "blas_threads", "solver_environment", "bundled_openblas"]

#: threads of the BLAS inside the solvers during a solve (``None``: the libraries' own)
BLAS_THREADS = 1

#: the environment variables that fix the thread count of a child process's BLAS / OpenMP
_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

def _count(threads):
    """``threads`` (default :data:`BLAS_THREADS`) checked: a positive int, or ``None``."""
    threads = BLAS_THREADS if threads is None else threads
    if threads is None:
        return None
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        from ..errors import ConfigurationError

        raise ConfigurationError(f"BLAS threads must be a positive integer (or BLAS_THREADS = None: "
                                 f"the libraries' own count), got {threads!r}")
    return threads


_OPENBLAS: dict[str, ctypes.CDLL] = {}  # path -> ctypes handle of a loaded copy


def bundled_openblas() -> list[ctypes.CDLL]:
    """The copies of the OpenBLAS inside the ``casadi`` wheel that this process has
    loaded (``ctypes`` handles; empty when none is loaded yet or casadi links another
    BLAS).  A wheel holds each name of a shared library as a file of its own
    (``libcasadi-tp-openblas.so``, ``.so.0``, …): only the copy the dynamic linker
    loaded for MUMPS counts, so the lookup asks for loaded libraries only
    (``RTLD_NOLOAD``) and never loads one."""
    try:
        import casadi
    except ImportError:
        return []
    folder = os.path.dirname(casadi.__file__)
    mode = getattr(os, "RTLD_NOLOAD", 0) | getattr(os, "RTLD_LAZY", 0)
    for path in sorted(glob.glob(os.path.join(folder, "*openblas*"))):
        if path in _OPENBLAS or not getattr(os, "RTLD_NOLOAD", 0):
            continue
        try:
            lib = ctypes.CDLL(path, mode=mode)
            lib.openblas_get_num_threads.restype = ctypes.c_int
            lib.openblas_set_num_threads.argtypes = [ctypes.c_int]
        except (OSError, AttributeError):
            continue
        _OPENBLAS[path] = lib
    return list(_OPENBLAS.values())


@contextlib.contextmanager
def blas_threads(threads: int | None = None) -> Iterator[None]:
    """Run the block with the bundled OpenBLAS on ``threads`` threads (default
    :data:`BLAS_THREADS`; ``None``: untouched), restoring its count afterwards."""
    threads = _count(threads)
    libs = bundled_openblas() if threads is not None else []
    before = [lib.openblas_get_num_threads() for lib in libs]
    for lib in libs:
        lib.openblas_set_num_threads(threads)
    try:
        yield
    finally:
        for lib, count in zip(libs, before):
            lib.openblas_set_num_threads(count)


def solver_environment(env: Mapping[str, str] | None = None, threads: int | None = None) -> dict[str, str]:
    """``env`` (default: this process's environment) with the BLAS / OpenMP thread
    variables of a solver child process set to ``threads`` (default
    :data:`BLAS_THREADS`; ``None``: ``env`` unchanged)."""
    threads = _count(threads)
    env = dict(os.environ if env is None else env)
    if threads is not None:
        env.update({name: str(threads) for name in _VARIABLES})
    return env
