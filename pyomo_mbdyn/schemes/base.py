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
rates) and which systems are accepted (friction, closed loops).
"""

import logging
import numbers
import sys

import numpy as np
import pyomo.environ as pyo
from pyomo.common.config import ConfigDict, ConfigValue, In, document_kwargs_from_configdict
from pyomo.core.base.block import BlockData, declare_custom_block

from ..discretization.common import interval_joint_rates, step_scalar
from ..discretization.registry import record
from ..errors import ConfigurationError, InputTypeError, LoopReductionError, MbdynError
from ..mechanics import CoordinateSystem, MultibodySystem
from ..mechanics.linalg import name_next, sharing
from ..mechanics.numeric import check_numeric
from ..mechanics.system import coordinate_names
from ..trajectory import Trajectory, column_names
from .deferred import DeferredExpression, ResidualRows
from ..simulate.stepper import check_initial_state

logger = logging.getLogger("pyomo_mbdyn.schemes")

__all__ = ["SchemeBlockData", "MultibodyBlockData", "ResidualFamily", "UniformResiduals", "declare_scheme_block",
           "coordinate_names"]

_BLOCK_KEYWORDS = {"rule", "concrete", "dense", "name", "doc", "ctype"}


def multibody_system(value):
    if not isinstance(value, (MultibodySystem, CoordinateSystem)):
        raise ValueError(f"expected a MultibodySystem or CoordinateSystem, got {type(value).__name__}")
    return value


def array_or_none(value):
    if value is None:
        return None
    check_numeric(value, "the value", "an array of numbers")
    return np.asarray(value, dtype=float)


def array_or_dict(value):
    if value is None:
        return value
    check_numeric(list(value.values()) if isinstance(value, dict) else value, "the value",
                  "an array of numbers or a dict of numbers")
    if isinstance(value, dict):
        return value
    return np.asarray(value, dtype=float)


def positive_int(value):
    """A whole number ≥ 1 (an integral float such as 40.0 is taken; bools and strings are not)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"expected a positive integer, got {type(value).__name__} {value!r}")
    if not (np.isfinite(value) and float(value).is_integer() and value >= 1):
        raise ValueError(f"expected a positive integer, got {value!r}")
    return int(value)


