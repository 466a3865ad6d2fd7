"""What a model declares to the library: one :class:`ModelSpec` per model.

A model is a Python callable that builds a Pyomo model with a scheme block
``m.dyn`` (and usually an :class:`~pyomo_mbdyn.ocp.OptimalControlProblem` on it),
plus what ``pyomo-mbdyn list`` and ``run``, the studies and the figures need to
know about it.  All of it is stated once, in one object named by the model's
entry point (group ``pyomo_mbdyn.models``, :func:`pyomo_mbdyn.plugins.models`)::

    [project.entry-points."pyomo_mbdyn.models"]
    swing = "my_package.swing"

where ``my_package/swing.py`` ends with::

    MODEL = ModelSpec(description="a pendulum swung up a quarter turn", build=build)

(``swing = "my_package.swing:SPEC"`` names another object of the module).  Every field but ``description`` and ``build`` is optional; the
library reads nothing else from a model module.
"""

from __future__ import annotations

import dataclasses
import inspect
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping, Sequence

__all__ = ["ModelSpec", "COMMON_OPTIONS", "refuse_unknown_options"]

#: the options every model's ``build`` shares, with their meaning
COMMON_OPTIONS: Mapping[str, str] = MappingProxyType({
    "scheme": "the discrete scheme (pyomo-mbdyn run --scheme)",
    "steps": "the number of time steps N (pyomo-mbdyn run --steps)"})

#: the momentum maps a model conserves unless it declares others (all of L)
ALL_MOMENTA = ("Lx", "Ly", "Lz")
#: the momentum maps the diagnostics table has (:func:`pyomo_mbdyn.diagnostics.conservation_table`)
MOMENTUM_MAPS = ("px", "py", "pz", "Lx", "Ly", "Lz")
#: the quantities whose units a model may state (``units``; :mod:`pyomo_mbdyn.figures`)
UNIT_QUANTITIES = ("q", "u", "energy", "time", "Hd", "constraint")


