"""The scheme registry: one record per scheme.

A :class:`SchemeRecord` says what a scheme *is* — its step equations (for the
Newton stepper), the layout of its unknowns, the Pyomo block class that states
it, and its capabilities — so that the stepper, the OCP layer, the multiplier
maps, diagnostics, plotting and the models read the record instead of
branching on scheme names.  Adding a scheme means: its equations (a module of
:mod:`pyomo_mbdyn.discretization`), its block (a module of
:mod:`pyomo_mbdyn.schemes`), its record below, and its tests.

The registry sits in the discretization layer because the stepper
(:mod:`pyomo_mbdyn.simulate`) reads it; a record names its block class by
import path, resolved only when a block is asked for
(:meth:`SchemeRecord.block_class`), so no layer imports upwards.

Capabilities
------------
``velocities_at_nodes``
    the block has node velocities ``body[b].v[k, c]`` (else they are recovered);
``joint_rates``
    the block has interval joint rates ``nu[i, j]`` as variables;
``increments``
    the reduced block has per-step increments ``w[i, j]`` of the relative
    reparametrisation q_{k+1} = F(w_k, q_k) (they add up along fixed axes);
``final_configuration``
    the forms of a final configuration condition, first the default:
    ``"nodes"`` (q_N fixed, Φ(q_N) rows dropped), ``"increments"``
    (Σ_k w_k = θ_N - θ_0), ``"chart"`` (θ_N fixed);
``final_rest``
    ``"joint_rates"`` (the lifted schemes' reduced rest: P(q_N)ᵀ M v_N = 0 by default,
    ν_N = B(q_N) v_N = 0 with ``form="joint_rates"``), ``"chart_velocity"`` (ṽ_N = 0) or
    ``"legendre"`` (reduced discrete Legendre transform, DMOCC 3.21);
``multipliers``
    where the momentum multipliers λ^p live and which input map E gives the
    controls from them (u = E λ^p / 2w, :mod:`pyomo_mbdyn.ocp.multipliers`):
    ``"redundant"`` (one per coordinate, ``body[b].momentum_balance``, E = B),
    ``"reduced"`` (one per generalised velocity, ``momentum_balance``, E = B P),
    ``"chart"`` (``momentum_balance`` in chart coordinates, E = B P̃), or None;
``friction``, ``controls``, ``loops``
    accepts Rayleigh joint friction / controls / closed kinematic loops;
``coordinate_systems``
    accepts a :class:`~pyomo_mbdyn.mechanics.CoordinateSystem` (a system given
    by formulas, whose input rows need not be dual to its null space: the
    scheme does not rely on P(q)ᵀB(q)ᵀ = I);
``system``
    ``"multibody"`` (a MultibodySystem or CoordinateSystem), ``"top"`` (one rigid
    body on a spherical joint) or ``"hamiltonian"`` (a HamiltonianSystem);
``momentum_consistent``, ``energy_consistent``
    the momentum maps of symmetries change exactly by the applied loads / the
    discrete energy balance T + V + W + D holds to round-off;
``order``
    the order of accuracy (2; 4 for the three-stage Lobatto IIIA–IIIB pair and cG(2));
``loads``
    where the scheme applies controls and friction: ``"midpoints"`` — ``Bᵀ(q♯_{k+½})``
    once per interval (the energy–momentum and midpoint schemes, whose joint rates
    ν_{k,k+1} = B v_{k+½} are the interval's), ``"nodes"`` — lumped half to each node,
    ``(h/2) B(q_k)ᵀ`` (DMOCC Eq. 3.10, RATTLE), ``"stages"`` — at the stages of a
    Runge–Kutta step with its weights, ``h b_s B(Q_s)ᵀ`` with one control per stage
    (Lobatto IIIA–IIIB), or None (no multibody loads);
``stages``
    the control stages of an interval, ``(control variable, abscissa c, weight b)``
    (Σ b = 1): empty for one control per interval (``u``); Lobatto IIIA–IIIB
    ``u_start``, ``u``, ``u_end`` at c = 0, ½, 1 with Simpson's weights, cG(2) ``u``,
    ``u_late`` at the two Gauss points.  The blocks' ``control_stages``; where
    ``loads == "stages"`` the loads act at the configurations q(c) of the quadratic
    through q_k, q_{k+½}, q_{k+1};
``ipopt_options``
    IPOPT options the scheme's blocks carry as solver defaults (``(name, value)`` pairs; the
    solver plugins add them where neither the call nor the solver sets them,
    :func:`pyomo_mbdyn.solvers.evaluation.with_model_defaults`), measured: cG(2)'s KKT
    matrices factor 9× faster with METIS than with the library's default SCOTCH ordering;
``midpoint_inputs``
    also takes the plain-midpoint input rows B(q_{k+½}) instead of the consistent
    (contravariant) B(q♯) (option ``contravariant=False``; thesis §4.2).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from .capabilities import (CHART, HAMILTONIAN, MIDPOINTS, MULTIBODY, NODES, REDUCED, REDUNDANT, STAGES, TOP,
                           Loads, Multipliers, SystemKind, capability)
from .hamiltonian import GRADIENTS
from .galerkin import GALERKIN_STEP, GAUSS_NODES, GAUSS_WEIGHTS
from .lobatto import LOBATTO_NODES, LOBATTO_STEP, LOBATTO_WEIGHTS
from .lobatto_gc import LOBATTO_GC_STEP
from .rattle import RATTLE_STEP
from .steps import BEM_STEP, DMOCC_LM_STEP, DMOCC_STEP, GC_STEP, REM_STEP

if TYPE_CHECKING:
    from ..mechanics.protocol import System
    from .steps import ChartStep, OneStep, TwoStep

__all__ = ["SchemeRecord", "SCHEMES", "record", "register", "resolve", "scheme_names", "scheme_table"]


@dataclass(frozen=True)
class SchemeRecord:
    """What the library knows about one scheme (see the module docstring).

    Examples
    --------
    Read a record's capabilities instead of branching on scheme names:

    >>> rem = record("rem")
    >>> isinstance(rem, SchemeRecord), rem.title
    (True, 'energy-momentum scheme reduced by the discrete null space method (REM)')
    >>> rem.increments, rem.final_configuration, rem.final_rest, rem.multipliers
    (True, ('increments', 'chart'), 'joint_rates', 'reduced')
    >>> rem.unknowns                       # one Newton step's unknowns and their sizes
    (('w', 'dof'), ('q', 'n'), ('v', 'n'), ('nu', 'dof'))
    >>> rem.block_class()
    <class 'pyomo_mbdyn.schemes.rem.REMBlock'>
    """

    name: str
    title: str
    reference: str
    block: str
    step: OneStep | TwoStep | ChartStep | None = None
    system: SystemKind = MULTIBODY
    velocities_at_nodes: bool = True
    joint_rates: bool = False
    increments: bool = False
    final_configuration: tuple[str, ...] = ()
    final_rest: str | None = None
    multipliers: Multipliers | None = None
    friction: bool = False
    controls: bool = True
    loops: bool = False
    coordinate_systems: bool = False
    momentum_consistent: bool = True
    energy_consistent: bool = False
    order: int = 2
    loads: Loads | None = MIDPOINTS
    midpoint_inputs: bool = False
    stages: tuple[tuple[str, float, float], ...] = field(default=())
    ipopt_options: tuple[tuple[str, Any], ...] = field(default=())
    aliases: tuple[str, ...] = field(default=())
    #: names of variants beside ``name`` and ``aliases``: an import path
    #: ``"module:function"`` of ``function(name) → options or None`` (DNCO:
    #: ``"direct-midpoint"`` → ``{"method": "direct", "gradient": "midpoint"}``)
    variants: str | None = None
    #: example variant names, for error messages and ``pyomo-mbdyn list``
    variant_names: tuple[str, ...] = field(default=())
    #: why a scheme has no momentum multipliers (``multipliers`` None), for the error that says so
    no_multipliers_because: str | None = None

    def __post_init__(self):
        # the capabilities as their objects (:mod:`pyomo_mbdyn.discretization.capabilities`), given
        # by name in the records below
        for name, kind in (("system", "SystemKind"), ("loads", "Loads"), ("multipliers", "Multipliers")):
            object.__setattr__(self, name, capability(kind, getattr(self, name)))

    def block_class(self) -> type:
        """The Pyomo block component class (imported on first use)."""
        module, _, name = self.block.partition(":")
        return getattr(importlib.import_module(module), name)

    @property
    def unknowns(self) -> tuple[tuple[str, str], ...]:
        """Names and sizes (``n``, ``m``, ``dof``) of one step's unknowns (the stepper's layout)."""
        return () if self.step is None else self.step.unknowns

    def check(self, system: System, where: str, *, contravariant: bool = True) -> None:
        """Refuse, as a :class:`~pyomo_mbdyn.errors.ConfigurationError` that starts with
        ``where`` and names the schemes that would take it, a system or option this
        scheme does not take: closed loops (``loops``), Rayleigh friction (``friction``),
        actuators (``controls``), the plain-midpoint B (``midpoint_inputs``).  The one
        check the scheme blocks and the stepper share.

        Examples
        --------
        >>> from pyomo_mbdyn.mechanics import examples
        >>> record("gc").check(examples.pendulum(), "gc block")                 # taken: nothing to say
        >>> record("quaternion").check(examples.pendulum(), "quaternion block")
        Traceback (most recent call last):
        ...
        pyomo_mbdyn.errors.ConfigurationError: quaternion block: forward dynamics only; the system has actuators ['hinge.angle']
        """
        if system.has_loops and not self.loops:
            raise ConfigurationError(
                f"{where}: {system} has closed loops {system.layout['loop_joints']}; the {self.name} scheme "  # type: ignore[attr-defined]  # a system with loops is a MultibodySystem
                f"needs a tree (schemes for loops: {scheme_names(loops=True)})")
        if not contravariant and not self.midpoint_inputs:
            raise ConfigurationError(f"{where}: the plain-midpoint B (contravariant=False) is available for "
                                     f"{scheme_names(midpoint_inputs=True)} only")
        friction = getattr(system, "friction", ())
        if not self.friction and len(friction) and any(friction):
            raise ConfigurationError(f"{where}: the {self.name} scheme takes no Rayleigh friction "
                                     f"(coordinates {[v for v, k in zip(system.velocities, friction) if k]})")  # type: ignore[attr-defined]  # a system with friction is a ConstrainedSystem
        if not self.controls and len(getattr(system, "actuated", ())):
            raise ConfigurationError(f"{where}: forward dynamics only; the system has actuators "
                                     f"{list(system.actuated)}")  # type: ignore[attr-defined]  # a system with actuators is a ConstrainedSystem

    @property
    def optimal_control(self) -> bool:
        """Direct optimal control on a multibody system: controls and a final configuration form."""
        return self.system.multibody and self.controls and bool(self.final_configuration)


#: scheme name → record, in the order of registration
SCHEMES: dict[str, SchemeRecord] = {}


def register(rec: SchemeRecord) -> SchemeRecord:
    """Add a record (its name and aliases must be new)."""
    for key in (rec.name, *rec.aliases):
        if key in SCHEMES:
            raise ConfigurationError(f"scheme {key!r} is already registered")
    SCHEMES[rec.name] = rec
    return rec


def scheme_names(**capabilities: Any) -> list[str]:
    """Names of the registered schemes whose record has the given capabilities,
    e.g. ``scheme_names(optimal_control=True)``.

    Examples
    --------
    >>> scheme_names(optimal_control=True)
    ['bem', 'rem', 'dmocc', 'dmocc_lm', 'gc', 'rattle', 'lobatto', 'lobatto_gc', 'cg2']
    >>> scheme_names(energy_consistent=True), scheme_names(system=HAMILTONIAN)
    (['bem', 'rem', 'cg2'], ['dnco'])
    """
    return [name for name, rec in SCHEMES.items()
            if all(getattr(rec, key) == value for key, value in capabilities.items())]


def scheme_table() -> str:
    """The registered schemes as a Markdown table (the README's and the user guide's,
    generated here so that they list what the registry holds): per multibody scheme its
    method, order, whether T + V + W (the energy balance with the controls' work) and the
    momentum maps hold exactly or to the scheme's order, closed loops, and the source;
    the schemes for other systems in a line below.

    Examples
    --------
    >>> print(scheme_table().splitlines()[2])
    | `bem` | energy-momentum scheme with interval multipliers (BEM) | 2 | exact | exact | yes | thesis §2.3, Eq. (3.21)-(3.23) |
    """
    def held(exact, order):
        return "exact" if exact else f"O(h{'²' if order == 2 else '⁴'})"

    rows = ["| scheme | method | order | T + V + W | momentum maps | loops | source |",
            "|---|---|---|---|---|---|---|"]
    others = []
    for name, rec in SCHEMES.items():
        if not rec.system.multibody:
            others.append(f"`{name}` ({rec.title}; {rec.reference})")
            continue
        rows.append(f"| `{name}` | {rec.title} | {rec.order} | {held(rec.energy_consistent, rec.order)} "
                    f"| {held(rec.momentum_consistent, rec.order)} | {'yes' if rec.loops else 'no'} "
                    f"| {rec.reference} |")
    text = "\n".join(rows)
    if others:
        text += "\n\nFor other systems: " + "; ".join(others) + "."
    return text


def record(scheme: str | SchemeRecord) -> SchemeRecord:
    """The record of ``scheme`` (a name, alias or variant name such as ``"direct-midpoint"``);
    a clear error listing the names otherwise (:func:`resolve`)."""
    return resolve(scheme)[0]


def resolve(scheme: str | SchemeRecord) -> tuple[SchemeRecord, dict[str, Any]]:
    """``(record, options)`` of every scheme name the library accepts, read once here:
    a registered name or alias gives ``(record, {})``; a variant name the options it
    states for the record's block (``"dnco-greenspan"`` → the DNCO record and
    ``{"method": "indirect", "gradient": "greenspan"}``).  An unknown name is a
    :class:`~pyomo_mbdyn.errors.ConfigurationError` listing the names and variants.

    Examples
    --------
    >>> rec, options = resolve("direct-midpoint")
    >>> rec.name, options
    ('dnco', {'method': 'direct', 'gradient': 'midpoint'})
    >>> resolve("rem")[0].name, resolve("rem")[1]
    ('rem', {})
    """
    if isinstance(scheme, SchemeRecord):
        return scheme, {}
    if isinstance(scheme, str):
        if scheme in SCHEMES:
            return SCHEMES[scheme], {}
        for rec in SCHEMES.values():
            if scheme in rec.aliases:
                return rec, {}
        for rec in SCHEMES.values():
            if rec.variants:
                module, _, name = rec.variants.partition(":")
                options = getattr(importlib.import_module(module), name)(scheme)
                if options is not None:
                    return rec, dict(options)
    variants = [v for rec in SCHEMES.values() for v in rec.variant_names]
    raise ConfigurationError(f"unknown scheme {scheme!r}; available: {sorted(SCHEMES)}"
                             + (f" and the variants {variants}" if variants else ""))


#: the control stages of the three-stage Lobatto pair (natural and chart coordinates): c = 0, ½, 1, Simpson
LOBATTO_STAGES = tuple((name, float(c), float(b))
                       for name, c, b in zip(("u_start", "u", "u_end"), LOBATTO_NODES, LOBATTO_WEIGHTS))

#: DMOCC's rows have no λ^p
_DMOCC_MULTIPLIERS = ("DMOCC states the forced discrete Euler–Lagrange equations in configurations only: its "
                      "rows' multipliers are adjoints of a two-step recursion, with no momentum row whose "
                      "multiplier is λ^p; the control equation of DMOCC averages two of them — not implemented")

register(SchemeRecord(
    name="bem", title="energy-momentum scheme with interval multipliers (BEM)",
    reference="thesis §2.3, Eq. (3.21)-(3.23)", block="pyomo_mbdyn.schemes.bem:BEMBlock",
    step=BEM_STEP, joint_rates=True, final_configuration=("nodes", "chart"), final_rest="joint_rates",
    multipliers=REDUNDANT, friction=True, loops=True, coordinate_systems=True, energy_consistent=True,
    midpoint_inputs=True))
register(SchemeRecord(
    name="rem", title="energy-momentum scheme reduced by the discrete null space method (REM)",
    reference="thesis §2.4, Eq. (3.34)", block="pyomo_mbdyn.schemes.rem:REMBlock",
    step=REM_STEP, joint_rates=True, increments=True, final_configuration=("increments", "chart"),
    final_rest="joint_rates", multipliers=REDUCED, friction=True, loops=True, coordinate_systems=True,
    energy_consistent=True))
register(SchemeRecord(
    name="dmocc", title="variational midpoint scheme reduced by the discrete null space method (DMOCC)",
    reference="DMOCC paper §3, Eq. (3.12)", block="pyomo_mbdyn.schemes.dmocc:DMOCCBlock",
    step=DMOCC_STEP, velocities_at_nodes=False, increments=True,
    final_configuration=("increments", "chart"), final_rest="legendre", loops=True, loads=NODES,
    no_multipliers_because=_DMOCC_MULTIPLIERS))
register(SchemeRecord(
    name="dmocc_lm", title="variational midpoint scheme with node multipliers (DMOCC-LM)",
    reference="DMOCC paper §3, Eq. (3.6)", block="pyomo_mbdyn.schemes.dmocc:DMOCCLMBlock",
    step=DMOCC_LM_STEP, velocities_at_nodes=False, final_configuration=("nodes",),
    final_rest="legendre", loops=True, loads=NODES, no_multipliers_because=_DMOCC_MULTIPLIERS))
register(SchemeRecord(
    name="gc", title="midpoint rule in generalised (chart) coordinates (GC)",
    reference="thesis §2.5, Eq. (3.40)-(3.42)", block="pyomo_mbdyn.schemes.gc:GCBlock",
    step=GC_STEP, joint_rates=True, final_configuration=("chart",), final_rest="chart_velocity",
    multipliers=CHART, friction=True, coordinate_systems=True, momentum_consistent=False))
register(SchemeRecord(
    name="rattle", title="RATTLE: constrained Störmer–Verlet, symplectic (position-level constraints)",
    reference="Hairer, Lubich & Wanner, Geometric Numerical Integration, VII.1.4",
    block="pyomo_mbdyn.schemes.rattle:RATTLEBlock", step=RATTLE_STEP, final_configuration=("nodes",),
    final_rest="joint_rates", coordinate_systems=True, loads=NODES))
register(SchemeRecord(
    name="lobatto", title="Lobatto IIIA–IIIB, three stages: fourth-order constrained variational integrator",
    reference="Jay 1996 (SPARK); Hairer, Lubich & Wanner, Geometric Numerical Integration, VII.1.5",
    block="pyomo_mbdyn.schemes.lobatto:LobattoBlock", step=LOBATTO_STEP, final_configuration=("nodes",),
    final_rest="joint_rates", loops=True, coordinate_systems=True, order=4, loads=STAGES,
    stages=LOBATTO_STAGES))
register(SchemeRecord(
    name="lobatto_gc", title="Lobatto IIIA–IIIB, three stages, in generalised (chart) coordinates: fourth-order GC",
    reference="Marsden & West 2001, §2.6; Hairer, Lubich & Wanner, Geometric Numerical Integration, VI.6.3",
    block="pyomo_mbdyn.schemes.lobatto_gc:LobattoGCBlock", step=LOBATTO_GC_STEP, final_configuration=("chart",),
    final_rest="chart_velocity", coordinate_systems=True, momentum_consistent=False, order=4, loads=STAGES,
    stages=LOBATTO_STAGES))
register(SchemeRecord(
    name="cg2", title="energy-momentum time finite element cG(2): fourth order, energy and momenta exact",
    reference="Betsch & Steinmann, Conservation properties of a time FE method, parts I and III (2000, 2002)",
    block="pyomo_mbdyn.schemes.galerkin:GalerkinBlock", step=GALERKIN_STEP, final_configuration=("nodes",),
    final_rest="joint_rates", loops=True, coordinate_systems=True, energy_consistent=True, order=4,
    loads=STAGES, stages=tuple((name, float(c), float(b)) for name, c, b in
                                 zip(("u", "u_late"), GAUSS_NODES, GAUSS_WEIGHTS)),
    # the arm at N = 20: 1.2 s with METIS against 10.6 s with SCOTCH (8 iterations both)
    ipopt_options=(("mumps_pivot_order", 5),)))
register(SchemeRecord(
    name="quaternion", title="quaternion energy-momentum scheme for a heavy top",
    reference="thesis ch. 5 (Betsch & Siebert 2009)", block="pyomo_mbdyn.schemes.quaternion:QuaternionBlock",
    system=TOP, controls=False, loads=None))
register(SchemeRecord(
    name="dnco", title="indirect Hamiltonian-conserving DNCO (state, costate and control equations)",
    reference="thesis §2.11, ch. 8", block="pyomo_mbdyn.schemes.dnco:DNCOBlock",
    system=HAMILTONIAN, loads=None, variants="pyomo_mbdyn.discretization.hamiltonian:dnco_variant",
    variant_names=("direct", *(f"{m}-{g}" for m in ("dnco", "direct") for g in GRADIENTS))))
