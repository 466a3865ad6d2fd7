"""Solved trajectories on disk: :class:`~pyomo_mbdyn.trajectory.Trajectory` archives.

``SolvedTrajectory`` is the library's one trajectory type,
:class:`pyomo_mbdyn.trajectory.Trajectory`, under the name this module has
always given it; :func:`load` reads an archive written by ``save``.
"""

from .trajectory import FORMAT, FORMAT_VERSION, Trajectory, load

SolvedTrajectory = Trajectory

__all__ = ["SolvedTrajectory", "Trajectory", "load", "FORMAT", "FORMAT_VERSION"]
