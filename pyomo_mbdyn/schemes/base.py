"""The shared part of all scheme blocks.

:class:`SchemeBlockData` is the base of every scheme block (DNCO and the
quaternion top included): its class-level ``CONFIG`` (Pyomo's ConfigDict
idiom; subclasses copy and extend it, so each block validates and documents
its own options), the uniform grid ``t_k = k h``, ``k = 0..N``, ``h = T/N``
(``nodes``, ``intervals``; with ``free_horizon=(lower, upper)`` the final time
is the variable ``final_time`` and h the named Expression T/N, an argument of
every step formula), named ``shared_terms`` for repeated
subexpressions, its registry record (``block.record``,
:mod:`pyomo_mbdyn.discretization.registry`) and one accessor for results,
``block.trajectory()`` → :class:`~pyomo_mbdyn.trajectory.Trajectory`.

:class:`MultibodyBlockData` is the base of the blocks for one
:class:`MultibodySystem`.  It contains

* ``nodes`` (0..N) and ``intervals`` (0..N-1);
* ``body[name]``: a sub-block per body with node variables ``q[k, c]`` and
  ``v[k, c]`` (``c`` the coordinate names ``x, y, z, d1x, …, d3z``);
* ``joint[name]``: a sub-block per joint (multipliers and residuals where the
  scheme has them);
* ``u[i, a]``: interval controls on the actuated coordinates ``a``;
* ``nu[i, j]``: interval joint rates ν = B(q♯) v_{k+½};
* the scheme's equations, each a Constraint named after what it states.

With all controls fixed (``controls=``) the block is a square system: that is
forward simulation through ``SolverFactory``.

Subclasses set ``scheme`` (the registry name) and implement the hook
``_add_discrete_equations()``; ``_build()`` reads as the recipe below.  The
record's capabilities decide which variables exist (node velocities, joint
rates) and which systems are accepted (friction, closed loops).  What a
subclass may override is numbered under "Implementing a scheme" below.

The parts of a multibody block that are concepts of their own live beside
this module and come in as mixins: its options (:mod:`.options`), the
formula stated at every interval and offered to solvers (:mod:`.residuals`),
initial guesses from trajectories (:mod:`.guesses`), solved values read back
(:mod:`.solution`), and its final conditions (:mod:`.configuration_forms`,
:mod:`.final_rest`).

.. rubric:: Implementing a scheme

A scheme block is a subclass of :class:`MultibodyBlockData` (a scheme on a
:class:`~pyomo_mbdyn.mechanics.MultibodySystem` or
:class:`~pyomo_mbdyn.mechanics.CoordinateSystem`) or of :class:`SchemeBlockData`
(another kind of system: the quaternion top, DNCO's Hamiltonian systems),
declared with :func:`~pyomo_mbdyn.schemes.options.declare_scheme_block` and
named by its registry record (:mod:`pyomo_mbdyn.discretization.registry`).  It
defines its own helpers freely, but of what its bases define it overrides only
the hooks numbered here (:data:`HOOKS` declares them;
``tests/schemes/test_scheme_contract.py`` checks every registered block
against it).  *Required* hooks are abstract: the base's version raises
NotImplementedError naming the class and the hook, and the abstract methods
among them (``abc.abstractmethod``; the blocks' metaclass is ``abc.ABCMeta``)
make a class that lacks one refuse to be instantiated.  *Optional* hooks have
the default described.  An override of a hook with a default calls
``super()`` where it is marked "extend".

Every scheme block (:class:`SchemeBlockData`):

    1. ``scheme`` (class attribute, required): the registry name of the
       scheme; :attr:`~SchemeBlockData.record` reads the record by it and the
       error messages name it.  The base's is None.
    2. ``CONFIG`` (class attribute, optional): the options, a Pyomo
       ConfigDict; ``build()`` validates the keywords against it
       (:func:`~pyomo_mbdyn.schemes.options.check_options`) and keeps them as
       ``self.config``.  Default :func:`~pyomo_mbdyn.schemes.options.grid_config`
       (``system``, ``steps``, ``horizon``); a block copies a maker of
       :mod:`.options` and declares its own options on it.
    3. ``required`` (class attribute, optional): the options that must be
       given; ``build()`` refuses None among them.  Default ``("system",
       "steps", "horizon")``.
    4. ``_build()`` (required, abstract): create every variable and equation
       from ``self.config`` and ``self.system``; called once by ``build()``.
       :class:`MultibodyBlockData` implements it as the recipe that calls
       hooks 11–13.
    5. ``trajectory()`` (required, abstract): the current variable values as a
       :class:`~pyomo_mbdyn.trajectory.Trajectory` with ``self._metadata()``;
       called by ``diagnostics()``, the problems, the studies and users.
       :class:`MultibodyBlockData` implements it (:mod:`.solution`: hooks
       15–18).
    6. ``initialize_from(trajectory)`` (required, abstract): set the variables
       from a guess of the same system and grid, refusing another one by a
       :class:`~pyomo_mbdyn.errors.ConfigurationError`; called by the
       problems' initial guesses (:mod:`pyomo_mbdyn.ocp`) and users.
       :class:`MultibodyBlockData` implements it (:mod:`.guesses`: hook 14).
    7. ``diagnostics()`` (optional): the per-node conservation table.  Default
       :func:`~pyomo_mbdyn.diagnostics.conservation_table` of
       ``trajectory()``; called by the studies' ``run`` and users.

A block on a multibody system (:class:`MultibodyBlockData`), besides 1–3:

    8. ``CONFIGURATION_FORM`` (class attribute, required): the
       :class:`~pyomo_mbdyn.schemes.configuration_forms.ConfigurationForm` of
       the block's unknowns (nodes, increments or chart: how a final
       configuration is stated); hook 10 instantiates it.  The base's is None.
    9. ``FINAL_REST`` (class attribute, required): the
       :class:`~pyomo_mbdyn.schemes.final_rest.FinalRest` that states rest at
       t_N (:meth:`~MultibodyBlockData.state_final_rest`).  The base's is None.
    10. ``configuration_form`` (property, optional): the form in use.  Default
        ``CONFIGURATION_FORM(self)``; a block that offers another form by an
        option chooses here (:class:`~pyomo_mbdyn.schemes.absolute.AbsoluteConfigurations`:
        the chart when ``configurations="absolute"``).
    11. ``_add_scheme_variables()`` (optional): the scheme's variables beyond
        ``q``, ``v``, ``u``, ``nu`` (multipliers, increments, chart
        coordinates, stage values); called by ``_build`` step 5 before the
        equations.  Default: none.
    12. ``_add_discrete_equations()`` (required, abstract): the scheme's
        equations, stated by ``self._residuals(...)`` and the
        ``_add_*_equations`` helpers of :mod:`.residuals` (Constraints named
        after what they state); called by ``_build`` step 5 under the block's
        sharing (repeated subexpressions become ``shared_terms``).
    13. ``_fix_initial_state()`` (optional, extend): fix the state at t_0.
        Default: ``q_0`` and ``v_0`` from the options, checked, fixed on the
        node variables, every node started there; an override calls
        ``super()`` first and fixes its own unknowns at t_0 (θ_0, ṽ_0).
        Called by ``_build`` step 6.
    14. ``_initialize_scheme(trajectory)`` (optional, extend): set the
        scheme's own variables from a guess; called last by
        ``initialize_from``.  Default: the interval multipliers ``lam`` and
        the increments ``w`` where both the guess and the block have them.
    15. ``configuration_values()`` (optional): node configurations (N+1, n)
        as floats; called by ``trajectory()``.  Default: the values of
        ``q_array(k)``; a block whose q are Expressions of its unknowns reads
        them faster from its unknowns (gc, dmocc, the absolute forms).
    16. ``velocity_values()`` (optional): node velocities (N+1, n) as floats;
        called by ``trajectory()`` when the record has
        ``velocities_at_nodes``.  Default: the values of ``v_array(k)``.
    17. ``_recover_velocities(q, u)`` (required when the record has no
        ``velocities_at_nodes``): node velocities from the configurations and
        controls; called by ``trajectory()``.  The base's raises.
    18. ``_extras()`` (optional, extend): the scheme's own unknowns by name,
        the extras of ``trajectory()``.  Default: ``lam``, the controls of the
        other stages, ``w``, ``theta``, ``vt`` where the block has them, and
        the momentum multipliers from a ``dual`` Suffix.

A block that extends the chart midpoint rule (:class:`~pyomo_mbdyn.schemes.gc.GCBlockData`,
extended by :class:`~pyomo_mbdyn.schemes.lobatto_gc.LobattoGCBlockData`), besides 8–18:

    19. ``_add_step_equations()`` (optional): the rows per interval;
        called by ``GCBlockData._add_discrete_equations`` before the node
        values q(θ_k), v(θ_k, ṽ_k).  Default: the midpoint rule's rows.
"""

