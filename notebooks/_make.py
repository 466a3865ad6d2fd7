"""Write the example notebooks (without outputs) from the cell sources below.

Run ``python notebooks/_make.py`` after editing; ``tests/test_notebooks.py``
executes every ``notebooks/*.ipynb`` from a clean kernel.
"""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

SETUP = """\
%matplotlib inline
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

workdir = Path(tempfile.mkdtemp(prefix="pyomo_mbdyn_"))  # files written by this notebook"""

SPHERE = [
    new_markdown_cell("""\
# Rigid sphere: rest to rest with three turns (DMOCC paper §7.1)

A solid sphere (radius 0.05, density 27000, no gravity) moves from φ = (1, 0, 0)
to (0, 1, 2) in T = 3 (N = 30) and ends at rest in its initial orientation,
driven by a force and a torque at its centre, minimising J = h Σ‖τₙ‖².  The
paper reports **J = 533.5767** for the motion that turns three times about
(−1, 1, 1)/√3; the model `pyomo_mbdyn.models.sphere` selects those three turns
through its initial guess (the final orientation is the identity either way).
Scheme: the reduced variational DMOCC block."""),
    new_code_cell(SETUP),
    new_code_cell("""\
from pyomo_mbdyn.models import sphere

m = sphere.build()                      # m.dyn: DMOCC block, m.ocp: objective and final conditions
result = get_solver("casadi_ipopt").solve(m)
J = pyo.value(m.ocp.control_effort)
print(result.solver.termination_condition, f"J = {J:.4f}  (paper: 533.5767)")
assert abs(J - 533.5767) < 1e-3"""),
    new_markdown_cell("""\
## Configuration snapshots

The sphere is drawn as its equivalent box (same mass and inertia) with its
director triad d₁, d₂, d₃ (red, green, blue); the grey line is the path of its
centre."""),
    new_code_cell("""\
t, q, v, u, nu = m.dyn.trajectory_arrays()
system = m.dyn.system
ax = plotting.plot_snapshots(system, q, t=t, count=7)
ax.plot(*q[:, 0:3].T, color="0.5", lw=0.8)
ax.figure"""),
    new_markdown_cell("""\
The three turns: the rotation angles between consecutive director frames add
up to 3 × 2π."""),
    new_code_cell("""\
R = q[:, 3:12].reshape(-1, 3, 3)                 # rows d1, d2, d3 at every node
steps = [np.arccos(np.clip((np.trace(R[k + 1] @ R[k].T) - 1) / 2, -1, 1)) for k in range(len(t) - 1)]
turns = sum(steps) / (2 * np.pi)
print(f"turns: {turns:.10f}")
assert abs(turns - 3) < 1e-8"""),
    new_markdown_cell("""\
## Controls

Force (first three columns) and torque, constant on each interval.  As
everywhere in the library, u is *minus* the applied generalised force."""),
    new_code_cell("""\
fig = Figure(figsize=(11, 3.8))
force_ax, torque_ax = fig.subplots(1, 2)
names = list(system.actuated)
plotting.plot_controls(t, u[:, :3], names[:3], ax=force_ax)
plotting.plot_controls(t, u[:, 3:], names[3:], ax=torque_ax)
force_ax.set_title("force")
torque_ax.set_title("torque")
fig"""),
    new_markdown_cell("""\
## Energy and momentum

Forces act, so neither energy nor momentum is an invariant: the table of
`m.dyn.diagnostics()` shows the kinetic energy T against the control work W
(the work done *by* the sphere on the actuators).  The variational DMOCC
scheme balances T + W only approximately within the motion; at rest at both
ends, T = 0 and W returns to 0."""),
    new_code_cell("""\
table = m.dyn.diagnostics()
print(table[["t", "T", "W", "E", "px", "Lz"]].iloc[[0, 10, 20, 30]].to_string())
assert abs(table["T"].iloc[-1]) < 1e-12 and abs(table["W"].iloc[-1]) < 1e-9
plotting.plot_conservation(table)"""),
    new_markdown_cell("""\
## Save, load, animate

`SolvedTrajectory` stores the arrays and the solve's metadata in one `.npz`
file; loading gives back every array bit for bit."""),
    new_code_cell("""\
saved = SolvedTrajectory.from_block(m.dyn, solver="casadi_ipopt", objective=J,
                                    status=str(result.solver.termination_condition))
path = saved.save(workdir / "sphere.npz")
loaded = SolvedTrajectory.load(path)
assert loaded.identical(saved)
print(loaded.metadata)
loaded.to_dataframe()[["t", "u"]].head()"""),
    new_code_cell("""\
gif = plotting.animate(system, q, workdir / "sphere.gif", fps=10, t=t)
Image(filename=str(gif))"""),
]

SATELLITE_SPIN = [
    new_markdown_cell("""\
# Three-rotor satellite: friction and rotor torques (thesis E1, Figs. 4.8–4.9)

A main body (a solid ellipsoid) carries three rotors (discs) on revolute
joints along its principal axes.  **Friction case**: joint friction k = 100,
no torques, initial relative rotor rates (1, 2, 3) and main-body angular
velocity (0.2, 0.3, 0.4).  Friction dissipates the kinetic energy, T + D is
constant, and the total angular momentum stays at **J₃ = 1336.6779** — but only
with the *contravariant* control matrix B(q♯), for which B(q♯) P(q_{k+½}) = I
exactly; with the plain-midpoint B it drifts.  The model solves the BEM block
by IPOPT (started from the Newton stepper's solution of the same equations)."""),
    new_code_cell(SETUP),
    new_code_cell("""\
from pyomo_mbdyn.diagnostics import trajectory_table
from pyomo_mbdyn.models import satellite_spin
from pyomo_mbdyn.simulate import simulate

m = satellite_spin.build(scheme="bem", steps=20, case="friction")
result = get_solver("casadi_ipopt").solve(m)
print(result.solver.termination_condition)
t, q, v, u, nu = m.dyn.trajectory_arrays()
system = m.dyn.system
table = m.dyn.diagnostics()
print(table[["t", "T", "D", "E", "Lz"]].iloc[::5].to_string())
assert np.all(np.round(table["Lz"], 4) == 1336.6779)"""),
    new_markdown_cell("""\
## Configuration snapshots

The satellite spins in place, so the snapshots are drawn side by side (a film
strip, shifted along x).  Each body is its equivalent box with its directors."""),
    new_code_cell("""\
ax = plotting.plot_snapshots(system, q, t=t, count=5, offset="auto")
ax.figure"""),
    new_markdown_cell("""\
## Energy and angular momentum (Fig. 4.9)

T falls, D (the energy dissipated by friction) rises, E = T + D stays
constant, and the angular momentum does not move."""),
    new_code_cell("plotting.plot_conservation(table)"),
    new_markdown_cell("""\
The same motion with the plain-midpoint B (``contravariant=False``): the
angular momentum is no longer conserved; the error shrinks with h."""),
    new_code_cell("""\
q0, v0, u0 = satellite_spin.initial_state(system, "friction")
fig = Figure(figsize=(7, 4))
ax = fig.add_subplot()
ax.plot(table["t"], table["Lz"], "k-", lw=2, label="contravariant B(q♯), N = 20")
drift = {}
for N in (5, 20):
    plain = trajectory_table(simulate(system, q0, v0, satellite_spin.HORIZON / N, N,
                                      np.tile(u0, (N, 1)), scheme="bem", contravariant=False))
    ax.plot(plain["t"], plain["Lz"], marker=".", label=f"plain midpoint B, N = {N}")
    drift[N] = float(np.abs(plain["Lz"] - 1336.6779).max())
ax.set_xlabel("t"); ax.set_ylabel("L_z"); ax.legend(); ax.grid(alpha=0.3)
print({N: round(d, 2) for N, d in drift.items()})
assert drift[5] > drift[20] > 1
fig"""),
    new_markdown_cell("""\
## Rotor torques (Fig. 4.8)

From rest, u = 200 on each rotor joint (u is minus the applied torque).  The
torques are internal: the total angular momentum stays zero while the rotors
spin up, and T + W = 0 (the kinetic energy is the work done by the motors)."""),
    new_code_cell("""\
torque_system = satellite_spin.build_system("torque")
q0, v0, u0 = satellite_spin.initial_state(torque_system, "torque")
N = 10
spin_up = simulate(torque_system, q0, v0, satellite_spin.HORIZON / N, N, np.tile(u0, (N, 1)), scheme="bem")
torque_table = trajectory_table(spin_up)
assert np.abs(torque_table[["Lx", "Ly", "Lz"]].to_numpy()).max() < 1e-8
assert np.abs(torque_table["E"]).max() < 1e-8 * torque_table["T"].max()
plotting.plot_controls(spin_up.t, spin_up.u, torque_system.actuated).figure"""),
    new_code_cell("plotting.plot_conservation(torque_table)"),
]

