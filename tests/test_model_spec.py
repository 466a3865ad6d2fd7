"""A model's declaration (:class:`pyomo_mbdyn.model_spec.ModelSpec`): what is declared is
checked when the model module is imported, each bad field refused by name and value."""

import pytest
from hypothesis import given, strategies as st

from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.model_spec import COMMON_OPTIONS, MOMENTUM_MAPS, UNIT_QUANTITIES, ModelSpec
from pyomo_mbdyn.models import MODELS
from pyomo_mbdyn.plugins import model_spec


def build(scheme="gc", steps=10, mass=1.0, target=(0.0, 1.0)):
    return None


def open_build(scheme="gc", steps=10, **options):
    return None


@pytest.mark.parametrize("fields, message", [
    ({"description": ""}, "description must be one non-empty line, got ''"),
    ({"description": "two\nlines"}, "description must be one non-empty line"),
    ({"build": "build"}, "build must be callable, got 'build'"),
    ({"evaluate": 3}, "evaluate must be callable or None, got 3"),
    ({"options": {"masss": "the mass [kg]"}}, "options describes 'masss', which build\\(\\) does not take; "
                                              "it takes \\['scheme', 'steps', 'mass', 'target'\\]"),
    ({"conserved_momenta": ("Lx", "Hz")}, "conserved_momenta must be among .*got 'Hz'"),
    ({"units": {"angle": "rad"}}, "units names 'angle'; the quantities with units are"),
    ({"energy_balance": "yes"}, "energy_balance must be True or False, got 'yes'"),
    ({"schemes": "bem"}, "schemes must be a sequence of scheme names, got 'bem'"),
])
def test_a_bad_field_is_refused_by_name(fields, message):
    with pytest.raises(ConfigurationError, match=message):
        ModelSpec(**{"description": "a point mass", "build": build, **fields})


def test_the_options_listed_are_the_build_signature_in_order():
    spec = ModelSpec(description="a point mass", build=build, options={"target": "the final position [m]"})
    rows = spec.option_rows()
    assert [r["name"] for r in rows] == ["scheme", "steps", "mass", "target"]
    assert rows[0]["description"] == COMMON_OPTIONS["scheme"] and rows[2]["description"] == ""
    assert rows[3] == {"name": "target", "default": (0.0, 1.0), "description": "the final position [m]"}
    assert spec.conserved_momenta == ("Lx", "Ly", "Lz") and spec.energy_balance
    with pytest.raises(ConfigurationError, match="model 'mass' takes no option 'masss'; its options are "
                                                 "\\['mass', 'target'\\]"):
        spec.check_options("mass", {"masss": 2.0})
    spec.check_options("mass", {"mass": 2.0, "steps": 4})


def test_an_open_ended_build_takes_any_option():
    spec = ModelSpec(description="open", build=open_build, options={"anything": "passed on"})
    spec.check_options("open", {"whatever": 1})
    assert [r["name"] for r in spec.option_rows()] == ["scheme", "steps"]


@given(st.lists(st.sampled_from(MOMENTUM_MAPS), unique=True),
       st.dictionaries(st.sampled_from(UNIT_QUANTITIES), st.sampled_from(["m", "rad", "N m", "s"])))
def test_a_spec_is_immutable_and_keeps_what_it_was_given(momenta, units):
    spec = ModelSpec(description="x", build=build, conserved_momenta=momenta, units=units)
    assert spec.conserved_momenta == tuple(momenta) and dict(spec.units) == units
    with pytest.raises(Exception):
        spec.description = "y"  # frozen
    with pytest.raises(TypeError):
        spec.units["q"] = "km"  # read-only mapping


def test_the_docstring_lists_every_field_once():
    """The fields are documented in one place, the class docstring (docs/design.md and
    docs/guide/extending.md point there): every dataclass field appears in it."""
    import dataclasses

    doc = ModelSpec.__doc__
    for field in dataclasses.fields(ModelSpec):
        assert f"``{field.name}" in doc, field.name


#: the models that declare the schemes they offer
DECLARING = [name for name in MODELS if model_spec(name).schemes is not None]


@pytest.mark.parametrize("name", DECLARING)
def test_the_schemes_a_model_declares_are_the_ones_it_builds(name):
    """``schemes`` (shown by ``list --options``) is true: each declared scheme builds (on 3
    steps), every other registered scheme is refused with a ConfigurationError."""
    from pyomo_mbdyn.schemes import record, scheme_names

    spec = model_spec(name)
    options = {"turns": 0} if name == "sphere" else {}  # 3 steps carry no turn within its increment bound
    for scheme in spec.schemes:
        assert spec.build(scheme=scheme, steps=3, **options).dyn.record is record(scheme), (name, scheme)
    offered = {record(s).name for s in spec.schemes}
    for scheme in scheme_names():
        if scheme not in offered:
            with pytest.raises(ConfigurationError):
                spec.build(scheme=scheme, steps=3, **options)
