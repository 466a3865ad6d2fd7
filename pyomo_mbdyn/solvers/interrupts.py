"""Interrupts that reach a solver inside a C library are interrupts, not failed solves.

CasADi polls Python's signal handlers while IPOPT or Bonmin runs in process; when a
handler raises (Ctrl-C's ``KeyboardInterrupt``, the command line's
:class:`Terminated` on SIGTERM), CasADi clears the Python exception, logs
``KeyboardInterruptException`` and IPOPT ends with ``NonIpopt_Exception_Thrown`` —
which would read as a failed solve.  :func:`interruptible` wraps such a call: it
notes every SIGINT / SIGTERM that arrives while the call runs, lets the handler
that was installed act as usual (so CasADi stops at once), and after the call
raises the interruption again in Python, where the caller's ``except
KeyboardInterrupt`` sees it.

A SIGTERM whose handler is the default (end the process) is left alone; the
command line installs :func:`handle` for both signals so that SIGTERM ends a run as Ctrl-C
does: one last answer, temporary files removed, exit status 143.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import FrameType

import contextlib
import signal
import threading

__all__ = ["Terminated", "interruptible", "handle", "pending", "raise_if_interrupted", "interruption_behind",
           "exit_status"]

#: the signals noted by :func:`handle` and :func:`interruptible` and not yet raised again
#: by :func:`raise_if_interrupted` (a library that swallows the exception cannot lose them)
_received: list[int] = []


class Terminated(KeyboardInterrupt):
    """The process was asked to stop by a signal other than SIGINT (SIGTERM)."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        self.signum = int(signum)
        super().__init__(signal.Signals(self.signum).name)


def handle(signum: int, frame: FrameType | None) -> None:
    """The command line's handler of SIGINT and SIGTERM: note the signal (see
    :func:`raise_if_interrupted`) and raise ``KeyboardInterrupt`` (SIGINT) or
    :class:`Terminated`."""
    _received.append(int(signum))
    raise _interruption(signum)


def _interruption(signum):
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def pending() -> bool:
    """True while a signal that :func:`handle` noted has not been raised again or cleared."""
    return bool(_received)


def raise_if_interrupted() -> None:
    """Raise the interruption of a signal that :func:`handle` noted and that no one has
    raised yet: a C library (CasADi) may have swallowed the exception the handler raised."""
    if _received:
        signum = _received[0]
        _received.clear()
        raise _interruption(signum)


def interruption_behind(error: BaseException | None) -> KeyboardInterrupt | None:
    """The interruption that caused ``error``, or ``None``: a signal noted and not yet
    raised, or a ``KeyboardInterrupt`` in its chain (a C extension that returned while
    the handler's exception was set raises ``SystemError`` from it).  Clears the note."""
    chain, seen = error, set()
    while chain is not None and id(chain) not in seen:
        seen.add(id(chain))
        if isinstance(chain, KeyboardInterrupt):
            _received.clear()
            return chain
        chain = chain.__cause__ or chain.__context__
    if _received:
        signum = _received[0]
        _received.clear()
        return _interruption(signum)
    return None


def exit_status(interrupt: BaseException) -> int:
    """The shell's exit status for an interruption: 128 + the signal number (130 for
    Ctrl-C, 143 for SIGTERM)."""
    return 128 + int(getattr(interrupt, "signum", signal.SIGINT))


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Run the block (a call into a C solver) so that a SIGINT or SIGTERM that arrives
    during it is raised again when it returns, even when the library swallowed the
    Python exception.  Outside the main thread (where Python delivers no signals) the
    block runs unchanged."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous: dict[signal.Signals, Any] = {}

    def note(signum, frame):
        caught.append(signum)
        handler = previous[signum]
        if handler is handle:
            _received.append(int(signum))
            raise _interruption(signum)
        if callable(handler):
            handler(signum, frame)
        elif signum == signal.SIGINT:
            raise KeyboardInterrupt

    for signum in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(signum)
        if handler in (signal.SIG_IGN, None) or (signum == signal.SIGTERM and not callable(handler)):
            continue  # ignored, or the default end of the process: nothing to re-raise
        previous[signum] = handler
        signal.signal(signum, note)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if caught:
        _received.clear()
        raise _interruption(caught[0])
