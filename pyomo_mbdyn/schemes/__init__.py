"""Discrete dynamics schemes as Pyomo blocks.

Every scheme is one record of :mod:`pyomo_mbdyn.discretization.registry`
(re-exported here as ``SCHEMES`` and ``record``); :func:`scheme_block` builds
the block the record names.  All blocks derive from
:class:`~pyomo_mbdyn.schemes.base.SchemeBlockData` and give their results as
``block.trajectory()``.
"""

from __future__ import annotations

from typing import Any

from ..discretization.registry import SCHEMES, SchemeRecord, record, scheme_names, scheme_table
from ..errors import ConfigurationError
from ..mechanics.hamiltonian import HamiltonianSystem
from .base import MultibodyBlockData, SchemeBlockData
from .bem import BEMBlock
from .dmocc import DMOCCBlock, DMOCCLMBlock
from .dnco import DNCOBlock
from .gc import GCBlock
from .quaternion import QuaternionBlock
from .rem import REMBlock

__all__ = ["BEMBlock", "REMBlock", "DMOCCBlock", "DMOCCLMBlock", "GCBlock", "QuaternionBlock", "DNCOBlock",
           "SCHEMES", "SchemeRecord", "record", "scheme_names", "scheme_table", "scheme_block", "HamiltonianSystem",
           "SchemeBlockData", "MultibodyBlockData", "scheme_options", "options_table"]


def scheme_options(scheme: str) -> list[str]:
    """Names of the options the scheme's block takes (its ``CONFIG``).

    Examples
    --------
    >>> scheme_options("gc")
    ['system', 'steps', 'horizon', 'free_horizon', 'initial_configuration', 'initial_coordinates',
     'initial_velocity', 'controls', 'rotation', 'configurations']
    >>> "contravariant" in scheme_options("bem"), "contravariant" in scheme_options("rem")
    (True, False)
    """
    return list(record(scheme).block_class().CONFIG.keys())  # type: ignore[attr-defined]  # block_class() is annotated "-> type"; it is a block component, which has CONFIG


def scheme_block(scheme: str, **options: Any) -> Any:
    """A scheme block by registry name: ``scheme_block('bem', system=s, steps=40, horizon=2)``.

    The options are the block's ``CONFIG`` (``help(record('bem').block_class())``
    lists them); an option the scheme does not take is a ``ConfigurationError``.
    """
    if not isinstance(scheme, str):
        raise ConfigurationError(f"scheme must be a name, got {scheme!r}; available: {sorted(SCHEMES)}")
    return record(scheme).block_class()(**options)


def options_table() -> str:
    """The options of every scheme's block, read from its ``CONFIG``, as reStructuredText
    bullet lists (scheme, then option — default — description): what ``help(scheme_block)``
    shows.

    Examples
    --------
    >>> print("\\n".join(options_table().splitlines()[:4]))
    ``bem`` (BEMBlock):
    <BLANKLINE>
    * ``system``: The MultibodySystem.
    * ``steps``: Number of time steps N (≥ 1).
    """
    lines = []
    for name in SCHEMES:
        config = record(name).block_class().CONFIG  # type: ignore[attr-defined]  # as in scheme_options
        lines += [f"``{name}`` ({record(name).block_class().__name__}):", ""]
        for key in config.keys():
            item = config.get(key)
            text = " ".join((item._description or item._doc or "").split())
            default = "" if item._default is None else f" (default ``{item._default!r}``)"
            lines.append(f"* ``{key}``{default}: {text}")
        lines.append("")
    return "\n".join(lines)


assert scheme_block.__doc__ is not None  # it has one (under python -OO this line failed before as it does now)
scheme_block.__doc__ += "\n    .. rubric:: Options per scheme\n\n" + "\n".join(
    "    " + line if line else "" for line in options_table().splitlines()) + "\n"
