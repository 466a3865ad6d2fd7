"""Exceptions of pyomo_mbdyn.

Every exception the library raises on purpose derives from :class:`MbdynError`
*and* from the builtin type that describes it, so callers can catch either the
library root or the builtin (``except ValueError``), as IDAES does.  Each class
carries a ``default_message`` that says how to fix the problem; it is appended
to the specific message.
"""

__all__ = [
    "MbdynError",
    "ConfigurationError",
    "AssemblyError",
    "SolverUnavailableError",
    "UnsupportedModelError",
    "SolverError",
]


class MbdynError(Exception):
    """Root of all pyomo_mbdyn errors."""

    default_message = ""

    def __init__(self, message=""):
        if self.default_message:
            message = f"{message} {self.default_message}".strip()
        super().__init__(message)


class ConfigurationError(ValueError, MbdynError):
    """An option, parameter or argument has a value the library cannot use."""


class AssemblyError(ValueError, MbdynError):
    """Bodies and joints do not form a consistent multibody system."""


class SolverUnavailableError(ValueError, MbdynError):
    """A solver was asked for by a name that is unknown or cannot run here."""

    default_message = (
        "Run `pyomo-mbdyn solvers` to see what is installed; "
        "casadi_ipopt and casadi_bonmin come with `pip install pyomo_mbdyn`."
    )


class UnsupportedModelError(ValueError, MbdynError):
    """The model uses a construct that the chosen solver cannot handle."""


class SolverError(RuntimeError, MbdynError):
    """The solver process failed before it could report a result."""
