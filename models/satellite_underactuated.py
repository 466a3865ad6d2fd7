"""satellite-underactuated: the satellite reorientation with rotor 3 removed (DMOCC §7.2).

The same problem as :mod:`pyomo_mbdyn.models.satellite` (Table 4.1 satellite,
π about (1, 2, 3)/√14 in T = 5, N = 50, J = h Σ ‖τ_n‖²) with only the rotors
about d₁ and d₂: the main body is turned about three axes by two rotors
(nonholonomic, geometric phase).  The paper reports J = 2.9168·10⁶.  An
aliased optimum at 2.9128·10⁶ exists in which one rotor turns by ≈ 2.8 rad
in a single step (the discrete map cannot see such a step; spec §0.7); the
per-step increment bound |w| ≤ 1 rad excludes it.

**Status: not reproduced.**  From the simulated zero-momentum guess of the
satellite model, IPOPT (casadi_ipopt, tol 1e-8) stops at its iteration limit
far from feasibility: 1000 iterations, J = 4.02·10⁷, max |L| = 1988 (the
iterate is not a trajectory); with ``mu_strategy=adaptive`` the dual
infeasibility stays near 10¹⁷ with regularisation 10⁹–10¹⁰ (a near-singular
KKT matrix).  Warm-started from the three-rotor optimum (J = 2.82425·10⁶,
rotor 3 dropped), 1500 iterations end at J = 3.42·10⁷, not converged.  The
independent reproduction (spec dmocc.md §4) used the absolute
reparametrisation and a warm restart; the library's relative joint rates
are the likely difference to investigate.
"""

from pyomo_mbdyn.models import satellite

__all__ = ["build", "DESCRIPTION", "STEPS", "HORIZON", "ROTORS"]

DESCRIPTION = "satellite turned by π about (1,2,3)/√14 with two rotors only (DMOCC §7.2)"
STEPS, HORIZON = satellite.STEPS, satellite.HORIZON
ROTORS = (1, 2)
CONSERVED_MOMENTA = satellite.CONSERVED_MOMENTA
ENERGY_BALANCE = satellite.ENERGY_BALANCE


def build(scheme="dmocc", steps=STEPS, increment_bound=1.0, guess="simulate"):
    """The underactuated reorientation OCP (see :func:`pyomo_mbdyn.models.satellite.build`)."""
    m = satellite.build(scheme, steps, rotors=ROTORS, increment_bound=increment_bound, guess=guess)
    m.name = "satellite-underactuated"
    return m
