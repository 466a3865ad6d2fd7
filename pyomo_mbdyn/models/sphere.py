"""sphere: rest-to-rest reorientation and repositioning of a rigid sphere (DMOCC §7.1).

A solid sphere (radius 0.05, density 27000, no gravity) moves from
φ = (1, 0, 0) to (0, 1, 2) in T = 3 (N = 30, h = 0.1) and returns to its
initial orientation, controlled by a force and a torque at its centre
(τ = (τ_φ, τ_θ) ∈ R⁶ per interval), minimising J = h Σ ‖τ_n‖².  The paper
reports J = 533.5767 for the motion that turns three times about
(-1, 1, 1)/√3: the final orientation is the identity, so "three turns" is
selected by the initial guess (increments of 6π/N about the axis), not by a
constraint.

Scheme: ``dmocc`` (the paper's reduced variational scheme) by default; the
final orientation is imposed through the skew part of R_N (the paper's (7.1)
has a vanishing Jacobian at the solution, spec §0.5).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pyomo_mbdyn.mechanics import MultibodySystem, RigidBody
from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.models import check_scheme, model_build, paper_figures_for

if TYPE_CHECKING:
    import numpy.typing as npt
    import pyomo.environ as pyo

__all__ = ["build_system", "build", "guess_turns", "STEPS", "HORIZON", "AXIS", "TARGET", "SCHEMES", "MODEL"]

STEPS, HORIZON = 30, 3.0
#: the schemes that carry the sphere's full turn: the director forms (the chart of
#: ``gc`` has a rotation vector, singular at 2π; ``quaternion`` and ``dnco`` have no controls)
SCHEMES = ("dmocc", "dmocc_lm", "bem", "rem", "rattle")
RADIUS, DENSITY = 0.05, 27000.0
START, TARGET = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 2.0])
AXIS = np.array([-1.0, 1.0, 1.0]) / np.sqrt(3)
TURNS = 3


def build_system() -> MultibodySystem:
    """The free sphere (``RADIUS``, ``DENSITY``) at ``START``, actuated by a force and a torque."""
    mass = 4 / 3 * np.pi * RADIUS**3 * DENSITY
    J = 2 / 5 * mass * RADIUS**2
    sphere = RigidBody("sphere", mass, (J, J, J), position=START)
    system = MultibodySystem("sphere")
    system.add_bodies(sphere)
    system.actuate("sphere")
    return system




def guess_turns(turns: int | None, steps: int, increment_bound: float | None) -> int:
    """The turns of the initial guess: ``turns`` when given (refused when its increments,
    2π·turns/N per step, exceed ``increment_bound``: the motion asked for is not one the
    bounded increments can make); ``None``: the paper's :data:`TURNS`, or as many as the
    bound lets N steps carry, ⌊N·bound/2π⌋, when fewer (a
    :class:`~pyomo_mbdyn.errors.ModellingWarning` says so).

    Examples
    --------
    >>> guess_turns(None, 30, 1.0), guess_turns(2, 30, 1.0), guess_turns(3, 10, None)
    (3, 2, 3)
    """
    import warnings

    from pyomo_mbdyn.errors import ConfigurationError, ModellingWarning

    wanted = TURNS if turns is None else turns
    if not increment_bound or 2 * np.pi * wanted / steps <= increment_bound:
        return wanted
    most = int(steps * increment_bound // (2 * np.pi))
    per_step = 2 * np.pi * wanted / steps
    if turns is None:
        warnings.warn(f"sphere: {TURNS} turns on {steps} steps would be {per_step:.3g} rad per step, beyond "
                      f"increment_bound={increment_bound:g} rad; the initial guess makes {most} (set turns, "
                      f"steps >= {int(np.ceil(2 * np.pi * TURNS / increment_bound))} or increment_bound)",
                      ModellingWarning, stacklevel=4)  # the caller of build (through model_build)
        return most
    raise ConfigurationError(
        f"sphere: {turns} turns on {steps} steps is {per_step:.3g} rad per step, beyond "
        f"increment_bound={increment_bound:g} rad: use steps >= {int(np.ceil(per_step * steps / increment_bound))}, "
        f"turns <= {most}, or increment_bound >= {per_step:.3g} (0 or null: no bound)")


@model_build
def build(scheme: str = "dmocc", steps: int = STEPS, increment_bound: float | None = 1.0,
          configurations: str | None = None, target: npt.ArrayLike | None = None,
          turns: int | None = None) -> pyo.ConcreteModel:
    """The sphere OCP ``m`` (``m.dyn`` scheme block, ``m.ocp`` problem), with the
    three-turn initial guess.

    ``configurations`` (dmocc; other schemes: their own forms): ``"lifted"`` (the default:
    node configurations as variables, sparse) or ``"minimal"`` — the paper's form, 12 N
    unknowns (increments and controls) and 6 N + 12 constraints, 360/192 at N = 30, every
    node configuration nested in all earlier increments.  Both reach the paper's optimum;
    the lifted form is the default by measurement (benchmarks/pages/sphere_forms.md: at
    N = 30 it takes more IPOPT iterations, but its translation and derivatives are sparse
    where the minimal form's are dense)."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.ocp import OptimalControlProblem
    from pyomo_mbdyn.schemes import scheme_block

    from pyomo_mbdyn.errors import ConfigurationError

    try:
        target = np.asarray(TARGET if target is None else target, float).reshape(-1)
    except (TypeError, ValueError):
        target = np.full(1, np.nan)
    if target.shape != (3,) or not np.all(np.isfinite(target)):
        raise ConfigurationError(f"sphere: target must be 3 finite numbers (a position in m), got {target.tolist()}")
    if turns is not None and (isinstance(turns, bool) or not isinstance(turns, (int, np.integer)) or turns < 0):
        raise ConfigurationError(f"sphere: turns must be a non-negative integer, got {turns!r}")
    check_scheme("sphere", scheme, SCHEMES)
    system = build_system()
    m = pyo.ConcreteModel("sphere")
    options = {} if configurations is None else {"configurations": configurations}
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=HORIZON, **options)
    turns = guess_turns(turns, steps, increment_bound if m.dyn.record.increments else None)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort()
    problem.fix_final_position("sphere", target)
    problem.fix_final_orientation("sphere", np.eye(3))
    problem.require_final_rest()
    if m.dyn.record.increments and increment_bound:
        problem.bound_rotation_increments(increment_bound)
    # initial guess: straight line and TURNS turns about AXIS in equal increments
    increment = np.concatenate([(target - START) / steps, AXIS * (2 * np.pi * turns / steps)])
    q = system.q0
    names = list(m.dyn.velocities)
    coords = m.dyn._coordinate_index()
    for k in range(1, steps + 1):
        q = np.asarray(system.reparametrise(increment, q), float)
        for idx, (body, c) in enumerate(coords):
            if m.dyn.configurations == "lifted":
                m.dyn.body[body].q[k, c].value = q[idx]
            if m.dyn.uses_velocities:
                m.dyn.body[body].v[k, c].value = 0.0
        if isinstance(m.dyn.component("w"), pyo.Var):  # for small N the guess may exceed the increment bound
            for j, name in enumerate(names):
                m.dyn.w[k - 1, name].set_value(increment[j], skip_validation=True)
    m.problem = problem  # keep a handle (not a Pyomo component)
    return m


paper_figures = paper_figures_for(
    ("dmocc",),
    snapshots="cf. DMOCC paper Fig. 7.2 (configuration of the rigid sphere)",
    controls="cf. DMOCC paper Fig. 7.4 (force and torque)",
    conservation="cf. DMOCC paper Figs. 7.5–7.6 (energy; change and consistency of angular momentum)")


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="rigid sphere, rest to rest with three turns, minimum control effort (DMOCC §7.1)",
    build=build,
    options={
        "target": "the final position of the centre [m] (default (0, 1, 2), the paper's)",
        "turns": "how many turns about (-1, 1, 1)/√3 the initial guess makes (default: 3, the paper's motion, "
                 "or as many as increment_bound lets the steps carry; the final orientation is the identity "
                 "either way, so the guess selects the turns)",
        "increment_bound": "bound on the rotation increments per step [rad] (anti-aliasing; 0 or null: none)",
        "configurations": "dmocc: 'lifted' (default) or 'minimal' (the paper's form: 360 unknowns and 192 rows "
                          "at N = 30)",
    },
    schemes=SCHEMES,
    paper_figures=paper_figures,
    # forces and torques act: neither energy nor momentum is an invariant to report
    conserved_momenta=(),
    energy_balance=False,
)
