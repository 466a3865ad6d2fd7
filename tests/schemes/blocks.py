"""Solving a square scheme block through SolverFactory, for the scheme tests."""

import pyomo.environ as pyo

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.schemes import scheme_block


def solve_block(scheme, system, q0, v0, steps, h, controls, guess, tol=1e-12, **options):
    """Build the block with fixed controls, start it from ``guess`` (a trajectory
    of another scheme), solve with casadi_ipopt; return (t, q, v, u, nu)."""
    m = pyo.ConcreteModel()
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=steps * h,
                         initial_configuration=q0, initial_velocity=v0, controls=controls, **options)
    m.dyn.initialize_from(guess)
    opt = pyo.SolverFactory("casadi_ipopt")
    opt.options["tol"] = tol
    result = opt.solve(m)
    assert result.solver.termination_condition == pyo.TerminationCondition.optimal
    tr = m.dyn.trajectory()
    return tr.t, tr.q, tr.v, tr.u, tr.nu
