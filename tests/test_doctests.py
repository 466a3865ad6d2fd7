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
WITH_EXAMPLES = ["pyomo_mbdyn.mechanics.bodies", "pyomo_mbdyn.mechanics.hamiltonian",
                 "pyomo_mbdyn.mechanics.system", "pyomo_mbdyn.ocp.problem", "pyomo_mbdyn.ocp.solve",
                 "pyomo_mbdyn.trajectory"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert (result.attempted > 0) == (name in WITH_EXAMPLES), f"{name}: update WITH_EXAMPLES"
