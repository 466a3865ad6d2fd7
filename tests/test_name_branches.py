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


def _startswith_scheme(path, names):
    """``(line, name)`` of every ``x.startswith("dmocc")`` (or a tuple of names) with a scheme name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith":
            hit = sorted(set().union(*(_strings(a) for a in node.args)) & names) if node.args else []
            if hit:
                found.append((node.lineno, hit))
    return found


#: capability values a record states (discretization/capabilities.py) and the step families
CAPABILITY_NAMES = {"midpoints", "nodes", "stages", "redundant", "reduced", "chart", "multibody", "top",
                    "hamiltonian", "one-step", "two-step"}


def _capability_comparisons(path):
    """Comparisons of a record's capability (an operand named ``*loads*``, ``*multipliers*``,
    ``*system*``, ``*family*``) with a capability's name: ``rec.loads == "stages"``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            hit = sorted(set().union(*(_strings(n) for n in operands)) & CAPABILITY_NAMES)
            named = set().union(*(_identifiers(n) for n in operands if not _strings(n)))
            if hit and any(key in ident.lower() for ident in named
                           for key in ("loads", "multipliers", "system", "family")):
                found.append((node.lineno, hit))
    return found


def test_no_startswith_on_a_scheme_name_nor_comparison_of_a_capability(tmp_path):
    """Issue 50: a record's capabilities are objects that carry their behaviour
    (:mod:`pyomo_mbdyn.discretization.capabilities`, the step classes' ``two_step`` and
    ``in_chart``); code reads them, and does not test a scheme's name by its prefix."""
    probe = tmp_path / "x.py"
    probe.write_text('a = rec.name.startswith("dmocc")\nb = rec.loads == "stages" or step.family != "chart"\n'
                     'c = config.form == "chart"\n')
    assert _startswith_scheme(probe, SCHEME_NAMES) == [(1, ["dmocc"])]
    assert _capability_comparisons(probe) == [(2, ["stages"]), (2, ["chart"])]
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if where in ALLOWED or where == "discretization/capabilities.py":
            continue
        if not where.startswith("models/"):  # a model module may branch on its own schemes (above)
            found += [f"{where}:{line} startswith {hit}" for line, hit in _startswith_scheme(path, SCHEME_NAMES)]
        found += [f"{where}:{line} compares a capability with {hit}" for line, hit in _capability_comparisons(path)]
    assert not found, "\n".join(found)
