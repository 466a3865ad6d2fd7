"""``pyomo-mbdyn run MODEL --plot DIR``: solved models write their figures.

Every model is solved through the command line by default, on a coarse grid
where that keeps the run short (``CHEAP``); the slow set solves those models at
their own N as well.
"""

import json
from pathlib import Path

import pytest
from PIL import Image

from pyomo_mbdyn.cli import main, run_model
from pyomo_mbdyn.models import MODELS
from pyomo_mbdyn.plugins import model_spec

#: steps the default run solves each model at (None: the model's own N)
CHEAP = {"sphere": 20, "satellite-spin": 5, "heavy-top": None, "three-link-arm": 10, "crane": 20,
         "pendulum": None, "particle": None, "satellite": None, "satellite-underactuated": None,
         "pitcher": 8, "minimum-time-mass": None, "satellite-actuator-selection": None, "four-bar": None,
         "slider-crank": None, "panda": 20, "ur5": 20, "space-robot": 4}


def _assert_pngs(paths, directory):
    assert paths, "no figures written"
    for path in map(Path, paths):
        assert path.parent.resolve() == Path(directory).resolve()
        assert path.suffix == ".png" and path.stat().st_size > 1000, path
        with Image.open(path) as image:
            assert image.format == "PNG"


def _run_with_plot(name, directory, steps, capsys):
    argv = ["run", name, "--json", "--plot", str(directory)]
    if steps is not None:
        argv += ["--steps", str(steps)]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["model"] == name and result["status"] in ("optimal", "locallyOptimal")
    _assert_pngs(result["figures"], directory)
    assert sorted(result["figures"]) == sorted(str(p) for p in directory.iterdir())
    if model_spec(name).figures is None:  # the generic set
        names = {Path(p).name for p in result["figures"]}
        assert f"{name}_conservation.png" in names
        # bodies in space are drawn as snapshots; coordinate systems as coordinates
        assert len({f"{name}_snapshots.png", f"{name}_coordinates.png"} & names) == 1


def test_every_model_has_a_default_grid():
    assert sorted(CHEAP) == sorted(MODELS)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_run_with_plot_writes_figures(name, tmp_path, capsys):
    _run_with_plot(name, tmp_path / "figures", CHEAP[name], capsys)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(n for n, steps in CHEAP.items() if steps is not None))
def test_run_with_plot_at_the_models_own_steps(name, tmp_path, capsys):
    _run_with_plot(name, tmp_path / "figures", None, capsys)


def test_table_output_lists_the_figures(tmp_path, capsys):
    assert main(["run", "sphere", "--steps", "20", "--plot", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    listed = [line.split()[-1] for line in out.splitlines() if line.startswith("figure ")]
    assert sorted(listed) == sorted(str(tmp_path / f"sphere_{kind}.png")
                                    for kind in ("snapshots", "controls", "conservation"))
    assert "objective" in out


def test_figures_are_drawn_only_with_plot(tmp_path, capsys, monkeypatch):
    """Without --plot nothing is drawn and the JSON has no "figures"; with it,
    model_figures receives the solved model and the directory, and its paths are printed."""
    solved = object()
    monkeypatch.setattr("pyomo_mbdyn.cli.run_commands.solve_model",
                        lambda *args, **kwds: ({"model": "sphere", "status": "optimal"}, solved))
    calls = []

    def model_figures(name, model, directory):
        calls.append((name, model, directory))
        return [Path(directory) / "sphere_controls.png"]

    monkeypatch.setattr("pyomo_mbdyn.figures.model_figures", model_figures)
    assert main(["run", "sphere", "--json"]) == 0
    assert "figures" not in json.loads(capsys.readouterr().out) and calls == []
    assert main(["run", "sphere", "--json", "--plot", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["figures"] == [str(tmp_path / "sphere_controls.png")]
    assert calls == [("sphere", solved, str(tmp_path))]


def test_run_model_passes_steps_and_build_options_to_the_model():
    """run_model returns the result dictionary of a model built with ``steps`` and ``options``:
    the sphere's lifted form adds the node configurations (12 per step) as unknowns and
    their definitions as equations (DMOCC §7.1's minimal form: 12 unknowns, 6 rows per step)."""
    minimal = run_model("sphere", steps=20, options={"configurations": "minimal"})
    lifted = run_model("sphere", steps=20)
    assert minimal["steps"] == lifted["steps"] == 20
    assert (minimal["n_variables"], minimal["n_constraints"]) == (20 * 12, 20 * 6 + 12)
    assert lifted["n_variables"] - minimal["n_variables"] == 20 * 12
    assert lifted["n_constraints"] - minimal["n_constraints"] == 20 * 12
    assert minimal["status"] == lifted["status"] == "optimal"


def _label_boxes_apart(ax):
    """The snapshot labels as drawn: their boxes (``get_window_extent``) inside the axes and
    overlapping nowhere.  Returns their texts."""
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    boxes = [(text.get_text(), text.get_window_extent(renderer)) for text in ax.texts]
    for i, (text, box) in enumerate(boxes):
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1, text
        for other, seen in boxes[:i]:
            assert not box.overlaps(seen), f"{text!r} overlaps {other!r}: {box} and {seen}"
    return sorted(text for text, _ in boxes)


@pytest.mark.parametrize("name, steps, plane", [("three-link-arm", 10, "the x–y plane (z = 0 m)"),
                                                ("four-bar", None, "the x–y plane (z = 0 m)"),
                                                ("heavy-top", None, None)])
def test_solved_snapshots_read(name, steps, plane, tmp_path, capsys, monkeypatch):
    """The snapshots ``run --plot`` writes for a solved model: a planar motion on 2-D axes in its
    plane, a spinning top in 3-D; the time labels (which printed over one another for the arm and
    the four-bar) measured as drawn: apart, inside the axes, every snapshot labelled."""
    from pyomo_mbdyn import figures

    drawn = {}
    save = figures._save

    def keep(fig, path, caption=None, **layout):
        drawn[Path(path).name] = fig
        return save(fig, path, caption, **layout)

    monkeypatch.setattr(figures, "_save", keep)
    _run_with_plot(name, tmp_path, steps, capsys)
    (ax,) = [a for a in drawn[f"{name}_snapshots.png"].axes if hasattr(a, "snapshot_nodes")]
    assert (ax.name == "3d") == (plane is None)
    if plane is not None:
        assert ax.snapshot_plane.name == plane and not ax.snapshot_plane.projected
        assert ax.get_aspect() == 1.0
    texts = _label_boxes_apart(ax)
    assert len(texts) == len(ax.snapshot_nodes) == 6
