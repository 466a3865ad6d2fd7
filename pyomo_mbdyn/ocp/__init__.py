"""Optimal-control problems on scheme blocks."""

from .guess import interpolated_trajectory
from .problem import OptimalControlProblem

__all__ = ["OptimalControlProblem", "interpolated_trajectory"]
