"""The scheme contract: what a scheme block overrides is one of the numbered hooks.

``pyomo_mbdyn.schemes.base`` numbers the hooks a block class implements
("Implementing a scheme" in its module docstring; ``HOOKS`` declares them).
Here every registered block class (its Pyomo component class and the data
class ``declare_custom_block`` splits off, which carries the scheme) is held
to it: each name that a project class in the data class's MRO defines and a
later project class also defines is a listed hook of that later class, no
project name shadows Pyomo's block machinery, every required hook is
implemented, and the docstring's numbered list is ``HOOKS``.  Throwaway
subclasses show that the checks catch an unlisted override and a missing
hook, and that a block without a required method is refused when built.
"""

import inspect
import re

import pytest
import pyomo.environ as pyo
from pyomo.core.base.block import Block, BlockData, ScalarCustomBlockMixin

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.discretization.registry import SCHEMES
from pyomo_mbdyn.mechanics import examples
from pyomo_mbdyn.schemes import base
from pyomo_mbdyn.schemes.base import HOOKS, MultibodyBlockData, SchemeBlockData
from pyomo_mbdyn.schemes.configuration_forms import Nodes
from pyomo_mbdyn.schemes.final_rest import MomentumRest
from pyomo_mbdyn.schemes.gc import GCBlockData
from pyomo_mbdyn.schemes.guesses import InitialGuess
from pyomo_mbdyn.schemes.options import declare_scheme_block
from pyomo_mbdyn.schemes.rem import REMBlockData
from pyomo_mbdyn.schemes.solution import SolutionValues

LISTED = {hook.name: hook for hook in HOOKS}
#: the classes that declare hooks, by the names HOOKS gives them
OWNERS = {cls.__name__: cls for cls in (SchemeBlockData, MultibodyBlockData, InitialGuess, SolutionValues,
                                        GCBlockData)}


def project_classes(cls):
    """The classes of ``cls``'s MRO that are not Pyomo's or Python's (pyomo_mbdyn's, a plugin's, a
    test's), in MRO order."""
    return [c for c in cls.__mro__ if c.__module__.split(".")[0] not in ("pyomo", "builtins", "abc")]


def own_names(cls):
    """The names a class body defines, without Python's and abc's machinery (dunders, ``_abc_impl``)."""
    return [n for n in vars(cls) if not (n.startswith("__") and n.endswith("__")) and n != "_abc_impl"]


def unlisted_overrides(data_class):
    """``(class, name, shadowed classes)`` for every name that a project class of ``data_class``'s MRO
    defines, a later project class also defines, and that is not a hook HOOKS declares for one of
    those later classes."""
    mro = project_classes(data_class)
    out = []
    for i, cls in enumerate(mro):
        for name in own_names(cls):
            shadowed = [b.__name__ for b in mro[i + 1:] if name in vars(b)]
            if shadowed and not (name in LISTED and LISTED[name].owner in shadowed):
                out.append((cls.__name__, name, shadowed))
    return out


def missing_hooks(data_class, record):
    """The required hooks (for this record) of the bases of ``data_class`` that it leaves at the base's
    version: an abstract method, a ``None`` attribute, or the declaring class's own stub."""
    out = []
    for hook in HOOKS:
        owner = OWNERS[hook.owner]
        if owner not in data_class.__mro__ or not hook.required_for(record):
            continue
        implementer = next(c for c in data_class.__mro__ if hook.name in vars(c))
        value = vars(implementer)[hook.name]
        if implementer is owner or value is None or getattr(value, "__isabstractmethod__", False):
            out.append(hook.name)
    return out


BLOCKS = {name: rec.block_class() for name, rec in SCHEMES.items()}


def test_every_scheme_is_surveyed():
    """Eleven registered schemes, each a Pyomo custom block whose data class derives from SchemeBlockData
    (so that nothing below is vacuous)."""
    assert len(BLOCKS) == 11
    for name, component in BLOCKS.items():
        assert issubclass(component._ComponentDataClass, SchemeBlockData), name
    multibody = [n for n, c in BLOCKS.items() if issubclass(c._ComponentDataClass, MultibodyBlockData)]
    assert sorted(multibody) == sorted(n for n, rec in SCHEMES.items() if rec.system.multibody)


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_block_overrides_only_listed_hooks(scheme):
    data = BLOCKS[scheme]._ComponentDataClass
    assert unlisted_overrides(data) == []


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_block_implements_the_required_hooks(scheme):
    component = BLOCKS[scheme]
    data = component._ComponentDataClass
    assert missing_hooks(data, SCHEMES[scheme]) == []
    assert not data.__abstractmethods__
    assert data.scheme == scheme  # hook 1 names the record the block belongs to


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_block_leaves_pyomo_alone(scheme):
    """The data class's names do not shadow Pyomo's (in the scalar block class the data class precedes
    Pyomo's Block), and the component class defines no method of its own but the keyword router."""
    component = BLOCKS[scheme]
    pyomo_names = set(dir(Block)) | set(dir(BlockData)) | set(dir(ScalarCustomBlockMixin))
    ours = {n for cls in project_classes(component._ComponentDataClass) for n in own_names(cls)}
    assert ours & pyomo_names == set()
    methods = {n for n, v in vars(component).items()
               if inspect.isfunction(v) and v.__module__.split(".")[0] == "pyomo_mbdyn"}
    assert methods == {"__init__"}
    assert project_classes(component) == [component]


