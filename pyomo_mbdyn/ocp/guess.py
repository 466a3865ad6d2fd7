"""Initial guesses for optimal-control problems.

A guess that the solver can start from should satisfy as many of the scheme's
equations as cheaply possible.  :func:`interpolated_trajectory` interpolates
the chart coordinates θ (joint angles, root positions) between the end
configurations, maps every node to the redundant coordinates ``q_k = q(θ_k)``
(so all constraints ``Φ(q_k) = 0`` hold), takes the velocities from the
schemes' own kinematic recursion ``v_{k+1} = 2(q_{k+1} - q_k)/h - v_k``
(thesis Eq. 3.33), and splits the remaining momentum residual of every
interval exactly into constraint forces and controls,

    [G(q_{k+½})ᵀ  -B(q♯)ᵀ_act] [γ; u] = -(M (v_{k+1} - v_k)/h + ∇V + Bᵀ K ν),

in the least-squares sense (exact for fully actuated systems).  This is the
guess the spec (thesis E3, §7.10) recommends for the three-link arm: with it
BEM, REM and GC start from corresponding points and reach the same optimum.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
import numpy.typing as npt
import pyomo.environ as pyo

from ..errors import ConfigurationError
from ..mechanics.numeric import check_numeric, real, step_count
from ..discretization import chart, chart_coordinates
from ..discretization.common import numeric_kinematics
from ..trajectory import Trajectory

if TYPE_CHECKING:
    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["interpolated_trajectory", "path_trajectory", "refined_trajectory", "perturb_start", "perturb_chart", "PROFILES"]

#: time profiles s(τ) on [0, 1] with s(0) = 0, s(1) = 1
PROFILES = {
    "linear": lambda tau: tau,
    # quintic rest-to-rest profile: zero velocity and acceleration at both ends
    "smooth": lambda tau: tau**3 * (10 - 15 * tau + 6 * tau**2),
}


def interpolated_trajectory(system: ConstrainedSystem, h: float, steps: int, theta_final: npt.ArrayLike,
                            q_initial: npt.ArrayLike | None = None, profile: str = "smooth",
                            contravariant: bool = True, theta_initial: npt.ArrayLike | None = None) -> Trajectory:
    """A :class:`~pyomo_mbdyn.trajectory.Trajectory` interpolating the chart.

    Parameters
    ----------
    system : MultibodySystem (a tree)
    h, steps : step size and number of steps N
    theta_final : chart coordinates of the final configuration (see
        :func:`~pyomo_mbdyn.discretization.chart`)
    q_initial : initial configuration (default ``system.q0``)
    theta_initial : its chart coordinates, instead of ``q_initial`` (turns kept: a URDF pose in the
        URDF's convention; default the chart's inverse of ``q_initial``, angles in their URDF ranges)
    profile : ``"linear"`` or ``"smooth"`` (quintic, rest to rest)

    Notes
    -----
    The increments ``w`` of the reduced schemes are the chart differences
    ``θ_{k+1} - θ_k``: exact for chains of revolute, prismatic and cylindrical
    joints (whose relative increments add up), a first-order guess otherwise.

    For a system with closed loops ``theta_final`` names the independent
    coordinates (``system.independent``) only; they are interpolated, and every
    node is closed from the previous one
    (:func:`~pyomo_mbdyn.mechanics.loops.move_independent`, on the assembly branch of
    ``q_initial``), so the guess fulfils every constraint row.
    """
    h = _step_size(h, "interpolated_trajectory")
    if profile not in PROFILES:
        raise ConfigurationError(f"interpolated_trajectory: unknown profile {profile!r}; "
                                 f"choose from {sorted(PROFILES)}")
    N = step_count(steps, "interpolated_trajectory")
    check_numeric(theta_final, "interpolated_trajectory: theta_final", "chart coordinates (numbers)")
    if theta_initial is not None:
        if q_initial is not None:
            raise ConfigurationError("interpolated_trajectory: give q_initial or theta_initial, not both")
        check_numeric(theta_initial, "interpolated_trajectory: theta_initial", "chart coordinates (numbers)")
        theta0 = np.asarray(theta_initial, float).reshape(-1)
        if theta0.shape != (system.n_velocities,):
            raise ConfigurationError(f"interpolated_trajectory: expected {system.n_velocities} initial chart "
                                     f"coordinates {list(system.velocities)}, got {theta0.size}")
        q_initial = np.asarray(chart(system, theta0), float)
    else:
        q_initial = system.q0 if q_initial is None else np.asarray(q_initial, float)
        theta0 = chart_coordinates(system, q_initial)
    theta_final = np.asarray(theta_final, float).reshape(-1)
    if system.has_loops:
        i_index = system.loop_reduction.i_index
        if theta_final.shape != (len(i_index),):
            raise ConfigurationError(f"interpolated_trajectory: expected {len(i_index)} independent coordinates "
                                     f"{system.independent} of the loops, got {theta_final.size}")
        s = PROFILES[profile](np.arange(N + 1) / N)
        return _loop_trajectory(system, h, theta0[i_index] + np.outer(s, theta_final - theta0[i_index]), q_initial,
                                contravariant)
    if theta_final.shape != theta0.shape:
        raise ConfigurationError(f"interpolated_trajectory: expected {theta0.size} chart coordinates "
                                 f"{list(system.velocities)}, got {theta_final.size}")
    s = PROFILES[profile](np.arange(N + 1) / N)
    theta = theta0 + np.outer(s, theta_final - theta0)
    return _chart_trajectory(system, h, theta, contravariant)


def refined_trajectory(system: ConstrainedSystem, h: float, steps: int, coarse: Trajectory, contravariant: bool = True,
                       bc_type: str = "clamped") -> Trajectory:
    """A guess on ``steps`` intervals from a (solved) coarser trajectory ``coarse``.

    The chart coordinates of the coarse nodes (``chart_coordinates``, followed
    continuously node to node) are interpolated by a cubic spline (``bc_type``
    of :class:`scipy.interpolate.CubicSpline`; ``"clamped"``, zero end slopes,
    for rest to rest) at the fine nodes ``t_k = k h``; the rest is as in
    :func:`interpolated_trajectory` (configurations on the constraint manifold,
    velocities from the recursion, forces split exactly).  From the solution at
    N/2 this guess lies within O(h²) of the solution at N, so Newton's method
    starts in its region of fast convergence (benchmarks/README.md,
    "Convergence at scale").  Works for any ``coarse`` with ``t`` and ``q``
    (a :class:`~pyomo_mbdyn.trajectory.Trajectory`, e.g. ``dyn.trajectory()``).

    Examples
    --------
    The solution on 4 steps as the guess on 8 (the spline passes through the
    coarse nodes):

    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
    >>> from pyomo_mbdyn.schemes import REMBlock
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> def swing_up(steps):                 # a quarter turn in 1 s, rest to rest, least effort
    ...     m = pyo.ConcreteModel()
    ...     m.dyn = REMBlock(system=pendulum, steps=steps, horizon=1.0)
    ...     problem = OptimalControlProblem(m.dyn)
    ...     effort = problem.minimise_control_effort()
    ...     problem.fix_final_configuration([np.pi / 2])
    ...     problem.require_final_rest()
    ...     m.dyn.initialize_from(interpolated_trajectory(pendulum, m.dyn.step_length, steps, [np.pi / 2]))
    ...     return m
    >>> from pyomo_mbdyn.ocp import solve
    >>> m = swing_up(4)
    >>> str(solve(m).solver.termination_condition)
    'optimal'
    >>> coarse = m.dyn.trajectory()
    >>> fine = refined_trajectory(pendulum, 1.0 / 8, 8, coarse)
    >>> fine.q.shape, fine.u.shape
    ((9, 12), (8, 1))
    >>> np.allclose(fine.q[::2], coarse.q)
    True
    >>> fine_model = swing_up(8)
    >>> fine_model.dyn.initialize_from(fine)      # start the finer problem there
    """
    h = _step_size(h, "refined_trajectory")
    from scipy.interpolate import CubicSpline

    N = step_count(steps, "refined_trajectory")
    t_coarse = np.asarray(coarse.t, float)
    theta_c, start = [], None
    for k, q in enumerate(np.asarray(coarse.q, float)):
        try:  # a solved trajectory fulfils the constraints to the solver's tolerance only
            start = chart_coordinates(system, q, start=start, atol=1e-6)
        except ValueError as err:
            raise ConfigurationError(f"refined_trajectory: node {k} of the coarse trajectory is not "
                                     f"reached by the chart of {system} ({err})") from None
        theta_c.append(np.asarray(start, float))
    spline = CubicSpline(t_coarse, np.array(theta_c), bc_type=bc_type)
    theta = spline(np.clip(h * np.arange(N + 1), t_coarse[0], t_coarse[-1]))
    theta[0], theta[-1] = theta_c[0], theta_c[-1]
    if system.has_loops:  # the independent coordinates, closed node by node
        return _loop_trajectory(system, h, theta[:, system.loop_reduction.i_index],
                                np.asarray(coarse.q[0], float), contravariant)
    return _chart_trajectory(system, h, theta, contravariant)


def _step_size(h, what):
    """h > 0 as a float; a free horizon's named Expression T/N gives its current value."""
    return real(pyo.value(h) if not isinstance(h, (bool, str)) else h, f"{what}: h", positive=True)


