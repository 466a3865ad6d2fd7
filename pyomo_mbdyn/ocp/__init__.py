"""Optimal-control problems on scheme blocks."""

from .problem import OptimalControlProblem

__all__ = ["OptimalControlProblem"]
