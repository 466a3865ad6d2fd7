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
# # Three-link arm in joint angles: the H-conserving DNCO (thesis E3, Ch. 8.2)
#
# The arm of `three-link-arm.ipynb` (Table 6.1, α₀ = (π/2, −π/2, π/2) to
# α_f = (π/2, 0, 0), T = 3, rest to rest, J_d = h Σ ½|u|²) written as a
# Hamiltonian system in its joint angles α: H(α, p) = ½ pᵀM(α)⁻¹p + V(α), with
# the 3 × 3 mass matrix M(α) of the planar links and the gravity potential V.
#
# Three discretisations of the same problem:
#
# * **dnco** — the *indirect* method: the Gonzalez state equations together with
#   the H-conserving costate equations (8.49–8.53) and the control equation
#   u = λᵖ (u the applied force), one square system of equations.  Its discrete Hamiltonian
#   H^d_{k,k+1} = −½|u|² + λ·[𝕁∇̄H − (0, u)] is the same on every interval;
# * **direct-gonzalez** — the NLP min J_d subject to the same state equations;
#   its costates are read from the duals, and their H^d drifts;
# * **direct-midpoint** — the NLP with midpoint state equations, which do not
#   even balance the energy T + V + W.
#
# The model's N is 40 (`pyomo-mbdyn run three-link-arm --scheme dnco`); this
# notebook uses N = 20 to stay fast.

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

from pyomo_mbdyn.models import three_link_arm, three_link_arm_dnco
from pyomo_mbdyn.ocp import solve
from pyomo_mbdyn.ocp.costates import costates, hamiltonian_drift

STEPS = 20
SCHEMES = ("dnco", "direct-gonzalez", "direct-midpoint")
models = {}
for scheme in SCHEMES:
    m = three_link_arm.build(scheme, steps=STEPS)   # dnco: started from the solved direct Gonzalez NLP
    solve(m, "casadi_ipopt", options={"tol": 1e-12})
    models[scheme] = m
dnco = models["dnco"].dyn
print("indirect DNCO: unknowns, equations =", dnco.check_structure())

rows = []
for scheme, m in models.items():
    Hd = m.dyn.interval_table(costates(m.dyn))["Hd"]          # costates: variables or −dual/h
    E = m.dyn.diagnostics()["E"]
    rows.append({"scheme": scheme, "J_d": m.dyn.cost(), "H^d_{0,1}": Hd.iloc[0],
                 "H^d drift (relative)": hamiltonian_drift(m.dyn), "spread of T + V + W": np.ptp(E)})
summary = pd.DataFrame(rows).set_index("scheme")
assert summary.loc["dnco", "H^d drift (relative)"] < 1e-10
assert summary.loc["direct-gonzalez", "H^d drift (relative)"] > 0.1
assert summary.loc["direct-gonzalez", "spread of T + V + W"] < 1e-8 < 1 < summary.loc["direct-midpoint", "spread of T + V + W"]
# the same problem, discretised alike: the costs agree closely
gap = summary.loc["dnco", "J_d"] / summary.loc["direct-gonzalez", "J_d"] - 1
print(f"J_d(dnco) / J_d(direct-gonzalez) − 1 = {gap:+.1e}")
assert abs(gap) < 1e-3
summary

# %% [markdown]
# ## The motion
#
# The joint angles are mapped to the director model of `three_link_arm` by its
# exact reparametrisation (α − α₀ are the chart coordinates of its three
# revolute joints) and drawn from above.

# %%
trajectory = dnco.trajectory()
t, x, u, lam = trajectory.t, np.hstack([trajectory.q, trajectory.p]), trajectory.u, trajectory.costates
alpha = x[:, :3]
arm = three_link_arm.build_system()
q = np.array([arm.reparametrise(a - three_link_arm.ALPHA0, arm.q0) for a in alpha], dtype=float)
assert np.allclose([three_link_arm.joint_angles(qk) for qk in q], alpha, atol=1e-12)

fig = Figure(figsize=(12, 5))
ax = plotting.plot_snapshots(arm, q, t=t, count=6, ax=fig.add_subplot(1, 2, 1, projection="3d"))
ax.view_init(elev=90, azim=-90)
plotting.plot_coordinates(t, alpha, ["α₁", "α₂", "α₃"], ax=fig.add_subplot(1, 2, 2), units="rad")
fig.tight_layout()
fig

# %%
assert np.allclose(u, lam[:, 3:], atol=1e-8 * np.abs(u).max())    # the control equation u = λᵖ
plotting.plot_controls(t, u, three_link_arm_dnco.build_system().names, units="N m").figure

# %% [markdown]
# ## The discrete Hamiltonian
#
# Constant to round-off for the indirect method (left: H^d, right: its
# deviation from H^d_{0,1}); for the direct transcriptions, whose costates are
# the NLP's duals, it drifts by per cents to tens of per cents at this N (and
# by O(h²) as N grows).

# %%
table = dnco.interval_table()
plotting.plot_discrete_hamiltonian(table["t"].to_numpy(), table["Hd"].to_numpy()).figure

# %%
fig = Figure(figsize=(7, 4))
ax = fig.add_subplot()
for scheme, m in models.items():
    tab = m.dyn.interval_table(costates(m.dyn))
    ax.plot(tab["t"], tab["Hd"] / tab["Hd"].iloc[0] - 1, marker=".", label=scheme)
ax.set_xlabel("t"); ax.set_ylabel("H^d / H^d_{0,1} − 1"); ax.legend(); ax.grid(alpha=0.3)
fig

# %% [markdown]
# ## Costates: indirect against direct
#
# The momentum costates λᵖ (= u) of the direct Gonzalez transcription, read
# from its duals (λ = −dual/h, see `costates.ipynb`), next to the indirect
# ones: both approximate the continuous costate at the interval midpoints, so
# they differ by O(h²) — visibly at N = 20.

# %%
names = [f"λᵖ {name}" for name in dnco.system.names]
plotting.plot_costates(lam[:, 3:], costates(models["direct-gonzalez"].dyn)[:, 3:],
                       labels=("dnco", "direct-gonzalez"), t=table["t"].to_numpy(), names=names)

# %% [markdown]
# ## Energy
#
# With the Gonzalez discrete gradient, H(x_{k+1}) − H(x_k) = u·Δq exactly, so
# T + V + W with the discrete work W_k = −Σ u·Δq is constant along both Gonzalez
# solutions; the midpoint rule has no such balance.

# %%
plotting.plot_conservation(dnco.diagnostics())
