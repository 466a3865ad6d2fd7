"""The package's layers import only downwards (ARCHITECTURE.md; the package docstring).

Every import of a ``pyomo_mbdyn`` module in ``pyomo_mbdyn`` — relative or absolute
(``from pyomo_mbdyn.models import …``, ``import pyomo_mbdyn.x``), at module level or
inside a function — is checked against the layer order, so a new upward dependency
fails here.  Models are reached through the registry of the lowest layers
(:func:`pyomo_mbdyn.plugins.model_module`), not by importing ``pyomo_mbdyn.models``.
"""

import ast
from pathlib import Path

import pyomo_mbdyn

#: layer of each top-level module or subpackage of pyomo_mbdyn (higher may import lower);
#: ``models`` is there in an installed package (setup.cfg package_dir)
RANK = {
    "_version": 0, "errors": 0, "atomic": 0, "robots": 0, "solvers": 1, "plugins": 1, "model_spec": 0,
    "mechanics": 2, "trajectory": 3, "diagnostics": 3, "diagnosis": 3,
    "discretization": 4, "simulate": 5, "schemes": 6, "ocp": 7,
    "results": 8, "balance": 8, "joint_space": 8, "plotting": 8, "figures": 9, "studies": 9, "cli": 10, "models": 10, "__init__": 11,
}
PACKAGE = Path(pyomo_mbdyn.__file__).parent


def _layer(parts):
    return parts[0].removesuffix(".py")


def _imports(path):
    """(layer imported, line) for every import of a pyomo_mbdyn module by the module at
    ``path``: relative, ``from pyomo_mbdyn.x import …``, ``import pyomo_mbdyn.x``."""
    here = path.relative_to(PACKAGE).parts
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(here[:-1])[: len(here) - node.level]
            target = base + (node.module.split(".") if node.module else [a.name for a in node.names][:1])
            if target:
                yield _layer(target), node.lineno
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "pyomo_mbdyn":
            target = node.module.split(".")[1:] or [a.name for a in node.names][:1]
            yield _layer(target), node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "pyomo_mbdyn" and len(parts) > 1:
                    yield _layer(parts[1:]), node.lineno


def test_absolute_and_function_level_imports_are_seen():
    """The walk finds the forms it must check (a fixture module of every form)."""
    import tempfile

    text = ("from pyomo_mbdyn.models import MODELS\n"
            "import pyomo_mbdyn.cli\n"
            "def f():\n    from pyomo_mbdyn import studies\n    from ..ocp import solve\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plotting" / "x.py"
        path.parent.mkdir()
        path.write_text(text)
        global PACKAGE
        saved, PACKAGE = PACKAGE, Path(tmp)
        try:
            found = list(_imports(path))
        finally:
            PACKAGE = saved
    assert found == [("models", 1), ("cli", 2), ("studies", 4), ("ocp", 5)], found


def test_every_module_has_a_layer():
    names = {_layer(p.relative_to(PACKAGE).parts) for p in PACKAGE.rglob("*.py")}
    assert names <= set(RANK), sorted(names - set(RANK))


def test_no_module_imports_a_layer_above_it():
    upward = []
    for path in PACKAGE.rglob("*.py"):
        mine = _layer(path.relative_to(PACKAGE).parts)
        for theirs, line in _imports(path):
            if RANK[theirs] > RANK[mine]:
                upward.append(f"{path.relative_to(PACKAGE)}:{line} ({mine}) imports {theirs}")
    assert not upward, upward
