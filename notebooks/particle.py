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
# # Particle in a central field: the indirect DNCO in three dimensions (thesis E7, Ch. 8.2)
#
# A unit mass in the gravitational field V = −1/|q| (M = I₃,
# H = ½|p|² + V) carries thrusters u (entering like ∇V) and moves in T = π from
# q₀ = (1, 0, 0), p₀ = (0, 1, 0) to q_f = (0, 0, 1.5), p_f = (0, −1, 0),
# minimising J_d = h Σ ½|u|² (N = 20).  Uncontrolled, it would run the unit
# semicircle in the (x, y) plane to (−1, 0, 0); the thrusters lift it onto the
# e₃ axis.  That semicircle is the initial guess.
#
# Schemes: **dnco** — the indirect DNCO with the Gonzalez discrete gradient
# (H_α = ∇H(x_{k+½})) and the H-conserving costates (Eqs. 8.49–8.53);
# **direct-gonzalez** and **direct-midpoint** — the NLPs with those state
# equations, costates from the duals.  Figures: the orbit, the controls, the
# discrete Hamiltonian (constant only for the indirect method), the energy
# balance, and a small convergence table.

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

import pandas as pd

from pyomo_mbdyn.ocp import costate_table, solve
from pyomo_mbdyn.ocp.costates import costates, hamiltonian_drift


def solved(module, scheme, steps):
    """The model of ``module`` with ``scheme`` and N = ``steps``, solved by IPOPT at tol 1e-12."""
    m = module.build(scheme, steps=steps)
    solve(m, "casadi_ipopt", options={"tol": 1e-12})
    return m


def summary(models):
    """J_d, H^d_{0,1}, the spread of H^d and of T + V + W, per scheme."""
    rows = []
    for scheme, m in models.items():
        Hd = m.dyn.interval_table(costates(m.dyn))["Hd"]      # costates: variables, or −dual/h
        rows.append({"scheme": scheme, "J_d": m.dyn.cost(), "H^d_{0,1}": Hd.iloc[0],
                     "spread of H^d": np.ptp(Hd), "spread of T + V + W": np.ptp(m.dyn.diagnostics()["E"])})
    return pd.DataFrame(rows).set_index("scheme")


# %%
from pyomo_mbdyn.models import particle

SCHEMES = ("direct-midpoint", "direct-gonzalez", "dnco")
models = {scheme: solved(particle, scheme, particle.STEPS) for scheme in SCHEMES}
print("indirect DNCO: unknowns, equations =", models["dnco"].dyn.check_structure())
table = summary(models)
assert table.loc["dnco", "spread of H^d"] < 1e-12 * abs(table.loc["dnco", "H^d_{0,1}"])
assert table.loc["direct-gonzalez", "spread of H^d"] > 1e-3
table

# %% [markdown]
# ## The orbit and the thrust

# %%
trajectory = models["dnco"].dyn.trajectory()
t, x, u, lam = trajectory.t, np.hstack([trajectory.q, trajectory.p]), trajectory.u, trajectory.costates
fig = Figure(figsize=(15, 4.5))
ax = fig.add_subplot(1, 3, 1, projection="3d")
guess = particle.semicircle(t)
ax.plot(*guess[:, :3].T, "k:", label="guess: uncontrolled semicircle")
for scheme, m in models.items():
    ax.plot(*m.dyn.trajectory().q.T, marker=".", label=scheme)
ax.scatter(0, 0, 0, color="k", marker="*", s=80)
ax.set_xlabel("x"); ax.set_ylabel("y"); ax.set_zlabel("z"); ax.legend(fontsize="small")
ax.set_title("orbit (★: the attracting centre)")
plotting.plot_coordinates(t, x[:, :3], ["x", "y", "z"], ax=fig.add_subplot(1, 3, 2), units="1", time_unit="1")
plotting.plot_controls(t, u, ["u_x", "u_y", "u_z"], ax=fig.add_subplot(1, 3, 3), units="1",
                       time_unit="1")   # the thesis's particle is nondimensional
assert np.allclose(u, lam[:, 3:], atol=1e-10)                  # the control equation u = λᵖ
assert np.allclose(x[-1], np.concatenate([particle.QF, particle.PF]))
fig.tight_layout()
fig

# %% [markdown]
# ## The discrete Hamiltonian
#
# Constant to round-off for the indirect DNCO, not for the direct
# transcriptions (costates from their duals).

# %%
tab = models["dnco"].dyn.interval_table()
plotting.plot_discrete_hamiltonian(tab["t"].to_numpy(), tab["Hd"].to_numpy()).figure

# %%
fig = Figure(figsize=(7, 4))
ax = fig.add_subplot()
for scheme, m in models.items():
    tab = m.dyn.interval_table(costates(m.dyn))
    ax.plot(tab["t"], tab["Hd"], marker=".", label=scheme)
ax.set_xlabel("t"); ax.set_ylabel("H^d_{k,k+1}"); ax.set_title("discrete Hamiltonian"); ax.legend(); ax.grid(alpha=0.3)
fig

# %% [markdown]
# ## Energy consistency
#
# The Gonzalez gradient satisfies ∇̄H·Δx = H(x_{k+1}) − H(x_k), so
# T + V + W (W = Σ u·Δq) is constant for both Gonzalez solutions; the midpoint
# rule's is not.

# %%
print(table["spread of T + V + W"].to_string(float_format=lambda v: f"{v:.1e}"))
assert table.loc["dnco", "spread of T + V + W"] < 1e-12 and table.loc["direct-gonzalez", "spread of T + V + W"] < 1e-12
assert table.loc["direct-midpoint", "spread of T + V + W"] > 1e-4
plotting.plot_conservation(models["dnco"].dyn.diagnostics())

# %% [markdown]
# ## Convergence (coarse N only)
#
# The thesis follows J_d, H^d and the mean costates λ^q₃, λᵖ₃ of the indirect
# method as N doubles; their differences shrink by about 4 (second order).
# Here N = 10, 20, 40 (`pyomo-mbdyn run particle --steps N` for more).

# %%
LEVELS = (10, 20, 40)
rows = []
for N in LEVELS:
    m = models["dnco"] if N == particle.STEPS else solved(particle, "dnco", N)
    lam = m.dyn.trajectory().costates
    direct = models["direct-gonzalez"] if N == particle.STEPS else solved(particle, "direct-gonzalez", N)
    Hd_direct = direct.dyn.interval_table(costates(direct.dyn))["Hd"]
    rows.append({"N": N, "J_d": m.dyn.cost(), "H^d": m.dyn.interval_table()["Hd"].iloc[0],
                 "mean λ^q_z": lam[:, 2].mean(), "mean λ^p_z": lam[:, 5].mean(),
                 "H^d spread, direct-gonzalez": np.ptp(Hd_direct)})
convergence = pd.DataFrame(rows).set_index("N")
d = convergence.diff().abs()
ratios = (d.iloc[1] / d.iloc[2])[["J_d", "H^d", "mean λ^q_z", "mean λ^p_z"]]
print("ratio of successive differences:", ratios.round(2).to_dict())
assert np.all((ratios > 3.3) & (ratios < 4.5))
convergence
