"""A motion as a GIF, one frame per node (the interactive HTML view is :mod:`.html_view`)."""

# an argument made an array (``q = np.asarray(q, float)``) is typed as the array from there on:
# mypy: allow-redefinition-new, local-partial-types

from __future__ import annotations

import numbers
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..atomic import atomic_path, check_destination
from ..errors import ConfigurationError
from .geometry import as_configurations, body_color, body_geometry, motion_plane, points_of, skeleton
from .snapshots import _equal_limits_2d as equal_limits_2d, draw_configuration, plane_view, set_equal_limits
from .canvas import new_figure, styled

if TYPE_CHECKING:
    import numpy.typing as npt

    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["animate"]

@styled
def animate(system: ConstrainedSystem, q: npt.ArrayLike, path: str | os.PathLike[str], fps: float = 10,
            t: npt.ArrayLike | None = None, dpi: float = 80, box: bool = True) -> Path:
    """Write a GIF of the motion, one frame per node (matplotlib's PillowWriter).

    Each frame draws the configuration ``q[k]`` as :func:`plot_snapshots`
    does (a planar motion on 2-D axes in its plane), the paths of the centres of mass up to node k, and the node (and
    time) in the title, so that no two frames are alike (the GIF keeps all
    N+1).  The axes limits are those of the whole motion.  Returns the path.

    The destination is checked before anything is drawn: a missing directory is
    created (with its parents); a path that is a directory, lies under a file or
    cannot be written raises :class:`~pyomo_mbdyn.errors.DestinationError` (an
    ``OSError``) naming it.  The GIF is written atomically
    (:func:`~pyomo_mbdyn.atomic.atomic_path`): an old file at ``path`` stays as it
    was until the new one is complete.
    """
    from matplotlib.animation import PillowWriter

    q = as_configurations(system, q)
    if not (isinstance(fps, numbers.Real) and fps > 0):
        raise ConfigurationError(f"fps must be a positive number, got {fps!r}")
    if t is not None:
        t = np.asarray(t, dtype=float)
        if t.shape != (q.shape[0],):
            raise ConfigurationError(f"t must have one time per node ({q.shape[0]}), got shape {t.shape}")
    path = Path(path)
    if path.suffix.lower() != ".gif":
        raise ConfigurationError(f"animate writes GIF files; path must end in .gif, got {str(path)!r}")
    check_destination(path, "animation", create_directory=True)
    fig = new_figure(figsize=(5, 5))
    plane = motion_plane(system, q)  # a planar motion: 2-D axes in its plane, as plot_snapshots
    ax = fig.add_subplot() if plane is not None else fig.add_subplot(projection="3d")
    points = points_of(system, q)
    outline = skeleton(system, q)
    centres = np.array([[phi for _, phi, _, _ in body_geometry(system, qk)] for qk in q])
    writer = PillowWriter(fps=fps)
    with atomic_path(path, what="animation") as temporary, writer.saving(fig, str(temporary), dpi):
        for k in range(q.shape[0]):
            ax.cla()
            draw_configuration(ax, system, q[k], box=box, plane=plane)
            for b in range(centres.shape[1]):
                path_b = centres[: k + 1, b] if plane is None else plane.coordinates(centres[: k + 1, b])
                ax.plot(*path_b.T, color=body_color(b), lw=0.8, alpha=0.6)
            if plane is None:
                set_equal_limits(ax, points)
                plane_view(ax, outline)
            else:
                equal_limits_2d(ax, plane.coordinates(points), plane)
            ax.set_title(f"{system.name}: k = {k}" + ("" if t is None else f", t = {t[k]:.3f} s"))
            writer.grab_frame()
    return path
