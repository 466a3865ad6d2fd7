"""satellite: reorientation of the three-rotor satellite by its rotors (DMOCC §7.2).

The main body of the thesis's Table 4.1 satellite (see ``satellite_spin``)
turns, from rest to rest, by π about (1, 2, 3)/√14 in T = 5 (N = 50) using
only the rotor torques (internal torques: the total angular momentum stays
zero — the reorientation is a geometric phase), minimising J = h Σ ‖τ_n‖².
The paper reports J = 2.8242·10⁶; with rotor 3 removed
(``satellite-underactuated``) 2.9168·10⁶ — not the aliased 2.9128·10⁶, which
needs a rotor step near π and is excluded by the per-step increment bound.
The PDF's target "π/14 (1,2,3)" is a garbled π/√14 (1,2,3) (spec errata).

Formulation (as in the paper): DMOCC with the *absolute* reparametrisation
``q_n = F(θ_n, q_ref)`` (``configurations="absolute"``): per node the main
body's position and rotation vector and the rotor angles, 9 unknowns (8
without rotor 3), and the controls; the rotor increments are bounded by
1 rad per step.  Only the main body's final orientation is imposed (not its
position, nor the rotor angles), through the skew part of R_targetᵀR_N; the
target is itself a half turn from the start, and the skew part vanishes at
every half turn from the target too — the initial orientation among them —,
so ``tr(R_targetᵀR_N) ≥ 1`` excludes those points (inactive at the optimum;
without it the underactuated solve ends at such a point, trace −1).  The
final rest keeps the rotor rows only: with the library's relative joint
rates the main body's six rows are the total linear and angular momentum,
conserved and zero anyway (redundant rows would break LICQ).  Sizes: 600
unknowns (450 θ + 150 τ), 456 equations and 301 inequalities (300 increment
bounds, the trace row); the paper counts 900/468 by its generic formula.
Underactuated: 500 unknowns, 405 equations, 251 inequalities.

From the simulated zero-momentum guess (rotor rates sin² from rest to rest)
IPOPT converges: J = 2 824 245.41 in 7 iterations (three
rotors) and J = 2 916 763.59 in 44 (rotors 1, 2), largest rotor step 0.66
and 0.63 rad, ``|L|`` at round-off on every node.  The lifted relative form (``configurations=
"lifted"``) reaches the three-rotor optimum too (without the trace row), in 471 IPOPT
iterations (benchmarks/pages/models.md), and does not converge on the underactuated problem.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody
from pyomo_mbdyn.mechanics.linalg import rotation_exp
from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.models import model_build, paper_figures_for

if TYPE_CHECKING:
    import numpy.typing as npt
    import pyomo.environ as pyo

__all__ = ["build_system", "build", "target_rotation", "STEPS", "HORIZON", "MODEL"]

STEPS, HORIZON = 50, 5.0
#: the node configurations per scheme (others: the block's own default, e.g. GC's chart)
CONFIGURATIONS = {"dmocc": "absolute"}
ROTATION = np.pi / np.sqrt(14) * np.array([1.0, 2.0, 3.0])


def _check_rotors(rotors):
    from pyomo_mbdyn.errors import ConfigurationError

    try:
        chosen = list(rotors)
    except TypeError:
        chosen = None
    if (not chosen or len(set(chosen)) != len(chosen)
            or not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) and i in (1, 2, 3)
                       for i in chosen)):
        raise ConfigurationError(f"satellite: rotors must be distinct rotor numbers from (1, 2, 3), "
                                 f"at least one, got {rotors!r}")
    return [int(i) for i in chosen]


#: Table 4.1 of the thesis as printed (4–5 significant digits): main body (m, E1, E2, E3), rotor
#: (m, axial E, transverse E) and the rotor centres l_i along d_i
TABLE_4_1 = {"main": (1005.3096, 89.3609, 201.0619, 357.4434), "rotor": (424.1150, 8.8357, 106.0288),
             "l": (0.9167, 1.25, 1.5833)}
#: the closed forms the table rounds: a solid ellipsoid with semi-axes (2/3, 1, 4/3) and discs of
#: radius 1, thickness 0.5, density 270; l_i = semi-axis + 1/4
EXACT = {"main": (320 * np.pi, 256 * np.pi / 9, 64 * np.pi, 1024 * np.pi / 9),
         "rotor": (135 * np.pi, 45 * np.pi / 16, 135 * np.pi / 4), "l": (11 / 12, 5 / 4, 19 / 12)}
DATA = {"exact": EXACT, "table": TABLE_4_1}


def build_system(rotors: Sequence[int] = (1, 2, 3), data: str = "exact") -> MultibodySystem:
    """The satellite with the given rotors (actuated joints), from ``data``: ``"exact"``
    (the closed forms, default) or ``"table"`` (Table 4.1 as printed)."""
    from pyomo_mbdyn.errors import ConfigurationError

    rotors = _check_rotors(rotors)
    if data not in DATA:
        raise ConfigurationError(f"satellite: data must be one of {sorted(DATA)}, got {data!r}")
    values = DATA[data]
    system = MultibodySystem("satellite")
    m0, *E0 = values["main"]
    main = RigidBody("main", m0, euler=tuple(E0))
    system.add_bodies(main)
    mass, axial, transverse = values["rotor"]
    for i in rotors:
        euler = np.full(3, transverse)
        euler[i - 1] = axial
        rotor = RigidBody(f"rotor{i}", mass, euler=euler, position=values["l"][i - 1] * np.eye(3)[i - 1])
        system.add_bodies(rotor)
        system.add_joints(Revolute(f"axle{i}", main, rotor, location=rotor.q0[0:3], axis=np.eye(3)[i - 1]))
        system.actuate(f"axle{i}")
    return system


def target_rotation(target: npt.ArrayLike | None = None) -> np.ndarray:
    """R_target = exp(θ̂) of the rotation vector ``target`` (default π/√14 (1, 2, 3))."""
    return np.asarray(rotation_exp(ROTATION if target is None else np.asarray(target, float)), float)


def _rotation_vector(target):
    from pyomo_mbdyn.errors import ConfigurationError

    try:
        vector = np.asarray(ROTATION if target is None else target, float).reshape(-1)
    except (TypeError, ValueError):
        vector = None
    if vector is None or vector.shape != (3,) or not np.all(np.isfinite(vector)):
        raise ConfigurationError(f"satellite: target must be a rotation vector of 3 finite numbers (rad), "
                                 f"got {target!r}")
    return vector


#: the forms of the final rest (``build(final_rest=...)``)
FINAL_REST = ("rotors", "all")


@model_build
def build(scheme: str = "dmocc", steps: int = STEPS, rotors: Sequence[int] = (1, 2, 3),
          increment_bound: float | None = 1.0, guess: str = "simulate", configurations: str | None = None,
          exclude_half_turns: bool = True, target: npt.ArrayLike | None = None, data: str = "exact",
          remove_rotor: int | None = None, final_rest: str = "rotors") -> pyo.ConcreteModel:
    """The reorientation OCP ``m`` (``m.dyn``, ``m.ocp``, ``m.problem``); the options are
    ``MODEL.options``.

    ``guess="simulate"`` (default): rotor torques that spin the rotors up and
    down again (rates ∝ sin²(πt/T)), simulated by the scheme — a dynamically
    feasible motion without angular momentum; below :data:`STEPS` steps it is
    simulated on STEPS steps and sampled at the coarse nodes (at N = 10 the
    scheme's Newton step cannot follow the rotors), and a grid on which the
    rotors cannot turn as far as the zero-momentum motion needs under
    ``increment_bound`` (N < 21 at 1 rad) is refused by name: such a problem has
    no solution (measured: N = 21 infeasible, N = 10 unsolved even at 2.5 rad or
    unbounded, N = 4 infeasible).  ``guess="interpolate"``: the
    main body turns in equal steps about the target axis while the rotors
    spin so that the guess carries no angular momentum (not a motion of the
    scheme).  ``configurations``: the block's form of node configurations (default
    :data:`CONFIGURATIONS` per scheme, DMOCC's ``"absolute"``; the others' own).
    """
    from pyomo_mbdyn.errors import ConfigurationError

    if guess not in ("simulate", "interpolate"):
        raise ConfigurationError(f"satellite: guess must be 'simulate' or 'interpolate', got {guess!r}")
    if final_rest not in FINAL_REST:
        raise ConfigurationError(f"satellite: final_rest must be one of {FINAL_REST}, got {final_rest!r}")
    if remove_rotor is not None:
        if isinstance(remove_rotor, bool) or remove_rotor not in (1, 2, 3):
            raise ConfigurationError(f"satellite: remove_rotor must be 1, 2 or 3, got {remove_rotor!r}")
        if tuple(rotors) != (1, 2, 3):
            raise ConfigurationError(f"satellite: give rotors={list(rotors)} or remove_rotor={remove_rotor}, "
                                     "not both")
        rotors = tuple(i for i in (1, 2, 3) if i != remove_rotor)
    rotation = _rotation_vector(target)
    import pyomo.environ as pyo

    from pyomo_mbdyn.ocp import OptimalControlProblem
    from pyomo_mbdyn.schemes import scheme_block, scheme_options

    system = build_system(rotors, data)
    m = pyo.ConcreteModel("satellite")
    form = CONFIGURATIONS.get(scheme) if configurations is None else configurations
    options = {"configurations": form} if form is not None and "configurations" in scheme_options(scheme) else {}
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=HORIZON, **options)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort()
    problem.fix_final_orientation("main", target_rotation(rotation), exclude_half_turns=exclude_half_turns)
    # the rows of the main body's twist are the total linear and angular
    # momentum (the library's relative joint rates move the rotors along),
    # conserved and zero: redundant; the rotor rows finish the rest condition
    main_rows = ("main.vx", "main.vy", "main.vz", "main.wx", "main.wy", "main.wz")
    problem.require_final_rest(drop=main_rows if final_rest == "rotors" else ())
    if m.dyn.record.increments and increment_bound:
        problem.bound_rotation_increments(increment_bound)
    names = list(m.dyn.velocities)
    increment = np.zeros(len(names))
    omega = rotation / HORIZON
    increment[names.index("main.wx"):names.index("main.wz") + 1] = omega * (HORIZON / steps)
    # rotors spin against the turn so that the guess has zero angular momentum:
    # the joint rates α̇ solve L(ν) = 0 at the reference configuration
    P = system.null_space(system.q0)
    rate_columns = [names.index(f"axle{i}.angle") for i in rotors]
    nu = np.zeros(len(names))
    nu[names.index("main.wx"):names.index("main.wz") + 1] = omega

    def momentum(x):
        trial = nu.copy()
        trial[rate_columns] = x
        return np.asarray(system.angular_momentum(system.q0, P @ trial), float)

    base = momentum(np.zeros(len(rate_columns)))
    Jac = np.column_stack([momentum(e) - base for e in np.eye(len(rate_columns))])
    rates = np.linalg.lstsq(Jac, -base, rcond=None)[0]
    increment[rate_columns] = rates * (HORIZON / steps)
    turn = np.abs(rates).max() * HORIZON  # the fastest rotor's turn in the zero-momentum guess
    if guess == "simulate" and m.dyn.record.increments and increment_bound and steps * increment_bound < turn:
        raise ConfigurationError(
            f"satellite: {steps} steps cannot turn the rotors by the {turn:.3g} rad the reorientation needs "
            f"(its zero-momentum motion) with rotation increments bounded by increment_bound = "
            f"{increment_bound:g} rad per step, against aliasing: use steps ≥ {int(np.ceil(turn / increment_bound))}"
            " (the rest-to-rest optimum needs a few more: at increment_bound = 1, N = 21 is infeasible and "
            "N = 22 solves)")
    if guess == "simulate":
        # a dynamically feasible start: rotor rates 2·rates·sin²(πt/T) from rest to
        # rest (mean rate = rates), i.e. torques J_axial·α̈, simulated by the same scheme
        from pyomo_mbdyn.simulate import simulate

        h = HORIZON / steps
        axial = np.array([system.bodies[f"rotor{i}"].inertia[i - 1] for i in rotors])

        def torques(n):  # at the midpoints of n equal steps
            t_mid = HORIZON / n * (np.arange(n) + 0.5)
            return np.outer(np.sin(2 * np.pi * t_mid / HORIZON), 2 * np.pi / HORIZON * rates * axial)

        torque = torques(steps)
        if steps >= STEPS:
            trajectory = simulate(system, system.q0, np.zeros(system.n), h, steps, torque, scheme=scheme)
        else:
            # a coarse grid: the rotors turn too far per step for Newton's method to follow
            # (N = 10: 31 units in one step); the motion is simulated on STEPS steps and its
            # chart coordinates sampled at the coarse nodes (refined_trajectory's spline)
            from pyomo_mbdyn.ocp import refined_trajectory

            fine = simulate(system, system.q0, np.zeros(system.n), HORIZON / STEPS, STEPS, torques(STEPS),
                            scheme=scheme)
            trajectory = refined_trajectory(system, h, steps, fine)
        m.dyn.initialize_from(trajectory)
        if isinstance(getattr(m.dyn, "w", None), pyo.Var):
            for var in m.dyn.w.values():  # the guess's fastest rotor steps exceed the bound a little
                if var.lb is not None:
                    var.set_value(min(max(var.value, var.lb), var.ub), skip_validation=True)
        for i in m.dyn.intervals:
            for a, name in enumerate(m.dyn.actuated):
                m.dyn.u[i, name].value = torque[i, a]
        m.problem = problem
        return m
    if hasattr(m.dyn, "theta"):  # absolute chart: every increment is about a fixed axis, so they add
        for k in range(1, steps + 1):
            for j, name in enumerate(names):
                m.dyn.theta[k, name].value = k * increment[j]
        m.problem = problem
        return m
    q = system.q0
    coords = m.dyn._coordinate_index()
    for k in range(1, steps + 1):
        q = np.asarray(system.reparametrise(increment, q), float)
        if m.dyn.configurations == "lifted":  # the minimal form's q_k are Expressions of the w
            for idx, (body, c) in enumerate(coords):
                m.dyn.body[body].q[k, c].value = q[idx]
        if isinstance(m.dyn.component("w"), pyo.Var):
            for j, name in enumerate(names):
                m.dyn.w[k - 1, name].value = increment[j]
    m.problem = problem
    return m


paper_figures = paper_figures_for(
    ("dmocc",),
    snapshots="cf. DMOCC paper Fig. 7.7 (rigid body with three rotors)",
    controls="cf. DMOCC paper Fig. 7.8 (torque)",
    conservation="cf. DMOCC paper Fig. 7.9 (energy and angular momentum, zero throughout)")


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="three-rotor satellite turned by π about (1,2,3)/√14 by its rotors (DMOCC §7.2)",
    build=build,
    options={
        "rotors": "the rotors kept, a subset of [1, 2, 3] (default all three)",
        "remove_rotor": "a rotor to remove, 1, 2 or 3 (the paper's underactuated case removes 3); "
                        "the same as rotors without it",
        "target": "the final orientation of the main body as a rotation vector [rad] (default π/√14 (1, 2, 3))",
        "data": "'exact': the closed forms of the inertias (default); 'table': Table 4.1 of the thesis as printed",
        "increment_bound": "bound on the rotation increments per step [rad] (anti-aliasing; 0 or null: none)",
        "guess": "'simulate': a simulated zero-momentum motion (default); 'interpolate': equal steps about the axis",
        "configurations": "node configurations of the block (default per scheme: CONFIGURATIONS, DMOCC 'absolute'; "
                          "else the block's own)",
        "exclude_half_turns": "the row tr(R_targetᵀ R_N) ≥ 1, excluding the half-turn points of the skew condition",
        "final_rest": "'rotors': the rotor rows only (default: the main body's six rows are the conserved momenta); "
                      "'all': keep them too — dependent rows, LICQ fails (for pyomo-mbdyn diagnose)",
    },
    paper_figures=paper_figures,
    # joint torques only: the total angular momentum is conserved (and zero)
    conserved_momenta=("Lx", "Ly", "Lz"),
    energy_balance=False,
)
