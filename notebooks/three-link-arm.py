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
# # Planar three-link arm: BEM = REM against GC (thesis E3, Chs. 6–7)
#
# Three links (Table 6.1: masses 30, 25, 10, lengths 7, 6, 8) hang on revolute
# joints about e₃ — the shoulder (absolute angle α₁), the elbow (α₂) and the
# wrist (α₃), all actuated — under gravity g = 9.81 along −e₂.  From
# α₀ = (π/2, −π/2, π/2) (link 2 horizontal) the arm straightens up to
# α_f = (π/2, 0, 0) in T = 3, at rest at both ends, minimising
# J = h Σ ½|u|².  The final configuration is imposed in each scheme's regular
# form and the final rest as P(q_N)ᵀ M v_N = 0 (rest in the degrees of freedom; the
# thesis's ν_N = B(q_N) v_N = 0 gives the same optimum on this arm, but is not rest
# in general: `require_final_rest` says what each scheme imposes).
#
# The thesis prints no numbers for the arm; what it states, and what this
# notebook shows, is structural:
#
# * the energy-momentum scheme with multipliers (**BEM**, directors, n = 36) and
#   its reduction by the discrete null space method (**REM**, three joint-angle
#   increments per step) have *the same* optimum;
# * both conserve T + V + W (kinetic + potential energy + control work) exactly;
#   the midpoint rule in generalised coordinates (**GC**, the baseline) does not,
#   and its optimum is close but different;
# * the controls follow from the momentum multipliers, u = B λᵖ.
#
# All three schemes run at **N = 10** (the model's N is 20), to keep this
# notebook fast, each with IPOPT's exact Hessian from the interpolated guess.
# The joint-angle DNCO of Ch. 8 (`--scheme dnco`) has its own notebook,
# `three-link-arm-dnco.ipynb`.

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
import time

import pandas as pd

from pyomo_mbdyn.models import three_link_arm
from pyomo_mbdyn.ocp import multipliers, solve

STEPS = 10
SCHEMES = ("bem", "rem", "gc")
OPTIONS = {"bem": {"tol": 1e-10}, "rem": {"tol": 1e-10}, "gc": {"tol": 1e-10}}
models, rows = {}, []
for scheme in SCHEMES:
    start = time.perf_counter()
    m = three_link_arm.build(scheme, steps=STEPS)          # interpolated guess, same for every scheme
    result = solve(m, "casadi_ipopt", options=OPTIONS[scheme], duals=True)   # with the multipliers
    models[scheme] = m
    rows.append({"scheme": scheme,
                 "variables": sum(1 for x in m.component_data_objects(pyo.Var) if not x.fixed),
                 "constraints": sum(1 for _ in m.component_data_objects(pyo.Constraint, active=True)),
                 "iterations": result.solver.iterations, "J": pyo.value(m.ocp.control_effort),
                 "seconds": round(time.perf_counter() - start, 1)})
costs = pd.DataFrame(rows).set_index("scheme")
costs

# %% [markdown]
# BEM and REM reach the same cost and the same motion to solver tolerance;
# GC's cost and motion differ a little: it is another discretisation of the
# same problem.  Every scheme ends at α_f.

# %%
J = costs["J"]
bem_rem = abs(J["bem"] - J["rem"]) / J["rem"]
gc_gap = (J["gc"] - J["rem"]) / J["rem"]
print(f"|J_bem − J_rem| / J_rem = {bem_rem:.1e}")
print(f"(J_gc − J_rem) / J_rem  = {gc_gap:+.2e}")
assert bem_rem < 1e-9 and 1e-5 < abs(gc_gap) < 1e-2

trajectories = {scheme: m.dyn.trajectory() for scheme, m in models.items()}
for scheme in ("rem", "gc"):
    print(f"max |q_{scheme} − q_bem| = {np.abs(trajectories[scheme].q - trajectories['bem'].q).max():.1e}")
assert np.abs(trajectories["rem"].q - trajectories["bem"].q).max() < 1e-8
for scheme, trajectory in trajectories.items():
    t, q, v, u, nu = trajectory.t, trajectory.q, trajectory.v, trajectory.u, trajectory.nu
    alpha_N = three_link_arm.joint_angles(q[-1])
    print(f"{scheme}: α_N = {alpha_N.round(10) + 0.0}")
    assert np.allclose(alpha_N, three_link_arm.ALPHAF, atol=1e-9)

# %% [markdown]
# ## Configuration snapshots
#
# The arm moves in the (x, y) plane, seen from above: each link is its
# equivalent box (a thin rod) with its directors, the joints are circles.

# %%
fig = Figure(figsize=(15, 5.5))
for i, scheme in enumerate(SCHEMES):
    t, q = trajectories[scheme].t, trajectories[scheme].q
    ax = plotting.plot_snapshots(models[scheme].dyn.system, q, t=t, count=5,
                                 ax=fig.add_subplot(1, 3, i + 1, projection="3d"))
    ax.view_init(elev=90, azim=-90)
    ax.set_title(f"{scheme}: t = " + ", ".join(f"{t[k]:.2g}" for k in ax.snapshot_nodes))
