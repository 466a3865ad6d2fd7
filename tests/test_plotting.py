"""Figures: what each plotting function draws, checked on the drawn artists
(units on every axis, equal-scale snapshots, flat energy and momentum balances)."""

import dataclasses
import importlib
import re
import sys
import types

import matplotlib
import numpy as np
import pytest
from PIL import Image

from pyomo_mbdyn import balance, figures, plotting
from pyomo_mbdyn.diagnostics import trajectory_table
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.mechanics import MultibodySystem, PointMass, Revolute, RigidBody, Spherical
from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.models import MODELS
from pyomo_mbdyn.schemes import SCHEMES
from pyomo_mbdyn.simulate import simulate

L, MASS = 1.0, 2.0
ROD = (1e-9, MASS * L**2 / 12, MASS * L**2 / 12)  # thin rod along d1


def arm_with_bob():
    """Planar two-link arm (rods along x, revolute about z) with a point mass on a
    spherical joint at the tip of the second link."""
    upper = RigidBody("upper", MASS, ROD, position=(0.5, 0, 0))
    fore = RigidBody("fore", MASS, ROD, position=(1.5, 0, 0))
    bob = PointMass("bob", 0.5, position=(2.0, 0, 0))
    system = MultibodySystem("arm", gravity=(0, -9.81, 0))
    system.add_bodies(upper, fore, bob)
    system.add_joints(Revolute("shoulder", None, upper, location=(0, 0, 0), axis=(0, 0, 1)),
                      Revolute("elbow", upper, fore, location=(1, 0, 0), axis=(0, 0, 1)),
                      Spherical("wrist", fore, bob, location=(2, 0, 0)))
    system.actuate("shoulder")
    system.actuate("elbow")
    return system


@pytest.fixture(scope="module")
def motion():
    """8 BEM steps of the arm falling under gravity with constant controls."""
    system = arm_with_bob()
    return simulate(system, system.q0, np.zeros(system.n), h=0.05, steps=8,
                    controls=np.tile([1.0, -0.5], (8, 1)), scheme="bem")


def _segments(ax):
    from mpl_toolkits.mplot3d.art3d import Line3DCollection

    return [s for c in ax.collections if isinstance(c, Line3DCollection) for s in c._segments3d]


def _drawn_points(ax):
    """Every point of the drawn segments and markers of a 3-D axes."""
    from mpl_toolkits.mplot3d.art3d import Path3DCollection

    pts = [p for s in _segments(ax) for p in s]
    for c in ax.collections:
        if isinstance(c, Path3DCollection):
            pts.extend(np.column_stack(c._offsets3d))
    return np.array(pts, dtype=float)


# -- geometry ------------------------------------------------------------------
def test_geometry_of_bodies_and_joints(motion):
    system = motion.system
    qk = motion.q[-1]
    bodies = {name: rest for name, *rest in plotting.body_geometry(system, qk)}
    phi, D, a = bodies["upper"]
    np.testing.assert_allclose(a, [L / 2, 0, 0], atol=1e-4)  # the equivalent box of a rod is the rod
    np.testing.assert_allclose(D @ D.T, np.eye(3), atol=1e-9)
    assert bodies["bob"][1] is None and bodies["bob"][2] is None
    joints = {name: rest for name, *rest in plotting.joint_geometry(system, qk)}
    for name, (sp, sc, cp, cc) in joints.items():
        np.testing.assert_allclose(sp, sc, atol=1e-8, err_msg=name)  # assembled: the points coincide
    assert joints["shoulder"][2] is None  # the ground has no centre of mass
    # the shoulder stays at the origin, and the upper rod's end is there
    np.testing.assert_allclose(joints["shoulder"][0], 0, atol=1e-12)
    np.testing.assert_allclose(phi - a[0] * D[0], 0, atol=1e-4)


def test_snapshots_draw_every_part(motion):
    system = motion.system
    ax = plotting.plot_snapshots(system, motion.q, times=[0, 4, 8], view="3d")
    assert ax.name == "3d" and ax.snapshot_nodes == [0, 4, 8]
    # per snapshot: 2 rods × 12 box edges; joints: shoulder 1 + 1, elbow 2 + 1, wrist 2 + 1; the
    # director triads (2 rods × 3) on the last snapshot only
    assert len(_segments(ax)) == 3 * (2 * 12 + 8) + 2 * 3
    assert len(_segments(plotting.plot_snapshots(system, motion.q, times=[0, 4, 8], directors="all", view="3d"))) \
        == 3 * (2 * 15 + 8)
    # the director lines of the last snapshot end at φ + a_i d_i
    (_, phi, D, a) = plotting.body_geometry(system, motion.q[8])[0]
    ends = {tuple(np.round(s[1], 9)) for s in _segments(ax)}
    for i in range(3):
        assert tuple(np.round(phi + a[i] * D[i], 9)) in ends
    # limits that contain every drawn point with a margin, and equal scales (box aspect ∝ spans)
    limits = np.array([ax.get_xlim(), ax.get_ylim(), ax.get_zlim()])
    np.testing.assert_allclose(limits, ax.drawn_limits)
    spans = np.diff(limits, axis=1).ravel()
    np.testing.assert_allclose(np.asarray(ax.get_box_aspect()) / spans, ax.get_box_aspect()[0] / spans[0])
    pts = _drawn_points(ax)
    margin = 0.05 * spans.max()
    assert np.all(pts >= limits[:, 0] + margin) and np.all(pts <= limits[:, 1] - margin)
    # the arm moves in the plane z = 0: asked for in 3-D, it is seen square-on, the normal axis without ticks
    assert ax.elev == 90 and len(ax.get_zticks()) == 0
    assert "k = 0, 4, 8" in ax.get_title()
    assert [ax.get_xlabel(), ax.get_ylabel()] == ["x [m]", "y [m]"]


