"""Figures: what each plotting function draws, checked on the drawn artists."""

import sys
import types

import numpy as np
import pytest
from PIL import Image

from pyomo_mbdyn import figures, plotting
from pyomo_mbdyn.diagnostics import trajectory_table
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.mechanics import MultibodySystem, PointMass, Revolute, RigidBody, Spherical
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
    ax = plotting.plot_snapshots(system, motion.q, times=[0, 4, 8])
    assert ax.name == "3d" and ax.snapshot_nodes == [0, 4, 8]
    # per snapshot: 2 rods × (12 box edges + 3 directors); joints: shoulder 1 + 1, elbow 2 + 1, wrist 2 + 1
    assert len(_segments(ax)) == 3 * (2 * 15 + 8)
    # the director lines of the last snapshot end at φ + a_i d_i
    (_, phi, D, a) = plotting.body_geometry(system, motion.q[8])[0]
    ends = {tuple(np.round(s[1], 9)) for s in _segments(ax)}
    for i in range(3):
        assert tuple(np.round(phi + a[i] * D[i], 9)) in ends
    # cubic limits that contain all drawn points
    limits = np.array([ax.get_xlim(), ax.get_ylim(), ax.get_zlim()])
    np.testing.assert_allclose(np.diff(limits, axis=1).ravel(), np.diff(limits[0]).item())
    pts = np.array([p for s in _segments(ax) for p in s])
    assert np.all(pts >= limits[:, 0] - 1e-12) and np.all(pts <= limits[:, 1] + 1e-12)
    assert "k = 0, 4, 8" in ax.get_title()


def test_snapshots_by_time_single_configuration_and_offset(motion):
    system = motion.system
    ax = plotting.plot_snapshots(system, motion.q, times=[0.0, 0.21, 0.4], t=motion.t)
    assert ax.snapshot_nodes == [0, 4, 8]
    ax = plotting.plot_snapshots(system, system.q0, box=False)
    assert ax.snapshot_nodes == [0] and len(_segments(ax)) == 2 * 3 + 8
    ax = plotting.plot_snapshots(system, motion.q, times=[0, 8], offset=(0, 0, 5))
    assert max(p[2] for s in _segments(ax) for p in s) == pytest.approx(5.0, abs=1e-4)  # rods: a_3 ≈ 3e-5
    assert "moved by" in ax.get_title()


def test_auto_offset_spreads_motion_in_place():
    body = RigidBody("wheel", 1.0, (0.5, 0.3, 0.3))
    system = MultibodySystem("wheel")
    system.add_bodies(body)
    traj = simulate(system, system.q0, system.null_space(system.q0) @ [0, 0, 0, 3.0, 0, 0], h=0.1, steps=4)
    ax = plotting.plot_snapshots(system, traj.q, offset="auto")
    xs = [p[0] for s in _segments(ax) for p in s]
    assert max(xs) - min(xs) > 4 * 2 * np.sqrt(3 * body.euler.max() / body.mass)


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
        plotting.plot_snapshots(system, motion.q, ax=plotting._new_figure().add_subplot())
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
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["shoulder.angle", "elbow.angle"]
    with pytest.raises(ConfigurationError, match="N\\+1 node times"):
        plotting.plot_controls(motion.t[:-1], motion.u)
    with pytest.raises(ConfigurationError, match="no columns"):
        plotting.plot_controls(motion.t, np.zeros((8, 0)))
    with pytest.raises(ConfigurationError, match="names has 1"):
        plotting.plot_controls(motion.t, motion.u, ["x"])


def test_coordinates_over_time(motion):
    ax = plotting.plot_coordinates(motion.t, motion.q[:, :2], ["upper.x", "upper.y"])
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["upper.x", "upper.y"]
    np.testing.assert_array_equal(lines[1].get_xdata(), motion.t)
    np.testing.assert_array_equal(lines[1].get_ydata(), motion.q[:, 1])
    with pytest.raises(ConfigurationError, match="N\\+1 node times"):
        plotting.plot_coordinates(motion.t[:-1], motion.q)
    with pytest.raises(ConfigurationError, match="names has 1"):
        plotting.plot_coordinates(motion.t, motion.q[:, :2], ["x"])


def test_conservation_panels_show_the_table(motion):
    table = trajectory_table(motion)
    fig = plotting.plot_conservation(table)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["energy: T + V + W + D = E", "E − E₀", "momentum deviation",
                                               "constraint residual max |Φ(q_k)|"]
    lines = {line.get_label(): line.get_ydata() for line in axes[0].get_lines()}
    assert set(lines) == {"T", "V", "W", "D", "E"}
    np.testing.assert_array_equal(lines["V"], table["V"])
    np.testing.assert_array_equal(axes[1].get_lines()[0].get_ydata(), table["E"] - table["E"].iloc[0])
    momentum = {line.get_label(): line.get_ydata() for line in axes[2].get_lines()}
    np.testing.assert_array_equal(momentum["Lz − Lz(0)"], table["Lz"] - table["Lz"].iloc[0])
    # without momentum and residual columns: two panels
    fig = plotting.plot_conservation(table[["t", "T", "V", "E"]])
    assert len([ax for ax in fig.axes if ax.get_visible()]) == 2
    with pytest.raises(ConfigurationError, match=r"lacks the columns \['E'\]"):
        plotting.plot_conservation(table[["t", "T", "V"]])
    with pytest.raises(TypeError, match="DataFrame"):
        plotting.plot_conservation(table.to_numpy())


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
    module.figures = own_figures
    monkeypatch.setitem(sys.modules, "fake_model_module", module)
    monkeypatch.setitem(MODELS, "fake", "fake_model_module")
    paths = figures.model_figures("fake", arm_model, tmp_path)
    assert calls == [arm_model] and [p.name for p in paths] == ["only.png"]
    _assert_pngs(paths)
    module.figures = lambda model, directory: [directory / "missing.png"]
    with pytest.raises(ConfigurationError, match="did not write"):
        figures.model_figures("fake", arm_model, tmp_path)


def test_model_figures_rejects_bad_input(arm_model, tmp_path):
    with pytest.raises(ConfigurationError, match="file-name-safe"):
        figures.model_figures("../x", arm_model, tmp_path)
    with pytest.raises(ConfigurationError, match="no scheme block"):
        figures.model_figures("x", object(), tmp_path)
