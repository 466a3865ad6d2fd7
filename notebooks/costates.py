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
# # Costates and multipliers: BEM, REM and DNCO (thesis §2.11–2.12)
#
# A direct transcription's KKT multipliers are the discrete costates of the
# indirect method — up to sign and scale.  This notebook states the library's
# one convention and checks the relations of the thesis on two examples: the
# three-link arm (BEM against REM, Eqs. 7.19–7.22) and the pendulum (direct
# transcriptions against the indirect DNCO, Ch. 8).
#
# **The sign convention, once.**  Every multiplier the library returns belongs
# to the Lagrangian
#
#   𝓛 = J + Σ_rows λ · g,
#
# with each row g written exactly as the scheme block states it (g = 0).
# Pyomo's `dual` Suffix — filled by IPOPT through the AMPL interface, and by
# `casadi_ipopt`, which copies it — holds ∂J/∂b, which for a minimisation is
# −λ.  Hence
#
# * **λ = −dual** for the BEM, REM and GC momentum rows
#   (`pyomo_mbdyn.ocp.multipliers`), and
# * **λ = −dual / h** for the DNCO's direct transcription
#   (`pyomo_mbdyn.ocp.costates`), whose state-equation rows are the thesis rows
#   divided by h.
#
# With that sign and u the applied force the control equation reads u = λᵖ (REM, DNCO) and
# u = B(q♯)λᵖ (BEM; the thesis, whose u is minus the applied force, prints both with a
# minus sign), and the two formulations' multipliers are related by
# λ^REM = B(q♯_{k+½}) λ^BEM and λ^BEM = P(q_{k+½}) λ^REM.  The `dual` Suffix
# must exist *before* the solve: `solve(m, duals=True)` declares it (as
# `m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)` by hand would)
# (the DNCO models' direct transcriptions add it themselves).

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

# %% [markdown]
# ## The three-link arm: BEM against REM
#
# Both at N = 10 (the arm of `three-link-arm.ipynb`).  The BEM has one momentum
# row per director coordinate (n = 36), the REM one per joint (3).

# %%
from pyomo_mbdyn.models import three_link_arm
from pyomo_mbdyn.ocp import multipliers, solve

arm = {}
for scheme in ("bem", "rem"):
    m = three_link_arm.build(scheme, steps=10)
    solve(m, "casadi_ipopt", options={"tol": 1e-10}, duals=True)   # declares m.dual, the multipliers
    arm[scheme] = m
bem, rem = arm["bem"].dyn, arm["rem"].dyn
lam_bem = multipliers.momentum_multipliers(bem)          # (N, 36)
lam_rem = multipliers.momentum_multipliers(rem)          # (N, 3)
print("λ^BEM:", lam_bem.shape, " λ^REM:", lam_rem.shape)

mapped = multipliers.rem_from_bem(bem, lam_bem)           # B(q♯) λ^BEM
back = multipliers.bem_from_rem(bem, lam_rem)             # P(q_{k+½}) λ^REM
scale = np.abs(lam_rem).max()
q = bem.configuration_values()
G_lam = max(np.abs(np.asarray(bem.system.constraint_jacobian(0.5 * (q[k] + q[k + 1])), float) @ lam_bem[k]).max()
            for k in range(len(lam_bem)))
checks = {"|B λ^BEM − λ^REM| / |λ^REM|": np.abs(mapped - lam_rem).max() / scale,
          "|P λ^REM − λ^BEM| / |λ^BEM|": np.abs(back - lam_bem).max() / np.abs(lam_bem).max(),
          "|G(q_{k+½}) λ^BEM| / |λ^BEM|": G_lam / np.abs(lam_bem).max()}
for scheme, m in arm.items():
    u = m.dyn.trajectory().u
    checks[f"|u(λ) − u| / |u|  ({scheme})"] = np.abs(multipliers.controls_from_multipliers(m.dyn) - u).max() / np.abs(u).max()
for name, value in checks.items():
    print(f"{name:32s} {value:.1e}")
assert max(checks.values()) < 1e-7

# %%
t = bem.h * (np.arange(len(lam_rem)) + 0.5)               # interval midpoints
plotting.plot_costates(mapped, lam_rem, labels=("B(q♯) λ^BEM", "λ^REM"), t=t,
                       names=list(rem.velocities), title="momentum multipliers")

# %% [markdown]
# λ^BEM itself lives in the range of P: only three combinations of its 36
# entries are independent.  Per body, its entries are the multipliers of that
# body's momentum rows (a force on φ, couples on the directors):

# %%
import pandas as pd

columns = [f"{body}.{c}" for body in bem.system.bodies for c in bem.body[body].coordinates]
frame = pd.DataFrame(lam_bem, columns=columns, index=pd.Index(t.round(3), name="t_{k+½}"))
frame[[c for c in columns if c.startswith("link3.")]].round(1)

# %% [markdown]
# ## The pendulum: direct duals against indirect costates
#
# For the DNCO of `pendulum.ipynb` the costates λ = (λ^q, λᵖ) live on the
# intervals.  `costate_table(direct, indirect)` reads the direct
# transcription's duals (λ = −dual/h) and puts them next to the indirect
# method's costate variables, with u and H^d.  Both approximate the continuous
# costate at the interval midpoints, so at equal N they differ by O(h²); the
# control equation u = λᵖ holds for both.

# %%
from pyomo_mbdyn.models import pendulum
from pyomo_mbdyn.ocp import costate_table

pend = {}
for scheme in ("direct-midpoint", "direct-greenspan", "dnco"):
    m = pendulum.build(scheme)                  # direct schemes: m.dual is created by the model
    solve(m, "casadi_ipopt", options={"tol": 1e-12})
    pend[scheme] = m
tables = {scheme: costate_table(pend[scheme].dyn, pend["dnco"].dyn) for scheme in ("direct-midpoint", "direct-greenspan")}
for scheme, tab in tables.items():
    print(f"{scheme}: max |u − λᵖ| = {np.abs(tab['u_q'] - tab['lam_p_q_direct']).max():.1e}, "
          f"max |λ_direct − λ_indirect| = {np.abs(tab[['dlam_q_q', 'dlam_p_q']].to_numpy()).max():.3f}")
    assert np.abs(tab["u_q"] - tab["lam_p_q_direct"]).max() < 1e-8
tables["direct-greenspan"].round(5)

# %%
fig = Figure(figsize=(14, 4))
axes = fig.subplots(1, 2)
for ax, part in zip(axes, ("q", "p")):
    t_mid = tables["direct-greenspan"]["t"]
    ax.plot(t_mid, tables["direct-greenspan"][f"lam_{part}_q_indirect"], "k-", lw=2, label="dnco (indirect)")
    for scheme, tab in tables.items():
        ax.plot(t_mid, tab[f"lam_{part}_q_direct"], marker=".", label=f"{scheme} (−dual/h)")
    ax.set_title(f"λ^{part}"); ax.set_xlabel("t"); ax.legend(); ax.grid(alpha=0.3)
fig.tight_layout()
fig

# %%
tab = tables["direct-greenspan"]
plotting.plot_costates(tab[["lam_q_q_indirect", "lam_p_q_indirect"]].to_numpy(),
                       tab[["lam_q_q_direct", "lam_p_q_direct"]].to_numpy(),
                       labels=("dnco", "direct-greenspan"), t=tab["t"].to_numpy(), names=["λ^q", "λ^p"])
