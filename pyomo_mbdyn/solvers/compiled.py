"""Step Functions as native code: CasADi's C generated, compiled with the system's
compiler, cached on disk by a hash of the Function.

The structured path (:mod:`pyomo_mbdyn.solvers.mapped`) evaluates, at every IPOPT
iteration, one step residual ``F(z)``, its Jacobian ``∂F/∂z`` and the Hessian of
its Lagrangian term ``∇²(λᵀF)`` per interval.  CasADi's virtual machine
interprets their SX instructions; on the robots those evaluations are most of a
solve (the Panda's GC step: 137 595 instructions in the Hessian, 32 ms per
evaluation of the 50 intervals, 1.2 s of a 1.6 s solve).  The derivative
Functions (``F`` itself stays interpreted: :func:`native`) written as C (``casadi.CodeGenerator``) and compiled by ``cc -Og`` evaluate in
1.2 ms: the same operations in the same order, so the same floating-point
results, bit for bit (tests/solvers/test_compiled.py).

A compiled family is a shared library ``<key>.so`` in the cache folder, where
``key`` hashes the CasADi version, the compiler command and the serialised step
Function (which fixes its derivatives), so any later solve of the same model
family — another start, another sweep point, another process, another day —
loads it instead of compiling.  The cache folder is ``$PYOMO_MBDYN_CACHE``, else
``$XDG_CACHE_HOME/pyomo_mbdyn/compiled``, else ``~/.cache/pyomo_mbdyn/compiled``.

When to compile (``SolverFactory('casadi_ipopt', compiled=MODE)``, the solver's
``compiled`` attribute, or ``$PYOMO_MBDYN_COMPILE``; benchmarks/pages/compiled.md):

``"auto"`` (the default)
    use the cached library if there is one; otherwise, for a step whose Hessian
    has at least :data:`AUTO_MIN_INSTRUCTIONS` instructions, start compiling it in
    a background process (detached: it finishes even if this process ends) and
    solve this time with the interpreter.  Compiling the Panda's GC step takes
    about 8 s of one core and saves about 1.2 s per solve, so the first solve
    should not wait for it, and every later one has it.  One compiler at a time per
    cache folder (the slot ``compile.slot``, an exclusive ``flock`` the background
    process holds while it works): while it is taken, other solves interpret and start
    nothing — a sweep over N or schemes of a large model started one compiler per family
    (measured: four ``cc1`` at 4–7 GB each, 30 minutes, on the space robot).  A step of
    more than :data:`AUTO_MAX_INSTRUCTIONS` is not compiled by ``auto`` (its compile
    time and memory grow faster than its size); ``"always"`` compiles it.
``"always"``
    compile now if the library is not cached (the solve waits), then use it;
``"never"``
    the interpreter.

Without a C compiler (``$CC``, else ``cc``, else ``gcc`` on ``PATH``) every mode
uses the interpreter; the first solve logs one line saying so.  A compiler that
fails logs its message once and the interpreter is used.  A library is code run
in this process: the cache folder is created private (mode 700), and one that
another user owns or that group or others may write to is not used (one line
says so; the interpreter runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time

import casadi as ca

from ..errors import ConfigurationError
from . import native_build

__all__ = ["MODES", "AUTO_MIN_INSTRUCTIONS", "AUTO_MAX_INSTRUCTIONS", "SLOT", "FLAGS", "CACHE_LIMIT", "cache_folder", "compiler", "prune", "resolve_mode",
           "native", "launch"]

logger = logging.getLogger("pyomo_mbdyn.solvers")

#: the values of the ``compiled`` option
MODES = ("auto", "always", "never")
#: ``"auto"`` compiles steps whose Hessian has at least this many SX instructions
#: (benchmarks/pages/compiled.md: below it a solve spends little in the step)
AUTO_MIN_INSTRUCTIONS = 20_000
#: ... and at most this many: the Panda's lobatto_gc step (551 340) compiles in 117 s; the space
#: robot's gc (884 885) and lobatto_gc (1 550 841) steps took over 30 minutes and 4–7 GB each
AUTO_MAX_INSTRUCTIONS = 600_000
#: the file whose exclusive lock a background compile holds (one compiler per cache folder)
SLOT = "compile.slot"
#: the compiler's flags: ``-Og`` evaluates these straight-line functions as fast as ``-O1`` and
#: ``-O2`` and compiles faster (the Panda's GC step: 8.3 s, against 10.2 s and 68 s; ``-O0``
#: compiles in 4.9 s but evaluates 4× slower)
FLAGS = ("-Og", "-shared", "-fPIC")
#: the cache keeps the most recently used libraries up to this many bytes (:func:`prune`)
CACHE_LIMIT = 1 << 30
#: a lock older than this [s] is left by a compile that died: another may start
STALE_LOCK = 900.0

_LOADED: dict[str, tuple[ca.Function, ca.Function]] = {}  # key -> (J, H) loaded from the cache
_NOTED: set[str] = set()


def resolve_mode(value: str | bool | None) -> str:
    """The mode a solve uses: ``value`` (``None`` for the default), else
    ``$PYOMO_MBDYN_COMPILE``, else ``"auto"``; ``True``/``False`` read as
    ``"always"``/``"never"``.  An unknown value raises ``ConfigurationError``."""
    source = "the solver's 'compiled' option"
    if value is None:
        value = os.environ.get("PYOMO_MBDYN_COMPILE") or "auto"
        source = "PYOMO_MBDYN_COMPILE"
    if value is True:
        return "always"
    if value is False:
        return "never"
    if isinstance(value, str) and value.strip().lower() in MODES:
        return value.strip().lower()
    raise ConfigurationError(f"{source} = {value!r}: expected one of {', '.join(MODES)} (or True / False)")


def cache_folder() -> str:
    """The folder of the compiled libraries (created on first use)."""
    folder = os.environ.get("PYOMO_MBDYN_CACHE")
    if not folder:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "pyomo_mbdyn", "compiled")
    return folder


def compiler() -> str | None:
    """The C compiler's path: ``$CC``, else ``cc``, else ``gcc`` on ``PATH``; ``None``
    if there is none."""
    for name in (os.environ.get("CC"), "cc", "gcc"):
        if name:
            path = shutil.which(name)
            if path:
                return path
    return None


def _key(F, cc):
    digest = hashlib.sha256()
    for part in (ca.__version__, cc, " ".join(FLAGS), sys.platform):
        digest.update(part.encode() + b"\0")
    digest.update(F.serialize().encode())
    return digest.hexdigest()[:32]


def prune(folder: str | None = None, limit: int | None = None) -> list[str]:
    """Remove the least recently used libraries of the cache folder until the rest
    take at most ``limit`` bytes (default :data:`CACHE_LIMIT`); returns the removed
    file names.  Run before every compile; a library's time stamp is renewed each
    time a solve loads it."""
    folder = folder or cache_folder()
    limit = CACHE_LIMIT if limit is None else limit
    try:
        entries = [os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".so")]
        stats = sorted(((os.stat(path), path) for path in entries), key=lambda item: item[0].st_mtime)
    except OSError:
        return []
    total, removed = sum(st.st_size for st, _ in stats), []
    for st, path in stats:
        if total <= limit:
            break
        _remove(path)
        total -= st.st_size
        removed.append(os.path.basename(path))
    return removed


def _load(key, path):
    try:
        os.utime(path)  # recently used: kept by prune
    except OSError:
        pass
    functions = tuple(ca.external(name, path) for name in native_build.names(key))
    _LOADED[key] = functions
    return functions


def _prepare(key, J, H, folder):
    """A fresh build folder in the cache folder with ``J`` and ``H`` saved in it."""
    build = tempfile.mkdtemp(prefix=f".{key}.", dir=folder)
    for function, name in zip((J, H), native_build.names(key)):
        function.save(os.path.join(build, f"{name}.casadi"))
    return build


def _note_once(message):
    if message not in _NOTED:
        _NOTED.add(message)
        logger.warning(message)


def native(F: ca.Function, J: ca.Function, H: ca.Function, mode: str,
           pending: list[tuple[str, ...]] | None = None) -> tuple[ca.Function, ca.Function, ca.Function]:
    """``(F, J, H)`` to evaluate in a solve, the derivatives ``J = ∂F/∂z`` and
    ``H = ∇²(λᵀF)`` compiled from the cache where ``mode`` says so (see the module
    docstring), else as given (the interpreter).  The step ``F`` itself stays an SX
    Function: CasADi's ``nlpsol`` differentiates the NLP's rows for its own checks,
    which a compiled Function without derivatives refuses, and the rows cost a
    small part of an iteration (the Panda's GC: 25 ms of 1.6 s).  With ``pending``
    (a list) a background build is appended to it for :func:`launch`, else started."""
    if mode == "never" or H is None:
        return F, J, H
    cc = compiler()
    if cc is None:
        _note_once("pyomo_mbdyn: no C compiler (cc, gcc or $CC) on PATH: the step functions are "
                   "interpreted by CasADi (slower on large models; install gcc to compile them)")
        return F, J, H
    key = _key(F, cc)
    if key in _LOADED:
        return (F, *_LOADED[key])
    folder = cache_folder()
    library = os.path.join(folder, f"{key}.so")
    if os.path.isdir(folder) and not _trusted(folder):
        return F, J, H
    if os.path.exists(library):
        try:
            return (F, *_load(key, library))
        except RuntimeError as err:  # a damaged file: compile it again
            _note_once(f"pyomo_mbdyn: could not load the compiled step {library} ({str(err)[:200]}); "
                       "compiling it again")
            _remove(library)
    if mode == "auto" and not AUTO_MIN_INSTRUCTIONS <= H.n_instructions() <= AUTO_MAX_INSTRUCTIONS:
        return F, J, H
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError as err:
        _note_once(f"pyomo_mbdyn: cannot create the cache folder {folder} ({err}): the step "
                   "functions are interpreted (set PYOMO_MBDYN_CACHE to a writable folder)")
        return F, J, H
    prune(folder)
    if mode == "always":
        error = native_build.build(_prepare(key, J, H, folder), key, cc, FLAGS, library)
        if error is None:
            return (F, *_load(key, library))
        _note_once(f"pyomo_mbdyn: {cc} failed on the step functions ({error[:300]}): they are interpreted")
        return F, J, H
    if slot_taken(folder):  # another process compiles: interpret, start nothing (module docstring)
        return F, J, H
    job = _background_job(key, J, H, cc, folder, library)
    if job is not None:
        if pending is None:
            launch([job])
        else:
            pending.append(job)
    return F, J, H


def launch(jobs: Sequence[Sequence[str]]) -> None:
    """Start one detached background process (:mod:`~pyomo_mbdyn.solvers.native_build`,
    at a lower priority: ``nice`` 10) that compiles ``jobs`` one after the other — one
    compiler at a time, so that a translation of several families does not start
    several compilers beside the solve."""
    if not jobs:
        return
    slot = os.path.join(os.path.dirname(jobs[0][3]), SLOT)
    args = [part for job in jobs for part in job]
    subprocess.Popen([sys.executable, native_build.__file__, slot, *args],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True)


def slot_taken(folder: str) -> bool:
    """True while a background compile holds the cache folder's slot (:data:`SLOT`)."""
    try:
        import fcntl
    except ImportError:  # no flock (not POSIX): no machine-wide limit
        return False
    try:
        fd = os.open(os.path.join(folder, SLOT), os.O_CREAT | os.O_RDWR, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def _background_job(key, J, H, cc, folder, library):
    """The arguments of one build for :func:`launch`, with the family's lock taken;
    ``None`` if another process holds the lock (a lock older than :data:`STALE_LOCK`
    was left by a build that died and is taken over)."""
    lock = os.path.join(folder, f"{key}.lock")
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        try:
            if slot_taken(folder) or time.time() - os.path.getmtime(lock) < STALE_LOCK:
                return None  # another process compiles it (or is about to take the slot)
            os.remove(lock)
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except OSError:
            return None
    except OSError:
        return None
    os.close(fd)
    try:
        build = _prepare(key, J, H, folder)
    except Exception:
        _remove(lock)
        raise
    return (build, key, cc, library, lock, " ".join(FLAGS))


def _trusted(folder):
    """Whether libraries in ``folder`` may be loaded: it belongs to this user and no one else may
    write to it — a library is code that runs in this process, and a folder others can write to
    would let them plant one (as a planted ``ipopt.opt`` once took over the solver, issue 46)."""
    try:
        st = os.stat(folder)
    except OSError:
        return False
    if hasattr(os, "getuid") and st.st_uid != os.getuid() or st.st_mode & 0o022:
        _note_once(f"pyomo_mbdyn: the cache folder {folder} is writable by others or not yours "
                   f"(mode {st.st_mode & 0o777:o}): nothing is loaded from it and the step functions are "
                   "interpreted (chmod go-w it, or set PYOMO_MBDYN_CACHE to a folder of your own)")
        return False
    return True


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass
