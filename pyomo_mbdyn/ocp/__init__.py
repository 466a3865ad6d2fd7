"""Optimal-control problems on scheme blocks."""

from .costates import costate_table, costates_from_duals
from .dnco import dnco_model, parse_scheme
from .guess import interpolated_trajectory
from .problem import OptimalControlProblem
from .solve import solve

__all__ = ["OptimalControlProblem", "interpolated_trajectory", "solve", "costate_table", "costates_from_duals",
           "dnco_model", "parse_scheme"]
