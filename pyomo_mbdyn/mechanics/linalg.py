"""Backend-agnostic small linear algebra and rotation maps.

Every mechanics formula in pyomo_mbdyn is written once, over numpy arrays whose
entries may be floats, Pyomo expressions or CasADi ``SX``/``MX`` scalars.  The
helpers here keep to operations all three support (``+ - * /`` and the few
elementary functions dispatched by :func:`elementwise`), and return ``float``
arrays when the input is numeric and ``object`` arrays otherwise.  Products of
an array and a symbolic scalar go through :func:`scale`.

Rotation maps are *smooth*: no branch at zero rotation.  The exponential map
uses the entire functions ``sin(a)/a`` and ``(1 - cos a)/a²`` of ``s = a² =
θ·θ`` as Taylor series evaluated by Horner's rule; with :data:`SERIES_TERMS`
terms the truncation error is below 1e-16 for ``|θ| ≤ 3π``; the alternating
series loses digits to cancellation as ``|θ|`` grows (error below
``e^{|θ|}`` ulp): measured below 2e-14 for ``|θ| ≤ 2π``, 3e-13 at ``|θ| = 3π``.
"""

from __future__ import annotations

import contextlib
import math
from typing import TYPE_CHECKING, Any, Callable, Iterator

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = [
    "as_array",
    "scale",
    "matmul",
    "hat",
    "cross",
    "dot",
    "outer",
    "sin_cos",
    "trig",
    "axis_rotation",
    "dependent_rows",
    "rotation_exp",
    "rotation_cayley",
    "ROTATION_MAPS",
    "contravariant",
    "SERIES_TERMS",
]

#: Terms of the Taylor series in s = θ·θ for the exponential map; the remainder
#: is below 1e-16 for |θ| ≤ 3π (and far below for increments of a radian).
SERIES_TERMS = 24


def _is_numeric(x):
    return isinstance(x, (int, float, np.floating, np.integer))


# -- shared subexpressions -------------------------------------------------------
# Pyomo expressions are trees: a subexpression used in many places is written
# out (to the .nl file, to every evaluation) as often as it is used.  While a
# scheme block is built it registers a *sharer* that turns such subexpressions
# into named ``Expression`` components, which the .nl writer emits once.
# CasADi graphs share nodes already; numbers need nothing.
_SHARERS: list[Callable[[Any], Any]] = []


@contextlib.contextmanager
def sharing(sharer: Callable[[Any], Any]) -> Iterator[None]:
    """Within the block, :func:`shared` passes Pyomo expressions to ``sharer``."""
    _SHARERS.append(sharer)
    try:
        yield
    finally:
        _SHARERS.pop()


def name_next(expressions: Any, expr: Any) -> Any:
    """Store ``expr`` as the next entry of the indexed ``Expression`` component
    ``expressions`` (indexed by ``Any`` or the non-negative integers) and return that
    named entry: the usual sharer for :func:`sharing`.

    >>> import pyomo.environ as pyo
    >>> m = pyo.ConcreteModel()
    >>> m.x = pyo.Var()
    >>> m.shared = pyo.Expression(pyo.Any)
    >>> name_next(m.shared, m.x ** 2).name, name_next(m.shared, m.x + 1).name
    ('shared[0]', 'shared[1]')
    """
    k = len(expressions)
    expressions[k] = expr
    return expressions[k]


def _worth_naming(x):
    """A Pyomo expression that is not already named and not just the negation of a
    variable or named expression (naming those adds components, not sharing)."""
    if x.is_named_expression_type():
        return False
    if x.nargs() == 1 and type(x).__name__ == "NegationExpression":
        arg = x.args[0]
        return arg.is_expression_type() and not arg.is_named_expression_type()
    return True


def shared(x: Any) -> Any:
    """Mark ``x`` as a subexpression worth computing once (see :func:`sharing`)."""
    if _SHARERS and hasattr(x, "map_parts"):  # a Taylor jet: share its parts
        return x.map_parts(shared)
    if _SHARERS and getattr(x, "is_expression_type", None) is not None:
        if x.is_expression_type() and not type(x).__module__.startswith("casadi") and _worth_naming(x):
            return _SHARERS[-1](x)
    return x


