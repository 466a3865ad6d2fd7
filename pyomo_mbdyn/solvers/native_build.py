"""Build one compiled step library: C from CasADi, the system's compiler, one rename.

:mod:`pyomo_mbdyn.solvers.compiled` calls :func:`build` in process (mode
``"always"``) or runs this file as a script in a detached background process
(mode ``"auto"``), one build after the other at ``nice`` 10: it imports nothing but CasADi and the standard library, so
the background process starts in a fraction of a second without the package.

``build(folder, key, cc, flags, library, lock=None)`` reads the Functions
``folder/<name>.casadi`` (saved by ``Function.save``; ``names`` as
:func:`names`), writes their C into ``folder``,
compiles it into ``folder/<key>.so`` and renames that onto ``library`` (a
reader sees no library or the whole one); ``folder`` and ``lock`` are removed
at the end whatever happens.  Returns ``None`` or the compiler's error text.
"""

from __future__ import annotations

from collections.abc import Sequence

import os
import shutil
import subprocess
import sys

NAMES = ("j", "h")


def names(key: str) -> tuple[str, ...]:
    """The symbols the library of ``key`` exports (unique per family)."""
    return tuple(f"{prefix}_{key}" for prefix in NAMES)


def build(folder: str, key: str, cc: str, flags: Sequence[str], library: str, lock: str | None = None) -> str | None:
    import casadi as ca

    try:
        generator = ca.CodeGenerator(f"step_{key}.c", {"with_header": False})
        for name in names(key):
            function = ca.Function.load(os.path.join(folder, f"{name}.casadi"))
            generator.add(ca.Function(name, function.sx_in(), function.call(function.sx_in()),
                                      function.name_in(), function.name_out()))
        generator.generate(folder + os.sep)
        partial = os.path.join(folder, f"{key}.so")
        done = subprocess.run([cc, *flags, "-o", partial, os.path.join(folder, f"step_{key}.c")],
                              capture_output=True, text=True)
        if done.returncode != 0:
            return done.stderr.strip() or f"{cc} exited with {done.returncode}"
        os.replace(partial, library)
        return None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if lock:
            try:
                os.remove(lock)
            except OSError:
                pass


def _take_slot(path):
    """The exclusive lock of the cache folder's slot (one compiler per folder), or None if
    another process holds it (then this one builds nothing)."""
    try:
        import fcntl
    except ImportError:
        return -1
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


if __name__ == "__main__":  # slot, then (folder key cc library lock "flags") per build, one after the other
    try:
        os.nice(10)  # behind the solve that started it
    except OSError:
        pass
    slot, args, failed = sys.argv[1], sys.argv[2:], 0
    held = _take_slot(slot)  # kept until the process ends
    for i in range(0, len(args) - 5, 6):
        folder, key, cc, library, lock, flags = args[i:i + 6]
        if held is None:  # another compiler runs: leave the families to a later solve
            shutil.rmtree(folder, ignore_errors=True)
            try:
                os.remove(lock)
            except OSError:
                pass
            continue
        failed += build(folder, key, cc, flags.split(), library, lock) is not None
    sys.exit(1 if failed else 0)
