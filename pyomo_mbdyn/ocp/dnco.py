"""DNCO problems by name: ``dnco``, ``dnco-<gradient>``, ``direct-<gradient>``.

:func:`dnco_model` builds a model around a
:class:`~pyomo_mbdyn.schemes.dnco.DNCOBlock` (the indirect square system, or
the direct transcription with an imported ``dual`` Suffix for its costates,
:mod:`pyomo_mbdyn.ocp.costates`); :func:`parse_scheme` reads the names the
models and the command line use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyomo.environ as pyo

from ..discretization.hamiltonian import GRADIENTS
from ..discretization.registry import resolve
from ..errors import ConfigurationError
from ..schemes.dnco import DNCOBlock

if TYPE_CHECKING:
    from ..mechanics.hamiltonian import HamiltonianSystem

__all__ = ["parse_scheme", "dnco_model"]


def parse_scheme(scheme: str, default_gradient: str = "gonzalez") -> tuple[str, str]:
    """``"dnco"`` → (indirect, default gradient); ``"dnco-<gradient>"``, ``"direct-<gradient>"``.

    Examples
    --------
    >>> parse_scheme("dnco"), parse_scheme("dnco", default_gradient="greenspan")
    (('indirect', 'gonzalez'), ('indirect', 'greenspan'))
    >>> parse_scheme("direct-midpoint")
    ('direct', 'midpoint')
    """
    stated = _stated(scheme)
    if stated.get("method") == "direct" and "gradient" not in stated:
        raise ConfigurationError(f"unknown DNCO scheme {scheme!r}; choose one of {_CHOICES}")
    return stated.get("method", "indirect"), stated.get("gradient", default_gradient)


_CHOICES = ["dnco"] + [f"{m}-{g}" for m in ("dnco", "direct") for g in GRADIENTS]
_PREFIX = {"indirect": "dnco", "direct": "direct"}


def _stated(scheme):
    """The options a DNCO scheme name states (:func:`~pyomo_mbdyn.discretization.registry.resolve`)."""
    try:
        rec, stated = resolve(scheme)
    except ConfigurationError:
        rec = None
    if rec is None or not rec.system.hamiltonian:
        raise ConfigurationError(f"unknown DNCO scheme {scheme!r}; choose one of {_CHOICES}")
    return stated


def dnco_model(system: HamiltonianSystem, scheme: str, steps: int, horizon: float, name: str | None = None,
               default_gradient: str = "gonzalez", gradient: str | None = None, **options: Any) -> pyo.ConcreteModel:
    """A ConcreteModel with ``m.dyn`` (a :class:`DNCOBlock`) and, for the direct
    method, an imported ``m.dual`` Suffix (the costates, :mod:`pyomo_mbdyn.ocp.costates`).

    ``scheme`` as in :func:`parse_scheme`; the block's ``scheme`` attribute is
    set to it.  ``gradient`` (one of ``GRADIENTS``: gonzalez, greenspan,
    midpoint) chooses the discrete gradient where ``scheme`` names none
    (``"dnco"``, ``"direct"``); a scheme naming another one is a
    :class:`ConfigurationError`.

    Examples
    --------
    A pendulum from the horizontal to hanging, q: 0 → π/2 in T = 3:

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import HamiltonianSystem
    >>> from pyomo_mbdyn.mechanics.linalg import elementwise
    >>> pendulum = HamiltonianSystem(1, lambda q: [[1.0]], lambda q: -9.81 * elementwise("sin", q[0]),
    ...                              names=["q"], name="pendulum")
    >>> m = dnco_model(pendulum, "direct", 4, 3.0, gradient="midpoint",
    ...                initial_position=[0.0], final_position=[np.pi / 2])
    >>> m.dyn.scheme, m.dyn.config.method, m.dyn.config.gradient, m.dual.import_enabled()
    ('direct-midpoint', 'direct', 'midpoint', True)
    >>> dnco_model(pendulum, "dnco", 4, 3.0, initial_position=[0.0],
    ...            final_position=[np.pi / 2]).component("dual") is None   # indirect: no duals needed
    True
    """
    stated = _stated(scheme)
    method = stated.get("method", "indirect")
    if gradient is not None:
        if gradient not in GRADIENTS:
            raise ConfigurationError(f"gradient must be one of {list(GRADIENTS)}, got {gradient!r}")
        if stated.get("gradient", gradient) != gradient:
            raise ConfigurationError(f"scheme {scheme!r} names another gradient than gradient={gradient!r}")
        if "gradient" not in stated:
            scheme = f"{_PREFIX[method]}-{gradient}"
    elif "gradient" not in stated and method == "direct":
        scheme = f"direct-{default_gradient}"
    gradient = gradient or stated.get("gradient", default_gradient)
    m = pyo.ConcreteModel(name or system.name)
    m.dyn = DNCOBlock(system=system, steps=steps, horizon=horizon, method=method, gradient=gradient, **options)
    m.dyn.scheme = scheme
    if method == "direct":
        m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    return m