HEAVY_TOP = [
    new_markdown_cell("""\
# Heavy symmetric top in steady precession (thesis E2, Ch. 5.5)

A solid cone spins about its fixed tip under gravity, started on the steady
precession (θ₀ = π/3, precession rate ω_p = 10).  The analytic motion is
known, so the schemes' errors can be measured: the **quaternion
energy-momentum scheme** (the model's default block) against the **director
energy-momentum scheme** (BEM).  Both conserve the energy and L₃ (the
momentum about the vertical) for any h; both converge with order 2; the
director scheme is the more accurate at equal h."""),
    new_code_cell(SETUP),
    new_code_cell("""\
from pyomo_mbdyn.models import heavy_top
from pyomo_mbdyn.schemes.quaternion import quaternion_state
from pyomo_mbdyn.simulate import simulate
from pyomo_mbdyn.simulate.quaternion import QuaternionStepper, QuaternionTop, director_trajectory

m = heavy_top.build()                   # the quaternion block, N = 100 on [0, 1]
result = get_solver("casadi_ipopt").solve(m)
print(result.solver.termination_condition)
t, q, v, u, nu = m.dyn.trajectory_arrays()   # reported in director coordinates
system = m.dyn.system
table = m.dyn.diagnostics()
print(table[["t", "T", "V", "E", "Lz"]].iloc[::25].to_string())
assert np.ptp(table["E"]) < 1e-10 * abs(table["E"].iloc[0]) and np.ptp(table["Lz"]) < 1e-12"""),
    new_markdown_cell("""\
## Configuration snapshots

The cone (its equivalent box and directors; d₃ is the symmetry axis) at six
instants, the tip joint at the origin, and the path of the centre of mass
against the analytic circle of steady precession (dashed)."""),
    new_code_cell("""\
ax = plotting.plot_snapshots(system, q, t=t, count=6)
ax.plot(*q[:, 0:3].T, color="tab:blue", lw=1, label="centre of mass")
reference = np.array([heavy_top.reference_position(s) for s in np.linspace(0, 2 * np.pi / heavy_top.OMEGA_P, 100)])
ax.plot(*reference.T, "k--", lw=0.8)
ax.figure"""),
    new_markdown_cell("## Energy and momentum"),
    new_code_cell("plotting.plot_conservation(table)"),
    new_markdown_cell("""\
## Accuracy: quaternion against director scheme

The relative error e = |φ_ref − φ| / |φ_ref| of the centre of mass at t = 1,
for halved steps.  Both errors fall by 4 per halving (order 2); the director
scheme's is about twenty times smaller."""),
    new_code_cell("""\
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
errors"""),
    new_code_cell("""\
fig = Figure(figsize=(6, 4))
ax = fig.add_subplot()
for column in errors:
    ax.loglog(errors.index, errors[column], marker="o", label=column)
ax.loglog(errors.index, errors["quaternion"].iloc[0] * (errors.index[0] / errors.index) ** 2, "k:", label="order 2")
ax.set_xlabel("N (h = 1/N)"); ax.set_ylabel("relative error at t = 1"); ax.legend(); ax.grid(alpha=0.3)
fig"""),
]

TUTORIAL = [
    new_markdown_cell("""\
# Tutorial: a planar two-link arm that reaches a point

This notebook builds a new multibody system from scratch and solves an
optimal-control problem on it with two discretisations:

1. describe the arm: two rigid bodies (rods) and two revolute joints;
2. put it on a time grid as a Pyomo block (`scheme_block`), once with the
   energy-momentum scheme with multipliers (`bem`) and once reduced by the
   discrete null space method (`rem`);
3. state the problem: rest to rest, the tip of the forearm at a target point,
   minimum control effort (`OptimalControlProblem` plus one plain Pyomo
   constraint);
4. solve with IPOPT (`casadi_ipopt`, shipped with the `casadi` wheel) and
   compare the costs and the motions."""),
    new_code_cell(SETUP),
    new_markdown_cell("""\
## 1. The system

Each link is a rod of length 1 and mass 1 along its first director d₁, with
principal moments (J_axial, mL²/12, mL²/12) about its centre of mass; the
library stores a rigid body in *directors* (φ, d₁, d₂, d₃ ∈ ℝ¹²).  The shoulder
joins the upper arm to the ground at the origin, the elbow joins the forearm
to the upper arm; both turn about e₃, so the arm moves in the (x, y) plane.
No gravity (the arm lies on a table).  `actuate` puts a control on each joint
angle."""),
    new_code_cell("""\
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
arm.validate()"""),
    new_code_cell("""\
ax = plotting.plot_snapshots(arm, arm.q0)     # the reference configuration: stretched along x
ax.view_init(elev=90, azim=-90)               # look at the (x, y) plane from above
ax.figure"""),
    new_markdown_cell("""\
## 2.–3. The problem on a scheme block

`scheme_block(name, system=, steps=, horizon=)` creates the time grid and the
discrete equations; the variables are named after the things they belong to
(`m.dyn.body["fore"].q[k, "d1x"]`, `m.dyn.u[i, "elbow.angle"]`).  The block
starts at the system's reference configuration, at rest.

`OptimalControlProblem` adds the objective J = h Σᵢ Σₐ uᵢₐ² and the final rest.
The reaching condition is written directly in Pyomo with the body's own
geometry (`RigidBody.point`): only x and y are imposed — the tip's z is zero
by the joints anyway, and a third, redundant row would spoil the solver's
constraint qualification."""),
    new_code_cell("""\
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
    q_N = np.array([m.dyn.body["fore"].q[STEPS, c] for c in m.dyn.body["fore"].coordinates], dtype=object)
    tip = fore.point(q_N, fore.point_components("tip"))            # Pyomo expressions
    m.reach = pyo.Constraint([0, 1], rule=lambda b, i: tip[i] == TARGET[i])
    return m


models = {scheme: reaching_problem(scheme) for scheme in ("bem", "rem")}
for scheme, m in models.items():
    n_var = sum(1 for x in m.component_data_objects(pyo.Var) if not x.fixed)
    n_con = sum(1 for _ in m.component_data_objects(pyo.Constraint, active=True))
    print(f"{scheme}: {n_var} free variables, {n_con} constraints")"""),
    new_markdown_cell("## 4. Solve and compare"),
    new_code_cell("""\
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
costs"""),
    new_markdown_cell("""\
Both schemes reach the same optimum: the REM is the BEM with the multipliers
eliminated by the discrete null space (its unknowns are the joint-angle
increments), so the two discrete problems have the same solutions — the REM is
smaller and needs fewer iterations.  The tip ends at the target, and the arm
at rest: its joint rates ν_N = B(q_N) v_N vanish (the final-rest condition in
reduced form, thesis §2.10)."""),
    new_code_cell("""\
for scheme, m in models.items():
    t, q, v, u, nu = m.dyn.trajectory_arrays()
    q_fore = arm.body_coordinates(q[-1], "fore")
    tip_N = np.asarray(fore.point(q_fore, fore.point_components("tip")), float)
    nu_N = np.asarray(arm.control_matrix(q[-1]), float) @ v[-1]
    print(scheme, "tip:", tip_N.round(10), " max |ν_N| =", np.abs(nu_N).max())
    assert np.allclose(tip_N[:2], TARGET, atol=1e-8) and np.abs(nu_N).max() < 1e-8"""),
    new_code_cell("""\
t, q, v, u, nu = models["rem"].dyn.trajectory_arrays()
ax = plotting.plot_snapshots(arm, q, t=t, count=6)
ax.scatter(*TARGET, 0, marker="x", s=80, color="k")
ax.view_init(elev=90, azim=-90)
ax.figure"""),
    new_markdown_cell("""\
The controls of the two schemes side by side, with their difference
(`plot_costates` compares any two sets of per-node or per-interval arrays)."""),
    new_code_cell("""\
u_bem = models["bem"].dyn.trajectory_arrays()[3]
u_rem = models["rem"].dyn.trajectory_arrays()[3]
plotting.plot_costates(u_bem, u_rem, labels=("bem", "rem"), t=t[:-1], names=list(arm.actuated),
                       title="controls")"""),
    new_markdown_cell("""\
The controls alternate from interval to interval, in both schemes.  The
interval rates ν_{k+½} are smooth, but the midpoint relation
v_{k+½} = (v_k + v_{k+1})/2 started from rest (v_0 = 0) turns smooth interval
rates into node velocities that zig-zag about them — and the controls, which
set M(v_{k+1} − v_k), zig-zag with the node velocities:"""),
    new_code_cell("""\
t, q, v, u, nu = models["bem"].dyn.trajectory_arrays()
node_rates = np.array([np.asarray(arm.control_matrix(q[k]), float) @ v[k] for k in range(len(t))])
print("interval rates ν_{k+½} (elbow):", nu[:6, 1].round(3))
print("node rates B(q_k) v_k  (elbow):", node_rates[:6, 1].round(3))"""),
    new_markdown_cell("""\
The energy-momentum schemes balance energy exactly: the kinetic energy T plus
the control work W stays at zero (no gravity, rest at both ends)."""),
    new_code_cell("""\
table = models["bem"].dyn.diagnostics()
assert np.abs(table["E"]).max() < 1e-8
plotting.plot_conservation(table)"""),
    new_markdown_cell("Finally, keep the solution (arrays bit for bit, metadata as JSON):"),
    new_code_cell("""\
saved = SolvedTrajectory.from_block(models["rem"].dyn, solver=solver.name, objective=costs.loc["rem", "J"])
path = saved.save(workdir / "arm.npz")
assert SolvedTrajectory.load(path).identical(saved)
SolvedTrajectory.load(path).to_dataframe().head()"""),
]

