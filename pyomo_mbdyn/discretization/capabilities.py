"""What a scheme record states about itself, as small objects that carry their behaviour.

A :class:`~pyomo_mbdyn.discretization.registry.SchemeRecord` says for which systems a scheme
is written (:class:`SystemKind`), where it applies its loads (:class:`Loads`) and where the
multipliers of its momentum rows live (:class:`Multipliers`).  The code that depends on these
facts — the energy and momentum balances (:mod:`pyomo_mbdyn.balance`), the costates
(:mod:`pyomo_mbdyn.ocp.multipliers`), the block's solution (:mod:`pyomo_mbdyn.schemes.solution`),
the DNCO problem — reads their fields and calls their methods; it does not compare names.  A
new value is one object here.

Each value is also its name (a ``str`` subclass): records still print, filter
(``scheme_names(system="hamiltonian")``) and tabulate by it, and a value written as a plain
string in a record is turned into its object (:func:`capability`).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import ConfigurationError

__all__ = ["Capability", "SystemKind", "Loads", "Multipliers", "MULTIBODY", "TOP", "HAMILTONIAN",
           "MIDPOINTS", "NODES", "STAGES", "REDUNDANT", "REDUCED", "CHART", "capability"]


class Capability(str):
    """A named capability value: equal to its name, with the fields given at construction."""

    def __new__(cls, name, **facts):
        self = super().__new__(cls, name)
        self.__dict__.update(facts)
        return self

    #: the capability this value belongs to (:func:`capability`)
    kind: str | None = None

    def __reduce__(self):  # pickled (records travel to study workers) as the registered value
        return capability, (self.kind, str(self))


class SystemKind(Capability):
    """The systems a scheme is written for.

    ``multibody``: a :class:`~pyomo_mbdyn.mechanics.MultibodySystem` or
    :class:`~pyomo_mbdyn.mechanics.CoordinateSystem` — the library's loads, balances and direct
    optimal control apply; ``hamiltonian``: a :class:`~pyomo_mbdyn.mechanics.HamiltonianSystem`
    (the discrete-gradient DNCO); ``energy_conserving``: the scheme keeps T + V exactly by
    construction whatever its record's other flags (the quaternion top)."""

    kind = "SystemKind"
    multibody = False
    hamiltonian = False
    energy_conserving = False


class Loads(Capability):
    """Where a scheme applies controls and friction on each interval.

    :meth:`stages` returns ``[(weight, configurations (N, n), controls (N, n_u))]``: the
    configurations at which, with which weights and controls, the loads act — the one
    statement the energy and momentum balances evaluate."""

    kind = "Loads"

    def stages(self, q: np.ndarray, u: np.ndarray, stages: Sequence[tuple[str, float, float]] = (), extras: Mapping[str, Any] | None = None) -> list[tuple[float, np.ndarray, np.ndarray]]:  # pragma: no cover - abstract
        raise NotImplementedError


class _AtMidpoints(Loads):
    """``Bᵀ(q♯_{k+½})`` once per interval (the energy-momentum and midpoint schemes, whose joint
    rates ν_{k,k+1} = B v_{k+½} are the interval's)."""

    def stages(self, q: np.ndarray, u: np.ndarray, stages: Sequence[tuple[str, float, float]] = (),
               extras: Mapping[str, Any] | None = None) -> list[tuple[float, np.ndarray, np.ndarray]]:
        return [(1.0, 0.5 * (q[:-1] + q[1:]), u)]


class _AtNodes(Loads):
    """Lumped half to each node, ``(h/2) B(q_k)ᵀ`` (DMOCC Eq. 3.10, RATTLE)."""

    def stages(self, q: np.ndarray, u: np.ndarray, stages: Sequence[tuple[str, float, float]] = (),
               extras: Mapping[str, Any] | None = None) -> list[tuple[float, np.ndarray, np.ndarray]]:
        return [(0.5, q[:-1], u), (0.5, q[1:], u)]


class _AtStages(Loads):
    """At the record's ``stages`` (name, c, b): the configurations q(c) of the quadratic through
    q_k, the trajectory's ``q_mid`` and q_{k+1}, weight b, the stage controls from the extras (or
    the interval controls where a stage has none: a simulation applies them at every stage).
    Without ``q_mid`` (a trajectory that does not carry it) half at each node."""

    def stages(self, q: np.ndarray, u: np.ndarray, stages: Sequence[tuple[str, float, float]] = (),
               extras: Mapping[str, Any] | None = None) -> list[tuple[float, np.ndarray, np.ndarray]]:
        extras = extras or {}
        if extras.get("q_mid") is None:
            return NODES.stages(q, u)
        q_mid = np.asarray(extras["q_mid"], float)
        out = []
        for name, c, b in stages:
            lagrange = (2 * (c - 0.5) * (c - 1), -4 * c * (c - 1), 2 * c * (c - 0.5))  # nodes 0, ½, 1
            at = lagrange[0] * q[:-1] + lagrange[1] * q_mid + lagrange[2] * q[1:]
            out.append((float(b), at, u if name == "u" else np.asarray(extras.get(name, u), float)))
        return out


class Multipliers(Capability):
    """Where the multipliers λ^p of a scheme's momentum rows live, and so which input map E gives
    the controls from them (u = E λ^p / 2w, :mod:`pyomo_mbdyn.ocp.multipliers`).

    ``per_coordinate``: one row per coordinate (``body[b].momentum_balance``, E = B); else one
    per generalised velocity (``momentum_balance``), E = B P, or with ``in_chart`` E = B P̃ at
    the chart's midpoint."""

    kind = "Multipliers"
    per_coordinate = False
    in_chart = False


MULTIBODY = SystemKind("multibody", multibody=True)
TOP = SystemKind("top", energy_conserving=True)
HAMILTONIAN = SystemKind("hamiltonian", hamiltonian=True)

MIDPOINTS = _AtMidpoints("midpoints")
NODES = _AtNodes("nodes")
STAGES = _AtStages("stages")

REDUNDANT = Multipliers("redundant", per_coordinate=True)
REDUCED = Multipliers("reduced")
CHART = Multipliers("chart", in_chart=True)

_VALUES = {cls.__name__: {str(v): v for v in values} for cls, values in (
    (SystemKind, (MULTIBODY, TOP, HAMILTONIAN)), (Loads, (MIDPOINTS, NODES, STAGES)),
    (Multipliers, (REDUNDANT, REDUCED, CHART)))}


def capability(kind: str, value: str | None) -> Capability | None:
    """The registered value of capability ``kind`` (``"SystemKind"``, ``"Loads"``,
    ``"Multipliers"``) named ``value`` (None stays None), or a ConfigurationError naming both.

    >>> capability("Loads", "nodes") is NODES, capability("Multipliers", None)
    (True, None)
    """
    if value is None:
        return None
    known = _VALUES[kind]
    if str(value) not in known:
        raise ConfigurationError(f"unknown {kind} {value!r}; known: {sorted(known)}")
    return known[str(value)]