def _segments_2d(ax):
    from matplotlib.collections import LineCollection

    return [s for c in ax.collections if isinstance(c, LineCollection) for s in c.get_segments()]


def test_a_planar_motion_is_drawn_in_its_plane(motion):
    """The arm turns about z: by default 2-D axes in the x–y plane, every segment of the 3-D
    drawing projected (its x, y), equal scales, the world axes on the axes, no panes."""
    system = motion.system
    ax = plotting.plot_snapshots(system, motion.q, times=[0, 4, 8])
    space = plotting.plot_snapshots(system, motion.q, times=[0, 4, 8], view="3d")
    assert ax.name == "rectilinear" and ax.snapshot_nodes == [0, 4, 8]
    plane = ax.snapshot_plane
    np.testing.assert_allclose(plane.normal, [0, 0, 1])
    assert plane.level == pytest.approx(0, abs=1e-12) and not plane.projected
    flat, deep = _segments_2d(ax), _segments(space)
    assert len(flat) == len(deep) == 3 * (2 * 12 + 8) + 2 * 3
    np.testing.assert_allclose(np.array(flat), np.array(deep)[:, :, :2], atol=1e-12)
    assert [ax.get_xlabel(), ax.get_ylabel()] == ["x [m]", "y [m]"] and ax.get_aspect() == 1.0
    assert "motion in the x–y plane (z = 0 m)" in ax.get_title()
    pts = np.array(flat).reshape(-1, 2)
    limits = np.array([ax.get_xlim(), ax.get_ylim()])
    np.testing.assert_allclose(limits, ax.drawn_limits)
    margin = 0.05 * np.diff(limits, axis=1).max()
    assert np.all(pts >= limits[:, 0] + margin) and np.all(pts <= limits[:, 1] - margin)
    # the legend decodes every entry: bodies, the director that shows (a rod's d₂, d₃ are invisible), joints
    assert [x.get_text() for x in ax.get_legend().get_texts()] == [
        "upper", "fore", "bob", "d₁: body axis 1 (director)", "joint (○ its point on each body)"]
    # a 2-D axes given is drawn on; a 3-D one keeps the drawing in space
    given = plotting.canvas.new_figure().add_subplot()
    assert plotting.plot_snapshots(system, motion.q, ax=given) is given and given.snapshot_plane is not None
    given3d = plotting.canvas.new_figure().add_subplot(projection="3d")
    assert plotting.plot_snapshots(system, motion.q, ax=given3d).snapshot_plane is None
    with pytest.raises(ConfigurationError, match="view must be"):
        plotting.plot_snapshots(system, motion.q, view="flat")


def _spinning_rod(spin):
    """A thick rod on a spherical joint at the origin, turned about z by 0 … 1 rad and about its
    own axis (x) by ``spin`` times that: 6 configurations (exact rotations, q = (φ, d₁, d₂, d₃))."""
    rod = RigidBody("rod", 1.0, (0.02, 0.09, 0.09), position=(0.5, 0, 0))
    system = MultibodySystem("rod")
    system.add_bodies(rod)
    system.add_joints(Spherical("pivot", None, rod, location=(0, 0, 0)))
    q = []
    for angle in np.linspace(0, 1, 6):
        c, s, cs, ss = np.cos(angle), np.sin(angle), np.cos(spin * angle), np.sin(spin * angle)
        R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) @ np.array([[1, 0, 0], [0, cs, -ss], [0, ss, cs]])
        q.append(np.concatenate([R @ [0.5, 0, 0], R[:, 0], R[:, 1], R[:, 2]]))
    q = np.array(q)
    assert max(np.abs(np.asarray(system.constraints(qk), float)).max() for qk in q) < 1e-12  # assembled
    return system, q


def test_planar_is_decided_from_the_motion():
    """Planar when every drawn point keeps its distance to the plane of the centres and joints;
    the rod spinning about its own axis keeps its centre in the plane z = 0, but its box leaves it."""
    system, q = _spinning_rod(0.0)
    plane = plotting.geometry.motion_plane(system, q)
    assert plane is not None and abs(plane.normal[2]) == pytest.approx(1.0)
    system, q = _spinning_rod(2.0)
    assert np.ptp(plotting.geometry.skeleton(system, q)[:, 2]) < 1e-12  # the centre stays at z = 0 ...
    assert plotting.geometry.motion_plane(system, q) is None  # ... the body does not
    ax = plotting.plot_snapshots(system, q)
    assert ax.name == "3d" and ax.snapshot_plane is None
    # forced into 2-D: projected onto the plane across its least spread, and the title says so
    ax = plotting.plot_snapshots(system, q, view="2d")
    assert ax.name == "rectilinear" and ax.snapshot_plane.projected and "projected onto" in ax.get_title()
    # a 2-D axes given asks for a plane: the motion is projected
    given = plotting.canvas.new_figure().add_subplot()
    assert plotting.plot_snapshots(system, q, ax=given).snapshot_plane.projected
    # a block sliding along x (centres on a line, no joint axis across it): the x–z plane, side on
    block = RigidBody("block", 1.0, (0.1, 0.1, 0.1))
    slider = MultibodySystem("slider")
    slider.add_bodies(block)
    q = simulate(slider, slider.q0, slider.null_space(slider.q0) @ [1.0, 0, 0, 0, 0, 0], h=0.1, steps=3).q
    assert plotting.geometry.motion_plane(slider, q).labels == ("x [m]", "z [m]")
    # one configuration is no motion: planar only when the joints turn about the plane's normal
    assert plotting.geometry.motion_plane(system, system.q0) is None
    assert plotting.geometry.motion_plane(slider, slider.q0) is None


def _label_boxes(ax):
    """The window extents of the snapshot labels as drawn."""
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    return [(text.get_text(), text.get_window_extent(renderer)) for text in ax.texts]


