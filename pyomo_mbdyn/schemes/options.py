"""The options of the scheme blocks: validators, the shared option sets, the block decorator.

Every scheme block keeps its options in a class-level ``CONFIG``
(:class:`pyomo.common.config.ConfigDict`): the grid (``system``, ``steps``,
``horizon``, ``free_horizon``), the initial state and controls
(:func:`multibody_config`), and what a scheme adds (``rotation``,
``configurations``, …).  :func:`declare_scheme_block` turns a block data class
into a Pyomo block component whose keyword arguments are those options, each
validated where it is given (:func:`check_options`).
"""

from __future__ import annotations

import numbers
import sys
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np
from pyomo.common.config import ConfigDict, ConfigValue, In, document_kwargs_from_configdict
from pyomo.core.base.block import declare_custom_block

from ..errors import ConfigurationError
from ..mechanics import ConstrainedSystem
from ..mechanics.numeric import check_numeric

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["multibody_config", "grid_config", "declare_free_horizon", "declare_rotation", "declare_scheme_block",
           "check_options", "initial_state", "multibody_system", "array_or_none", "array_or_dict", "positive_int",
           "positive_finite_float", "horizon_bounds"]

_BLOCK_KEYWORDS = {"rule", "concrete", "dense", "name", "doc", "ctype"}


def multibody_system(value: Any) -> ConstrainedSystem:
    """A MultibodySystem or CoordinateSystem (the ``system`` option of the multibody blocks)."""
    if not isinstance(value, ConstrainedSystem):
        raise ValueError(f"expected a MultibodySystem or CoordinateSystem, got {type(value).__name__}")
    return value


def array_or_none(value: npt.ArrayLike | None) -> np.ndarray | None:
    """None, or an array of numbers as floats."""
    if value is None:
        return None
    check_numeric(value, "the value", "an array of numbers")
    return np.asarray(value, dtype=float)


def array_or_dict(value: Mapping[str, Any] | npt.ArrayLike | None) -> Mapping[str, Any] | np.ndarray | None:
    """None, a dict of numbers (by name), or an array of numbers as floats."""
    if value is None:
        return value
    check_numeric(list(value.values()) if isinstance(value, dict) else value, "the value",
                  "an array of numbers or a dict of numbers")
    if isinstance(value, dict):
        return value
    return np.asarray(value, dtype=float)


def positive_int(value: Any) -> int:
    """The block's ``steps``: :func:`~pyomo_mbdyn.mechanics.numeric.step_count`'s rule (a
    ``ValueError``, as Pyomo's ConfigValue domains raise)."""
    from ..mechanics.numeric import step_count

    try:
        return step_count(value)
    except ConfigurationError as err:
        raise ValueError(str(err)) from None


def positive_finite_float(value: Any) -> float:
    """A finite number > 0 (NaN and inf are refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"expected a positive finite number, got {type(value).__name__} {value!r}")
    if not (np.isfinite(value) and value > 0):  # type: ignore[call-overload, operator]  # a numbers.Real here: the stubs know float, not the ABC
        raise ValueError(f"expected a positive finite number, got {value!r}")
    return float(value)


def horizon_bounds(value: Sequence[float] | None) -> tuple[float, float] | None:
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


def grid_config(name: str = "scheme", system: Callable[[Any], Any] = multibody_system,
                system_doc: str = "The MultibodySystem.", min_steps: int = 1) -> ConfigDict:
    """The options every scheme block accepts: the system and the grid."""
    config = ConfigDict(description=name, implicit=False)
    config.declare("system", ConfigValue(domain=system, description=system_doc))
    config.declare("steps", ConfigValue(domain=positive_int, description=f"Number of time steps N (≥ {min_steps})."))
    config.declare("horizon", ConfigValue(
        domain=positive_finite_float, description="Final time T > 0 (with free_horizon: its initial value)."))
    return config


def declare_free_horizon(config: ConfigDict) -> ConfigDict:
    """Add the ``free_horizon`` option (the final time as a decision variable) to a block's CONFIG."""
    config.declare("free_horizon", ConfigValue(
        default=None, domain=horizon_bounds,
        description="(lower, upper): the final time T is a variable ``final_time`` within these bounds, "
                    "started at ``horizon``, and the step ``h = T/N`` a named Expression; the discrete "
                    "equations keep their form with h unknown.  Default None: T fixed at ``horizon``."))
    return config


def multibody_config() -> ConfigDict:
    """The options of every block on a MultibodySystem."""
    config = declare_free_horizon(grid_config())
    config.declare("initial_configuration", ConfigValue(
        default=None, domain=array_or_none, description="q(0); default the system's reference configuration."))
    config.declare("initial_coordinates", ConfigValue(
        default=None, domain=array_or_none,
        description="θ(0): the initial joint coordinates (rad, m; the chart's, measured from the system's "
                    "reference configuration, turns included), instead of ``initial_configuration``: q(0) = "
                    "q(θ(0)) and every joint coordinate starts at exactly θ(0) — a URDF pose is taken in the "
                    "URDF's convention, e.g. 4.0 rad on a joint whose range is [−2π, 2π], not 4.0 − 2π."))
    config.declare("initial_velocity", ConfigValue(
        default=None, domain=array_or_none, description="v(0) = P(q0) ν0; default rest."))
    config.declare("controls", ConfigValue(
        default=None, domain=array_or_dict,
        description="Fix the controls (forward simulation): an (N, n_act) array, or a dict "
                    "{actuated coordinate: value or N values}.  Default: free variables."))
    return config


def initial_state(system: ConstrainedSystem, config: ConfigDict) -> tuple[np.ndarray, np.ndarray | None]:
    """``(q0, θ0)``: a block's initial configuration and, if given as ``initial_coordinates``, its joint
    coordinates θ0 (else None).  ``initial_configuration`` and ``initial_coordinates`` exclude each other."""
    q0, theta0 = config.initial_configuration, config.initial_coordinates
    if theta0 is None:
        return (system.q0 if q0 is None else q0), None
    if q0 is not None:
        raise ConfigurationError("give initial_configuration (q0) or initial_coordinates (θ0), not both")
    from ..discretization import chart

    theta0 = np.asarray(theta0, float).reshape(-1)
    if theta0.shape != (system.n_velocities,) or not np.all(np.isfinite(theta0)):
        raise ConfigurationError(f"initial_coordinates: expected {system.n_velocities} finite joint coordinates "
                                 f"{list(system.velocities)}, got {theta0.tolist()}")
    rotation = config.rotation if "rotation" in config else "exp"
    return np.asarray(chart(system, theta0, rotation), float), theta0


def declare_rotation(config: ConfigDict) -> ConfigDict:
    """Add the ``rotation`` option (reparametrisation and chart) to a block's CONFIG."""
    config.declare("rotation", ConfigValue(
        default="exp", domain=In(["exp", "cayley"]), description="Rotation map of the reparametrisation."))
    return config


def check_options(data_class: type[Any], options: Mapping[str, Any]) -> ConfigDict:
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


def declare_scheme_block(name: str) -> Callable[[type], type]:
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