from __future__ import annotations

import abc
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np
import pyomo.environ as pyo
from pyomo.core.base.block import BlockData

from ..discretization.registry import record
from ..errors import ConfigurationError, LoopReductionError, MbdynError
from ..mechanics import ConstrainedSystem
from ..mechanics.linalg import name_next, sharing
from ..mechanics.system import coordinate_names
from ..simulate.stepper import check_initial_state
from .deferred import DeferredExpression
from .guesses import InitialGuess
from .options import check_options, grid_config, initial_state, multibody_config
from .residuals import IntervalResiduals
from .solution import SolutionValues

if TYPE_CHECKING:
    import pandas as pd

    from ..discretization.registry import SchemeRecord
    from ..trajectory import Trajectory
    from .configuration_forms import ConfigurationForm
    from .final_rest import FinalRest

logger = logging.getLogger("pyomo_mbdyn.schemes")

__all__ = ["SchemeBlockData", "MultibodyBlockData", "INTERNAL_NAMES", "Hook", "HOOKS"]


INTERNAL_NAMES = ["d1.d1", "d2.d2", "d3.d3", "d1.d2", "d1.d3", "d2.d3"]


@dataclass(frozen=True)
class Hook:
    """One numbered hook of "Implementing a scheme" (the module docstring): a name a scheme
    block may override, the base class that declares it (and holds its default or its
    abstract version), and whether a block must implement it.

    ``required`` is True for a hook every block below ``owner`` implements; ``unless`` names a
    record capability (:class:`~pyomo_mbdyn.discretization.registry.SchemeRecord`) that waives
    it (``_recover_velocities`` is needed only without ``velocities_at_nodes``).  ``extend``:
    an override calls ``super()`` and adds to the default.

    Examples
    --------
    >>> [hook.name for hook in HOOKS if hook.owner == "SchemeBlockData"]
    ['scheme', 'CONFIG', 'required', '_build', 'trajectory', 'initialize_from', 'diagnostics']
    >>> from pyomo_mbdyn.schemes import record
    >>> recover = next(hook for hook in HOOKS if hook.name == "_recover_velocities")
    >>> recover.required_for(record("dmocc")), recover.required_for(record("bem"))
    (True, False)
    """

    number: int
    name: str
    owner: str
    kind: str
    required: bool = False
    unless: str | None = None
    extend: bool = False

    def required_for(self, record: SchemeRecord) -> bool:
        """Whether a block of the scheme with this registry record must implement the hook."""
        return self.required and not (self.unless and getattr(record, self.unless))


