"""The public API is typed (issue 50): annotations on at least 90 % of the public functions and
methods of the package, ``py.typed`` shipped (tests/test_packaging.py), and mypy over the package
without an error (imports of packages without type information — Pyomo, CasADi, … — ignored;
setup.cfg's ``[mypy]``)."""

import ast
import subprocess
import sys
from pathlib import Path

import pyomo_mbdyn

PACKAGE = Path(pyomo_mbdyn.__file__).parent
#: the share of public functions and methods whose parameters and return are all annotated
COVERAGE = 0.90


def _public_functions(tree):
    """(qualified name, node) of every public function and method (no leading underscore in its
    name or its class's; ``__init__`` and other dunders of a public class count as methods)."""
    def walk(body, prefix, public):
        for node in body:
            if isinstance(node, ast.ClassDef):
                yield from walk(node.body, f"{prefix}{node.name}.", public and not node.name.startswith("_"))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                dunder = node.name.startswith("__") and node.name.endswith("__")
                if public and (dunder and prefix or not node.name.startswith("_")):
                    yield f"{prefix}{node.name}", node
    yield from walk(tree.body, "", True)


def _annotated(node):
    args = node.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if params and params[0].arg in ("self", "cls"):
        params = params[1:]
    params += [a for a in (args.vararg, args.kwarg) if a is not None]
    returns_ok = node.returns is not None or node.name == "__init__"
    return returns_ok and all(p.annotation is not None for p in params)


def coverage(root=PACKAGE):
    """(annotated, all, the unannotated names) over the modules under ``root``."""
    done, missing = 0, []
    for path in sorted(root.rglob("*.py")):
        if path.name.startswith("_") and path.name != "__init__.py":
            continue
        for name, node in _public_functions(ast.parse(path.read_text())):
            if _annotated(node):
                done += 1
            else:
                missing.append(f"{path.relative_to(root).as_posix()}:{node.lineno} {name}")
    return done, done + len(missing), missing


def test_the_coverage_count_sees_what_is_missing(tmp_path):
    (tmp_path / "m.py").write_text("def f(x: int) -> int:\n    return x\n"
                                   "def g(x):\n    return x\n"
                                   "def _h(x):\n    return x\n"
                                   "class A:\n    def __init__(self, y: float):\n        pass\n"
                                   "    def k(self, *a: int) -> None:\n        pass\n"
                                   "    def j(self, z) -> None:\n        pass\n")
    done, total, missing = coverage(tmp_path)
    assert (done, total) == (3, 5) and [m.split()[-1] for m in missing] == ["g", "A.j"]


def test_the_public_api_is_annotated():
    done, total, missing = coverage()
    assert total > 500 and done >= COVERAGE * total, (
        f"{done} of {total} public functions annotated ({done / total:.0%}); first missing:\n"
        + "\n".join(missing[:40]))


def test_mypy_finds_no_error_in_the_package(tmp_path):
    """The checkout's package source (what the wheel installs), with its setup.cfg.  Not the
    installed copy: given a path inside site-packages, mypy takes site-packages for a source root
    and refuses the modules there that shadow its own (mypy_extensions)."""
    root = Path(__file__).resolve().parents[1]
    found = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(root / "setup.cfg"), "--cache-dir",
                            str(tmp_path / "cache"), str(root / "pyomo_mbdyn")], capture_output=True, text=True,
                           cwd=tmp_path, timeout=900)
    assert found.returncode == 0, found.stdout[-6000:] + found.stderr[-2000:]
