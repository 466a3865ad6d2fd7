"""Paper examples as runnable models (installed as ``pyomo_mbdyn.models``).

Each module builds a multibody system and a problem on it and returns a Pyomo
model, and ends with ``MODEL``, its :class:`~pyomo_mbdyn.model_spec.ModelSpec`
(description, ``build``, options, what it conserves, its figures …);
``pyomo-mbdyn list`` shows what is here.  The specs are declared in the
entry-point group ``pyomo_mbdyn.models`` (setup.cfg), as another package
declares its own models (:func:`pyomo_mbdyn.plugins.models`).
"""

from __future__ import annotations

import functools
import inspect
import numbers
from typing import TYPE_CHECKING, Any, Callable, Iterable, TypeVar

from pyomo_mbdyn.model_spec import COMMON_OPTIONS, refuse_unknown_options  # noqa: F401  (COMMON_OPTIONS: re-exported)
from pyomo_mbdyn.plugins import model_spec, models

if TYPE_CHECKING:
    _F = TypeVar("_F", bound=Callable[..., Any])

#: model name → entry point of every declared model (:func:`pyomo_mbdyn.plugins.models`:
#: the entry-point group ``pyomo_mbdyn.models``, where setup.cfg declares the models here
#: and another package its own), each naming the model's ``ModelSpec``
MODELS = models()


def description(name: str) -> str:
    """The one-line description of model ``name`` (its ``ModelSpec``)."""
    return model_spec(name).description


def options(name: str) -> list[dict[str, Any]]:
    """The options of model ``name``'s ``build()``: a list of ``{"name", "default",
    "description"}`` in signature order, described by its ``ModelSpec.options``
    (``pyomo-mbdyn list --options MODEL``; ``--set KEY=VALUE`` passes them;
    :meth:`~pyomo_mbdyn.model_spec.ModelSpec.option_rows`)."""
    return model_spec(name).option_rows()


def model_build(build: _F) -> _F:
    """Decorator of a model module's ``build``: an option it does not take is a
    :class:`~pyomo_mbdyn.errors.ConfigurationError` naming the model and listing the
    options it takes (as ``pyomo-mbdyn run --set`` reports it), not Python's bare
    ``TypeError``; ``steps`` and ``scheme`` are checked (:func:`check_steps`,
    :func:`check_scheme`), and a bool given for an option whose default is a number is
    refused.  The signature is kept (``inspect.signature`` follows it)."""

    parameters = inspect.signature(build).parameters
    module = build.__module__.rpartition(".")[2]
    name = next((n for n, m in MODELS.items() if m.partition(":")[0].rpartition(".")[2] == module), module)

    @functools.wraps(build)
    def checked(*args: Any, **kwds: Any) -> Any:
        from pyomo_mbdyn.errors import ConfigurationError

        refuse_unknown_options(name, parameters, kwds)
        bound = inspect.signature(build).bind_partial(*args, **kwds).arguments
        for key, value in bound.items():  # True is not 1: --set mass=true was a 1 kg mass
            default = parameters[key].default if key in parameters else None
            if isinstance(value, bool) and isinstance(default, numbers.Real) and not isinstance(default, bool):
                raise ConfigurationError(f"{name}: option {key!r} must be a number, got {value!r}")
        if bound.get("steps") is not None:
            check_steps(name, bound["steps"])
        if "scheme" in bound:
            check_scheme(name, bound["scheme"])
        return build(*args, **kwds)

    return checked  # type: ignore[return-value]  # functools.wraps: the same signature


def check_steps(model: str, steps: Any) -> int:
    """``steps`` as an ``int`` ≥ 1, or a :class:`~pyomo_mbdyn.errors.ConfigurationError`
    naming the model and the bad value (a bool, a float such as 1e400 or 2.5, a string);
    :func:`pyomo_mbdyn.mechanics.numeric.step_count`."""
    from pyomo_mbdyn.mechanics.numeric import step_count

    return step_count(steps, model)


def check_scheme(model: str, scheme: Any, offered: Iterable[str] | None = None) -> str:
    """``scheme`` as given, or a :class:`~pyomo_mbdyn.errors.ConfigurationError` naming the
    model and the bad value: not a name, or not one of the schemes the model ``offered``
    (its module's ``SCHEMES``, when it declares them)."""
    from pyomo_mbdyn.errors import ConfigurationError

    if not isinstance(scheme, str):
        raise ConfigurationError(f"{model}: scheme must be a scheme name (pyomo-mbdyn run --scheme), got {scheme!r}")
    if offered is not None and scheme not in offered:
        raise ConfigurationError(f"{model}: scheme {scheme!r} not offered; use one of {list(offered)}")
    return scheme


def finite_option(model: str, name: str, value: Any, unit: str = "") -> float:
    """``float(value)`` of a model option, or a :class:`~pyomo_mbdyn.errors.ConfigurationError`
    naming the model, the option (with its ``unit``, e.g. ``"[m/s²]"``) and the bad value
    (the library's one numeric check, :func:`pyomo_mbdyn.mechanics.numeric.real`: a bool or
    a text is not a number)."""
    from pyomo_mbdyn.mechanics.numeric import real

    return real(value, f"{model}: {name}" + (f" {unit}" if unit else ""))


def paper_figures_for(schemes: Iterable[str], **captions: str) -> Callable[[Any], dict[str, str]]:
    """A model module's ``paper_figures(dyn)`` (:func:`pyomo_mbdyn.figures.paper_figures`)
    that gives ``captions`` (``snapshots=``, ``coordinates=``, ``controls=``,
    ``conservation=``: the paper figure each generic figure corresponds to) for the
    paper's ``schemes`` and none for the others."""

    def paper_figures(dyn: Any) -> dict[str, str]:
        return dict(captions) if dyn.scheme in schemes else {}

    paper_figures.__doc__ = (f"Captions naming the paper figures the generic figures correspond to, "
                             f"for the schemes {list(schemes)} only.")
    return paper_figures