def path_trajectory(system: ConstrainedSystem, h: float, theta: npt.ArrayLike,
                    contravariant: bool = True) -> Trajectory:
    """A :class:`~pyomo_mbdyn.trajectory.Trajectory` through given chart coordinates: ``theta``
    (N+1 rows, one per node, ``system.velocities`` columns; see
    :func:`~pyomo_mbdyn.discretization.chart`), nodes ``q(θ_k)``, node velocities from the
    midpoint recursion ``v_{k+1} = 2(q_{k+1} − q_k)/h − v_k`` from rest, forces split exactly as
    in :func:`interpolated_trajectory` — a start for a motion that is no straight line in the
    chart (e.g. a loop of an arm's joints that turns a floating base).  Trees only."""
    h = _step_size(h, "path_trajectory")
    check_numeric(theta, "path_trajectory: theta", "chart coordinates (numbers), one row per node")
    theta = np.asarray(theta, float)
    if system.has_loops:
        raise ConfigurationError("path_trajectory: a system with closed loops; use interpolated_trajectory")
    if theta.ndim != 2 or theta.shape[0] < 2 or theta.shape[1] != system.n_velocities \
            or not np.all(np.isfinite(theta)):
        raise ConfigurationError(f"path_trajectory: theta must be finite, (N+1) × {system.n_velocities} "
                                 f"(N ≥ 1 steps; columns {list(system.velocities)}), got shape {theta.shape}")
    return _chart_trajectory(system, h, theta, contravariant)


