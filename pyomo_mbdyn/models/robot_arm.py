"""Rest to rest for a robot arm read from a URDF: the shared build of the ``panda`` and
``ur5`` models.

Problem: from the pose ``start`` (joint angles, rad, URDF convention) to ``target`` in
``horizon`` seconds, at rest at both ends, minimising J = h Σ_i Σ_a ½ u_ia², with the
URDF's position limits on every node (:meth:`OptimalControlProblem.apply_joint_limits`)
and effort limits on every control (:meth:`~OptimalControlProblem.apply_effort_limits`),
its velocity limits on the joint rates by default (:meth:`~OptimalControlProblem.apply_velocity_limits`:
every step's mean rate, and GC's node rates; ``velocity_limits=False`` drops them),
under gravity.  The final configuration is stated in joint angles
(``fix_final_configuration``), the final rest by the scheme's rest
(``require_final_rest``: bem, rem the dof rows P(q_N)ᵀ M v_N = 0; gc ṽ_N = 0).  The
guess interpolates the joint angles (quintic, rest to rest) with the forces split
exactly (:func:`~pyomo_mbdyn.ocp.interpolated_trajectory`).

Node configurations (``configurations=``, default per scheme in
``CONFIGURATIONS``): BEM and REM by the absolute chart ``q_k = F(θ_k, q_ref)`` in
joint angles, GC by its chart.  Measured on the Panda at N = 50
(benchmarks/pages/robots.md, which holds the times): the lifted form (84 coordinates and
the reparametrisation rows per node) has a Lagrangian Hessian of 713 000 nonzeros, whose
KKT factorisation dominates every iteration; the absolute form has 53 000 and solves the
same NLP to the same optimum (J = 138.580276) in 41 iterations.

The grid: N = 50 (h = 30 ms).  The motion swings the heavy proximal links through
about a radian in T = 1.5 s; J at N = 20, 50, 100, 200 (REM, absolute) is 134.62,
138.58, 138.37, 138.32 — second order from N = 50 on.  At N = 20 the lifted REM and
BEM reach J ≈ 73.6, not a better motion but a coarse-grid artefact of the lifted
node velocities (they leave the tangent space: ``max |G(q_k) v_k|`` ≈ 250 against
below 5 at N = 50), so N = 20 is not offered as a default.

Steps of the joint angles: bem and rem in the absolute chart see a step of a
joint only through the chord ``q(θ_{k+1}) − q(θ_k)``, and project their dynamics by
``P(q_{k+½})`` at its midpoint, where the turning link's directors shrink by cos(Δθ/2): the
reduced mass of the step falls as cos²(Δθ/2), is zero at Δθ = π, and past π a larger turn
is a shorter chord (a step of 2π is no motion).  Without velocity limits the least-effort
iterates on arms with a light wrist (xArm7 link 7: 0.17 kg, E₃ = 1e-5 kg m²; the Kinova's
continuous wrists) turn it by 1–9 rad per step (GC's optimum on the xArm7, T = 1.5 s:
joint 7 at 517 rad/s), reach that fold, and IPOPT's infeasibility grows to 1e2–1e3 while J
falls (the divergence watch stops it).  So ``rest_to_rest`` bounds every joint step of
bem/rem by :data:`ANGLE_STEP_LIMIT` = π/2 (rows ``ocp.angle_step``) where neither the
velocity limits (``h v_max ≤ π/2``: every URDF arm tried at N = 50 with its limits) nor
the turn rows of a target more than π away (``ocp.turn_increment``) bound it already (in the
lifted forms, ``configurations="lifted"``, the same bound on rem's increments w_k and on bem's
half-angle step of the node configurations).
Measured, xArm7 and Kinova, ``random_pose_pair(seed=0)``, T = 1.5 s, N = 50, no velocity
limits (benchmarks/pages/robot_zoo.md, "The joint-step bound"): REM diverged without the
bound and converges with it (xArm7 J = 22.76, Kinova J = 32.66); GC, unbounded in its steps,
reaches J = 12.25 and 10.20 there by turns that no second-order step resolves.  With the
velocity limits (the default) nothing changes.
"""

