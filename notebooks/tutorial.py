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
# # Tutorial: a planar two-link arm that reaches a point
#
# This notebook builds a new multibody system from scratch and solves an
# optimal-control problem on it with two discretisations:
#
# 1. describe the arm: two rigid bodies (rods) and two revolute joints;
# 2. put it on a time grid as a Pyomo block (`scheme_block`), once with the
#    energy-momentum scheme with multipliers (`bem`) and once reduced by the
#    discrete null space method (`rem`);
# 3. state the problem: rest to rest, the tip of the forearm at a target point,
#    minimum control effort (`OptimalControlProblem` plus one plain Pyomo
#    constraint);
# 4. solve with IPOPT (`casadi_ipopt`, shipped with the `casadi` wheel) and
#    compare the costs and the motions;
# 5. state a problem in physical terms: joint angles, torque and joint
#    bounds, and an obstacle the tip must avoid.

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
# ## 1. The system
#
# Each link is a rod of length 1 and mass 1 along its first director d₁, with
# principal moments (J_axial, mL²/12, mL²/12) about its centre of mass; the
# library stores a rigid body in *directors* (φ, d₁, d₂, d₃ ∈ ℝ¹²).  The shoulder
# joins the upper arm to the ground at the origin, the elbow joins the forearm
# to the upper arm; both turn about e₃, so the arm moves in the (x, y) plane.
# No gravity (the arm lies on a table).  `actuate` puts a control on each joint
# angle.

# %%
from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody

LENGTH, MASS = 1.0, 1.0
ROD = (1e-3, MASS * LENGTH**2 / 12, MASS * LENGTH**2 / 12)     # thin rod along d1

upper = RigidBody("upper", MASS, ROD, position=(0.5, 0, 0), points={"tip": (0.5, 0, 0)})
fore = RigidBody("fore", MASS, ROD, position=(1.5, 0, 0), points={"tip": (0.5, 0, 0)})
arm = MultibodySystem("two-link arm")
arm.add_bodies(upper, fore)
arm.add_joints(Revolute("shoulder", None, upper, location=(0, 0, 0), axis=(0, 0, 1)),
               Revolute("elbow", upper, fore, location=(1, 0, 0), axis=(0, 0, 1)))
arm.actuate("shoulder")
arm.actuate("elbow")
arm.validate()

# %%
ax = plotting.plot_snapshots(arm, arm.q0)     # the reference configuration: stretched along x
ax.view_init(elev=90, azim=-90)               # look at the (x, y) plane from above
ax.figure

# %% [markdown]
# ## 2.–3. The problem on a scheme block
#
# `scheme_block(name, system=, steps=, horizon=)` creates the time grid and the
# discrete equations; the variables are named after the things they belong to
# (`m.dyn.body["fore"].q[k, "d1x"]`, `m.dyn.u[i, "elbow.angle"]`).  The block
# starts at the system's reference configuration, at rest.
#
# `OptimalControlProblem` adds the objective J = h Σᵢ Σₐ uᵢₐ² and the final rest.
# The reaching condition is a plain Pyomo constraint on the forearm's tip:
# `problem.point("fore", "tip")` gives the tip's position at every node as
# expressions `tip[k, "x"]` in whatever unknowns the scheme has.  Only x and y
# are imposed — the tip's z is zero by the joints anyway, and a third,
# redundant row would spoil the solver's constraint qualification.

# %%
from pyomo_mbdyn.ocp import OptimalControlProblem
from pyomo_mbdyn.schemes import scheme_block

TARGET = (1.0, 1.0)
STEPS, HORIZON = 20, 2.0


def reaching_problem(scheme):
    m = pyo.ConcreteModel(f"arm-{scheme}")
    m.dyn = scheme_block(scheme, system=arm, steps=STEPS, horizon=HORIZON)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort()
    problem.require_final_rest()
    tip = problem.point("fore", "tip")                             # m.ocp.fore_tip[k, "x" | "y" | "z"]
    m.reach = pyo.Constraint(["x", "y"], rule=lambda b, a: tip[STEPS, a] == TARGET["xy".index(a)])
    return m


models = {scheme: reaching_problem(scheme) for scheme in ("bem", "rem")}
for scheme, m in models.items():
    n_var = sum(1 for x in m.component_data_objects(pyo.Var) if not x.fixed)
    n_con = sum(1 for _ in m.component_data_objects(pyo.Constraint, active=True))
    print(f"{scheme}: {n_var} free variables, {n_con} constraints")

# %% [markdown]
# ## 4. Solve and compare

# %%
import pandas as pd

solver = get_solver("casadi_ipopt")
rows = []
for scheme, m in models.items():
    res = solver.solve(m)
    rows.append({"scheme": scheme, "status": str(res.solver.termination_condition),
                 "J": pyo.value(m.ocp.control_effort), "iterations": getattr(res.solver, "iterations", None)})
