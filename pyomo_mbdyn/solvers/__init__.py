"""Solvers: the bundled IPOPT/Bonmin/fatrop plugins and solver selection."""

from .selection import available_solvers, get_solver, library_version

__all__ = ["available_solvers", "get_solver", "library_version"]