#: the hooks of "Implementing a scheme", in its numbering: what a scheme block may override
#: (``tests/schemes/test_scheme_contract.py`` holds every registered block to it)
HOOKS = (
    Hook(1, "scheme", "SchemeBlockData", "attribute", required=True),
    Hook(2, "CONFIG", "SchemeBlockData", "attribute"),
    Hook(3, "required", "SchemeBlockData", "attribute"),
    Hook(4, "_build", "SchemeBlockData", "method", required=True),
    Hook(5, "trajectory", "SchemeBlockData", "method", required=True),
    Hook(6, "initialize_from", "SchemeBlockData", "method", required=True),
    Hook(7, "diagnostics", "SchemeBlockData", "method"),
    Hook(8, "CONFIGURATION_FORM", "MultibodyBlockData", "attribute", required=True),
    Hook(9, "FINAL_REST", "MultibodyBlockData", "attribute", required=True),
    Hook(10, "configuration_form", "MultibodyBlockData", "property"),
    Hook(11, "_add_scheme_variables", "MultibodyBlockData", "method"),
    Hook(12, "_add_discrete_equations", "MultibodyBlockData", "method", required=True),
    Hook(13, "_fix_initial_state", "MultibodyBlockData", "method", extend=True),
    Hook(14, "_initialize_scheme", "InitialGuess", "method", extend=True),
    Hook(15, "configuration_values", "SolutionValues", "method"),
    Hook(16, "velocity_values", "SolutionValues", "method"),
    Hook(17, "_recover_velocities", "SolutionValues", "method", required=True, unless="velocities_at_nodes"),
    Hook(18, "_extras", "SolutionValues", "method", extend=True),
    Hook(19, "_add_step_equations", "GCBlockData", "method"),
)


def _missing_hook(block, hook):
    """The error of a required hook the block's class does not implement."""
    return NotImplementedError(f"{type(block).__name__} does not implement the required hook {hook!r} "
                               "(see 'Implementing a scheme' in pyomo_mbdyn.schemes.base)")