THREE_LINK_ARM = [
    new_markdown_cell("""\
# Planar three-link arm: BEM = REM against GC (thesis E3, Chs. 6–7)

Three links (Table 6.1: masses 30, 25, 10, lengths 7, 6, 8) hang on revolute
joints about e₃ — the shoulder (absolute angle α₁), the elbow (α₂) and the
wrist (α₃), all actuated — under gravity g = 9.81 along −e₂.  From
α₀ = (π/2, −π/2, π/2) (link 2 horizontal) the arm straightens up to
α_f = (π/2, 0, 0) in T = 3, at rest at both ends, minimising
J = h Σ ½|u|².  The final configuration is imposed in each scheme's regular
form and the final rest as ν_N = B(q_N) v_N = 0 (thesis §2.10).

The thesis prints no numbers for the arm; what it states, and what this
notebook shows, is structural:

* the energy-momentum scheme with multipliers (**BEM**, directors, n = 36) and
  its reduction by the discrete null space method (**REM**, three joint-angle
  increments per step) have *the same* optimum;
* both conserve T + V + W (kinetic + potential energy + control work) exactly;
  the midpoint rule in generalised coordinates (**GC**, the baseline) does not,
  and its optimum is close but different;
* the controls follow from the momentum multipliers, u = −B λᵖ.

All three schemes run at **N = 10** (the model's N is 20), to keep this
notebook fast, each with IPOPT's exact Hessian from the interpolated guess.
The joint-angle DNCO of Ch. 8 (`--scheme dnco`) has its own notebook,
`three-link-arm-dnco.ipynb`."""),
    new_code_cell(SETUP),
    new_code_cell("""\
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
    m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)       # the multipliers, read below
    result = solve(m, "casadi_ipopt", options=OPTIONS[scheme])
    models[scheme] = m
    rows.append({"scheme": scheme,
                 "variables": sum(1 for x in m.component_data_objects(pyo.Var) if not x.fixed),
                 "constraints": sum(1 for _ in m.component_data_objects(pyo.Constraint, active=True)),
                 "iterations": result.solver.iterations, "J": pyo.value(m.ocp.control_effort),
                 "seconds": round(time.perf_counter() - start, 1)})
costs = pd.DataFrame(rows).set_index("scheme")
costs"""),
    new_markdown_cell("""\
BEM and REM reach the same cost and the same motion to solver tolerance;
GC's cost and motion differ a little: it is another discretisation of the
same problem.  Every scheme ends at α_f."""),
    new_code_cell("""\
J = costs["J"]
bem_rem = abs(J["bem"] - J["rem"]) / J["rem"]
gc_gap = (J["gc"] - J["rem"]) / J["rem"]
print(f"|J_bem − J_rem| / J_rem = {bem_rem:.1e}")
print(f"(J_gc − J_rem) / J_rem  = {gc_gap:+.2e}")
assert bem_rem < 1e-9 and 1e-5 < abs(gc_gap) < 1e-2

arrays = {scheme: m.dyn.trajectory_arrays() for scheme, m in models.items()}   # (t, q, v, u, ν)
for scheme in ("rem", "gc"):
    print(f"max |q_{scheme} − q_bem| = {np.abs(arrays[scheme][1] - arrays['bem'][1]).max():.1e}")
assert np.abs(arrays["rem"][1] - arrays["bem"][1]).max() < 1e-8
for scheme, (t, q, v, u, nu) in arrays.items():
    alpha_N = three_link_arm.joint_angles(q[-1])
    print(f"{scheme}: α_N = {alpha_N.round(10) + 0.0}")
    assert np.allclose(alpha_N, three_link_arm.ALPHAF, atol=1e-9)"""),
    new_markdown_cell("""\
## Configuration snapshots

The arm moves in the (x, y) plane, seen from above: each link is its
equivalent box (a thin rod) with its directors, the joints are circles."""),
    new_code_cell("""\
fig = Figure(figsize=(15, 5.5))
for i, scheme in enumerate(SCHEMES):
    t, q = arrays[scheme][:2]
    ax = plotting.plot_snapshots(models[scheme].dyn.system, q, t=t, count=5,
                                 ax=fig.add_subplot(1, 3, i + 1, projection="3d"))
    ax.view_init(elev=90, azim=-90)
    ax.set_title(f"{scheme}: t = " + ", ".join(f"{t[k]:.2g}" for k in ax.snapshot_nodes))
fig.tight_layout()
fig"""),
    new_markdown_cell("""\
## Controls

The joint torques of the three schemes (u is minus the applied torque).  BEM
and REM lie on top of each other; GC's are close."""),
    new_code_cell("""\
fig = Figure(figsize=(15, 4))
axes = fig.subplots(1, 3, sharey=True)
names = list(models["rem"].dyn.system.actuated)
for ax, scheme in zip(axes, SCHEMES):
    t, u = arrays[scheme][0], arrays[scheme][3]
    plotting.plot_controls(t, u, names, ax=ax)
    ax.set_title(f"controls: {scheme}")
fig.tight_layout()
fig"""),
    new_markdown_cell("""\
## Energy: T + V + W

`dyn.diagnostics()` gives, per node, the kinetic energy T, the potential V,
the control work W (done by the arm on the actuators) and E = T + V + W.  The
energy-momentum schemes keep E constant to round-off and solver tolerance;
the GC midpoint rule does not."""),
    new_code_cell("""\
tables = {scheme: m.dyn.diagnostics() for scheme, m in models.items()}
spread = pd.Series({scheme: np.ptp(tab["E"]) / tab["T"].max() for scheme, tab in tables.items()},
                   name="spread of E / max T")
print(spread.to_string(float_format=lambda x: f"{x:.1e}"))
assert spread["bem"] < 1e-9 and spread["rem"] < 1e-9 and spread["gc"] > 1e-3
plotting.plot_conservation(tables["bem"])"""),
    new_code_cell("""\
fig = Figure(figsize=(7, 4))
ax = fig.add_subplot()
for scheme, tab in tables.items():
    ax.plot(tab["t"], (tab["E"] - tab["E"].iloc[0]) / tab["T"].max(), marker=".", label=scheme)
ax.set_xlabel("t"); ax.set_ylabel("(E − E₀) / max T"); ax.set_title("T + V + W along the optima")
ax.legend(); ax.grid(alpha=0.3)
fig"""),
    new_markdown_cell("""\
## Controls from the multipliers

With the `dual` Suffix imported, `multipliers.controls_from_multipliers` reads
the momentum multipliers λᵖ and applies the control equation of the discrete
necessary conditions: u = −B(q♯) λᵖ for the BEM, u = −λᵖ for the REM
(B P = I), u = −B P̃ λᵖ for GC (thesis Eqs. 7.19–7.22).  The recovered
controls are the solved ones, for every scheme.  (Sign convention and the map
between the BEM and REM multipliers: `costates.ipynb`.)"""),
    new_code_cell("""\
recovered = {}
for scheme, m in models.items():
    u = arrays[scheme][3]
    recovered[scheme] = multipliers.controls_from_multipliers(m.dyn)
    error = np.abs(recovered[scheme] - u).max() / np.abs(u).max()
    print(f"{scheme}: max |u(λ) − u| / max |u| = {error:.1e}")
    assert error < 1e-7
t = arrays["bem"][0]
plotting.plot_costates(arrays["bem"][3], recovered["bem"], labels=("solved u", "u = −B λᵖ"),
                       t=t[:-1] + 0.5 * (t[1] - t[0]), names=names, title="BEM controls")"""),
]