costs = pd.DataFrame(rows).set_index("scheme")
assert (costs["status"] == "optimal").all()
assert abs(costs.loc["bem", "J"] - costs.loc["rem", "J"]) < 1e-6 * costs.loc["rem", "J"]
costs

# %% [markdown]
# Both schemes reach the same optimum: the REM is the BEM with the multipliers
# eliminated by the discrete null space (its unknowns are the joint-angle
# increments), so the two discrete problems have the same solutions — the REM is
# smaller and needs fewer iterations.  The tip ends at the target, and the arm
# at rest: its generalised momenta P(q_N)ᵀ M v_N vanish (the final-rest condition
# in reduced form, one row per degree of freedom).  The final node velocity of
# these schemes need not be tangent to the constraints; what is left of it lies in
# M⁻¹ range(G(q_N)ᵀ), which does not move the arm (`require_final_rest` says what
# each scheme imposes).

# %%
for scheme, m in models.items():
    trajectory = m.dyn.trajectory()
    t, q, v, u, nu = trajectory.t, trajectory.q, trajectory.v, trajectory.u, trajectory.nu
    q_fore = arm.body_coordinates(q[-1], "fore")
    tip_N = np.asarray(fore.point(q_fore, fore.point_components("tip")), float)
    p_N = np.asarray(arm.null_space(q[-1]), float).T @ arm.mass_matrix() @ v[-1]
    print(scheme, "tip:", tip_N.round(10), " max |Pᵀ M v_N| =", np.abs(p_N).max())
    assert np.allclose(tip_N[:2], TARGET, atol=1e-8) and np.abs(p_N).max() < 1e-8

# %%
trajectory = models["rem"].dyn.trajectory()
t, q, v, u, nu = trajectory.t, trajectory.q, trajectory.v, trajectory.u, trajectory.nu
ax = plotting.plot_snapshots(arm, q, t=t, count=6)
ax.scatter(*TARGET, 0, marker="x", s=80, color="k")
ax.view_init(elev=90, azim=-90)
ax.figure

# %% [markdown]
# The controls of the two schemes side by side, with their difference
# (`plot_costates` compares any two sets of per-node or per-interval arrays).

# %%
u_bem = models["bem"].dyn.trajectory().u
u_rem = models["rem"].dyn.trajectory().u
plotting.plot_costates(u_bem, u_rem, labels=("bem", "rem"), t=t[:-1], names=list(arm.actuated),
                       title="controls")

# %% [markdown]
# The controls alternate from interval to interval, in both schemes.  The
# interval rates ν_{k+½} are smooth, but the midpoint relation
# v_{k+½} = (v_k + v_{k+1})/2 started from rest (v_0 = 0) turns smooth interval
# rates into node velocities that zig-zag about them — and the controls, which
# set M(v_{k+1} − v_k), zig-zag with the node velocities:

# %%
trajectory = models["bem"].dyn.trajectory()
t, q, v, u, nu = trajectory.t, trajectory.q, trajectory.v, trajectory.u, trajectory.nu
node_rates = np.array([np.asarray(arm.control_matrix(q[k]), float) @ v[k] for k in range(len(t))])
print("interval rates ν_{k+½} (elbow):", nu[:6, 1].round(3))
print("node rates B(q_k) v_k  (elbow):", node_rates[:6, 1].round(3))

# %% [markdown]
# The energy-momentum schemes balance energy exactly: the kinetic energy T plus
# the control work W stays at zero (no gravity, rest at both ends).

# %%
table = models["bem"].dyn.diagnostics()
assert np.abs(table["E"]).max() < 1e-8
plotting.plot_conservation(table)

# %% [markdown]
# ## 5. In physical terms: joint angles, bounds, an obstacle
#
# The same arm, stated as a robotics user would: the final configuration as
# joint angles (rad, from the configuration the arm was assembled in; the same
# meaning in every scheme, turns included), the motor torques bounded (N m),
# the elbow kept within ±2 rad, and a round post of radius 0.3 m at (1.2, 0.7)
# that the forearm's tip must keep clear of at every node — a path constraint
# written as a plain Pyomo constraint on `problem.point`.  `solve(duals=True)`
# declares the `dual` Suffix, so the trajectory carries the momentum
# multipliers too.

# %%
from pyomo_mbdyn.ocp import interpolated_trajectory

POST, RADIUS = np.array([1.2, 0.7]), 0.3
GOAL = {"shoulder": np.pi / 2, "elbow": 0.0}                        # straight up


