"""space-robot: a free-floating space manipulator read from URDF — a 300 kg satellite carrying
the Panda arm — moved by its joints alone, its momentum kept by the discrete motion.

The system is :meth:`MultibodySystem.from_urdf` of the shipped
``pyomo_mbdyn/robots/space_robot.urdf`` with ``floating_base=True``: the satellite (a box
1.2 × 1.0 × 0.8 m, 300 kg, the Panda's link 0 lumped into it) is a free rigid body in
natural coordinates, as the DMOCC satellite's main body; the Panda's seven joints are
actuated, the base is not; no gravity.  With internal torques only the total linear and
angular momentum are conserved — zero, since the robot starts at rest — so the base moves
by what the arm does: a space robot turns its base by moving its arm (a geometric phase).

Cases (``case=``), all from rest at the URDF reference with the arm in the Panda's "ready"
pose, J = h Σ ½|u|², the URDF's joint, velocity and effort limits:

- ``"arm"`` (default; case a): the arm to the Panda model's target pose in
  T = 1.5 s, at rest at the end; the base free (it ends where the momentum takes it).
- ``"attitude"`` (case b): turn the base by ``rotation`` (a rotation vector, default
  0.1 rad about z) with the arm starting and ending at rest in its ready pose
  (:meth:`~pyomo_mbdyn.ocp.OptimalControlProblem.fix_final_orientation`): the arm can only
  loop through its joint space — the classic nonholonomic manoeuvre.  T = 4 s; the start is
  a loop of joints 1 and 4 (extend, turn, retract, turn back).
- ``"reach"`` (case c): the flange (the URDF link ``panda_link8``) at ``point`` in the
  inertial frame (default: where the arm's target pose puts it with the base held still) with
  the whole system at rest at the end, in T = 1.5 s.

The final rest states the arm's seven rows only: the base's six are the total linear and
angular momentum, conserved and zero (the satellite's reasoning, ``satellite``); with the
arm's rates zero and no momentum the base is at rest too.

Schemes: ``rem`` (default), ``bem``, ``dmocc`` keep both momentum maps exactly, to the residual
of their rows — so for them the problem asks IPOPT for ``constr_viol_tol`` = 1e-12
(:data:`CONSTRAINT_TOLERANCE`, in ``problem.solver_defaults``; a user's option wins); ``gc`` and
``lobatto_gc`` drift at their order.  ``run --json`` reports
``momentum_error`` = the larger of ``momentum_error_linear`` and ``momentum_error_angular``,
each ``max_k |p_k − p_0|`` (``|L_k − L_0|``) relative to the momentum the bodies carry one by
one (:func:`pyomo_mbdyn.diagnostics.momentum_errors`), and the base's final rotation
(``base_rotation``, rad) and the flange's final position (``flange_position``, m).
"""

# an argument made an array (``q = np.asarray(q, float)``) is typed as the array from there on:
# mypy: allow-redefinition-new, local-partial-types

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.models import model_build

if TYPE_CHECKING:
    import numpy.typing as npt
    import pyomo.environ as pyo

    from pyomo_mbdyn.mechanics import MultibodySystem

__all__ = ["build_system", "build", "evaluate", "flange_position", "STEPS", "HORIZON", "START", "TARGET", "CASES", "SCHEMES", "EXACT", "ROTATION", "MODEL"]