def assert_labels_apart(ax, expected=None):
    """No two label boxes overlap, each lies inside the axes, and (``expected``) all are drawn."""
    boxes = _label_boxes(ax)
    frame = ax.get_window_extent(ax.figure.canvas.get_renderer())
    for i, (text, box) in enumerate(boxes):
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1, text
        for other, seen in boxes[:i]:
            assert not box.overlaps(seen), f"{text!r} overlaps {other!r}: {box} and {seen}"
    assert sorted(text for text, _ in boxes) == sorted(text for text, _ in ax.snapshot_labels)
    if expected is not None:
        assert len(boxes) == expected


@pytest.mark.parametrize("view", ["2d", "3d"])
def test_time_labels_never_overlap(motion, view):
    """Nine snapshots of the arm, five of them bunched at the start: the labels are moved apart."""
    ax = plotting.plot_snapshots(motion.system, motion.q, t=motion.t, count=9, view=view)
    first = plotting.snapshots._anchors(ax, motion.system, motion.q, ax.snapshot_nodes, [np.zeros(3)] * 9,
                                        ax.snapshot_plane)[1][:2]  # the labelled points of t = 0 and 0.05 s
    assert np.linalg.norm(ax.transData.transform(first[0]) - ax.transData.transform(first[1])) < 20  # crowded
    assert_labels_apart(ax)
    assert len(ax.snapshot_labels) >= 7  # most are kept
    # the layout changed (a caption): placed again, still apart
    ax.figure.set_size_inches(*(ax.figure.get_size_inches() * 0.8))
    plotting.snapshots._relayout(ax, bottom=0.05)
    assert_labels_apart(ax)


def test_each_snapshot_is_labelled_at_its_own_pose(motion):
    """One label per pose, with its time, nearer to its own pose's points than to any other's,
    and inside the axes limits."""
    system = motion.system
    ax = plotting.plot_snapshots(system, motion.q, times=[0.0, 0.2, 0.4], t=motion.t)
    assert [text for text, _ in ax.snapshot_labels] == ["t = 0 s", "t = 0.2 s", "t = 0.4 s"]
    assert sorted(text.get_text() for text in ax.texts) == ["t = 0 s", "t = 0.2 s", "t = 0.4 s"]
    poses = [plotting.geometry.points_of(system, motion.q[k][None]) for k in ax.snapshot_nodes]
    for i, (_, position) in enumerate(ax.snapshot_labels):
        nearest = [np.linalg.norm(pose - position, axis=1).min() for pose in poses]
        assert np.argmin(nearest) == i, nearest
        inplane = ax.snapshot_plane.coordinates(position[None])[0]
        assert np.all(inplane >= ax.drawn_limits[:, 0]) and np.all(inplane <= ax.drawn_limits[:, 1])
    assert_labels_apart(ax, expected=3)
    by_node = plotting.plot_snapshots(system, motion.q, times=[0, 8])
    assert [text for text, _ in by_node.snapshot_labels] == ["k = 0", "k = 8"]
    assert len(plotting.plot_snapshots(system, motion.q, times=[0, 8], labels=False).texts) == 0
    with pytest.raises(ConfigurationError, match="directors must be"):
        plotting.plot_snapshots(system, motion.q, directors="some")


