# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Underactuated satellite: two rotors only (DMOCC paper §7.2)
#
# The main body of the thesis's Table 4.1 satellite (a solid ellipsoid, see
# `satellite-spin.ipynb`) carries only two rotors, about d₁ and d₂ (rotor 3 removed) on revolute joints along its
# principal axes.  It must turn, from rest to rest, by π about
# (1, 2, 3)/√14 in T = 5 (N = 50), using only the rotor torques, minimising
# J = h Σ ‖τₙ‖² (DMOCC).  The rotor torques are internal: the total angular
# momentum stays zero all the way — the reorientation is a *geometric phase*,
# the way a cat turns in free fall.  Only the main body's final orientation is
# imposed (through the skew part of R_targetᵀR_N, with tr(R_targetᵀR_N) ≥ 1
# excluding the half turns from the target, where the skew part vanishes as
# well), together with the rotors' final rest.
#
# As in the paper, the configurations are parametrised *absolutely*,
# q_n = F(θ_n, q_ref) (`configurations="absolute"`): per node the main body's
# position and rotation vector and the rotor angles; the rotor steps are
# bounded by 1 rad against aliased optima.
# With two rotors the main body is turned about three axes by two inputs — a
# nonholonomic problem.
#
# The paper reports **J = 2.9168·10⁶**, "only slightly more" than with three
# rotors.  An aliased optimum at 2.9128·10⁶, in which one rotor turns by
# ≈ 2.8 rad in a single step, is excluded by the increment bound.  From the
# command line:
#
#     pyomo-mbdyn run satellite-underactuated

# %%
# %matplotlib inline
import tempfile
from pathlib import Path

import numpy as np
import pyomo.environ as pyo
from IPython.display import Image, display
from matplotlib.figure import Figure

import pyomo_mbdyn
from pyomo_mbdyn import plotting
from pyomo_mbdyn.results import SolvedTrajectory
from pyomo_mbdyn.solvers import get_solver

workdir = Path(tempfile.mkdtemp(prefix="pyomo_mbdyn_"))  # files written by this notebook
from pyomo_mbdyn.models import satellite, satellite_underactuated

PAPER = 2.9168e6
m = satellite_underactuated.build(guess="simulate")  # the guess shown below

# %% [markdown]
# ## The system and the problem's size

# %%
system = m.dyn.system
print(system.validate())
print("bodies:", list(system.bodies), " actuated:", list(system.actuated))
variables = [x for x in m.component_data_objects(pyo.Var) if not x.fixed]
constraints = list(m.component_data_objects(pyo.Constraint, active=True))
print(f"scheme {m.dyn.scheme} ({m.dyn.config.configurations}), N = {m.dyn.config.steps}: "
      f"{len(variables)} free variables, {len(constraints)} constraints "
      f"({sum(c.equality for c in constraints)} equalities)")

# %% [markdown]
# ## The initial guess: a zero-momentum manoeuvre
#
# `build(guess="simulate")` starts IPOPT from a dynamically feasible motion: rotor torques
# that spin the rotors up and down again (rates 2 ν̄ sin²(πt/T), with ν̄ the
# rotor rates for which a uniform turn about the target axis would carry no
# angular momentum), simulated by the same scheme.  The total angular
# momentum of the guess is zero to round-off — and the main body does turn,
# though not yet onto the target.
#
# (The model's default, `build()`, is the *interpolated* guess instead: the main
# body turning in equal steps about the target axis — not a motion of the
# scheme, so its angular momentum is not zero — from which IPOPT reaches the
# same optimum in 12 iterations instead of 41 at N = 50, and converges at every
# N tried up to 640, where the simulated guess ends "locally infeasible" at
# N = 80 and 160; benchmarks/README.md, "Convergence at scale".)

# %%
trajectory = m.dyn.trajectory()
t, q, v, u, nu = trajectory.t, trajectory.q, trajectory.v, trajectory.u, trajectory.nu
table = m.dyn.diagnostics()
L = table[["Lx", "Ly", "Lz"]].to_numpy()
print(f"max |L| along the guess: {np.abs(L).max():.1e}   (max T = {table['T'].max():.1f})")
assert np.abs(L).max() < 1e-8 * max(1.0, table["T"].max())


def main_rotation(qk):
    return system.body_coordinates(qk, "main")[3:12].reshape(3, 3).T   # columns d1, d2, d3


def angle(R):
    return float(np.arccos(np.clip((np.trace(R) - 1) / 2, -1, 1)))


target = satellite.target_rotation()
print(f"main body turned by {angle(main_rotation(q[-1])):.3f} rad; target: {angle(target):.3f} rad; "
      f"still {angle(target.T @ main_rotation(q[-1])):.3f} rad away from it")
print(f"J of the guess: {pyo.value(m.ocp.control_effort):.4e}")

# %% [markdown]
# ## Solving
#
# IPOPT (`casadi_ipopt`, exact Hessian) from the guess; the tolerance 1e-9 is
# what round-off allows for an objective of 10⁶.

# %%
opt = pyo.SolverFactory("casadi_ipopt")
opt.options["tol"] = 1e-9
result = opt.solve(m)
print(result.solver.termination_condition, "—", result.solver.message)
J = pyo.value(m.ocp.control_effort)
print(f"J = {J:.6e}   (paper {PAPER:.4e}; relative difference {J / PAPER - 1:+.1e})")
assert abs(J / PAPER - 1) < 1e-4

trajectory = m.dyn.trajectory()
t, q, v, u, nu = trajectory.t, trajectory.q, trajectory.v, trajectory.u, trajectory.nu
table = m.dyn.diagnostics()
L = table[["Lx", "Ly", "Lz"]].to_numpy()
steps = np.array([[abs(pyo.value(m.dyn.w[i, j])) for j in m.dyn.velocities if j.endswith("angle")]
                  for i in m.dyn.intervals])
print(f"final orientation error: {np.abs(main_rotation(q[-1]) - target).max():.1e}")
print(f"max |L| on the optimum: {np.abs(L).max():.1e}   largest rotor step: {steps.max():.3f} rad")

# %%
ax = plotting.plot_snapshots(system, q, t=t, count=6, offset="auto")
ax.set_title("optimal reorientation, t = 0 … 5")
ax.figure

# %%
fig = Figure(figsize=(14, 4))
axes = fig.subplots(1, 2)
plotting.plot_controls(t, u, list(system.actuated), ax=axes[0])
axes[0].set_title("optimal rotor torques")
axes[1].plot(t, table["T"], "k-", label="kinetic energy T")
ax2 = axes[1].twinx()
ax2.plot(t, L, "--", label=["Lx", "Ly", "Lz"])
ax2.set_ylabel("angular momentum (zero)")
axes[1].set_xlabel("t"); axes[1].legend(loc="upper left"); ax2.legend(loc="upper right")
axes[1].grid(alpha=0.3)
fig.tight_layout()
fig

# %% [markdown]
# ## Why the half turns are excluded
#
# The target is itself a half turn from the start, so the skew rows
# skew(R_targetᵀR) = 0 hold at the *initial* orientation too (and at every
# half turn from the target).  Without the trace row IPOPT ends at such a
# point from this guess — cheap, and wrong:

# %%
wrong = satellite_underactuated.build(guess="simulate", exclude_half_turns=False)
opt.solve(wrong)
R_end = main_rotation(wrong.dyn.configuration_values()[-1])
print(f"J = {pyo.value(wrong.ocp.control_effort):.4e}; tr(R_targetᵀR_N) = {np.trace(target.T @ R_end):+.3f} "
      "(3 at the target, -1 a half turn away)")
