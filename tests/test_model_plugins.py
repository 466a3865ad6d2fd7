"""Models as declared plugins (issue 32): the library finds every model through the
entry-point group ``pyomo_mbdyn.models`` (:func:`pyomo_mbdyn.plugins.models`), its own
as well as another package's — which `pyomo-mbdyn list` and `run` then offer without any
change in pyomo_mbdyn."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from pyomo_mbdyn import plugins
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.models import MODELS

#: a package of one model, as a user would write it (built with the public API only)
SWING = '''
"""swing: a pendulum swung up a quarter turn, rest to rest, least effort (REM)."""
import numpy as np
import pyomo.environ as pyo
from pyomo_mbdyn.mechanics import examples
from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
from pyomo_mbdyn.schemes import scheme_block

STEPS = 8


def build(scheme="rem", steps=STEPS):
    pendulum = examples.pendulum()
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=pendulum, steps=steps, horizon=1.0)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort()
    problem.fix_final_configuration({"hinge.angle": np.pi / 2})
    problem.require_final_rest()
    m.dyn.initialize_from(interpolated_trajectory(pendulum, m.dyn.step_length, steps, [np.pi / 2]))
    return m


def evaluate(m):
    return {"nodes": len(m.dyn.trajectory().t)}


MODEL = ModelSpec(description="a pendulum swung up a quarter turn (a model from another package)", build=build,
                  evaluate=evaluate, conserved_momenta=())
'''


@pytest.fixture
def other_package(tmp_path):
    """A directory holding the package ``swing_models`` and its installed metadata
    (``*.dist-info`` with ``entry_points.txt``, as pip writes it)."""
    package = tmp_path / "swing_models"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "swing.py").write_text(textwrap.dedent(SWING))
    info = tmp_path / "swing_models-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: swing-models\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[pyomo_mbdyn.models]\nswing = swing_models.swing\n")
    return tmp_path


def _cli(args, path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "pyomo_mbdyn.cli", *args], capture_output=True, text=True,
                          env=env, timeout=600)


def test_the_library_declares_its_models_as_entry_points():
    assert MODELS is plugins.models()
    assert {"three-link-arm", "crane", "panda", "satellite"} <= set(MODELS)
    assert all(module.startswith("pyomo_mbdyn.models.") for module in MODELS.values())
    assert plugins.model_module("crane").__name__ == "pyomo_mbdyn.models.crane"


def test_an_unknown_model_names_the_ones_there_are():
    with pytest.raises(ConfigurationError, match=r"unknown model 'no-such'.*'crane'"):
        plugins.model_module("no-such")


def test_a_model_from_another_package_is_listed_and_solved(other_package):
    listed = _cli(["list"], other_package)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert any(line.startswith("swing") and "another package" in line for line in lines), listed.stdout
    assert any(line.startswith("three-link-arm") for line in lines)          # the library's own stay
    run = _cli(["run", "swing", "--json"], other_package)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["model"] == "swing" and result["status"] == "optimal", result
    assert result["steps"] == 8
    # what the spec declares is what run reads: its evaluation, no momentum conserved
    assert result["nodes"] == 9 and result["momentum_error"] is None


def test_a_module_without_a_spec_is_named_and_the_others_listed(other_package):
    """A declared module that states its model as loose attributes (no ``MODEL``) is
    refused by name, with what to write; ``list`` still lists the other models."""
    module = other_package / "swing_models" / "swing.py"
    module.write_text(module.read_text().split("MODEL = ModelSpec")[0] + "DESCRIPTION = 'loose'\n")
    listed = _cli(["list"], other_package)
    assert listed.returncode == 1
    assert "model 'swing' (swing_models.swing) declares no ModelSpec as MODEL" in listed.stderr
    assert "MODEL = pyomo_mbdyn.model_spec.ModelSpec(description=..., build=build" in listed.stderr
    lines = listed.stdout.splitlines()
    assert any(line.startswith("swing") and "cannot be loaded" in line for line in lines)
    assert any(line.startswith("crane") and "overhead crane" in line for line in lines)
    run = _cli(["run", "swing", "--json"], other_package)
    assert run.returncode == 2 and "declares no ModelSpec" in run.stderr, run.stderr


def test_the_spec_is_what_the_library_reads():
    """Each of the library's models is one ModelSpec; its options describe only what build takes."""
    from pyomo_mbdyn.model_spec import ModelSpec

    for name in MODELS:
        spec = plugins.model_spec(name)
        assert isinstance(spec, ModelSpec) and spec.description
        assert set(spec.options) <= set(spec.parameters()), name
        loose = {"DESCRIPTION", "OPTIONS", "CONSERVED_MOMENTA", "ENERGY_BALANCE", "UNITS", "CONSTRAINT_UNIT"}
        assert not loose & set(vars(plugins.model_module(name))), (name, loose & set(vars(plugins.model_module(name))))
