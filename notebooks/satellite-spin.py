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
# # Three-rotor satellite: friction and rotor torques (thesis E1, Figs. 4.8–4.9)
#
# A main body (a solid ellipsoid) carries three rotors (discs) on revolute
# joints along its principal axes.  **Friction case**: joint friction k = 100,
# no torques, initial relative rotor rates (1, 2, 3) and main-body angular
# velocity (0.2, 0.3, 0.4).  Friction dissipates the kinetic energy, T + D is
# constant, and the total angular momentum stays at **J₃ = 1336.6779** — but only
# with the *contravariant* control matrix B(q♯), for which B(q♯) P(q_{k+½}) = I
# exactly; with the plain-midpoint B it drifts.  The model solves the BEM block
# by IPOPT (started from the Newton stepper's solution of the same equations).

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
from pyomo_mbdyn.diagnostics import trajectory_table
from pyomo_mbdyn.models import satellite_spin
from pyomo_mbdyn.simulate import simulate

m = satellite_spin.build(scheme="bem", steps=20, case="friction")
result = get_solver("casadi_ipopt").solve(m)
print(result.solver.termination_condition)
trajectory = m.dyn.trajectory()
t, q, v, u, nu = trajectory.t, trajectory.q, trajectory.v, trajectory.u, trajectory.nu
system = m.dyn.system
table = m.dyn.diagnostics()
print(table[["t", "T", "D", "E", "Lz"]].iloc[::5].to_string())
assert np.all(np.round(table["Lz"], 4) == 1336.6779)

# %% [markdown]
# ## Configuration snapshots
#
# The satellite spins in place, so the snapshots are drawn side by side (a film
# strip, shifted along x).  Each body is its equivalent box with its directors.

# %%
ax = plotting.plot_snapshots(system, q, t=t, count=5, offset="auto")
ax.figure

# %% [markdown]
# ## Energy and angular momentum (Fig. 4.9)
#
# T falls, D (the energy dissipated by friction) rises, E = T + D stays
# constant, and the angular momentum does not move.

# %%
plotting.plot_conservation(table)

# %% [markdown]
# The same motion with the plain-midpoint B (``contravariant=False``): the
# angular momentum is no longer conserved; the error shrinks with h.

# %%
q0, v0, u0 = satellite_spin.initial_state(system, "friction")
fig = Figure(figsize=(7, 4))
ax = fig.add_subplot()
ax.plot(table["t"], table["Lz"], "k-", lw=2, label="contravariant B(q♯), N = 20")
drift = {}
for N in (5, 20):
    plain = trajectory_table(simulate(system, q0, v0, satellite_spin.HORIZON / N, N,
                                      np.tile(u0, (N, 1)), scheme="bem", contravariant=False))
    ax.plot(plain["t"], plain["Lz"], marker=".", label=f"plain midpoint B, N = {N}")
    drift[N] = float(np.abs(plain["Lz"] - 1336.6779).max())
ax.set_xlabel("t"); ax.set_ylabel("L_z"); ax.legend(); ax.grid(alpha=0.3)
print({N: round(d, 2) for N, d in drift.items()})
assert drift[5] > drift[20] > 1
fig

# %% [markdown]
# ## Rotor torques (Fig. 4.8)
#
# From rest, the thesis's u = 200 on each rotor joint (its sign: the applied torque is
# u = −200 N m).  The
# torques are internal: the total angular momentum stays zero while the rotors
# spin up, and T + W = 0 (the kinetic energy is the work done by the motors).

# %%
torque_system = satellite_spin.build_system("torque")
q0, v0, u0 = satellite_spin.initial_state(torque_system, "torque")
N = 10
spin_up = simulate(torque_system, q0, v0, satellite_spin.HORIZON / N, N, np.tile(u0, (N, 1)), scheme="bem")
torque_table = trajectory_table(spin_up)
assert np.abs(torque_table[["Lx", "Ly", "Lz"]].to_numpy()).max() < 1e-8
assert np.abs(torque_table["E"]).max() < 1e-8 * torque_table["T"].max()
plotting.plot_controls(spin_up.t, spin_up.u, torque_system.actuated).figure

# %%
plotting.plot_conservation(torque_table)