# an argument made an array (``q = np.asarray(q, float)``) is typed as the array from there on:
# mypy: allow-redefinition-new, local-partial-types

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt
    import pyomo.environ as pyo

    from pyomo_mbdyn.mechanics import MultibodySystem

__all__ = ["build_system", "rest_to_rest", "evaluate", "random_pose_pair", "paced_horizon", "SCHEMES", "CONFIGURATIONS",
           "ANGLE_STEP_LIMIT"]

#: the schemes these models offer (measured on the Panda: see ``panda``; lobatto_gc converges from the
#: default start at N = 50 on the Panda, the UR5 and every arm of benchmarks/pages/robot_zoo.md)
SCHEMES = ("rem", "bem", "gc", "lobatto_gc")
#: node configurations per scheme (the block option ``configurations``), chosen by measurement
CONFIGURATIONS = {"bem": "absolute", "rem": "absolute", "gc": "chart", "lobatto_gc": "chart"}


def build_system(robot: str) -> MultibodySystem:
    """The shipped URDF of ``robot`` (``pyomo_mbdyn.robots``) as a MultibodySystem, every joint actuated."""
    from pyomo_mbdyn import robots
    from pyomo_mbdyn.mechanics import MultibodySystem

    return MultibodySystem.from_urdf(robots.path(robot))


def _pose(model, name, value, system):
    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.models import finite_option

    value = np.asarray(value, dtype=object).reshape(-1)
    if value.size != system.dof:
        raise ConfigurationError(f"{model}: {name} must give {system.dof} joint angles "
                                 f"{[v.split('.')[0] for v in system.velocities]}, got {value.size}")
    angles = np.array([finite_option(model, f"{name}[{i}]", v) for i, v in enumerate(value)], float)
    for joint, angle in zip(system.velocities, angles):
        limits = system.urdf_limits[joint.rsplit(".", 1)[0]]
        if limits.lower is not None and not limits.lower <= angle <= limits.upper:
            raise ConfigurationError(f"{model}: {name} puts {joint} at {angle:.6g} rad, outside the URDF's "
                                     f"limits [{limits.lower}, {limits.upper}]")
    return angles


