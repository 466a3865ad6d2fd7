"""Figures of solved models: snapshots, controls, conservation, costates, animation.

One concept per module: :mod:`.canvas` (the figure style, colours, units on
axes), :mod:`.geometry` (what a configuration looks like — shared by the
figures and the HTML view), :mod:`.snapshots`, :mod:`.series` (coordinates,
controls, costates, the discrete Hamiltonian over time), :mod:`.conservation`,
:mod:`.animation` (GIF), :mod:`.html_view` (an interactive page) and
:mod:`.output` (where figures go).  The names below are the public ones.

Everything here reads arrays (or a solved model) and draws with matplotlib's
object API (:class:`matplotlib.figure.Figure`, never ``pyplot``), so it runs
under any backend, in a notebook or headless, and leaves no global figure
state behind.  Each function returns what it drew on (an axes or a figure); the
standard figures of a named model are written by :mod:`pyomo_mbdyn.figures`.
Every function draws inside :func:`style` (font sizes, grid, line widths,
colour cycle), and every axis carries its unit in brackets: m, rad, s, N, N m,
J, N s, N m s (``[1]`` for a dimensionless quantity).

What is drawn
-------------
* A rigid body is its *equivalent box*: the homogeneous box with the body's
  mass and Euler tensor (half-edges ``a_i = √(3 E_i / m)`` along the directors
  ``d_i``, centred at φ), with the director triad ``φ → φ + a_i d_i`` in red,
  green and blue for d₁, d₂, d₃.  A thin rod is a line, a disc a flat box.
* A point mass is a dot at φ.
* A joint is a marker at its joint point on the parent and on the child (they
  coincide while the constraint holds), a line between the two, and thin
  lines from each body's centre of mass to its joint point.
* A planar motion (:func:`.geometry.motion_plane`: every drawn point keeps its
  distance to one plane, decided from the configurations) is drawn on 2-D axes
  in that plane, labelled with the world axes; any other on 3-D axes (a planar
  one asked for in 3-D is seen square-on).  The axes have equal scales (limits
  from the drawn geometry plus a margin).
* Snapshot time labels never overlap (:func:`.snapshots.place_labels`); every
  legend entry says what it is (``d₁: body axis 1 (director)``, ``torque on
  elbow.angle [N m]``, ``T  kinetic energy``).

Conservation
------------
The energy terms T, V, W, D, E and the momenta L, p come from
:mod:`pyomo_mbdyn.diagnostics` (``dyn.diagnostics()``); nothing here
recomputes them.  :func:`~pyomo_mbdyn.balance.momentum_balance` adds what changes a momentum: for a
rotation about a coordinate axis through the origin (or a translation along
it) that the joints to the ground allow (``G(q) ξ(q) = 0``, ξ the motion's
velocity field on the coordinates), the impulse of gravity ``-h ∇V·ξ`` and of
the controls and joint friction ``-h (u + Kν)·B ξ`` (the pairing of the power
``u·ν`` with the motion's joint rates ``B ξ`` instead of ν), evaluated where the
scheme applies its loads.  The balance ``J_k − J_0 − impulse`` is then flat to
solver tolerance for a momentum-consistent scheme (DMOCC paper Prop. 4.1,
Fig. 7.6; thesis §2.3).
"""

from .animation import animate
from .conservation import ENERGY_TERMS, plot_conservation
from .geometry import BODY_COLORS, DIRECTOR_COLORS, body_geometry, joint_geometry
from .html_view import animate_html
from .output import output_directory
from .series import plot_controls, plot_coordinates, plot_costates, plot_discrete_hamiltonian
from .snapshots import plot_snapshots
from .canvas import COLORS, STYLE, style

__all__ = ["plot_snapshots", "plot_coordinates", "plot_controls", "plot_conservation", "plot_costates",
           "plot_discrete_hamiltonian", "style", "STYLE", "COLORS", "ENERGY_TERMS", "BODY_COLORS", "DIRECTOR_COLORS",
           "animate", "animate_html", "body_geometry", "joint_geometry", "output_directory"]