class SchemeBlockData(BlockData, metaclass=abc.ABCMeta):
    """Base of every scheme block (see the module docstring).

    Subclasses set ``scheme`` (the registry name) and ``CONFIG``, implement
    ``_build()``, ``trajectory()`` and ``initialize_from()`` (abstract here) and may
    override ``diagnostics()``: hooks 1–7 of "Implementing a scheme" (the module
    docstring).

    Examples
    --------
    What every scheme block offers, on a :class:`~pyomo_mbdyn.schemes.REMBlock`:

    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> from pyomo_mbdyn.schemes import REMBlock, SchemeBlockData
    >>> m = pyo.ConcreteModel()
    >>> m.dyn = REMBlock(system=pendulum, steps=4, horizon=1.0)
    >>> isinstance(m.dyn, SchemeBlockData), m.dyn.scheme, m.dyn.record.name
    (True, 'rem', 'rem')
    >>> list(m.dyn.nodes), list(m.dyn.intervals)
    ([0, 1, 2, 3, 4], [0, 1, 2, 3])
    >>> m.dyn.step_length, m.dyn.final_time_value, m.dyn.free_horizon, m.dyn.never_solved
    (0.25, 1.0, False, True)
    """

    scheme: str = None  # type: ignore[assignment]  # the base has none: every block names its scheme (hook 1, required)
    CONFIG = grid_config()
    #: options that must be given
    required: tuple[str, ...] = ("system", "steps", "horizon")

    def build(self, **options: Any) -> None:
        self.config = check_options(type(self), options)
        for required in self.required:
            if self.config[required] is None:
                raise ConfigurationError(f"{self.scheme} block: option {required!r} is required")
        self.system = self.config.system
        try:
            self._build()
        except MbdynError:  # a named refusal: the message says it all, no traceback in the log
            raise
        except Exception:
            logger.exception("Failure in build of %s block %s", self.scheme, self.name)
            raise
        self._built_fingerprint = self._value_fingerprint()
        structure = getattr(self._system, "structure", None)
        self._system_structure = structure() if callable(structure) else None

    @property
    def system(self) -> Any:
        """The system the block was built for.  Reading it after the system was changed
        (bodies, joints, actuators, friction or independent coordinates added or altered since
        the block was built) is a ConfigurationError saying what changed: the block's
        variables and equations belong to the system as it was (it used to end in a
        numpy broadcast error inside a solve, or a KeyError of a body the block lacks)."""
        system: Any = self.__dict__.get("_system")
        built = self.__dict__.get("_system_structure")
        if built is not None:
            now = system.structure()
            if now != built:
                changes = []
                for key in built:
                    before, after = built[key], now[key]
                    if before == after:
                        continue
                    gone = [x for x in before if x not in after]
                    new = [x for x in after if x not in before]
                    shown = lambda items: [x[0] if isinstance(x, tuple) else x for x in items]  # noqa: E731
                    changes.append(f"{key}" + (f" added {shown(new)}" if new else "")
                                   + (f" removed {shown(gone)}" if gone else "")
                                   + ("" if new or gone else " reordered"))
                raise ConfigurationError(
                    f"{self.scheme} block {self.name!r}: its system {system} changed since the block was built "
                    f"({'; '.join(changes)}); build a new block for the changed system (scheme_block(...)) "
                    f"or change the system before building")
        return system

    @system.setter
    def system(self, value: Any) -> None:
        self.__dict__["_system"] = value
        self.__dict__["_system_structure"] = None

    def _value_fingerprint(self):
        """A hash of the current values of the block's variables."""
        return hash(tuple(v.value for v in self.component_data_objects(pyo.Var, descend_into=True)))

    @property
    def never_solved(self) -> bool:
        """True while the block holds exactly the values it was built with and its model
        has no solver solution loaded: nothing (a solver, ``initialize_from``, a user)
        has set its variables since construction.  :meth:`Trajectory.from_block
        <pyomo_mbdyn.trajectory.Trajectory.from_block>` refuses such a block unless asked."""
        fingerprint = getattr(self, "_built_fingerprint", None)
        solutions = getattr(getattr(self.model(), "solutions", None), "solutions", ())
        if fingerprint is None or len(solutions):
            return False
        return self._value_fingerprint() == fingerprint

    #: solution statuses (Pyomo's) of a solver solution that is an optimum
    SOLVED_STATUSES = ("optimal", "locallyOptimal", "globallyOptimal")

    @property
    def solution_status(self) -> str | None:
        """The status (Pyomo's ``SolutionStatus``: ``'optimal'``, ``'locallyOptimal'``,
        ``'stoppedByLimit'``, …) of the solver solution this block's values are, or None
        when they are no solver's solution.

        The block holds a solution when its model's last loaded solution
        (``model.solutions``, where Pyomo keeps what a solve loaded) covers variables of
        this block and every one of them still has the value the solver gave it.  A
        block that was only built, started from its model's guess
        (``initialize_from``) or changed after its solve gives None: its values are a
        guess, not a solution.  :meth:`_metadata` records it (``solved``,
        ``solution_status``) so that a saved trajectory says whether it is a solution."""
        solutions: Any = getattr(getattr(self.model(), "solutions", None), "solutions", ())
        if not len(solutions):
            return None
        solution = solutions[-1]
        mine = {id(v) for v in self.component_data_objects(pyo.Var, descend_into=True)}
        covered = 0
        for key, (var, entry) in getattr(solution, "_entry", {}).get("variable", {}).items():
            if key not in mine:
                continue
            var = var() if callable(var) and not hasattr(var, "value") else var  # a weak reference
            if var is None or var.value != entry.get("Value"):
                return None  # changed since the solve: no longer the solver's point
            covered += 1
        if not covered:
            return None
        return str(getattr(solution, "_metadata", {}).get("status", "unknown"))

    @property
    def record(self) -> SchemeRecord:
        """The scheme's registry record (of the class's ``scheme``; an instance may name a variant)."""
        return record(type(self).scheme)

    def _grid(self):
        """``h``, ``nodes`` (0..N) and ``intervals`` (0..N-1).

        With a fixed horizon ``h = T/N`` is a float; with ``free_horizon=(lower,
        upper)`` the final time is the variable ``final_time`` (bounds lower ≤ T ≤
        upper, started at ``horizon``) and ``h`` the named Expression T/N, which the
        discrete equations receive as an argument (:meth:`MultibodyBlockData._residuals`).
        """
        N, config = self.config.steps, self.config
        bounds = config.free_horizon if "free_horizon" in config else None
        if bounds is None:
            self.h = config.horizon / N
        else:
            lower, upper = bounds
            if not lower <= config.horizon <= upper:
                raise ConfigurationError(
                    f"{self.scheme} block: the initial final time horizon={config.horizon} lies outside "
                    f"free_horizon={bounds}")
            self.final_time = pyo.Var(bounds=bounds, initialize=config.horizon, doc="final time T")
            self.h = pyo.Expression(expr=self.final_time / N, doc="step h = T/N")
        self.nodes = pyo.RangeSet(0, N)
        self.intervals = pyo.RangeSet(0, N - 1)

    @property
    def free_horizon(self) -> bool:
        """Whether the final time is a variable (``final_time``; see :meth:`_grid`)."""
        return isinstance(self.component("final_time"), pyo.Var)

    @property
    def step_length(self) -> float:
        """The step h as a float (the current value of ``final_time``/N when T is free)."""
        return float(pyo.value(self.h))

    @property
    def final_time_value(self) -> float:
        """The final time T = N h as a float."""
        return self.step_length * self.config.steps

    def _share(self, expr):
        return name_next(self.shared_terms, expr)

    def _metadata(self):
        out = {"model": self.model().name, "system": self.system.name, "scheme": self.scheme,
               "steps": int(self.config.steps), "horizon": float(self.config.horizon), "h": self.step_length}
        status = self.solution_status  # whether these values are a solver's solution (a guess is not)
        out.update(solved=status in self.SOLVED_STATUSES, solution_status=status)
        if self.free_horizon:  # the final time reached, and its bounds
            out.update(horizon=self.final_time_value, free_horizon=list(self.config.free_horizon))
        return out

    @abc.abstractmethod
    def _build(self):  # pragma: no cover - abstract
        """Hook 4 (required): create the block's variables and equations (called by ``build``)."""
        raise _missing_hook(self, "_build")

    @abc.abstractmethod
    def trajectory(self) -> Trajectory:  # pragma: no cover - abstract
        """The current variable values as a :class:`~pyomo_mbdyn.trajectory.Trajectory`
        (hook 5, required)."""
        raise _missing_hook(self, "trajectory")

    @abc.abstractmethod
    def initialize_from(self, trajectory: Trajectory) -> None:  # pragma: no cover - abstract
        """Set the variables from a guess of this system and grid (hook 6, required)."""
        raise _missing_hook(self, "initialize_from")

    def diagnostics(self) -> pd.DataFrame:
        """Per-node conservation table (see :mod:`pyomo_mbdyn.diagnostics`)."""
        from ..diagnostics import conservation_table

        tr = self.trajectory()
        return conservation_table(self.system, self.step_length, tr.q, tr.v, tr.nu, tr.u, work=tr.extras.get("work"))


