"""Every code block of the user guide's problem and modelling pages runs as written and does what
the text around it says (docs/guide/problems.md, docs/guide/modelling.md).

problems.md's blocks are self-contained (each runs in a fresh namespace, as a reader copies
it); modelling.md's run in order in one namespace (its forward-simulation block continues the
first block's arm).  Each block is recognised by a phrase of its code and checked by the
function of that phrase; a block that no check recognises fails the test, so no block escapes.
"""

import re
from pathlib import Path

import numpy as np
import pyomo.environ as pyo
import pytest

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide"


def _blocks(page):
    text = (GUIDE / page).read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


def _run(code, name, namespace=None):
    namespace = {"__name__": "guide_example"} if namespace is None else namespace
    exec(compile(code, name, "exec"), namespace)
    return namespace


# -- problems.md: what each section claims ------------------------------------------------------

def _final_rest(ns, out):
    from pyomo_mbdyn.joint_space import joint_space_table

    assert str(ns["results"].solver.termination_condition) == "optimal"
    trajectory, arm = ns["trajectory"], ns["arm"]
    table = trajectory.diagnostics()
    joints = joint_space_table(trajectory)
    # the target reached, turns counted
    assert np.allclose(joints[["shoulder.angle", "elbow.angle"]].iloc[-1], [np.pi / 2, 0.5], atol=1e-8)
    # T + V + W at round-off
    assert np.abs(table["E"].to_numpy()).max() < 1e-9
    # the last T of the conservation table is not zero, but it is all off the tangent space:
    # the motion's kinetic energy and joint rates are zero at the last node
    assert abs(pyo.value(ns["m"].ocp.control_effort) - 5.587) < 1e-3
    assert abs(table["T"].iloc[-1] - 0.023) < 5e-4 and table["velocity_constraint_residual"].iloc[-1] > 1e-3
    assert joints["T"].iloc[-1] < 1e-20
    assert np.isclose(joints["T_off"].iloc[-1], table["T"].iloc[-1], rtol=1e-10)
    assert np.abs(joints[["shoulder.angle.rate", "elbow.angle.rate"]].iloc[-1]).max() < 1e-10


def _bounds(ns, out):
    from pyomo_mbdyn.joint_space import joint_space_table

    u = ns["m_torque"].dyn.trajectory().u
    assert np.abs(u).max() <= 1.5 + 1e-6
    assert (np.abs(u).max(axis=0) > 1.5 - 1e-4).all(), "both motors reach their limit"
    assert abs(pyo.value(ns["m_torque"].ocp.control_effort) - 6.021) < 1e-3
    assert abs(pyo.value(ns["m_elbow"].ocp.control_effort) - 22.28) < 1e-2
    assert abs(np.abs(ns["m_elbow"].dyn.trajectory().u[:, 0]).max() - 5.43) < 1e-2
    elbow = joint_space_table(ns["m_elbow"].dyn.trajectory())["elbow.angle"]
    assert elbow.min() >= -0.2 - 1e-6 and elbow.max() <= 1.0 + 1e-6
    assert elbow.max() > 1.0 - 1e-4, "the bound is active"
    for m in (ns["m_torque"], ns["m_elbow"]):
        theta = joint_space_table(m.dyn.trajectory())[["shoulder.angle", "elbow.angle"]].iloc[-1]
        assert np.allclose(theta, [np.pi / 2, 0.5], atol=1e-8)


def _velocity_limits(ns, out):
    rate = np.abs(np.diff(ns["shoulder"])) / ns["m"].dyn.step_length
    assert rate.max() <= 1.0 + 1e-6
    assert (rate > 1.0 - 1e-4).sum() == 12, "the limit binds on 12 of the 20 steps"
    assert abs(pyo.value(ns["m"].ocp.control_effort) - 25.21) < 1e-2
    assert np.isclose(ns["shoulder"][-1], np.pi / 2, atol=1e-8)


def _minimum_time(ns, out):
    T = pyo.value(ns["m"].dyn.final_time)
    assert abs(T - 2.0) < 1e-6, T           # T* = 2 sqrt(m d / U)
    u = ns["m"].dyn.trajectory().u.ravel()
    assert np.allclose(u, [1.0] * 5 + [-1.0] * 5, atol=1e-5), u
    assert np.isclose(ns["m"].dyn.trajectory().q[-1, 0], 1.0, atol=1e-9)


def _own_start(ns, out):
    up, down = ns["results"][2.5], ns["results"][-2.5]
    assert up[0] == down[0] == "optimal"
    assert abs(up[1] - 5.587) < 1e-3 and 2.8 < up[3] < 2.9, up
    assert abs(down[1] - 6.078) < 1e-3 and -2.9 < down[2] < -2.8, down


def _chart(ns, out):
    arm, q = ns["arm"], ns["q"]
    assert np.allclose(q[3:6], [0, 1, 0], atol=1e-12)
    assert np.allclose(q[15:18], [np.cos(np.pi / 2 + 0.5), np.sin(np.pi / 2 + 0.5), 0], atol=1e-12)
    assert np.allclose(ns["theta"], [np.pi / 2, 0.5]) and np.allclose(ns["rates"], [1.0, -2.0])
    from pyomo_mbdyn.discretization import chart, chart_coordinates

    assert np.allclose(chart_coordinates(arm, chart(arm, [4.0, 0.0])), [4.0 - 2 * np.pi, 0.0])
    assert np.allclose(chart_coordinates(arm, chart(arm, [4.0, 0.0]), start=[3.5, 0.0]), [4.0, 0.0])
    m = ns["m"]
    d1 = [pyo.value(m.dyn.body["upper"].q[0, c]) for c in ("d1x", "d1y")]
    assert np.allclose(d1, [np.cos(0.3), np.sin(0.3)], atol=1e-12)


