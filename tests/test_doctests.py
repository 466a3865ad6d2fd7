"""Every docstring example (``>>>``) of the package runs and prints what it says.

The modules are those of the *installed* package (found by ``pkgutil``), so
the examples are checked against the code the tests import — also when the
package is installed without ``-e`` (pytest's ``--doctest-modules`` would
import the source tree a second time beside the installed copy).
"""

import doctest
import importlib
import pkgutil

import pytest

import pyomo_mbdyn

MODULES = sorted(info.name for info in pkgutil.walk_packages(pyomo_mbdyn.__path__, "pyomo_mbdyn.")
                 if not info.name.startswith("pyomo_mbdyn.models"))
#: modules whose docstrings hold examples (a test below keeps this list honest)
WITH_EXAMPLES = ["pyomo_mbdyn.atomic", "pyomo_mbdyn.balance", "pyomo_mbdyn.diagnosis", "pyomo_mbdyn.diagnosis.findings",
                 "pyomo_mbdyn.diagnosis.residuals", "pyomo_mbdyn.diagnostics", "pyomo_mbdyn.joint_space",
                 "pyomo_mbdyn.plotting.geometry", "pyomo_mbdyn.plotting.output", "pyomo_mbdyn.plotting.snapshots", "pyomo_mbdyn.plotting.canvas",
                 "pyomo_mbdyn.discretization.charts", "pyomo_mbdyn.discretization.common",
                 "pyomo_mbdyn.discretization.energy_momentum", "pyomo_mbdyn.discretization.hamiltonian",
                 "pyomo_mbdyn.discretization.lobatto", "pyomo_mbdyn.schemes.lobatto",
                 "pyomo_mbdyn.discretization.galerkin", "pyomo_mbdyn.schemes.galerkin",
                 "pyomo_mbdyn.discretization.lobatto_gc", "pyomo_mbdyn.schemes.lobatto_gc",
                 "pyomo_mbdyn.discretization.registry", "pyomo_mbdyn.discretization.capabilities",
                 "pyomo_mbdyn.discretization.variational",
                 "pyomo_mbdyn.mechanics.bodies", "pyomo_mbdyn.mechanics.examples", "pyomo_mbdyn.mechanics.hamiltonian",
                 "pyomo_mbdyn.mechanics.joint_kinds", "pyomo_mbdyn.mechanics.joints", "pyomo_mbdyn.mechanics.linalg",
                 "pyomo_mbdyn.mechanics.loops",
                 "pyomo_mbdyn.mechanics.numeric", "pyomo_mbdyn.mechanics.protocol",
                 "pyomo_mbdyn.mechanics.system", "pyomo_mbdyn.mechanics.urdf",
                 "pyomo_mbdyn.ocp.actuators", "pyomo_mbdyn.ocp.costates", "pyomo_mbdyn.ocp.dnco",
                 "pyomo_mbdyn.ocp.guess", "pyomo_mbdyn.ocp.problem", "pyomo_mbdyn.ocp.solve", "pyomo_mbdyn.ocp.warm_start",
                 "pyomo_mbdyn.robots", "pyomo_mbdyn.robots.zoo", "pyomo_mbdyn.schemes", "pyomo_mbdyn.schemes.base", "pyomo_mbdyn.schemes.bem",
                 "pyomo_mbdyn.schemes.configuration_forms", "pyomo_mbdyn.schemes.final_rest",
                 "pyomo_mbdyn.schemes.deferred",
                 "pyomo_mbdyn.schemes.dmocc", "pyomo_mbdyn.schemes.dnco", "pyomo_mbdyn.schemes.gc",
                 "pyomo_mbdyn.schemes.quaternion", "pyomo_mbdyn.schemes.rem",
                 "pyomo_mbdyn.simulate.recursive", "pyomo_mbdyn.simulate.stepper",
                 "pyomo_mbdyn.simulate.udwadia_kalaba", "pyomo_mbdyn.solvers.selection", "pyomo_mbdyn.solvers.stages",
                 "pyomo_mbdyn.studies.run", "pyomo_mbdyn.studies.study", "pyomo_mbdyn.studies.tables",
                 "pyomo_mbdyn.trajectory", "pyomo_mbdyn.model_spec", "pyomo_mbdyn.plugins"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert (result.attempted > 0) == (name in WITH_EXAMPLES), f"{name}: update WITH_EXAMPLES"
