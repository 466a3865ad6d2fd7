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
# # A space robot: turning the satellite by moving the arm
#
# A 300 kg box satellite carrying the Franka Panda arm, read from the shipped URDF with a
# floating base: the satellite is a free rigid body, the arm's seven joints are driven, the
# base is not, and there is no gravity.  With internal torques only, the total linear and
# angular momentum stay zero, so whatever the arm does the base answers: **a space robot turns
# its base by moving its arm**.  A motion that does not keep the momentum exactly therefore
# puts the base in the wrong place.  Shown here: the system; the attitude manoeuvre (model
# `space-robot`, case `"attitude"`) in REM, with its motion in 3-D; the momentum kept by REM
# and lost by collocation (`gc`); and the arm's point-to-point case in two lines.

# %%
# %matplotlib inline
import tempfile
from pathlib import Path

import numpy as np
import pyomo.environ as pyo
from matplotlib.figure import Figure
from scipy.spatial.transform import Rotation

from pyomo_mbdyn import plotting, robots
from pyomo_mbdyn.mechanics import MultibodySystem
from pyomo_mbdyn.models import space_robot

system = MultibodySystem.from_urdf(robots.path("space_robot"), floating_base=True)
report = system.validate()
{"floating base": system.floating_base, **{key: report[key] for key in ("n", "m", "dof")},
 "gravity": np.asarray(system.gravity).tolist(), "velocities": system.velocities[:8] + ["…"]}

# %% [markdown]
# 13 degrees of freedom: the base's six twist coordinates come first (the velocity of its
# centre of mass and its angular velocity, both in world axes), then the seven joint angles.
#
# ## The attitude manoeuvre
#
# Start at rest with the arm in its "ready" pose; end at rest with the arm back in the same
# pose and the satellite turned by 0.1 rad about z, in T = 4 s with least effort
# J = h Σ ½|u|² within the URDF's joint, velocity and effort limits.  The arm must loop
# through its joint space (a closed loop of joint angles that leaves the base turned: the
# nonholonomic, geometric-phase manoeuvre).  IPOPT starts from a loop of joints 1 and 4
# (extend, turn, retract, turn back), which the model turns into a consistent trajectory with
# `pyomo_mbdyn.ocp.path_trajectory`.  REM with N = 25 steps (and `gc` for the comparison
# below):

# %%
N = 25
solved = {}
for scheme in ("rem", "gc"):
    m = space_robot.build(scheme, steps=N, case="attitude")
    result = m.problem.solve("casadi_ipopt")
    assert str(result.solver.termination_condition) == "optimal"
    solved[scheme] = m
m = solved["rem"]
evaluation = space_robot.evaluate(m)
assert np.allclose(evaluation["base_rotation"], [0, 0, 0.1], atol=1e-8)
assert evaluation["momentum_error"] < 1e-10
{"J": pyo.value(m.ocp.control_effort), **{k: evaluation[k] for k in ("base_rotation", "momentum_error")}}

# %% [markdown]
# The satellite's rotation vector over t and the arm's joint angles: the arm goes out and
# comes back to where it started; the base does not (it tips about x and y on the way, and
# ends turned about z only).

# %%
tr = m.dyn.trajectory()
base = system.bodies["satellite"]


def base_rotation(q):
    """The satellite's rotation vector from its reference attitude (its directors' change)."""
    D = lambda qk: np.column_stack(base.directors(system.body_coordinates(qk, "satellite"))).astype(float)  # noqa: E731
    return Rotation.from_matrix(D(q) @ D(system.q0).T).as_rotvec()


angle = np.array([base_rotation(qk) for qk in tr.q])
fig = Figure(figsize=(12, 3.6))
ax_b, ax_j = fig.subplots(1, 2)
for i, axis in enumerate("xyz"):
    ax_b.plot(tr.t, angle[:, i], label=f"about {axis}")
ax_b.set(xlabel="t [s]", ylabel="rotation [rad]", title="the satellite's rotation")
ax_b.legend()
for j, name in enumerate(m.dyn.actuated):
    ax_j.plot(tr.t, tr.theta[:, 6 + j] - tr.theta[0, 6 + j], label=name.split(".")[0].replace("panda_", ""))
ax_j.set(xlabel="t [s]", ylabel="θ − θ(0) [rad]", title="the arm's joints: out and back")
ax_j.legend(fontsize=7, ncol=2)
fig

# %% [markdown]
# The motion as one self-contained, interactive HTML page (rotate, zoom, scrub through the
# nodes; the satellite's attitude and the arm), as `pyomo-mbdyn run space-robot --set
# case=attitude --html FILE` writes it:

# %%
workdir = Path(tempfile.mkdtemp())
page = plotting.animate_html(tr, workdir / "space-robot.html", system=system, title="space robot: attitude by the arm")
print(page.name, f"{page.stat().st_size / 1e6:.1f} MB")

# %% [markdown]
# ## The momentum: kept by REM, lost by collocation
#
# Per node, the total linear momentum p_k and angular momentum L_k (about the origin), their
# change |p_k − p_0| and |L_k − L_0| relative to the momentum the bodies carry one by one (the
# scales of `pyomo_mbdyn.diagnostics.momentum_errors`; the first node, exactly zero, drawn at
# 1e-18): REM keeps both at round-off, the Gauss collocation `gc` misses them by its
# discretisation error (order 2) from the first step on — its base turns by an amount the
# joint motion it reports does not give.

# %%
from pyomo_mbdyn.diagnostics import momentum_errors


def momentum_drift(m):
    """Per node: |p_k − p_0| / s_p and |L_k − L_0| / s_L (the scales of momentum_errors)."""
    tr = m.dyn.trajectory()
    p = np.array([np.asarray(system.linear_momentum(vk), float) for vk in tr.v])
    L = np.array([np.asarray(system.angular_momentum(qk, vk), float) for qk, vk in zip(tr.q, tr.v)])
    scales = momentum_errors(system, tr.q, tr.v)
    return (tr.t, np.linalg.norm(p - p[0], axis=1) / scales["linear_scale"],
            np.linalg.norm(L - L[0], axis=1) / scales["angular_scale"])


fig = Figure(figsize=(12, 3.6))
ax_p, ax_L = fig.subplots(1, 2, sharey=True)
drift = {}
for scheme, style in (("rem", "o-"), ("gc", "s-")):
    t, dp, dL = drift[scheme] = momentum_drift(solved[scheme])
    floor = 1e-18  # exact zeros (the first node) on a log scale
    ax_p.semilogy(t, np.maximum(dp, floor), style, ms=3, label=scheme)
    ax_L.semilogy(t, np.maximum(dL, floor), style, ms=3, label=scheme)
ax_p.set(xlabel="t [s]", ylabel="relative error [1]", title="linear momentum |p_k − p_0| / s_p")
ax_L.set(xlabel="t [s]", title="angular momentum |L_k − L_0| / s_L")
ax_p.legend()
assert max(drift["rem"][1].max(), drift["rem"][2].max()) < 1e-12
assert min(drift["gc"][1].max(), drift["gc"][2].max()) > 1e-4
fig

# %% [markdown]
# ## The arm's point-to-point motion
#
# Case `"arm"` (the default): the arm to the Panda model's target pose in 1.5 s, at rest at
# the end, the base free — it ends where the momentum takes it.

# %%
arm = space_robot.build("rem", steps=N)
assert str(arm.problem.solve("casadi_ipopt").solver.termination_condition) == "optimal"
{k: v for k, v in space_robot.evaluate(arm).items() if k in ("momentum_error", "base_rotation")}