fig.tight_layout()
fig

# %% [markdown]
# ## Controls
#
# The applied joint torques of the three schemes.  BEM
# and REM lie on top of each other; GC's are close.

# %%
fig = Figure(figsize=(15, 4))
axes = fig.subplots(1, 3, sharey=True)
names = list(models["rem"].dyn.system.actuated)
for ax, scheme in zip(axes, SCHEMES):
    t, u = trajectories[scheme].t, trajectories[scheme].u
    plotting.plot_controls(t, u, names, ax=ax)
    ax.set_title(f"controls: {scheme}")
fig.tight_layout()
fig

# %% [markdown]
# ## Energy: T + V + W
#
# `dyn.diagnostics()` gives, per node, the kinetic energy T, the potential V,
# the control work W (done by the arm on the actuators) and E = T + V + W.  The
# energy-momentum schemes keep E constant to round-off and solver tolerance;
# the GC midpoint rule does not.

# %%
tables = {scheme: m.dyn.diagnostics() for scheme, m in models.items()}
spread = pd.Series({scheme: np.ptp(tab["E"]) / tab["T"].max() for scheme, tab in tables.items()},
                   name="spread of E / max T")
print(spread.to_string(float_format=lambda x: f"{x:.1e}"))
assert spread["bem"] < 1e-9 and spread["rem"] < 1e-9 and spread["gc"] > 1e-3
plotting.plot_conservation(tables["bem"])

# %%
fig = Figure(figsize=(7, 4))
ax = fig.add_subplot()
for scheme, tab in tables.items():
    ax.plot(tab["t"], (tab["E"] - tab["E"].iloc[0]) / tab["T"].max(), marker=".", label=scheme)
ax.set_xlabel("t"); ax.set_ylabel("(E − E₀) / max T"); ax.set_title("T + V + W along the optima")
ax.legend(); ax.grid(alpha=0.3)
fig

# %% [markdown]
# ## Controls from the multipliers
#
# With the `dual` Suffix imported, `multipliers.controls_from_multipliers` reads
# the momentum multipliers λᵖ and applies the control equation of the discrete
# necessary conditions: u = B(q♯) λᵖ for the BEM, u = λᵖ for the REM
# (B P = I), u = B P̃ λᵖ for GC (thesis Eqs. 7.19–7.22).  The recovered
# controls are the solved ones, for every scheme.  (Sign convention and the map
# between the BEM and REM multipliers: `costates.ipynb`.)

# %%
recovered = {}
for scheme, m in models.items():
    u = trajectories[scheme].u
    recovered[scheme] = multipliers.controls_from_multipliers(m.dyn)
    error = np.abs(recovered[scheme] - u).max() / np.abs(u).max()
    print(f"{scheme}: max |u(λ) − u| / max |u| = {error:.1e}")
    assert error < 1e-7
t = trajectories["bem"].t
plotting.plot_costates(trajectories["bem"].u, recovered["bem"], labels=("solved u", "u = B λᵖ"),
                       t=t[:-1] + 0.5 * (t[1] - t[0]), names=names, title="BEM controls")

# %% [markdown]
# ## Minimum time with bounded torques (free final time)
#
# The same rest-to-rest motion, now as fast as the motors allow:
# |u| ≤ (3000, 2000, 1000) N m (about the peaks of the effort optimum at T = 3)
# and the final time free.  The scheme blocks take it as the option
# `free_horizon=(lower, upper)`: T becomes the variable `dyn.final_time`, the
# step h = T/N a named expression in every equation, and
# `OptimalControlProblem.minimise_final_time()` the objective.  The model's
# `case="time"` builds it (`pyomo-mbdyn run three-link-arm --set case=time`).
# BEM and REM reach the same T; the torques are bang-bang, and the energy
# balance T + V + W stays exact with h unknown.

# %%
timed = {}
for scheme in ("bem", "rem", "gc"):
    m = three_link_arm.build(scheme, case="time")
    solve(m, "casadi_ipopt")
    timed[scheme] = m
    print(f"{scheme}: T = {m.dyn.final_time_value:.6f} s, "
          f"energy balance error {np.ptp(m.dyn.diagnostics()['E']):.1e}")
assert abs(timed["bem"].dyn.final_time_value - timed["rem"].dyn.final_time_value) < 1e-7
tr = timed["rem"].dyn.trajectory()
limits = np.array([three_link_arm.TORQUE_LIMITS[a] for a in timed["rem"].dyn.actuated])
ax = plotting.plot_controls(tr.t, tr.u / limits, names, units="1")   # u / U: no unit
ax.set_ylabel("u / U"); ax.set_title(f"REM, minimum time T = {tr.t[-1]:.4f} s: bang-bang torques")
ax.figure