THREE_LINK_ARM_DNCO = [
    new_markdown_cell("""\
# Three-link arm in joint angles: the H-conserving DNCO (thesis E3, Ch. 8.2)

The arm of `three-link-arm.ipynb` (Table 6.1, α₀ = (π/2, −π/2, π/2) to
α_f = (π/2, 0, 0), T = 3, rest to rest, J_d = h Σ ½|u|²) written as a
Hamiltonian system in its joint angles α: H(α, p) = ½ pᵀM(α)⁻¹p + V(α), with
the 3 × 3 mass matrix M(α) of the planar links and the gravity potential V.

Three discretisations of the same problem:

* **dnco** — the *indirect* method: the Gonzalez state equations together with
  the H-conserving costate equations (8.49–8.53) and the control equation
  u = −λᵖ, one square system of equations.  Its discrete Hamiltonian
  H^d_{k,k+1} = −½|u|² + λ·[𝕁∇̄H − (0, u)] is the same on every interval;
* **direct-gonzalez** — the NLP min J_d subject to the same state equations;
  its costates are read from the duals, and their H^d drifts;
* **direct-midpoint** — the NLP with midpoint state equations, which do not
  even balance the energy T + V + W.

The model's N is 40 (`pyomo-mbdyn run three-link-arm --scheme dnco`); this
notebook uses N = 20 to stay fast."""),
    new_code_cell(SETUP),
    new_code_cell("""\
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
summary"""),
    new_markdown_cell("""\
## The motion

The joint angles are mapped to the director model of `three_link_arm` by its
exact reparametrisation (α − α₀ are the chart coordinates of its three
revolute joints) and drawn from above."""),
    new_code_cell("""\
t, x, u, lam = dnco.arrays()
alpha = x[:, :3]
arm = three_link_arm.build_system()
q = np.array([arm.reparametrise(a - three_link_arm.ALPHA0, arm.q0) for a in alpha], dtype=float)
assert np.allclose([three_link_arm.joint_angles(qk) for qk in q], alpha, atol=1e-12)

fig = Figure(figsize=(12, 5))
ax = plotting.plot_snapshots(arm, q, t=t, count=6, ax=fig.add_subplot(1, 2, 1, projection="3d"))
ax.view_init(elev=90, azim=-90)
plotting.plot_coordinates(t, alpha, ["α₁", "α₂", "α₃"], ax=fig.add_subplot(1, 2, 2))
fig.tight_layout()
fig"""),
    new_code_cell("""\
assert np.allclose(u, -lam[:, 3:], atol=1e-8 * np.abs(u).max())   # the control equation u = −λᵖ
plotting.plot_controls(t, u, three_link_arm_dnco.build_system().names).figure"""),
    new_markdown_cell("""\
## The discrete Hamiltonian

Constant to round-off for the indirect method (left: H^d, right: its
deviation from H^d_{0,1}); for the direct transcriptions, whose costates are
the NLP's duals, it drifts by per cents to tens of per cents at this N (and
by O(h²) as N grows)."""),
    new_code_cell("""\
table = dnco.interval_table()
plotting.plot_discrete_hamiltonian(table["t"].to_numpy(), table["Hd"].to_numpy()).figure"""),
    new_code_cell("""\
fig = Figure(figsize=(7, 4))
ax = fig.add_subplot()
for scheme, m in models.items():
    tab = m.dyn.interval_table(costates(m.dyn))
    ax.plot(tab["t"], tab["Hd"] / tab["Hd"].iloc[0] - 1, marker=".", label=scheme)
ax.set_xlabel("t"); ax.set_ylabel("H^d / H^d_{0,1} − 1"); ax.legend(); ax.grid(alpha=0.3)
fig"""),
    new_markdown_cell("""\
## Costates: indirect against direct

The momentum costates λᵖ (= −u) of the direct Gonzalez transcription, read
from its duals (λ = −dual/h, see `costates.ipynb`), next to the indirect
ones: both approximate the continuous costate at the interval midpoints, so
they differ by O(h²) — visibly at N = 20."""),
    new_code_cell("""\
names = [f"λᵖ {name}" for name in dnco.system.names]
plotting.plot_costates(lam[:, 3:], costates(models["direct-gonzalez"].dyn)[:, 3:],
                       labels=("dnco", "direct-gonzalez"), t=table["t"].to_numpy(), names=names)"""),
    new_markdown_cell("""\
## Energy

With the Gonzalez discrete gradient, H(x_{k+1}) − H(x_k) = −u·Δq exactly, so
T + V + W with the discrete work W_k = Σ u·Δq is constant along both Gonzalez
solutions; the midpoint rule has no such balance."""),
    new_code_cell("plotting.plot_conservation(dnco.diagnostics())"),
]

CRANE = [
    new_markdown_cell("""\
# Overhead crane: BEM = REM against GC (thesis E5, Ch. 7.2)

A trolley (mass 10) runs along a rail; a winch (inertia 0.1, radius
r = 0.1) on it reels a rope of length l = r β that carries a load (mass 100)
under gravity.  Coordinates q = (s, β, x, z): trolley position, winch angle,
load position (z downward), tied by the rope constraint
(x − s)² + z² − r²β² = 0.  Two controls — the trolley force and the winch
torque — for three degrees of freedom: the swing of the load is not actuated.

From q₀ = (0, 40, 0, 4) (rope 4) to q_f = (5, 10, 5, 1) (rope 1, load below
the trolley) in T = 3 (N = 40), from rest to rest, minimising
J = h Σ ½|u|².  The system is stated by its formulas
(`pyomo_mbdyn.mechanics.CoordinateSystem`): mass matrix, constraint, null
space and exact reparametrisation.  The thesis states that BEM and REM give
equal results and that T + V + W is conserved by the BEM and not by GC.

All three are solved at N = 40 with IPOPT's exact Hessian.  A coarser N is
no way to save time for GC: from the same guess at N = 20 its iteration runs
through negative rope lengths (the warning of spec §7.6)."""),
    new_code_cell(SETUP),
    new_code_cell("""\
import pandas as pd

from pyomo_mbdyn.models import crane
from pyomo_mbdyn.ocp import multipliers, solve

SCHEMES = ("bem", "rem", "gc")
OPTIONS = {"bem": {"tol": 1e-10}, "rem": {"tol": 1e-10}, "gc": {"tol": 1e-10}}
system = crane.build_system()
print(system.validate())
models, rows = {}, []
for scheme in SCHEMES:
    m = crane.build(scheme)                            # N = 40, interpolated guess
    m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    result = solve(m, "casadi_ipopt", options=OPTIONS[scheme])
    models[scheme] = m
    rows.append({"scheme": scheme, "iterations": result.solver.iterations, "J": pyo.value(m.ocp.control_effort)})
costs = pd.DataFrame(rows).set_index("scheme")
J = costs["J"]
print(f"|J_bem − J_rem| / J_bem = {abs(J['bem'] - J['rem']) / J['bem']:.1e}")
print(f"(J_bem − J_gc) / J_bem  = {(J['bem'] - J['gc']) / J['bem']:.2e}")
assert abs(J["bem"] - J["rem"]) < 1e-9 * J["bem"] and 1e-4 < (J["bem"] - J["gc"]) / J["bem"] < 1e-3
costs"""),
    new_markdown_cell("""\
## Coordinates

Every scheme reaches q_f at rest, with a positive rope length l = r β and the
load below the trolley (z > 0) at every node.  The swing angle
α = atan2(x − s, z) is the unactuated degree of freedom: the trolley
accelerates, the load lags behind, and the controls bring it to rest under
the trolley."""),
    new_code_cell("""\
arrays = {scheme: m.dyn.trajectory_arrays() for scheme, m in models.items()}   # (t, q, v, u, ν)
for scheme, (t, q, v, u, nu) in arrays.items():
    print(f"{scheme}: q_N = {q[-1].round(9) + 0.0}, max |v_N| = {np.abs(v[-1]).max():.1e}, "
          f"min l = {crane.RADIUS * q[:, 1].min():.3f}, min z = {q[:, 3].min():.3f}")
    assert np.allclose(q[-1], crane.QF, atol=1e-8) and q[:, 1].min() > 0 and q[:, 3].min() > 0
print(f"max |q_rem − q_bem| = {np.abs(arrays['rem'][1] - arrays['bem'][1]).max():.1e}, "
      f"max |q_gc − q_bem| = {np.abs(arrays['gc'][1] - arrays['bem'][1]).max():.1e}")

t, q = arrays["bem"][:2]
s, beta, x, z = q.T
fig = Figure(figsize=(15, 4))
axes = fig.subplots(1, 3)
plotting.plot_coordinates(t, np.column_stack([s, x, z, crane.RADIUS * beta]),
                          ["trolley s", "load x", "load z", "rope l = r β"], ax=axes[0])
for scheme, (t, q, *_) in arrays.items():
    axes[1].plot(t, np.degrees(np.arctan2(q[:, 2] - q[:, 0], q[:, 3])), marker=".", label=scheme)
axes[1].set_title("swing angle α [°]"); axes[1].set_xlabel("t"); axes[1].legend(); axes[1].grid(alpha=0.3)
for k in range(0, len(t), 5):                       # the crane seen from the side, every fifth node
    shade = 0.25 + 0.75 * k / (len(t) - 1)
    axes[2].plot([s[k], x[k]], [0, -z[k]], color="k", alpha=shade, lw=0.8)
    axes[2].plot(s[k], 0, "s", color="tab:blue", alpha=shade)
    axes[2].plot(x[k], -z[k], "o", color="tab:orange", alpha=shade)
axes[2].plot(x, -z, color="tab:orange", lw=0.8)
axes[2].set_aspect("equal"); axes[2].set_title("bem: trolley (■), rope and load (●)")
axes[2].set_xlabel("x"); axes[2].set_ylabel("−z"); axes[2].grid(alpha=0.3)
fig.tight_layout()
fig"""),
    new_markdown_cell("## Controls (u = − trolley force, − winch torque)"),
    new_code_cell("""\
fig = Figure(figsize=(15, 4))
axes = fig.subplots(1, 3, sharey=True)
for ax, scheme in zip(axes, SCHEMES):
    t, u = arrays[scheme][0], arrays[scheme][3]
    plotting.plot_controls(t, u, list(system.actuated), ax=ax)
    ax.set_title(f"controls: {scheme}")
fig.tight_layout()
fig"""),
    new_markdown_cell("""\
The controls follow from the momentum multipliers (u = −B λᵖ for the BEM,
u = −B P λᵖ for the REM — here B P ≠ I, the crane's inputs are not dual to its
null space):"""),
    new_code_cell("""\
for scheme, m in models.items():
    u = arrays[scheme][3]
    error = np.abs(multipliers.controls_from_multipliers(m.dyn) - u).max() / np.abs(u).max()
    print(f"{scheme}: max |u(λ) − u| / max |u| = {error:.1e}")
    assert error < 1e-7"""),
    new_markdown_cell("""\
## Energy: T + V + W

The load is lifted (z, measured downward, goes from 4 to 1): V = −m g z
grows, and the control work W — the work done by the crane on its actuators —
falls by as much.  The BEM and REM keep
E = T + V + W constant; GC does not.  (A `CoordinateSystem` has no
angular momentum; its momentum columns are NaN and are left out of the plot.)"""),
    new_code_cell("""\
tables = {scheme: m.dyn.diagnostics() for scheme, m in models.items()}
spread = pd.Series({scheme: np.ptp(tab["E"]) / tab["T"].max() for scheme, tab in tables.items()},
                   name="spread of E / max T")
print(spread.to_string(float_format=lambda x: f"{x:.1e}"))
assert spread["bem"] < 1e-10 and spread["rem"] < 1e-10 and spread["gc"] > 1e-3
fig = plotting.plot_conservation(tables["bem"].dropna(axis=1, how="all"))
ax = fig.axes[1]
tab = tables["gc"]
ax.plot(tab["t"], tab["E"] - tab["E"].iloc[0], color="tab:green", marker=".", label="gc")
ax.legend(["bem", "gc"])
fig"""),
]

