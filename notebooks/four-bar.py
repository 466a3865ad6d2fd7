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
# # A four-bar linkage: optimal control of a closed loop
#
# A crank-rocker (crank A→B 0.4 m, coupler B→C 1.789 m, rocker D→C 1.204 m, ground
# A–D 1.5 m; slender bars of 1, 4 and 3 kg) under gravity along −e₂.  The
# spanning tree ground–crank–coupler–rocker has the joint coordinates of A, B
# and C; the revolute **D** closes the loop.  Its five rows hold the pin to the
# ground (x, y, z) and the axis (two rows); in a planar loop three of them repeat
# the others, and with them the KKT matrix of every multiplier scheme is singular
# (rank 110 of 113 for one BEM step).  The library finds them at the assembled
# configuration, checks the rank again at a second one, and leaves them out.
#
# The crank is turned by π/2 in 1 s, from rest to rest, with least effort
# J = h Σ ½u² (N = 20).  Shown here: BEM (multipliers) and REM (the discrete
# null space method on the loop, with P = P_tree N from coordinate partitioning)
# reach the same optimum; every row of the loop holds at every node; T + V + W
# is conserved; and the multipliers of the closing joint are the force the
# ground pivot D transmits, compared with the Udwadia–Kalaba force of constraint
# and with a static analysis at rest.

# %%
# %matplotlib inline
import numpy as np
import pandas as pd
import pyomo.environ as pyo
from matplotlib.figure import Figure

from pyomo_mbdyn import plotting
from pyomo_mbdyn.models import four_bar
from pyomo_mbdyn.ocp import solve
from pyomo_mbdyn.simulate.udwadia_kalaba import UdwadiaKalabaSystem

system = four_bar.build_system()
report = system.validate()
{key: report[key] for key in ("n", "m", "dof", "loop_joints", "dropped_constraints", "independent")}

# %% [markdown]
# ## BEM = REM on the loop

# %%
models, rows = {}, []
for scheme in ("bem", "rem"):
    m = four_bar.build(scheme)
    result = solve(m, "casadi_ipopt", options={"tol": 1e-12})
    tr = m.dyn.trajectory()
    E = m.dyn.diagnostics()["E"].to_numpy()
    models[scheme] = m
    rows.append({"scheme": scheme, "status": str(result.solver.termination_condition),
                 "unknowns": sum(1 for x in m.component_data_objects(pyo.Var) if not x.fixed),
                 "J": pyo.value(m.ocp.control_effort),
                 "max |Φ(q_k)|, all 38 rows": max(np.abs(np.asarray(system.constraints(q), float)).max()
                                                  for q in tr.q),
                 "max |E - E₀| [J]": np.abs(E - E[0]).max()})
table = pd.DataFrame(rows).set_index("scheme")
J = table["J"]
assert abs(J["bem"] / J["rem"] - 1) < 1e-8
assert table["max |Φ(q_k)|, all 38 rows"].max() < 1e-12
table

# %%
bem, rem = (models[s].dyn.trajectory() for s in ("bem", "rem"))
fig = Figure(figsize=(11, 4))
ax = fig.add_subplot(1, 2, 1, projection="3d")
plotting.plot_snapshots(system, bem.q, t=bem.t, count=6, ax=ax)
ax = fig.add_subplot(1, 2, 2)
plotting.plot_controls(bem.t, bem.u, list(system.actuated), ax=ax)
ax.plot(0.5 * (rem.t[:-1] + rem.t[1:]), rem.u[:, 0], "k.", label="rem")
ax.legend()
fig

# %% [markdown]
# ## The force in the closing joint
#
# The BEM's interval multipliers of the rows D[0], D[1] are γ_D, the x and y
# components of the force of constraint at the pivot D (sign: Gᵀγ enters
# M v̇ + ∇V + Gᵀγ + Bᵀu = 0).  Udwadia–Kalaba gives the force of constraint at
# an instant from the state and the applied forces alone,
# λ = (G M⁻¹ Gᵀ)⁻¹ (b − G M⁻¹ Q) on the active rows, with γ = −λ; evaluated at the
# interval midpoints (q_{k+½}, v_{k+½}) with the interval's control u_k.
#
# And at rest: a static analysis solves Gᵀγ + Bᵀu = −∇V (the holding torque and
# the joint force that keep the linkage still) at the start and end configurations.

# %%
dyn = models["bem"].dyn
gamma = four_bar.closing_joint_forces(dyn)
labels = system.active_labels()
rows_D = [labels.index("D[0]"), labels.index("D[1]")]
uk_force = []
for k in range(dyn.config.steps):
    q_mid, v_mid = 0.5 * (bem.q[k] + bem.q[k + 1]), 0.5 * (bem.v[k] + bem.v[k + 1])
    uk = UdwadiaKalabaSystem.from_multibody(system, controls=lambda q, v, t, u=bem.u[k]: u, rows="active")
    uk_force.append(-uk.accelerations(q_mid, v_mid).multipliers[rows_D])
uk_force = np.array(uk_force)


def static(q):
    """(γ_D, u): Gᵀγ + Bᵀu = -∇V on the active rows at q (a regular square-or-over system)."""
    G = np.asarray(system.active_jacobian(q), float)
    B = np.asarray(system.control_matrix(q), float)[system.actuated_indices]
    x = np.linalg.lstsq(np.hstack([G.T, B.T]), -system.potential_gradient(), rcond=None)[0]
    return x[rows_D], x[-1]


statics = {"t = 0": static(bem.q[0]), "t = T": static(bem.q[-1])}
t_mid = 0.5 * (bem.t[:-1] + bem.t[1:])
fig = Figure(figsize=(9, 4))
ax = fig.add_subplot()
for i, c in enumerate("xy"):
    ax.plot(t_mid, gamma[:, i], "o-", label=f"γ_D,{c} (BEM)")
    ax.plot(t_mid, uk_force[:, i], "k--", lw=1, label=f"−λ_UK,{c} at the midpoints" if i == 0 else None)
    for (name, (force, _)), marker in zip(statics.items(), "s^"):
        ax.plot([0.0 if name == "t = 0" else bem.t[-1]], [force[i]], marker, ms=9, mfc="none",
                label=f"static, {name}" if i == 0 else None)
ax.set_xlabel("t [s]")
ax.set_ylabel("force at D [N]")
ax.legend(ncol=2, fontsize=8)
fig

# %%
pd.DataFrame({name: {"γ_D,x [N]": f[0], "γ_D,y [N]": f[1], "holding control u [N m]": u}
              for name, (f, u) in statics.items()}
             | {"BEM, first interval": {"γ_D,x [N]": gamma[0, 0], "γ_D,y [N]": gamma[0, 1],
                                        "holding control u [N m]": bem.u[0, 0]},
                "BEM, last interval": {"γ_D,x [N]": gamma[-1, 0], "γ_D,y [N]": gamma[-1, 1],
                                       "holding control u [N m]": bem.u[-1, 0]}})

# %% [markdown]
# The interval multipliers follow the Udwadia–Kalaba force along the motion.
# They agree to O(h²) on this optimum, interval by interval, as in a forward
# simulation (tests/simulate/test_loop_stepping.py; tests/ocp/test_loop_models.py
# measures ratios 3.4 and 3.8 from N = 20 to 40 to 80).  (With the final rest
# B(q_N) v_N = 0 used before issue 30 the final node kept moving, its velocity left the
# tangent space with alternating sign and the gap was only O(h).)  At the ends the motion starts and stops
# with the crank accelerating, so the first and last intervals differ from the
# static holding force by the inertia of the linkage.
