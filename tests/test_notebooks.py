"""The notebooks in ``notebooks/``: paired sources, stored clean, and every one runs.

Each notebook is a jupytext percent-format file ``notebooks/<name>.py`` (the
source to edit and review) paired with ``notebooks/<name>.ipynb`` (the same
cells, stored without outputs; ``jupytext --sync notebooks/<name>.py``
regenerates it).  The tests below check the pairing and run every ``.ipynb``
from a clean kernel.

The notebooks assert the papers' numbers themselves (J = 533.5767, J₃ =
1336.6779, order 2, …), so a notebook that runs also reproduces its figure's
claims.  The kernel is ``python3`` started with this interpreter (jupyter
replaces a kernel's ``python`` by ``sys.executable``); the first cell of the
check below proves it.

The notebooks run through nbclient rather than the nbmake pytest plugin:
nbmake's test item does not hand the executed notebook back, so the check that
each notebook draws a figure would need a second execution.
"""

import json
import sys
import time
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
SOURCES = sorted(NOTEBOOK_DIR.glob("*.py"))
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
#: a guard against hanging kernels, not a timing test (timings belong in benchmarks/):
#: every notebook runs in well under a minute on a 2-core machine
TIMEOUT_SECONDS = 300
#: notebooks run at once (one kernel per core of a two-core machine; :func:`executed`)
CONCURRENT = 2


def _execute(nb, cwd):
    client = NotebookClient(nb, kernel_name="python3", timeout=TIMEOUT_SECONDS,
                            resources={"metadata": {"path": str(cwd)}})
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


def _cells(nb):
    return [(cell.cell_type, cell.source) for cell in nb.cells]


def test_every_notebook_is_a_pair_of_py_and_ipynb():
    names = {p.stem for p in SOURCES}
    assert {"sphere", "satellite-spin", "heavy-top", "tutorial", "three-link-arm", "three-link-arm-dnco",
            "crane", "pendulum", "particle", "costates", "pitcher", "satellite", "satellite-underactuated"} <= names
    assert names == {p.stem for p in NOTEBOOKS}, "every notebooks/<name>.py needs its <name>.ipynb and back"


@pytest.mark.parametrize("path", SOURCES, ids=[p.stem for p in SOURCES])
def test_source_is_percent_format_paired_with_ipynb(path):
    nb = jupytext.read(path)
    assert nb.metadata["jupytext"]["text_representation"]["format_name"] == "percent"
    assert nb.metadata["jupytext"]["formats"] == "ipynb,py:percent"
    assert nb.metadata["kernelspec"]["name"] == "python3"


@pytest.mark.parametrize("path", SOURCES, ids=[p.stem for p in SOURCES])
def test_ipynb_is_in_sync_with_its_py(path):
    source = jupytext.read(path)
    paired = nbformat.read(path.with_suffix(".ipynb"), as_version=4)
    assert _cells(paired) == _cells(source), f"run: jupytext --sync notebooks/{path.name}"


def test_notebooks_are_stored_without_outputs():
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        assert nb.metadata.kernelspec.name == "python3"
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: clear the outputs"


def test_kernel_is_this_interpreter(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import sys, json, pyomo_mbdyn; print(json.dumps([sys.prefix, pyomo_mbdyn.__file__]))")])
    _execute(nb, tmp_path)
    prefix, package = json.loads(nb.cells[0].outputs[0]["text"])
    import pyomo_mbdyn

    assert prefix == sys.prefix and package == pyomo_mbdyn.__file__


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """Every notebook run from a clean kernel, :data:`CONCURRENT` at a time: ``{name: (notebook,
    the exception that stopped it or None)}``.  Each kernel is a process of its own, so running
    two at once changes no verdict; it halves the notebooks' wall time on two cores."""
    import asyncio

    async def run_all():
        gate = asyncio.Semaphore(CONCURRENT)

        async def run(path):
            async with gate:
                nb = nbformat.read(path, as_version=4)
                client = NotebookClient(nb, kernel_name="python3", timeout=TIMEOUT_SECONDS,
                                        resources={"metadata": {"path": str(tmp_path_factory.mktemp(path.stem))}})
                try:
                    await client.async_execute()
                except Exception as err:  # CellExecutionError on the first failing cell, a dead kernel, …
                    return path.stem, nb, err
                return path.stem, nb, None

        # the longest first, so that the other notebooks run beside it
        ordered = sorted(NOTEBOOKS, key=lambda p: p.stem != "studies")
        return await asyncio.gather(*(run(path) for path in ordered))

    return {name: (nb, err) for name, nb, err in asyncio.run(run_all())}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, executed):
    nb, error = executed[path.stem]
    if error is not None:
        raise error
    errors = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs
              if out.output_type == "error"]
    assert not errors
    images = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs
              if "image/png" in out.get("data", {}) or "image/gif" in out.get("data", {})]
    assert images, f"{path.name} drew no figure"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_docs_show_the_notebook_executed(path):
    """docs/executed/<name>.ipynb is this notebook run (the same cells, with their outputs and
    at least one figure): the documentation renders it (docs/conf.py shows only a current copy)."""
    copy = path.parents[1] / "docs" / "executed" / path.name
    assert copy.exists(), f"run: python docs/execute_notebooks.py {path.stem}"
    executed = nbformat.read(copy, as_version=4)
    assert _cells(executed) == _cells(nbformat.read(path, as_version=4)), \
        f"docs/executed/{path.name} is stale; run: python docs/execute_notebooks.py {path.stem}"
    images = [out for cell in executed.cells if cell.cell_type == "code" for out in cell.outputs
              if "image/png" in out.get("data", {}) or "image/gif" in out.get("data", {})]
    assert images and not [out for cell in executed.cells if cell.cell_type == "code" for out in cell.outputs
                           if out.output_type == "error"]