STEPS = 50
#: the horizon per case [s]
HORIZONS = {"arm": 1.5, "attitude": 4.0, "reach": 1.5}
HORIZON = HORIZONS["arm"]
#: the cases of ``build(case=...)`` (a, b, c above)
CASES = tuple(HORIZONS)
#: the schemes offered: the three that keep the momentum maps, the two that drift at their order
SCHEMES = ("rem", "bem", "dmocc", "gc", "lobatto_gc")
#: node configurations per scheme (the block option ``configurations``), as the robot arms
CONFIGURATIONS = {"bem": "absolute", "rem": "absolute", "dmocc": "absolute", "gc": "chart", "lobatto_gc": "chart"}
#: the schemes whose discrete motion keeps both momentum maps exactly
EXACT = ("rem", "bem", "dmocc")
#: IPOPT's ``constr_viol_tol`` for them (its default, 1e-4, lets DMOCC's reach end at 2.2e-10
#: relative momentum error; 1e-12 gives 6.6e-14 in 2 more iterations)
CONSTRAINT_TOLERANCE = 1e-12
#: the start per (scheme, case) of ``initial="auto"``: another scheme's optimum.  bem's attitude
#: manoeuvre from the loop start ends at another local optimum (J = 45.67, 117 iterations, against
#: rem's 12.79 in 53); from rem's optimum, whose controls bem simulates into the same motion (the
#: same discrete dynamics), it lands on rem's
INITIAL = {("bem", "attitude"): "rem"}
#: the arm's "ready" pose [rad] (the Panda model's START)
START = (0.0, -np.pi / 4, 0.0, -3 * np.pi / 4, 0.0, np.pi / 2, np.pi / 4)
#: the arm's target pose of case "arm" [rad] (the Panda model's TARGET)
TARGET = (0.8, -0.3, 0.5, -1.8, 0.4, 2.0, -0.3)
#: the base's rotation of case "attitude" (a rotation vector, rad)
ROTATION = (0.0, 0.0, 0.1)
#: the flange link (a point of the last body)
FLANGE = "panda_link8"
BASE = "satellite"
ARM = tuple(f"panda_joint{i}" for i in range(1, 8))


def build_system() -> MultibodySystem:
    """The shipped space robot (``robots.path("space_robot")``) with a floating base: the
    satellite a free body, the Panda's joints actuated, no gravity."""
    from pyomo_mbdyn import robots
    from pyomo_mbdyn.mechanics import MultibodySystem

    return MultibodySystem.from_urdf(robots.path("space_robot"), floating_base=True)


def _arm_pose(name, value, system):
    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.models import finite_option

    value = np.asarray(value, dtype=object).reshape(-1)
    if value.size != len(ARM):
        raise ConfigurationError(f"space-robot: {name} must give the {len(ARM)} arm joint angles {list(ARM)}, "
                                 f"got {value.size}")
    angles = np.array([finite_option("space-robot", f"{name}[{i}]", v) for i, v in enumerate(value)], float)
    for joint, angle in zip(ARM, angles):
        limits = system.urdf_limits[joint]
        if not limits.lower <= angle <= limits.upper:
            raise ConfigurationError(f"space-robot: {name} puts {joint} at {angle:.6g} rad, outside the URDF's "
                                     f"limits [{limits.lower}, {limits.upper}]")
    return angles


def _vector(name, value):
    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.models import finite_option

    value = np.asarray(value, dtype=object).reshape(-1)
    if value.size != 3:
        raise ConfigurationError(f"space-robot: {name} must be 3 numbers, got {value.size}")
    return np.array([finite_option("space-robot", f"{name}[{i}]", v) for i, v in enumerate(value)], float)


def flange_position(system: MultibodySystem, arm_angles: npt.ArrayLike,
                    base_increments: npt.ArrayLike = np.zeros(6)) -> np.ndarray:
    """The flange's position [m] at the configuration with the arm at ``arm_angles`` and the
    base moved by ``base_increments`` (position, rotation vector) from the reference."""
    from pyomo_mbdyn.discretization import chart

    q = np.asarray(chart(system, np.r_[base_increments, arm_angles]), float)
    body = system.bodies[system.urdf_links[FLANGE]]
    qb = system.body_coordinates(q, body.name)
    return np.asarray(body.point(qb, body.point_components(FLANGE)), float)