def test_snapshots_of_a_coordinate_system_with_a_drawing():
    """The crane's snapshots: per pose the rope from trolley to load (and no boxes or
    directors: points only), seen square-on in its vertical plane."""
    from pyomo_mbdyn.models import crane

    system = crane.build_system()
    q = np.array([system.q0, system.reparametrise([1.0, -5.0, 0.3], system.q0)])
    ax = plotting.plot_snapshots(system, q)
    ropes = _segments_2d(ax)
    assert len(ropes) == 2 and ax.name == "rectilinear"  # a motion in the plane y = 0
    for qk, rope in zip(q, ropes):
        s, _, x, z = qk
        assert np.allclose(rope, [[s, 0], [x, -z]])
    assert [ax.get_xlabel(), ax.get_ylabel()] == ["x [m]", "z [m]"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["trolley", "load", "segment between drawn points"]
    ax = plotting.plot_snapshots(system, q, view="3d")  # in space: seen square-on
    assert ax.elev == 0 and [ax.get_xlabel(), ax.get_zlabel()] == ["x [m]", "z [m]"]


def test_snapshots_by_time_single_configuration_and_offset(motion):
    system = motion.system
    ax = plotting.plot_snapshots(system, motion.q, times=[0.0, 0.21, 0.4], t=motion.t)
    assert ax.snapshot_nodes == [0, 4, 8]
    ax = plotting.plot_snapshots(system, system.q0, box=False)
    assert ax.snapshot_nodes == [0] and len(_segments(ax)) == 2 * 3 + 8
    ax = plotting.plot_snapshots(system, motion.q, times=[0, 8], offset=(0, 0, 5), view="3d")
    assert max(p[2] for s in _segments(ax) for p in s) == pytest.approx(5.0, abs=1e-4)  # rods: a_3 ≈ 3e-5
    assert "moved by" in ax.get_title()


def test_auto_offset_lays_a_motion_in_place_out_on_a_grid(motion):
    body = RigidBody("wheel", 1.0, (0.5, 0.3, 0.3))
    system = MultibodySystem("wheel")
    system.add_bodies(body)
    traj = simulate(system, system.q0, system.null_space(system.q0) @ [0, 0, 0, 3.0, 0, 0], h=0.1, steps=4)
    ax = plotting.plot_snapshots(system, traj.q, offset="auto")
    # 5 snapshots in reading order on 3 columns, 1.25 sizes apart: x from 0 to 2 spacings, one row down
    assert ax.snapshot_nodes == [0, 1, 2, 3, 4]
    spacing = 1.25 * max(np.ptp(plotting.geometry.points_of(system, qk[None]), axis=0).max() for qk in traj.q)
    centres = _drawn_points(ax)[[len(_segments(ax)) * 2 + i for i in range(5)]]  # the body markers, in order
    np.testing.assert_allclose(centres, [[0, 0, 0], [spacing, 0, 0], [2 * spacing, 0, 0], [0, 0, -spacing],
                                         [spacing, 0, -spacing]], atol=1e-12)
    assert f"{spacing:.3g} m apart" in ax.get_title()
    np.testing.assert_allclose(np.asarray(ax.get_box_aspect()) / np.diff(ax.drawn_limits, axis=1).ravel(),
                               ax.get_box_aspect()[0] / np.diff(ax.drawn_limits[0]).item())
    # a system jointed to the ground is drawn in place, stroboscopically
    ax = plotting.plot_snapshots(motion.system, motion.q, offset="auto")
    assert "reading order" not in ax.get_title()


def test_snapshots_reject_bad_input(motion):
    system = motion.system
    with pytest.raises(ConfigurationError, match="n = 27"):
        plotting.plot_snapshots(system, motion.q[:, :5])
    with pytest.raises(ConfigurationError, match="node indices 0..8"):
        plotting.plot_snapshots(system, motion.q, times=[9])
    with pytest.raises(ConfigurationError, match="node indices"):
        plotting.plot_snapshots(system, motion.q, times=[1.5])
    with pytest.raises(ConfigurationError, match="outside the grid"):
        plotting.plot_snapshots(system, motion.q, times=[2.0], t=motion.t)
    with pytest.raises(ConfigurationError, match="3-D axes"):
        plotting.plot_snapshots(system, motion.q, ax=plotting.canvas.new_figure().add_subplot(), view="3d")
    with pytest.raises(ConfigurationError, match="2-D axes"):
        plotting.plot_snapshots(system, motion.q, ax=plotting.canvas.new_figure().add_subplot(projection="3d"),
                                view="2d")
    with pytest.raises(ConfigurationError, match="NaN"):
        plotting.plot_snapshots(system, np.full_like(motion.q, np.nan))
    with pytest.raises(TypeError, match="MultibodySystem"):
        plotting.plot_snapshots("arm", motion.q)


# -- controls, conservation, costates ----------------------------------------------
def test_controls_are_staircases(motion):
    ax = plotting.plot_controls(motion.t, motion.u, motion.system.actuated)
    steps = ax.patches
    assert len(steps) == 2
    for a, patch in enumerate(steps):
        values, edges, _ = patch.get_data()
        np.testing.assert_array_equal(values, motion.u[:, a])
        np.testing.assert_array_equal(edges, motion.t)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["torque on shoulder.angle [N m]",
                                                                 "torque on elbow.angle [N m]"]
    with pytest.raises(ConfigurationError, match="N\\+1 node times"):
        plotting.plot_controls(motion.t[:-1], motion.u)
    with pytest.raises(ConfigurationError, match="no columns"):
        plotting.plot_controls(motion.t, np.zeros((8, 0)))
    with pytest.raises(ConfigurationError, match="names has 1"):
        plotting.plot_controls(motion.t, motion.u, ["x"])


def test_coordinates_over_time(motion):
    ax = plotting.plot_coordinates(motion.t, motion.q[:, :2], ["upper.x", "upper.y"])
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["coordinate upper.x [m]", "coordinate upper.y [m]"]
    np.testing.assert_array_equal(lines[1].get_xdata(), motion.t)
    np.testing.assert_array_equal(lines[1].get_ydata(), motion.q[:, 1])
    with pytest.raises(ConfigurationError, match="N\\+1 node times"):
        plotting.plot_coordinates(motion.t[:-1], motion.q)
    with pytest.raises(ConfigurationError, match="names has 1"):
        plotting.plot_coordinates(motion.t, motion.q[:, :2], ["x"])


def _axes_titled(fig, start):
    return [ax for ax in fig.axes if ax.axison and ax.get_title().startswith(start)]


def test_conservation_panels_show_the_table(motion):
    table = trajectory_table(motion)
    fig = plotting.plot_conservation(table, trajectory=motion)
    energy, drift = fig.axes[:2]
    assert energy.get_title() == "energy: T + V + W + D = E  (D = 0)"  # no friction: D is left out
    lines = {line.get_label().split()[0]: line.get_ydata() for line in energy.get_lines()}
    assert set(lines) == {"T", "V", "W", "E"}
    np.testing.assert_array_equal(lines["V"], table["V"])
    legend = [t.get_text() for t in energy.get_legend().get_texts()]
    assert "W  = −(work done by the controls)" in legend and "E = T + V + W + D  total" in legend
    np.testing.assert_array_equal(drift.get_lines()[0].get_ydata(), table["E"] - table["E"].iloc[0])
    # the scheme is read from the trajectory's metadata: BEM conserves T + V + W + D
    assert drift.get_title().startswith("BEM, energy-momentum scheme:\nT + V + W + D constant to solver tolerance")
    # the angular momentum about z (the shoulder's axis through the origin) against its impulses;
    # no translation is free at the shoulder: no linear-momentum row
    (left,) = _axes_titled(fig, "angular momentum about the origin")
    assert not _axes_titled(fig, "linear")
    Lz = left.get_lines()[0]
    assert Lz.get_label() == ("L_z (rotation about z free at the joints): changed by gravity, "
                              "the control on shoulder.angle")
    np.testing.assert_array_equal(Lz.get_ydata(), table["Lz"])
    assert _axes_titled(fig, "constraint residual")
    # without the trajectory: the momentum changes, labelled as not a balance
    fig = plotting.plot_conservation(table)
    assert [ax.get_title() for ax in _axes_titled(fig, "angular momentum")] == [
        "angular momentum about the origin: change (not a balance)"]
    assert drift_title(fig).startswith("E − E₀ (scheme not given")
    # without momentum and residual columns: the energy row only
    fig = plotting.plot_conservation(table[["t", "T", "V", "E"]], scheme="dmocc")
    assert len(fig.axes) == 2 and drift_title(fig).startswith("DMOCC, variational scheme:\nenergy oscillates")
    with pytest.raises(ConfigurationError, match=r"lacks the columns \['E'\]"):
        plotting.plot_conservation(table[["t", "T", "V"]])
    with pytest.raises(TypeError, match="DataFrame"):
        plotting.plot_conservation(table.to_numpy())


def drift_title(fig):
    return fig.axes[1].get_title()


def test_energy_balance_of_bem_is_flat_in_the_plotted_data(motion):
    """BEM: E = T + V + W + D constant to solver tolerance, read back from the E − E₀ line."""
    fig = plotting.plot_conservation(trajectory_table(motion), trajectory=motion)
    energy, drift = fig.axes[:2]
    scale = max(np.abs(line.get_ydata()).max() for line in energy.get_lines())
    assert scale > 1.0  # the arm falls and the controls work: the terms are not small
    assert np.abs(drift.get_lines()[0].get_ydata()).max() <= 1e-8 * scale


def test_energy_statement_of_every_scheme():
    statements = {name: balance.energy_statement(name) for name in SCHEMES}
    for name in ("bem", "rem", "quaternion"):
        assert "energy-momentum scheme: T + V + W + D constant to solver tolerance" in statements[name]
    for name in ("dmocc", "dmocc_lm", "rattle"):
        assert "variational scheme: energy oscillates, bounded, no drift" in statements[name]
    assert "neither energy- nor momentum-consistent" in statements["gc"]
    for name in ("dnco", "dnco-greenspan", "direct-gonzalez"):
        assert "discrete-gradient scheme: T + V + W constant" in balance.energy_statement(name)
    assert "T + V + W not conserved" in balance.energy_statement("direct-midpoint")
    assert balance.energy_statement(None) is None


# -- momentum balances -------------------------------------------------------------
def satellite_spinning(scheme):
    """The three-rotor satellite (no gravity, rotor torques: internal) spinning and torqued, 12 steps."""
    satellite = importlib.import_module(MODELS["satellite"])
    system = satellite.build_system()
    v0 = system.null_space(system.q0) @ np.array([0, 0, 0, 0.2, 0.3, 0.4, 1.0, -2.0, 3.0])
    torques = np.column_stack([np.linspace(200, -100, 12), np.full(12, -150.0), np.linspace(0, 300, 12)])
    return simulate(system, system.q0, v0, h=0.1, steps=12, controls=torques, scheme=scheme)


@pytest.mark.parametrize("scheme", ["bem", "dmocc"])
def test_momentum_balance_of_the_satellite_is_flat(scheme):
    """No gravity, internal rotor torques: every momentum is conserved (a symmetry with nothing acting),
    and the plotted balance lines are flat to solver tolerance."""
    traj = satellite_spinning(scheme)
    table = balance.momentum_balance(traj)
    assert sorted(table.attrs["momenta"]) == sorted(["Lx", "Ly", "Lz", "px", "py", "pz"])
    assert all(info["conserved"] for info in table.attrs["momenta"].values())
    fig = plotting.plot_conservation(traj.diagnostics(), trajectory=traj)
    (right,) = _axes_titled(fig, "angular-momentum balance")
    L = np.abs(traj.diagnostics()[["Lx", "Ly", "Lz"]].to_numpy()).max()
    assert L > 100.0  # spinning: the momentum is not small
    for line in right.get_lines():
        assert np.abs(line.get_ydata()).max() <= 1e-10 * L, line.get_label()
    (left,) = _axes_titled(fig, "angular momentum about the origin")
    assert left.get_lines()[0].get_label() == "L_x: conserved (rotation about x symmetry)"
    assert right.get_ylabel() == "L − L₀ − impulse [N m s]"


def arm_about_z(gravity, scheme):
    """The two-link arm with its bob, shoulder and elbow about z at/through the z axis, torqued."""
    system = arm_with_bob()
    system.gravity = np.asarray(gravity, float)
    return simulate(system, system.q0, np.zeros(system.n), h=0.05, steps=8,
                    controls=np.tile([1.0, -0.5], (8, 1)), scheme=scheme)


@pytest.mark.parametrize("scheme", ["bem", "rem", "dmocc"])
def test_angular_momentum_changes_only_by_the_shoulder_torque(scheme):
    """Gravity along z: rotation about z is a symmetry; L_z changes exactly by the shoulder's torque
    (the elbow's is internal), at midpoints (bem, rem) or lumped at the nodes (dmocc)."""
    traj = arm_about_z((0, 0, -9.81), scheme)
    table = balance.momentum_balance(traj)
    assert list(table.attrs["momenta"]) == ["Lz"]  # the shoulder resists every other motion
    info = table.attrs["momenta"]["Lz"]
    assert info["actuators"] == ["shoulder.angle"] and not info["gravity"]
    change = table["Lz"] - table["Lz"].iloc[0]
    assert np.abs(change).max() > 0.05  # the shoulder's torque turns the arm
    np.testing.assert_allclose(table["Lz_impulse"], change, atol=1e-10 * np.abs(change).max())
    # the impulse is that of the shoulder's applied torque: h Σ u_shoulder (η = 1 for the shoulder angle)
    np.testing.assert_allclose(table["Lz_impulse"].iloc[-1], 0.05 * 8 * 1.0, rtol=1e-12)
    fig = plotting.plot_conservation(traj.diagnostics(), trajectory=traj)
    (left,) = _axes_titled(fig, "angular momentum about the origin")
    assert left.get_lines()[0].get_label() == "L_z (rotation about z symmetry): changed by the control on shoulder.angle"


def test_gravity_moment_enters_the_balance(motion):
    """Gravity along -y, shoulder about z: L_z changes by gravity's moment and the shoulder's torque."""
    table = balance.momentum_balance(motion)
    info = table.attrs["momenta"]["Lz"]
    assert info["gravity"] and info["actuators"] == ["shoulder.angle"]
    scale = np.abs(table["Lz_impulse"]).max()
    assert np.abs(table["Lz_balance"]).max() <= 1e-10 * scale


def test_momentum_balance_rejects_systems_without_rigid_motions(motion):
    with pytest.raises(ConfigurationError, match="MultibodySystem"):
        balance.momentum_balance(types.SimpleNamespace(system=None))


# -- style and units ---------------------------------------------------------------
def test_every_figure_is_drawn_in_the_style(motion):
    before = dict(matplotlib.rcParams)
    ax = plotting.plot_controls(motion.t, motion.u, motion.system.actuated)
    assert ax.title.get_fontsize() == pytest.approx(plotting.STYLE["axes.titlesize"])
    assert ax.xaxis.label.get_fontsize() == pytest.approx(plotting.STYLE["axes.labelsize"])
    assert ax.patches[0].get_edgecolor()[:3] == pytest.approx(matplotlib.colors.to_rgb(plotting.COLORS[0]))
    assert ax.xaxis.get_gridlines()[0].get_visible()  # axes.grid
    fig = plotting.plot_conservation(trajectory_table(motion), trajectory=motion)
    assert fig.axes[0].get_lines()[0].get_linewidth() == plotting.STYLE["lines.linewidth"]
    assert fig.axes[0].get_lines()[0].get_color() == plotting.COLORS[0]
    # the style is a context: nothing global changed
    assert {k: v for k, v in matplotlib.rcParams.items() if before[k] != v} == {}
    with plotting.style(**{"font.size": 13}):
        assert matplotlib.rcParams["font.size"] == 13 and matplotlib.rcParams["axes.grid"]


def test_controls_are_labelled_per_actuator_unit():
    t = np.linspace(0, 1, 5)
    u = np.column_stack([np.ones(4), 2 * np.ones(4)])
    # a force on a slide and a torque on an angle: two panels, each with its unit
    ax = plotting.plot_controls(t, u, ["trolley.s", "winch.beta"])
    top, bottom = ax.figure.axes
    assert top.get_ylabel() == "u: applied force [N]" and bottom.get_ylabel() == "u: applied torque [N m]"
    assert [x.get_text() for x in top.get_legend().get_texts()] == ["force on trolley.s [N]"]
    assert [x.get_text() for x in bottom.get_legend().get_texts()] == ["torque on winch.beta [N m]"]
    assert bottom.get_xlabel() == "t [s]"
    # one axes given: one y label listing both units, the legend naming each
    ax = plotting.canvas.new_figure().add_subplot()
    plotting.plot_controls(t, u, ["trolley.s", "winch.beta"], ax=ax)
    assert ax.get_ylabel() == "u: applied generalised force [N, N m]"
    assert [x.get_text() for x in ax.get_legend().get_texts()] == ["force on trolley.s [N]", "torque on winch.beta [N m]"]
    # a spherical joint's and a body's rotations are torques, a body's translation a force
    ax = plotting.plot_controls(t, np.ones((4, 3)), ["wrist.wx", "body.wz", "body.vx"])
    assert [a.get_ylabel() for a in ax.figure.axes] == ["u: applied torque [N m]", "u: applied force [N]"]
    ax = plotting.plot_controls(t, u, ["a", "b"], units="1")
    assert ax.get_ylabel() == "u: applied generalised force [1]"
    # names that are not the library's column names tell no unit ("wrist" is not a body's wx)
    ax = plotting.plot_controls(t, u, ["elbow", "wrist"])
    assert len(ax.figure.axes) == 1 and ax.get_ylabel() == "u: applied generalised force [unit not known]"


def _units(label):
    found = re.findall(r"\[([^\]]+)\]", label)
    assert found, f"no unit in {label!r}"
    return found[-1]


def _check_units(fig):
    for ax in fig.axes:
        if not ax.axison:
            continue
        axes = [ax.xaxis, ax.yaxis] + ([ax.zaxis] if ax.name == "3d" else [])
        for axis in axes:
            if not axis.get_ticklabels():
                continue  # shared with the panel below, or a plane's normal seen edge-on: no ticks shown
            label = axis.get_label_text()
            unit = _units(label)
            if unit in ("m or 1, by row", "each equation's own"):
                continue
            for part in re.split(r", ", unit):
                assert part == "1" or re.fullmatch(r"[A-Za-z()² ]+(/s)?", part), (ax.get_title(), label)
                assert "not known" not in part, (ax.get_title(), label)


@pytest.mark.parametrize("name, scheme", [(name, None) for name in sorted(MODELS)]
                         + [("three-link-arm", "dnco"), ("pendulum", "direct-midpoint")])
def test_every_axis_of_every_model_figure_has_a_unit(name, scheme, tmp_path, monkeypatch):
    """Each model's generic figures (built, not solved: the guess is drawn), every axis labelled
    with a unit in brackets; the 3-D limits contain every drawn point."""
    drawn = []
    save = figures._save

    def keep(fig, path, caption=None, **layout):
        drawn.append(fig)
        return save(fig, path, caption, **layout)

    monkeypatch.setattr(figures, "_save", keep)
    module = importlib.import_module(MODELS[name])
    options = {} if scheme is None else {"scheme": scheme}
    model = module.build(**options) if name in ("satellite", "heavy-top", "satellite-actuator-selection") else \
        module.build(steps=6, **options)
    paths = figures.model_figures(name, model, tmp_path)
    assert len(drawn) == len(paths) >= 2
    if scheme == "direct-midpoint":  # the midpoint state equations do not conserve T + V + W
        (conservation,) = [fig for fig, path in zip(drawn, paths) if path.name.endswith("conservation.png")]
        assert conservation.axes[1].get_title().startswith("DIRECT-MIDPOINT, midpoint state equations:\n"
                                                           "T + V + W not conserved")
    for fig in drawn:
        _check_units(fig)
        for ax in fig.axes:
            if ax.name == "3d":
                limits = np.array([ax.get_xlim(), ax.get_ylim(), ax.get_zlim()])
                pts = _drawn_points(ax)
                assert np.all(pts >= limits[:, 0]) and np.all(pts <= limits[:, 1]), name
            if hasattr(ax, "snapshot_nodes"):  # as written: the labels apart, inside the axes
                assert_labels_apart(ax)
                if ax.name != "3d":
                    limits = np.array([ax.get_xlim(), ax.get_ylim()])
                    pts = np.array(_segments_2d(ax)).reshape(-1, 2)
                    assert np.all(pts >= limits[:, 0]) and np.all(pts <= limits[:, 1]), name
            if ax.get_legend() is not None:  # every entry says what it is: no bare d1, no bare symbol
                for entry in ax.get_legend().get_texts():
                    assert not re.fullmatch(r"d[1-3₁-₃]|[A-Za-z](_\w)?", entry.get_text()), (name, entry.get_text())


def test_paper_figures_are_named_only_for_the_papers_scheme_and_case():
    crane = importlib.import_module(MODELS["crane"])
    assert figures.paper_figures("crane", crane.build(steps=4).dyn)["controls"] == \
        "cf. Fig. 7.3 of the thesis (1: force and torque)"
    assert figures.paper_figures("crane", crane.build(steps=4, scheme="gc").dyn) == {}
    arm = importlib.import_module(MODELS["three-link-arm"])
    for case, figure in (("free", "7.4"), ("bounded", "6.2"), ("damped", "6.3")):
        captions = figures.paper_figures("three-link-arm", arm.build(steps=4, case=case).dyn)
        assert captions["snapshots"] == f"cf. Fig. {figure} of the thesis (snapshots)", case
    assert figures.paper_figures("three-link-arm", arm.build(steps=4, case="time").dyn) == {}


def test_costates_side_by_side_and_difference():
    t = np.linspace(0, 1, 6)
    indirect = np.column_stack([np.sin(t), np.cos(t)])
    direct = indirect + 1e-3
    fig = plotting.plot_costates(indirect, direct, labels=("indirect", "direct"), t=t, names=["p1", "p2"])
    left, right, diff = fig.axes
    assert left.get_title() == "costates: indirect" and right.get_title() == "costates: direct"
    np.testing.assert_array_equal(right.get_lines()[1].get_ydata(), direct[:, 1])
    np.testing.assert_allclose(diff.get_lines()[0].get_ydata(), 1e-3)
    assert "1.00e-03" in diff.get_title()
    # different grids (nodes against intervals): no difference panel
    fig = plotting.plot_costates(indirect, direct[:-1], t=(t, t[:-1]))
    assert len(fig.axes) == 2
    with pytest.raises(ConfigurationError, match="same columns"):
        plotting.plot_costates(indirect, direct[:, :1])
    with pytest.raises(ConfigurationError, match="has 5 rows"):
        plotting.plot_costates(indirect, direct[:-1], t=t)
    with pytest.raises(ConfigurationError, match="labels must be two strings"):
        plotting.plot_costates(indirect, direct, labels=("a",))


# -- animation -------------------------------------------------------------------
def test_animation_has_one_frame_per_node(motion, tmp_path):
    path = plotting.animate(motion.system, motion.q, tmp_path / "arm.gif", fps=20, t=motion.t)
    with Image.open(path) as gif:
        assert gif.n_frames == len(motion.t) == 9


def test_animation_of_rest_keeps_every_frame(tmp_path):
    """All configurations equal: the node counter still makes N+1 distinct frames."""
    system = arm_with_bob()
    q = np.tile(system.q0, (5, 1))
    with Image.open(plotting.animate(system, q, tmp_path / "rest.gif", box=False)) as gif:
        assert gif.n_frames == 5
    with pytest.raises(ConfigurationError, match="end in .gif"):
        plotting.animate(system, q, tmp_path / "rest.mp4")
    with pytest.raises(ConfigurationError, match="fps"):
        plotting.animate(system, q, tmp_path / "rest.gif", fps=0)


# -- model figures -------------------------------------------------------------------
def _assert_pngs(paths):
    assert paths
    for path in paths:
        assert path.suffix == ".png" and path.stat().st_size > 1000
        with Image.open(path) as image:
            assert image.format == "PNG" and min(image.size) > 100


@pytest.fixture(scope="module")
def arm_model(motion):
    """A BEM block of the arm holding the simulated motion (not a registered model)."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.schemes import scheme_block

    m = pyo.ConcreteModel("arm")
    m.dyn = scheme_block("bem", system=motion.system, steps=8, horizon=0.4, controls=motion.u)
    m.dyn.initialize_from(motion)
    return m


def test_model_figures_generic_set(arm_model, tmp_path):
    paths = figures.model_figures("arm", arm_model, tmp_path / "figs")
    assert [p.name for p in paths] == ["arm_snapshots.png", "arm_controls.png", "arm_conservation.png"]
    assert all(p.parent == tmp_path / "figs" for p in paths)
    _assert_pngs(paths)


def test_model_figures_uses_the_models_hook(arm_model, tmp_path, monkeypatch):
    from pyomo_mbdyn.models import MODELS

    calls = []

    def own_figures(model, directory):
        calls.append(model)
        path = directory / "only.png"
        plotting.plot_conservation(model.dyn.diagnostics()).savefig(path)
        return [path]

    module = types.ModuleType("fake_model_module")
    module.MODEL = ModelSpec(description="the arm", build=lambda: arm_model, figures=own_figures)
    monkeypatch.setitem(sys.modules, "fake_model_module", module)
    monkeypatch.setitem(MODELS, "fake", "fake_model_module")
    paths = figures.model_figures("fake", arm_model, tmp_path)
    assert calls == [arm_model] and [p.name for p in paths] == ["only.png"]
    _assert_pngs(paths)
    module.MODEL = dataclasses.replace(module.MODEL, figures=lambda model, directory: [directory / "missing.png"])
    with pytest.raises(ConfigurationError, match="did not write"):
        figures.model_figures("fake", arm_model, tmp_path)


def test_model_figures_rejects_bad_input(arm_model, tmp_path):
    with pytest.raises(ConfigurationError, match="file-name-safe"):
        figures.model_figures("../x", arm_model, tmp_path)
    with pytest.raises(ConfigurationError, match="no scheme block"):
        figures.model_figures("x", object(), tmp_path)


def test_a_constant_discrete_hamiltonian_is_drawn_flat():
    """H^d constant to 1e-12 (the indirect DNCO): the left panel is a flat line on plain ticks
    (no "×10⁻¹² + 5.7×10⁻¹" offset to decode); the right panel carries the deviation."""
    t = np.linspace(0.15, 2.85, 10)
    Hd = 0.5709906887 + 1e-12 * np.sin(t)
    ax = plotting.plot_discrete_hamiltonian(t, Hd, unit="1")
    ax.figure.canvas.draw()
    lo, hi = ax.get_ylim()
    assert lo == pytest.approx(Hd.mean() - 0.05 * Hd.max()) and hi == pytest.approx(Hd.mean() + 0.05 * Hd.max())
    assert ax.yaxis.get_offset_text().get_text() == ""
    right = ax.figure.axes[1]
    np.testing.assert_allclose(right.get_lines()[0].get_ydata(), Hd - Hd[0])
    # a varying H^d keeps its own limits
    ax = plotting.plot_discrete_hamiltonian(t, np.sin(t), unit="1")
    assert ax.get_ylim()[1] < 1.1


def test_code_written_for_3d_snapshots_runs_on_a_planar_one(motion):
    """The notebooks add a target and an obstacle to the snapshots with 3-D calls and look from
    above: on the 2-D axes of a planar motion those draw the projections, and view_init is a no-op.
    A figure without a canvas of its own (``Figure()``) gets its labels placed too."""
    from matplotlib.figure import Figure

    ax = plotting.plot_snapshots(motion.system, motion.q, t=motion.t)
    assert ax.view_init(elev=90, azim=-90) is None and ax.name == "rectilinear"
    marker = ax.scatter(1.0, 1.0, 0, 0, marker="x", s=80, color="k")  # as tutorial.py: scatter(*TARGET, 0, …)
    np.testing.assert_allclose(marker.get_offsets(), [[1.0, 1.0]])
    (circle,) = ax.plot([0.5, 0.6], [0.2, 0.3], [0.0, 0.0], color="k")
    np.testing.assert_allclose(circle.get_xydata(), [[0.5, 0.2], [0.6, 0.3]])
    assert ax.text(0.1, 0.2, 0.0, "post").get_position() == (0.1, 0.2)
    (plain,) = ax.plot([0, 1], [1, 2], "k.")  # 2-D calls stay 2-D
    np.testing.assert_allclose(plain.get_xydata(), [[0, 1], [1, 2]])
    fig = Figure()
    ax = plotting.plot_snapshots(motion.system, motion.q, t=motion.t, count=4, ax=fig.add_subplot())
    assert len(ax.snapshot_labels) == 4


def test_a_long_legend_stands_beside_the_curves():
    """Seven torques (a Panda): the legend beside the panel, inside the figure, never over the curves;
    up to four stay inside the panel."""
    t = np.linspace(0, 1.5, 11)
    names = [f"panda_joint{i}.angle" for i in range(1, 8)]
    ax = plotting.plot_controls(t, np.outer(np.ones(10), np.arange(7.0)), names)
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend, frame = ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer)
    assert legend.x0 >= frame.x1 and legend.x1 <= fig.bbox.x1
    assert [x.get_text() for x in ax.get_legend().get_texts()][0] == "torque on panda_joint1.angle [N m]"
    ax = plotting.plot_controls(t, np.ones((10, 2)), names[:2])
    fig = ax.figure
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
    assert ax.get_window_extent(fig.canvas.get_renderer()).contains(legend.x0 + 1, legend.y0 + 1)


def test_a_conserved_momentum_is_drawn_flat_without_an_offset():
    """The heavy top's L_z is conserved to 1e-16: its panel a flat line on plain ticks (no
    "×10⁻¹³ + 7.1×10⁻²" to decode); a momentum that changes keeps its own limits."""
    from pyomo_mbdyn.models import heavy_top

    model = heavy_top.build()
    trajectory = model.dyn.trajectory()
    fig = plotting.plot_conservation(model.dyn.diagnostics(), trajectory=trajectory)
    fig.canvas.draw()
    (left,) = [ax for ax in fig.axes if ax.get_title().startswith("angular momentum about the origin")]
    L = left.get_lines()[0].get_ydata()
    assert np.ptp(L) < 1e-3 * np.abs(L).max()
    assert left.yaxis.get_offset_text().get_text() == ""
    lo, hi = left.get_ylim()
    assert lo == pytest.approx(L.mean() - 0.05 * np.abs(L).max()) and hi == pytest.approx(L.mean() + 0.05 * np.abs(L).max())
    changing = plotting.canvas.new_figure().add_subplot()
    assert not plotting.canvas.flat_if_constant(changing, [0.0, 1.0, 0.5])
