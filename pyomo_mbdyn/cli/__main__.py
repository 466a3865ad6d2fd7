"""``python -m pyomo_mbdyn.cli``: the command line, as the ``pyomo-mbdyn`` script runs it."""

import sys

from . import main

__all__ = []

if __name__ == "__main__":
    sys.exit(main())
