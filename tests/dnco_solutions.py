"""Solved DNCO models (pendulum, particle, three-link arm), cached for the test session.

Several test files compare the same solutions; each (model, scheme, N) is
solved once with casadi_ipopt at tol = 1e-12.
"""

import functools

import pyomo.environ as pyo

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.models import particle, pendulum, three_link_arm_dnco
from pyomo_mbdyn.solvers import get_solver

MODULES = {"pendulum": pendulum, "particle": particle, "three-link-arm": three_link_arm_dnco}
OK = (pyo.TerminationCondition.optimal, pyo.TerminationCondition.locallyOptimal)


@functools.lru_cache(maxsize=None)
def solved(model, scheme, steps):
    """The solved model ``m`` (``m.dyn`` a DNCOBlock); fails the test if IPOPT failed."""
    m = MODULES[model].build(scheme=scheme, steps=steps)
    opt = get_solver("casadi_ipopt")
    opt.options["tol"] = 1e-12
    result = opt.solve(m)
    assert result.solver.termination_condition in OK, (model, scheme, steps, result.solver.message)
    return m
