"""The documentation generated from the code builds without a warning, and says what it should.

``sphinx-build -W --keep-going`` of ``docs/`` into a fresh directory (about
10 s): the API pages (autodoc + napoleon, the scheme blocks' options from
their ``ConfigDict``), the notebooks rendered by myst-nb from their executed copies
(docs/executed: figures and tables, not executed here), README.md as the landing page.  And every function and class a module
exports (its ``__all__``) has a docstring of its own, and every public one an
example or a notebook that calls it (issue 19).
"""

import importlib
import inspect
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import pyomo_mbdyn
from pyomo_mbdyn import schemes
from pyomo_mbdyn.models import MODELS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: the modules with a page of their own in docs/api/ (docs/api/<name>.rst)
PUBLIC = ["mechanics", "schemes", "discretization", "simulate", "ocp", "solvers", "studies",
          "diagnostics", "balance", "joint_space", "diagnosis", "trajectory", "results", "plotting", "errors"]


@pytest.fixture(scope="module")
def html(tmp_path_factory):
    """The built site's directory (a fresh one: nothing cached from an earlier build)."""
    out = tmp_path_factory.mktemp("docs") / "html"
    # from a neutral directory: ``python -m`` puts the working directory first on sys.path, and the
    # checkout's pyomo_mbdyn/ would be imported instead of the installed package
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           str(DOCS), str(out)], capture_output=True, text=True, timeout=600, cwd=out.parent)
    assert done.returncode == 0, f"sphinx-build failed:\n{done.stdout}\n{done.stderr}"
    assert "WARNING" not in done.stderr and "ERROR" not in done.stderr, done.stderr
    return out


def _page(html, name):
    path = html / name
    assert path.is_file(), f"{name} was not generated"
    return path.read_text(encoding="utf-8")


def _sections(page):
    """``{object id: its HTML}`` for every documented object of an API page."""
    parts = re.split(r'<dt class="sig sig-object py" id="([\w.]+)">', page)
    return dict(zip(parts[1::2], parts[2::2]))


def test_landing_page_is_the_readme(html):
    page = _page(html, "index.html")
    assert "Structure-preserving optimal control of multibody systems" in page
    assert "Quick start" in page and "guide/index.html" in page
    assert "Unreleased" in _page(html, "changelog.html")


def test_api_pages_cover_the_public_modules(html):
    for name in PUBLIC:
        assert f".. automodule:: pyomo_mbdyn.{name}\n" in (DOCS / "api" / f"{name}.rst").read_text()
        module = importlib.import_module(f"pyomo_mbdyn.{name}")
        documented = {key.rsplit(".", 1)[-1] for key in _sections(_page(html, f"api/{name}.html"))}
        classes_and_functions = {n for n in module.__all__
                                 if inspect.isclass(getattr(module, n)) or inspect.isfunction(getattr(module, n))}
        elsewhere = {"schemes": {"HamiltonianSystem"}, "simulate": {"Trajectory"}, "results": {"Trajectory"}}
        missing = classes_and_functions - documented - elsewhere.get(name, set())
        assert not missing, f"pyomo_mbdyn.{name}: {sorted(missing)} exported but not on its page"


def test_every_model_has_its_section(html):
    sources = (DOCS / "api" / "models.rst").read_text()
    page = _page(html, "api/models.html")
    for module in MODELS.values():
        assert f".. automodule:: {module}\n" in sources, f"add {module} to docs/api/models.rst"
        assert f'id="{module}.build"' in page, f"{module}.build is not documented"


def test_scheme_blocks_list_their_options(html):
    sections = _sections(_page(html, "api/schemes.html"))
    blocks = [n for n in schemes.__all__ if n.endswith("Block") and hasattr(getattr(schemes, n), "CONFIG")]
    assert {"BEMBlock", "REMBlock", "DMOCCBlock"} <= set(blocks)
    for name in blocks:
        section = sections[f"pyomo_mbdyn.schemes.{name}"]
        for option in getattr(schemes, name).CONFIG:
            assert f"<strong>{option}</strong>" in section, f"{name}: option {option!r} not documented"
    assert "<strong>contravariant</strong>" in sections["pyomo_mbdyn.schemes.BEMBlock"]


