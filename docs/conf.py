"""Sphinx configuration of the pyomo_mbdyn documentation.

Build with ``make -C docs html`` (or ``sphinx-build -W --keep-going -b html docs
docs/_build/html``) after ``pip install '.[docs]'``: the API pages are generated
by autodoc from the *installed* package, the notebooks are rendered by myst-nb without executing
them: each from its executed copy ``docs/executed/<name>.ipynb`` (its figures and tables;
``python docs/execute_notebooks.py`` makes them) while that copy's cells equal the
notebook's, else as stored, without outputs.
"""

import filecmp
import shutil
from pathlib import Path

import pyomo_mbdyn

HERE = Path(__file__).resolve().parent

project = "pyomo_mbdyn"
author = "the pyomo_mbdyn developers"
copyright = "2026, the pyomo_mbdyn developers"
release = version = pyomo_mbdyn.__version__

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax"]
exclude_patterns = ["_build", "executed", "**/.ipynb_checkpoints", "Thumbs.db", ".DS_Store"]
suppress_warnings = ["myst.header"]  # README.md and notebooks start at their own heading levels

# --- API reference: autodoc + napoleon (numpydoc-style sections) ------------------------
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "description"
autodoc_inherit_docstrings = False  # Pyomo's own docstrings stay in Pyomo's documentation
napoleon_google_docstring = True
napoleon_numpy_docstring = True

# --- Markdown and notebooks: myst-nb, never executed here --------------------------------
nb_execution_mode = "off"
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3

html_theme = "furo"
html_title = f"pyomo_mbdyn {release}"


def current_executed_copy(notebook, executed=HERE / "executed"):
    """``docs/executed/<name>.ipynb`` if it holds exactly the cells of ``notebook`` (run from
    them), else None: a stale copy is never shown."""
    import nbformat

    copy = executed / notebook.name
    if not copy.exists():
        return None
    cells = lambda nb: [(c.cell_type, c.source) for c in nb.cells]  # noqa: E731
    same = cells(nbformat.read(copy, as_version=4)) == cells(nbformat.read(notebook, as_version=4))
    return copy if same else None


def _sync_notebooks(source=HERE.parent / "notebooks", target=HERE / "notebooks"):
    """Copy each notebook into ``docs/notebooks/``: its current executed copy (with outputs)
    where there is one, else ``notebooks/<name>.ipynb`` as stored (output-free).

    Sphinx reads only files below its source directory; a copy (rather than a
    symlink) works in every checkout, sdist and file system.  Stale copies are
    removed, unchanged ones kept (so incremental builds stay incremental).
    """
    target.mkdir(exist_ok=True)
    wanted = {p.name: current_executed_copy(p) or p for p in sorted(source.glob("*.ipynb"))}
    for old in target.glob("*.ipynb"):
        if old.name not in wanted:
            old.unlink()
    for name, path in wanted.items():
        copy = target / name
        if not copy.exists() or not filecmp.cmp(path, copy, shallow=False):
            shutil.copyfile(path, copy)


_sync_notebooks()