DNCO_SETUP = SETUP + """

import pandas as pd

from pyomo_mbdyn.ocp import costate_table, solve
from pyomo_mbdyn.ocp.costates import costates, hamiltonian_drift


def solved(module, scheme, steps):
    \"\"\"The model of ``module`` with ``scheme`` and N = ``steps``, solved by IPOPT at tol 1e-12.\"\"\"
    m = module.build(scheme, steps=steps)
    solve(m, "casadi_ipopt", options={"tol": 1e-12})
    return m


def summary(models):
    \"\"\"J_d, H^d_{0,1}, the spread of H^d and of T + V + W, per scheme.\"\"\"
    rows = []
    for scheme, m in models.items():
        Hd = m.dyn.interval_table(costates(m.dyn))["Hd"]      # costates: variables, or −dual/h
        rows.append({"scheme": scheme, "J_d": m.dyn.cost(), "H^d_{0,1}": Hd.iloc[0],
                     "spread of H^d": np.ptp(Hd), "spread of T + V + W": np.ptp(m.dyn.diagnostics()["E"])})
    return pd.DataFrame(rows).set_index("scheme")"""

PENDULUM = [
    new_markdown_cell("""\
# Mathematical pendulum: direct against indirect, and the discrete Hamiltonian (thesis E6, Ch. 8.1)

A pendulum (m = 1, l = 1, g = 9.81; q = 0 horizontal, q = π/2 hanging down),
H(q, p) = p²/2 − g sin q, is swung from horizontal to hanging in T = 3, from
rest to rest, by a torque u entering like ∇V, minimising
J_d = h Σ ½u² (N = 20).  The thesis (after Gerdts) compares

* **direct-midpoint** — the NLP with midpoint state equations (its KKT system
  is the DNCO with trapezoidal costates, Eq. 8.18);
* **direct-greenspan** — the NLP with Greenspan's discrete gradient
  (V(q_{k+1}) − V(q_k))/(q_{k+1} − q_k) in the state equations;
* **dnco** — the *indirect* Hamiltonian-conserving DNCO (Eqs. 8.20–8.22):
  Greenspan state equations, the matching costate equations and u = −λᵖ, one
  square system.

Figures: the motion and the controls; the discrete Hamiltonian
H^d_{k,k+1} = −½u² + λ·[𝕁∇̄H − (0, u)], constant for the indirect method and
drifting as O(h²) for the direct ones (whose costates are read from the NLP
duals); the energy balance T + V + W, exact with Greenspan's gradient; and a
small convergence table."""),
    new_code_cell(DNCO_SETUP),
    new_code_cell("""\
from pyomo_mbdyn.models import pendulum

SCHEMES = ("direct-midpoint", "direct-greenspan", "dnco")
models = {scheme: solved(pendulum, scheme, pendulum.STEPS) for scheme in SCHEMES}
print("indirect DNCO: unknowns, equations =", models["dnco"].dyn.check_structure())
table = summary(models)
assert table.loc["dnco", "spread of H^d"] < 1e-12 * abs(table.loc["dnco", "H^d_{0,1}"])
assert table.loc["direct-midpoint", "spread of H^d"] > table.loc["direct-greenspan", "spread of H^d"] > 0.05
table"""),
    new_markdown_cell("""\
## Motion and controls

The three solutions are close (they discretise the same problem); the
controls are constant on each interval."""),
    new_code_cell("""\
fig = Figure(figsize=(15, 4))
axes = fig.subplots(1, 3)
for scheme, m in models.items():
    t, x, u, _ = m.dyn.arrays()
    axes[0].plot(t, x[:, 0], marker=".", label=scheme)
    axes[1].plot(t, x[:, 1], marker=".", label=scheme)
axes[0].set_title("angle q"); axes[1].set_title("momentum p")
for ax in axes[:2]:
    ax.set_xlabel("t"); ax.legend(); ax.grid(alpha=0.3)
U = np.column_stack([m.dyn.arrays()[2][:, 0] for m in models.values()])
plotting.plot_controls(t, U, list(SCHEMES), ax=axes[2])
fig.tight_layout()
fig"""),
    new_markdown_cell("""\
## The discrete Hamiltonian

For the indirect DNCO, H^d is the same on every interval (left: H^d, right:
the deviation from H^d_{0,1}, at round-off level)."""),
    new_code_cell("""\
tab = models["dnco"].dyn.interval_table()
plotting.plot_discrete_hamiltonian(tab["t"].to_numpy(), tab["Hd"].to_numpy()).figure"""),
    new_markdown_cell("""\
The direct methods' H^d, evaluated with the costates read from their duals,
varies over the intervals — less with Greenspan's gradient than with the
midpoint rule."""),
    new_code_cell("""\
fig = Figure(figsize=(7, 4))
ax = fig.add_subplot()
for scheme, m in models.items():
    tab = m.dyn.interval_table(costates(m.dyn))
    ax.plot(tab["t"], tab["Hd"], marker=".", label=scheme)
ax.set_xlabel("t"); ax.set_ylabel("H^d_{k,k+1}"); ax.set_title("discrete Hamiltonian"); ax.legend(); ax.grid(alpha=0.3)
fig"""),
    new_markdown_cell("""\
## Energy consistency

With Greenspan's quotient, H(x_{k+1}) − H(x_k) = −u·Δq exactly, so
E = T + V + W, with the discrete work W_k = Σ_{i<k} u_{i,i+1}(q_{i+1} − q_i), is
constant — for the direct and the indirect method alike.  The midpoint rule
has no such identity."""),
    new_code_cell("""\
fig = Figure(figsize=(7, 4))
ax = fig.add_subplot()
for scheme, m in models.items():
    diag = m.dyn.diagnostics()
    ax.plot(diag["t"], diag["E"] - diag["E"].iloc[0], marker=".", label=scheme)
ax.set_xlabel("t"); ax.set_ylabel("E − E₀"); ax.set_title("T + V + W"); ax.legend(); ax.grid(alpha=0.3)
assert table.loc["dnco", "spread of T + V + W"] < 1e-12 and table.loc["direct-greenspan", "spread of T + V + W"] < 1e-12
assert table.loc["direct-midpoint", "spread of T + V + W"] > 1e-2
fig"""),
    new_code_cell("plotting.plot_conservation(models[\"dnco\"].dyn.diagnostics())"),
    new_markdown_cell("""\
## Convergence (coarse N only)

J_d for N = 10, 20, 40: the differences between consecutive levels shrink
by about 4 (second order); the spread of the direct methods' H^d shrinks by
about 4 too, while the indirect one stays at round-off.  The indirect
solution is feasible for the direct Greenspan NLP, so its J_d is never below
that optimum."""),
    new_code_cell("""\
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
convergence"""),
]