def positive_finite_float(value):
    """A finite number > 0 (NaN and inf are refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"expected a positive finite number, got {type(value).__name__} {value!r}")
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"expected a positive finite number, got {value!r}")
    return float(value)


def column_order(owner, trajectory, expected):
    """Where this block's columns are in ``trajectory``: ``{group: indices or None}`` for each
    ``group`` (``"coordinates"``, ``"controls"``, ``"velocities"``) of ``expected`` (a dict of
    name lists), None where the trajectory has the block's names in the block's order, else
    the trajectory's column of each of the block's names.  A trajectory whose names differ (a
    motion of another system that happens to have the same shapes) is refused by a
    :class:`ConfigurationError` naming the missing and the extra names: values would land on
    the wrong bodies."""
    order = {}
    for group, names in expected.items():
        given = list(getattr(trajectory, group))
        names = list(names)
        if given == names:
            order[group] = None
            continue
        missing = [n for n in names if n not in given]
        extra = [n for n in given if n not in names]
        if missing or extra or len(given) != len(names):
            def show(items):  # by owner: 'upper.*' (12 columns) for a whole body's coordinates
                owners = {}
                for n in items:
                    owners.setdefault(n.split(".", 1)[0], []).append(n)
                shown = [repr(ns[0]) if len(ns) == 1 else f"{o}.* ({len(ns)} columns)" for o, ns in owners.items()]
                return "[" + ", ".join(shown[:8]) + (", …" if len(shown) > 8 else "") + "]"
            system = trajectory.metadata.get("system") if isinstance(trajectory.metadata, dict) else None
            raise ConfigurationError(
                f"{owner}: initialize_from: the trajectory's {group} are not this block's: missing "
                f"{show(missing)}, extra {show(extra)}, a motion of another system"
                f"{f' ({system!r})' if system else ''}; values are matched by name, so build the guess "
                f"from this block's system")
        order[group] = [given.index(n) for n in names]
    return order


def _reordered(trajectory, order):
    """``trajectory`` with its columns in the order ``column_order`` found (itself when they
    already are).  The extras by generalised velocity (``w``, ``theta``, ``vt``) follow the
    velocities; extras by constraint row (``lam``, ``mu``, ``momentum_multipliers``) cannot be
    matched by name and are left out when the bodies or joints come in another order."""
    if all(index is None for index in order.values()):
        return trajectory

    def take(array, index):
        return array if index is None else np.asarray(array)[:, index]

    pq, pu, pn = order["coordinates"], order["controls"], order["velocities"]
    extras = {}
    for key, value in trajectory.extras.items():
        if key in ("w", "theta", "vt") and value.ndim == 2 and value.shape[1] == len(trajectory.velocities):
            extras[key] = take(value, pn)
        elif key in ("lam", "mu", "momentum_multipliers"):
            if pq is None and pn is None:
                extras[key] = value
        else:
            extras[key] = value
    return Trajectory(t=trajectory.t, q=take(trajectory.q, pq), v=take(trajectory.v, pq),
                      u=take(trajectory.u, pu), nu=take(trajectory.nu, pn),
                      coordinates=[trajectory.coordinates[i] for i in pq] if pq else trajectory.coordinates,
                      controls=[trajectory.controls[i] for i in pu] if pu else trajectory.controls,
                      velocities=[trajectory.velocities[i] for i in pn] if pn else trajectory.velocities,
                      metadata=trajectory.metadata, extras=extras, system=trajectory.system)


def guess_chart_coordinates(owner, system, trajectory, rotation, theta0=None, velocities=False, first="zero"):
    """The chart coordinates θ_k of every node of a guess (and with ``velocities`` the chart
    velocities ṽ_k), the chart inverted node by node.

    Each node is expected near ``s_k`` = the previous node's θ advanced by the guess's
    increments ``w`` when it has them (the chart differences of
    :func:`~pyomo_mbdyn.ocp.interpolated_trajectory`), ``s_0 = theta0`` (the block's θ_0).
    The inversion starts as the block always did (``first``: ``"zero"`` from θ = 0 to 1e-9,
    ``"previous"`` from the previous node to 1e-4) and keeps that result when it lies within
    π of ``s_k`` in every coordinate; otherwise (a half turn that Gauss–Newton from 0 cannot
    reach, a turn beyond π that it would drop) it inverts from ``s_k`` to 1e-4 (a guess fulfils
    the constraints only roughly).  So rotations keep their turns and a half turn is reached.
    A node reached by neither is a :class:`ConfigurationError` naming the node, the
    coordinate (body and joint) that stays off, and what to do."""
    from ..discretization import chart_coordinates

    w = trajectory.w
    if w is None or np.shape(w) != (trajectory.steps, system.n_velocities):
        w = None
    theta, rates = [], []
    for k, q in enumerate(np.asarray(trajectory.q, float)):
        expected = (None if theta0 is None else np.asarray(theta0, float)) if k == 0 else \
            theta[-1] + (w[k - 1] if w is not None else 0.0)
        v = np.asarray(trajectory.v[k], float) if velocities else None
        plain = None if first == "zero" or k == 0 else theta[-1]
        result = None
        for start, atol in ((plain, 1e-9 if first == "zero" else 1e-4), (expected, 1e-4)):
            try:
                result = chart_coordinates(system, q, v, rotation=rotation, start=start, atol=atol)
            except ValueError:
                continue
            th = result[0] if velocities else result
            if expected is None or start is expected or np.abs(np.asarray(th) - expected).max(initial=0) < np.pi:
                break
            result = None
        if result is None:
            raise ConfigurationError(_unreached_node(owner, system, trajectory, k, expected, rotation))
        th, vt = result if velocities else (result, None)
        theta.append(np.asarray(th, float))
        rates.append(vt)
    return (np.array(theta), np.array(rates)) if velocities else np.array(theta)


def _unreached_node(owner, system, trajectory, k, start, rotation):
    """Why node ``k`` of a guess is not reached by the chart: the coordinate that stays off
    (with its body and the joint that carries the body) and whether the node fulfils the joints."""
    from ..discretization import chart, chart_coordinates

    q = np.asarray(trajectory.q[k], float)
    theta = chart_coordinates(system, q, rotation=rotation, start=start, atol=np.inf)
    off = np.abs(np.asarray(chart(system, theta, rotation), float) - q)
    i = int(np.argmax(off))
    name = column_names(system)[0][i]
    body = name.split(".", 1)[0]
    joints = [j.name for j in getattr(system, "joints", {}).values() if getattr(j.child, "name", None) == body]
    carried = f"body {body!r}" + (f", joint {joints[0]!r}" if joints else "")
    phi = np.abs(np.asarray(system.constraints(q), float)).max(initial=0.0)
    if phi > 1e-4:
        why = (f"the node violates the joints (max |Φ(q)| = {phi:.3g}): the guess is not a configuration of "
               f"{system}; build it with pyomo_mbdyn.ocp.interpolated_trajectory (nodes q(θ_k) on the joints), "
               "or from a solved or simulated trajectory of this system")
    else:
        why = (f"the node fulfils the joints, so it lies further from node {k - 1} than the chart can follow "
               "(a rotation by about π or more in one step): use more steps, or give the guess its chart "
               "coordinates (the extras 'theta' of a gc trajectory, or the increments 'w' of "
               "pyomo_mbdyn.ocp.interpolated_trajectory)" if k else
               "the node fulfils the joints but is not reached from θ = 0")
    return (f"{owner}: initialize_from: node {k} (t = {float(trajectory.t[k]):g}) of the guess is not reached "
            f"by the chart of {system}: |q(θ) - q| = {off[i]:.3g} at {name!r} ({carried}); {why}")


def horizon_bounds(value):
    """``(lower, upper)`` with 0 < lower < upper < inf, or None."""
    if value is None:
        return None
    check_numeric(value, "free_horizon", "a pair (lower, upper) of final times")
    try:
        lower, upper = (float(x) for x in value)
    except (TypeError, ValueError):
        raise ValueError(f"free_horizon must be a pair (lower, upper) of final times, got {value!r}") from None
    if not (0.0 < lower < upper < np.inf):
        raise ValueError(f"free_horizon must satisfy 0 < lower < upper < inf, got {value!r}")
    return lower, upper


def grid_config(name="scheme", system=multibody_system, system_doc="The MultibodySystem.", min_steps=1):
    """The options every scheme block accepts: the system and the grid."""
    config = ConfigDict(description=name, implicit=False)
    config.declare("system", ConfigValue(domain=system, description=system_doc))
    config.declare("steps", ConfigValue(domain=positive_int, description=f"Number of time steps N (≥ {min_steps})."))
    config.declare("horizon", ConfigValue(
        domain=positive_finite_float, description="Final time T > 0 (with free_horizon: its initial value)."))
    return config


def declare_free_horizon(config):
    """Add the ``free_horizon`` option (the final time as a decision variable) to a block's CONFIG."""
    config.declare("free_horizon", ConfigValue(
        default=None, domain=horizon_bounds,
        description="(lower, upper): the final time T is a variable ``final_time`` within these bounds, "
                    "started at ``horizon``, and the step ``h = T/N`` a named Expression; the discrete "
                    "equations keep their form with h unknown.  Default None: T fixed at ``horizon``."))
    return config


def multibody_config():
    """The options of every block on a MultibodySystem."""
    config = declare_free_horizon(grid_config())
    config.declare("initial_configuration", ConfigValue(
        default=None, domain=array_or_none, description="q(0); default the system's reference configuration."))
    config.declare("initial_velocity", ConfigValue(
        default=None, domain=array_or_none, description="v(0) = P(q0) ν0; default rest."))
    config.declare("controls", ConfigValue(
        default=None, domain=array_or_dict,
        description="Fix the controls (forward simulation): an (N, n_act) array, or a dict "
                    "{actuated coordinate: value or N values}.  Default: free variables."))
    return config


def declare_rotation(config):
    """Add the ``rotation`` option (reparametrisation and chart) to a block's CONFIG."""
    config.declare("rotation", ConfigValue(
        default="exp", domain=In(["exp", "cayley"]), description="Rotation map of the reparametrisation."))
    return config


def check_options(data_class, options):
    """The block's ``CONFIG`` filled with ``options``, or a :class:`ConfigurationError`
    naming the scheme, the option and the bad value in the domain's own words (an
    option the scheme does not take lists the ones it does)."""
    scheme = data_class.scheme
    config = data_class.CONFIG()
    unknown = sorted(set(options) - set(config.keys()))
    if unknown:
        raise ConfigurationError(
            f"{scheme} block: the {scheme} scheme takes no option {unknown[0]!r}; its options "
            f"are {list(config.keys())} (help({data_class.__name__.replace('Data', '')}) describes them)")
    for key, value in options.items():
        default = config.get(key).value()
        if isinstance(value, bool) and isinstance(default, (int, float)) and not isinstance(default, bool):
            raise ConfigurationError(f"{scheme} block: option {key!r} must be a number, got {value!r}")
        try:
            config[key] = value
        except (ValueError, TypeError, OverflowError) as err:  # Pyomo's "Failed casting …": its reason only
            reason = " ".join(str(err).split())
            reason = reason.rpartition("Error: ")[2] or reason
            if repr(value) not in reason:
                reason += f" (got {value!r})"
            raise ConfigurationError(f"{scheme} block: option {key!r}: {reason}") from None
    return config


def declare_scheme_block(name):
    """``declare_custom_block`` that routes keywords into the block's CONFIG.

    ``BEMBlock(system=s, steps=40, horizon=2.0)`` then calls ``build(**config)``
    on every block data (as IDAES's ``ProcessBlock`` does with its keywords).
    """

    def decorator(data_class):
        declare_custom_block(name=name)(data_class)
        component = getattr(sys.modules[data_class.__module__], name)
        base_init = component.__init__

        def __init__(self, *args, **kwargs):
            options = {k: kwargs.pop(k) for k in list(kwargs) if k not in _BLOCK_KEYWORDS}
            # refused here, before Pyomo constructs the block (and logs its own ERROR line)
            check_options(data_class, options)
            if "rule" not in kwargs:
                kwargs["rule"] = lambda block, *index: block.build(**options)
            base_init(self, *args, **kwargs)

        component.__init__ = __init__
        document_kwargs_from_configdict("CONFIG")(data_class)
        component.__doc__ = data_class.__doc__
        component.CONFIG = data_class.CONFIG  # the options, readable from the component class
        return data_class

    return decorator


class ResidualFamily(dict):
    """The residuals of one formula at every key: ``family[k] = residual(*arguments(k))``.

    ``arguments(k)`` returns the formula's arguments at key ``k`` (arrays of
    Pyomo variables or expressions, or None), ``residual`` is the
    discretisation layer's function (a dict of residual groups).  The
    ``_add_*_equations`` helpers record in ``rows[k]`` which Constraint states
    which entry: ``(group, position, ConstraintData)``.

    The arguments are gathered at once; a key's residuals are computed when
    first asked for (``family[k]``: by a row's expression being built, see
    :mod:`pyomo_mbdyn.schemes.deferred`), so that a solver path that evaluates the
    formula as a compiled Function never pays for the Pyomo expressions.
    ``evaluate(args)`` computes one key's residuals; by default
    ``residual(*args)`` on the Pyomo arguments, but a block passes the replay
    of the formula's CasADi Function (see ``MultibodyBlockData._residuals``).
    """

    def __init__(self, name, keys, arguments, residual, evaluate=None, sharer=None):
        super().__init__()
        self.name, self.residual, self.arguments, self.rows = name, residual, {}, {}
        self._evaluate = (lambda args: residual(*args)) if evaluate is None else evaluate
        self._sharer = sharer
        for k in keys:
            self.arguments[k] = arguments(k)

    def __missing__(self, k):
        if k not in self.arguments:
            raise KeyError(k)
        if self._sharer is None:
            value = self._evaluate(self.arguments[k])
        else:  # values used twice become the block's named Expressions, as while it was built
            with sharing(self._sharer):
                value = self._evaluate(self.arguments[k])
        self[k] = value
        return value


def _signature(args):
    return tuple(None if a is None else len(a) for a in args)


def _record_rows(residuals, group, con, locate):
    """Note in ``residuals.rows`` the constraint data stating each entry (``locate(*index)`` →
    ``(key, position)``)."""
    if not isinstance(residuals, ResidualFamily):
        return
    for index, data in con.items():
        key, position = locate(*index)
        residuals.rows.setdefault(key, []).append((group, position, data))


class UniformResiduals:
    """One CasADi ``Function`` ``r = F(z)`` stated at many keys (intervals or nodes).

    ``inputs[i]`` are the Pyomo variables or expressions that make up ``z`` at
    the i-th key, ``rows[i]`` the Constraints that state ``r = 0`` there, built
    from the same formula.  A solver may evaluate ``F`` mapped over the keys
    instead of walking the rows' expressions
    (:mod:`pyomo_mbdyn.solvers.pyomo_to_casadi`); it must check that each row is
    still active and :meth:`unchanged`.
    """

    def __init__(self, function, keys, inputs, rows, expected):
        self.function, self.keys, self.inputs, self.rows = function, keys, inputs, rows
        self._expected = expected

    def unchanged(self, i):
        """True if every row of the i-th key still states the block's residual = 0:
        not built yet (:func:`~pyomo_mbdyn.schemes.deferred.is_deferred`), or built and
        with the very body the block made (a user's ``set_value`` replaces it)."""
        from .deferred import is_deferred

        rows = self.rows[i]
        if all(is_deferred(c) for c in rows):
            return True
        expected = self._expected(i)
        return all(is_deferred(c) or c.body is e for c, e in zip(rows, expected))

    def __repr__(self):
        return f"UniformResiduals({self.function.name()}, {len(self.keys)} keys, " \
               f"{self.function.size1_in(0)} inputs, {self.function.size1_out(0)} rows)"


INTERNAL_NAMES = ["d1.d1", "d2.d2", "d3.d3", "d1.d2", "d1.d3", "d2.d3"]


class SchemeBlockData(BlockData):
    """Base of every scheme block (see the module docstring).

    Subclasses set ``scheme`` (the registry name) and ``CONFIG``, and implement
    ``_build()``, ``trajectory()``, ``diagnostics()`` and ``initialize_from()``.

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

    scheme = None
    CONFIG = grid_config()
    #: options that must be given
    required = ("system", "steps", "horizon")

    def build(self, **options):
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

    def _value_fingerprint(self):
        """A hash of the current values of the block's variables."""
        return hash(tuple(v.value for v in self.component_data_objects(pyo.Var, descend_into=True)))

    @property
    def never_solved(self):
        """True while the block holds exactly the values it was built with and its model
        has no solver solution loaded: nothing (a solver, ``initialize_from``, a user)
        has set its variables since construction.  :meth:`Trajectory.from_block
        <pyomo_mbdyn.trajectory.Trajectory.from_block>` refuses such a block unless asked."""
        fingerprint = getattr(self, "_built_fingerprint", None)
        solutions = getattr(getattr(self.model(), "solutions", None), "solutions", ())
        if fingerprint is None or len(solutions):
            return False
        return self._value_fingerprint() == fingerprint

    @property
    def record(self):
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
    def free_horizon(self):
        """Whether the final time is a variable (``final_time``; see :meth:`_grid`)."""
        return isinstance(self.component("final_time"), pyo.Var)

    @property
    def step_length(self):
        """The step h as a float (the current value of ``final_time``/N when T is free)."""
        return float(pyo.value(self.h))

    @property
    def final_time_value(self):
        """The final time T = N h as a float."""
        return self.step_length * self.config.steps

    def _share(self, expr):
        return name_next(self.shared_terms, expr)

    def _metadata(self):
        out = {"model": self.model().name, "system": self.system.name, "scheme": self.scheme,
               "steps": int(self.config.steps), "horizon": float(self.config.horizon), "h": self.step_length}
        if self.free_horizon:  # the final time reached, and its bounds
            out.update(horizon=self.final_time_value, free_horizon=list(self.config.free_horizon))
        return out

    def _build(self):  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement _build")

    def trajectory(self):  # pragma: no cover - abstract
        """The current variable values as a :class:`~pyomo_mbdyn.trajectory.Trajectory`."""
        raise NotImplementedError(f"{type(self).__name__} must implement trajectory")

    def diagnostics(self):
        """Per-node conservation table (see :mod:`pyomo_mbdyn.diagnostics`)."""
        from ..diagnostics import conservation_table

        tr = self.trajectory()
        return conservation_table(self.system, self.step_length, tr.q, tr.v, tr.nu, tr.u)


class MultibodyBlockData(SchemeBlockData):
    """Base of the scheme blocks on a MultibodySystem (see the module docstring).

    Hooks for subclasses
    --------------------
    ``_add_scheme_variables()``   variables beyond q, v, u, nu
    ``_add_discrete_equations()`` the scheme's equations

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
    def uses_velocities(self):
        """Node velocities ``body[b].v`` are variables (the record's ``velocities_at_nodes``)."""
        return self.record.velocities_at_nodes

    @property
    def configurations(self):
        """How node configurations are stated: ``"lifted"`` (variables) unless the block says otherwise."""
        return self.config.configurations if "configurations" in self.config else "lifted"

    #: the :class:`~pyomo_mbdyn.schemes.configuration_forms.ConfigurationForm` of the block's unknowns
    CONFIGURATION_FORM = None
    #: how the block states rest at t_N (a :class:`~pyomo_mbdyn.schemes.final_rest.FinalRest`)
    FINAL_REST = None

    @property
    def configuration_form(self):
        """How the block's unknowns carry the joint coordinates (chart, increments or nodes;
        :mod:`pyomo_mbdyn.schemes.configuration_forms`): what the problem statements compose."""
        return self.CONFIGURATION_FORM(self)

    @property
    def final_configuration_form(self):
        """The name of :attr:`configuration_form` (one of the record's ``final_configuration``)."""
        return self.configuration_form.name

    @property
    def final_rest(self):
        """How the block states rest at t_N (:mod:`pyomo_mbdyn.schemes.final_rest`)."""
        return self.FINAL_REST(self)

    @property
    def final_configuration_target(self):
        """The joint coordinates θ_N stated by :meth:`state_final_configuration` (None before)."""
        return getattr(self, "_final_configuration_target", None)

    def state_final_configuration(self, theta, problem):
        """θ_N = ``theta`` in the block's :attr:`configuration_form`, rows on ``problem.block``;
        once per block (a second target would override or contradict the first)."""
        if self.final_configuration_target is not None:
            raise ConfigurationError(
                f"fix_final_configuration: the final configuration of the {self.scheme} block {self.name!r} is "
                f"already fixed (θ = {self.final_configuration_target}); a second call would override or "
                f"contradict it — build a new problem (and block) for another target")
        self.configuration_form.state_final_configuration(theta, problem)
        self._final_configuration_target = [float(x) for x in theta]

    def state_final_rest(self, rows, keep, reduced=True, form=None):
        """Rest at t_N for the generalised velocities ``keep`` as the block's :attr:`final_rest`
        states it, rows added to ``rows``; once per block (twice would repeat rows: LICQ fails)."""
        if getattr(self, "_final_rest_required", False):
            raise ConfigurationError(f"require_final_rest: already required on the {self.scheme} block "
                                     f"{self.name!r}; the rows would be stated twice (redundant, LICQ fails)")
        self.final_rest.state(rows, keep, reduced=reduced, form=form)
        self._final_rest_required = True

    @property
    def rotation(self):
        return self.config.rotation if "rotation" in self.config else "exp"

    @property
    def contravariant(self):
        return self.config.contravariant if "contravariant" in self.config else True

    def _check_system(self):
        system, rec = self.system, self.record
        if not isinstance(system, (MultibodySystem, CoordinateSystem)):
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

    # -- arrays of variables in the system's global ordering ---------------------
    def q_array(self, k):
        return np.array([v for name in self.system.bodies for v in
                         (self.body[name].q[k, c] for c in self.body[name].coordinates)], dtype=object)

    def v_array(self, k):
        return np.array([v for name in self.system.bodies for v in
                         (self.body[name].v[k, c] for c in self.body[name].coordinates)], dtype=object)

    def u_array(self, i):
        return np.array([self.u[i, a] for a in self.actuated], dtype=object)

    def nu_array(self, i):
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
        dropped = set(getattr(self.system, "dropped_constraints", ()))
        return [r for r in rows if f"{name}[{r}]" not in dropped]

    @property
    def reduced_coordinates(self):
        """The index set of the reduced rows (REM momentum balance, DMOCC momentum matching):
        ``velocities`` for a tree, ``independent`` for loops."""
        return self.independent if self.component("independent") is not None else self.velocities

    @property
    def dropped_constraints(self):
        """Labels of the redundant loop rows left out of this block (empty for a tree)."""
        return list(getattr(self.system, "dropped_constraints", ()))

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

    def _residuals(self, name, keys, arguments, residual, replayed=False, timed=True):
        """``{k: residual(h, *arguments(k))}`` for every key ``k`` (interval or node) as a
        :class:`ResidualFamily`, which the ``_add_*_equations`` helpers turn into
        Constraints and which :meth:`uniform_residuals` offers to solvers.

        ``h`` is the step: the float T/N for a fixed horizon (a constant of the
        compiled formula), or with a free horizon the named Expression
        ``final_time``/N, passed as one more argument of every key (``timed=False``:
        a formula without h, called as ``residual(*arguments(k))``).

        ``replayed=True`` builds the Pyomo expressions by replaying the formula's
        CasADi Function (:meth:`_replayed`).  It pays where the formula is costly to
        trace through Pyomo's operators (the chart's Taylor jets: GC builds 3–5×
        faster) but shares every work value CasADi uses twice as a named
        Expression, which some AMPL solvers handle badly (pyomo-ripopt on the
        replayed satellite DMOCC: 21 GB instead of 3 GB), so it is opt-in."""
        if timed and self.free_horizon:
            # h enters as an argument; the keys are built by replaying the formula, whose
            # trace sees h as a scalar symbol (Pyomo's operators would turn a one-entry
            # array times an expression into a scalar: the one-dof reduced rows)
            replayed = True
            step = np.array([self.h], dtype=object)
            arguments = (lambda given: lambda k: (step,) + tuple(given(k)))(arguments)
            residual = (lambda given: lambda h, *args: given(step_scalar(h[0]), *args))(residual)
        elif timed:
            residual = (lambda given, h: lambda *args: given(h, *args))(residual, float(self.h))
        evaluate = (lambda args: self._replayed(name, residual, args)) if replayed else None
        family = ResidualFamily(name, keys, arguments, residual, evaluate, sharer=self._share)
        self._families.append(family)
        return family

    def _replayed(self, name, residual, args):
        """One key's residuals, built by replaying the formula's CasADi Function on the
        Pyomo arguments (:func:`~pyomo_mbdyn.mechanics.replay.replay`): the formula is
        traced once per signature, and every key costs one Pyomo node per CasADi
        instruction instead of a fresh trace of the formula through Pyomo's
        operators (5–10× faster builds for the chart-based schemes).  Falls back to
        ``residual(*args)`` for a formula with operations the replay cannot map."""
        from ..mechanics.replay import replay

        formula = self._formula(name, residual, _signature(args))
        if formula is None:
            return residual(*args)
        fun, groups = formula
        z = np.array([x for a in args if a is not None for x in a], dtype=object)
        try:
            outputs = replay(fun, [z])
        except NotImplementedError:
            return residual(*args)
        return dict(zip(groups, outputs))

    def _cache_key(self, kind, name, signature):
        """Key of a compiled formula: everything in the block's options that can reach
        its equations (all but the system, which keys the cache, and fixed controls)."""
        free = self.free_horizon  # then h is an argument of the formula, and horizon only a start value
        skip = ("system", "controls") + (("horizon",) if free else ())
        options = tuple((k, repr(v)) for k, v in self.config.items() if k not in skip)
        return (kind, type(self).__name__, name, "free" if free else float(self.h), options, signature)

    def _formula(self, name, residual, sizes):
        """``(Function z ↦ residual groups, group names)`` of a formula at one signature,
        cached per system, grid and options; None when the residuals are not arrays."""
        import casadi

        from ..discretization.common import compiled_function, symbols

        key = self._cache_key("formula", name, sizes)

        def build():
            args, columns = [], []
            for i, size in enumerate(sizes):
                if size is None:
                    args.append(None)
                    continue
                column, entries = symbols(f"a{i}", size)
                args.append(entries)
                columns.append(column)
            res = residual(*args)
            groups = [g for g, value in res.items() if isinstance(value, (np.ndarray, list, tuple))]
            outputs = [casadi.densify(casadi.vertcat(*[casadi.SX(e) for e in res[g]])) if len(res[g])
                       else casadi.SX(0, 1) for g in groups]
            z = casadi.vertcat(*columns) if columns else casadi.SX(0, 1)
            return casadi.Function(f"{self.scheme}_{name}", [z], outputs), groups

        return compiled_function(self.system, key, build)

    def _add_coordinate_equations(self, group, residuals, index_set=None):
        """``body[b].<group>[k, c]``: the entries of ``residuals[k][group]`` (length n)."""
        index_set = self.intervals if index_set is None else index_set
        where = {key: g for g, key in enumerate(self._coordinate_index())}
        for name in self.system.bodies:
            blk = self.body[name]
            con = ResidualRows(index_set, blk.coordinates,
                               residual=lambda b, k, c, name=name: residuals[k][group][where[name, c]])
            blk.add_component(group, con)
            _record_rows(residuals, group, con, lambda k, c, name=name: (k, where[name, c]))

    def _add_velocity_equations(self, group, residuals, index_set=None):
        """``<group>[k, j]`` over the generalised velocities (length dof), or ``index_set``
        (``reduced_coordinates`` for the reduced rows)."""
        index_set = self.velocities if index_set is None else index_set
        index = {j: n for n, j in enumerate(index_set)}
        con = ResidualRows(self.intervals, index_set, residual=lambda b, k, j: residuals[k][group][index[j]])
        self.add_component(group, con)
        _record_rows(residuals, group, con, lambda k, j: (k, index[j]))

    def _add_loop_closure_equations(self, residuals):
        """``joint[j].loop_closure[k, r]``: the kept rows of the loop-closing joints at q_{k+1}
        (``residuals[k]["loop_closure"]``, reduced schemes on loops; none for a tree)."""
        if not self.system.has_loops:
            return
        labels = self.system.constraint_labels()
        rows = [labels[i] for i in self.system.loop_reduction.loop_rows]
        for jname in self.system.layout["loop_joints"]:
            mine = {int(label[len(jname) + 1:-1]): p for p, label in enumerate(rows)
                    if label.rsplit("[", 1)[0] == jname}
            if not mine:
                continue
            blk = self.joint[jname]
            con = ResidualRows(self.intervals, sorted(mine),
                               residual=lambda b, k, r, mine=mine: residuals[k]["loop_closure"][mine[r]])
            blk.add_component("loop_closure", con)
            _record_rows(residuals, "loop_closure", con, lambda k, r, mine=mine: (k, mine[r]))

    def _add_constraint_equations(self, residuals, group="constraint",
                                  names=("internal_constraint", "joint_constraint")):
        """Rows per constraint at nodes k = 1..N: by default Φ(q_k) = 0 as
        ``body[b].internal_constraint`` and ``joint[j].joint_constraint``
        (``residuals[k - 1][group]`` in the order of ``constraint_labels``)."""
        row_of = {(id(owner), r): g for g, (owner, r) in enumerate(self._constraint_index())}
        steps = pyo.RangeSet(1, self.config.steps)
        rule = lambda b, k, r: residuals[k - 1][group][row_of[id(b), r]]  # noqa: E731
        for owners, name in ((self.system.bodies, names[0]), (self.system.joints, names[1])):
            for owner in owners:
                blk = (self.body if owners is self.system.bodies else self.joint)[owner]
                con = ResidualRows(steps, blk.internal if name == names[0] else blk.rows, residual=rule)
                blk.add_component(name, con)
                _record_rows(residuals, group, con, lambda k, r, blk=blk: (k - 1, row_of[id(blk), r]))

    # -- the same equations at every interval ------------------------------------
    def uniform_residuals(self):
        """The block's equations as :class:`UniformResiduals`: per residual family
        and per argument signature, one CasADi Function of one key's arguments
        (built once per system, grid and options, and reused by later solves),
        with the inputs and rows of every key that shares the signature.

        Keys whose arguments or rows differ from the others (the first DMOCC
        interval, with its initial-momentum condition) form their own group;
        groups with a single key are left to the solver's generic walk.
        """
        out = []
        for family in getattr(self, "_families", ()):
            groups = {}
            for k, args in family.arguments.items():
                rows = family.rows.get(k)
                if not rows:
                    continue
                signature = (tuple(None if a is None else len(a) for a in args),
                             tuple((g, p) for g, p, _ in rows))
                groups.setdefault(signature, []).append(k)
            for signature, keys in groups.items():
                if len(keys) < 2:
                    continue
                function = self._uniform_function(family, signature)
                if function is None:
                    continue
                inputs = [[x for a in family.arguments[k] if a is not None for x in a] for k in keys]
                rows = [[data for _, _, data in family.rows[k]] for k in keys]
                expected = (lambda family, keys: lambda i: [family[keys[i]][g][p] for g, p, _ in
                                                            family.rows[keys[i]]])(family, keys)
                out.append(UniformResiduals(function, keys, inputs, rows, expected))
        return out

    def _uniform_function(self, family, signature):
        """``F(z)``: the family's residual on CasADi symbols (cached per system, see
        :func:`~pyomo_mbdyn.discretization.common.compiled_function`)."""
        import casadi

        from ..discretization.common import compiled_function

        sizes, entries = signature
        key = self._cache_key("uniform", family.name, signature)
        formula = self._formula(family.name, family.residual, sizes)

        def build():
            fun, groups = formula
            z = casadi.SX.sym("z", fun.size1_in(0))
            outputs = dict(zip(groups, fun.call([z])))
            r = casadi.vertcat(*[outputs[g][p] for g, p in entries])
            return casadi.Function(f"{self.scheme}_{family.name}", [z], [r], ["z"], ["r"])

        return compiled_function(self.system, key, build)

    # -- hooks ----------------------------------------------------------------
    def _add_scheme_variables(self):
        pass

    def _add_discrete_equations(self):  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement _add_discrete_equations")

    # -- initial state --------------------------------------------------------
    def _fix_initial_state(self):
        system, config = self.system, self.config
        q0 = system.q0 if config.initial_configuration is None else config.initial_configuration
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
                self.u[i, name].fix(U[i, a])

    # -- results ------------------------------------------------------------
    def configuration_values(self):
        """Node configurations (N+1, n) as floats from the current variable values."""
        return np.array([[pyo.value(x) for x in self.q_array(k)] for k in self.nodes], dtype=float)

    def velocity_values(self):
        """Node velocities (N+1, n) as floats from the current variable values (blocks
        with velocity variables)."""
        return np.array([[pyo.value(x) for x in self.v_array(k)] for k in self.nodes], dtype=float)

    def trajectory(self):
        """The current values as a :class:`~pyomo_mbdyn.trajectory.Trajectory`: node
        configurations and velocities (recovered where the scheme has no velocity
        variables), interval controls and joint rates, the scheme's own unknowns
        as extras (``lam``, ``w``, ``theta``, …) and the run's metadata."""
        N = self.config.steps
        q = self.configuration_values()
        u = np.array([[pyo.value(x) for x in self.u_array(i)] for i in self.intervals]).reshape(N, -1)
        if self.uses_velocities:
            v = self.velocity_values()
        else:
            v = self._recover_velocities(q, u)
        if self.record.joint_rates:
            nu = np.array([[pyo.value(x) for x in self.nu_array(i)] for i in self.intervals]).reshape(N, -1)
        else:
            nu = self._recover_joint_rates(q)
        return Trajectory.of_system(self.system, self.step_length * np.arange(N + 1), q, v, u, nu, self._metadata(),
                                    **self._extras())

    def _extras(self):
        """The scheme's own unknowns by name (multipliers ``lam``, increments ``w``, chart ``theta``)."""
        out = {}
        if self.system.bodies and self.body[next(iter(self.system.bodies))].component("lam") is not None:
            out["lam"] = np.array([[pyo.value(x) for x in self._lam_array(i)] for i in self.intervals])
        for name, index in (("w", self.intervals), ("theta", self.nodes), ("vt", self.nodes)):
            if self.component(name) is not None:
                values = self.component(name)
                out[name] = np.array([[pyo.value(values[k, j]) for j in self.velocities] for k in index])
        dual = self.model().component("dual")
        if (self.record.multipliers and isinstance(dual, pyo.Suffix) and dual.import_enabled()
                and self.momentum_rows(0)[0] in dual):
            out["momentum_multipliers"] = self.momentum_multiplier_values(dual)
        return out

    def momentum_rows(self, i):
        """The momentum-balance rows of interval i: one per coordinate (record ``multipliers``
        ``"redundant"``: bem, ``body[b].momentum_balance[i, c]``) or per generalised velocity
        (``"reduced"``, ``"chart"``: rem, gc, ``momentum_balance[i, j]``)."""
        if self.record.multipliers == "redundant":
            return [self.body[b].momentum_balance[i, c] for b, c in self._coordinate_index()]
        return [self.momentum_balance[i, j] for j in self.reduced_coordinates]

    def momentum_multiplier_values(self, dual):
        """λ^p = -dual of the momentum rows per interval, (N, n) or (N, dof): the multipliers of
        the Lagrangian J + Σ λ·g with every row g as the block states it
        (:mod:`pyomo_mbdyn.ocp.multipliers` states the convention and reads them with checks).
        A row without a dual value gives NaN."""
        return np.array([[-dual[row] if row in dual else np.nan for row in self.momentum_rows(i)]
                         for i in self.intervals], dtype=float)

    def _recover_velocities(self, q, u):
        """Hook for schemes without velocity variables: v from q and u."""
        raise NotImplementedError

    def _recover_joint_rates(self, q):
        """ν_{k,k+1} = P(q_{k+½})⁺ (q_{k+1} - q_k)/h for schemes without joint-rate variables."""
        return interval_joint_rates(self.system, q, self.step_length)

    def initialize_from(self, trajectory):
        """Set variable values from a simulated trajectory of the same grid (and, with a
        free horizon, the final time from the trajectory's last node time).

        The trajectory must be one of this system on this grid (N+1 nodes of n
        coordinates, N intervals of the actuated coordinates) with finite values
        wherever they are read; otherwise a :class:`ConfigurationError` names the
        array, its shape or the first bad entry, and no variable is changed."""
        lifted, velocities = self._node_variables()
        trajectory = self._check_guess(trajectory, {"q": lifted, "v": velocities, "u": True,
                                                    "nu": self.record.joint_rates})
        if self.free_horizon and trajectory.t is not None and len(trajectory.t) == self.config.steps + 1:
            self.final_time.set_value(float(trajectory.t[-1]), skip_validation=True)
        for k in self.nodes:
            for idx, (name, c) in enumerate(self._coordinate_index()):
                if lifted and not self.body[name].q[k, c].fixed:
                    self.body[name].q[k, c].value = trajectory.q[k, idx]
                if velocities and not self.body[name].v[k, c].fixed:
                    self.body[name].v[k, c].value = trajectory.v[k, idx]
        for i in self.intervals:
            for j, name in enumerate(self.velocities):
                if self.record.joint_rates:
                    self.nu[i, name].value = trajectory.nu[i, j]
            for a, name in enumerate(self.actuated):
                if not self.u[i, name].fixed:  # a guess may lie beyond torque bounds: the solver moves it inside
                    self.u[i, name].set_value(trajectory.u[i, a], skip_validation=True)
        self._initialize_scheme(trajectory)

    def _check_guess(self, trajectory, used):
        """Refuse a guess that is not a Trajectory of this block's grid and system, or has NaN/inf
        where it is read; return it with its columns in this block's order (matched by name)."""
        if not isinstance(trajectory, Trajectory):
            raise InputTypeError(f"{self.scheme} block {self.name!r}: initialize_from needs a Trajectory "
                                 "(simulate(...), dyn.trajectory(), results.load(...)), "
                                 f"got {type(trajectory).__name__}")
        N, system = self.config.steps, self.system
        expected = {"q": (N + 1, system.n), "v": (N + 1, system.n), "u": (N, len(self.actuated)),
                    "nu": (N, len(self.velocities))}
        for name, shape in expected.items():
            array = getattr(trajectory, name)
            if not used[name] and name != "q":
                continue
            if array.shape != shape:
                raise ConfigurationError(
                    f"{self.scheme} block {self.name!r}: initialize_from: the trajectory's {name} has shape "
                    f"{array.shape}, this block needs {shape} (N = {N} steps, n = {system.n} coordinates, "
                    f"{len(self.actuated)} controls): a trajectory of another grid or system")
            if used[name] and not np.all(np.isfinite(array)):
                row, col = np.argwhere(~np.isfinite(array))[0]
                names = {"q": trajectory.coordinates, "v": trajectory.coordinates, "u": trajectory.controls,
                         "nu": trajectory.velocities}[name]
                label = names[col] if col < len(names) else col
                raise ConfigurationError(
                    f"{self.scheme} block {self.name!r}: initialize_from: the trajectory's {name}[{row}, {label!r}] "
                    f"is {array[row, col].item()!r}; a guess must be finite where the block reads it")
        coordinates, controls, velocities = column_names(system)
        order = column_order(f"{self.scheme} block {self.name!r}", trajectory,
                             {"coordinates": coordinates, "controls": controls, "velocities": velocities})
        return _reordered(trajectory, order)

    def _initialize_scheme(self, trajectory):
        """Hook: set the scheme's own variables (multipliers, increments) from a trajectory."""
        if trajectory.lam is not None and self.system.bodies and \
                self.body[next(iter(self.system.bodies))].component("lam") is not None:
            for i in self.intervals:
                for g, (owner, r) in enumerate(self._constraint_index()):
                    owner.lam[i, r].value = trajectory.lam[i, g]
        if trajectory.w is not None and self.component("w") is not None and self.w.ctype is pyo.Var:
            for i in self.intervals:
                for j, name in enumerate(self.velocities):
                    # a guess may step beyond increment bounds; the solver moves it inside
                    self.w[i, name].set_value(trajectory.w[i, j], skip_validation=True)