def physical_problem(scheme, obstacle=True, start=None):
    m = pyo.ConcreteModel(f"arm-{scheme}-post")
    m.dyn = scheme_block(scheme, system=arm, steps=STEPS, horizon=HORIZON)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort()
    problem.fix_final_configuration(GOAL)
    problem.require_final_rest()
    problem.bound_controls(-4.0, 4.0)
    problem.bound_joint("elbow", -2.0, 2.0)
    tip = problem.point("fore", "tip")
    if obstacle:
        m.clearance = pyo.Constraint(m.dyn.nodes, rule=lambda m, k: (tip[k, "x"] - POST[0]) ** 2
                                     + (tip[k, "y"] - POST[1]) ** 2 >= RADIUS ** 2)
    if start is None:
        start = interpolated_trajectory(arm, HORIZON / STEPS, STEPS, [GOAL["shoulder"], GOAL["elbow"]])
    m.dyn.initialize_from(start)
    problem.solve(duals=True)
    return m, problem


rows, runs = [], {}
for scheme in ("bem", "rem"):
    for obstacle in (False, True):
        # the rem starts from the bem's optimum: the problem has mirror-image local optima
        # (the elbow folding either way), and both schemes then solve for the same one
        start = None if scheme == "bem" else runs["bem", obstacle][0].dyn.trajectory()
        m, problem = physical_problem(scheme, obstacle, start)
        runs[scheme, obstacle] = (m, problem)
        tip = problem.point("fore", "tip", name="tip_check")
        clearance = min(np.hypot(pyo.value(tip[k, "x"]) - POST[0], pyo.value(tip[k, "y"]) - POST[1])
                        for k in m.dyn.nodes)
        angles = problem.joint_coordinates()
        rows.append({"scheme": scheme, "post": obstacle, "J": pyo.value(m.ocp.control_effort),
                     "min distance to the post": clearance,
                     "final angles": [round(pyo.value(angles[STEPS, j]), 10) for j in m.dyn.velocities],
                     "max |u|": np.abs(m.dyn.trajectory().u).max()})
physical = pd.DataFrame(rows).set_index(["scheme", "post"])
for obstacle in (False, True):
    J_bem, J_rem = physical.loc[("bem", obstacle), "J"], physical.loc[("rem", obstacle), "J"]
    assert abs(J_bem - J_rem) < 1e-6 * J_rem
assert (physical.xs(True, level="post")["min distance to the post"] > RADIUS - 1e-7).all()
physical

# %% [markdown]
# Without the post the tip sweeps through it; with it the arm folds the elbow
# to pass by, at a higher cost, the same in BEM and REM.
#
# **The problem is nonconvex**: IPOPT returns the local optimum nearest its
# start.  Solved from 8 starts around this guess (`pyomo_mbdyn.studies.multistart`
# with the joint angles moved by up to 0.3 rad, measured for this tutorial), the
# obstacle problem has at least three optima, J ≈ 14.57 (the one above), 20.2 and
# 23.5: passing the post with the arm folded otherwise costs more.  For your own
# problem, run `multistart` (or `pyomo-mbdyn multistart MODEL`) before trusting
# an optimum: the studies notebook and the user guide's
# "Sweeps, multi-start and Dask" show how.  The elbow bound is
# active without the post (the elbow would fold beyond 2 rad), the torque
# bound with it.  The multipliers of the
# momentum rows come with the trajectory (λ = −dual: for J = h Σ|u|² the REM's
# applied torques are u = λ/2 wherever the torque bound is not active):

# %%
m, problem = runs["rem", True]
trajectory = m.dyn.trajectory()
free = np.abs(trajectory.u) < 4.0 - 1e-6
gap = np.abs(trajectory.u - 0.5 * trajectory.momentum_multipliers)
print(f"max |u - λ/2| where |u| < 4: {gap[free].max():.1e};  on the bound: {gap[~free].max():.2f}")
assert gap[free].max() < 1e-6
ax = plotting.plot_snapshots(arm, trajectory.q, t=trajectory.t, count=8)
angle = np.linspace(0, 2 * np.pi, 60)
ax.plot(POST[0] + RADIUS * np.cos(angle), POST[1] + RADIUS * np.sin(angle), 0 * angle, color="k")
ax.view_init(elev=90, azim=-90)
ax.figure

# %% [markdown]
# The same motion as an interactive 3-D page — rotate, zoom and scrub through
# the nodes, with the torques and the energy beside it; one self-contained
# HTML file that opens offline in any browser (`pyomo-mbdyn run MODEL --html
# FILE` writes it for a model):

# %%
page = plotting.animate_html(trajectory, workdir / "arm-post.html", system=arm, title="two-link arm round a post")
print(page, f"{page.stat().st_size / 1e6:.1f} MB")

# %% [markdown]
# The trajectory as a labelled array (time × coordinate, with units):

# %%
trajectory.to_xarray()

# %% [markdown]
# Finally, keep the solution (arrays bit for bit, metadata as JSON):

# %%
saved = SolvedTrajectory.from_block(models["rem"].dyn, solver=solver.name, objective=costs.loc["rem", "J"])
path = saved.save(workdir / "arm.npz")
assert SolvedTrajectory.load(path).identical(saved)
SolvedTrajectory.load(path).to_dataframe().head()
