"""The ``pyomo-mbdyn`` console script's entry point, outside the package on purpose.

Importing :mod:`pyomo_mbdyn.cli` imports the package, whose ``__init__`` registers the
solver plugins with Pyomo (about a second of imports: Pyomo, NumPy, SciPy).  A Ctrl-C
or SIGTERM in that second used to end in Python's own ``KeyboardInterrupt`` traceback
(or a silent death by SIGTERM) before the command line could answer.  This module is
imported first, costs nothing, and answers an interrupt during the import as the
command line answers every other: one line on stderr (with ``--json`` also exactly one
JSON object on stdout, status ``"interrupted"``) and exit status 130 (SIGINT) or 143
(SIGTERM).  Once the package is imported, :func:`pyomo_mbdyn.cli.main` takes over with
the signal handlers it had.
"""

import json
import os
import signal
import sys
import time

__all__ = ["main", "STARTED"]

#: ``time.perf_counter()`` when the console script began, before the package is imported:
#: ``run --json`` reports ``import_seconds`` and ``wall_seconds`` from it
STARTED = time.perf_counter()


class _Terminated(BaseException):
    """SIGTERM during the import, raised by the handler installed for it."""


def _terminate(signum, frame):
    raise _Terminated


def main():
    """Import the command line and run it; an interrupt during the import ends in one line."""
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        if os.environ.get("PYOMO_MBDYN_LAUNCH_TRACE"):  # tests: the moment the import starts
            print("pyomo-mbdyn: importing", file=sys.stderr, flush=True)
        from pyomo_mbdyn.cli import main as command_line
    except (KeyboardInterrupt, _Terminated) as interrupt:
        name, status = ("SIGTERM", 143) if isinstance(interrupt, _Terminated) else ("SIGINT", 130)
        argv = sys.argv[1:]
        if "--json" in argv:
            command = next((a for a in argv if not a.startswith("-")), None)
            print(json.dumps({"command": command, "status": "interrupted",
                              "error": f"interrupted ({name})"}), flush=True)
        print(f"pyomo-mbdyn: interrupted ({name})", file=sys.stderr, flush=True)
        return status
    finally:
        signal.signal(signal.SIGTERM, previous)
    return command_line()


if __name__ == "__main__":
    sys.exit(main())