def _multistart(ns, out):
    runs, optima = ns["runs"], ns["optima"]
    assert runs[0][1] == "optimal" and abs(runs[0][2] - 5.5867) < 1e-4
    assert runs[1][1] == "optimal" and abs(runs[1][2] - 6.0775) < 1e-4
    assert len(optima) >= 2 and optima[0] == pytest.approx(5.5867, abs=1e-4)


def _refinement(ns, out):
    fine, direct = ns["fine"], ns["direct"]
    assert [(s["steps"], s["start"], s["status"]) for s in ns["problem"].stages] == [
        (50, "guess", "optimal"), (200, "refined", "optimal")]
    assert "[(50, 'guess'), (200, 'refined')]" in out
    J, J_direct = pyo.value(fine.ocp.control_effort), pyo.value(direct.ocp.control_effort)
    assert abs(J - 5.43798) < 1e-5 and abs(J - J_direct) < 1e-8 * J, (J, J_direct)
    assert ns["plain"].stages[0]["start"] == "refine=False"


PROBLEMS = {
    "problem.require_final_rest()\nresults = problem.solve()": _final_rest,
    "bound_controls(-1.5, 1.5)": _bounds,
    "apply_velocity_limits(": _velocity_limits,
    "minimise_final_time()": _minimum_time,
    "for swing in (+2.5, -2.5)": _own_start,
    "chart_coordinates(arm, q, v=": _chart,
    "perturb_chart(m, 0.1, rng)": _multistart,
    "plain.solve(refine=False)": _refinement,
}


def _problem_cases():
    cases = []
    for i, code in enumerate(_blocks("problems.md")):
        keys = [key for key in PROBLEMS if key in code]
        cases.append(pytest.param(code, keys, id=keys[0][:24] if len(keys) == 1 else f"block-{i}"))
    return cases


def test_every_example_of_problems_md_is_checked():
    seen = [key for code in _blocks("problems.md") for key in PROBLEMS if key in code]
    assert sorted(seen) == sorted(PROBLEMS), "each check must recognise exactly one block"


@pytest.mark.parametrize("code,keys", _problem_cases())
def test_problems_md_example_runs_and_does_what_the_text_says(code, keys, capsys, monkeypatch, tmp_path):
    assert len(keys) == 1, f"a block of problems.md that no check (or several) recognises:\n{code[:300]}"
    monkeypatch.chdir(tmp_path)
    namespace = _run(code, "docs/guide/problems.md")
    PROBLEMS[keys[0]](namespace, capsys.readouterr().out)


# -- modelling.md: its blocks in order, one namespace ------------------------------------------

def _arm(ns, out):
    report = ns["arm"].validate()
    assert (report["n"], report["m"], report["dof"], report["redundant_constraints"]) == (24, 20, 4, [])
    assert np.abs(ns["G"] @ ns["P"]).max() < 1e-12


def _bob(ns, out):
    assert ns["pendulum"].validate()["dof"] == 1


def _inertia(ns, out):
    assert np.allclose(ns["rod_x"].euler, [1 / 12 - 5e-4, 5e-4, 5e-4])
    d1 = ns["rod_y"].q0[3:6]
    assert np.allclose(d1, [0, 1, 0])
    assert "J_2 = 0 is a thin rod along d_2" in out and "small positive axial moment, e.g. J_2 = 8.33e-05" in out
    assert "violates the triangle inequality J_3 < J_1 + J_2: no rigid body has these moments" in out


def _signs(ns, out):
    from pyomo_mbdyn.discretization import chart, chart_coordinates

    for sign in (1, -1):
        links = ns["two_links"]((0, 0, sign))
        q = chart(links, [0.3, 0.2])
        assert np.allclose(q[3:6], [np.cos(0.3), sign * np.sin(0.3), 0], atol=1e-12)
        assert np.allclose(q[15:18], [np.cos(0.5), sign * np.sin(0.5), 0], atol=1e-12)
    shoulder, elbow = chart_coordinates(ns["links"], ns["pushed"].q[-1])
    assert elbow > 0.05 and shoulder < -0.01, (shoulder, elbow)


def _forward(ns, out):
    m, trajectory = ns["m"], ns["trajectory"]
    solved = m.dyn.trajectory()
    assert np.abs(solved.q - trajectory.q).max() < 1e-8
    E = trajectory.diagnostics()["E"].to_numpy()     # T + V + W, constant (V ≠ 0: gravity)
    assert np.ptp(E) < 1e-9 * abs(E[0]), np.ptp(E)


MODELLING = {
    "arm.validate()": _arm,
    'PointMass("bob"': _bob,
    "rod_x = RigidBody": _inertia,
    "def two_links(axis)": _signs,
    "simulate(arm, q, v0": _forward,
}


def test_modelling_md_examples_run_in_order_and_do_what_the_text_says(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "guide_example"}
    checked = []
    for code in _blocks("modelling.md"):
        keys = [key for key in MODELLING if key in code]
        assert len(keys) == 1, f"a block of modelling.md that no check (or several) recognises:\n{code[:300]}"
        _run(code, "docs/guide/modelling.md", namespace)
        MODELLING[keys[0]](namespace, capsys.readouterr().out)
        checked.append(keys[0])
    assert sorted(checked) == sorted(MODELLING)
