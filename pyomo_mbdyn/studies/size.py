"""A size guard: refuse a request the machine cannot hold, with the estimate, before building it.

``pyomo-mbdyn run three-link-arm --steps 100000`` used to build for minutes, without
progress, until the machine ran out of memory.  :func:`check_size` estimates a
request's size first, from two small builds of the same model (N = 16 and 32 steps: the
unknowns grow linearly in N, so two points give the count at any N exactly for the
papers' models), and its memory as :data:`BYTES_PER_UNKNOWN` per unknown — the
largest cost per unknown measured over the models' build and IPOPT solve (peak
resident memory against unknowns: the three-link arm's REM 18 kB, the satellite's
DMOCC 85 kB; benchmarks/README.md, "Size guard").  A request whose estimate exceeds
the memory this machine has available is refused with a
:class:`~pyomo_mbdyn.errors.ConfigurationError` that gives the estimate; ``force=True``
(``--force``) builds it anyway.

Only requests of at least :data:`CHECK_FROM` steps are estimated: below, every model
fits in a few hundred megabytes and the tiny builds would only cost time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..trajectory import available_memory  # the one reading of the machine's memory (results.load too)

__all__ = ["check_size", "estimate", "available_memory", "count_components", "count_rows", "BYTES_PER_UNKNOWN",
           "CHECK_FROM"]

#: memory per unknown of a built and solved model (the largest measured, with margin)
BYTES_PER_UNKNOWN = 100_000

#: requests of fewer steps are not estimated
CHECK_FROM = 1000

#: the step counts of the two builds the estimate extrapolates from (a guess simulated
#: on fewer steps may not converge: the satellite's at N = 4)
_TINY = (16, 32)


def count_components(model: Any, ctype: Any) -> int:
    """The number of active components of ``ctype`` in ``model`` (free variables only for ``Var``)."""
    import pyomo.environ as pyo

    return sum(1 for c in model.component_data_objects(ctype, active=True, descend_into=True)
               if not (ctype is pyo.Var and c.fixed))


def count_rows(model: Any, equality: bool) -> int:
    """The number of active equality (``equality=True``) or inequality constraint rows."""
    import pyomo.environ as pyo

    return sum(1 for c in model.component_data_objects(pyo.Constraint, active=True, descend_into=True)
               if bool(c.equality) == equality)


def estimate(build: Callable[..., Any], kwds: Mapping[str, Any], steps: int) -> tuple[int, int]:
    """``(unknowns, bytes)`` of ``build(**kwds, steps=steps)``, extrapolated linearly from
    two small builds (free variables; the memory at :data:`BYTES_PER_UNKNOWN` each): at
    N = 16 and 32, or where those fail (a guess simulated with long steps may not
    converge: the satellite's, the heavy top's) at the build's default N and twice it."""
    import inspect

    import pyomo.environ as pyo

    from ..errors import MbdynError

    pairs = [_TINY]
    default = inspect.signature(build).parameters.get("steps")
    if default is not None and isinstance(default.default, int) and default.default > 0:
        pairs.append((default.default, 2 * default.default))
    for pair in pairs:
        try:
            counts = [count_components(build(**{**kwds, "steps": n}), pyo.Var) for n in pair]
        except MbdynError:
            if pair is pairs[-1]:
                raise
            continue
        per_step = max(counts[1] - counts[0], 0) / (pair[1] - pair[0])
        unknowns = int(round(counts[0] + per_step * (steps - pair[0])))
        return unknowns, unknowns * BYTES_PER_UNKNOWN
    raise AssertionError("unreachable: the last pair returns or raises")  # for the type checker


def check_size(name: str, build: Callable[..., Any], kwds: Mapping[str, Any], force: bool = False,
               memory: int | None = None) -> tuple[int, int] | None:
    """Refuse ``build(**kwds)`` (model ``name``) when its estimated memory exceeds what the
    machine has available (``memory`` bytes; default :func:`available_memory`), unless
    ``force``; returns the estimate ``(unknowns, bytes)``, or ``None`` when not estimated
    (fewer than :data:`CHECK_FROM` steps, ``force``, or the tiny builds fail: the real
    build then reports the problem)."""
    from ..errors import ConfigurationError, MbdynError

    steps = kwds.get("steps")
    if force or steps is None or steps < CHECK_FROM:
        return None
    try:
        unknowns, needed = estimate(build, kwds, steps)
    except MbdynError:
        return None
    memory = available_memory() if memory is None else memory
    if memory is not None and needed > memory:
        raise ConfigurationError(
            f"{name}: {steps} steps is about {unknowns:,} unknowns and needs an estimated "
            f"{needed / 2**30:.1f} GiB of memory, more than the {memory / 2**30:.1f} GiB available here; "
            f"ask for fewer steps, or pass --force (force=True) to build it anyway")
    return unknowns, needed
