"""A solver's printed output captured per thread, without taking ``sys.stdout`` from anyone.

CasADi prints the log of IPOPT and Bonmin through Python's ``sys.stdout`` (and
``sys.stderr``), from the thread that runs the solve.  ``contextlib.redirect_stdout``
captures it by swapping the process-wide ``sys.stdout`` and putting back, at the end,
the value it found.  Two threads that solve at once (a study on a
``ThreadPoolExecutor``) interleave those swaps: the second to start finds the first
one's buffer, "restores" it when it ends after the first, and ``sys.stdout`` stays a
``StringIO`` for the rest of the program, while one solve's log lands in the other's
buffer or on the terminal.

:func:`capture_output` installs instead, while any capture is active, one router on
``sys.stdout`` and one on ``sys.stderr``.  A router sends each write to the innermost
buffer of the thread that writes, and the writes of every other thread to the stream
that was there before.  The last capture to end puts those streams back (unless
somebody replaced the router meanwhile: then it is left to them).  So, whatever the
number of threads:

* every capture holds exactly what its own thread printed;
* other threads (the main thread's ``print``, a progress bar) still print where they did;
* afterwards ``sys.stdout`` and ``sys.stderr`` are the objects they were before.

Used by the in-process CasADi solvers around each solve (quiet unless ``tee``)::

    log = io.StringIO()
    with capture_output(log):
        solver(x0=...)            # IPOPT's log goes to ``log``, from this thread only
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

import contextlib
import sys
import threading

__all__ = ["capture_output"]

_lock = threading.Lock()
#: thread ident -> the buffers of its active captures (innermost last)
_buffers: dict[int, list[SupportsWrite[str]]] = {}
#: while any capture is active: (stdout, stderr found, their routers)
_installed = None


class _Router:
    """A stream that writes to the current thread's innermost capture, else to ``fallback``."""

    def __init__(self, fallback):
        self._fallback = fallback

    def _target(self):
        stack = _buffers.get(threading.get_ident())
        return stack[-1] if stack else self._fallback

    def write(self, text):
        target = self._target()
        return len(text) if target is None else target.write(text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        target = self._target()
        if target is not None and hasattr(target, "flush"):
            target.flush()

    def __getattr__(self, name):  # isatty, fileno, encoding, …: those of the stream written to
        return getattr(self._target(), name)


@contextlib.contextmanager
def capture_output(buffer: SupportsWrite[str]) -> Iterator[SupportsWrite[str]]:
    """Send what this thread prints to ``sys.stdout`` or ``sys.stderr`` into ``buffer``
    (an object with ``write``) while the ``with`` block runs; other threads print as
    before, and ``sys.stdout`` / ``sys.stderr`` are back as found when the last
    capture of any thread ends (see the module docstring).  Captures nest."""
    global _installed
    ident = threading.get_ident()
    with _lock:
        if _installed is None:
            out, err = sys.stdout, sys.stderr
            _installed = (out, err, _Router(out), _Router(err))
            sys.stdout, sys.stderr = _installed[2], _installed[3]
        _buffers.setdefault(ident, []).append(buffer)
    try:
        yield buffer
    finally:
        with _lock:
            stack = _buffers[ident]
            stack.pop()
            if not stack:
                del _buffers[ident]
            if not _buffers:
                out, err, out_router, err_router = _installed
                _installed = None
                if sys.stdout is out_router:
                    sys.stdout = out
                if sys.stderr is err_router:
                    sys.stderr = err