PARTICLE = [
    new_markdown_cell("""\
# Particle in a central field: the indirect DNCO in three dimensions (thesis E7, Ch. 8.2)

A unit mass in the gravitational field V = −1/|q| (M = I₃,
H = ½|p|² + V) carries thrusters u (entering like ∇V) and moves in T = π from
q₀ = (1, 0, 0), p₀ = (0, 1, 0) to q_f = (0, 0, 1.5), p_f = (0, −1, 0),
minimising J_d = h Σ ½|u|² (N = 20).  Uncontrolled, it would run the unit
semicircle in the (x, y) plane to (−1, 0, 0); the thrusters lift it onto the
e₃ axis.  That semicircle is the initial guess.

Schemes: **dnco** — the indirect DNCO with the Gonzalez discrete gradient
(H_α = ∇H(x_{k+½})) and the H-conserving costates (Eqs. 8.49–8.53);
**direct-gonzalez** and **direct-midpoint** — the NLPs with those state
equations, costates from the duals.  Figures: the orbit, the controls, the
discrete Hamiltonian (constant only for the indirect method), the energy
balance, and a small convergence table."""),
    new_code_cell(DNCO_SETUP),
    new_code_cell("""\
from pyomo_mbdyn.models import particle

SCHEMES = ("direct-midpoint", "direct-gonzalez", "dnco")
models = {scheme: solved(particle, scheme, particle.STEPS) for scheme in SCHEMES}
print("indirect DNCO: unknowns, equations =", models["dnco"].dyn.check_structure())
table = summary(models)
assert table.loc["dnco", "spread of H^d"] < 1e-12 * abs(table.loc["dnco", "H^d_{0,1}"])
assert table.loc["direct-gonzalez", "spread of H^d"] > 1e-3
table"""),
    new_markdown_cell("## The orbit and the thrust"),
    new_code_cell("""\
t, x, u, lam = models["dnco"].dyn.arrays()
fig = Figure(figsize=(15, 4.5))
ax = fig.add_subplot(1, 3, 1, projection="3d")
guess = particle.semicircle(t)
ax.plot(*guess[:, :3].T, "k:", label="guess: uncontrolled semicircle")
for scheme, m in models.items():
    ax.plot(*m.dyn.arrays()[1][:, :3].T, marker=".", label=scheme)
ax.scatter(0, 0, 0, color="k", marker="*", s=80)
ax.set_xlabel("x"); ax.set_ylabel("y"); ax.set_zlabel("z"); ax.legend(fontsize="small")
ax.set_title("orbit (★: the attracting centre)")
plotting.plot_coordinates(t, x[:, :3], ["x", "y", "z"], ax=fig.add_subplot(1, 3, 2))
plotting.plot_controls(t, u, ["u_x", "u_y", "u_z"], ax=fig.add_subplot(1, 3, 3))
assert np.allclose(u, -lam[:, 3:], atol=1e-10)                 # the control equation u = −λᵖ
assert np.allclose(x[-1], np.concatenate([particle.QF, particle.PF]))
fig.tight_layout()
fig"""),
    new_markdown_cell("""\
## The discrete Hamiltonian

Constant to round-off for the indirect DNCO, not for the direct
transcriptions (costates from their duals)."""),
    new_code_cell("""\
tab = models["dnco"].dyn.interval_table()
plotting.plot_discrete_hamiltonian(tab["t"].to_numpy(), tab["Hd"].to_numpy()).figure"""),
    new_code_cell("""\
fig = Figure(figsize=(7, 4))
ax = fig.add_subplot()
for scheme, m in models.items():
    tab = m.dyn.interval_table(costates(m.dyn))
    ax.plot(tab["t"], tab["Hd"], marker=".", label=scheme)
ax.set_xlabel("t"); ax.set_ylabel("H^d_{k,k+1}"); ax.set_title("discrete Hamiltonian"); ax.legend(); ax.grid(alpha=0.3)
fig"""),
    new_markdown_cell("""\
## Energy consistency

The Gonzalez gradient satisfies ∇̄H·Δx = H(x_{k+1}) − H(x_k), so
T + V + W (W = Σ u·Δq) is constant for both Gonzalez solutions; the midpoint
rule's is not."""),
    new_code_cell("""\
print(table["spread of T + V + W"].to_string(float_format=lambda v: f"{v:.1e}"))
assert table.loc["dnco", "spread of T + V + W"] < 1e-12 and table.loc["direct-gonzalez", "spread of T + V + W"] < 1e-12
assert table.loc["direct-midpoint", "spread of T + V + W"] > 1e-4
plotting.plot_conservation(models["dnco"].dyn.diagnostics())"""),
    new_markdown_cell("""\
## Convergence (coarse N only)

The thesis follows J_d, H^d and the mean costates λ^q₃, λᵖ₃ of the indirect
method as N doubles; their differences shrink by about 4 (second order).
Here N = 10, 20, 40 (`pyomo-mbdyn run particle --steps N` for more)."""),
    new_code_cell("""\
LEVELS = (10, 20, 40)
rows = []
for N in LEVELS:
    m = models["dnco"] if N == particle.STEPS else solved(particle, "dnco", N)
    lam = m.dyn.arrays()[3]
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
convergence"""),
]

COSTATES = [
    new_markdown_cell("""\
# Costates and multipliers: BEM, REM and DNCO (thesis §2.11–2.12)

A direct transcription's KKT multipliers are the discrete costates of the
indirect method — up to sign and scale.  This notebook states the library's
one convention and checks the relations of the thesis on two examples: the
three-link arm (BEM against REM, Eqs. 7.19–7.22) and the pendulum (direct
transcriptions against the indirect DNCO, Ch. 8).

**The sign convention, once.**  Every multiplier the library returns belongs
to the Lagrangian

  𝓛 = J + Σ_rows λ · g,

with each row g written exactly as the scheme block states it (g = 0).
Pyomo's `dual` Suffix — filled by IPOPT through the AMPL interface, and by
`casadi_ipopt`, which copies it — holds ∂J/∂b, which for a minimisation is
−λ.  Hence

* **λ = −dual** for the BEM, REM and GC momentum rows
  (`pyomo_mbdyn.ocp.multipliers`), and
* **λ = −dual / h** for the DNCO's direct transcription
  (`pyomo_mbdyn.ocp.costates`), whose state-equation rows are the thesis rows
  divided by h.

With that sign the control equation reads u = −λᵖ (REM, DNCO) and
u = −B(q♯)λᵖ (BEM), and the two formulations' multipliers are related by
λ^REM = B(q♯_{k+½}) λ^BEM and λ^BEM = P(q_{k+½}) λ^REM.  The `dual` Suffix
must exist *before* the solve: `m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)`
(the DNCO models' direct transcriptions add it themselves)."""),
    new_code_cell(SETUP),
    new_markdown_cell("""\
## The three-link arm: BEM against REM

Both at N = 10 (the arm of `three-link-arm.ipynb`).  The BEM has one momentum
row per director coordinate (n = 36), the REM one per joint (3)."""),
    new_code_cell("""\
from pyomo_mbdyn.models import three_link_arm
from pyomo_mbdyn.ocp import multipliers, solve

arm = {}
for scheme in ("bem", "rem"):
    m = three_link_arm.build(scheme, steps=10)
    m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    solve(m, "casadi_ipopt", options={"tol": 1e-10})
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
    u = m.dyn.trajectory_arrays()[3]
    checks[f"|u(λ) − u| / |u|  ({scheme})"] = np.abs(multipliers.controls_from_multipliers(m.dyn) - u).max() / np.abs(u).max()
for name, value in checks.items():
    print(f"{name:32s} {value:.1e}")
assert max(checks.values()) < 1e-7"""),
    new_code_cell("""\
t = bem.h * (np.arange(len(lam_rem)) + 0.5)               # interval midpoints
plotting.plot_costates(mapped, lam_rem, labels=("B(q♯) λ^BEM", "λ^REM"), t=t,
                       names=list(rem.velocities), title="momentum multipliers")"""),
    new_markdown_cell("""\
λ^BEM itself lives in the range of P: only three combinations of its 36
entries are independent.  Per body, its entries are the multipliers of that
body's momentum rows (a force on φ, couples on the directors):"""),
    new_code_cell("""\
import pandas as pd

columns = [f"{body}.{c}" for body in bem.system.bodies for c in bem.body[body].coordinates]
frame = pd.DataFrame(lam_bem, columns=columns, index=pd.Index(t.round(3), name="t_{k+½}"))
frame[[c for c in columns if c.startswith("link3.")]].round(1)"""),
    new_markdown_cell("""\
## The pendulum: direct duals against indirect costates

For the DNCO of `pendulum.ipynb` the costates λ = (λ^q, λᵖ) live on the
intervals.  `costate_table(direct, indirect)` reads the direct
transcription's duals (λ = −dual/h) and puts them next to the indirect
method's costate variables, with u and H^d.  Both approximate the continuous
costate at the interval midpoints, so at equal N they differ by O(h²); the
control equation u = −λᵖ holds for both."""),
    new_code_cell("""\
from pyomo_mbdyn.models import pendulum
from pyomo_mbdyn.ocp import costate_table

pend = {}
for scheme in ("direct-midpoint", "direct-greenspan", "dnco"):
    m = pendulum.build(scheme)                  # direct schemes: m.dual is created by the model
    solve(m, "casadi_ipopt", options={"tol": 1e-12})
    pend[scheme] = m
tables = {scheme: costate_table(pend[scheme].dyn, pend["dnco"].dyn) for scheme in ("direct-midpoint", "direct-greenspan")}
for scheme, tab in tables.items():
    print(f"{scheme}: max |u + λᵖ| = {np.abs(tab['u_q'] + tab['lam_p_q_direct']).max():.1e}, "
          f"max |λ_direct − λ_indirect| = {np.abs(tab[['dlam_q_q', 'dlam_p_q']].to_numpy()).max():.3f}")
    assert np.abs(tab["u_q"] + tab["lam_p_q_direct"]).max() < 1e-8
tables["direct-greenspan"].round(5)"""),
    new_code_cell("""\
fig = Figure(figsize=(14, 4))
axes = fig.subplots(1, 2)
for ax, part in zip(axes, ("q", "p")):
    t_mid = tables["direct-greenspan"]["t"]
    ax.plot(t_mid, tables["direct-greenspan"][f"lam_{part}_q_indirect"], "k-", lw=2, label="dnco (indirect)")
    for scheme, tab in tables.items():
        ax.plot(t_mid, tab[f"lam_{part}_q_direct"], marker=".", label=f"{scheme} (−dual/h)")
    ax.set_title(f"λ^{part}"); ax.set_xlabel("t"); ax.legend(); ax.grid(alpha=0.3)
fig.tight_layout()
fig"""),
    new_code_cell("""\
tab = tables["direct-greenspan"]
plotting.plot_costates(tab[["lam_q_q_indirect", "lam_p_q_indirect"]].to_numpy(),
                       tab[["lam_q_q_direct", "lam_p_q_direct"]].to_numpy(),
                       labels=("dnco", "direct-greenspan"), t=tab["t"].to_numpy(), names=["λ^q", "λ^p"])"""),
]

