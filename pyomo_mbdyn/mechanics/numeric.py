"""Numbers given by a user: the one check that a bool or a text is not a number.

Python's ``bool`` is an ``int`` (``True == 1``) and numpy turns ``True`` into
``1.0`` and ``"2"`` into ``2.0`` without complaint, so without a check
``RigidBody("arm", True, ...)`` is a body of 1 kg and ``gravity=(0, True, 0)``
a gravity of 1 m/s² upwards.  Every numeric parameter of the library (masses,
inertias, lengths, axes, gravity, friction, bounds, targets, weights, step
sizes, horizons, controls) goes through :func:`check_numeric` (or
:func:`real`) before it is converted, in every layer: mechanics is the
lowest layer that all others import.

Examples
--------
>>> check_numeric((0.0, 1, 2.5), "gravity")           # numbers pass, nothing returned
>>> check_numeric(True, "RigidBody('arm'): mass")
Traceback (most recent call last):
    ...
pyomo_mbdyn.errors.ConfigurationError: RigidBody('arm'): mass must be a number, got bool True (True/False are not numbers)
>>> real("fast", "simulate: h", positive=True)
Traceback (most recent call last):
    ...
pyomo_mbdyn.errors.ConfigurationError: simulate: h must be a positive finite number, got 'fast' (a text is not a number)
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..errors import ConfigurationError

__all__ = ["non_number_kind", "check_numeric", "real", "step_count"]

_WHY = {"bool": "True/False are not numbers", "text": "a text is not a number"}


def non_number_kind(value: object) -> str | None:
    """``'bool'`` or ``'text'`` when ``value`` is, or (a list, tuple or array) holds, a bool
    (Python or numpy) or a string; else None.  Nested sequences are searched; dicts are not
    (their values are checked where they are read)."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (str, bytes, np.str_, np.bytes_)):
        return "text"
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "b":
            return "bool"
        if value.dtype.kind in "US":
            return "text"
        if value.dtype.kind != "O":
            return None
        value = value.ravel().tolist()
    if isinstance(value, (list, tuple)):
        for item in value:
            kind = non_number_kind(item)
            if kind:
                return kind
    return None


def _shown(value):
    if isinstance(value, (bool, np.bool_)):
        return f"bool {bool(value)!r}"
    if isinstance(value, np.ndarray):
        return repr(value.tolist())
    return repr(value)


def check_numeric(value: object, what: str, expected: str = "a number") -> None:
    """Raise :class:`~pyomo_mbdyn.errors.ConfigurationError` ``"{what} must be {expected},
    got …"`` when ``value`` is or holds a bool or a text (:func:`non_number_kind`)."""
    kind = non_number_kind(value)
    if kind:
        raise ConfigurationError(f"{what} must be {expected}, got {_shown(value)} ({_WHY[kind]})")


def real(value: object, what: str, *, positive: bool = False, finite: bool = True) -> float:
    """``value`` as a float: a real number (not a bool, a text, a complex or an array);
    with ``finite`` not NaN or ±inf, with ``positive`` > 0.  Otherwise a
    :class:`~pyomo_mbdyn.errors.ConfigurationError` naming ``what`` and the value."""
    expected = "a " + ("positive " if positive else "") + ("finite " if finite else "") + "number"
    check_numeric(value, what, expected)
    if not isinstance(value, numbers.Real):
        raise ConfigurationError(f"{what} must be {expected}, got {_shown(value)}")
    number = float(value)
    if (finite and not np.isfinite(number)) or np.isnan(number) or (positive and not number > 0):
        raise ConfigurationError(f"{what} must be {expected}, got {value!r}")
    return number


def step_count(steps: Any, what: str | None = None) -> int:
    """``steps`` as an ``int`` ≥ 1 (the number of time steps N): the one rule of the library for
    a number of steps (scheme blocks, guesses, ``simulate``, models, the command line).

    A whole number — an int, a numpy integer, or a float with a whole value such as 40.0 (what
    ``T / h`` gives) — of at least 1.  Anything else is a
    :class:`~pyomo_mbdyn.errors.ConfigurationError` naming ``what`` (when given) and the bad
    value: a bool, 2.5, 0, 1e400 (inf), nan, a string.

    >>> step_count(40.0, "simulate"), step_count(np.int64(8))
    (40, 8)
    """
    if isinstance(steps, (bool, np.bool_)) or not isinstance(steps, numbers.Real) \
            or not np.isfinite(steps) or not float(steps).is_integer() or steps < 1:  # type: ignore[call-overload]  # numbers.Real is float-like at run time; typeshed's Real has no __float__
        prefix = f"{what}: " if what else ""
        raise ConfigurationError(f"{prefix}steps must be a whole number ≥ 1 (the number of time steps N), "
                                 f"got {steps!r}")
    return int(steps)  # type: ignore[call-overload]  # a whole numbers.Real (checked above)