def _loop_trajectory(system, h, theta_independent, q_initial, contravariant):
    """Nodes with the loops closed: the independent coordinates follow ``theta_independent`` (N+1,
    dof) from ``q_initial``; the tree chart coordinates of the nodes give the increments."""
    from ..mechanics.loops import move_independent

    q, theta = [np.asarray(q_initial, float)], [chart_coordinates(system, q_initial)]
    for k in range(1, len(theta_independent)):
        q.append(move_independent(system, theta_independent[k] - theta_independent[k - 1], q[-1]))
        theta.append(chart_coordinates(system, q[-1], start=theta[-1]))
    return _chart_trajectory(system, h, np.array(theta), contravariant, np.array(q))


def _chart_trajectory(system, h, theta, contravariant, q=None):
    """Configurations q(θ_k) (or ``q`` as given), velocities from the recursion, forces split
    exactly (on the active constraint rows)."""
    N = len(theta) - 1
    if q is None:
        q = np.array([np.asarray(chart(system, th), float) for th in theta])
    v = np.zeros_like(q)
    for k in range(N):
        v[k + 1] = 2.0 * (q[k + 1] - q[k]) / h - v[k]
    M = np.diag(np.asarray(system.mass_matrix(), float))  # M is diagonal
    grad_V = np.asarray(system.potential_gradient(), float)
    K = np.asarray(system.friction, float)
    act = list(system.actuated_indices)
    m, dof = system.m_active, system.n_velocities
    rows = system.active_rows
    lam, u, nu = np.zeros((N, m)), np.zeros((N, len(act))), np.zeros((N, dof))
    for k in range(N):
        q_mid, v_mid = 0.5 * (q[k] + q[k + 1]), 0.5 * (v[k] + v[k + 1])
        G, B = numeric_kinematics(system, q_mid, ("G", "B" if contravariant else "B_plain"))
        G = G.reshape(system.m, system.n)[rows]
        nu[k] = B @ v_mid
        rhs = -(M * (v[k + 1] - v[k]) / h + grad_V + B.T @ (K * nu[k]))
        A = np.hstack([G.T, B.T[:, act]])
        x = np.linalg.lstsq(A, rhs, rcond=None)[0]  # the thesis's sign: Gᵀλ + Bᵀū = rhs
        lam[k], u[k] = x[:m], -x[m:]  # u = -ū, the applied force
    return Trajectory.of_system(system, h * np.arange(N + 1), q, v, u, nu,
                                {"scheme": "guess", "h": h, "steps": N, "horizon": h * N,
                                 "contravariant": contravariant, "solved": False},
                                lam=lam, w=np.diff(theta, axis=0))


