"""Blocks state their own final conditions; the problem composes them (issue 32).

Every scheme block says how its unknowns carry the configuration
(``block.configuration_form``: chart, increments or nodes) and how it states rest at
t_N (``block.final_rest``); :class:`~pyomo_mbdyn.ocp.OptimalControlProblem` calls
these hooks and reads no block internals.  Checked here: the forms the blocks have
are the ones their registry records name, for every configuration option; a block
class with another form or rest is what the problem then states (a new scheme with a
new form is a block module and a record, not an edit of ocp/); the problem module
has no branch on form names and touches no scheme variables.
"""

import ast
import re
from pathlib import Path

import numpy as np
import pyomo.environ as pyo
import pytest

import pyomo_mbdyn
from pyomo_mbdyn.models import three_link_arm as arm
from pyomo_mbdyn.ocp import OptimalControlProblem
from pyomo_mbdyn.schemes import record, scheme_block, scheme_names
from pyomo_mbdyn.schemes.configuration_forms import ConfigurationForm, Increments
from pyomo_mbdyn.schemes.final_rest import FinalRest
from pyomo_mbdyn.schemes.rem import REMBlockData

MULTIBODY = [name for name in scheme_names(optimal_control=True) if record(name).system == "multibody"]


def _block(scheme, **options):
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=arm.build_system(), steps=3, horizon=arm.HORIZON, **options)
    return m


def _accepts(config, option, value):
    try:
        config().set_value({option: value})
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("scheme", MULTIBODY)
def test_blocks_have_the_forms_their_records_name(scheme):
    rec = record(scheme)
    config = rec.block_class()._ComponentDataClass.CONFIG
    options = [None]
    if "configurations" in config:
        options = [c for c in ("lifted", "minimal", "absolute") if _accepts(config, "configurations", c)]
    seen = set()
    for configurations in options:
        m = _block(scheme, **({} if configurations is None else {"configurations": configurations}))
        form = m.dyn.configuration_form
        assert isinstance(form, ConfigurationForm) and form.name in rec.final_configuration, (scheme, configurations)
        assert m.dyn.final_configuration_form == form.name
        assert isinstance(m.dyn.final_rest, FinalRest) and m.dyn.final_rest.name == rec.final_rest
        seen.add(form.name)
    assert seen == set(rec.final_configuration), scheme


def test_a_block_with_another_form_is_what_the_problem_states(monkeypatch):
    """A block class whose form states the final configuration its own way: the problem
    hands the parsed target to it (over ``system.velocities``) and adds nothing itself."""
    calls = []

    class Marked(Increments):
        name = "marked"

        def state_final_configuration(self, theta, problem):
            calls.append(np.asarray(theta, float))
            problem.block.final_configuration.add(self.block.w[0, "shoulder.angle"] == float(theta[0]))

    class StillAtEnd(FinalRest):
        name = "still"

        def state(self, rows, keep, reduced=True, form=None):
            calls.append((tuple(keep), reduced, form))
            for name in keep:
                rows.add(self.block.nu[self.block.config.steps - 1, name] == 0)

    monkeypatch.setattr(REMBlockData, "CONFIGURATION_FORM", Marked)
    monkeypatch.setattr(REMBlockData, "FINAL_REST", StillAtEnd)
    m = _block("rem", configurations="lifted")
    problem = OptimalControlProblem(m.dyn)
    problem.fix_final_configuration({"shoulder": 0.3, "elbow": -0.2, "wrist": 0.1})
    problem.require_final_rest(drop=["elbow.angle"])
    np.testing.assert_array_equal(calls[0], [0.3, -0.2, 0.1])
    assert calls[1] == (("shoulder.angle", "wrist.angle"), True, None)
    assert m.dyn.final_configuration_form == "marked" and m.dyn.final_configuration_target == [0.3, -0.2, 0.1]
    assert len(m.ocp.final_configuration) == 1 and len(m.ocp.final_rest) == 2
    assert m.ocp.component("turn_increment") is None and m.ocp.component("final_turns") is None


def _code_without_docstrings(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            body[0] = ast.Pass()
    return ast.unparse(tree)


def test_the_problem_module_names_no_form_and_reads_no_scheme_variable():
    code = _code_without_docstrings(Path(pyomo_mbdyn.__file__).parent / "ocp" / "problem.py")
    assert "require_final_rest" in code and "fix_final_configuration" in code
    for pattern in (r"dyn\.(w|theta|vt|nu)\[", r"dyn\._final_", r"_form\s*==", r"final_rest\s*==",
                    r"'(chart|increments|nodes|chart_velocity|joint_rates|legendre)'"):
        assert not re.search(pattern, code), pattern
