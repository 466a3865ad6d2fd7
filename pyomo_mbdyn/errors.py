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
    "NotRepresentableError",
    "LoopReductionError",
    "AssemblyError",
    "SolverUnavailableError",
    "UnsupportedModelError",
    "SolverError",
    "SolveFailedError",
    "StructuralError",
    "InputTypeError",
    "ResultsFileError",
    "MissingFileError",
    "DestinationError",
    "ModellingWarning",
    "GridDependenceWarning",
]


class MbdynError(Exception):
    """Root of all pyomo_mbdyn errors."""

    default_message = ""

    def __init__(self, message: str = "") -> None:
        if self.default_message:
            message = f"{message} {self.default_message}".strip()
        super().__init__(message)


class ConfigurationError(MbdynError, ValueError):
    """An option, parameter or argument has a value the library cannot use."""


class NotRepresentableError(ConfigurationError):
    """A scheme's unknowns cannot express what was asked: a final joint angle beyond a turn in
    a form that holds rotations only as configurations, a joint bound on a rotation vector, …
    The message names the scheme and the forms that can."""


class LoopReductionError(NotRepresentableError):
    """The reduced (null-space) form of a system with closed loops does not exist here: the
    dependent coordinates cannot be solved for (J_d singular), or the form asked for cannot
    close the loop (:mod:`pyomo_mbdyn.mechanics.loops`)."""

    default_message = "The multiplier schemes bem and dmocc_lm need no reduction and work on loops."


class AssemblyError(MbdynError, ValueError):
    """Bodies and joints do not form a consistent multibody system."""


class SolverUnavailableError(MbdynError, ValueError):
    """A solver was asked for by a name that is unknown or cannot run here."""

    default_message = (
        "Run `pyomo-mbdyn solvers` to see what is installed; "
        "casadi_ipopt and casadi_bonmin come with `pip install pyomo_mbdyn`."
    )


class UnsupportedModelError(MbdynError, ValueError):
    """The model uses a construct that the chosen solver cannot handle."""


class SolverError(MbdynError, RuntimeError):
    """The solver process failed before it could report a result."""


class SolveFailedError(MbdynError, RuntimeError):
    """The solver ran but did not find a solution (infeasible, iteration limit, …).

    ``status`` holds the solver's termination condition (a string)."""

    def __init__(self, message: str = "", status: str | None = None) -> None:
        super().__init__(message)
        self.status = status


class StructuralError(MbdynError, ValueError):
    """Equations and unknowns do not form a square, structurally non-singular system."""

    default_message = (
        "Every equation must be matched to its own unknown: check which boundary conditions are "
        "fixed and which equations are active (the indirect DNCO needs x_0 and x_N fully prescribed)."
    )


class InputTypeError(MbdynError, TypeError):
    """An argument is of a kind the library cannot use (a name where a body is expected, …)."""


class ResultsFileError(ConfigurationError):
    """A file is not a results archive this library can read: truncated, corrupted, not a
    ``.npz`` archive, or an archive not written by :meth:`Trajectory.save`."""


class MissingFileError(MbdynError, FileNotFoundError):
    """A file to read does not exist."""


class DestinationError(MbdynError, OSError):
    """An output path cannot be written: a directory on the way is missing or is a file, the
    path is a directory, or the file system refuses the write (permissions, read-only)."""


class ModellingWarning(UserWarning):
    """A legal but suspicious input: the library goes on with the documented behaviour and
    says what it assumed (e.g. a joint point far from both bodies it joins)."""


class GridDependenceWarning(ModellingWarning):
    """A solve by grid refinement whose fine grid's objective departs from the coarse grid's by
    more than the scheme's order predicts (:func:`pyomo_mbdyn.ocp.solve.grid_dependence`): the
    grids reached different local optima; compare starts (multistart)."""
