"""What every command shares: the one JSON object on stdout, the one stderr line of a failure,
the exit statuses, signals answered once, and ``--set KEY=VALUE``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
from typing import Any, Iterable, NoReturn

#: exit statuses: 0 success, 1 a solve (or a requested figure) failed, 2 a bad request
#: (arguments, options, model construction), 3 an internal error (a bug: please report it)
EXIT_FAILED, EXIT_BAD_REQUEST, EXIT_INTERNAL = 1, 2, 3

#: the stream the one JSON object of a ``--json`` command goes to: the real stdout,
#: while everything else printed during the command (Pyomo's log, a solver's output)
#: goes to stderr (set by :func:`main`)
_json_stream = None


def number(text: str) -> int | float:
    """A number as written on the command line (``40`` an int, ``40.0`` or ``1e3`` a float), for
    options whose rule is checked afterwards by the library (``--steps``: a whole number ≥ 1,
    :func:`pyomo_mbdyn.mechanics.numeric.step_count`, the same rule as in Python)."""
    try:
        return int(text)
    except ValueError:
        return float(text)   # a ValueError here: argparse says "invalid number value"


def _line(model, message):
    """The one stderr line of a failure: ``pyomo-mbdyn: MODEL: message`` (the model named once)."""
    message = str(message)
    return f"pyomo-mbdyn: {message}" if message.startswith(f"{model}:") else f"pyomo-mbdyn: {model}: {message}"


def _print_json(obj):
    """Write ``obj`` as one line of JSON to the command's stdout (see :data:`_json_stream`)."""
    stream = _json_stream if _json_stream is not None else sys.stdout
    stream.write(json.dumps(obj, default=str) + "\n")
    stream.flush()


class _ConstructionLogFilter(logging.Filter):
    """Drop Pyomo's "Constructing component ... failed" log record: the command line
    reports the error itself, once (with ``--json`` inside its one object); and the
    record Pyomo logs when an evaluation it was doing is cut by SIGINT / SIGTERM
    ("evaluating object as numeric value"): an interruption, answered as such."""

    def filter(self, record):
        from ..solvers.interrupts import pending

        message = str(record.msg)
        if message.startswith("Constructing component"):
            return False
        return not (pending() and message.startswith("evaluating object as numeric value"))


@contextlib.contextmanager
def _command_streams(wants_json):
    """While a command runs: Pyomo's construction-failure log records dropped, and with
    ``--json`` everything printed to stdout sent to stderr except the one JSON object
    (:func:`_print_json`); SIGINT and SIGTERM raise ``KeyboardInterrupt`` /
    :class:`~pyomo_mbdyn.solvers.interrupts.Terminated` (one last answer, exit status 130 /
    143), also when they arrive inside a C library that swallows the exception."""
    global _json_stream
    import signal
    import threading

    from ..solvers.interrupts import handle, raise_if_interrupted

    pyomo_logger = logging.getLogger("pyomo.core")
    quiet = _ConstructionLogFilter()
    pyomo_logger.addFilter(quiet)
    handlers = logging.getLogger("pyomo").handlers  # records of every pyomo.* logger reach these
    for handler in handlers:
        handler.addFilter(quiet)
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, handle)
    saved = _json_stream
    with contextlib.ExitStack() as stack:
        if wants_json:
            _json_stream = sys.stdout
            stack.enter_context(contextlib.redirect_stdout(sys.stderr))
            # Pyomo's log handler holds the stdout stream itself: its records go to stderr too
            for handler in logging.getLogger("pyomo").handlers:
                if isinstance(handler, logging.StreamHandler) and handler.stream is _json_stream:
                    handler.setStream(sys.stderr)
                    stack.callback(handler.setStream, _json_stream)
        try:
            yield
            raise_if_interrupted()  # a signal whose exception a C library swallowed
        finally:
            _json_stream = saved
            pyomo_logger.removeFilter(quiet)
            for handler in handlers:
                handler.removeFilter(quiet)
            for signum, handler in previous.items():
                signal.signal(signum, handler)


#: Deepest nesting of lists/objects accepted in a ``--set`` value: model options are numbers,
#: texts, vectors and matrices (depth ≤ 2); a value nested deeper is refused before it is
#: parsed (Python's JSON decoder recurses once per level: thousands overflow its stack).
MAX_SET_DEPTH = 8


def _json_depth(text):
    """Deepest nesting of ``[``/``{`` in ``text`` outside JSON strings (a linear scan)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def parse_settings(settings: Iterable[str] | None) -> dict[str, Any]:
    """``["key=value", …]`` → ``{key: value}`` with JSON-typed values (``2.5``, ``true``,
    ``[1, 2]``, ``"text"``); a value that is not JSON is taken as a string.  A value with
    lists or objects nested more than :data:`MAX_SET_DEPTH` deep is a ConfigurationError
    naming the option (was a RecursionError in the JSON decoder)."""
    from ..errors import ConfigurationError

    options: dict[str, Any] = {}
    for item in settings or ():
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ConfigurationError(f"--set {item!r}: expected KEY=VALUE with KEY a model option name")
        depth = _json_depth(text)
        if depth > MAX_SET_DEPTH:
            shown = text if len(text) <= 40 else f"{text[:30]}…{text[-6:]} ({len(text)} characters)"
            raise ConfigurationError(f"--set {key}={shown}: lists nested {depth} deep; a model option takes "
                                     f"numbers, texts, vectors or matrices (at most {MAX_SET_DEPTH} levels)")
        try:
            options[key] = json.loads(text)
        except ValueError:
            options[key] = text
    return options


#: perf_counter() when main() began (:func:`pyomo_mbdyn.cli.main` sets it): the command line is imported;
#: ``run``'s ``import_seconds`` end later, when the library parts the run imports are loaded too
READY: list[float | None] = [None]


class ArgumentError(Exception):
    """A command line the parser refuses (raised instead of argparse's exit)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        raise ArgumentError(f"{self.prog}: {message}")
