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
# # Real robots: a Franka Panda from its URDF, checked against Pinocchio, moved with least effort
#
# The Panda arm (7 revolute joints, the hand removed) ships with the package as a URDF
# without meshes.  `MultibodySystem.from_urdf` reads it with the standard library's XML
# parser into director rigid bodies and `Revolute` joints — links joined by fixed joints
# lumped into their parent by the parallel-axis theorem, as Pinocchio does — keeping the
# URDF's joint names and limits.  Shown here: the import; the mechanics against
# Pinocchio (`pin`, installed by the test extra) at random states; the model `panda`'s
# optimal control problem (rest to rest between two poses in 1.5 s within the URDF's
# joint, velocity and effort limits, J = h Σ ½|u|², N = 50) in REM, checked for rest at the end;
# and the motion as an interactive 3-D page.

# %%
# %matplotlib inline
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyomo.environ as pyo
from matplotlib.figure import Figure

from pyomo_mbdyn import plotting, robots
from pyomo_mbdyn.mechanics import MultibodySystem
from pyomo_mbdyn.models import panda

system = MultibodySystem.from_urdf(robots.path("panda"))
report = system.validate()
{key: report[key] for key in ("n", "m", "dof")}

# %% [markdown]
# 84 natural coordinates (a position and three directors per link), 77 constraints,
# 7 degrees of freedom.  The URDF's limits are on the system:

# %%
pd.DataFrame({name: vars(limits) for name, limits in system.urdf_limits.items()}).T

# %% [markdown]
# ## The mechanics against Pinocchio
#
# At random joint angles and rates: the reduced mass matrix PᵀMP against `crba`, the
# generalised gravity Pᵀ∇V against `computeGeneralizedGravity`, the kinetic energy
# against `computeKineticEnergy` (largest relative differences).

# %%
import pinocchio as pin

model = pin.buildModelFromUrdf(robots.path("panda"))
data = model.createData()
M_full, grad = system.mass_matrix(), system.potential_gradient()
rng = np.random.default_rng(0)
worst = {"mass matrix": 0.0, "gravity": 0.0, "kinetic energy": 0.0}
for _ in range(20):
    theta, rates = rng.uniform(-np.pi, np.pi, 7), rng.normal(size=7)
    q = np.asarray(system.reparametrise(theta, system.q0), float)
    P = np.asarray(system.null_space(q), float)
    M_pin = pin.crba(model, data, theta)
    M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
    worst["mass matrix"] = max(worst["mass matrix"], np.abs(P.T @ M_full @ P - M_pin).max() / np.abs(M_pin).max())
    g_pin = pin.computeGeneralizedGravity(model, data, theta)
    worst["gravity"] = max(worst["gravity"], np.abs(P.T @ grad - g_pin).max() / np.abs(g_pin).max())
    v = P @ rates
    T_pin = pin.computeKineticEnergy(model, data, theta, rates)
    worst["kinetic energy"] = max(worst["kinetic energy"], abs(0.5 * v @ M_full @ v - T_pin) / T_pin)
assert max(worst.values()) < 1e-12
worst

# %% [markdown]
# ## Rest to rest with least effort
#
# The model `panda` (also `pyomo-mbdyn run panda`) poses the problem on this system:
# from the "ready" pose to θ = (0.8, −0.3, 0.5, −1.8, 0.4, 2.0, −0.3) in T = 1.5 s, at
# rest at both ends, the URDF's joint limits at every node, its velocity limits on every
# step's mean joint rate |θ_{k+1} − θ_k|/h and effort limits on every control (without the
# velocity limits, `panda.build("rem", velocity_limits=False)`, the least-effort motion turns
# joint 7 at 22 rad/s against its 2.61 rad/s, for 30 % less effort).  REM states the node configurations by the absolute chart q_k = F(θ_k) in
# joint angles (the model's choice, measured: the lifted form's KKT factorisations
# are 20× dearer on this arm); the final rest is P(q_N)ᵀ M v_N = 0, rest in every
# degree of freedom.

# %%
m = panda.build("rem")
result = m.problem.solve("casadi_ipopt")
J = pyo.value(m.ocp.control_effort)
evaluation = panda.evaluate(m)
assert str(result.solver.termination_condition) == "optimal"
assert evaluation["final_momentum"] < 1e-9 and evaluation["effort_ratio_max"] <= 1 + 1e-8
{"J": J, "iterations": result.solver.iterations, **evaluation}

# %% [markdown]
# The applied joint torques against the URDF's effort limits, the joint angles against
# their position limits, and the steps' joint rates against the velocity limits:

# %%
tr = m.dyn.trajectory()
t_mid = 0.5 * (tr.t[:-1] + tr.t[1:])
rates = np.diff(tr.theta, axis=0) / m.dyn.step_length
fig = Figure(figsize=(14, 3.6))
ax_u, ax_q, ax_v = fig.subplots(1, 3)
for j, name in enumerate(m.dyn.actuated):
    joint = name.split(".")[0]
    ax_u.plot(t_mid, -tr.u[:, j] / system.urdf_limits[joint].effort, label=joint.replace("panda_", ""))
    lim = system.urdf_limits[joint]
    ax_q.plot(tr.t, (tr.theta[:, j] - lim.lower) / (lim.upper - lim.lower))
    ax_v.plot(t_mid, rates[:, j] / lim.velocity)
assert np.abs(rates / [system.urdf_limits[a.split(".")[0]].velocity for a in m.dyn.actuated]).max() <= 1 + 1e-6
ax_u.set(xlabel="t [s]", ylabel="torque / effort limit [1]", title="joint torques")
ax_q.set(xlabel="t [s]", ylabel="(θ − lower) / (upper − lower) [1]", title="joint angles within their limits")
ax_v.set(xlabel="t [s]", ylabel="(θ_{k+1} − θ_k) / (h v_max) [1]", title="joint rates within their limits")
ax_u.legend(fontsize=7, ncol=2)
fig

# %% [markdown]
# ## The motion in 3-D
#
# One self-contained HTML page (rotate, zoom, scrub through the nodes; torques and
# energy beside it), as `pyomo-mbdyn run panda --html FILE` writes it:

# %%
workdir = Path(tempfile.mkdtemp())
page = plotting.animate_html(tr, workdir / "panda.html", system=system, title="Franka Panda, rest to rest")
print(page.name, f"{page.stat().st_size / 1e6:.1f} MB")
