"""An interactive 3-D view of a motion, written as one self-contained HTML file.

:func:`animate_html` draws a :class:`~pyomo_mbdyn.trajectory.Trajectory` of a
:class:`~pyomo_mbdyn.mechanics.MultibodySystem` with plotly and writes a single
HTML file with plotly.js embedded: it opens offline in any browser (no server,
no CDN, no Python).  The page holds

* on the left, a 3-D scene in metres (equal aspect, a cube around everything the
  motion reaches) that the user rotates, zooms and pans with the mouse; the bodies
  are drawn as :mod:`pyomo_mbdyn.plotting` draws them (the same geometry
  functions, :mod:`pyomo_mbdyn.plotting.geometry`): a rigid body is its equivalent box in the body's colour with its
  director triad d₁, d₂, d₃ in red, green and blue, a point mass a dot; joints
  are white markers at their joint points with grey lines to the centres of
  mass; a thin line in the body's colour is the path of its centre of mass up
  to the current node;
* on the right, the controls ``u`` over t as staircases (N for a translation,
  N m for a rotation; u is the applied generalised force) and the energy
  T + V and, when controls act, T + V + W (W the work done on the actuators; + D with joint
  friction) in J, each with a vertical marker at the current time;
* a slider with one frame per node (its label gives t and k) and Play / Pause
  buttons; playback runs at real time, but at most 25 frames per second.

Body colours are matplotlib's tab10 without red, green and blue (kept for the
directors), so that a box never has a director's colour.

A :class:`~pyomo_mbdyn.mechanics.CoordinateSystem` given by its formulas is drawn
by its ``drawing`` (named points and the segments between them: the ``crane``'s
trolley, load and rope).  A system without bodies in space has nothing to draw in
3-D: a :class:`~pyomo_mbdyn.mechanics.HamiltonianSystem` of generalised coordinates
(the DNCO models ``pendulum``, ``particle``, ``three-link-arm --scheme dnco``) or a
CoordinateSystem without a drawing.  :func:`animate_html` refuses it, before writing anything, with a
:class:`~pyomo_mbdyn.errors.ConfigurationError` that points to
:func:`~pyomo_mbdyn.plotting.plot_coordinates` and ``pyomo-mbdyn run MODEL --plot DIR``
(no 2-D stand-in: the coordinates over t are what ``--plot`` draws already).
"""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..atomic import atomic_write, check_destination
from ..errors import ConfigurationError, InputTypeError
from ..trajectory import Trajectory, unit
from .geometry import (BODY_COLORS, DIRECTOR_COLORS, as_configurations, body_color, body_geometry, box_edges,
                       drawable, joint_geometry, plane_normal, points_of, skeleton)

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from ..mechanics.protocol import ConstrainedSystem
    from ..schemes.base import SchemeBlockData

__all__ = ["animate_html", "html_figure", "BODY_COLORS", "DIRECTOR_COLORS"]

_JOINT_COLOR = "#333333"
_MARKER_COLOR = "#444444"
#: shortest time a frame is shown during playback (ms): 25 frames per second at most
MIN_FRAME_MS = 40
_SCENE_DOMAIN = (0.0, 0.55)
_PANEL_DOMAIN = (0.62, 0.86)  # the legends of the panels stand to their right


# -- inputs -----------------------------------------------------------------------
def _trajectory_and_system(trajectory, system):
    """The :class:`Trajectory` to draw and its system, or a clear error."""
    if not isinstance(trajectory, Trajectory):
        if callable(getattr(trajectory, "trajectory", None)) and hasattr(trajectory, "system"):
            trajectory = trajectory.trajectory()  # a scheme block: its current values
        else:
            raise InputTypeError(
                f"animate_html: trajectory must be a pyomo_mbdyn Trajectory (e.g. model.dyn.trajectory() or "
                f"pyomo_mbdyn.simulate.simulate(...)) or a scheme block, got {type(trajectory).__name__}")
    system = trajectory.system if system is None else system
    if system is None:
        raise ConfigurationError(
            "animate_html: the trajectory has no system (a loaded archive?): pass system=, the "
            "MultibodySystem it belongs to")
    if not drawable(system):
        raise ConfigurationError(
            f"animate_html draws bodies in space; {getattr(system, 'name', system)!r} is a "
            f"{type(system).__name__} of generalised coordinates with no bodies to draw (give a "
            "CoordinateSystem a drawing=): plot its coordinates with pyomo_mbdyn.plotting.plot_coordinates "
            "(or `pyomo-mbdyn run MODEL --plot DIR`)")
    as_configurations(system, trajectory.q)  # shape and finite values, before anything is written
    if trajectory.steps < 1:
        raise ConfigurationError("animate_html: the trajectory has a single node; a motion needs N ≥ 1 steps")
    t = np.asarray(trajectory.t, dtype=float)
    if not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0):
        raise ConfigurationError("animate_html: the node times t must be finite and increasing")
    return trajectory, system