def rest_to_rest(model: str, robot: str, scheme: str, steps: int, horizon: float, start: Sequence[float],
                 target: Sequence[float], configurations: str | None = None,
                 velocity_limits: bool = True) -> pyo.ConcreteModel:
    """The model ``m`` (``m.dyn``, ``m.ocp``, ``m.problem``) of the module docstring for
    the shipped robot ``robot`` (or a system read from a URDF); ``configurations`` the block's form of node configurations (default
    :data:`CONFIGURATIONS` of the scheme); ``velocity_limits``: the URDF's velocity limits on the joint
    rates (:meth:`~pyomo_mbdyn.ocp.OptimalControlProblem.apply_velocity_limits`; ``False`` drops them),
    a target they cannot reach in ``horizon`` named before the solve."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.models import check_scheme, finite_option
    from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
    from pyomo_mbdyn.schemes import scheme_block

    from pyomo_mbdyn.mechanics import MultibodySystem

    check_scheme(model, scheme, SCHEMES)
    horizon = finite_option(model, "horizon", horizon)
    if not horizon > 0:
        raise ConfigurationError(f"{model}: horizon must be positive [s], got {horizon!r}")
    system = robot if isinstance(robot, MultibodySystem) else build_system(robot)
    start, target = _pose(model, "start", start, system), _pose(model, "target", target, system)
    m = pyo.ConcreteModel(model)
    form = CONFIGURATIONS[scheme] if configurations is None else configurations
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=horizon, initial_coordinates=start,
                         configurations=form)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({a: 0.5 for a in m.dyn.actuated})  # J = h Σ ½|u|²
    problem.fix_final_configuration({j.rsplit(".", 1)[0]: a for j, a in zip(system.velocities, target)})
    problem.require_final_rest()
    problem.apply_joint_limits()
    problem.apply_effort_limits()
    limited = _flag(model, "velocity_limits", velocity_limits)
    if limited:
        problem.apply_velocity_limits()
    _bound_angle_steps(m, problem, limited)
    m.dyn.initialize_from(interpolated_trajectory(system, m.dyn.step_length, steps, target, theta_initial=start))
    m.problem = problem
    return m


#: ``|θ_{k+1} − θ_k| ≤`` this (rad) on every joint angle of bem and rem (absolute chart) whose
#: velocity limit does not already bound the step below it (module docstring, "Steps of the joint angles")
ANGLE_STEP_LIMIT = np.pi / 2


def _bound_angle_steps(m, problem, limited):
    """``−π/2 ≤ Δθ_k ≤ π/2`` for the joint angles of a bem or rem block that neither the velocity
    limits (``limited``: ``h v_max ≤ π/2``) nor the final configuration's turn rows
    (``ocp.turn_increment``) bound already, on the step in the configuration form's own terms
    (:meth:`~pyomo_mbdyn.schemes.configuration_forms.ConfigurationForm.joint_steps`): the rows
    ``ocp.angle_step`` on θ_{k+1} − θ_k (absolute chart), the bounds of the increments w_k (rem
    lifted), the rows ``ocp.angle_step`` on the half-angle step 2 atan(sin Δ/(1 + cos Δ)) of the
    node configurations (bem lifted).  Nothing for the chart forms (gc, lobatto_gc: their dynamics
    see θ itself, no chord)."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.schemes.configuration_forms import (AbsoluteChart, Chart, Increments, is_rotation,
                                                         reference_coordinates)

    form = m.dyn.configuration_form
    if isinstance(form, Chart) and not isinstance(form, AbsoluteChart):
        return
    h, system = float(m.dyn.step_length), m.dyn.system
    turning = problem.block.component("turn_increment")
    bounded = set() if turning is None else {name for _, name in turning.index_set()}
    names = []
    for name in m.dyn.velocities:
        if not is_rotation(name) or name in bounded:
            continue
        velocity = system.urdf_limits[name.rsplit(".", 1)[0]].velocity if limited else None
        if not velocity or h * velocity > ANGLE_STEP_LIMIT:
            names.append(name)
    if not names:
        return
    if isinstance(form, (AbsoluteChart, Increments)):
        form.bound_increments(names, ANGLE_STEP_LIMIT, problem.block, "angle_step")
        return
    theta0 = np.asarray(reference_coordinates(m.dyn), float)
    steps = {name: form.joint_steps(name, theta0) for name in names}
    problem.block.angle_step = pyo.Constraint(
        m.dyn.intervals, names, rule=lambda b, i, name: (-ANGLE_STEP_LIMIT, steps[name][i], ANGLE_STEP_LIMIT))


def _flag(model, name, value):
    from pyomo_mbdyn.errors import ConfigurationError

    if not isinstance(value, (bool, np.bool_)):
        raise ConfigurationError(f"{model}: {name} must be True or False, got {value!r}")
    return bool(value)


