"""The distributions a user gets: the sdist and the wheel, built, checked and installed.

One isolated build (``python -m build``: the sdist, then the wheel built *from
the sdist*, so a file missing from the sdist breaks the wheel) of a copy of the
source tree, so the checkout gets no ``build/`` or ``*.egg-info`` of its own;
``twine check``; the contents of both archives; and the wheel installed by pip
into a fresh virtual environment (no system site packages; dependencies from
the pip cache or PyPI, as for a user), whose ``pyomo-mbdyn`` then runs from a
directory outside the checkout.  About 40 s, most of it pip installing the
dependencies.
"""

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import pyomo_mbdyn

ROOT = Path(__file__).resolve().parents[1]
#: what a checkout may hold beside its sources (environments, caches, build output)
NOT_SOURCES = shutil.ignore_patterns(
    ".git", ".venv*", ".ci-venv", "build", "dist", "*.egg-info", "__pycache__", "*.py[cod]",
    ".pytest_cache", ".hypothesis", "_build", ".ipynb_checkpoints",
)


def _version_in_source():
    """``__version__`` as written in ``pyomo_mbdyn/_version.py`` (the one version source)."""
    namespace = {}
    exec((ROOT / "pyomo_mbdyn" / "_version.py").read_text(), namespace)
    return namespace["__version__"]


def _run(*command, cwd=None, env=None, timeout=600):
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, timeout=timeout,
                          capture_output=True, text=True)
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    """(sdist, wheel) built from a copy of the source tree."""
    tmp = tmp_path_factory.mktemp("packaging")
    source, out = tmp / "source", tmp / "dist"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES, symlinks=True)
    _run(sys.executable, "-m", "build", "--outdir", out, source)
    sdists, wheels = sorted(out.glob("*.tar.gz")), sorted(out.glob("*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, sorted(out.iterdir())
    return sdists[0], wheels[0]


def _sdist_names(sdist):
    with tarfile.open(sdist) as archive:
        top, names = f"pyomo_mbdyn-{_version_in_source()}/", archive.getnames()
    assert all(name.startswith(top) or name == top.rstrip("/") for name in names)
    return {name[len(top):] for name in names if name.startswith(top)}


def _wheel_metadata(wheel):
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read(f"pyomo_mbdyn-{_version_in_source()}.dist-info/METADATA").decode()
    return Parser().parsestr(text)


def test_version_has_one_source():
    version = _version_in_source()
    assert pyomo_mbdyn.__version__ == version
    assert importlib.metadata.version("pyomo_mbdyn") == version
    shown = _run(sys.executable, "-m", "pip", "show", "pyomo_mbdyn")
    assert f"\nVersion: {version}\n" in f"\n{shown}"
    assert "version = attr: pyomo_mbdyn._version.__version__" in (ROOT / "setup.cfg").read_text()


def test_distributions_pass_twine_check(dists):
    _run(sys.executable, "-m", "twine", "check", "--strict", *dists)


def test_sdist_is_the_source_release(dists):
    names = _sdist_names(dists[0])
    expected = {"LICENSE", "CHANGELOG.md", "README.md", "MANIFEST.in", "setup.cfg", "pyproject.toml",
                "pyomo_mbdyn/_version.py", "pyomo_mbdyn/solvers/ampl_driver.py",
                "docs/conf.py", "docs/Makefile", "docs/index.md", "benchmarks/README.md",
                "tests/test_packaging.py", "tests/conftest.py"}
    for folder, patterns in {"pyomo_mbdyn/models": ["*.py"], "notebooks": ["*.py", "*.ipynb"], "tests": ["test_*.py"]}.items():
        for pattern in patterns:
            expected |= {p.relative_to(ROOT).as_posix() for p in (ROOT / folder).glob(pattern)}
    assert expected - names == set()
    stray = {n for n in names if n.endswith((".pyc", ".nl", ".sol"))
             or n.split("/")[0] in {".git", ".venv", ".ci", "build", "dist"}
             or n.startswith(("docs/_build", "docs/notebooks/"))}
    assert stray == set()


def test_wheel_holds_package_models_and_driver(dists):
    with zipfile.ZipFile(dists[1]) as archive:
        names = set(archive.namelist())
    models = {f"pyomo_mbdyn/models/{p.name}" for p in (ROOT / "pyomo_mbdyn" / "models").glob("*.py")}
    assert "pyomo_mbdyn/models/pendulum.py" in models
    assert models - names == set()
    assert "pyomo_mbdyn/solvers/ampl_driver.py" in names
    assert "pyomo_mbdyn/py.typed" in names  # the PEP 561 marker: type checkers read the package's annotations
    # every module of the source tree, subpackages included (setup.cfg finds the packages)
    sources = {p.relative_to(ROOT).as_posix() for p in (ROOT / "pyomo_mbdyn").rglob("*.py")}
    assert "pyomo_mbdyn/plotting/geometry.py" in sources
    assert sources - names == set()
    assert f"pyomo_mbdyn-{_version_in_source()}.dist-info/licenses/LICENSE" in names
    assert not {n for n in names if n.startswith(("tests/", "notebooks/", "docs/", "benchmarks/", "models/"))}


def test_wheel_metadata(dists):
    metadata = _wheel_metadata(dists[1])
    assert metadata["Name"] == "pyomo_mbdyn"
    assert metadata["Version"] == _version_in_source()
    assert metadata["License-Expression"] == "BSD-3-Clause"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert "pyomo>=6.7" in metadata.get_all("Requires-Dist")


def test_wheel_installs_and_runs_outside_the_checkout(dists, tmp_path):
    venv, elsewhere = tmp_path / "venv", tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP"}}
    _run(sys.executable, "-m", "venv", venv)
    python, cli = venv / "bin" / "python", venv / "bin" / "pyomo-mbdyn"
    _run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", dists[1], env=env)
    version = _version_in_source()

    def cli_run(*args):
        return _run(cli, *args, cwd=elsewhere, env=env, timeout=300)

    assert cli_run("--version").strip() == f"pyomo-mbdyn {version}"
    found = json.loads(_run(python, "-c", "import importlib.metadata as m, json, pyomo_mbdyn; print(json.dumps("
                            "[pyomo_mbdyn.__version__, m.version('pyomo_mbdyn'), pyomo_mbdyn.__file__]))",
                            cwd=elsewhere, env=env))
    assert found[:2] == [version, version]
    assert Path(found[2]).is_relative_to(venv)
    assert "casadi_ipopt " in cli_run("solvers")
    assert "pendulum " in cli_run("list")
    # in process, and through the AMPL driver script the wheel installs (run by path)
    for solver in ("casadi_ipopt", "casadi_ipopt_nl"):
        result = json.loads(cli_run("run", "pendulum", "--steps", "10", "--solver", solver, "--json"))
        assert (result["model"], result["solver"], result["status"]) == ("pendulum", solver, "optimal")
        assert result["constraint_residual"] < 1e-8
    # from the checkout's root the source folder comes first on sys.path and shadows the installed
    # package: it must be whole there too, the models included (issue 51: before the models moved
    # into pyomo_mbdyn/, this import failed from the root)
    here = json.loads(_run(python, "-c", "import json, pyomo_mbdyn.models.pendulum as p, pyomo_mbdyn.plugins as g; "
                           "print(json.dumps([p.__file__, sorted(g.models())]))", cwd=ROOT, env=env))
    assert Path(here[0]).is_relative_to(ROOT / "pyomo_mbdyn" / "models")
    assert {"pendulum", "panda", "three-link-arm"} <= set(here[1])
