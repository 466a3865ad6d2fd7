"""Truncated Taylor arithmetic (jets) for exact derivatives in any backend.

A :class:`Jet` ``a + b ε + c ε²/2`` carries a value and its first and second
derivative along one direction.  Evaluating a formula written with ``+ - * /``
(every mechanics formula of the library is) on jets gives, exactly and for
floats, Pyomo expressions or CasADi symbols alike,

    q(θ + s ṽ) = q(θ) + s P̃(θ) ṽ + s²/2 (Ṗ ṽ)(θ) ṽ + O(s³),

which is what the generalised-coordinate scheme needs (thesis §2.5).
"""

from __future__ import annotations

__all__ = ["Jet", "directional_derivatives"]

from typing import Any, Callable, Sequence

import numpy as np


class Jet:
    """Second-order jet ``(value, first, second)`` along one direction."""

    __slots__ = ("v", "d1", "d2")

    def __init__(self, v: Any, d1: Any = 0.0, d2: Any = 0.0) -> None:
        self.v, self.d1, self.d2 = v, d1, d2

    @staticmethod
    def _lift(x):
        return x if isinstance(x, Jet) else Jet(x)

    def __add__(self, other):
        o = self._lift(other)
        return Jet(self.v + o.v, self.d1 + o.d1, self.d2 + o.d2)

    __radd__ = __add__

    def __neg__(self):
        return Jet(-self.v, -self.d1, -self.d2)

    def __sub__(self, other):
        return self + (-self._lift(other))

    def __rsub__(self, other):
        return self._lift(other) - self

    def __mul__(self, other):
        o = self._lift(other)
        return Jet(self.v * o.v, self.d1 * o.v + self.v * o.d1,
                   self.d2 * o.v + 2 * (self.d1 * o.d1) + self.v * o.d2)

    __rmul__ = __mul__

    def __truediv__(self, other):
        o = self._lift(other)
        inv_v = 1.0 / o.v
        inv = Jet(inv_v, -o.d1 * inv_v * inv_v,
                  (2 * (o.d1 * o.d1) * inv_v - o.d2) * inv_v * inv_v)
        return self * inv

    def __rtruediv__(self, other):
        return self._lift(other) / self

    def __repr__(self):
        return f"Jet({self.v!r}, {self.d1!r}, {self.d2!r})"

    def map_parts(self, fn: Callable[[Any], Any]) -> Jet:
        """Apply ``fn`` to the three parts (used to share subexpressions)."""
        return Jet(fn(self.v), fn(self.d1), fn(self.d2))


def directional_derivatives(fun: Callable[[np.ndarray], Any], theta: Sequence[Any] | np.ndarray, direction: Sequence[Any] | np.ndarray) -> tuple[np.ndarray, ...]:
    """``(f(θ), Df(θ)[d], D²f(θ)[d, d])`` of an array-valued ``fun`` at θ along d."""
    jets = np.array([Jet(t, d, 0.0) for t, d in zip(theta, direction)], dtype=object)
    out = np.asarray(fun(jets), dtype=object)
    parts = []
    for attr in ("v", "d1", "d2"):
        parts.append(np.array([getattr(x, attr) if isinstance(x, Jet) else (x if attr == "v" else 0.0)
                               for x in out.ravel()], dtype=object).reshape(out.shape))
    return tuple(parts)
