"""All registrations of pyomo_mbdyn with Pyomo, made once on import."""

_loaded = False


def load():
    """Register the solver plugins and fix Pyomo's .nl writer
    (see :mod:`pyomo_mbdyn.solvers.pyomo_fixes`).

    ``casadi_ipopt`` / ``casadi_bonmin`` solve in process (Pyomo's ``*_direct``
    kind of interface); ``casadi_ipopt_nl`` / ``casadi_bonmin_nl`` solve the same
    problems through the AMPL .nl/.sol protocol in a child process.
    """
    global _loaded
    if _loaded:
        return
    from pyomo.opt import SolverFactory

    from .solvers import pyomo_fixes
    from .solvers.casadi_direct import CasadiBonminDirect, CasadiIpoptDirect
    from .solvers.casadi_plugin import CasadiBonminNL, CasadiIpoptNL

    pyomo_fixes.apply()

    SolverFactory.register(
        "casadi_ipopt", doc="IPOPT from the casadi wheel, in process (CasADi NLP built from the model)"
    )(CasadiIpoptDirect)
    SolverFactory.register(
        "casadi_bonmin", doc="Bonmin from the casadi wheel, in process (CasADi NLP built from the model)"
    )(CasadiBonminDirect)
    SolverFactory.register(
        "casadi_ipopt_nl", doc="IPOPT from the casadi wheel, through the AMPL .nl/.sol protocol in a subprocess"
    )(CasadiIpoptNL)
    SolverFactory.register(
        "casadi_bonmin_nl", doc="Bonmin from the casadi wheel, through the AMPL .nl/.sol protocol in a subprocess"
    )(CasadiBonminNL)
    _loaded = True
