"""pyomo_mbdyn: structure-preserving optimal control of multibody systems in Pyomo.

Importing the package registers the solver plugins ``casadi_ipopt`` and
``casadi_bonmin`` with Pyomo's ``SolverFactory``.
"""

from . import plugins as _plugins
from .errors import MbdynError
from .solvers import available_solvers, get_solver

_plugins.load()

__version__ = "0.1.0"
__all__ = ["MbdynError", "available_solvers", "get_solver", "__version__"]
