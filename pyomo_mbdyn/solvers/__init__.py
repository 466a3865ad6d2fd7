"""Solvers: the bundled IPOPT/Bonmin plugins and solver selection."""

from .selection import available_solvers, get_solver, library_version

__all__ = ["available_solvers", "get_solver", "library_version"]
