"""crane: underactuated overhead crane, rest to rest (thesis E5, Ch. 7.2).

Coordinates q = (s, β, x, z): trolley position, winch angle, load position
(z downward).  M = diag(m_t, J, m, m), V = -m g z, and the rope of length
l = r β ties the load to the trolley, Φ = (x - s)² + z² - r² β² = 0.  The
controls are the physical trolley force F and winch torque M, applied as
Bᵀu with B = [I₂ 0] (``u`` is, as everywhere in the library, the applied
generalised force).  The load swing
is not actuated: 3 degrees of freedom, 2 controls.

Null space (thesis Eq. 7.6, G P ≡ 0 for every q):
P = [[1, 0, 0], [0, z, 0], [1, 0, -z], [0, r²β, x - s]].
Reparametrisation of the reduced scheme (increments w = (Δs, Δβ, Δα) of the
trolley position, winch angle and swing angle α, x - s = l sin α, z = l cos α):

    s' = s + Δs,  β' = β + Δβ,
    x' - s' = (β'/β)((x - s) cos Δα + z sin Δα),   z' = (β'/β)(z cos Δα - (x - s) sin Δα),

which is exact and additive, so F(θ, q0) is the chart of the GC scheme,
q(θ) = (s, β, s + rβ sin α, rβ cos α) (the thesis's (s, l, α) up to the
linear scaling l = rβ, to which the midpoint rule is invariant).

Data: (m_t, J, m) = (10, 0.1, 100), r = 0.1, g = 9.81; q_0 = (0, 40, 0, 4)
(rope 4), q_f = (5, 10, 5, 1) (rope 1), T = 3, N = 40, J = h Σ ½|u|².  Final
conditions unreduced for bem and rem as in the thesis: θ_N = Δθ in the chart
forms (lifted: q_N = q_f for bem, Φ(q_N) dropped, or Σ w = Δθ for rem), and
v_N = 0 (all four rows); gc: θ_N, ṽ_N.

Node configurations (``configurations=``, default per scheme in
``CONFIGURATIONS``): BEM and REM state them by the chart q(θ) above (the
absolute form, :mod:`pyomo_mbdyn.schemes.absolute`), chosen by measurement
(benchmarks/pages/scheme_choice.md: the forms alike at N = 40;
benchmarks/pages/library_vs_handwritten.md: at N = 640 the lifted BEM needed
194 IPOPT iterations from the guess where the chart form needs 10);
``configurations="lifted"`` gives the variables-and-equations form of the
thesis, with the same optimum.

The optimum documented here is reached from the interpolated guess
(:func:`pyomo_mbdyn.ocp.interpolated_trajectory`, quintic profile, velocities
from the recursion); the spec (§7.6) warns that REM and GC from poor guesses
can run through negative rope lengths — check l_k > 0, z_k > 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from pyomo_mbdyn.mechanics import CoordinateSystem, trig
from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.models import model_build, paper_figures_for

if TYPE_CHECKING:
    import numpy.typing as npt
    import pyomo.environ as pyo

__all__ = ["build_system", "build", "drawing", "STEPS", "HORIZON", "Q0", "QF", "MODEL"]

STEPS, HORIZON = 40, 3.0
M_TROLLEY, J_WINCH, M_LOAD, RADIUS, GRAVITY = 10.0, 0.1, 100.0, 0.1, 9.81
Q0 = np.array([0.0, 40.0, 0.0, 4.0])
QF = np.array([5.0, 10.0, 5.0, 1.0])
VELOCITIES = ("trolley.s", "winch.beta", "rope.swing")
#: node configurations per scheme (the block option ``configurations``), chosen by measurement
CONFIGURATIONS = {"bem": "absolute", "rem": "absolute", "gc": "chart"}


def _rope(q):
    s, beta, x, z = q
    return [(x - s) * (x - s) + z * z - RADIUS**2 * beta * beta]


def _rope_jacobian(q):
    s, beta, x, z = q
    return [[-2.0 * (x - s), -2.0 * RADIUS**2 * beta, 2.0 * (x - s), 2.0 * z]]


def _null_space(q):
    s, beta, x, z = q
    return [[1.0, 0.0, 0.0], [0.0, z, 0.0], [1.0, 0.0, -z], [0.0, RADIUS**2 * beta, x - s]]


def _reparametrise(w, q):
    s, beta, x, z = q
    ds, dbeta, dalpha = w
    sin, cos = trig(dalpha)
    stretch = (beta + dbeta) / beta
    return [s + ds, beta + dbeta,
            s + ds + stretch * ((x - s) * cos + z * sin), stretch * (z * cos - (x - s) * sin)]


def build_system() -> CoordinateSystem:
    """The crane as a CoordinateSystem: trolley s, winch β, load (x, z), tied by the rope Φ = 0."""
    return CoordinateSystem(
        "crane",
        groups={"trolley": (("s",), (M_TROLLEY,)), "winch": (("beta",), (J_WINCH,)),
                "load": (("x", "z"), (M_LOAD, M_LOAD))},
        constraints={"rope": (_rope, _rope_jacobian)},
        velocities=VELOCITIES,
        null_space=_null_space,
        reparametrise=_reparametrise,
        inputs={"trolley.s": [1.0, 0.0, 0.0, 0.0], "winch.beta": [0.0, 1.0, 0.0, 0.0]},
        force=[0.0, 0.0, 0.0, M_LOAD * GRAVITY],
        q0=Q0,
        additive=True,
        drawing=drawing,
    )


def drawing(q: Sequence[float] | np.ndarray) -> tuple[dict[str, tuple[Any, Any, Any]], list[tuple[str, str]]]:
    """The crane in the vertical (x, z) plane, z up: the trolley at (s, 0, 0) on its rail, the
    load at (x, 0, -z) (q's z points down), the rope between them."""
    s, _, x, z = (float(c) for c in q)
    return {"trolley": (s, 0.0, 0.0), "load": (x, 0.0, -z)}, [("trolley", "load")]


def theta_final() -> np.ndarray:
    """Chart coordinates of q_f: (Δs, Δβ, Δα) from q_0."""
    alpha = np.arctan2(QF[2] - QF[0], QF[3])
    return np.array([QF[0] - Q0[0], QF[1] - Q0[1], alpha])


#: the forms of the final rest condition (``build(final_rest=...)``)
FINAL_REST = ("full", "reduced")
#: the default start per scheme: the Lobatto pair does not solve from the interpolated guess
#: (N = 40: the iteration limit); from the REM optimum, simulated, in 5–6 iterations
START = {"lobatto": "rem", "lobatto_gc": "rem"}


@model_build
def build(scheme: str = "bem", steps: int = STEPS, configurations: str | None = None, final_rest: str = "full",
          start: str = "auto") -> pyo.ConcreteModel:
    """The crane OCP ``m`` (``m.dyn`` scheme block, ``m.ocp`` problem) with the
    interpolated guess; ``configurations``: the block's form of node
    configurations (default ``CONFIGURATIONS[scheme]``); ``final_rest``:
    ``"full"`` (the thesis: all four rows v_N = 0 for bem and rem) or
    ``"reduced"`` (three dof rows P(q_N)ᵀ M v_N = 0: the crane's B = [-I₂ 0] has
    no row for the unactuated swing, so the joint-rate form B v_N = 0 would
    leave it free; v_N keeps a component along the rope's constraint normal,
    no motion of the crane); one row fewer, the optimum within solver tolerance.
    ``start``: ``"auto"`` (:data:`START`: the Lobatto pair from the REM optimum,
    :func:`pyomo_mbdyn.ocp.warm_start.start_from_scheme`), ``"guess"`` or a scheme name;
    ``m.start_description`` says which start was taken."""
    import pyomo.environ as pyo

    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.ocp import OptimalControlProblem, interpolated_trajectory
    from pyomo_mbdyn.schemes import scheme_block, scheme_names

    # the crane is a CoordinateSystem (inputs not dual to its null space)
    offered = scheme_names(optimal_control=True, coordinate_systems=True)
    if scheme not in offered:
        raise ConfigurationError(f"crane: scheme {scheme!r} not offered; use one of {offered}")
    reference = START.get(scheme) if start == "auto" else start
    if reference == "guess" or reference == scheme:
        reference = None
    if reference is not None and reference not in offered:
        raise ConfigurationError(f"crane: start must be 'auto', 'guess' or one of {offered}, got {start!r}")
    system = build_system()
    m = pyo.ConcreteModel("crane")
    form = CONFIGURATIONS.get(scheme) if configurations is None else configurations
    options = {} if form is None else {"configurations": form}
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=HORIZON, **options)
    problem = OptimalControlProblem(m.dyn)
    problem.minimise_control_effort({a: 0.5 for a in m.dyn.actuated})  # J = h Σ ½|u|²
    problem.fix_final_configuration(theta_final())
    if final_rest not in FINAL_REST:
        raise ConfigurationError(f"crane: final_rest must be one of {FINAL_REST}, got {final_rest!r}")
    problem.require_final_rest(reduced=final_rest == "reduced")
    m.dyn.initialize_from(interpolated_trajectory(system, m.dyn.h, steps, theta_final()))
    m.problem = problem
    if reference is not None:
        from pyomo_mbdyn.ocp.warm_start import start_from_scheme

        start_from_scheme(m, lambda: build(reference, steps, final_rest=final_rest, start="guess"))
    else:
        m.start_description = "the interpolated guess"
    return m


paper_figures = paper_figures_for(
    ("bem", "rem"),
    coordinates="cf. Fig. 7.3 of the thesis (2: redundant coordinates)",
    controls="cf. Fig. 7.3 of the thesis (1: force and torque)",
    conservation="cf. Fig. 7.3 of the thesis (3: energy consistency)")


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="underactuated overhead crane, rest to rest: BEM = REM (thesis E5)",
    build=build,
    options={
        "configurations": "node configurations of the block: 'absolute' (q = q(θ)) or 'lifted' (default per scheme: "
                          "CONFIGURATIONS)",
        "final_rest": "'full': v_N = 0, all four rows (the thesis); 'reduced': P(q_N)ᵀ M v_N = 0, three dof rows "
                      "(rest in the degrees of freedom)",
        "start": "'auto' (default: START per scheme, else the interpolated guess), 'guess' (the interpolated "
                 "guess) or a scheme name (that scheme's optimum on the same grid, its controls simulated by "
                 "this scheme)",
    },
    paper_figures=paper_figures,
    # no momentum map is conserved; T + V + W is
    conserved_momenta=(),
    # the unit of the constraint rows Φ = (x - s)² + z² - r²β² (the crane is given by formulas)
    constraint_unit="m²",
)