def shared_array(A: npt.ArrayLike) -> np.ndarray:
    """:func:`shared` applied to every entry of an array."""
    if not _SHARERS:
        return as_array(A)
    A = np.asarray(A, dtype=object)
    out = np.empty(A.shape, dtype=object)
    for idx, a in np.ndenumerate(A):
        out[idx] = shared(a)
    return as_array(out)


def as_array(x: npt.ArrayLike) -> np.ndarray:
    """``x`` as a numpy array: float when every entry is a number, else object."""
    if isinstance(x, np.ndarray) and x.dtype.kind in "biuf":  # numbers already: no object round trip
        return x.astype(float)
    a = np.asarray(x, dtype=object)
    if all(_is_numeric(v) for v in a.flat):
        return a.astype(float)
    return a


def scale(A: npt.ArrayLike, c: Any) -> np.ndarray:
    """Element-wise ``A * c`` for an array ``A`` and a scalar ``c`` of any backend.

    (``ndarray * casadi.SX`` would turn into a CasADi matrix, and Pyomo may try
    to convert the array; this keeps an ndarray.)
    """
    A = np.asarray(A, dtype=object)
    out = np.empty(A.shape, dtype=object)
    for idx, a in np.ndenumerate(A):
        out[idx] = a * c
    return as_array(out)


def _is_zero(x):
    return _is_numeric(x) and x == 0


def matmul(A: npt.ArrayLike, B: npt.ArrayLike) -> np.ndarray:
    """``A @ B`` skipping numeric zeros, so symbolic results stay compact.

    (Pyomo keeps ``0.0*x`` terms; a product of sparse mechanics matrices would
    otherwise fill every entry with them.)  Works for matrix @ matrix and
    matrix @ vector, any backend; returns float arrays for numeric input.
    """
    if (isinstance(A, np.ndarray) and isinstance(B, np.ndarray)
            and A.dtype.kind in "biuf" and B.dtype.kind in "biuf"):  # numbers: no object round trip
        if A.ndim != 2 or B.ndim not in (1, 2) or A.shape[1] != B.shape[0]:
            raise ValueError(f"matmul: shapes {A.shape} and {B.shape} do not align")
        return A.astype(float) @ B.astype(float)
    A, B = np.asarray(A, dtype=object), np.asarray(B, dtype=object)
    vector = B.ndim == 1
    if vector:
        B = B.reshape(-1, 1)
    if A.shape[1] != B.shape[0]:
        raise ValueError(f"matmul: shapes {A.shape} and {B.shape} do not align")
    if A.dtype != object or all(_is_numeric(x) for x in A.flat) and all(_is_numeric(x) for x in B.flat):
        out = A.astype(float) @ B.astype(float)
        return out.ravel() if vector else out
    out = np.empty((A.shape[0], B.shape[1]), dtype=object)
    nz_cols = [[k for k in range(A.shape[1]) if not _is_zero(A[i, k])] for i in range(A.shape[0])]
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            acc = 0.0
            for k in nz_cols[i]:
                b = B[k, j]
                if _is_zero(b):
                    continue
                a = A[i, k]
                term = b if (_is_numeric(a) and a == 1) else (a if (_is_numeric(b) and b == 1) else a * b)
                acc = term if (_is_numeric(acc) and acc == 0) else acc + term
            out[i, j] = acc
    out = as_array(out)
    return out.ravel() if vector else out


def hat(a: npt.ArrayLike) -> np.ndarray:
    """Skew matrix with ``hat(a) @ b == a × b`` (shape (3, 3)).

    Examples
    --------
    >>> hat([1.0, 2.0, 3.0])
    array([[ 0., -3.,  2.],
           [ 3.,  0., -1.],
           [-2.,  1.,  0.]])
    >>> hat([1.0, 2.0, 3.0]) @ [0.0, 0.0, 1.0]        # = (1, 2, 3) × e_3
    array([ 2., -1.,  0.])
    """
    a = as_array(a)
    z = 0.0 * a[0] if a.dtype == object else 0.0
    return as_array([[z, -a[2], a[1]], [a[2], z, -a[0]], [-a[1], a[0], z]])