def test_hooks_are_declared_where_listed():
    """Every hook exists on the class HOOKS names, as the kind it says; the required methods of the
    two bases are abstract (a conditional one cannot be: it is checked by missing_hooks)."""
    assert [hook.number for hook in HOOKS] == list(range(1, len(HOOKS) + 1))
    assert len(LISTED) == len(HOOKS)
    for hook in HOOKS:
        owner = OWNERS[hook.owner]
        assert hook.name in vars(owner), hook
        value = vars(owner)[hook.name]
        kind = "property" if isinstance(value, property) else "method" if inspect.isfunction(value) else "attribute"
        assert kind == hook.kind, hook
        abstract = getattr(value, "__isabstractmethod__", False)
        assert abstract == (hook.kind == "method" and hook.required and hook.unless is None), hook


def test_docstring_numbers_the_hooks():
    """The module docstring's numbered list is HOOKS: same numbers, names, kinds, required/optional."""
    items = re.findall(r"^ +(\d+)\. ``(\w+)(?:\([\w, ]*\))?`` \(([^)]*)\)", base.__doc__, flags=re.M)
    assert [(int(n), name) for n, name, _ in items] == [(hook.number, hook.name) for hook in HOOKS]
    for (_, _, header), hook in zip(items, HOOKS):
        assert ("required" in header) == hook.required, (hook, header)
        assert ("optional" in header) == (not hook.required), (hook, header)
        assert ("extend" in header) == hook.extend, (hook, header)
        assert ("attribute" in header) == (hook.kind == "attribute"), (hook, header)
        assert ("property" in header) == (hook.kind == "property"), (hook, header)
        assert ("abstract" in header) == bool(getattr(vars(OWNERS[hook.owner])[hook.name],
                                                       "__isabstractmethod__", False)), (hook, header)


# -- probes: the checks find what they look for -----------------------------------------------------

def test_probe_unlisted_override_is_caught():
    class Probe(REMBlockData):
        def _add_scheme_variables(self):  # hook 11: allowed
            super()._add_scheme_variables()

        def _add_chart_variables(self, increments=False):  # a helper of the absolute mixin: not a hook
            super()._add_chart_variables(increments)

        def _grid(self):  # a helper of SchemeBlockData: not a hook
            super()._grid()

        def _probe_helper(self):  # the probe's own: shadows nothing
            pass

    found = unlisted_overrides(Probe)
    assert found == [("Probe", "_add_chart_variables", ["AbsoluteConfigurations"]),
                     ("Probe", "_grid", ["SchemeBlockData"])]


def test_probe_hook_of_another_base_is_caught():
    """A listed name overridden on a class that is not the hook's owner is not the hook: GC's
    ``_add_step_equations`` is hook 19 of GCBlockData, not something a plain multibody block shadows."""
    class StepsOwner(MultibodyBlockData):
        def _add_step_equations(self):
            pass

    class Probe(StepsOwner):
        def _add_step_equations(self):
            pass

    assert unlisted_overrides(Probe) == [("Probe", "_add_step_equations", ["StepsOwner"])]


def test_probe_missing_hooks_are_caught():
    class NoEquations(MultibodyBlockData):
        scheme = "bem"
        CONFIGURATION_FORM = Nodes

    assert missing_hooks(NoEquations, SCHEMES["bem"]) == ["FINAL_REST", "_add_discrete_equations"]
    # without node velocities (dmocc's record) the velocities must be recovered as well
    assert missing_hooks(NoEquations, SCHEMES["dmocc"]) == ["FINAL_REST", "_add_discrete_equations",
                                                            "_recover_velocities"]
    assert NoEquations.__abstractmethods__ == {"_add_discrete_equations"}


@declare_scheme_block("ProbeNoEquationsBlock")
class ProbeNoEquationsBlockData(MultibodyBlockData):
    """A multibody block without its equations (hook 12): a probe of the abstract methods."""

    scheme = "bem"
    CONFIGURATION_FORM = Nodes
    FINAL_REST = MomentumRest


def test_probe_block_without_equations_is_refused():
    m = pyo.ConcreteModel()
    with pytest.raises(TypeError, match="_add_discrete_equations"):
        m.dyn = ProbeNoEquationsBlock(system=examples.pendulum(), steps=2, horizon=1.0)  # noqa: F821


def test_base_versions_name_the_class_and_the_hook():
    """Called through super() (or on another object), a required hook's base version says which class
    lacks which hook."""
    class Half:
        pass

    for function, hook in ((SchemeBlockData._build, "_build"), (SchemeBlockData.trajectory, "trajectory"),
                           (MultibodyBlockData._add_discrete_equations, "_add_discrete_equations")):
        with pytest.raises(NotImplementedError, match=rf"Half does not implement the required hook '{hook}'"):
            function(Half())
    with pytest.raises(NotImplementedError, match="Half does not implement the required hook 'initialize_from'"):
        SchemeBlockData.initialize_from(Half(), None)
    with pytest.raises(NotImplementedError, match="Half does not implement the required hook '_recover_velocities'"):
        SolutionValues._recover_velocities(Half(), None, None)