def _attitude_guess(system, h, steps, start):
    """Chart coordinates of a loop of joints 1 and 4 from and back to ``start`` (rest to rest):
    joint 4 extends the arm, joint 1 turns it, joint 4 retracts, joint 1 turns back — the base
    turns about z by the difference of the arm's inertia about z on the way out and back."""
    s = np.arange(steps + 1) / steps
    phase = 2 * np.pi * (10 * s**3 - 15 * s**4 + 6 * s**5)  # rest to rest
    theta = np.tile(np.r_[np.zeros(6), start], (steps + 1, 1))
    theta[:, 6] += 0.8 * np.sin(phase)  # joint 1
    theta[:, 9] += 0.6 * (1 - np.cos(phase))  # joint 4: from −3π/4 toward −0.15 (extended)
    return theta


@model_build
def build(scheme: str = "rem", steps: int = STEPS, case: str = "arm", horizon: float | None = None,
          start: Sequence[float] = START, target: Sequence[float] = TARGET, rotation: Sequence[float] = ROTATION,
          point: npt.ArrayLike | None = None, velocity_limits: bool = True, configurations: str | None = None,
          initial: str = "auto") -> pyo.ConcreteModel:
    """The space-robot OCP ``m`` (``m.dyn``, ``m.ocp``, ``m.problem``) of ``case``; options:
    ``MODEL.options``.  ``initial``: ``"auto"`` (:data:`INITIAL`: bem's attitude manoeuvre from
    rem's optimum, :func:`pyomo_mbdyn.ocp.warm_start.start_from_scheme`), ``"guess"`` (the
    model's own start) or a scheme name; ``m.start_description`` says which start was taken."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.mechanics.linalg import rotation_exp
    from pyomo_mbdyn.models import check_scheme, finite_option
    from pyomo_mbdyn.models.robot_arm import _flag
    from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory, path_trajectory
    from pyomo_mbdyn.schemes import scheme_block

    check_scheme("space-robot", scheme, SCHEMES)
    if case not in CASES:
        raise ConfigurationError(f"space-robot: case must be one of {list(CASES)}, got {case!r}")
    reference = INITIAL.get((scheme, case)) if initial == "auto" else initial
    if reference in ("guess", scheme):
        reference = None
    if reference is not None and reference not in SCHEMES:
        raise ConfigurationError(f"space-robot: initial must be 'auto', 'guess' or one of {list(SCHEMES)}, "
                                 f"got {initial!r}")
    horizon = HORIZONS[case] if horizon is None else finite_option("space-robot", "horizon", horizon, "[s]")
    if not horizon > 0:
        raise ConfigurationError(f"space-robot: horizon must be positive [s], got {horizon!r}")
    system = build_system()
    start = _arm_pose("start", start, system)
    target = _arm_pose("target", target, system)
    rotation = _vector("rotation", rotation)
    point = flange_position(system, target) if point is None else _vector("point", point)
    limited = _flag("space-robot", "velocity_limits", velocity_limits)

    m = pyo.ConcreteModel("space_robot")
    form = CONFIGURATIONS[scheme] if configurations is None else configurations
    theta0 = np.r_[np.zeros(6), start]
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=horizon, initial_coordinates=theta0,
                         configurations=form)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({a: 0.5 for a in m.dyn.actuated})  # J = h Σ ½|u|²
    if case == "arm":
        problem.fix_final_joints(dict(zip(ARM, target)))
    elif case == "attitude":
        problem.fix_final_joints(dict(zip(ARM, start)))
        problem.fix_final_orientation(BASE, np.asarray(rotation_exp(rotation), float), relative=True)
    else:
        problem.fix_final_position(system.urdf_links[FLANGE], point, FLANGE)
    # the base's rows are the total momentum, conserved and zero: redundant (module docstring)
    problem.require_final_rest(drop=[v for v in m.dyn.velocities if v.startswith(f"{BASE}.")])
    problem.apply_joint_limits()
    problem.apply_effort_limits()
    if limited:
        problem.apply_velocity_limits()
    if scheme in EXACT:  # the momentum is kept to the rows' residual: ask IPOPT for it (module docstring)
        problem.solver_defaults.setdefault("constr_viol_tol", CONSTRAINT_TOLERANCE)
    h = float(m.dyn.step_length)
    if case == "attitude":
        guess = path_trajectory(system, h, _attitude_guess(system, h, steps, start))
    else:
        guess = interpolated_trajectory(system, h, steps, np.r_[np.zeros(6), target], theta_initial=theta0)
    m.dyn.initialize_from(guess)
    m.problem = problem
    m.space_robot_case = case
    if reference is not None:
        from pyomo_mbdyn.ocp.warm_start import start_from_scheme

        start_from_scheme(m, lambda: build(reference, steps, case=case, horizon=horizon, start=start, target=target,
                                           rotation=rotation, point=point, velocity_limits=velocity_limits,
                                           initial="guess"))
    else:
        m.start_description = "the model's guess"
    return m


def evaluate(m: pyo.ConcreteModel) -> dict[str, Any]:
    """Extra ``run`` fields: ``momentum_error`` (relative, the larger of the two below),
    ``momentum_error_linear``, ``momentum_error_angular`` and their scales ``momentum_scale_linear``
    [kg m/s], ``momentum_scale_angular`` [N m s] (:func:`pyomo_mbdyn.diagnostics.momentum_errors`),
    ``base_rotation`` (the satellite's final rotation vector, rad), ``flange_position`` (m, t_N)."""
    from scipy.spatial.transform import Rotation

    from pyomo_mbdyn.diagnostics import momentum_errors

    dyn, system = m.dyn, m.dyn.system
    tr = dyn.trajectory()
    errors = momentum_errors(system, tr.q, tr.v)
    base = system.bodies[BASE]
    D = lambda q: np.column_stack(base.directors(system.body_coordinates(q, BASE))).astype(float)  # noqa: E731
    R = D(tr.q[-1]) @ D(system.q0).T
    flange = system.bodies[system.urdf_links[FLANGE]]
    position = flange.point(system.body_coordinates(tr.q[-1], flange.name), flange.point_components(FLANGE))
    return {"momentum_error": max(errors["linear"], errors["angular"]),
            "momentum_error_linear": errors["linear"], "momentum_error_angular": errors["angular"],
            "momentum_scale_linear": errors["linear_scale"], "momentum_scale_angular": errors["angular_scale"],
            "base_rotation": Rotation.from_matrix(R).as_rotvec().tolist(),
            "flange_position": np.asarray(position, float).tolist()}


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="free-floating space robot from URDF (300 kg satellite + Panda arm, zero gravity): arm point to "
                   "point, base attitude manoeuvre or reach, momentum kept exactly",
    build=build,
    options={
        "case": "'arm' (default: the arm to a pose, base free), 'attitude' (turn the base, the arm back at its start) "
                "or 'reach' (the flange at a point, all at rest)",
        "horizon": "the duration T [s] (default per case: arm 1.5, attitude 4, reach 1.5)",
        "start": "the 7 arm joint angles at t = 0 [rad] (default: the Panda's 'ready' pose)",
        "target": "case 'arm': the 7 arm joint angles at T [rad] (default: the Panda model's target)",
        "rotation": "case 'attitude': the base's rotation as a rotation vector [rad] (default (0, 0, 0.1))",
        "point": "case 'reach': the flange's final position in the inertial frame [m] (default: the target pose's, "
                 "base held still)",
        "velocity_limits": "the URDF's velocity limits on the joint rates, true or false (default true)",
        "configurations": "node configurations of the block (default per scheme: CONFIGURATIONS)",
        "initial": "'auto' (bem's attitude case from rem's optimum: INITIAL), 'guess' (the model's own start) or a "
                   "scheme whose optimum starts this one",
    },
    schemes=SCHEMES,
    evaluate=evaluate,
    # joint torques only, no gravity: the total linear and angular momentum are conserved
    conserved_momenta=("px", "py", "pz", "Lx", "Ly", "Lz"),
)
