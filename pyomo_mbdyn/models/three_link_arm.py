"""three-link-arm: planar three-link manipulator, rest to rest (thesis E3, Table 6.1).

Three links (bodies ``link1..3``) hang on revolute joints about e3: the base
joint ``shoulder`` (absolute angle α₁) and the relative joints ``elbow`` (α₂)
and ``wrist`` (α₃).  Gravity acts in the arm's plane along -e2 with g = 9.81
(thesis Eq. 6.6, V = Σ m_i g φ^i·e2; the value is not printed).  Controls are
the three applied joint torques (N m; M v̇ + ∇V + Gᵀγ + Bᵀ(Kν - u) = 0).  The thesis
writes its torques with the opposite sign (Bᵀ(Kν + ū), ū = -u), and its case (i)
"u₃ ≥ 0" is meant in that sign (spec §7.7): here it is the applied wrist torque
u₃ ≤ 0.

Table 6.1 (m, E1, E2, l): (30, 1.225, 143.3027, 7), (25, 1.0208, 88.0208, 6),
(10, 0.4083, 60.2083, 8).  In the plane only E1 + E2 enters; the library's
bodies are three-dimensional, so the links get the Euler values
(E2, E1, E1) along (link, in-plane normal, e3) — the out-of-plane value is
never excited.

Motion: α₀ = (π/2, -π/2, π/2) (link 1 up, link 2 horizontal, link 3 up) to
α_f = (π/2, 0, 0) (all up), T = 3, N = 20, minimising J = h Σ ½|u|² (thesis §2.10).  The
final state is imposed in each scheme's regular form (θ_N = Δα in the chart
forms; lifted bem: q_N = q_f with Φ(q_N) dropped; lifted rem: Σ w = Δα), final
rest as P(q_N)ᵀ M v_N = 0 (bem, rem: rest in the degrees of freedom,
``require_final_rest``) or ṽ_N = 0 (gc).  Thesis §2.10 states ν_N = B(q_N) v_N = 0 for
bem and rem, which is not rest in general; on this arm both give the same
optimum to all digits (``require_final_rest(form="joint_rates")`` reproduces it).

Node configurations (``configurations=``, default per scheme in
``CONFIGURATIONS``): BEM, REM and DMOCC state them by the absolute chart
``q_k = F(θ_k, q_ref)`` in joint angles, GC by its chart — the size of the
thesis's formulations (REM: 45 unknowns per step instead of 81 lifted), chosen
by measurement: at the same optimum the lifted REM took longer to build and solve
at every N from 20 to 640 (benchmarks/pages/scaling.md, library_vs_handwritten.md).
``configurations="lifted"`` gives the variables-and-equations form; both reach the
same optimum (tests/ocp/test_configuration_forms.py).

Cases (``case=``): ``"free"`` (Ch. 7: no bounds, no damping — BEM = REM),
``"bounded"`` (Ch. 6 (i): the thesis's ū₃ ≥ 0, applied u₃ ≤ 0), ``"damped"`` (Ch. 6 (ii): Rayleigh
joint damping k = 300 in all joints) and ``"time"`` (ours, not the thesis's:
the same motion in minimum time with ``|u| ≤ (3000, 2000, 1000)`` N m — about
the peaks of the effort optimum at T = 3 — and T free in [0.5, 10]; the
torques are bang-bang with a few switches, BEM = REM exactly, T + V + W
conserved; T = 1.6499 s at N = 20, 1.6466 at N = 40, 1.6457 at N = 80;
``pyomo-mbdyn run three-link-arm --set case=time``).

Which joint may be passive (``keep_motors=2``, ours): two of the three motors,
``|u| ≤ 10⁴`` N m (GC, N = 20).  A rugged nonconvex MINLP.  Every pair solved as
an NLP from the interpolated guess alone
(:func:`~pyomo_mbdyn.ocp.enumerate_actuators`): elbow + wrist J = 1.2446·10⁷
(80 iterations), shoulder + elbow 1.3712·10⁷ (53), shoulder + wrist 9.013·10⁷
(598).  From 32 starts (the guess and 31 perturbations of ±10⁻²,
``starts=32``) the ranking turns: **shoulder + wrist 3.7426·10⁶** (2 of its 32
starts; the elbow passive, the wrist whipped round to 4.8 rad and back to
-π/2; below the fully actuated optimum from the guess, 3.988·10⁶), elbow +
wrist 1.0623·10⁷, shoulder + elbow 1.3712·10⁷ (every start).  Bonmin's B-BB
with its defaults returns shoulder + elbow (its node NLPs are local solves,
warm-started from the parent, and the pairs' nodes stop at worse local optima);
with node re-solves from perturbed starts
(:data:`pyomo_mbdyn.ocp.actuators.NODE_RESOLVES`) it keeps shoulder + wrist at
3.7426·10⁶ for 2 of 5 generator seeds (the others: shoulder + elbow), so take
the best over seeds.  The outer-approximation algorithms declare the problem
infeasible (as for the satellite).

The optimum documented here is the one reached from
:func:`pyomo_mbdyn.ocp.interpolated_trajectory` (joint angles interpolated
with the quintic rest-to-rest profile, mapped to directors, velocities from
the scheme's own recursion, forces split exactly) — the same guess for every
scheme, so that BEM, REM and GC are compared at corresponding optima.  The
thesis's constant guess q_k = q_0 is known to lead the BEM to other local
optima (spec §7.10).  ``--scheme dnco`` solves the indirect problem in joint
angles (:mod:`pyomo_mbdyn.models.three_link_arm_dnco`, thesis Ch. 8).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody
from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.models import finite_option, model_build

if TYPE_CHECKING:
    import numpy.typing as npt
    import pyomo.environ as pyo

    from pyomo_mbdyn.schemes.base import SchemeBlockData

__all__ = ["build_system", "build", "STEPS", "HORIZON", "ALPHA0", "ALPHAF", "joint_angles", "MODEL"]

STEPS, HORIZON, GRAVITY = 20, 3.0, 9.81
#: Table 6.1: mass, E1, E2, length
LINKS = ((30.0, 1.225, 143.3027, 7.0), (25.0, 1.0208, 88.0208, 6.0), (10.0, 0.4083, 60.2083, 8.0))
ALPHA0 = np.array([np.pi / 2, -np.pi / 2, np.pi / 2])
ALPHAF = np.array([np.pi / 2, 0.0, 0.0])
JOINTS = ("shoulder", "elbow", "wrist")
CASES = ("free", "bounded", "damped", "time")
#: case "time": joint torque bounds |u_i| ≤ U_i [N m] and the free final time's bounds [s]
TORQUE_LIMITS = {"shoulder.angle": 3000.0, "elbow.angle": 2000.0, "wrist.angle": 1000.0}
TIME_BOUNDS = (0.5, 10.0)
#: keep_motors: the bound U of |u| ≤ U y (above the 4409 N m the kept pairs need)
MOTOR_BOUND = 1.0e4
DAMPING = 300.0
#: node configurations per scheme (the block option ``configurations``), chosen by measurement
CONFIGURATIONS = {"bem": "absolute", "rem": "absolute", "dmocc": "absolute", "gc": "chart"}


def _frames(alpha):
    """Directors (rows d1 along the link, d2 = e3 × d1, d3 = e3) and centres of mass."""
    frames, centres, tip = [], [], np.zeros(3)
    angle = 0.0
    for (_, _, _, length), a in zip(LINKS, alpha):
        angle += a
        d1 = np.array([np.cos(angle), np.sin(angle), 0.0])
        d2 = np.array([-np.sin(angle), np.cos(angle), 0.0])
        frames.append(np.array([d1, d2, [0.0, 0.0, 1.0]]))
        centres.append(tip + 0.5 * length * d1)
        tip = tip + length * d1
    return frames, centres


def build_system(damping: float = 0.0, gravity: float = GRAVITY) -> MultibodySystem:
    """The arm in its initial configuration α₀ (the chart's reference); ``gravity`` g [m/s²]
    acts along -e2."""
    frames, centres = _frames(ALPHA0)
    system = MultibodySystem("three-link-arm", gravity=(0.0, -float(gravity), 0.0))
    links = []
    for i, ((mass, E1, E2, length), D, c) in enumerate(zip(LINKS, frames, centres)):
        links.append(RigidBody(f"link{i + 1}", mass, euler=(E2, E1, E1), position=c, directors=D,
                               points={"base": (-0.5 * length, 0, 0), "tip": (0.5 * length, 0, 0)}))
    system.add_bodies(*links)
    parents = [None] + links[:-1]
    for name, parent, child, D, c, link in zip(JOINTS, parents, links, frames, centres, LINKS):
        base = c - 0.5 * link[3] * D[0]
        system.add_joints(Revolute(name, parent, child, location=base, axis=(0, 0, 1)))
    for name in JOINTS:
        system.actuate(name)
        if damping:
            system.add_friction(name, damping)
    return system


def joint_angles(q: npt.ArrayLike) -> Any:
    """(α₁, α₂, α₃) of a configuration (absolute base angle, relative others)."""
    q = np.asarray(q, float)
    absolute = [np.arctan2(q[12 * i + 4], q[12 * i + 3]) for i in range(3)]
    rel = np.diff(np.concatenate([[0.0], np.unwrap(absolute)]))
    return rel


#: initial guesses (``build(guess=...)``)
GUESSES = ("interpolated", "rest", "simulated")


@model_build
def build(scheme: str = "rem", steps: int | None = None, case: str = "free", configurations: str | None = None,
          keep_motors: int | None = None, gravity: float = GRAVITY, guess: str = "interpolated",
          gradient: str | None = None) -> pyo.ConcreteModel:
    """The arm OCP ``m`` (``m.dyn`` scheme block, ``m.ocp`` problem) with the
    guess ``guess`` (see the module docstring; options: ``MODEL.options``); N = 20 by default, and for
    ``scheme="dnco"`` (or ``"direct-<gradient>"``) the joint-angle problem of
    :mod:`pyomo_mbdyn.models.three_link_arm_dnco` with its N = 40.
    ``configurations``: the block's form of node configurations (default
    ``CONFIGURATIONS[scheme]``; schemes without the option take none).
    ``keep_motors=k``: which k of the three joint motors to keep
    (:meth:`~pyomo_mbdyn.ocp.OptimalControlProblem.select_actuators`,
    ``|u| ≤ MOTOR_BOUND``; a MINLP for ``casadi_bonmin``, see the module docstring)."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
    from pyomo_mbdyn.schemes import record, scheme_block, scheme_names

    if scheme.startswith(("dnco", "direct-")):
        from pyomo_mbdyn.models import three_link_arm_dnco

        kwds: dict[str, Any] = {} if steps is None else {"steps": steps}
        return three_link_arm_dnco.build(scheme, gradient=gradient, **kwds)
    if gradient is not None:
        raise ConfigurationError(f"three-link-arm: gradient applies to the DNCO schemes (dnco, direct), "
                                 f"not {scheme!r}")
    steps = STEPS if steps is None else steps
    if case not in CASES:
        raise ConfigurationError(f"three-link-arm: unknown case {case!r}; choose from {CASES}")
    if not record(scheme).optimal_control:
        raise ConfigurationError(f"three-link-arm: scheme {scheme!r} not offered; use one of "
                                 f"{scheme_names(optimal_control=True)} or dnco")
    if keep_motors is not None and (isinstance(keep_motors, bool) or keep_motors not in (1, 2, 3)
                                    or not float(keep_motors).is_integer()):
        raise ConfigurationError(f"three-link-arm: keep_motors must be the number of motors to keep, "
                                 f"an integer in 1..3 (or None: all), got {keep_motors!r}")
    if guess not in GUESSES:
        raise ConfigurationError(f"three-link-arm: guess must be one of {GUESSES}, got {guess!r}")
    gravity = finite_option("three-link-arm", "gravity", gravity, "[m/s²]")
    system = build_system(DAMPING if case == "damped" else 0.0, gravity)
    m = pyo.ConcreteModel("three-link-arm")
    form = CONFIGURATIONS.get(record(scheme).name) if configurations is None else configurations
    options: dict[str, Any] = {} if form is None else {"configurations": form}
    if case == "time":
        options["free_horizon"] = TIME_BOUNDS
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=HORIZON, **options)
    problem = OptimalControlProblem(m.dyn)
    if case == "time":  # minimum time with bounded torques, started at T = 3
        problem.bound_controls({a: -u for a, u in TORQUE_LIMITS.items()}, TORQUE_LIMITS)
        problem.minimise_final_time()
    else:
        problem.minimise_control_effort({name: 0.5 for name in m.dyn.actuated})  # J = h Σ ½|u|²
    theta_f = ALPHAF - ALPHA0
    problem.fix_final_configuration(theta_f)
    problem.require_final_rest()
    if case == "bounded":
        problem.bound_controls(upper={"wrist.angle": 0.0})  # the thesis's ū₃ = -u₃ ≥ 0
    if keep_motors is not None:
        problem.select_actuators(int(keep_motors), MOTOR_BOUND, exactly=True)
    start = interpolated_trajectory(system, m.dyn.step_length, steps, theta_f if guess != "rest" else 0 * theta_f)
    if guess == "simulated":
        from pyomo_mbdyn.simulate import simulate

        start = simulate(system, system.q0, np.zeros(system.n), float(pyo.value(m.dyn.step_length)), steps,
                         start.u, scheme=record(scheme).name if record(scheme).name != "gc" else "bem")
    m.dyn.initialize_from(start)
    m.problem = problem
    return m