class MultibodyBlockData(IntervalResiduals, InitialGuess, SolutionValues, SchemeBlockData):
    """Base of the scheme blocks on a MultibodySystem (see the module docstring).

    Subclasses set ``CONFIGURATION_FORM`` and ``FINAL_REST`` and implement
    ``_add_discrete_equations()`` (abstract here); hooks 8–18 of "Implementing a
    scheme" (the module docstring) are what they may override.

    Examples
    --------
    The components every multibody block has, on a
    :class:`~pyomo_mbdyn.schemes.BEMBlock`:

    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> link = pendulum.bodies["link"]
    >>> from pyomo_mbdyn.schemes import BEMBlock, MultibodyBlockData
    >>> m = pyo.ConcreteModel()
    >>> m.dyn = BEMBlock(system=pendulum, steps=4, horizon=1.0)
    >>> isinstance(m.dyn, MultibodyBlockData)
    True
    >>> list(m.dyn.body), list(m.dyn.velocities), list(m.dyn.actuated)
    (['link'], ['hinge.angle'], ['hinge.angle'])
    >>> m.dyn.body["link"].q[4, "d1x"].name, m.dyn.u[0, "hinge.angle"].name
    ('dyn.body[link].q[4,d1x]', "dyn.u[0,'hinge.angle']")
    >>> m.dyn.uses_velocities, m.dyn.configurations, m.dyn.final_configuration_form
    (True, 'lifted', 'nodes')
    >>> m.dyn.body["link"].q[0, "x"].fixed           # the initial state is fixed
    True
    """

    CONFIG = multibody_config()

    @property
    def uses_velocities(self) -> bool:
        """Node velocities ``body[b].v`` are variables (the record's ``velocities_at_nodes``)."""
        return self.record.velocities_at_nodes

    @property
    def configurations(self) -> str:
        """How node configurations are stated: ``"lifted"`` (variables) unless the block says otherwise."""
        return self.config.configurations if "configurations" in self.config else "lifted"

    #: the :class:`~pyomo_mbdyn.schemes.configuration_forms.ConfigurationForm` of the block's unknowns
    #: (hook 8, required)
    CONFIGURATION_FORM: type[ConfigurationForm] = None  # type: ignore[assignment]  # the base has none: every block sets it (hook 8, required)
    #: how the block states rest at t_N (a :class:`~pyomo_mbdyn.schemes.final_rest.FinalRest`; hook 9,
    #: required)
    FINAL_REST: type[FinalRest] = None  # type: ignore[assignment]  # the base has none: every block sets it (hook 9, required)

    @property
    def control_stages(self) -> tuple[tuple[str, float, float], ...]:
        """The control stages of an interval, ``(variable, abscissa c, weight b)`` with Σ b = 1
        (the record's ``stages``): one control per interval (``u``) unless the scheme applies
        controls at several stages (Lobatto IIIA–IIIB: ``u_start``, ``u``, ``u_end`` at
        c = 0, ½, 1; cG(2): ``u``, ``u_late`` at the Gauss points); ``u`` is always one of
        them, the one a trajectory's ``u`` reports."""
        return self.record.stages or (("u", 0.5, 1.0),)

    def control_variables(self, i: int, a: str) -> list[Any]:
        """The control variables of actuated coordinate ``a`` on interval ``i``, one per
        control stage (:attr:`control_stages`): what bounds, fixed controls, actuator
        selection and random starts act on."""
        return [self.component(name)[i, a] for name, _, _ in self.control_stages]

    def control_effort(self, weights: Mapping[str, float]) -> Any:
        """``h Σ_i Σ_s b_s Σ_a w_a u_s[i, a]²``: the effort ``∫ Σ_a w_a u_a² dt`` by the
        quadrature of the scheme's control stages (one stage: ``h Σ_i Σ_a w_a u[i, a]²``,
        the papers' objective); ``weights`` maps each actuated coordinate to w_a."""
        return self.h * sum(b * sum(weights[a] * self.component(name)[i, a] ** 2
                                    for i in self.intervals for a in self.actuated)
                            for name, _, b in self.control_stages)

    @property
    def configuration_form(self) -> ConfigurationForm:
        """How the block's unknowns carry the joint coordinates (chart, increments or nodes;
        :mod:`pyomo_mbdyn.schemes.configuration_forms`): what the problem statements compose.
        Hook 10 (optional): ``CONFIGURATION_FORM(self)`` unless a block chooses by an option."""
        return self.CONFIGURATION_FORM(self)

    @property
    def final_configuration_form(self) -> str | None:
        """The name of :attr:`configuration_form` (one of the record's ``final_configuration``)."""
        return self.configuration_form.name

    @property
    def final_rest(self) -> FinalRest:
        """How the block states rest at t_N (:mod:`pyomo_mbdyn.schemes.final_rest`)."""
        return self.FINAL_REST(self)

    @property
    def final_configuration_target(self) -> list[float] | None:
        """The joint coordinates θ_N stated by :meth:`state_final_configuration` (None before)."""
        return getattr(self, "_final_configuration_target", None)

    def state_final_configuration(self, theta: Sequence[float], problem: Any) -> None:
        """θ_N = ``theta`` in the block's :attr:`configuration_form`, rows on ``problem.block``;
        once per block (a second target would override or contradict the first)."""
        if self.final_configuration_target is not None:
            raise ConfigurationError(
                f"fix_final_configuration: the final configuration of the {self.scheme} block {self.name!r} is "
                f"already fixed (θ = {self.final_configuration_target}); a second call would override or "
                f"contradict it — build a new problem (and block) for another target")
        self.configuration_form.state_final_configuration(theta, problem)
        self._final_configuration_target = [float(x) for x in theta]

    def state_final_rest(self, rows: Any, keep: Iterable[str], reduced: bool = True, form: str | None = None) -> None:
        """Rest at t_N for the generalised velocities ``keep`` as the block's :attr:`final_rest`
        states it, rows added to ``rows``; once per block (twice would repeat rows: LICQ fails)."""
        if getattr(self, "_final_rest_required", False):
            raise ConfigurationError(f"require_final_rest: already required on the {self.scheme} block "
                                     f"{self.name!r}; the rows would be stated twice (redundant, LICQ fails)")
        self.final_rest.state(rows, keep, reduced=reduced, form=form)
        self._final_rest_required = True

    @property
    def rotation(self) -> str:
        return self.config.rotation if "rotation" in self.config else "exp"

    @property
    def contravariant(self) -> bool:
        return self.config.contravariant if "contravariant" in self.config else True

    def _check_system(self):
        system, rec = self.system, self.record
        if not isinstance(system, ConstrainedSystem):
            raise ConfigurationError(f"{self.scheme} block: expected a MultibodySystem or CoordinateSystem, "
                                     f"got {type(system).__name__}")
        system.validate()
        rec.check(system, f"{self.scheme} block", contravariant=self.contravariant)
        if system.layout["loop_joints"] and self.configurations != "lifted":
            raise LoopReductionError(
                f"{self.scheme} block: configurations={self.configurations!r} cannot close the loops "
                f"{system.layout['loop_joints']} of {system} (a chart or nested reparametrisation of the "
                "spanning tree does not fulfil the loop constraints); use configurations='lifted'")
        if system.layout["loop_joints"]:
            system.loop_reduction  # noqa: B018 - a singular partition is reported before the build
            if system.dropped_constraints:
                logger.info("%s block: redundant loop rows %s of %s left out (the KKT matrix stays regular)",
                            self.scheme, system.dropped_constraints, system)

    def _build(self):
        system = self.system
        self._check_system()
        # 1. time grid
        self._grid()
        # 2. bodies, with node configurations and velocities
        self.body = pyo.Block(list(system.bodies))
        for name, body in system.bodies.items():
            blk = self.body[name]
            blk.coordinates = pyo.Set(initialize=coordinate_names(body), ordered=True)
            blk.q = pyo.Var(self.nodes, blk.coordinates, initialize=0.0)
            if self.uses_velocities:
                blk.v = pyo.Var(self.nodes, blk.coordinates, initialize=0.0)
        # 3. joints
        self.joint = pyo.Block(list(system.joints))
        # 4. controls and joint rates
        self.actuated = pyo.Set(initialize=system.actuated, ordered=True)
        self.velocities = pyo.Set(initialize=system.velocities, ordered=True)
        if system.has_loops:  # the columns of P: the reduced rows run over these
            self.independent = pyo.Set(initialize=system.independent, ordered=True)
        self.u = pyo.Var(self.intervals, self.actuated, initialize=0.0)
        for stage, _, _ in self.control_stages:
            if stage != "u":
                self.add_component(stage, pyo.Var(self.intervals, self.actuated, initialize=0.0))
        if self.record.joint_rates:
            self.nu = pyo.Var(self.intervals, self.velocities, initialize=0.0)
        # 5. the scheme; repeated subexpressions become named Expressions
        self._add_scheme_variables()
        self.shared_terms = pyo.Expression(pyo.Any)
        self._families = []
        with sharing(self._share):
            self._add_discrete_equations()
        # 6. initial state and initial guess
        self._fix_initial_state()
        self._fix_controls()
        # 7. solver options the scheme needs, under the user's (solvers.evaluation.with_model_defaults)
        if self.record.ipopt_options:
            self._solver_defaults = dict(self.record.ipopt_options)

    # -- arrays of variables in the system's global ordering ---------------------
    def q_array(self, k: int) -> np.ndarray:
        return np.array([v for name in self.system.bodies for v in
                         (self.body[name].q[k, c] for c in self.body[name].coordinates)], dtype=object)

    def v_array(self, k: int) -> np.ndarray:
        return np.array([v for name in self.system.bodies for v in
                         (self.body[name].v[k, c] for c in self.body[name].coordinates)], dtype=object)

    def u_array(self, i: int) -> np.ndarray:
        return np.array([self.u[i, a] for a in self.actuated], dtype=object)

    def stage_control_arrays(self, i: int) -> list[np.ndarray]:
        """The controls of interval i, one array per control stage (:attr:`control_stages`)."""
        return [np.array([self.component(stage)[i, a] for a in self.actuated], dtype=object)
                for stage, _, _ in self.control_stages]

    def nu_array(self, i: int) -> np.ndarray:
        return np.array([self.nu[i, j] for j in self.velocities], dtype=object)

    def _coordinate_index(self):
        """Global coordinate index → (body name, coordinate name)."""
        out = []
        for name in self.system.bodies:
            out += [(name, c) for c in self.body[name].coordinates]
        return out

    def _constraint_index(self):
        """Active constraint row → (owner sub-block, local row name) (all rows for a tree; with
        loops the redundant loop rows are not active)."""
        out = []
        for name, body in self.system.bodies.items():
            out += [(self.body[name], INTERNAL_NAMES[r]) for r in range(body.n_internal)]
        for name, joint in self.system.joints.items():
            out += [(self.joint[name], r) for r in self._joint_rows(name)]
        return out

    def _joint_rows(self, name):
        """The active rows of joint ``name`` (local numbers)."""
        rows = range(self.system.joints[name].n_constraints)
        dropped = set(self.system.dropped_constraints)
        return [r for r in rows if f"{name}[{r}]" not in dropped]

    @property
    def reduced_coordinates(self) -> Any:
        """The index set of the reduced rows (REM momentum balance, DMOCC momentum matching):
        ``velocities`` for a tree, ``independent`` for loops."""
        return self.independent if self.component("independent") is not None else self.velocities

    @property
    def dropped_constraints(self) -> list[str]:
        """Labels of the redundant loop rows left out of this block (empty for a tree)."""
        return list(self.system.dropped_constraints)

    # -- helpers shared by the schemes ---------------------------------------------
    def _replace_node_variables(self, var, nodes):
        """Node variables ``body[b].<var>`` (``q`` or ``v``) → named expressions of the node
        values: ``nodes[k]`` (arrays in the global coordinate order), or with a callable
        ``nodes(k)`` (see :meth:`_node_values`) Expressions that are made when a consumer
        first reads one (:class:`~pyomo_mbdyn.schemes.deferred.DeferredExpression`)."""
        index = self._coordinate_index()
        if callable(nodes):
            position = {key: i for i, key in enumerate(index)}
            for name in self.system.bodies:
                blk = self.body[name]
                blk.del_component(var)
                blk.add_component(var, DeferredExpression(
                    self.nodes, blk.coordinates, source=lambda b, k, c, name=name: nodes(k)[position[name, c]]))
            return
        for name in self.system.bodies:
            blk = self.body[name]
            blk.del_component(var)
            blk.add_component(var, pyo.Expression(self.nodes, blk.coordinates))
        for k, values in nodes.items():
            for idx, (name, c) in enumerate(index):
                self.body[name].component(var)[k, c] = values[idx]

    def _node_values(self, compute):
        """``compute(k)`` once per node, when first asked for, under the block's sharing
        (values used twice become its named Expressions, as while it is built); the
        values made so far are in the returned callable's ``made``."""
        made = {}

        def values(k):
            out = made.get(k)
            if out is None:
                with sharing(self._share):
                    out = made[k] = compute(k)
            return out

        values.made = made
        return values

    def _add_interval_multipliers(self):
        """γ[k, r] for every constraint row: ``body[b].lam`` and ``joint[j].lam``."""
        for name, body in self.system.bodies.items():
            blk = self.body[name]
            blk.internal = pyo.Set(initialize=INTERNAL_NAMES[: body.n_internal], ordered=True)
            blk.lam = pyo.Var(self.intervals, blk.internal, initialize=0.0)
        for name, joint in self.system.joints.items():
            blk = self.joint[name]
            blk.rows = pyo.Set(initialize=self._joint_rows(name), ordered=True)
            blk.lam = pyo.Var(self.intervals, blk.rows, initialize=0.0)
            dropped = [r for r in range(joint.n_constraints) if r not in blk.rows]
            if dropped:  # redundant rows of a loop-closing joint: no row, no multiplier
                blk.dropped_rows = pyo.Set(initialize=dropped, ordered=True)

    def _lam_array(self, i):
        return [owner.lam[i, r] for owner, r in self._constraint_index()]

    def _add_interval_coordinates(self, name, configuration=None):
        """``body[b].<name>[i, c]``: one variable per interval and coordinate (the middle node
        q_{k+½} of the fourth-order schemes, cG(2)'s middle velocity coefficient).  A
        configuration (``configuration=True``; default: the name starts with ``q``) starts at
        the initial configuration, as the node configurations do (not at zero: directors of
        length zero make the joints' wrench maps singular)."""
        if configuration is None:
            configuration = name.startswith("q")
        for b in self.system.bodies:
            blk = self.body[b]
            blk.add_component(name, pyo.Var(self.intervals, blk.coordinates, initialize=0.0))
        if configuration:
            self._interval_configurations = getattr(self, "_interval_configurations", ()) + (name,)

    def _interval_coordinate_array(self, name, i):
        """``body[b].<name>[i, c]`` (per interval, one per coordinate: the middle node q_{k+½} of
        the fourth-order schemes) in the global coordinate order."""
        return np.array([self.body[b].component(name)[i, c] for b, c in self._coordinate_index()], dtype=object)

    def _initialize_interval_coordinates(self, name, trajectory, nodes):
        """``body[b].<name>`` from the trajectory's extra of that name when it has this block's
        shape (N, n), else from the midpoints of ``nodes`` (the guess's q or v)."""
        N, n = self.config.steps, self.system.n
        values = trajectory.extras.get(name)
        if values is None or np.shape(values) != (N, n):
            nodes = np.asarray(nodes, float)
            values = 0.5 * (nodes[:-1] + nodes[1:])
        for i in self.intervals:
            for idx, (b, c) in enumerate(self._coordinate_index()):
                self.body[b].component(name)[i, c].value = float(values[i][idx])

    def _add_more_multipliers(self, name):
        """One more multiplier per constraint row and interval, ``body[b].<name>`` and
        ``joint[j].<name>`` beside ``lam`` (the second half step of RATTLE, the further stages of
        Lobatto IIIA–IIIB and cG(2)); after :meth:`_add_interval_multipliers`."""
        for b in self.system.bodies:
            self.body[b].add_component(name, pyo.Var(self.intervals, self.body[b].internal, initialize=0.0))
        for j in self.system.joints:
            self.joint[j].add_component(name, pyo.Var(self.intervals, self.joint[j].rows, initialize=0.0))

    def _multiplier_array(self, name, i):
        """The multipliers ``<name>`` of interval i in the order of the active constraint rows."""
        return [owner.component(name)[i, r] for owner, r in self._constraint_index()]

    def _multiplier_values(self, name):
        """(N, m) values of the multipliers ``<name>`` (a trajectory's extra of that name)."""
        return np.array([[pyo.value(x) for x in self._multiplier_array(name, i)] for i in self.intervals])

    def _initialize_multipliers(self, name, trajectory):
        """The multipliers ``<name>`` from the trajectory's extra of that name, when it has one of
        this block's shape (N, m); otherwise left as they are."""
        values = trajectory.extras.get(name)
        index = self._constraint_index()
        if values is None or np.shape(values) != (self.config.steps, len(index)):
            return
        for i in self.intervals:
            for g, (owner, r) in enumerate(index):
                owner.component(name)[i, r].value = float(values[i][g])


    # -- hooks (numbered in the module docstring) ---------------------------------
    def _add_scheme_variables(self):
        """Hook 11 (optional): the scheme's variables beyond q, v, u, nu; none by default."""

    @abc.abstractmethod
    def _add_discrete_equations(self):  # pragma: no cover - abstract
        """Hook 12 (required): the scheme's equations, under the block's sharing."""
        raise _missing_hook(self, "_add_discrete_equations")

    # -- initial state --------------------------------------------------------
    def _fix_initial_state(self):
        """Hook 13 (optional, extend): q_0 and v_0 from the options, checked, fixed on the node
        variables, and every node started there; an override calls ``super()`` first."""
        system, config = self.system, self.config
        q0, self.theta_initial = initial_state(system, config)
        v0 = np.zeros(system.n) if config.initial_velocity is None else config.initial_velocity
        check_initial_state(system, q0, v0)
        self.q_initial, self.v_initial = np.asarray(q0, float), np.asarray(v0, float)
        lifted, velocities = self._node_variables()
        for k in self.nodes:
            for idx, (name, c) in enumerate(self._coordinate_index()):
                if lifted:
                    self.body[name].q[k, c].value = q0[idx]
                if velocities:
                    self.body[name].v[k, c].value = v0[idx]
        for idx, (name, c) in enumerate(self._coordinate_index()):
            if lifted:
                self.body[name].q[0, c].fix(q0[idx])
            if velocities:
                self.body[name].v[0, c].fix(v0[idx])
            for interval_name in getattr(self, "_interval_configurations", ()):
                for i in self.intervals:
                    self.body[name].component(interval_name)[i, c].value = q0[idx]

    def _node_variables(self):
        """Whether node configurations ``body[b].q`` and node velocities ``body[b].v`` are
        variables (rather than Expressions of the scheme's own unknowns, or absent)."""
        first = self.body[next(iter(self.system.bodies))] if self.system.bodies else None
        if first is None:
            return False, False
        is_var = lambda name: first.component(name) is not None and first.component(name).ctype is pyo.Var  # noqa: E731
        return is_var("q"), is_var("v")

    def _fix_controls(self):
        controls, system, N = self.config.controls, self.system, self.config.steps
        if controls is None:
            return
        actuated = list(system.actuated)
        if isinstance(controls, dict):
            unknown = [k for k in controls if k not in actuated]
            if unknown:
                raise ConfigurationError(
                    f"{self.scheme} block: controls on unactuated coordinates {unknown}; "
                    f"actuated coordinates are {actuated} (use system.actuate)")
            U = np.zeros((N, len(actuated)))
            for key, val in controls.items():
                U[:, actuated.index(key)] = np.broadcast_to(np.asarray(val, float), (N,))
        else:
            U = np.asarray(controls, float)
            if U.ndim == 1 and len(actuated) and U.shape == (len(actuated),):
                U = np.tile(U, (N, 1))
            if U.shape != (N, len(actuated)):
                raise ConfigurationError(
                    f"{self.scheme} block: controls must have shape ({N}, {len(actuated)}) for "
                    f"the actuated coordinates {actuated}, got {U.shape}")
        if not np.all(np.isfinite(U)):
            i, a = np.argwhere(~np.isfinite(U))[0]
            raise ConfigurationError(
                f"{self.scheme} block: controls must be finite; the control of {actuated[a]!r} on "
                f"interval {i} is {float(U[i, a])}")
        for i in self.intervals:
            for a, name in enumerate(actuated):
                for var in self.control_variables(i, name):
                    var.fix(U[i, a])

