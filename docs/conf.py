"""Sphinx configuration of the pyomo_mbdyn documentation.

Build with ``make -C docs html`` (or ``sphinx-build -W --keep-going -b html docs
docs/_build/html``) after ``pip install '.[docs]'``: the API pages are generated
by autodoc from the *installed* package (``pyomo_mbdyn.models`` exists only in an
installed or editable package), the notebooks are rendered by myst-nb as they are
stored, without outputs and without executing them.
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
exclude_patterns = ["_build", "_generated", "**/.ipynb_checkpoints", "Thumbs.db", ".DS_Store"]
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


def _sync_notebooks(source=HERE.parent / "notebooks", target=HERE / "notebooks"):
    """Copy ``notebooks/*.ipynb`` (the stored, output-free notebooks) into ``docs/notebooks/``.

    Sphinx reads only files below its source directory; a copy (rather than a
    symlink) works in every checkout, sdist and file system.  Stale copies are
    removed, unchanged ones kept (so incremental builds stay incremental).
    """
    target.mkdir(exist_ok=True)
    wanted = {p.name: p for p in sorted(source.glob("*.ipynb"))}
    for old in target.glob("*.ipynb"):
        if old.name not in wanted:
            old.unlink()
    for name, path in wanted.items():
        copy = target / name
        if not copy.exists() or not filecmp.cmp(path, copy, shallow=False):
            shutil.copyfile(path, copy)


def _write_generated(target=HERE / "_generated"):
    """Pages generated from the code, included by the guide (``_generated/schemes.md``: the
    registry's table, :func:`pyomo_mbdyn.schemes.scheme_table`); rewritten only when changed."""
    from pyomo_mbdyn.schemes import scheme_table

    target.mkdir(exist_ok=True)
    path = target / "schemes.md"
    text = scheme_table() + "\n"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


_sync_notebooks()
_write_generated()