def evaluate(model: pyo.ConcreteModel) -> dict[str, Any]:
    """Extra ``run`` fields: those of the joint-angle DNCO model when it was built."""
    if model.dyn.scheme.startswith(("dnco", "direct")):
        from pyomo_mbdyn.models import three_link_arm_dnco

        return three_link_arm_dnco.evaluate(model)
    if model.ocp.component("kept") is not None:
        return {"active_actuators": model.problem.active_actuators()}
    return {}


def _case(dyn):
    """The arm's case as the thesis names it: free (Ch. 7), bounded (Ch. 6 (i)) or damped (Ch. 6 (ii))."""
    if dyn.free_horizon:
        return "time"
    if dyn.system.friction.any():
        return "damped"
    if any(v.lb is not None or v.ub is not None for v in dyn.u.values()):
        return "bounded"
    return "free"


def paper_figures(dyn: SchemeBlockData) -> dict[str, str]:
    """Captions naming the thesis's figures the generic figures correspond to
    (:func:`pyomo_mbdyn.figures.paper_figures`): BEM and REM, per case (free: Figs.
    7.4–7.5, bounded: 6.2/6.4, damped: 6.3/6.5; none for free final time)."""
    if dyn.scheme not in ("bem", "rem"):
        return {}
    figures = {"free": ("7.4", "7.5"), "bounded": ("6.2", "6.4"), "damped": ("6.3", "6.5")}
    case = _case(dyn)
    if case not in figures:
        return {}
    snapshots, results = figures[case]
    return {"snapshots": f"cf. Fig. {snapshots} of the thesis (snapshots)",
            "controls": f"cf. Fig. {results} of the thesis (1: torques)",
            "conservation": f"cf. Fig. {results} of the thesis (3: energy consistency)"}


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="planar three-link arm, rest to rest, BEM = REM against GC (thesis E3)",
    build=build,
    options={
        "case": "'free' (Ch. 7), 'bounded' (Ch. 6 (i): applied wrist torque u₃ ≤ 0, the thesis's ū₃ ≥ 0), "
                "'damped' (Ch. 6 (ii): joint damping 300), "
                "'time' (minimum time with |u| ≤ (3000, 2000, 1000) N m)",
        "gravity": "g [m/s²] along -e2 (default 9.81; the thesis does not print it)",
        "guess": "'interpolated': joint angles on the quintic rest-to-rest profile (default); 'rest': the arm held "
                 "at α₀ (the thesis's constant guess); 'simulated': the scheme driven by the interpolated guess's "
                 "torques from rest (a motion of the scheme that misses the target)",
        "configurations": "node configurations of the block (default per scheme: CONFIGURATIONS)",
        "keep_motors": "keep only this many of the three motors (a MINLP for casadi_bonmin); null: all",
        "gradient": "with --scheme dnco or direct: the discrete gradient, 'gonzalez' (default), 'greenspan' or "
                    "'midpoint' (thesis Ch. 8)",
    },
    evaluate=evaluate,
    paper_figures=paper_figures,
    # gravity and joint torques act: no momentum is conserved; T + V + W (+ D) is
    conserved_momenta=(),
    # units of the DNCO variant's figures (a HamiltonianSystem): coordinates, controls, energy,
    # time, discrete Hamiltonian H^d (the unit of ½|u|²), the residuals (each equation's own)
    units={"q": "rad", "u": "N m", "energy": "J", "time": "s", "Hd": "(N m)²", "constraint": "each equation's own"},
)