def cross(a: npt.ArrayLike, b: npt.ArrayLike) -> np.ndarray:
    """The cross product a × b of two 3-vectors (any backend)."""
    a, b = as_array(a), as_array(b)
    return as_array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )


def dot(a: npt.ArrayLike, b: npt.ArrayLike) -> Any:
    """The scalar product Σ a_i b_i (any backend)."""
    a, b = as_array(a), as_array(b)
    return sum(a[i] * b[i] for i in range(len(a)))


def outer(a: npt.ArrayLike, b: npt.ArrayLike) -> np.ndarray:
    """The outer product ``[[a_i b_j]]`` (any backend)."""
    a, b = as_array(a), as_array(b)
    return as_array([[a[i] * b[j] for j in range(len(b))] for i in range(len(a))])


def _horner(coefficients, s):
    result = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        result = c + s * result
    return result


_SINC = [(-1.0) ** k / math.factorial(2 * k + 1) for k in range(SERIES_TERMS)]
_COSC = [(-1.0) ** k / math.factorial(2 * k + 2) for k in range(SERIES_TERMS)]


def sin_cos(a: Any) -> tuple[Any, Any]:
    """``(sin a, cos a)`` as the series of :func:`rotation_exp` (``+ - *`` only).

    Works on every backend and on Taylor jets; accurate to 2e-14 for
    ``|a| ≤ 2π`` and 3e-13 at ``|a| = 3π`` (see the module docstring).

    Examples
    --------
    >>> s, c = sin_cos(0.5)
    >>> np.allclose([s, c], [np.sin(0.5), np.cos(0.5)], rtol=0, atol=1e-15)
    True

    On a Pyomo variable it gives a polynomial (no ``sin``/``cos`` node):

    >>> import pyomo.environ as pyo
    >>> m = pyo.ConcreteModel()
    >>> m.a = pyo.Var(initialize=0.5)
    >>> s, c = sin_cos(m.a)
    >>> round(pyo.value(s), 12), "sin" in str(s)
    (0.479425538604, False)
    """
    s = shared(a * a)
    return a * shared(_horner(_SINC, s)), 1.0 - s * shared(_horner(_COSC, s))


def rotation_exp(theta: npt.ArrayLike) -> np.ndarray:
    """Rodrigues' formula ``exp(θ̂) = I + sin(a)/a θ̂ + (1 - cos a)/a² θ̂²``.

    ``a = |θ|``; both coefficients are evaluated as series in ``θ·θ`` (smooth
    at θ = 0; accurate to 2e-14 for ``|θ| ≤ 2π``, 3e-13 at ``|θ| = 3π``).  DMOCC paper Eq. (4.6);
    thesis §2.4.

    Examples
    --------
    A quarter turn about ``e_3``:

    >>> R = rotation_exp([0.0, 0.0, np.pi / 2])
    >>> R.round(12) + 0.0
    array([[ 0., -1.,  0.],
           [ 1.,  0.,  0.],
           [ 0.,  0.,  1.]])
    >>> np.allclose(R @ R.T, np.eye(3))
    True
    """
    theta = as_array(theta)
    s = shared(dot(theta, theta))
    T = hat(theta)
    c1, c2 = shared(_horner(_SINC, s)), shared(_horner(_COSC, s))
    return shared_array(np.eye(3) + scale(T, c1) + scale(matmul(T, T), c2))


def trig(a: Any) -> tuple[Any, Any]:
    """``(sin a, cos a)`` exactly, for every ``a``: floats, Pyomo and CasADi
    expressions (:func:`elementwise`) and Taylor jets (chain rule to second
    order).  Unlike :func:`sin_cos` it is not limited to ``|a| ≤ 3π``.

    Examples
    --------
    >>> s, c = trig(10.0)                   # beyond the series' range
    >>> np.allclose([s, c], [np.sin(10.0), np.cos(10.0)])
    True
    >>> import pyomo.environ as pyo
    >>> m = pyo.ConcreteModel()
    >>> m.a = pyo.Var(initialize=0.3)
    >>> print(*trig(m.a))                   # Pyomo's own sin and cos
    sin(a) cos(a)
    """
    if hasattr(a, "map_parts"):  # a jet a + a' ε + a'' ε²/2
        s, c = trig(a.v)
        d1, d2 = a.d1, a.d2
        return (type(a)(s, c * d1, c * d2 - s * (d1 * d1)),
                type(a)(c, -(s * d1), -(s * d2) - c * (d1 * d1)))
    return shared(elementwise("sin", a)), shared(elementwise("cos", a))


