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
# # Heavy symmetric top in steady precession (thesis E2, Ch. 5.5)
#
# A solid cone spins about its fixed tip under gravity, started on the steady
# precession (θ₀ = π/3, precession rate ω_p = 10).  The analytic motion is
# known, so the schemes' errors can be measured: the **quaternion
# energy-momentum scheme** (the model's default block) against the **director
# energy-momentum scheme** (BEM).  Both conserve the energy and L₃ (the
# momentum about the vertical) for any h; both converge with order 2; the
# director scheme is the more accurate at equal h.

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
from pyomo_mbdyn.models import heavy_top
from pyomo_mbdyn.schemes.quaternion import quaternion_state
from pyomo_mbdyn.simulate import simulate
from pyomo_mbdyn.discretization.quaternion import QuaternionTop, director_trajectory
from pyomo_mbdyn.simulate.quaternion import QuaternionStepper

m = heavy_top.build()                   # the quaternion block, N = 100 on [0, 1]
result = get_solver("casadi_ipopt").solve(m)
print(result.solver.termination_condition)
trajectory = m.dyn.trajectory()   # reported in director coordinates
t, q, v, u, nu = trajectory.t, trajectory.q, trajectory.v, trajectory.u, trajectory.nu
system = m.dyn.system
table = m.dyn.diagnostics()
print(table[["t", "T", "V", "E", "Lz"]].iloc[::25].to_string())
assert np.ptp(table["E"]) < 1e-10 * abs(table["E"].iloc[0]) and np.ptp(table["Lz"]) < 1e-12

# %% [markdown]
# ## Configuration snapshots
#
# The cone (its equivalent box and directors; d₃ is the symmetry axis) at six
# instants, the tip joint at the origin, and the path of the centre of mass
# against the analytic circle of steady precession (dashed).

# %%
ax = plotting.plot_snapshots(system, q, t=t, count=6)
ax.plot(*q[:, 0:3].T, color="tab:blue", lw=1, label="centre of mass")
reference = np.array([heavy_top.reference_position(s) for s in np.linspace(0, 2 * np.pi / heavy_top.OMEGA_P, 100)])
ax.plot(*reference.T, "k--", lw=0.8)
ax.figure

# %% [markdown]
# ## Energy and momentum

# %%
plotting.plot_conservation(table)

# %% [markdown]
# ## Accuracy: quaternion against director scheme
#
# The relative error e = |φ_ref − φ| / |φ_ref| of the centre of mass at t = 1,
# for halved steps.  Both errors fall by 4 per halving (order 2); the director
# scheme's is about twenty times smaller.

# %%
import pandas as pd

q0, v0 = heavy_top.initial_state(system)
top = QuaternionTop.from_system(system)
quat0, p0 = quaternion_state(top, q0, v0)
ref = heavy_top.reference_position(heavy_top.HORIZON)
error = lambda q_N: np.linalg.norm(q_N[0:3] - ref) / np.linalg.norm(ref)
rows = []
for N in (200, 400, 800):
    Q, P, _, _ = QuaternionStepper(top, 1.0 / N).simulate(quat0, p0, N)
    q_quat = director_trajectory(top, system, Q, P, 1.0 / N)[0]
    q_dir = simulate(system, q0, v0, 1.0 / N, N, scheme="bem").q
    rows.append({"N": N, "quaternion": error(q_quat[-1]), "directors (BEM)": error(q_dir[-1])})
errors = pd.DataFrame(rows).set_index("N")
orders = np.log2(errors.iloc[:-1].to_numpy() / errors.iloc[1:].to_numpy())
print("observed orders:", orders.round(3).tolist())
assert np.all(np.abs(orders - 2) < 0.1) and np.all(errors["directors (BEM)"] < errors["quaternion"] / 10)
errors

# %%
fig = Figure(figsize=(6, 4))
ax = fig.add_subplot()
for column in errors:
    ax.loglog(errors.index, errors[column], marker="o", label=column)
ax.loglog(errors.index, errors["quaternion"].iloc[0] * (errors.index[0] / errors.index) ** 2, "k:", label="order 2")
ax.set_xlabel("N (h = 1/N)"); ax.set_ylabel("relative error at t = 1"); ax.legend(); ax.grid(alpha=0.3)
fig
