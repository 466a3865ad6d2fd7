"""The shared part of all scheme blocks: time grid, bodies, joints, controls.

A scheme block is a Pyomo block for one :class:`MultibodySystem` on a uniform
grid ``t_k = k h``, ``k = 0..N``, ``h = T/N``.  It contains

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

Subclasses set ``scheme`` and implement the hook ``_add_discrete_equations()``;
``build()`` reads as the recipe below.
"""

import logging
import sys

import numpy as np
import pyomo.environ as pyo
from pyomo.common.config import Bool, ConfigDict, ConfigValue, In, PositiveFloat, PositiveInt
from pyomo.core.base.block import BlockData, declare_custom_block

from ..errors import ConfigurationError
from ..mechanics import CoordinateSystem, MultibodySystem
from ..mechanics.linalg import sharing
from ..simulate.stepper import check_initial_state

logger = logging.getLogger("pyomo_mbdyn.schemes")

__all__ = ["SchemeBlockData", "declare_scheme_block", "coordinate_names", "SCHEME_CONFIG"]

_BLOCK_KEYWORDS = {"rule", "concrete", "dense", "name", "doc", "ctype"}


def _system(value):
    if not isinstance(value, (MultibodySystem, CoordinateSystem)):
        raise ValueError(f"expected a MultibodySystem or CoordinateSystem, got {type(value).__name__}")
    return value


def _optional_array(value):
    return None if value is None else np.asarray(value, dtype=float)


def _controls(value):
    if value is None or isinstance(value, dict):
        return value
    return np.asarray(value, dtype=float)


def scheme_config():
    """The options every scheme block accepts."""
    config = ConfigDict("scheme", implicit=False)
    config.declare("system", ConfigValue(domain=_system, description="The MultibodySystem."))
    config.declare("steps", ConfigValue(domain=PositiveInt, description="Number of time steps N (≥ 1)."))
    config.declare("horizon", ConfigValue(domain=PositiveFloat, description="Final time T > 0."))
    config.declare("initial_configuration", ConfigValue(
        default=None, domain=_optional_array, description="q(0); default the system's reference configuration."))
    config.declare("initial_velocity", ConfigValue(
        default=None, domain=_optional_array, description="v(0) = P(q0) ν0; default rest."))
    config.declare("controls", ConfigValue(
        default=None, domain=_controls,
        description="Fix the controls (forward simulation): an (N, n_act) array, or a dict "
                    "{actuated coordinate: value or N values}.  Default: free variables."))
    config.declare("contravariant", ConfigValue(
        default=True, domain=Bool, description="Use B(q♯) (True) or the plain-midpoint B (False)."))
    config.declare("configurations", ConfigValue(
        default="lifted", domain=In(["lifted", "minimal", "absolute"]),
        description="Node configurations as variables with reparametrisation equations "
                    "('lifted': sparse, linear in N), as nested expressions "
                    "q_{k+1} = F(w_k, q_k) ('minimal': the DMOCC paper's relative form), or "
                    "as q_k = F(θ_k, q_ref) of node chart coordinates θ_k ('absolute': the "
                    "paper's absolute reparametrisation, sparse; rotations below 2π from the "
                    "reference).  'minimal' and 'absolute' are offered by dmocc only."))
    config.declare("rotation", ConfigValue(
        default="exp", domain=In(["exp", "cayley"]), description="Rotation map of the reparametrisation."))
    return config


SCHEME_CONFIG = scheme_config()


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
            if "rule" not in kwargs:
                kwargs["rule"] = lambda block, *index: block.build(**options)
            base_init(self, *args, **kwargs)

        component.__init__ = __init__
        component.__doc__ = data_class.__doc__
        return data_class

    return decorator


def coordinate_names(body):
    if hasattr(body, "coordinate_names"):  # a CoordinateGroup names its own
        return list(body.coordinate_names)
    names = ["x", "y", "z"]
    if body.has_orientation:
        names += [f"d{i}{c}" for i in (1, 2, 3) for c in "xyz"]
    return names


INTERNAL_NAMES = ["d1.d1", "d2.d2", "d3.d3", "d1.d2", "d1.d3", "d2.d3"]