def perturb_start(model: pyo.ConcreteModel, radius: float, rng: np.random.Generator) -> int:
    """Move every free variable of ``model`` to a random point near its value.

    Each unfixed variable with a value gets ``x + U(-radius, radius)``, clipped
    to its bounds (variables without a value are left alone): Bonmin's
    ``random_point_type = Andreas`` ("perturb the starting point of the
    problem within a prescribed interval", ``random_point_perturbation_interval``),
    so that an enumeration over starts explores the neighbourhood Bonmin's
    node re-solves explore.  ``rng`` is a :class:`numpy.random.Generator`; the
    variables are visited in the model's deterministic component order, so one
    seed gives one start.  Returns the number of variables moved.
    """
    check_numeric(radius, "perturb_start: radius", "positive and finite")
    if not (np.isfinite(radius) and radius > 0):
        raise ConfigurationError(f"perturb_start: radius must be positive and finite, got {radius!r}")
    moved = 0
    for var in model.component_data_objects(pyo.Var, active=True, descend_into=True, sort=True):
        if var.fixed or var.value is None:
            continue
        lower = -np.inf if var.lb is None else var.lb
        upper = np.inf if var.ub is None else var.ub
        var.set_value(float(np.clip(var.value + rng.uniform(-radius, radius), lower, upper)),
                      skip_validation=True)
        moved += 1
    return moved


def perturb_chart(model: pyo.ConcreteModel, radius: float, rng: np.random.Generator,
                  contravariant: bool = True) -> np.ndarray:
    """Start ``model.dyn`` from its current trajectory with the chart's interior nodes moved.

    The chart coordinates θ_k of the block's nodes (joint angles, root
    positions and rotation vectors; followed continuously node to node) get
    ``θ_k + U(-radius, radius)`` per coordinate at 0 < k < N (the end nodes
    stay); the start is then built as :func:`interpolated_trajectory` builds
    its guess — configurations q(θ_k) on the constraint manifold, velocities
    from the scheme's recursion, forces split exactly — and loaded with
    ``model.dyn.initialize_from``.  Unlike :func:`perturb_start` every
    configuration of the start satisfies the joints exactly.  ``rng`` is a
    :class:`numpy.random.Generator`.
    """
    check_numeric(radius, "perturb_chart: radius", "positive and finite")
    if not (np.isfinite(radius) and radius > 0):
        raise ConfigurationError(f"perturb_chart: radius must be positive and finite, got {radius!r}")
    dyn = model.component("dyn")
    if dyn is None or not hasattr(dyn, "initialize_from") or not hasattr(dyn, "system"):
        raise ConfigurationError("perturb_chart: needs a multibody scheme block model.dyn")
    from ..schemes.guesses import guess_chart_coordinates

    system = dyn.system
    from ..mechanics.protocol import ConstrainedSystem

    if not isinstance(system, ConstrainedSystem):  # a Hamiltonian system (DNCO): q is its only chart
        raise ConfigurationError(f"perturb_chart: {dyn.name}'s system {getattr(system, 'name', system)!r} "
                                 f"({type(system).__name__}) has no chart of joint coordinates; move its "
                                 f"variables instead (perturb_start, multistart perturb='guess' or 'auto')")
    try:  # node by node from the previous one, to 1e-4 (a guess fulfils the joints only roughly), turns kept
        theta = cast(np.ndarray,  # without velocities=True: the coordinates alone
                     guess_chart_coordinates(f"perturb_chart: {dyn.name}", system, dyn.trajectory(), "exp",
                                             first="previous"))
    except NotImplementedError as err:
        raise ConfigurationError(f"perturb_chart: {system} has no chart ({err})") from None
    theta[1:-1] += rng.uniform(-radius, radius, size=theta[1:-1].shape)
    dyn.initialize_from(_chart_trajectory(system, dyn.step_length, theta, contravariant))
    return theta