def _check_title(title):
    if title is not None and not isinstance(title, str):
        raise InputTypeError(f"animate_html: title must be a string, got {type(title).__name__}")


def _html_path(path: Any) -> Path:
    if not isinstance(path, (str, Path)):
        raise InputTypeError(f"animate_html: path must be a file name (str or Path), got {type(path).__name__}")
    path = Path(path)
    if path.suffix.lower() not in (".html", ".htm"):
        raise ConfigurationError(f"animate_html writes an HTML file; path must end in .html, got {str(path)!r}")
    return path


# -- the 3-D scene ----------------------------------------------------------------------
def _polyline(segments):
    """x, y, z lists of the line segments ``[(p, q), …]``, separated by None (one plotly trace)."""
    xyz = ([], [], [])
    for p, q in segments:
        for i in range(3):
            xyz[i].extend((float(p[i]), float(q[i]), None))
    return xyz


def _scene_traces(system, q, centres, k):
    """The scene's traces at node ``k`` (same number and order at every node): per body
    its box (or dot) and the path of its centre of mass up to k (``centres[j, b]``, the
    centres at every node); the director triads d₁, d₂, d₃; the joint lines; the joint
    points; the centres of mass."""
    import plotly.graph_objects as go

    bodies = body_geometry(system, q[k])
    traces = []
    for b, (name, phi, D, a) in enumerate(bodies):
        color = body_color(b)
        if D is None:
            traces.append(go.Scatter3d(x=[phi[0]], y=[phi[1]], z=[phi[2]], mode="markers", name=name,
                                       legendgroup=name, marker=dict(size=6, color=color)))
        else:
            x, y, z = _polyline(box_edges(phi, D, a))
            traces.append(go.Scatter3d(x=x, y=y, z=z, mode="lines", name=name, legendgroup=name,
                                       line=dict(color=color, width=5)))
        path = centres[: k + 1, b]
        traces.append(go.Scatter3d(x=path[:, 0], y=path[:, 1], z=path[:, 2], mode="lines", legendgroup=name,
                                   showlegend=False, hoverinfo="skip", line=dict(color=color, width=2)))
    if any(D is not None for _, _, D, _ in bodies):
        for i, color in enumerate(DIRECTOR_COLORS):
            x, y, z = _polyline([(phi, phi + a[i] * D[i]) for _, phi, D, a in bodies if D is not None])
            traces.append(go.Scatter3d(x=x, y=y, z=z, mode="lines", name=f"d{i + 1}", legendgroup=f"d{i + 1}",
                                       hoverinfo="skip", line=dict(color=color, width=4)))
    joints = joint_geometry(system, q[k])
    if joints:
        lines = [(sp, sc) for _, sp, sc, _, _ in joints]
        lines += [(centre, point) for _, sp, sc, cp, cc in joints for centre, point in ((cp, sp), (cc, sc))
                  if centre is not None]
        x, y, z = _polyline(lines)
        traces.append(go.Scatter3d(x=x, y=y, z=z, mode="lines", name="joint", legendgroup="joint",
                                   showlegend=False, hoverinfo="skip", line=dict(color=_JOINT_COLOR, width=2)))
        points = np.array([p for _, sp, sc, _, _ in joints for p in (sp, sc)])
        traces.append(go.Scatter3d(x=points[:, 0], y=points[:, 1], z=points[:, 2], mode="markers",
                                   name="joint", legendgroup="joint",
                                   text=[name for name, *_ in joints for _ in (0, 1)],
                                   hovertemplate="%{text}<extra></extra>",
                                   marker=dict(size=4, color="white", line=dict(color="black", width=2))))
    traces.append(go.Scatter3d(x=centres[k, :, 0], y=centres[k, :, 1], z=centres[k, :, 2], mode="markers",
                               showlegend=False, text=[name for name, *_ in bodies],
                               hovertemplate="%{text}: centre of mass<extra></extra>",
                               marker=dict(size=4, color=[body_color(b) for b in range(len(bodies))])))
    for trace in traces:
        trace.update(scene="scene", legend="legend")
    return traces


