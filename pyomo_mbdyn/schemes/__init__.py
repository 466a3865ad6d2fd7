"""Discrete dynamics schemes as Pyomo blocks."""

from ..errors import ConfigurationError
from .base import SchemeBlockData
from .bem import BEMBlock
from .dmocc import DMOCCBlock, DMOCCLMBlock
from ..mechanics.hamiltonian import HamiltonianSystem
from .dnco import DNCOBlock
from .gc import GCBlock
from .quaternion import QuaternionBlock
from .rem import REMBlock

#: scheme name → block component class
SCHEMES = {"bem": BEMBlock, "rem": REMBlock, "dmocc": DMOCCBlock, "dmocc_lm": DMOCCLMBlock,
           "gc": GCBlock, "quaternion": QuaternionBlock, "dnco": DNCOBlock}

__all__ = ["BEMBlock", "REMBlock", "DMOCCBlock", "DMOCCLMBlock", "GCBlock", "QuaternionBlock", "SCHEMES",
           "scheme_block", "DNCOBlock", "HamiltonianSystem",
           "SchemeBlockData"]


def scheme_block(scheme, **options):
    """A scheme block by name: ``scheme_block('bem', system=s, steps=40, horizon=2)``."""
    try:
        block = SCHEMES[scheme]
    except (KeyError, TypeError):
        raise ConfigurationError(
            f"unknown scheme {scheme!r}; available: {sorted(SCHEMES)}") from None
    return block(**options)
