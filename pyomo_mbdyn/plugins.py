"""All registrations of pyomo_mbdyn with Pyomo, made once on import."""

_loaded = False


def load():
    """Register the solver plugins ``casadi_ipopt`` and ``casadi_bonmin``."""
    global _loaded
    if _loaded:
        return
    from pyomo.opt import SolverFactory

    from .solvers.casadi_plugin import CasadiBonmin, CasadiIpopt

    SolverFactory.register(
        "casadi_ipopt", doc="IPOPT from the casadi wheel, through the AMPL .nl/.sol protocol"
    )(CasadiIpopt)
    SolverFactory.register(
        "casadi_bonmin", doc="Bonmin from the casadi wheel, through the AMPL .nl/.sol protocol"
    )(CasadiBonmin)
    _loaded = True