#: the camera square-on to a coordinate plane, by the plane's normal axis: from +z (x right,
#: y up), from -y (x right, z up), from +x (y right, z up), as the snapshots look at it
_PLANE_CAMERAS = {2: dict(eye=dict(x=0.0, y=0.0, z=2.2), up=dict(x=0.0, y=1.0, z=0.0)),
                  1: dict(eye=dict(x=0.0, y=-2.2, z=0.0), up=dict(x=0.0, y=0.0, z=1.0)),
                  0: dict(eye=dict(x=2.2, y=0.0, z=0.0), up=dict(x=0.0, y=0.0, z=1.0))}


def _scene_layout(system, q):
    """A cube around every point drawn at every node, axes in metres; a planar motion is
    first seen square-on to its plane (the camera can still be turned)."""
    points = points_of(system, q)
    lo, hi = points.min(axis=0), points.max(axis=0)
    centre, half = (lo + hi) / 2, (hi - lo).max() / 2
    half = half * 1.1 if half > 0 else 1.0
    axes = {f"{c}axis": dict(range=[centre[i] - half, centre[i] + half], title=dict(text=f"{c} (m)"),
                             autorange=False)
            for i, c in enumerate("xyz")}
    layout = dict(domain=dict(x=list(_SCENE_DOMAIN), y=[0.12, 1.0]), aspectmode="cube", **axes)
    normal = plane_normal(skeleton(system, q))  # every joint point and centre at every node
    if normal is not None:
        layout["camera"] = dict(_PLANE_CAMERAS[normal], projection=dict(type="orthographic"))
    return layout


# -- the 2-D panels ------------------------------------------------------------------------
def _padded_range(values):
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return [-1.0, 1.0]
    lo, hi = float(values.min()), float(values.max())
    # at least 0.1 % of the magnitude: a quantity conserved to round-off is drawn flat
    span = max(hi - lo, 1e-3 * max(abs(lo), abs(hi)), 1e-9)
    middle = (lo + hi) / 2
    return [middle - 0.58 * span, middle + 0.58 * span]


def _marker(t, yrange, axis, visible=True):
    """The vertical line at time ``t`` across the panel on axes ``x{axis}``/``y{axis}``."""
    import plotly.graph_objects as go

    return go.Scatter(x=[t, t], y=yrange, mode="lines", xaxis=f"x{axis}", yaxis=f"y{axis}", showlegend=False,
                      hoverinfo="skip", visible=visible, line=dict(color=_MARKER_COLOR, width=1.5, dash="dot"))


def _control_traces(trajectory):
    """Staircases of u on [t_i, t_{i+1}] (axis x2/y2); ``(traces, y range, unit label)``."""
    import plotly.graph_objects as go

    t, u = np.asarray(trajectory.t, float), np.asarray(trajectory.u, float)
    traces = []
    units = []
    for a, name in enumerate(trajectory.controls):
        unit_a = unit(name, "u")
        if unit_a and unit_a not in units:
            units.append(unit_a)
        label = f"{name} ({unit_a})" if unit_a else name
        traces.append(go.Scatter(x=t, y=np.append(u[:, a], u[-1, a]), mode="lines", name=label,
                                 line=dict(shape="hv", width=1.8), xaxis="x2", yaxis="y2", legend="legend2",
                                 hovertemplate=f"{name}: %{{y:.4g}} {unit_a}<extra></extra>"))
    return traces, _padded_range(u), ", ".join(units)


def _energy_traces(trajectory, system):
    """T + V and T + V + W (+ D) over t (axis x3/y3), in J; ``(traces, y range)``."""
    import plotly.graph_objects as go

    from ..diagnostics import conservation_table

    table = conservation_table(system, trajectory.h, trajectory.q, trajectory.v, trajectory.nu, trajectory.u)
    t = np.asarray(trajectory.t, float)
    curves = [("T + V", (table["T"] + table["V"]).to_numpy(float), dict(color="#222222", width=2))]
    friction = bool(np.any(table["D"].to_numpy(float) != 0))
    if trajectory.u.shape[1] > 0 or friction:
        label = "T + V + W" + (" + D" if friction else "")
        curves.append((label, table["E"].to_numpy(float), dict(color="#17becf", width=2, dash="dash")))
    traces = [go.Scatter(x=t, y=y, mode="lines", name=label, line=line, xaxis="x3", yaxis="y3", legend="legend3",
                         hovertemplate=f"{label}: %{{y:.6g}} J<extra></extra>") for label, y, line in curves]
    return traces, _padded_range(np.concatenate([y for _, y, _ in curves]))


