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
# # Mathematical pendulum: direct against indirect, and the discrete Hamiltonian (thesis E6, Ch. 8.1)
#
# A pendulum (m = 1, l = 1, g = 9.81; q = 0 horizontal, q = π/2 hanging down),
# H(q, p) = p²/2 − g sin q, is swung from horizontal to hanging in T = 3, from
# rest to rest, by a torque u entering like ∇V, minimising
# J_d = h Σ ½u² (N = 20).  The thesis (after Gerdts) compares
#
# * **direct-midpoint** — the NLP with midpoint state equations (its KKT system
#   is the DNCO with trapezoidal costates, Eq. 8.18);
# * **direct-greenspan** — the NLP with Greenspan's discrete gradient
#   (V(q_{k+1}) − V(q_k))/(q_{k+1} − q_k) in the state equations;
# * **dnco** — the *indirect* Hamiltonian-conserving DNCO (Eqs. 8.20–8.22):
#   Greenspan state equations, the matching costate equations and u = λᵖ, one
#   square system.
#
# Figures: the motion and the controls; the discrete Hamiltonian
# H^d_{k,k+1} = −½u² + λ·[𝕁∇̄H − (0, u)], constant for the indirect method and
# drifting as O(h²) for the direct ones (whose costates are read from the NLP
# duals); the energy balance T + V + W, exact with Greenspan's gradient; and a
# small convergence table.

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
from pyomo_mbdyn.models import pendulum

SCHEMES = ("direct-midpoint", "direct-greenspan", "dnco")
models = {scheme: solved(pendulum, scheme, pendulum.STEPS) for scheme in SCHEMES}
print("indirect DNCO: unknowns, equations =", models["dnco"].dyn.check_structure())
table = summary(models)
assert table.loc["dnco", "spread of H^d"] < 1e-12 * abs(table.loc["dnco", "H^d_{0,1}"])
assert table.loc["direct-midpoint", "spread of H^d"] > table.loc["direct-greenspan", "spread of H^d"] > 0.05
table

# %% [markdown]
# ## Motion and controls
#
# The three solutions are close (they discretise the same problem); the
# controls are constant on each interval.

# %%
fig = Figure(figsize=(15, 4))
axes = fig.subplots(1, 3)
for scheme, m in models.items():
    trajectory = m.dyn.trajectory()
    t, x, u, _ = trajectory.t, np.hstack([trajectory.q, trajectory.p]), trajectory.u, trajectory.costates
    axes[0].plot(t, x[:, 0], marker=".", label=scheme)
    axes[1].plot(t, x[:, 1], marker=".", label=scheme)
axes[0].set_title("angle q"); axes[1].set_title("momentum p")
for ax in axes[:2]:
    ax.set_xlabel("t"); ax.legend(); ax.grid(alpha=0.3)
U = np.column_stack([m.dyn.trajectory().u[:, 0] for m in models.values()])
plotting.plot_controls(t, U, list(SCHEMES), ax=axes[2])
fig.tight_layout()
fig

# %% [markdown]
# ## The discrete Hamiltonian
#
# For the indirect DNCO, H^d is the same on every interval (left: H^d, right:
# the deviation from H^d_{0,1}, at round-off level).

# %%
tab = models["dnco"].dyn.interval_table()
plotting.plot_discrete_hamiltonian(tab["t"].to_numpy(), tab["Hd"].to_numpy()).figure

# %% [markdown]
# The direct methods' H^d, evaluated with the costates read from their duals,
# varies over the intervals — less with Greenspan's gradient than with the
# midpoint rule.

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
# With Greenspan's quotient, H(x_{k+1}) − H(x_k) = u·Δq exactly, so
# E = T + V + W, with the discrete work W_k = −Σ_{i<k} u_{i,i+1}(q_{i+1} − q_i), is
# constant — for the direct and the indirect method alike.  The midpoint rule
# has no such identity.

# %%
fig = Figure(figsize=(7, 4))
ax = fig.add_subplot()
for scheme, m in models.items():
    diag = m.dyn.diagnostics()
    ax.plot(diag["t"], diag["E"] - diag["E"].iloc[0], marker=".", label=scheme)
ax.set_xlabel("t"); ax.set_ylabel("E − E₀"); ax.set_title("T + V + W"); ax.legend(); ax.grid(alpha=0.3)
assert table.loc["dnco", "spread of T + V + W"] < 1e-12 and table.loc["direct-greenspan", "spread of T + V + W"] < 1e-12
assert table.loc["direct-midpoint", "spread of T + V + W"] > 1e-2
fig

# %%
plotting.plot_conservation(models["dnco"].dyn.diagnostics())

# %% [markdown]
# ## Convergence (coarse N only)
#
# J_d for N = 10, 20, 40: the differences between consecutive levels shrink
# by about 4 (second order); the spread of the direct methods' H^d shrinks by
# about 4 too, while the indirect one stays at round-off.  The indirect
# solution is feasible for the direct Greenspan NLP, so its J_d is never below
# that optimum.

# %%
LEVELS = (10, 20, 40)
rows = []
for N in LEVELS:
    level = {scheme: (models[scheme] if N == pendulum.STEPS else solved(pendulum, scheme, N)) for scheme in SCHEMES}
    s = summary(level)
    rows.append({("J_d", scheme): s.loc[scheme, "J_d"] for scheme in SCHEMES}
                | {("spread of H^d", scheme): s.loc[scheme, "spread of H^d"] for scheme in SCHEMES})
convergence = pd.DataFrame(rows, index=pd.Index(LEVELS, name="N"))
convergence.columns = pd.MultiIndex.from_tuples(convergence.columns)
J = convergence["J_d"]
ratios = (J.iloc[0] - J.iloc[1]) / (J.iloc[1] - J.iloc[2])
print("ratio of successive J_d differences:", ratios.round(2).to_dict())
assert np.all((ratios > 3) & (ratios < 5))
assert np.all(J["dnco"] >= J["direct-greenspan"])
convergence