@dataclasses.dataclass(frozen=True, kw_only=True)
class ModelSpec:
    """A model as the library knows it.

    Fields (who reads them):

    ``description``
        one line for ``pyomo-mbdyn list``;
    ``build(scheme=…, steps=…, **options)``
        the Pyomo model, ``m.dyn`` its scheme block (``run``, the studies);
    ``options``
        the meaning of each option of ``build`` (``list --options MODEL``; ``scheme``
        and ``steps`` are described by :data:`COMMON_OPTIONS`); a name ``build`` does
        not take is refused here;
    ``schemes``
        the schemes the model offers (``list --options``; ``build`` refuses the others;
        ``None``: not stated);
    ``evaluate(model)``
        numbers ``run`` reports besides the solver's (a dict, merged into the result);
    ``solve(model, solver)``
        the model's own solve in place of :func:`pyomo_mbdyn.ocp.solve` (e.g. a warm
        restart; ``run`` then does not refine the grid);
    ``conserved_momenta``
        the momentum maps the problem conserves, of ``px, py, pz, Lx, Ly, Lz``
        (``run``'s ``momentum_error``; default ``Lx, Ly, Lz``; ``()``: none);
    ``energy_balance``
        whether T + V + W is conserved (``run``'s ``energy_balance_error``; ``False``
        e.g. with friction or impulsive controls);
    ``figures(model, directory)``
        the model's own figures, in place of the generic set (``run --plot``);
    ``paper_figures(dyn)``
        captions naming the paper figures the generic ones correspond to;
    ``units``
        the units of a Hamiltonian system's figures, ``{quantity: unit}`` for the
        quantities of :data:`UNIT_QUANTITIES` (``q``, ``u``, ``energy``, ``time``,
        ``Hd``, ``constraint``);
    ``constraint_unit``
        the unit of the constraint rows of a system given by formulas (the
        conservation figure's axis).

    Examples
    --------
    >>> def build(scheme="gc", steps=10, mass=1.0): ...
    >>> spec = ModelSpec(description="a point mass", build=build, options={"mass": "the mass [kg]"})
    >>> [row["name"] for row in spec.option_rows()], spec.conserved_momenta
    (['scheme', 'steps', 'mass'], ('Lx', 'Ly', 'Lz'))
    >>> ModelSpec(description="a point mass", build=build, options={"masss": "the mass [kg]"})
    Traceback (most recent call last):
    ...
    pyomo_mbdyn.errors.ConfigurationError: model spec 'a point mass': options describes 'masss', which build() does not take; it takes ['scheme', 'steps', 'mass']
    """

    description: str
    build: Callable[..., Any]
    options: Mapping[str, str] = dataclasses.field(default_factory=dict)
    schemes: Sequence[str] | None = None
    evaluate: Callable[[Any], Mapping[str, Any]] | None = None
    solve: Callable[[Any, Any], Any] | None = None
    conserved_momenta: Sequence[str] = ALL_MOMENTA
    energy_balance: bool = True
    figures: Callable[[Any, Any], Sequence[Any]] | None = None
    paper_figures: Callable[[Any], Mapping[str, str]] | None = None
    units: Mapping[str, str] = dataclasses.field(default_factory=dict)
    constraint_unit: str | None = None

    def __post_init__(self) -> None:
        from .errors import ConfigurationError

        where = f"model spec {self.description!r}"
        if not isinstance(self.description, str) or not self.description.strip() or "\n" in self.description:
            raise ConfigurationError(f"model spec: description must be one non-empty line, got {self.description!r}")
        if not callable(self.build):
            raise ConfigurationError(f"{where}: build must be callable, got {self.build!r}")
        for field in ("evaluate", "solve", "figures", "paper_figures"):
            value = getattr(self, field)
            if value is not None and not callable(value):
                raise ConfigurationError(f"{where}: {field} must be callable or None, got {value!r}")
        taken = self.parameters()
        if not self.open_ended():
            for name in self.options:
                if name not in taken:
                    raise ConfigurationError(f"{where}: options describes {name!r}, which build() does not take; "
                                             f"it takes {list(taken)}")
        unknown = sorted(set(self.conserved_momenta) - set(MOMENTUM_MAPS))
        if unknown:
            raise ConfigurationError(f"{where}: conserved_momenta must be among {list(MOMENTUM_MAPS)}, "
                                     f"got {unknown[0]!r}")
        unknown = sorted(set(self.units) - set(UNIT_QUANTITIES))
        if unknown:
            raise ConfigurationError(f"{where}: units names {unknown[0]!r}; the quantities with units are "
                                     f"{list(UNIT_QUANTITIES)}")
        if not isinstance(self.energy_balance, bool):
            raise ConfigurationError(f"{where}: energy_balance must be True or False, got {self.energy_balance!r}")
        if self.schemes is not None:
            if isinstance(self.schemes, str) or not all(isinstance(s, str) for s in self.schemes):
                raise ConfigurationError(f"{where}: schemes must be a sequence of scheme names, got {self.schemes!r}")
            object.__setattr__(self, "schemes", tuple(self.schemes))
        object.__setattr__(self, "conserved_momenta", tuple(self.conserved_momenta))
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        object.__setattr__(self, "units", MappingProxyType(dict(self.units)))

    def parameters(self) -> Mapping[str, inspect.Parameter]:
        """The parameters of ``build`` (``inspect.signature``, which follows
        :func:`pyomo_mbdyn.models.model_build`'s wrapper)."""
        return inspect.signature(self.build).parameters

    def open_ended(self) -> bool:
        """Whether ``build`` takes ``**options`` (then no option name is refused here)."""
        return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in self.parameters().values())

    def check_options(self, name: str, options: Mapping[str, Any]) -> None:
        """Refuse an option ``build`` does not take: a
        :class:`~pyomo_mbdyn.errors.ConfigurationError` naming model ``name``, the option
        and the options it takes (``pyomo-mbdyn run --set``; :func:`refuse_unknown_options`)."""
        refuse_unknown_options(name, self.parameters(), options)

    def option_rows(self) -> list[dict[str, Any]]:
        """The options of ``build``: ``{"name", "default", "description"}`` in signature
        order (a default array as a list; ``None`` where there is none)."""
        described = {**COMMON_OPTIONS, **self.options}
        rows = []
        for parameter in self.parameters().values():
            if parameter.kind in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL):
                continue
            default: Any = None if parameter.default is inspect.Parameter.empty else parameter.default
            if hasattr(default, "tolist"):
                default = default.tolist()
            rows.append({"name": parameter.name, "default": default,
                         "description": described.get(parameter.name, "")})
        return rows


def refuse_unknown_options(name: str, parameters: Mapping[str, inspect.Parameter], options: Iterable[str]) -> None:
    """A :class:`~pyomo_mbdyn.errors.ConfigurationError` naming model ``name``, the first of
    ``options`` that a ``build`` with ``parameters`` does not take, and the options it takes;
    nothing for a ``build`` taking ``**options``.  The one check of a model's options, before
    a build (:meth:`ModelSpec.check_options`) and at it (:func:`pyomo_mbdyn.models.model_build`).

    Examples
    --------
    >>> def build(scheme="gc", steps=10, mass=1.0): ...
    >>> refuse_unknown_options("mass", inspect.signature(build).parameters, ["masss"])
    Traceback (most recent call last):
    ...
    pyomo_mbdyn.errors.ConfigurationError: model 'mass' takes no option 'masss'; its options are ['mass']
    """
    from .errors import ConfigurationError

    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return
    unknown = sorted(set(options) - set(parameters))
    if unknown:
        offered = [p for p in parameters if p not in COMMON_OPTIONS]
        raise ConfigurationError(f"model {name!r} takes no option {unknown[0]!r}; its options are {offered}")
