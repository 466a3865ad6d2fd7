"""A spatial chain of k links from a generated URDF, rest to rest, for the scaling in the
number of bodies (issue 31): the library's GC and REM beside the hand-written joint-space
NLP of :mod:`benchmarks.robots` on the same URDF.

    python -m benchmarks.spatial_chain                 # k = 2, 4, 8, 16 at N = 100
    python -m benchmarks.spatial_chain --links 2 4 --steps 50

Benchmark code, not library code.  The chain hangs: link i 0.3 m along −e_z, mass 1 kg
at its middle, a slender rod's inertia; joint i revolute about x (i even) or y (i odd) at
the end of link i − 1, limits ±3 rad and 500 N m; gravity −9.81 e_z, so θ = 0 is the
stable rest (a chain held out sideways instead has cheaper optima at its joint limits,
where the links hang — the hand-written NLP and GC found different ones).  From θ = 0 to
θ_i = ±0.2 rad (alternating) in T = 2 s, at rest at both ends, J = h Σ ½|u|² — the
problem of :mod:`pyomo_mbdyn.models.robot_arm` (the library) and of
:func:`benchmarks.robots.solve_joint_space` (hand-written).  Fitted exponents in k of
the total time are printed per NLP.
"""

import argparse
import json
import time

import numpy as np

LENGTH, HORIZON = 0.3, 2.0
LIBRARY = ("gc", "rem")


def urdf(k):
    """The chain's URDF text."""
    inertia = (f'<inertia ixx="{LENGTH ** 2 / 12:.6f}" iyy="{LENGTH ** 2 / 12:.6f}" izz="0.001" '
               'ixy="0" ixz="0" iyz="0"/>')
    links = ['<link name="base"><inertial><origin xyz="0 0 0"/><mass value="1"/>'
             '<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>']
    joints = []
    for i in range(k):
        links.append(f'<link name="l{i}"><inertial><origin xyz="0 0 {-LENGTH / 2}"/><mass value="1"/>'
                     f'{inertia}</inertial></link>')
        parent, offset = ("base", 0.0) if i == 0 else (f"l{i - 1}", LENGTH)
        axis = "1 0 0" if i % 2 == 0 else "0 1 0"
        joints.append(f'<joint name="j{i}" type="revolute"><parent link="{parent}"/><child link="l{i}"/>'
                      f'<origin xyz="0 0 {-offset}" rpy="0 0 0"/><axis xyz="{axis}"/>'
                      '<limit lower="-3" upper="3" effort="500" velocity="10"/></joint>')
    return f'<?xml version="1.0"?><robot name="chain{k}">{"".join(links)}{"".join(joints)}</robot>'


def poses(k):
    return np.zeros(k), np.array([0.2 * (-1) ** i for i in range(k)])


def library_point(scheme, k, N):
    from benchmarks._measure import library_point as measured
    from pyomo_mbdyn.mechanics import MultibodySystem
    from pyomo_mbdyn.models.robot_arm import rest_to_rest

    start, target = poses(k)
    return measured(lambda: rest_to_rest(f"chain-{k}", MultibodySystem.from_urdf(urdf(k)), scheme, N,
                                         HORIZON, start, target), energy=False)


def hand_point(k, N):
    import pinocchio as pin

    from benchmarks.robots import solve_joint_space

    t0 = time.perf_counter()
    model = pin.buildModelFromXML(urdf(k))
    start, target = poses(k)
    out = solve_joint_space(model, start, target, HORIZON, N)
    out.pop("theta"), out.pop("model_s")
    out["build_s"] += time.perf_counter() - t0 - out["wall_s"]
    out["wall_s"] = out["build_s"] + out["solve_s"]
    return out


def main(argv=None):
    from benchmarks._report import machine_line
    from benchmarks.runner import record, run_point

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, nargs="*", default=[2, 4, 8, 16])
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args(argv)
    print(machine_line())
    rows = []
    for k in args.links:
        for label in ("hand",) + LIBRARY:
            point = ["spatial-chain", label, k, args.steps]
            result = run_point(point, hard_timeout=900)
            result.update(links=k, N=args.steps, label=label)
            record("spatial_chain", result)
            rows.append(result)
            print(json.dumps({key: result.get(key) for key in ("links", "N", "label", "status", "iterations",
                                                                "objective", "build_s", "solve_s", "wall_s",
                                                                "rss_peak_mb")}), flush=True)
    print(exponents(rows, args.steps))
    return rows


CONVERGED = ("optimal", "locallyOptimal", "Solve_Succeeded")


def exponents(rows, N):
    """Fitted exponents in k of the total time and of the time per iteration, over the
    converged points only (a point stopped by the time limit says nothing about k)."""
    lines = []
    for label in ("hand",) + LIBRARY:
        pts = [(r["links"], r["wall_s"], r["solve_s"] / max(1, r["iterations"])) for r in rows
               if r["label"] == label and r.get("status") in CONVERGED]
        if len(pts) > 1:
            k = np.log([p[0] for p in pts])
            total = np.polyfit(k, np.log([p[1] for p in pts]), 1)[0]
            per_iteration = np.polyfit(k, np.log([p[2] for p in pts]), 1)[0]
            lines.append(f"{label}: total time ~ k^{total:.2f}, solve time per iteration ~ k^{per_iteration:.2f} "
                         f"(converged k = {[p[0] for p in pts]}, N = {N})")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