# -- the figure -------------------------------------------------------------------------
def _time_label(t, h):
    """``t`` with enough decimals to tell neighbouring nodes apart."""
    decimals = min(6, max(0, math.ceil(-math.log10(h)) + 1)) if h > 0 else 3
    return f"{t:.{decimals}f}"


def _default_title(trajectory, system):
    meta = trajectory.metadata
    name = meta.get("model") or system.name
    parts = [str(name)]
    if meta.get("scheme"):
        parts.append(str(meta["scheme"]))
    parts.append(f"N = {trajectory.steps}")
    if meta.get("status"):
        parts.append(str(meta["status"]))
    if meta.get("solved") is False:  # a block's guess or changed values: say so where it is shown
        parts.append("not a solution")
    if isinstance(meta.get("objective"), (int, float)) and not isinstance(meta.get("objective"), bool):
        parts.append(f"J = {meta['objective']:.6g}")
    return ", ".join(parts)


def html_figure(trajectory: Trajectory | SchemeBlockData, system: ConstrainedSystem | None = None,
                title: str | None = None) -> go.Figure:
    """The plotly :class:`~plotly.graph_objects.Figure` that :func:`animate_html` writes.

    One frame per node k = 0..N (named ``"0"`` … ``"N"``) updates the 3-D scene
    and the two time markers; the controls and the energy curves stay.
    Arguments as for :func:`animate_html`.
    """
    import plotly.graph_objects as go

    trajectory, system = _trajectory_and_system(trajectory, system)
    _check_title(title)
    q = as_configurations(system, trajectory.q)
    centres = np.array([[phi for _, phi, _, _ in body_geometry(system, qk)] for qk in q])
    t = np.asarray(trajectory.t, dtype=float)
    N = trajectory.steps
    h = float(trajectory.h) if trajectory.h else float(t[1] - t[0])

    controls, u_range, u_units = _control_traces(trajectory)
    energy, e_range = _energy_traces(trajectory, system)
    scene0 = _scene_traces(system, q, centres, 0)
    static = controls + energy
    dynamic = list(range(len(static), len(static) + len(scene0) + 2))  # the scene, then the two markers

    def markers(k):
        return [_marker(t[k], u_range, 2, visible=bool(controls)), _marker(t[k], e_range, 3)]

    fig = go.Figure(data=static + scene0 + markers(0))
    fig.frames = [go.Frame(name=str(k), traces=dynamic, data=_scene_traces(system, q, centres, k) + markers(k))
                  for k in range(N + 1)]

    frame_ms = max(MIN_FRAME_MS, int(round(1000 * h)))
    play = dict(label="▶ Play", method="animate",
                args=[None, dict(frame=dict(duration=frame_ms, redraw=True), fromcurrent=True,
                                 transition=dict(duration=0), mode="immediate")])
    pause = dict(label="❚❚ Pause", method="animate",
                 args=[[None], dict(frame=dict(duration=0, redraw=False), transition=dict(duration=0),
                                    mode="immediate")])
    steps = [dict(method="animate", label=f"t = {_time_label(t[k], h)} s   (node k = {k} of {N})",
                  args=[[str(k)], dict(mode="immediate", frame=dict(duration=0, redraw=True),
                                       transition=dict(duration=0))])
             for k in range(N + 1)]
    x_range = [float(t[0]), float(t[-1])]
    title = title if title is not None else _default_title(trajectory, system)
    fig.update_layout(
        title=dict(text=html.escape(title),
                   x=0.02, xanchor="left"),
        scene=_scene_layout(system, q),
        uirevision="keep",  # keep the user's camera while frames play
        xaxis2=dict(domain=list(_PANEL_DOMAIN), anchor="y2", range=x_range, matches="x3", showticklabels=True,
                    ticksuffix=" s"),
        yaxis2=dict(domain=[0.62, 0.98], anchor="x2", range=u_range,
                    title=dict(text=f"u ({u_units})" if u_units else "u")),
        xaxis3=dict(domain=list(_PANEL_DOMAIN), anchor="y3", range=x_range, title=dict(text="t (s)")),
        yaxis3=dict(domain=[0.14, 0.5], anchor="x3", range=e_range, title=dict(text="energy (J)")),
        legend=dict(x=0.0, y=0.98, xanchor="left", yanchor="top", bgcolor="rgba(255,255,255,0.7)",
                    font=dict(size=11)),
        legend2=dict(x=_PANEL_DOMAIN[1] + 0.01, y=0.98, xanchor="left", yanchor="top", font=dict(size=10)),
        legend3=dict(x=_PANEL_DOMAIN[1] + 0.01, y=0.5, xanchor="left", yanchor="top", font=dict(size=10)),
        annotations=[dict(text="controls u (applied generalised forces)", xref="paper", yref="paper",
                          x=_PANEL_DOMAIN[0], y=0.995, xanchor="left", yanchor="bottom", showarrow=False),
                     dict(text="energy", xref="paper", yref="paper", x=_PANEL_DOMAIN[0], y=0.515,
                          xanchor="left", yanchor="bottom", showarrow=False)]
        + ([] if controls else [dict(text="no actuated coordinates", xref="x2 domain", yref="y2 domain",
                                     x=0.5, y=0.5, showarrow=False, font=dict(color="#888888"))]),
        updatemenus=[dict(type="buttons", direction="left", x=0.0, y=0.0, xanchor="left", yanchor="top",
                          pad=dict(t=10, r=10), showactive=False, buttons=[play, pause])],
        sliders=[dict(active=0, steps=steps, x=0.14, len=0.86, y=0.0, yanchor="top", pad=dict(t=10),
                      font=dict(color="rgba(0,0,0,0)"), ticklen=0, minorticklen=0,
                      currentvalue=dict(prefix="", xanchor="left", font=dict(size=13, color="#222222")),
                      transition=dict(duration=0))],
        margin=dict(l=10, r=20, t=50, b=90),
        plot_bgcolor="white",
    )
    fig.update_xaxes(gridcolor="#e5e5e5", zeroline=False)
    fig.update_yaxes(gridcolor="#e5e5e5", zerolinecolor="#bbbbbb")
    if not controls:  # an empty panel with its note, no axes
        fig.update_layout(xaxis2=dict(visible=False), yaxis2=dict(visible=False))
    return fig


