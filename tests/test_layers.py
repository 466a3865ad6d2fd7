"""The package's layers import only downwards (ARCHITECTURE.md; the package docstring).

Every relative import in ``pyomo_mbdyn``, at module level or inside a function,
is checked against the layer order, so a new upward dependency fails here.
"""

import ast
from pathlib import Path

import pyomo_mbdyn

#: layer of each top-level module or subpackage of pyomo_mbdyn (higher may import lower);
#: ``models`` is there in an installed package (setup.cfg package_dir)
RANK = {
    "_version": 0, "errors": 0, "atomic": 0, "robots": 0, "solvers": 1, "plugins": 1,
    "mechanics": 2, "trajectory": 3, "diagnostics": 3, "diagnosis": 3,
    "discretization": 4, "simulate": 5, "schemes": 6, "ocp": 7,
    "results": 8, "balance": 8, "plotting": 8, "html_view": 8, "figures": 9, "studies": 9, "cli": 10, "models": 10, "__init__": 11,
}
PACKAGE = Path(pyomo_mbdyn.__file__).parent


def _layer(parts):
    return parts[0].removesuffix(".py")


def _imports(path):
    """(layer imported, line) for every relative import of the module at ``path``."""
    here = path.relative_to(PACKAGE).parts
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(here[:-1])[: len(here) - node.level]
            target = base + (node.module.split(".") if node.module else [a.name for a in node.names][:1])
            if target:
                yield _layer(target), node.lineno


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
