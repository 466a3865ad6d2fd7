"""The robot zoo (issue 47): every fixed-base serial arm of example-robot-data × gc, rem, bem,
lobatto_gc, rest to rest between seeded random pose pairs within the URDF's position, velocity and
effort limits, beside a hand-written joint-space NLP of the same problem.

    python -m benchmarks.robot_zoo                      # every arm, 1 pose pair, N = 50
    python -m benchmarks.robot_zoo --robots kinova xarm7 --pairs 2
    python -m benchmarks.robot_zoo --table-only         # the table of benchmarks/results/robot_zoo.jsonl

Benchmark code, not library code.  The problem is :func:`pyomo_mbdyn.models.robot_arm.rest_to_rest`
with the velocity limits on, between :func:`~pyomo_mbdyn.models.robot_arm.random_pose_pair` (seed =
the pair's number) in :func:`~pyomo_mbdyn.models.robot_arm.paced_horizon` (the quintic between the
poses peaks at 80 % of the most loaded joint's velocity limit), each scheme from its default start.
The hand-written NLP is :func:`benchmarks.robots.solve_joint_space` (GC's NLP written
independently, RNEA in CasADi SX from Pinocchio's model) with the same velocity bounds: ṽ_k at
the nodes and (θ_{k+1} − θ_k)/h.  Every point runs in its own process with a wall-clock limit.

Each row reports what the issue asks to be true of every solution: status, iterations, J, wall time,
``velocity_ratio_max`` (max |Δθ/h| / v_max over the steps and joints; ≤ 1), ``effort_ratio_max``,
``joint_limit_margin_min`` (≥ 0 up to IPOPT's bound relaxation), ``final_joint_rate_max`` (the joint
rates of :mod:`pyomo_mbdyn.joint_space` at the last node; 0 at rest).
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SCHEMES = ("gc", "rem", "bem", "lobatto_gc")
RESULTS = Path(__file__).parent / "results" / "robot_zoo.jsonl"
TIMELIMIT = 600.0


def zoo():
    """name → URDF path of every arm of the installed example-robot-data (:mod:`pyomo_mbdyn.robots`)."""
    from pyomo_mbdyn.robots import zoo_arms

    return dict(zoo_arms())


def system_of(name):
    """The arm ``name`` of the zoo as the library reads it: its end-effector joints locked
    (:func:`pyomo_mbdyn.robots.zoo_arm`)."""
    from pyomo_mbdyn.mechanics import MultibodySystem
    from pyomo_mbdyn.robots import zoo_arm

    arm = zoo_arm(name)
    return MultibodySystem.from_urdf(arm.path, lock=arm.lock)


def problem(name, seed):
    """``(system, start, target, T)`` of the pose pair ``seed`` of the arm ``name``."""
    from pyomo_mbdyn.models import robot_arm

    system = system_of(name)
    start, target = robot_arm.random_pose_pair(system, seed)
    return system, start, target, robot_arm.paced_horizon(system, start, target)


def library_point(name, scheme, seed, N):
    import pyomo.environ as pyo

    from pyomo_mbdyn.models import robot_arm
    from pyomo_mbdyn.solvers import get_solver

    system, start, target, T = problem(name, seed)
    w0 = time.perf_counter()
    m = robot_arm.rest_to_rest(name, system, scheme, N, T, start, target)
    w1 = time.perf_counter()
    opt = get_solver("casadi_ipopt", model=m)
    try:
        results = opt.solve(m, timelimit=TIMELIMIT)
        status, iterations = str(results.solver.termination_condition), getattr(results.solver, "iterations", None)
    except Exception as err:  # noqa: BLE001 - a benchmark records every failure
        status, iterations = f"error: {type(err).__name__}: {str(err)[:200]}", None
    w2 = time.perf_counter()
    out = {"status": status, "iterations": iterations, "T": T, "build_s": w1 - w0, "solve_s": w2 - w1,
           "wall_s": w2 - w0}
    if status in ("optimal", "locallyOptimal"):
        out["objective"] = pyo.value(next(m.component_data_objects(pyo.Objective, active=True)))
        out.update(robot_arm.evaluate(m))
        angles = m.problem.joint_coordinates()
        theta = np.array([[pyo.value(angles[k, j]) for j in m.dyn.velocities] for k in m.dyn.nodes])
        vmax = np.array([system.urdf_limits[j.rsplit(".", 1)[0]].velocity or np.inf for j in m.dyn.velocities])
        out["velocity_ratio_max"] = float(np.max(np.abs(np.diff(theta, axis=0)) / (T / N) / vmax))
    return out


def hand_point(name, seed, N):
    """The hand-written joint-space NLP (benchmarks.robots.solve_joint_space) with velocity bounds."""
    import pinocchio as pin

    from benchmarks.robots import solve_joint_space

    system, start, target, T = problem(name, seed)
    model = _pinocchio_model(name)
    w0 = time.perf_counter()
    out = solve_joint_space(model, start, target, T, N, velocity=np.array(
        [system.urdf_limits[j.rsplit(".", 1)[0]].velocity for j in system.velocities], float))
    out.pop("theta", None)
    out["T"] = T
    out["wall_s"] = time.perf_counter() - w0
    return out


def _pinocchio_model(name):
    """Pinocchio's model of the arm with the library's locks (``buildReducedModel``) and each continuous
    joint made revolute within ±1000 rad (Pinocchio models a continuous joint by (cos θ, sin θ), the
    hand-written RNEA takes angles); links named like a locked joint renamed (Pinocchio looks the locked
    joints up by frame name)."""
    import xml.etree.ElementTree as ET

    import pinocchio as pin

    from pyomo_mbdyn.robots import zoo_arm

    arm = zoo_arm(name)
    root = ET.parse(arm.path).getroot()
    for joint in root.iter("joint"):
        if joint.get("type") == "continuous":
            joint.set("type", "revolute")
            limit = joint.find("limit")
            if limit is None:
                limit = ET.SubElement(joint, "limit", effort="0", velocity="0")
            limit.set("lower", "-1000")
            limit.set("upper", "1000")
    for el in root.iter():
        if el.tag in ("link", "parent", "child"):
            for attribute in ("name", "link"):
                if el.get(attribute) in arm.lock:
                    el.set(attribute, el.get(attribute) + "__link")
    model = pin.buildModelFromXML(ET.tostring(root, encoding="unicode"))
    if not arm.lock:
        return model
    reference = pin.neutral(model)
    ids = [model.getJointId(joint) for joint in arm.lock]
    for jid, value in zip(ids, arm.lock.values()):
        reference[model.joints[jid].idx_q] = value
    return pin.buildReducedModel(model, ids, reference)


def point(argv):
    kind, name, seed, N = argv[0], argv[1], int(argv[3]), int(argv[4])
    out = hand_point(name, seed, N) if kind == "hand" else library_point(name, argv[2], seed, N)
    print(json.dumps(out))


def run_point(kind, name, scheme, seed, N):
    command = [sys.executable, "-m", "benchmarks.robot_zoo", "--point", kind, name, scheme, str(seed), str(N)]
    t0 = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMELIMIT + 120,
                              cwd=Path(__file__).parents[1], env={**os.environ, "PYTHONWARNINGS": "ignore"})
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        out = json.loads(lines[-1]) if lines else {"status": f"crashed: {done.stderr.strip()[-300:]}"}
    except subprocess.TimeoutExpired:
        out = {"status": "timeout", "wall_s": time.perf_counter() - t0}
    out.update(robot=name, label=scheme if kind == "library" else "hand", pair=seed, N=N)
    return out


def table(rows):
    """Markdown: one line per (robot, pair), a column per NLP with status, iterations, J, time."""
    ok = ("optimal", "locallyOptimal", "Solve_Succeeded")
    labels = ["hand"] + list(SCHEMES)
    by = {}
    for r in rows:
        by.setdefault((r["robot"], r["pair"], r["N"]), {})[r["label"]] = r
    lines = ["| robot | pair | T [s] | " + " | ".join("hand-written" if lb == "hand" else lb for lb in labels) + " |",
             "|---|---|---|" + "---|" * len(labels)]
    for (robot, pair, N), cells in by.items():
        hand = cells.get("hand", {})
        T = next((c.get("T") for c in cells.values() if c.get("T")), float("nan"))
        out = []
        for lb in labels:
            c = cells.get(lb)
            if c is None:
                out.append("–")
            elif c.get("status") in ok:
                ratio = c["wall_s"] / hand["wall_s"] if hand.get("status") in ok and lb != "hand" else None
                extra = f", ×{ratio:.1f}" if ratio else ""
                vel = f", v {c['velocity_ratio_max']:.2f}" if "velocity_ratio_max" in c else ""
                out.append(f"{c['iterations']} its, J {c['objective']:.4g}, {c['wall_s']:.1f} s{extra}{vel}")
            else:
                out.append(f"**{str(c.get('status'))[:40]}** ({c.get('wall_s', float('nan')):.0f} s)")
        lines.append(f"| {robot} | {pair} | {T:.2f} | " + " | ".join(out) + " |")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--point":
        return point(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m benchmarks.robot_zoo")
    parser.add_argument("--robots", nargs="*")
    parser.add_argument("--schemes", nargs="*", default=list(SCHEMES))
    parser.add_argument("--pairs", type=int, default=1)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--no-hand", action="store_true")
    parser.add_argument("--table-only", action="store_true")
    args = parser.parse_args(argv)
    if not args.table_only:
        RESULTS.parent.mkdir(exist_ok=True)
        for name in args.robots or list(zoo()):
            for seed in range(args.pairs):
                points = ([] if args.no_hand else [("hand", "hand")]) + [("library", s) for s in args.schemes]
                for kind, scheme in points:
                    row = run_point(kind, name, scheme, seed, args.steps)
                    print(json.dumps(row), flush=True)
                    with RESULTS.open("a") as f:
                        f.write(json.dumps(row) + "\n")
    rows = [json.loads(line) for line in RESULTS.read_text().splitlines()] if RESULTS.exists() else []
    latest = {}
    for r in rows:
        latest[(r["robot"], r["pair"], r["N"], r["label"])] = r
    print(table(list(latest.values())))


if __name__ == "__main__":
    main()
