"""The step equations of every scheme and the charts, written once.

This layer sits between :mod:`pyomo_mbdyn.mechanics` (bodies, joints, systems)
and the layers that solve the equations: :mod:`pyomo_mbdyn.simulate` (Newton
stepping) and :mod:`pyomo_mbdyn.schemes` (Pyomo blocks), both used by
:mod:`pyomo_mbdyn.ocp`.  Every function takes arrays whose entries may be
floats, Pyomo expressions or CasADi symbols and returns the same backend, so
simulation, optimisation and tests evaluate one formula.

=====================  ===============================================================
module                 what it states
=====================  ===============================================================
``energy_momentum``    BEM and REM steps (thesis §2.3–2.4)
``variational``        DMOCC with multipliers and reduced (DMOCC paper §3)
``midpoint``           midpoint rule in generalised coordinates (thesis §2.5)
``rattle``             RATTLE, constrained Störmer–Verlet (Hairer–Lubich–Wanner VII.1)
``lobatto``            Lobatto IIIA–IIIB, three stages, in natural coordinates (Jay 1996)
``galerkin``           the energy–momentum time finite element cG(2) (Betsch & Steinmann)
``lobatto_gc``         Lobatto IIIA–IIIB, three stages, in chart coordinates (Marsden & West 2001)
``charts``             q(θ) = F(θ, q_ref), its velocity, basis and inverse
``quaternion``         quaternion energy-momentum step for a top (thesis ch. 5)
``hamiltonian``        DNCO state/costate equations and discrete gradients (§2.11)
``jets``               Taylor jets for exact directional derivatives
``common``             controls placed on the generalised velocities, midpoints
=====================  ===============================================================
"""

from .charts import (chart, chart_basis, chart_coordinates, chart_function, chart_jets, chart_replayed, chart_states,
                     chart_transpose, chart_velocity)
from .common import thesis_controls
from .energy_momentum import bem_residuals, joint_rates, rem_residuals
from .midpoint import gc_residuals
from .rattle import rattle_residuals
from .variational import dmocc_lm_residuals, dmocc_residuals, final_velocity, lagrangian_slopes, projected_velocity

__all__ = ["chart", "chart_basis", "chart_coordinates", "chart_function", "chart_jets", "chart_replayed",
           "chart_states", "chart_transpose", "chart_velocity",
           "thesis_controls", "bem_residuals", "joint_rates", "rem_residuals", "gc_residuals", "dmocc_lm_residuals",
           "dmocc_residuals", "final_velocity", "lagrangian_slopes", "projected_velocity", "rattle_residuals"]