PITCHER = [
    new_markdown_cell("""\
# The pitcher: a throwing arm (DMOCC paper §7.3)

The paper's topology: ground –R₁– collarbone –S– upper arm –R₂– forearm, the
torso rotation R₁ about e₃, a spherical shoulder S, the elbow R₂ about an axis
fixed in the upper arm, gravity along −e₃, and muscle torques on all five
degrees of freedom.  Directors give n = 36 coordinates and m = 31
constraints: n − m = 5 (Remark 7.3).  The arm starts at rest, hanging, with
the elbow bent by θ₅ = −π/4; it should throw: maximise the hand's momentum
along e₂ at the final time T = 0.415 (N = 36).

**The paper gives no parameters.**  The model uses plausible anthropometric
values for a 75 kg adult (segment masses and radii of gyration after de Leva
1996) and its own torque bounds and elbow range; they are documented in
`pyomo_mbdyn.models.pitcher` — so the paper's numbers cannot be compared.

This notebook shows the system, solves the throwing problem (a local
optimum, about 500 IPOPT iterations from the resting guess), and checks the
property the paper checks — momentum consistency — on the optimum and on a
forward simulation with chosen torques.  From the command line:

    pyomo-mbdyn run pitcher            # add --json for the numbers, --plot DIR for the figures"""),
    new_code_cell(SETUP),
    new_code_cell("""\
import pandas as pd

from pyomo_mbdyn.diagnostics import trajectory_table
from pyomo_mbdyn.models import pitcher
from pyomo_mbdyn.simulate import simulate

system = pitcher.build_system()
structure = system.validate()
print(structure)
print("bodies:", list(system.bodies), " joints:", list(system.joints))
print("actuated (one torque per degree of freedom):", list(system.actuated))
assert (structure["n"], structure["m"], structure["dof"]) == (36, 31, 5)
q0 = pitcher.initial_configuration(system)
ax = plotting.plot_snapshots(system, q0)
ax.view_init(elev=15, azim=-60)
ax.set_title("initial configuration: hanging, elbow bent by −π/4")
ax.figure"""),
    new_markdown_cell("""\
## The optimal-control problem

`pitcher.build()` puts the system on a DMOCC block and adds the objective
(−hand momentum + 10⁻³ × effort), the torque bounds, the elbow range, the
hand's final position in front of and above the shoulder, and per-step
rotation-increment bounds.  Its size:"""),
    new_code_cell("""\
m = pitcher.build()
variables = [x for x in m.component_data_objects(pyo.Var) if not x.fixed]
constraints = list(m.component_data_objects(pyo.Constraint, active=True))
print(f"N = {m.dyn.config.steps}, h = {m.dyn.h:.5f}, T = {pitcher.HORIZON}")
print(f"{len(variables)} free variables, {len(constraints)} constraints "
      f"({sum(c.equality for c in constraints)} equalities)")
print("torque bounds [N m]:", pitcher.TORQUE_LIMITS)
print("elbow range θ₅ ∈", tuple(round(float(v), 4) for v in pitcher.ELBOW_RANGE))"""),
    new_markdown_cell("""\
## The throw

IPOPT from the resting guess q_k = q₀.  The optimum is local (other guesses,
or the absolute configuration form, find others); with our torque bounds the
hand is faster than a human's."""),
    new_code_cell("""\
from pyomo_mbdyn.ocp import solve

solve(m, "casadi_ipopt", options={"max_iter": 3000})
t_opt, q_opt, _, u_opt, _ = m.dyn.trajectory_arrays()
hand_opt = np.array([np.asarray(pitcher.hand_position(system, qk), float) for qk in q_opt])
print(f"hand momentum along e₂: {pyo.value(m.ocp.hand_momentum):.2f} kg m/s "
      f"(hand speed ≈ {pyo.value(m.ocp.hand_momentum) / pitcher.FOREARM_MASS:.0f} m/s)")
print(f"final hand position: {hand_opt[-1].round(3)}")
assert hand_opt[-1, 1] >= -1e-8 and hand_opt[-1, 2] >= -1e-8      # in front of and above the shoulder
L3_opt = m.dyn.diagnostics()["Lz"].to_numpy()
torso = list(system.actuated).index("torso.angle")
print(f"on the optimum: max |ΔL₃ + h u_torso| = {np.abs(np.diff(L3_opt) + m.dyn.h * u_opt[:, torso]).max():.1e}")

fig = Figure(figsize=(13, 5.5))
ax = plotting.plot_snapshots(system, q_opt, t=t_opt, count=5, ax=fig.add_subplot(1, 2, 1, projection="3d"))
ax.plot(*hand_opt.T, color="k", lw=1)
ax.view_init(elev=15, azim=-60)
plotting.plot_controls(t_opt, u_opt, list(system.actuated), ax=fig.add_subplot(1, 2, 2))
fig.tight_layout()
fig"""),
    new_markdown_cell("""\
## A forward simulation with chosen torques

Applied torques (u is *minus* the applied torque, as everywhere in the
library) on the torso, the shoulder (about e₁) and the elbow, each a
half-sine pulse over T: the hand swings from behind and below the shoulder
to in front of it.  The same DMOCC equations as in the optimal-control block
are stepped by Newton's method (`simulate(..., scheme="dmocc")`).  (Much
larger torques spin the arm so fast within one step that the stepper's Newton
iteration fails — the optimisation does not have that problem, its rotation
increments are bounded.)"""),
    new_code_cell("""\
N = pitcher.STEPS
h = pitcher.HORIZON / N
t_mid = h * (np.arange(N) + 0.5)
pulse = np.sin(np.pi * t_mid / pitcher.HORIZON)
applied = {"torso.angle": 10.0, "shoulder.wx": -5.0, "shoulder.wy": 0.0, "shoulder.wz": 0.0, "elbow.angle": 4.0}
u = -np.column_stack([applied[a] * pulse for a in system.actuated])
trajectory = simulate(system, q0, np.zeros(system.n), h, N, u, scheme="dmocc")
table = trajectory_table(trajectory)
hand = np.array([np.asarray(pitcher.hand_position(system, qk), float) for qk in trajectory.q])
print(f"hand: from {hand[0].round(3)} to {hand[-1].round(3)}")
assert hand[0, 1] < 0 < hand[-1, 1]                       # from behind to in front of the shoulder
print(f"max constraint residual: {table['constraint_residual'].max():.1e}")

fig = Figure(figsize=(13, 5.5))
ax = plotting.plot_snapshots(system, trajectory.q, t=trajectory.t, count=5,
                             ax=fig.add_subplot(1, 2, 1, projection="3d"))
ax.plot(*hand.T, color="k", lw=1)
ax.view_init(elev=15, azim=-60)
plotting.plot_controls(trajectory.t, u, list(system.actuated), ax=fig.add_subplot(1, 2, 2))
fig.tight_layout()
fig"""),
    new_markdown_cell("""\
## Momentum consistency: L₃ changes exactly by the torso impulse

The only symmetry is the rotation about e₃ (gravity has no moment about it,
and the torso joint turns about it), so of the total angular momentum only
L₃ is affected by nothing but the torso torque: the discrete variational
scheme gives L_{3,k+1} − L_{3,k} = −h u^(R₁)_k *exactly* — to Newton's
tolerance, for any torques.  L₁ and L₂ change under gravity's moment and the
ground reaction."""),
    new_code_cell("""\
L = table[["Lx", "Ly", "Lz"]].to_numpy()
impulse = -h * u[:, list(system.actuated).index("torso.angle")]
error = np.abs(np.diff(L[:, 2]) - impulse).max()
print(f"max |ΔL₃ − (−h u_torso)| = {error:.1e}   (L₃ reaches {L[-1, 2]:.4f})")
assert error < 1e-10 * np.abs(L).max()

fig = Figure(figsize=(7, 4))
ax = fig.add_subplot()
ax.plot(trajectory.t, L[:, 2], "k-", lw=2.5, label="L₃ (diagnostics)")
ax.plot(trajectory.t, np.concatenate([[0.0], np.cumsum(impulse)]), "o", color="tab:orange", label="Σ −h u_torso")
ax.plot(trajectory.t, L[:, 0], label="L₁"); ax.plot(trajectory.t, L[:, 1], label="L₂")
ax.set_xlabel("t"); ax.set_title("angular momentum"); ax.legend(); ax.grid(alpha=0.3)
fig"""),
]