class SchemeBlockData(BlockData):
    """Base of the scheme blocks (see the module docstring).

    Hooks for subclasses
    --------------------
    ``_add_scheme_variables()``   variables beyond q, v, u, nu
    ``_add_discrete_equations()`` the scheme's equations
    """

    scheme = None
    CONFIG = SCHEME_CONFIG
    #: the scheme has node velocities v[k, c] and interval joint rates nu[i, j]
    uses_velocities = True

    def build(self, **options):
        try:
            self.config = self.CONFIG(options)
        except (ValueError, TypeError) as err:
            raise ConfigurationError(f"{self.scheme} block: {err}") from None
        for required in ("system", "steps", "horizon"):
            if self.config[required] is None:
                raise ConfigurationError(f"{self.scheme} block: option {required!r} is required")
        try:
            self._build()
        except Exception:
            logger.exception("Failure in build of %s block %s", self.scheme, self.name)
            raise

    def _build(self):
        config = self.config
        system = self.system = config.system
        system.validate()
        if config.configurations != "lifted" and self.scheme != "dmocc":
            raise ConfigurationError(f"{self.scheme} block: configurations={config.configurations!r} "
                                     "is offered by the dmocc scheme only")
        N = config.steps
        self.h = config.horizon / N
        # 1. time grid
        self.nodes = pyo.RangeSet(0, N)
        self.intervals = pyo.RangeSet(0, N - 1)
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
        self.u = pyo.Var(self.intervals, self.actuated, initialize=0.0)
        if self.uses_velocities:
            self.nu = pyo.Var(self.intervals, self.velocities, initialize=0.0)
        # 5. the scheme; repeated subexpressions become named Expressions
        self._add_scheme_variables()
        self.shared_terms = pyo.Expression(pyo.Any)
        with sharing(self._share):
            self._add_discrete_equations()
        # 6. initial state and initial guess
        self._fix_initial_state()
        self._fix_controls()

    def _share(self, expr):
        k = len(self.shared_terms)
        self.shared_terms[k] = expr
        return self.shared_terms[k]

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
        """Global constraint row → (owner sub-block, local row name)."""
        out = []
        for name, body in self.system.bodies.items():
            out += [(self.body[name], INTERNAL_NAMES[r]) for r in range(body.n_internal)]
        for name, joint in self.system.joints.items():
            out += [(self.joint[name], r) for r in range(joint.n_constraints)]
        return out

    # -- helpers shared by the schemes ---------------------------------------------
    def _add_interval_multipliers(self):
        """γ[k, r] for every constraint row: ``body[b].lam`` and ``joint[j].lam``."""
        for name, body in self.system.bodies.items():
            blk = self.body[name]
            blk.internal = pyo.Set(initialize=INTERNAL_NAMES[: body.n_internal], ordered=True)
            blk.lam = pyo.Var(self.intervals, blk.internal, initialize=0.0)
        for name, joint in self.system.joints.items():
            blk = self.joint[name]
            blk.rows = pyo.Set(initialize=range(joint.n_constraints), ordered=True)
            blk.lam = pyo.Var(self.intervals, blk.rows, initialize=0.0)

    def _lam_array(self, i):
        return [owner.lam[i, r] for owner, r in self._constraint_index()]

    def _add_coordinate_equations(self, group, residuals, index_set=None):
        """``body[b].<group>[k, c]``: the entries of ``residuals[k][group]`` (length n)."""
        index_set = self.intervals if index_set is None else index_set
        where = {key: g for g, key in enumerate(self._coordinate_index())}
        for name in self.system.bodies:
            blk = self.body[name]
            blk.add_component(group, pyo.Constraint(
                index_set, blk.coordinates,
                rule=lambda b, k, c, name=name: residuals[k][group][where[name, c]] == 0))

    def _add_velocity_equations(self, group, residuals):
        """``<group>[k, j]`` over the generalised velocities (length dof)."""
        index = {j: n for n, j in enumerate(self.velocities)}
        self.add_component(group, pyo.Constraint(
            self.intervals, self.velocities, rule=lambda b, k, j: residuals[k][group][index[j]] == 0))

    def _add_constraint_equations(self, residuals):
        """Φ(q_k) = 0 for k = 1..N: ``body[b].internal_constraint``, ``joint[j].joint_constraint``
        (``residuals[k - 1]["constraint"]`` in the order of ``constraint_labels``)."""
        row_of = {(id(owner), r): g for g, (owner, r) in enumerate(self._constraint_index())}
        steps = pyo.RangeSet(1, self.config.steps)
        rule = lambda b, k, r: residuals[k - 1]["constraint"][row_of[id(b), r]] == 0  # noqa: E731
        for name in self.system.bodies:
            blk = self.body[name]
            blk.internal_constraint = pyo.Constraint(steps, blk.internal, rule=rule)
        for name in self.system.joints:
            blk = self.joint[name]
            blk.joint_constraint = pyo.Constraint(steps, blk.rows, rule=rule)

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
        lifted = self.config.configurations == "lifted"
        for k in self.nodes:
            for idx, (name, c) in enumerate(self._coordinate_index()):
                if lifted:
                    self.body[name].q[k, c].value = q0[idx]
                if self.uses_velocities:
                    self.body[name].v[k, c].value = v0[idx]
        for idx, (name, c) in enumerate(self._coordinate_index()):
            if lifted:
                self.body[name].q[0, c].fix(q0[idx])
            if self.uses_velocities:
                self.body[name].v[0, c].fix(v0[idx])

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
        for i in self.intervals:
            for a, name in enumerate(actuated):
                self.u[i, name].fix(U[i, a])

    # -- results ------------------------------------------------------------
    def configuration_values(self):
        """Node configurations (N+1, n) as floats from the current variable values."""
        return np.array([[pyo.value(x) for x in self.q_array(k)] for k in self.nodes], dtype=float)

    def trajectory_arrays(self):
        """(t, q, v, u, nu) as numpy arrays from the current variable values."""
        N = self.config.steps
        q = self.configuration_values()
        u = np.array([[pyo.value(x) for x in self.u_array(i)] for i in self.intervals]).reshape(N, -1)
        if self.uses_velocities:
            v = np.array([[pyo.value(x) for x in self.v_array(k)] for k in self.nodes])
            nu = np.array([[pyo.value(x) for x in self.nu_array(i)] for i in self.intervals]).reshape(N, -1)
        else:
            v, nu = self._recover_velocities(q, u)
        return self.h * np.arange(N + 1), q, v, u, nu

    def _recover_velocities(self, q, u):
        """Hook for schemes without velocity variables: (v, nu) from q and u."""
        raise NotImplementedError

    def diagnostics(self):
        """Per-node conservation table (see :mod:`pyomo_mbdyn.diagnostics`)."""
        from ..diagnostics import conservation_table

        _, q, v, u, nu = self.trajectory_arrays()
        return conservation_table(self.system, self.h, q, v, nu, u)

    def initialize_from(self, trajectory):
        """Set variable values from a simulated trajectory of the same grid."""
        lifted = self.config.configurations == "lifted"
        for k in self.nodes:
            for idx, (name, c) in enumerate(self._coordinate_index()):
                if lifted and not self.body[name].q[k, c].fixed:
                    self.body[name].q[k, c].value = trajectory.q[k, idx]
                if self.uses_velocities and not self.body[name].v[k, c].fixed:
                    self.body[name].v[k, c].value = trajectory.v[k, idx]
        for i in self.intervals:
            for j, name in enumerate(self.velocities):
                if self.uses_velocities:
                    self.nu[i, name].value = trajectory.nu[i, j]
            for a, name in enumerate(self.actuated):
                if not self.u[i, name].fixed:
                    self.u[i, name].value = trajectory.u[i, a]
        self._initialize_scheme(trajectory)

    def _initialize_scheme(self, trajectory):
        """Hook: set the scheme's own variables (multipliers, increments) from a trajectory."""
        if getattr(trajectory, "lam", None) is not None and self.system.bodies and \
                hasattr(self.body[next(iter(self.system.bodies))], "lam"):
            for i in self.intervals:
                for g, (owner, r) in enumerate(self._constraint_index()):
                    owner.lam[i, r].value = trajectory.lam[i, g]
        if getattr(trajectory, "w", None) is not None and hasattr(self, "w"):
            for i in self.intervals:
                for j, name in enumerate(self.velocities):
                    # a guess may step beyond increment bounds; the solver moves it inside
                    self.w[i, name].set_value(trajectory.w[i, j], skip_validation=True)
