"""pyomo_mbdyn: structure-preserving optimal control of multibody systems in Pyomo.

Importing the package registers the solver plugins ``casadi_ipopt`` and
``casadi_bonmin`` with Pyomo's ``SolverFactory``.

Layers (each imports only the ones below it)::

    models/, cli, figures          paper examples, command line, a model's figures
    ocp                            optimal-control problems on scheme blocks
    schemes                        Pyomo blocks, one per registry record
    simulate                       Newton stepping, Udwadia–Kalaba, recursive chains
    discretization                 step equations, charts, the scheme registry
    trajectory, diagnostics        the trajectory type; conservation tables of arrays
    mechanics                      bodies, joints, systems (any backend)
    errors, solvers                exceptions, solver plugins

``diagnostics``, ``results``, ``plotting`` and ``figures`` read solved models and
never build them.
"""

from . import plugins as _plugins
from ._version import __version__
from .errors import MbdynError
from .solvers import available_solvers, get_solver

_plugins.load()

__all__ = ["MbdynError", "available_solvers", "get_solver", "__version__"]
