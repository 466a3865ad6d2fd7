"""satellite-spin: the three-rotor satellite under rotor torques or joint friction.

Thesis example E1 (Siebert 2012, Ch. 4.3–4.4, Table 4.1), forward dynamics
with the BEM.  A main body (solid ellipsoid, semi-axes 2/3, 1, 4/3, density
270: m₀ = 320π) carries three rotors (solid discs, radius 1, thickness 0.5:
m = 135π, axial Euler value 45π/16, the other two 135π/4) on revolute joints;
rotor i sits at l_i d⁰_i with l = (11/12, 5/4, 19/12) and spins about d⁰_i.
The exact closed forms are used (the rounded table shifts J₃ in the fifth
digit).  No gravity.

Cases
-----
``friction`` (thesis Fig. 4.9): k_i = 100 on the three joints, no torques,
    ν₀ = (0, 0, 0, 0.2, 0.3, 0.4, 1, 2, 3) — main-body spatial angular velocity
    and *relative* rotor rates; T = 5.  With the contravariant B the total
    angular momentum is constant (the thesis prints J₃ = 1336.6779 on every
    tick); with the plain-midpoint B it drifts by O(h²).
``torque`` (thesis Fig. 4.8): the thesis's u_i = 200 on the rotors (in its sign, ū = -u:
    the applied torques u_i = -200 N m), k = 0, from rest (the
    thesis does not state the initial state; rest is the documented choice).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pyomo_mbdyn.model_spec import ModelSpec
from pyomo_mbdyn.models import model_build

if TYPE_CHECKING:
    import pyomo.environ as pyo

    from pyomo_mbdyn.mechanics import MultibodySystem
    from pyomo_mbdyn.schemes.base import SchemeBlockData

__all__ = ["build_system", "initial_state", "build", "schemes", "CASES", "MODEL"]


#: horizon and default steps of the thesis
HORIZON = 5.0
STEPS = (5, 20, 80)
CASES = ("friction", "torque")


def build_system(case: str = "friction") -> MultibodySystem:
    """The satellite of Table 4.1 with the actuation/friction of ``case``."""
    if case not in CASES:
        from pyomo_mbdyn.errors import ConfigurationError

        raise ConfigurationError(f"satellite-spin: unknown case {case!r}; use one of {CASES}")
    from pyomo_mbdyn.models import satellite

    system = satellite.build_system((1, 2, 3), data="exact")  # Table 4.1 in closed forms, one place
    if case == "friction":
        for i in (1, 2, 3):
            system.add_friction(f"axle{i}", 100.0)
    return system


def initial_state(system: MultibodySystem, case: str = "friction") -> tuple[np.ndarray, np.ndarray, Any]:
    """(q0, v0, controls per step) of the thesis case."""
    q0 = system.q0
    if case == "friction":
        nu0 = np.array([0, 0, 0, 0.2, 0.3, 0.4, 1.0, 2.0, 3.0])
        controls = np.zeros(3)
    else:
        nu0 = np.zeros(9)
        controls = np.full(3, -200.0)  # the thesis's ū = 200: applied torque -200 N m
    return q0, system.null_space(q0) @ nu0, controls


@model_build
def schemes(case: str = "friction") -> tuple[str, ...]:
    """The registered schemes that can run the ``case``: forward dynamics of a multibody
    system from an initial state under given controls (``system='multibody'``, options
    ``controls`` and ``initial_velocity``) and, for ``friction``, with Rayleigh friction."""
    from pyomo_mbdyn.schemes import SCHEMES, scheme_options

    return tuple(name for name, rec in SCHEMES.items()
                 if rec.system.multibody and {"controls", "initial_velocity"} <= set(scheme_options(name))
                 and (rec.friction or case != "friction"))


def build(scheme: str = "bem", steps: int = 20, case: str = "friction", contravariant: bool = True,
          initialize: bool = True) -> pyo.ConcreteModel:
    """A Pyomo model ``m`` with the scheme block ``m.dyn`` (controls fixed: square).

    ``scheme`` is one of :func:`schemes` of the ``case``; another (the DNCO, which solves an
    optimal control problem of a Hamiltonian system; the heavy-top quaternion scheme; a
    scheme without friction in the ``friction`` case) is a ConfigurationError listing them.

    With ``initialize`` the variables start from the Newton stepper's solution
    of the same equations, so the solver only confirms it; without, they start
    at the initial state.
    """
    import pyomo.environ as pyo

    from pyomo_mbdyn.errors import ConfigurationError
    from pyomo_mbdyn.schemes import record, scheme_block, scheme_options
    from pyomo_mbdyn.simulate import simulate

    system = build_system(case)
    offered = schemes(case)
    if record(scheme).name not in offered:
        friction = " with joint friction" if case == "friction" else ""
        raise ConfigurationError(f"satellite-spin: scheme {scheme!r} cannot run the {case!r} case (forward "
                                 f"dynamics of a multibody system under given controls{friction}); "
                                 f"use one of {list(offered)}")
    q0, v0, u = initial_state(system, case)
    controls = np.tile(u, (steps, 1))
    m = pyo.ConcreteModel("satellite-spin")
    options = {"contravariant": contravariant} if "contravariant" in scheme_options(scheme) else {}
    m.dyn = scheme_block(scheme, system=system, steps=steps, horizon=HORIZON,
                         initial_configuration=q0, initial_velocity=v0, controls=controls, **options)
    if initialize:
        # start from the scheme's own stepper where it has one and takes friction, else BEM's
        rec = record(scheme)
        stepper_scheme = scheme if rec.step is not None and rec.friction else "bem"
        options = {"contravariant": contravariant} if "contravariant" in scheme_options(stepper_scheme) else {}
        m.dyn.initialize_from(simulate(system, q0, v0, HORIZON / steps, steps, controls,
                                       scheme=stepper_scheme, **options))
    return m


def paper_figures(dyn: SchemeBlockData) -> dict[str, str]:
    """The caption naming the thesis's figure the conservation figure corresponds to
    (:func:`pyomo_mbdyn.figures.paper_figures`): BEM with the consistent incorporation."""
    if dyn.scheme != "bem" or not getattr(dyn.config, "contravariant", True):
        return {}
    figure = "4.9" if dyn.system.friction.any() else "4.8"
    return {"conservation": f"cf. Fig. {figure} of the thesis (bottom: consistent incorporation; "
                            "kinetic energy and angular momentum)"}


#: what the library knows of this model (:class:`~pyomo_mbdyn.model_spec.ModelSpec`)
MODEL = ModelSpec(
    description="three-rotor satellite, forward dynamics with rotor friction or torques (thesis E1)",
    build=build,
    options={
        "case": "'friction' (thesis Fig. 4.9: joint friction k = 100, no torques) or 'torque' (Fig. 4.8: rotor "
                "torques 200 in the thesis's sign, applied -200 N m, from rest)",
        "contravariant": "the contravariant control matrix B (default true: angular momentum exact); false: the "
                         "plain midpoint B (drifts by O(h²))",
        "initialize": "start the square block from the Newton stepper's solution (default true)",
    },
    paper_figures=paper_figures,
)