@pytest.mark.parametrize("notebook", sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb")))
def test_notebook_is_rendered_with_its_outputs(html, notebook):
    cells = json.loads((ROOT / "notebooks" / f"{notebook}.ipynb").read_text(encoding="utf-8"))["cells"]
    title = next(line for cell in cells if cell["cell_type"] == "markdown"
                 for line in "".join(cell["source"]).splitlines() if line.startswith("# "))
    page = _page(html, f"notebooks/{notebook}.html")
    heading = re.search(r"<h1>(.*?)<a class=\"headerlink\"", page, re.S)
    assert heading and re.sub(r"<[^>]+>", "", heading.group(1)).strip() == title[2:].strip()
    assert 'class="cell docutils container"' in page  # code cells are there ...
    assert "cell_output" in page and "<img" in page  # ... with their outputs and figures (docs/executed)
    assert f'href="notebooks/{notebook}.html"' in _page(html, "notebooks.html")


def _exporting_modules():
    """Every module of the package, its models included, that declares ``__all__``."""
    names = {info.name for info in pkgutil.walk_packages(pyomo_mbdyn.__path__, "pyomo_mbdyn.")}
    for name in sorted(names):
        module = importlib.import_module(name)
        if hasattr(module, "__all__"):
            yield module


def test_every_export_has_a_docstring():
    modules = list(_exporting_modules())
    names = {m.__name__ for m in modules}
    assert {f"pyomo_mbdyn.{p}" for p in PUBLIC} | set(MODELS.values()) <= names
    undocumented = []
    for module in modules:
        for name in module.__all__:
            obj = getattr(module, name)
            if (inspect.isclass(obj) or callable(obj)) and not (obj.__doc__ or "").strip():
                undocumented.append(f"{module.__name__}.{name}")
    assert not undocumented, f"exported without a docstring: {undocumented}"


#: the modules whose public functions and classes need an example (issue 19)
EXAMPLE_MODULES = ["pyomo_mbdyn"] + [f"pyomo_mbdyn.{name}" for name in PUBLIC]


def test_every_public_function_has_an_example_or_a_notebook():
    """Every public class and function (``__all__`` of the package and of its public
    modules; exceptions aside) has an example in its docstring (``>>>``, an
    ``Examples`` section or a ``::`` literal block) or is named in a notebook
    (``notebooks/*.py``).  A re-export is covered by its defining object."""
    notebooks = " ".join(p.read_text(encoding="utf-8") for p in (ROOT / "notebooks").glob("*.py"))
    missing = []
    for module_name in EXAMPLE_MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if inspect.isclass(obj) and issubclass(obj, BaseException):
                continue
            doc = inspect.getdoc(obj) or ""
            if ">>>" in doc or "Examples" in doc or "::\n" in doc:
                continue
            if re.search(r"\b%s\b" % re.escape(name), notebooks):
                continue
            missing.append(f"{module_name}.{name}")
    assert not missing, f"public functions and classes without a docstring example or a notebook: {missing}"


def test_user_guide_is_rendered_with_the_registry_s_table(html):
    guide = _page(html, "guide/index.html")
    for name in ("modelling", "schemes", "problems", "results", "studies", "solvers", "extending",
                 "bibliography"):
        assert f'href="{name}.html"' in guide, f"the user guide does not link {name}"
        _page(html, f"guide/{name}.html")
    table = _page(html, "guide/schemes.html")
    for name in schemes.SCHEMES:
        assert f'<span class="pre">{name}</span>' in table, f"the guide's table of schemes lacks {name}"
