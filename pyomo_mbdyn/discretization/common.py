"""Pieces shared by the step equations of several schemes.

``u`` is always the control: the applied generalised force on the actuated
coordinates (N, N m).  The step equations are written in the thesis's sign,
``M v̇ + ∇V + Gᵀγ + Bᵀ(K ν + ū) = 0`` with ``ū = -u`` (:func:`thesis_controls`),
so that each reads as the equation it cites; ``ν`` the interval joint rates;
``K`` the Rayleigh friction coefficients of the system.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Callable, Hashable, Sequence

import numpy as np

from ..mechanics.linalg import as_array, shared_array

if TYPE_CHECKING:
    import numpy.typing as npt
    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["thesis_controls", "efforts", "midpoint", "compiled_function", "applied", "symbols", "sx_matrix",
           "numeric", "numeric_kinematics"]

#: system → {key: (layout, q_ref, casadi.Function)}.  Weak keys: the functions go
#: with the system.  (An ``lru_cache`` keyed by ``id(system)`` would either keep
#: every system alive or, once a system dies, hand its functions to a new system
#: that reuses the id.)  A system changed after compiling (bodies or joints added
#: give a new ``layout``; another reference configuration) is compiled again.
_COMPILED: weakref.WeakKeyDictionary[Any, dict[Hashable, tuple[Any, np.ndarray, Any]]] = weakref.WeakKeyDictionary()


def compiled_function(system: ConstrainedSystem, key: Hashable, build: Callable[[], Any]) -> Any:
    """The CasADi ``Function`` ``build()`` of ``system``, built once per ``key``.

    The float fast paths of the numeric recursions (charts, node velocities,
    joint rates) evaluate the library's own formulas once on CasADi symbols
    and then call the compiled function with numbers.
    """
    layout, q_ref = system.layout, system.q0
    functions = _COMPILED.setdefault(system, {})
    entry = functions.get(key)
    if entry is None or entry[0] is not layout or not np.array_equal(entry[1], q_ref):
        entry = functions[key] = (layout, np.array(q_ref, float), build())
    return entry[2]


def applied(function: Any, *args: Any) -> tuple[np.ndarray, ...]:
    """The CasADi ``function`` (one SX Function of the library's formulas) on arrays of
    numbers, CasADi or Pyomo entries, as arrays: numbers are evaluated, CasADi
    expressions call it (its instructions enter the caller's graph), Pyomo expressions
    replay it instruction by instruction (:func:`~pyomo_mbdyn.mechanics.replay.replay`).

    Examples
    --------
    >>> import casadi
    >>> x = casadi.SX.sym("x", 2)
    >>> f = casadi.Function("f", [x], [x * x[0]])
    >>> applied(f, [3.0, 2.0])[0]
    array([9., 6.])
    """
    import casadi

    from ..mechanics.replay import backend_of, replay

    args = [np.asarray(a, dtype=object).ravel() for a in args]  # type: ignore[assignment]  # the arguments as flat arrays
    backend = backend_of(np.concatenate(args))
    if backend == "float":
        outs = function.call([np.asarray(a, float) for a in args])
        return tuple(np.asarray(out, float).ravel() for out in outs)
    if backend == "pyomo":
        return tuple(replay(function, args))
    outs = function.call([casadi.vertcat(*[casadi.SX(x) for x in a]) for a in args])
    return tuple(np.array([out[i] for i in range(out.numel())], dtype=object) for out in outs)


def symbols(name: str, k: int) -> tuple[Any, np.ndarray]:
    """A CasADi ``SX`` column of ``k`` symbols and the same as an object array of entries."""
    import casadi

    s = casadi.SX.sym(name, k)
    return s, np.array([s[i] for i in range(k)], dtype=object)


_STEP_CLASS: list[type] = []


def step_scalar(h: Any) -> Any:
    """The step ``h`` of a formula as a scalar that mixes with object arrays.

    A CasADi ``SX`` symbol (a free horizon's h in a formula traced by
    ``MultibodyBlockData._formula``) becomes an ``SX`` subclass that numpy hands
    its arithmetic to (``__array_ufunc__ = None``): ``array * h`` and
    ``array / h`` are then the entrywise products, as they are for a float or a
    Pyomo expression, which are returned unchanged.
    """
    import casadi

    if not isinstance(h, casadi.SX):
        return h
    if not _STEP_CLASS:
        def entrywise(op):
            def method(self, other):
                if isinstance(other, np.ndarray):
                    out = np.empty(other.shape, dtype=object)
                    for index, x in np.ndenumerate(other):
                        out[index] = op(casadi.SX(self), x)
                    return out
                return Step(op(casadi.SX(self), other))
            return method

        class Step(casadi.SX):
            __array_ufunc__ = None  # type: ignore[assignment]  # None: numpy hands its arithmetic to these methods
            __mul__ = entrywise(lambda a, b: a * b)
            __rmul__ = entrywise(lambda a, b: b * a)
            __truediv__ = entrywise(lambda a, b: a / b)
            __rtruediv__ = entrywise(lambda a, b: b / a)
            __add__ = entrywise(lambda a, b: a + b)
            __radd__ = entrywise(lambda a, b: b + a)
            __sub__ = entrywise(lambda a, b: a - b)
            __rsub__ = entrywise(lambda a, b: b - a)
            __pow__ = entrywise(lambda a, b: a ** b)

            def __neg__(self):
                return Step(-casadi.SX(self))

        _STEP_CLASS.append(Step)
    return _STEP_CLASS[0](h)


def sx_matrix(A: npt.ArrayLike) -> Any:
    """An array (vector or matrix) of CasADi entries and numbers as one ``SX`` matrix."""
    import casadi

    A = np.asarray(A, dtype=object)
    A = A.reshape(-1, 1) if A.ndim == 1 else A
    out = casadi.SX(*A.shape)
    for (i, j), a in np.ndenumerate(A):
        if not (isinstance(a, (int, float)) and a == 0):
            out[i, j] = a
    return out


def numeric_kinematics(system: ConstrainedSystem, q: npt.ArrayLike, which: Sequence[str]) -> list[np.ndarray]:
    """``[G(q), B(q), P(q)][which]`` for numbers ``q``, from functions compiled once per
    system (``which`` a tuple of names among ``'G'``, ``'B'`` (contravariant B(q♯)),
    ``'B_plain'`` (the plain-midpoint B), ``'P'`` and ``'P_tree'`` (the tree's null space: P
    for a tree, n × n_ν for loops))."""
    import casadi

    def build():
        x, entries = symbols("q", system.n)
        formulas = {"G": system.constraint_jacobian, "B": system.control_matrix,
                    "B_plain": lambda q: system.control_matrix(q, False), "P": system.null_space,
                    "P_tree": system.tree_null_space}
        return casadi.Function("kinematics", [x], [sx_matrix(formulas[w](entries)) for w in which],
                               ["q"], list(which))

    f = compiled_function(system, ("kinematics", tuple(which)), build)
    return [out.full() for out in f.call([np.asarray(q, float)])]


def numeric(x: npt.ArrayLike) -> np.ndarray | None:
    """``x`` as a float array if every entry is a number, else ``None``."""
    a = np.asarray(x)
    if a.dtype.kind in "biuf":
        return a.astype(float)
    if a.dtype == object:
        a = as_array(a)
        if a.dtype.kind == "f":
            return a
    return None


def interval_joint_rates(system: ConstrainedSystem, q: npt.ArrayLike, h: float) -> np.ndarray:
    """ν_{k,k+1} = P(q_{k+½})⁺ (q_{k+1} - q_k)/h for node configurations ``q`` (N+1, n), numbers
    only: the joint rates of schemes that have no joint-rate unknowns (DMOCC, RATTLE); over the
    tree coordinates (P_t) for a system with loops."""
    from ..mechanics import MultibodySystem

    if isinstance(system, MultibodySystem):  # P(q) compiled once per system
        def null_space(x):
            return numeric_kinematics(system, x, ("P_tree",))[0]
    else:
        def null_space(x):
            return np.asarray(system.null_space(x), float)
    q = np.asarray(q, float)
    return np.array([np.linalg.lstsq(null_space(0.5 * (q[k] + q[k + 1])), (q[k + 1] - q[k]) / h, rcond=None)[0]
                     for k in range(len(q) - 1)])


def interval_control_work(system: ConstrainedSystem, q: npt.ArrayLike, u: npt.ArrayLike) -> np.ndarray:
    """The controls' work per interval as force × displacement, for node configurations ``q``
    (N+1, n) and interval controls ``u`` (N, actuators), numbers only:

        W_{k,k+1} = -u_k · ½[B(q_k) + B(q_{k+1})]_a (q_{k+1} - q_k),

    the work done on the actuators (the conservation table's sign: T + V + W conserved), with B
    the control matrix at the nodes (``system.control_matrix``) and ``a`` its actuated rows.  It is
    the work of the force as DMOCC, DMOCC-LM and RATTLE apply it: ``(h/2) B(q_k)ᵀu_k`` at q_k and
    ``(h/2) B(q_{k+1})ᵀu_k`` at q_{k+1}, each along the step's displacement — a second-order
    quadrature of ∫ u·θ̇ dt that needs no joint rates.  Those schemes have none among their
    unknowns, and the rates recovered from the null space, P⁺Δq/h (:func:`interval_joint_rates`),
    are not the rates of the actuated coordinates when Δq leaves range P(q_{k+½}): on the crane's
    winch they were off by up to 18 and the energy balance error stalled at 0.396 under
    refinement (issue 46).  B is taken at the nodes, which lie on the constraint manifold, so it
    stays finite where the chord midpoint degenerates (a guess turning a body half a turn in one
    step)."""
    from ..mechanics import MultibodySystem

    q = np.asarray(q, float)
    N = len(q) - 1
    u = np.asarray(u, float).reshape(N, len(system.actuated))
    act = system.actuated_indices
    if isinstance(system, MultibodySystem):  # B(q) compiled once per system
        B = [numeric_kinematics(system, x, ("B",))[0][act] for x in q]
    else:
        B = [np.asarray(system.control_matrix(x), float)[act] for x in q]
    return np.array([-0.5 * (u[k] @ ((B[k] + B[k + 1]) @ (q[k + 1] - q[k]))) for k in range(N)])


def thesis_controls(system: ConstrainedSystem, u: Sequence[Any] | np.ndarray) -> list[Any]:
    """The controls as the thesis writes them, ``ū = -u`` (minus the applied generalised
    force), placed into a length-dof vector over the joint rates ν: the one place where
    the library's sign (u the applied force) meets the papers' equations
    ``M v̇ + ∇V + Gᵀγ + Bᵀ(K ν + ū) = 0`` (thesis §0).

    Examples
    --------
    A two-link arm with a motor at the elbow only, applying 0.5 N m:

    >>> from pyomo_mbdyn.mechanics import examples
    >>> arm = examples.double_pendulum(actuated=["elbow"])
    >>> arm.velocities, thesis_controls(arm, [0.5])
    (['shoulder.angle', 'elbow.angle'], [0.0, -0.5])
    """
    full = [0.0] * system.n_velocities
    for a, idx in enumerate(system.actuated_indices):
        full[idx] = -u[a]
    return full


def efforts(system: ConstrainedSystem, nu: Sequence[Any] | np.ndarray, u_full: Sequence[Any] | np.ndarray) -> np.ndarray:
    """``K ν + ū`` without zero terms (``ū`` from :func:`thesis_controls`)."""
    K = system.friction
    out = []
    for j in range(system.n_velocities):
        e = 0.0
        if K[j] != 0:
            e = nu[j] * float(K[j])
        if not (isinstance(u_full[j], float) and u_full[j] == 0.0):
            e = u_full[j] if (isinstance(e, float) and e == 0.0) else e + u_full[j]
        out.append(e)
    return shared_array(np.array(out, dtype=object))


def midpoint(a: npt.ArrayLike, b: npt.ArrayLike) -> np.ndarray:
    """``(a + b)/2`` elementwise, as a shared array (any backend)."""
    return shared_array(as_array((as_array(a) + as_array(b)) * 0.5))