def animate_html(trajectory: Trajectory | SchemeBlockData, path: str | Path,
                 system: ConstrainedSystem | None = None, title: str | None = None) -> Path:
    """Write the motion as one self-contained, interactive HTML file; return its path.

    The page (described in :mod:`pyomo_mbdyn.html_view`) shows the bodies in a 3-D
    scene to rotate and zoom, a slider with one frame per node and Play / Pause
    buttons, and beside it the controls (N, N m) and the energy (J) over t with a
    marker at the current time.  plotly.js is embedded: the file opens offline.

    Parameters
    ----------
    trajectory : Trajectory or scheme block
        The motion (``model.dyn.trajectory()``, :func:`pyomo_mbdyn.simulate.simulate`,
        :func:`pyomo_mbdyn.results.load`), or a scheme block ``model.dyn`` whose
        current values are drawn.
    path : str or Path
        The ``.html`` file to write.  A missing directory is created; a path that
        is a directory, lies under a file or cannot be written raises
        :class:`~pyomo_mbdyn.errors.DestinationError` (an ``OSError``) before
        anything is drawn.  The page is written atomically
        (:func:`~pyomo_mbdyn.atomic.atomic_write`): an old file at ``path`` stays
        as it was until the new page is complete.
    system : MultibodySystem, optional
        Default: the trajectory's own (``trajectory.system``); required for a
        trajectory loaded from an archive.  A system without bodies in space
        (a HamiltonianSystem) is refused with a ConfigurationError.
    title : str, optional
        Default: model (or system), scheme, N, status and objective from the
        trajectory's metadata.
    """
    path = _html_path(path)
    trajectory, system = _trajectory_and_system(trajectory, system)  # refuse bad input before touching the disk
    _check_title(title)
    check_destination(path, "HTML view", create_directory=True)
    fig = html_figure(trajectory, system, title)
    page = fig.to_html(include_plotlyjs=True, full_html=True, auto_play=False, default_width="100%",
                       default_height="100vh", config=dict(displaylogo=False, responsive=True))
    head = f"<title>{fig.layout.title.text}</title><style>body {{margin: 0}}</style>"  # the title is escaped
    page = page.replace("</head>", head + "</head>", 1)
    with atomic_write(path, "w", encoding="utf-8", what="HTML view") as f:
        f.write(page)
    return path