def evaluate(m: pyo.ConcreteModel) -> dict[str, Any]:
    """Extra ``run`` fields: ``final_momentum`` ``max |P(q_N)ᵀ M v_N|`` (N m s; zero at rest),
    ``final_joint_rate_max`` ``max |θ̇_N|`` (rad/s) and ``final_kinetic_energy`` ``T_N`` (J) of the
    motion — the joint rates as the M-orthogonal projection of the node velocity
    (:func:`pyomo_mbdyn.joint_space.joint_space_table`; zero exactly when the momentum is), and
    ``final_off_tangent_energy`` the node velocity's part off the tangent space (J; a scheme artefact,
    not motion), ``effort_ratio_max`` ``max |u|/effort`` over the intervals and joints (≤ 1),
    ``joint_limit_margin_min`` the smallest distance of a node's joint angle to its URDF limits
    (rad, ≥ 0)."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.joint_space import joint_rates

    dyn, system = m.dyn, m.dyn.system
    tr = dyn.trajectory()
    P = np.asarray(system.null_space(tr.q[-1]), float)
    momentum = float(np.abs(P.T @ system.mass_matrix() @ tr.v[-1]).max())
    limits = [system.urdf_limits[a.rsplit(".", 1)[0]] for a in dyn.actuated]
    effort = np.array([lim.effort for lim in limits], float)
    angles = m.problem.joint_coordinates()
    theta = np.array([[pyo.value(angles[k, j]) for j in dyn.velocities] for k in dyn.nodes])
    joints = [system.urdf_limits[j.rsplit(".", 1)[0]] for j in dyn.velocities]
    lower = np.array([-np.inf if lim.lower is None else lim.lower for lim in joints])
    upper = np.array([np.inf if lim.upper is None else lim.upper for lim in joints])
    margin = float(np.min(np.minimum(theta - lower, upper - theta)))
    # the final node's row of joint_space_table(tr), alone (the table of every node was the slow part:
    # benchmarks/pages/cold_start.md)
    rates, kinetic, off_tangent = joint_rates(system, theta[-1], np.asarray(tr.v[-1], float))
    return {"final_momentum": momentum,
            "final_joint_rate_max": float(np.abs(rates).max()),
            "final_kinetic_energy": float(kinetic), "final_off_tangent_energy": float(off_tangent),
            "effort_ratio_max": float(np.max(np.abs(tr.u) / effort)), "joint_limit_margin_min": margin}


#: the quintic rest-to-rest profile's peak rate is 15/8 of its mean rate
QUINTIC_PEAK = 15.0 / 8.0


def random_pose_pair(system: MultibodySystem, seed: int, margin: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """``(start, target)``: two poses of ``system`` (a URDF arm) drawn uniformly, seeded by ``seed``,
    each revolute angle within its URDF range shrunk by ``margin`` × its width at both ends (a range
    wider than a turn, and a continuous joint: within (−π, π] shrunk alike), each prismatic within its
    range alike.  The zoo's rest-to-rest problems (benchmarks/pages/robot_zoo.md)."""
    rng = np.random.default_rng(seed)
    low, high = [], []
    for name in system.velocities:
        lim = system.urdf_limits[name.rsplit(".", 1)[0]]
        lo, hi = (-np.pi, np.pi) if lim.lower is None or lim.upper is None else (lim.lower, lim.upper)
        if hi - lo > 2 * np.pi:
            lo, hi = max(lo, -np.pi), min(hi, np.pi)
        width = hi - lo
        low.append(lo + margin * width)
        high.append(hi - margin * width)
    low, high = np.array(low), np.array(high)
    return rng.uniform(low, high), rng.uniform(low, high)


def paced_horizon(system: MultibodySystem, start: Sequence[float] | np.ndarray, target: Sequence[float] | np.ndarray,
                  fraction: float = 0.8, shortest: float = 1.0) -> float:
    """The duration T [s] at which the quintic from ``start`` to ``target`` peaks at ``fraction`` of the
    URDF's velocity limit in its most loaded joint, ``T = max(shortest, (15/8) max_j |Δθ_j| /
    (fraction · v_max,j))`` (joints without a velocity limit do not count): a horizon the velocity
    limits allow, for problems drawn at random (:func:`random_pose_pair`)."""
    need = [QUINTIC_PEAK * abs(b - a) / (fraction * lim.velocity)
            for name, a, b in zip(system.velocities, start, target)
            for lim in [system.urdf_limits[name.rsplit(".", 1)[0]]] if lim.velocity]
    return float(max([shortest] + need))
