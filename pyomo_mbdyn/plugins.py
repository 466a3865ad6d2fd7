"""All registrations of pyomo_mbdyn with Pyomo, made once on import."""

_loaded = False


def load():
    """Register the solver plugins ``casadi_ipopt`` and ``casadi_bonmin``, and
    fix Pyomo's .nl writer (see :mod:`pyomo_mbdyn.solvers.pyomo_fixes`)."""
    global _loaded
    if _loaded:
        return
    from pyomo.opt import SolverFactory

    from .solvers import pyomo_fixes
    from .solvers.casadi_plugin import CasadiBonmin, CasadiIpopt

    pyomo_fixes.apply()

    SolverFactory.register(
        "casadi_ipopt", doc="IPOPT from the casadi wheel, through the AMPL .nl/.sol protocol"
    )(CasadiIpopt)
    SolverFactory.register(
        "casadi_bonmin", doc="Bonmin from the casadi wheel, through the AMPL .nl/.sol protocol"
    )(CasadiBonmin)
    _loaded = True
