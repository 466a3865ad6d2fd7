"""``pyomo-mbdyn run MODEL --plot DIR``: solved models write their figures.

Every model is solved through the command line (coarse grids where that
keeps the run short).  A model whose solve takes minutes would be listed
outside ``CHEAP`` and solved only with ``PYOMO_MBDYN_SLOW=1``; its figures
would be drawn from the built model at its initial guess.
"""

import importlib
import json
import os
from pathlib import Path

import pytest
from PIL import Image

from pyomo_mbdyn.cli import build_parser, main, run_model
from pyomo_mbdyn.models import MODELS
from pyomo_mbdyn.figures import model_figures

#: models whose solve takes seconds, with the steps the test runs them at
CHEAP = {"sphere": 20, "satellite-spin": 5, "heavy-top": None,  # None: the model's default
         "three-link-arm": 10, "crane": 20, "pendulum": None, "particle": None,
         "satellite": None, "satellite-underactuated": None, "pitcher": 8}
SLOW = bool(os.environ.get("PYOMO_MBDYN_SLOW"))


def _assert_pngs(paths, directory):
    assert paths, "no figures written"
    for path in map(Path, paths):
        assert path.parent.resolve() == Path(directory).resolve()
        assert path.suffix == ".png" and path.stat().st_size > 1000, path
        with Image.open(path) as image:
            assert image.format == "PNG"


@pytest.mark.parametrize("name", sorted(MODELS))
def test_run_with_plot_writes_figures(name, tmp_path, capsys):
    directory = tmp_path / "figures"
    module = importlib.import_module(MODELS[name])
    if name not in CHEAP and not SLOW:
        model = module.build()
        _assert_pngs(model_figures(name, model, directory), directory)
        return
    steps = [] if SLOW or CHEAP.get(name) is None else ["--steps", str(CHEAP[name])]
    assert main(["run", name, "--json", "--plot", str(directory), *steps]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["model"] == name and result["status"] in ("optimal", "locallyOptimal")
    _assert_pngs(result["figures"], directory)
    assert sorted(result["figures"]) == sorted(str(p) for p in directory.iterdir())
    if not hasattr(module, "figures"):  # the generic set
        names = {Path(p).name for p in result["figures"]}
        assert f"{name}_conservation.png" in names
        # bodies in space are drawn as snapshots; coordinate systems as coordinates
        assert len({f"{name}_snapshots.png", f"{name}_coordinates.png"} & names) == 1


def test_table_output_lists_the_figures(tmp_path, capsys):
    assert main(["run", "sphere", "--steps", "20", "--plot", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    listed = [line.split()[-1] for line in out.splitlines() if line.startswith("figure ")]
    assert sorted(listed) == sorted(str(tmp_path / f"sphere_{kind}.png")
                                    for kind in ("snapshots", "controls", "conservation"))
    assert "objective" in out


def test_plot_option_and_run_model_contract():
    args = build_parser().parse_args(["run", "sphere", "--plot", "out"])
    assert args.plot == "out"
    assert build_parser().parse_args(["run", "sphere"]).plot is None


def test_run_model_still_returns_the_dictionary(monkeypatch):
    """run_model keeps its contract; the model comes from solve_model (used by --plot)."""
    sentinel = ({"model": "sphere", "steps": 3}, object())
    calls = []
    monkeypatch.setattr("pyomo_mbdyn.cli.solve_model", lambda *args: calls.append(args) or sentinel)
    assert run_model("sphere", steps=3) is sentinel[0]
    assert calls == [("sphere", None, 3, None, None)]
