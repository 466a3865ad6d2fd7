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
# # Overhead crane: BEM = REM against GC (thesis E5, Ch. 7.2)
#
# A trolley (mass 10) runs along a rail; a winch (inertia 0.1, radius
# r = 0.1) on it reels a rope of length l = r β that carries a load (mass 100)
# under gravity.  Coordinates q = (s, β, x, z): trolley position, winch angle,
# load position (z downward), tied by the rope constraint
# (x − s)² + z² − r²β² = 0.  Two controls — the trolley force and the winch
# torque — for three degrees of freedom: the swing of the load is not actuated.
#
# From q₀ = (0, 40, 0, 4) (rope 4) to q_f = (5, 10, 5, 1) (rope 1, load below
# the trolley) in T = 3 (N = 40), from rest to rest, minimising
# J = h Σ ½|u|².  The system is stated by its formulas
# (`pyomo_mbdyn.mechanics.CoordinateSystem`): mass matrix, constraint, null
# space and exact reparametrisation.  The thesis states that BEM and REM give
# equal results and that T + V + W is conserved by the BEM and not by GC.
#
# All three are solved at N = 40 with IPOPT's exact Hessian.  A coarser N is
# no way to save time for GC: from the same guess at N = 20 its iteration runs
# through negative rope lengths (the warning of spec §7.6).

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

# %%
import pandas as pd

from pyomo_mbdyn.models import crane
from pyomo_mbdyn.ocp import multipliers, solve

SCHEMES = ("bem", "rem", "gc")
OPTIONS = {"bem": {"tol": 1e-10}, "rem": {"tol": 1e-10}, "gc": {"tol": 1e-10}}
system = crane.build_system()
print(system.validate())
models, rows = {}, []
for scheme in SCHEMES:
    m = crane.build(scheme)                            # N = 40, interpolated guess
    result = solve(m, "casadi_ipopt", options=OPTIONS[scheme], duals=True)   # with the multipliers
    models[scheme] = m
    rows.append({"scheme": scheme, "iterations": result.solver.iterations, "J": pyo.value(m.ocp.control_effort)})
costs = pd.DataFrame(rows).set_index("scheme")
J = costs["J"]
print(f"|J_bem − J_rem| / J_bem = {abs(J['bem'] - J['rem']) / J['bem']:.1e}")
print(f"(J_bem − J_gc) / J_bem  = {(J['bem'] - J['gc']) / J['bem']:.2e}")
assert abs(J["bem"] - J["rem"]) < 1e-9 * J["bem"] and 1e-4 < (J["bem"] - J["gc"]) / J["bem"] < 1e-3
costs

# %% [markdown]
# ## Coordinates
#
# Every scheme reaches q_f at rest, with a positive rope length l = r β and the
# load below the trolley (z > 0) at every node.  The swing angle
# α = atan2(x − s, z) is the unactuated degree of freedom: the trolley
# accelerates, the load lags behind, and the controls bring it to rest under
# the trolley.

# %%
trajectories = {scheme: m.dyn.trajectory() for scheme, m in models.items()}
for scheme, trajectory in trajectories.items():
    t, q, v, u, nu = trajectory.t, trajectory.q, trajectory.v, trajectory.u, trajectory.nu
    print(f"{scheme}: q_N = {q[-1].round(9) + 0.0}, max |v_N| = {np.abs(v[-1]).max():.1e}, "
          f"min l = {crane.RADIUS * q[:, 1].min():.3f}, min z = {q[:, 3].min():.3f}")
    assert np.allclose(q[-1], crane.QF, atol=1e-8) and q[:, 1].min() > 0 and q[:, 3].min() > 0
print(f"max |q_rem − q_bem| = {np.abs(trajectories['rem'].q - trajectories['bem'].q).max():.1e}, "
      f"max |q_gc − q_bem| = {np.abs(trajectories['gc'].q - trajectories['bem'].q).max():.1e}")

t, q = trajectories["bem"].t, trajectories["bem"].q
s, beta, x, z = q.T
fig = Figure(figsize=(15, 4))
axes = fig.subplots(1, 3)
plotting.plot_coordinates(t, np.column_stack([s, x, z, crane.RADIUS * beta]),
                          ["trolley s", "load x", "load z", "rope l = r β"], ax=axes[0])
for scheme, trajectory in trajectories.items():
    t, q = trajectory.t, trajectory.q
    axes[1].plot(t, np.degrees(np.arctan2(q[:, 2] - q[:, 0], q[:, 3])), marker=".", label=scheme)
axes[1].set_title("swing angle α [°]"); axes[1].set_xlabel("t"); axes[1].legend(); axes[1].grid(alpha=0.3)
for k in range(0, len(t), 5):                       # the crane seen from the side, every fifth node
    shade = 0.25 + 0.75 * k / (len(t) - 1)
    axes[2].plot([s[k], x[k]], [0, -z[k]], color="k", alpha=shade, lw=0.8)
    axes[2].plot(s[k], 0, "s", color="tab:blue", alpha=shade)
    axes[2].plot(x[k], -z[k], "o", color="tab:orange", alpha=shade)
axes[2].plot(x, -z, color="tab:orange", lw=0.8)
axes[2].set_aspect("equal"); axes[2].set_title("bem: trolley (■), rope and load (●)")
axes[2].set_xlabel("x"); axes[2].set_ylabel("−z"); axes[2].grid(alpha=0.3)
fig.tight_layout()
fig

# %% [markdown]
# ## Controls (u = − trolley force, − winch torque)

# %%
fig = Figure(figsize=(15, 4))
axes = fig.subplots(1, 3, sharey=True)
for ax, scheme in zip(axes, SCHEMES):
    t, u = trajectories[scheme].t, trajectories[scheme].u
    plotting.plot_controls(t, u, list(system.actuated), ax=ax)
    ax.set_title(f"controls: {scheme}")
fig.tight_layout()
fig

# %% [markdown]
# The controls follow from the momentum multipliers (u = B λᵖ for the BEM,
# u = B P λᵖ for the REM — here B P ≠ I, the crane's inputs are not dual to its
# null space):

# %%
for scheme, m in models.items():
    u = trajectories[scheme].u
    error = np.abs(multipliers.controls_from_multipliers(m.dyn) - u).max() / np.abs(u).max()
    print(f"{scheme}: max |u(λ) − u| / max |u| = {error:.1e}")
    assert error < 1e-7

# %% [markdown]
# ## Energy: T + V + W
#
# The load is lifted (z, measured downward, goes from 4 to 1): V = −m g z
# grows, and the control work W — the work done by the crane on its actuators —
# falls by as much.  The BEM and REM keep
# E = T + V + W constant; GC does not.  (A `CoordinateSystem` has no
# angular momentum; its momentum columns are NaN and are left out of the plot.)

# %%
tables = {scheme: m.dyn.diagnostics() for scheme, m in models.items()}
spread = pd.Series({scheme: np.ptp(tab["E"]) / tab["T"].max() for scheme, tab in tables.items()},
                   name="spread of E / max T")
print(spread.to_string(float_format=lambda x: f"{x:.1e}"))
assert spread["bem"] < 1e-10 and spread["rem"] < 1e-10 and spread["gc"] > 1e-3
fig = plotting.plot_conservation(tables["bem"].dropna(axis=1, how="all"))
ax = fig.axes[1]
tab = tables["gc"]
ax.plot(tab["t"], tab["E"] - tab["E"].iloc[0], color="tab:green", marker=".", label="gc")
ax.legend(["bem", "gc"])
fig