def axis_rotation(alpha: Any, axis: npt.ArrayLike) -> np.ndarray:
    """``exp(α â) = I + sin α â + (1 - cos α) â²`` about a fixed numeric unit axis.

    Exact for every angle (joint angles of the absolute reparametrisation grow
    without bound: a spinning rotor), where the series of :func:`rotation_exp`
    holds only for ``|α| ≤ 3π``.
    """
    A = np.asarray(hat(np.asarray(axis, float)), float)
    s, c = trig(alpha)
    return shared_array(np.eye(3) + scale(A, s) + scale(A @ A, 1.0 - c))


def is_unit_axis(a: npt.ArrayLike, tol: float = 1e-14) -> bool:
    """True if ``a`` is a numeric vector of length one (a fixed rotation axis)."""
    a = np.asarray(a, dtype=object).reshape(-1)
    return all(_is_numeric(x) for x in a) and abs(math.fsum(float(x) ** 2 for x in a) - 1.0) < tol


def rotation_cayley(theta: npt.ArrayLike) -> np.ndarray:
    """Cayley map ``(I - θ̂/2)⁻¹(I + θ̂/2) = I + 4/(4 + θ·θ) (θ̂ + θ̂²/2)``.

    Rational and smooth; agrees with ``exp`` to second order in θ.

    Examples
    --------
    >>> theta = [0.0, 0.0, 0.1]
    >>> C = rotation_cayley(theta)
    >>> np.allclose(C @ C.T, np.eye(3))               # a rotation
    True
    >>> float(np.abs(C - rotation_exp(theta)).max()) < 1e-3   # ≈ exp for small θ
    True
    """
    theta = as_array(theta)
    T = hat(theta)
    c = shared(4.0 / (4.0 + dot(theta, theta)))
    return shared_array(np.eye(3) + scale(T + 0.5 * matmul(T, T), c))


ROTATION_MAPS = {"exp": rotation_exp, "cayley": rotation_cayley}


def contravariant(directors: npt.ArrayLike) -> np.ndarray:
    """Contravariant (dual) directors ``d^i`` of three vectors ``d_i``.

    ``d^i · d_j = δ_ij``, i.e. the columns of ``R^{-T}`` for ``R = [d_1 d_2 d_3]``
    (thesis §2.6, Betsch, Siebert & Sänger 2012), written with cross products so
    that it works for every backend: ``d^1 = (d_2 × d_3)/det`` and cyclic.

    Parameters
    ----------
    directors : array, shape (3, 3)
        Row ``i`` is ``d_i`` (typically the midpoint ``(d_{i,k} + d_{i,k+1})/2``).
    """
    d = as_array(directors)
    c = [cross(d[1], d[2]), cross(d[2], d[0]), cross(d[0], d[1])]
    inv = shared(1.0 / dot(d[0], c[0]))
    return shared_array([scale(ci, inv) for ci in c])


def elementwise(name: str, x: Any) -> Any:
    """Apply ``sin``/``cos``/``sqrt`` to a number, Pyomo or CasADi expression."""
    if _is_numeric(x):
        return getattr(math, name)(x)
    module = type(x).__module__
    if module.startswith("casadi"):
        import casadi

        return getattr(casadi, name)(x)
    import pyomo.environ as pyo

    return getattr(pyo, name)(x)


def dependent_rows(G: npt.ArrayLike, tol: float = 1e-9) -> list[int]:
    """Indices of the rows of the float matrix ``G`` that depend on earlier rows
    (rank test relative to ``max |G|``): the redundant constraints of a Jacobian."""
    G = np.asarray(G, dtype=float)
    kept: list[int] = []
    dependent: list[int] = []
    for i in range(G.shape[0]):
        if np.linalg.matrix_rank(G[kept + [i]], tol=tol * max(1.0, np.abs(G).max())) > len(kept):
            kept.append(i)
        else:
            dependent.append(i)
    return dependent
