"""No branch on a scheme or model name outside the registry and the model modules
(issue 32): code reads a record's capabilities (:mod:`pyomo_mbdyn.discretization.registry`)
or what a model module states about itself (:func:`pyomo_mbdyn.plugins.models`), so that
a new scheme or a model from another package needs no edit elsewhere."""

import ast
from pathlib import Path

import pyomo_mbdyn
from pyomo_mbdyn.discretization.registry import SCHEMES
from pyomo_mbdyn.models import MODELS

PACKAGE = Path(pyomo_mbdyn.__file__).parent
#: where scheme names are defined and read: the registry (records, variants)
ALLOWED = {"discretization/registry.py", "discretization/hamiltonian.py"}
SCHEME_NAMES = {n for rec in SCHEMES.values() for n in (rec.name, *rec.aliases, *rec.variant_names)} | {"dnco"}


def _strings(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_strings(e) for e in node.elts)) if node.elts else set()
    return set()


def _identifiers(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | \
        {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}


def branches(path, names):
    """``(line, names)`` of every comparison in the module at ``path`` of a scheme or
    model name (an operand named ``*scheme*``, ``*name*`` or ``*model*``) with a string,
    or a tuple/list/set of strings, among ``names``: ``model_name == "crane"``,
    ``scheme in ("bem", "rem")``, ``"gc" != rec.name`` — not an option's value that
    happens to be spelled like one (``config.method == "direct"``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            literals = set().union(*(_strings(n) for n in operands))
            named = set().union(*(_identifiers(n) for n in operands if not _strings(n)))
            hit = sorted(literals & names)
            if hit and any(key in ident.lower() for ident in named for key in ("scheme", "name", "model")):
                found.append((node.lineno, hit))
    return found


def test_the_check_sees_each_form(tmp_path):
    path = tmp_path / "x.py"
    path.write_text('if model == "crane" or dyn.scheme in ("bem", "rem"):\n    pass\n'
                    'ok = kind == "nodes" or rec.name != "gc" or config.method == "direct"\n')
    assert branches(path, {"crane", "bem", "rem", "gc", "direct"}) == [
        (1, ["crane"]), (1, ["bem", "rem"]), (3, ["gc"])]


def test_no_branch_on_scheme_or_model_names_outside_the_registry():
    names = SCHEME_NAMES | set(MODELS)
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if where in ALLOWED or where.startswith("models/"):  # the model modules (pyomo_mbdyn/models)
            continue
        found += [f"{where}:{line} compares with {hit}" for line, hit in branches(path, names)]
    assert not found, "\n".join(found)


def _library_comparisons(path, names):
    """``(line, names)`` of every comparison in the module at ``path`` of anything with a
    string (or tuple/list/set of strings) among ``names`` — stricter than :func:`branches`:
    a solver library's name is compared with nothing outside its record."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare):
            hit = sorted(set().union(*(_strings(n) for n in (node.left, *node.comparators))) & names)
            if hit:
                found.append((node.lineno, hit))
    return found


def test_no_branch_on_a_solver_library_outside_its_record(tmp_path):
    """Issue 50: what differs between IPOPT and Bonmin is a field of their
    :class:`~pyomo_mbdyn.solvers.backends.Backend` records; no module compares a library's
    name (``backend == "ipopt"``, ``solver in ("ipopt", "bonmin")``)."""
    from pyomo_mbdyn.solvers.backends import BACKENDS

    probe = tmp_path / "x.py"
    probe.write_text('if self.backend == "ipopt" or solver in ("ipopt", "bonmin"):\n    pass\n')
    assert _library_comparisons(probe, set(BACKENDS)) == [(1, ["ipopt"]), (1, ["bonmin", "ipopt"])]
    found = [f"{path.relative_to(PACKAGE).as_posix()}:{line} compares with {hit}"
             for path in sorted(PACKAGE.rglob("*.py")) if path.name != "backends.py"
             for line, hit in _library_comparisons(path, set(BACKENDS))]
    assert not found, "\n".join(found)
