"""satellite-underactuated: the satellite reorientation with rotor 3 removed (DMOCC §7.2).

The same problem as :mod:`pyomo_mbdyn.models.satellite` (Table 4.1 satellite,
π about (1, 2, 3)/√14 in T = 5, N = 50, J = h Σ ‖τ_n‖²) with only the rotors
about d₁ and d₂: the main body is turned about three axes by two rotors
(nonholonomic, geometric phase).  The paper reports J = 2.9168·10⁶.  An
aliased optimum at 2.9128·10⁶ exists in which one rotor turns by ≈ 2.8 rad
in a single step (the discrete map cannot see such a step; spec §0.7); the
per-step increment bound ``|Δα| ≤ 1`` rad excludes it.

Reproduced (casadi_ipopt, tol 1e-10, DMOCC with the absolute
reparametrisation, interpolated zero-momentum guess): J = 2 916 763.59, i.e.
2.9168·10⁶ to the printed digits, largest rotor step 0.63 rad (the bound is
inactive), ``|L| ≤ 8·10⁻¹²`` on every node.  The guess is the satellite's
``"interpolate"`` (the main body turning in equal steps about the target axis,
the rotors carrying no momentum): measured at tol 1e-8, it reaches the same
optimum at N = 50 in 12 IPOPT iterations where the simulated guess takes 41,
and converges at every N tried (N = 160: 11 iterations, 640: 10), where from
the simulated guess IPOPT ends locally infeasible at N = 80 and 160
(benchmarks/README.md, "Convergence at scale").  Two
things were needed (see the satellite module): the absolute chart — the
lifted relative form runs into its iteration limit far from feasibility —
and the exclusion of the half turns from the target (without it IPOPT ends
with the main body a half turn away from the target, where the skew
residual vanishes as well, far below the paper's cost: J = 1.25·10⁶ at the
default tol 1e-8, 6.4·10⁵ at tol 1e-10).  500 unknowns, 405 equations and 251
inequalities (250 increment bounds, the trace row).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.models import model_build, paper_figures_for, satellite

if TYPE_CHECKING:
    import pyomo.environ as pyo

__all__ = ["build", "STEPS", "HORIZON", "ROTORS", "MODEL"]

STEPS, HORIZON = satellite.STEPS, satellite.HORIZON
ROTORS = (1, 2)


@model_build
def build(scheme: str = "dmocc", steps: int = STEPS, increment_bound: float | None = 1.0, guess: str = "interpolate",
          configurations: str | None = "absolute", exclude_half_turns: bool = True) -> pyo.ConcreteModel:
    """The underactuated reorientation OCP; ``guess``, ``configurations`` and
    ``exclude_half_turns`` as in :func:`pyomo_mbdyn.models.satellite.build` (the
    default guess differs: see the module docstring)."""
    m = satellite.build(scheme, steps, rotors=ROTORS, increment_bound=increment_bound, guess=guess,
                        configurations=configurations, exclude_half_turns=exclude_half_turns)
    m.name = "satellite-underactuated"
    return m


paper_figures = paper_figures_for(
    ("dmocc",),
    snapshots="cf. DMOCC paper Fig. 7.10 (rigid body with two rotors)",
    controls="cf. DMOCC paper Fig. 7.12 (torque)",
    conservation="cf. DMOCC paper Fig. 7.11 (energy and angular momentum)")


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="satellite turned by π about (1,2,3)/√14 with two rotors only (DMOCC §7.2)",
    build=build,
    options={name: text for name, text in satellite.MODEL.options.items()
               if name in ("increment_bound", "guess", "configurations", "exclude_half_turns")},
    paper_figures=paper_figures,
    conserved_momenta=satellite.MODEL.conserved_momenta,
    energy_balance=satellite.MODEL.energy_balance,
)
