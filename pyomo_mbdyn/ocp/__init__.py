"""Optimal-control problems on scheme blocks."""

from .actuators import enumerate_actuators, fix_actuators
from .costates import costate_table, costates_from_duals
from .dnco import dnco_model, parse_scheme
from .guess import interpolated_trajectory, path_trajectory, refined_trajectory
from .problem import OptimalControlProblem
from .solve import declare_duals, refinable, refinement_grids, solve, solve_refined

__all__ = ["OptimalControlProblem", "interpolated_trajectory", "path_trajectory", "refined_trajectory", "solve",
           "solve_refined", "refinable", "refinement_grids", "costate_table",
           "costates_from_duals", "dnco_model", "parse_scheme", "enumerate_actuators", "fix_actuators",
           "declare_duals"]
