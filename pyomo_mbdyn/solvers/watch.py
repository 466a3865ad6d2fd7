"""A divergence watch for IPOPT: stop a solve whose iterates leave the feasible set for good.

Why
---
IPOPT trades feasibility for objective while it is far from a solution: a step may raise
the primal infeasibility as long as its filter accepts the pair (θ, f), θ the constraint
violation and f the objective.  On a badly scaled or badly started problem this can go on
for hundreds of iterations: θ climbs to 1e2–1e4 while f falls below every feasible value
(the objective is cheap where the dynamics are violated), until IPOPT gives up on the
filter and enters its restoration phase, which on large problems costs seconds per
iteration (REM on the xArm7 and the Kinova arm, issue 47: restoration at θ ≈ 1e6, about
2 s per iteration, no word until the 3 000-iteration limit, hours later).  The watch reads
each accepted iterate and stops such a solve early, saying what it measured.

What is measured
----------------
At every IPOPT iteration k (CasADi's ``iteration_callback``, restoration iterations
included; CasADi passes neither IPOPT's iteration number nor its mode, so the watch counts
calls) the watch receives the objective f_k that IPOPT minimises and the constraint values
g(x_k), and computes the primal infeasibility as the user's rows read it, unscaled::

    θ_k = max_j max(g_L,j − g_j(x_k), g_j(x_k) − g_U,j, 0)

(variable bounds are not counted: IPOPT's iterates stay inside them).  One pass of numpy
over the rows: a few microseconds per thousand rows.

When it stops
-------------
With θ_ref = max(θ_0, …, θ_{r−1}) over the first ``reference`` = r iterations, the threshold
``θ_stop = max(growth · θ_ref, floor)`` and the last ``window`` = W iterates k−W+1, …, k, the
watch stops the solve at iteration k when either

* **trading**: the median of θ over the window exceeds θ_stop and the objective fell over it,
  ``f_k < f_{k−W+1}``: the iterates stay far outside the feasible set while the objective
  keeps falling (below every feasible value: it is bought with violated rows); the median,
  not the minimum, because such runs dip back near feasibility now and then (the xArm7's
  REM: θ between 2e-3 and 7e3 over iterations 200-330, f falling from 2.3 to 1.45 against
  a feasible optimum above 5);
* **runaway**: θ exceeds θ_stop at every iterate of the window, whatever f does (a
  restoration phase that does not restore: θ ≈ 4e7 for the xArm7 from iteration 330 on).

Defaults (:data:`DEFAULTS`): growth 1e2, floor 1e1, window 50, reference 5.  A healthy solve
may leave the feasible set for a few iterations (a full Newton step from a poor start:
θ from 1 to 5e3 and back within 12 iterations on a small test problem); it does not stay
100× more infeasible than its start, and above 10, for most of 50 iterations.  What the
rule cannot know is whether a solve that wanders so far would have landed after all: on a
small nonconvex chain (tests/solvers/test_divergence_watch.py) IPOPT without the watch
wanders at θ up to 1e5 and then converges after 100-550 iterations in some starts, or ends
at the iteration limit or "infeasible" in others; the watch stops all of them after 50-110.
For such a problem turn the watch off or widen its window.  On the paper models and the
robot models every solve keeps its iterations and optimum with the watch on
(docs/guide/solvers.md, "Divergence watch").

Options (any IPOPT plugin of the library, in process or through the AMPL driver)
------------------------------------------------------------------------------
``divergence_watch`` (default True): False (or ``"no"``, ``"off"``, 0) turns it off;
``divergence_watch.growth``, ``divergence_watch.floor``, ``divergence_watch.window``,
``divergence_watch.reference`` set its parameters.  They are the library's options, not
IPOPT's, and are removed before IPOPT sees the rest.  Bonmin is not watched (its
branch-and-bound runs many NLPs; a watch option given to a Bonmin plugin is refused).

This module imports only numpy and (when a watch is made) casadi: the AMPL driver, which
runs without the package, imports it as a sibling.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy.typing as npt

import math

__all__ = ["WATCH_OPTION", "DEFAULTS", "DIVERGING", "DivergenceWatch", "split_watch_options",
           "watch_callback"]

#: the option that turns the watch on or off; its parameters are ``WATCH_OPTION + "." + name``
WATCH_OPTION = "divergence_watch"

#: the watch's parameters and their defaults (see the module docstring)
DEFAULTS: dict[str, Any] = {"growth": 1e2, "floor": 1e1, "window": 50, "reference": 5}

#: what the parameters mean, for messages and the guide
MEANING = {
    "growth": "factor over the infeasibility of the first iterations",
    "floor": "absolute infeasibility below which the watch never stops a solve",
    "window": "iterations over which the median infeasibility and the objective's fall are measured",
    "reference": "first iterations whose largest infeasibility is the reference",
}

#: the first word of the solver's message, and the status the library reports, after a stop
DIVERGING = "diverging"

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _flag(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    text = str(value).strip().strip('"').lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"option {WATCH_OPTION!r} must be True or False (or yes/no, on/off, 1/0), got {value!r}")


def _parameter(name, value):
    key = f"{WATCH_OPTION}.{name}"
    try:
        number = float(str(value).strip().strip('"')) if not isinstance(value, (int, float)) else float(value)
    except ValueError:
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number):
        raise ValueError(f"option {key!r} ({MEANING[name]}) must be a finite number, got {value!r}")
    if name in ("window", "reference"):
        if number != int(number) or number < 1:
            raise ValueError(f"option {key!r} ({MEANING[name]}) must be a whole number of iterations "
                             f"of at least 1, got {value!r}")
        return int(number)
    if name == "growth" and number < 1:
        raise ValueError(f"option {key!r} ({MEANING[name]}) must be at least 1, got {value!r}")
    if name == "floor" and number < 0:
        raise ValueError(f"option {key!r} ({MEANING[name]}) must be non-negative, got {value!r}")
    return number


def split_watch_options(options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """``(ipopt_options, settings)``: ``options`` without the watch's own, and the watch's
    parameters (:data:`DEFAULTS` completed by the options given), or None when
    ``divergence_watch`` is off.  Raises ``ValueError`` naming a bad option or value."""
    rest, given, on = {}, {}, True
    for name, value in options.items():
        if name == WATCH_OPTION:
            on = _flag(value)
        elif name.startswith(WATCH_OPTION + "."):
            key = name[len(WATCH_OPTION) + 1:]
            if key not in DEFAULTS:
                raise ValueError(f"unknown option {name!r}; the divergence watch's parameters are "
                                 + ", ".join(f"{WATCH_OPTION}.{k}" for k in DEFAULTS))
            given[key] = _parameter(key, value)
        else:
            rest[name] = value
    return rest, ({**DEFAULTS, **given} if on else None)


def given_watch_options(options: Iterable[str]) -> list[str]:
    """The names in ``options`` that belong to the watch (for refusing them where no watch runs)."""
    return [n for n in options if n == WATCH_OPTION or n.startswith(WATCH_OPTION + ".")]


class DivergenceWatch:
    """The rule of the module docstring over a sequence of iterates.

    :meth:`observe` takes (f_k, θ_k) and returns True when the solve should stop; then
    :attr:`report` holds the measured numbers and :meth:`message` says them.  ``sigma`` is
    +1 for a minimisation, −1 for a maximisation (IPOPT minimises σ f; reports show f)."""

    #: the first failure inside :func:`watch_callback`'s callback (set by it), or None
    error: str | None

    def __init__(self, growth: float = DEFAULTS["growth"], floor: float = DEFAULTS["floor"],
                 window: int = DEFAULTS["window"], reference: int = DEFAULTS["reference"],
                 sigma: float = 1.0) -> None:
        self.growth, self.floor = float(growth), float(floor)
        self.window, self.reference = int(window), int(reference)
        self.sigma = float(sigma)
        self.f: list[float] = []
        self.theta: list[float] = []
        self.report: dict[str, Any] | None = None

    @property
    def iterations(self) -> int:
        return len(self.theta)

    def threshold(self) -> tuple[float, float]:
        """``(θ_stop, θ_ref)``: θ_stop = max(growth · θ_ref, floor), θ_ref the largest θ of the first
        ``reference`` iterations."""
        ref = max(self.theta[: self.reference]) if self.theta else 0.0
        return max(self.growth * ref, self.floor), ref

    def observe(self, f: float, theta: float) -> bool:
        """Record iterate k = :attr:`iterations` (objective σ f as IPOPT minimises it,
        infeasibility θ); True when the rule says stop (and from then on)."""
        if self.report is not None:
            return True
        self.f.append(float(f))
        self.theta.append(float(theta))
        n, w = len(self.theta), self.window
        if n < self.reference + w:  # the reference and one whole window after it
            return False
        stop, ref = self.threshold()
        recent = sorted(self.theta[-w:])
        median = 0.5 * (recent[(w - 1) // 2] + recent[w // 2])
        begun = n - w
        trading = median > stop and self.f[-1] < self.f[begun]  # infeasible while the objective falls
        runaway = recent[0] > stop  # infeasible at every iterate of the window (a restoration loop)
        if not (trading or runaway):
            return False
        self.report = {
            "rule": "trading" if trading else "runaway",
            "iteration": n - 1, "inf_pr": self.theta[-1], "objective": self.sigma * self.f[-1],
            "since": begun, "inf_pr_median": median, "inf_pr_max": recent[-1],
            "objective_since": self.sigma * self.f[begun],
            "inf_pr_start": self.theta[0], "objective_start": self.sigma * self.f[0],
            "reference": ref, "threshold": stop, "growth": self.growth, "floor": self.floor, "window": w,
        }
        return True

    def message(self) -> str:
        """One sentence with the measured numbers (the solver's message after a stop)."""
        r = self.report
        if r is None:
            return ""
        return message_of(r)


def message_of(r: Mapping[str, Any]) -> str:
    """The sentence of :meth:`DivergenceWatch.message` from a report dict (also read back from the AMPL driver)."""
    return (f"{DIVERGING}: stopped by the divergence watch at iteration {r['iteration']}: over the last "
            f"{r['window']} iterations (since iteration {r['since']}) the primal infeasibility max|g - bounds| "
            f"had a median of {r['inf_pr_median']:.3g}, above {r['threshold']:.3g} (max({r['growth']:.3g} x "
            f"{r['reference']:.3g} of the first iterations, floor {r['floor']:.3g}); peak {r['inf_pr_max']:.3g}, "
            f"now {r['inf_pr']:.3g}), while the objective fell from {r['objective_since']:.6g} to "
            f"{r['objective']:.6g} (start: infeasibility {r['inf_pr_start']:.3g}, objective "
            f"{r['objective_start']:.6g}): the iterates left the feasible set and are buying objective with "
            f"infeasibility")


def watch_callback(settings: Mapping[str, Any], lbg: npt.ArrayLike, ubg: npt.ArrayLike,
                   sigma: float = 1.0) -> tuple[Any, DivergenceWatch]:
    """``(callback, watch)``: a ``casadi.Callback`` for nlpsol's ``iteration_callback`` that feeds
    a :class:`DivergenceWatch` with ``settings`` and returns 1 (stop) when it says so.

    Only ``f`` and ``g`` are declared as inputs (CasADi skips inputs declared empty), so each
    call copies the objective and the rows, nothing else.  A failure inside the callback
    never stops a solve: it is recorded (``watch.error``) and the solve goes on."""
    import casadi
    import numpy as np

    lbg = np.asarray(lbg, dtype=float).ravel()
    ubg = np.asarray(ubg, dtype=float).ravel()
    watch = DivergenceWatch(sigma=sigma, **settings)
    watch.error = None
    ng = lbg.size
    outputs = casadi.nlpsol_out()

    class _Callback(casadi.Callback):
        def __init__(self):
            casadi.Callback.__init__(self)
            self.construct("divergence_watch", {})

        def get_n_in(self):
            return casadi.nlpsol_n_out()

        def get_n_out(self):
            return 1

        def get_name_in(self, i):
            return outputs[i]

        def get_name_out(self, i):
            return "stop"

        def get_sparsity_in(self, i):
            if outputs[i] == "f":
                return casadi.Sparsity.dense(1, 1)
            if outputs[i] == "g":
                return casadi.Sparsity.dense(ng, 1)
            return casadi.Sparsity(0, 0)

        def eval(self, arg):
            try:
                f = float(arg[outputs.index("f")])
                if ng:
                    g = np.asarray(arg[outputs.index("g")], dtype=float).ravel()
                    theta = float(np.max(np.maximum(np.maximum(lbg - g, g - ubg), 0.0)))
                else:
                    theta = 0.0
                return [1.0 if watch.observe(f, theta) else 0.0]
            except Exception as err:  # noqa: BLE001 - the watch must never break a solve
                if watch.error is None:
                    watch.error = f"{type(err).__name__}: {err}"
                return [0.0]

    return _Callback(), watch