SATELLITE_INTRO = """\
The main body of the thesis's Table 4.1 satellite (a solid ellipsoid, see
`satellite-spin.ipynb`) carries {rotors} on revolute joints along its
principal axes.  It must turn, from rest to rest, by π about
(1, 2, 3)/√14 in T = 5 (N = 50), using only the rotor torques, minimising
J = h Σ ‖τₙ‖² (DMOCC).  The rotor torques are internal: the total angular
momentum stays zero all the way — the reorientation is a *geometric phase*,
the way a cat turns in free fall.  Only the main body's final orientation is
imposed (through the skew part of R_targetᵀR_N, with tr(R_targetᵀR_N) ≥ 1
excluding the half turns from the target, where the skew part vanishes as
well), together with the rotors' final rest.

As in the paper, the configurations are parametrised *absolutely*,
q_n = F(θ_n, q_ref) (`configurations="absolute"`): per node the main body's
position and rotation vector and the rotor angles; the rotor steps are
bounded by 1 rad against aliased optima."""

SATELLITE_GUESS = [
    new_markdown_cell("""\
## The system and the problem's size"""),
    new_code_cell("""\
system = m.dyn.system
print(system.validate())
print("bodies:", list(system.bodies), " actuated:", list(system.actuated))
variables = [x for x in m.component_data_objects(pyo.Var) if not x.fixed]
constraints = list(m.component_data_objects(pyo.Constraint, active=True))
print(f"scheme {m.dyn.scheme} ({m.dyn.config.configurations}), N = {m.dyn.config.steps}: "
      f"{len(variables)} free variables, {len(constraints)} constraints "
      f"({sum(c.equality for c in constraints)} equalities)")"""),
    new_markdown_cell("""\
## The initial guess: a zero-momentum manoeuvre

`build()` starts IPOPT from a dynamically feasible motion: rotor torques
that spin the rotors up and down again (rates 2 ν̄ sin²(πt/T), with ν̄ the
rotor rates for which a uniform turn about the target axis would carry no
angular momentum), simulated by the same scheme.  The total angular
momentum of the guess is zero to round-off — and the main body does turn,
though not yet onto the target."""),
    new_code_cell("""\
t, q, v, u, nu = m.dyn.trajectory_arrays()
table = m.dyn.diagnostics()
L = table[["Lx", "Ly", "Lz"]].to_numpy()
print(f"max |L| along the guess: {np.abs(L).max():.1e}   (max T = {table['T'].max():.1f})")
assert np.abs(L).max() < 1e-8 * max(1.0, table["T"].max())


def main_rotation(qk):
    return system.body_coordinates(qk, "main")[3:12].reshape(3, 3).T   # columns d1, d2, d3


def angle(R):
    return float(np.arccos(np.clip((np.trace(R) - 1) / 2, -1, 1)))


target = {module}.target_rotation()
print(f"main body turned by {angle(main_rotation(q[-1])):.3f} rad; target: {angle(target):.3f} rad; "
      f"still {angle(target.T @ main_rotation(q[-1])):.3f} rad away from it")
print(f"J of the guess: {pyo.value(m.ocp.control_effort):.4e}")"""),
    new_markdown_cell("""\
## Solving

IPOPT (`casadi_ipopt`, exact Hessian) from the guess; the tolerance 1e-9 is
what round-off allows for an objective of 10⁶."""),
    new_code_cell("""\
opt = pyo.SolverFactory("casadi_ipopt")
opt.options["tol"] = 1e-9
result = opt.solve(m)
print(result.solver.termination_condition, "—", result.solver.message)
J = pyo.value(m.ocp.control_effort)
print(f"J = {J:.6e}   (paper {PAPER:.4e}; relative difference {J / PAPER - 1:+.1e})")
assert abs(J / PAPER - 1) < 1e-4

t, q, v, u, nu = m.dyn.trajectory_arrays()
table = m.dyn.diagnostics()
L = table[["Lx", "Ly", "Lz"]].to_numpy()
steps = np.array([[abs(pyo.value(m.dyn.w[i, j])) for j in m.dyn.velocities if j.endswith("angle")]
                  for i in m.dyn.intervals])
print(f"final orientation error: {np.abs(main_rotation(q[-1]) - target).max():.1e}")
print(f"max |L| on the optimum: {np.abs(L).max():.1e}   largest rotor step: {steps.max():.3f} rad")"""),
    new_code_cell("""\
ax = plotting.plot_snapshots(system, q, t=t, count=6, offset="auto")
ax.set_title("optimal reorientation, t = 0 … 5")
ax.figure"""),
    new_code_cell("""\
fig = Figure(figsize=(14, 4))
axes = fig.subplots(1, 2)
plotting.plot_controls(t, u, list(system.actuated), ax=axes[0])
axes[0].set_title("optimal rotor torques")
axes[1].plot(t, table["T"], "k-", label="kinetic energy T")
ax2 = axes[1].twinx()
ax2.plot(t, L, "--", label=["Lx", "Ly", "Lz"])
ax2.set_ylabel("angular momentum (zero)")
axes[1].set_xlabel("t"); axes[1].legend(loc="upper left"); ax2.legend(loc="upper right")
axes[1].grid(alpha=0.3)
fig.tight_layout()
fig"""),
]

SATELLITE = [
    new_markdown_cell("""\
# Three-rotor satellite: reorientation by the rotors (DMOCC paper §7.2)

""" + SATELLITE_INTRO.format(rotors="three rotors (discs)") + """

The paper reports **J = 2.8242·10⁶**; IPOPT reaches it in a few iterations.
From the command line:

    pyomo-mbdyn run satellite                 # --json for the numbers, --plot DIR for the figures"""),
    new_code_cell(SETUP + """
from pyomo_mbdyn.models import satellite

PAPER = 2.8242e6
m = satellite.build()"""),
] + [new_code_cell(c.source.replace("{module}", "satellite")) if c.cell_type == "code"
     else new_markdown_cell(c.source) for c in SATELLITE_GUESS]

SATELLITE_UNDERACTUATED = [
    new_markdown_cell("""\
# Underactuated satellite: two rotors only (DMOCC paper §7.2)

""" + SATELLITE_INTRO.format(rotors="only two rotors, about d₁ and d₂ (rotor 3 removed)") + """
With two rotors the main body is turned about three axes by two inputs — a
nonholonomic problem.

The paper reports **J = 2.9168·10⁶**, "only slightly more" than with three
rotors.  An aliased optimum at 2.9128·10⁶, in which one rotor turns by
≈ 2.8 rad in a single step, is excluded by the increment bound.  From the
command line:

    pyomo-mbdyn run satellite-underactuated"""),
    new_code_cell(SETUP + """
from pyomo_mbdyn.models import satellite, satellite_underactuated

PAPER = 2.9168e6
m = satellite_underactuated.build()"""),
] + [new_code_cell(c.source.replace("{module}", "satellite")) if c.cell_type == "code"
     else new_markdown_cell(c.source) for c in SATELLITE_GUESS] + [
    new_markdown_cell("""\
## Why the half turns are excluded

The target is itself a half turn from the start, so the skew rows
skew(R_targetᵀR) = 0 hold at the *initial* orientation too (and at every
half turn from the target).  Without the trace row IPOPT ends at such a
point from this guess — cheap, and wrong:"""),
    new_code_cell("""\
wrong = satellite_underactuated.build(exclude_half_turns=False)
opt.solve(wrong)
R_end = main_rotation(wrong.dyn.configuration_values()[-1])
print(f"J = {pyo.value(wrong.ocp.control_effort):.4e}; tr(R_targetᵀR_N) = {np.trace(target.T @ R_end):+.3f} "
      "(3 at the target, -1 a half turn away)")"""),
]


NOTEBOOKS = {"sphere": SPHERE, "satellite-spin": SATELLITE_SPIN, "heavy-top": HEAVY_TOP, "tutorial": TUTORIAL,
             "three-link-arm": THREE_LINK_ARM, "three-link-arm-dnco": THREE_LINK_ARM_DNCO, "crane": CRANE,
             "pendulum": PENDULUM, "particle": PARTICLE, "costates": COSTATES, "pitcher": PITCHER,
             "satellite": SATELLITE, "satellite-underactuated": SATELLITE_UNDERACTUATED}


def main():
    for name, cells in NOTEBOOKS.items():
        nb = new_notebook(cells=cells, metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"}})
        for i, cell in enumerate(nb.cells):
            cell.id = f"{name}-{i}"  # stable ids: regenerating gives no diff
        nbformat.validate(nb)
        nbformat.write(nb, HERE / f"{name}.ipynb")


if __name__ == "__main__":
    main()
