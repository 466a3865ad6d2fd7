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

NOTEBOOKS = {"sphere": SPHERE, "satellite-spin": SATELLITE_SPIN, "heavy-top": HEAVY_TOP, "tutorial": TUTORIAL}


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
