"""No import circle in the package (docs/design.md, "Layers").

tests/test_layers.py forbids imports *upwards*; imports within one layer (``plotting`` →
``balance``, ``plugins`` → ``solvers``, …) and within one subpackage are allowed there, so a
circle could still close among them.  Two graphs are checked here, each built from the
source by walking its imports, and each must have no directed cycle:

* the **subpackages and top-level modules** of ``pyomo_mbdyn`` (the layers' units), with
  every import of the walker of tests/test_layers.py (``_imports``: relative and absolute,
  at module level and inside functions);
* the **modules**, with the imports that run when a module is imported (module and class
  bodies, not function bodies: a deferred import inside a function is how a module reaches
  one that would otherwise close a circle at import time).

Importing ``pyomo_mbdyn.x.y`` also runs the ``__init__`` of ``pyomo_mbdyn`` and of
``pyomo_mbdyn.x``; those implicit parent imports are Python's, not edges here — an explicit
``from pyomo_mbdyn import name`` of a name the package defines is one (to ``pyomo_mbdyn``).
"""

import ast

import networkx as nx

import test_layers
from test_layers import _imports, _layer


def subpackage_graph(package):
    """Directed graph: subpackage or top-level module → those it imports (self-imports left out)."""
    saved, test_layers.PACKAGE = test_layers.PACKAGE, package
    try:
        graph = nx.DiGraph()
        for path in package.rglob("*.py"):
            mine = _layer(path.relative_to(package).parts)
            graph.add_node(mine)
            graph.add_edges_from((mine, theirs) for theirs, _ in _imports(path) if theirs != mine)
        return graph
    finally:
        test_layers.PACKAGE = saved


def _module_name(package, path):
    parts = list(path.relative_to(package).with_suffix("").parts)
    return ".".join([package.name] + (parts[:-1] if parts[-1] == "__init__" else parts))


def _import_time_nodes(tree):
    """The import statements of ``tree`` outside function bodies (run when the module is imported)."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def module_graph(package):
    """Directed graph: module → the package's modules it imports at import time.  ``from a import b``
    is an edge to ``a.b`` where that is a module, else to ``a``."""
    modules = {_module_name(package, p): p for p in package.rglob("*.py")}
    graph = nx.DiGraph()
    for me, path in modules.items():
        graph.add_node(me)
        own = me.split(".") if path.name == "__init__.py" else me.split(".")[:-1]
        for node in _import_time_nodes(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = own[: len(own) - (node.level - 1)] + (node.module.split(".") if node.module else [])
                    base = ".".join(base)
                else:
                    base = node.module or ""
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            graph.add_edges_from((me, t) for t in targets if t in modules and t != me)
    return graph


def _circles(graph, most=5):
    found = []
    for cycle in nx.simple_cycles(graph):
        found.append(" → ".join(cycle + cycle[:1]))
        if len(found) == most:
            break
    return found


def test_no_circle_between_subpackages():
    graph = subpackage_graph(test_layers.PACKAGE)
    assert {"mechanics", "schemes", "ocp", "cli"} <= set(graph)  # the walk saw the package
    assert graph.has_edge("ocp", "schemes") and graph.has_edge("plotting", "balance")
    assert not _circles(graph), _circles(graph)


def test_no_circle_between_modules_at_import_time():
    graph = module_graph(test_layers.PACKAGE)
    assert graph.has_edge("pyomo_mbdyn.schemes.base", "pyomo_mbdyn.errors")  # relative, resolved to the module
    assert not _circles(graph), _circles(graph)


def _write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_graphs_find_a_circle(tmp_path):
    """A fixture package whose two subpackages import each other — one of them only inside a
    function — is a circle between subpackages, and not one at import time; a module-level
    relative import back makes it one between modules too."""
    package = tmp_path / "pyomo_mbdyn"
    _write(package, {"__init__.py": "", "a/__init__.py": "", "b/__init__.py": "",
                     "a/x.py": "from pyomo_mbdyn.b import y\n",
                     "b/y.py": "def f():\n    from ..a import x\n",
                     "b/z.py": "class C:\n    import pyomo_mbdyn.b.y\n"})
    assert _circles(subpackage_graph(package)) in (["a → b → a"], ["b → a → b"])
    assert not _circles(module_graph(package))
    assert module_graph(package).has_edge("pyomo_mbdyn.b.z", "pyomo_mbdyn.b.y")  # class bodies run at import
    (package / "b" / "y.py").write_text("from ..a import x\n")
    assert len(_circles(module_graph(package))) == 1
