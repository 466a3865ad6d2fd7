"""The chart of a tree: minimal coordinates θ ↦ q(θ) and its inverse.

``q(θ) = F(θ, q_ref)`` is the absolute nodal reparametrisation of a tree from
its reference configuration (thesis §2.4; DMOCC §5.3): θ are root positions
and rotation vectors and joint coordinates.  Derivatives along directions come
from Taylor jets (:mod:`.jets`), exact in every backend.

For numbers there is a fast path: ``θ ↦ (q(θ), P̃(θ))`` and
``(θ, ṽ) ↦ (q, P̃ ṽ, (Ṗ ṽ) ṽ)`` are compiled once per (system, rotation) into
CasADi functions from the very same formula (evaluated on CasADi symbols; the
derivatives by CasADi's algorithmic differentiation instead of jets, equal to
round-off), and :func:`chart`, :func:`chart_velocity`, :func:`chart_basis` and
:func:`chart_coordinates` evaluate those when every input is a number.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..mechanics.linalg import as_array, shared_array
from ..mechanics.urdf import angles_in_limits, range_start, range_starts
from .common import applied, compiled_function, numeric as _numeric, symbols
from .jets import directional_derivatives

if TYPE_CHECKING:
    import numpy.typing as npt
    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["chart", "chart_velocity", "chart_state", "chart_states", "chart_replayed", "chart_basis",
           "chart_function", "chart_jets", "chart_transpose", "chart_coordinates"]


def _compiled(system, rotation, name):
    """The CasADi function ``name`` of the chart of ``system`` (built on first use,
    cached per system: :func:`.common.compiled_function`):
    ``'basis'``: θ ↦ (q(θ), P̃(θ)); ``'velocity'``: (θ, ṽ) ↦ (q, P̃ ṽ, (Ṗ ṽ) ṽ);
    ``'state'``: (θ, ṽ) ↦ (q, P̃ ṽ); ``'jets'``: (θ, ṽ, δ) ↦ (q, P̃ ṽ, (Ṗ ṽ) ṽ, P̃ δ);
    ``'transpose'``: (θ, g) ↦ P̃ᵀ g (reverse mode: one pass, not dof columns)."""

    def build():
        import casadi

        theta, entries = symbols("theta", system.n_velocities)
        q = chart(system, entries, rotation)
        q = casadi.vertcat(*[casadi.SX(e) for e in np.asarray(q, dtype=object).ravel()])
        if name == "basis":
            return casadi.Function("chart_basis", [theta], [q, casadi.jacobian(q, theta)])
        if name == "configuration":
            return casadi.Function("chart", [theta], [q])
        if name == "transpose":
            g = casadi.SX.sym("g", system.n)
            return casadi.Function("chart_transpose", [theta, g], [casadi.jtimes(q, theta, g, True)])
        vt = casadi.SX.sym("vt", system.n_velocities)
        v = casadi.jtimes(q, theta, vt)
        if name == "state":
            return casadi.Function("chart_state", [casadi.vertcat(theta, vt)], [q, v])
        if name == "jets":
            delta = casadi.SX.sym("delta", system.n_velocities)
            return casadi.Function("chart_jets", [theta, vt, delta],
                                   [q, v, casadi.jtimes(v, theta, vt), casadi.jtimes(q, theta, delta)])
        return casadi.Function("chart_velocity", [theta, vt], [q, v, casadi.jtimes(v, theta, vt)])

    return compiled_function(system, ("chart", rotation, name), build)


def _evaluate(function, *args):
    return tuple(np.asarray(out, float) for out in function.call([np.asarray(a, float) for a in args]))



def chart(system: ConstrainedSystem, theta: Sequence[Any] | np.ndarray, rotation: str = "exp") -> np.ndarray:
    """Minimal-coordinate map ``q(θ) = F(θ, q_ref)``: the absolute reparametrisation
    of a tree from its reference configuration (thesis §2.4: θ = joint angles,
    root positions and rotation vectors)."""
    t = _numeric(theta) if system.n_velocities else None
    if t is not None and t.shape == (system.n_velocities,):
        return _evaluate(_compiled(system, rotation, "basis"), t)[0].ravel()
    return system.reparametrise(theta, system.q0, rotation)


def chart_velocity(system: ConstrainedSystem, theta: Sequence[Any] | np.ndarray, vt: Sequence[Any] | np.ndarray, rotation: str = "exp") -> tuple[np.ndarray, ...]:
    """``(q, v, a)`` = ``(q(θ), P̃(θ) ṽ, (Ṗ ṽ)(θ) ṽ)`` by Taylor jets, any backend.

    Examples
    --------
    The pendulum hanging down and turning at 2 rad/s: its centre of mass moves
    at 1 m/s and accelerates by 2 m/s² towards the hinge:

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> q, v, a = chart_velocity(pendulum, [np.pi / 2], [2.0])
    >>> q[:3].round(12) + 0.0, v[:3].round(12) + 0.0, a[:3].round(12) + 0.0
    (array([0. , 0.5, 0. ]), array([-1.,  0.,  0.]), array([ 0., -2.,  0.]))
    """
    t, w = (_numeric(theta), _numeric(vt)) if system.n_velocities else (None, None)
    if t is not None and w is not None and t.shape == w.shape == (system.n_velocities,):
        return tuple(x.ravel() for x in _evaluate(_compiled(system, rotation, "velocity"), t, w))
    return directional_derivatives(lambda t: chart(system, t, rotation), theta, vt)


def chart_state(system: ConstrainedSystem, theta: Sequence[Any] | np.ndarray, vt: Sequence[Any] | np.ndarray, rotation: str = "exp", share: bool = True) -> tuple[np.ndarray, ...]:
    """``(q, v) = (q(θ), P̃(θ) ṽ)``.  On Pyomo expressions the compiled chart is
    replayed (:func:`~pyomo_mbdyn.mechanics.replay.replay`: one Pyomo node per
    CasADi instruction, values used twice as named Expressions unless
    ``share=False``), several times cheaper to build than the jets of
    :func:`chart_velocity`."""
    from ..mechanics.replay import backend_of, replay

    theta, vt = np.asarray(theta, dtype=object).ravel(), np.asarray(vt, dtype=object).ravel()
    if system.n_velocities and backend_of(np.concatenate([theta, vt])) == "pyomo":
        q, v = replay(_compiled(system, rotation, "state"), [np.concatenate([theta, vt])], share=share)
        return q, v
    return chart_velocity(system, theta, vt, rotation)[:2]


def chart_states(system: ConstrainedSystem, theta: Sequence[Any] | np.ndarray, vt: Sequence[Any] | np.ndarray | None = None, rotation: str = "exp") -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Node values of the chart for whole trajectories of numbers: ``theta`` and
    ``vt`` of shape (K, dof) ↦ ``q`` (K, n) and, with ``vt``, ``v = P̃(θ) ṽ`` (K, n).

    One call of the compiled chart mapped over the K nodes (the formula of
    :func:`chart`), for reading solved blocks: the panda's 201 nodes take
    milliseconds, where evaluating the chart's Pyomo expressions node by node
    took minutes.

    Examples
    --------
    The pendulum at three nodes, hanging down and turning at 2 rad/s: its centre
    of mass moves at 1 m/s:

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> q, v = chart_states(pendulum, [[0.0], [np.pi / 4], [np.pi / 2]], [[2.0], [2.0], [2.0]])
    >>> q.shape, v.shape
    ((3, 12), (3, 12))
    >>> bool(np.abs(q[2] - chart(pendulum, [np.pi / 2])).max() < 1e-15)
    True
    >>> float(np.linalg.norm(v[2, :3]).round(12))
    1.0
    """
    theta = np.atleast_2d(np.asarray(theta, float))
    K = theta.shape[0]
    n = system.n
    if not system.n_velocities:
        q = np.tile(np.asarray(system.q0, float), (K, 1))
        return q if vt is None else (q, np.zeros((K, n)))
    if vt is None:
        q = _compiled(system, rotation, "configuration").map(K)(theta.T)
        return np.asarray(q, float).T.reshape(K, n)
    vt = np.atleast_2d(np.asarray(vt, float))
    q, v = _compiled(system, rotation, "state").map(K)(np.vstack([theta.T, vt.T]))
    return np.asarray(q, float).T.reshape(K, n), np.asarray(v, float).T.reshape(K, n)


def chart_replayed(system: ConstrainedSystem, theta: Sequence[Any] | np.ndarray, rotation: str = "exp", share: bool = False) -> np.ndarray:
    """``q(θ)`` on Pyomo expressions by replaying the compiled chart
    (:func:`~pyomo_mbdyn.mechanics.replay.replay`, one Pyomo node per CasADi
    instruction; values used twice as named Expressions only with ``share``);
    the same formula as :func:`chart`, several times cheaper to build than
    tracing it through Pyomo's operators.  Numbers and CasADi symbols go to
    :func:`chart`.

    Examples
    --------
    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> import pyomo.environ as pyo
    >>> m = pyo.ConcreteModel()
    >>> m.angle = pyo.Var(initialize=np.pi / 2)
    >>> q = chart_replayed(pendulum, [m.angle])      # 12 Pyomo expressions of the angle
    >>> len(q), np.allclose([pyo.value(x) for x in q], chart(pendulum, [np.pi / 2]))
    (12, True)
    """
    from ..mechanics.replay import backend_of, replay

    theta = np.asarray(theta, dtype=object).ravel()
    if system.n_velocities and backend_of(theta) == "pyomo":
        return replay(_compiled(system, rotation, "configuration"), [theta], share=share)[0]
    return chart(system, theta, rotation)


def chart_basis(system: ConstrainedSystem, theta: Sequence[Any] | np.ndarray, rotation: str) -> np.ndarray:
    """``P̃(θ) = ∂q/∂θ`` column by column (n × dof).

    Examples
    --------
    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> P = chart_basis(pendulum, [0.0], "exp")
    >>> P.shape, P[:3, 0].round(12) + 0.0        # the centre of mass moves along y
    ((12, 1), array([0. , 0.5, 0. ]))
    """
    dof = system.n_velocities
    t = _numeric(theta) if dof else None
    if t is not None and t.shape == (dof,):
        return _evaluate(_compiled(system, rotation, "basis"), t)[1].reshape(system.n, dof)
    cols = []
    for j in range(dof):
        e = np.zeros(dof)
        e[j] = 1.0
        cols.append(shared_array(chart_velocity(system, theta, e, rotation)[1]))
    return as_array(np.array(cols, dtype=object).T.reshape(system.n, dof))


def chart_function(system: ConstrainedSystem, rotation: str = "exp") -> Any:
    """The chart ``θ ↦ q(θ)`` of :func:`chart` as a compiled CasADi ``Function`` (built once
    per system and rotation), for callers that compose it into their own graphs (a
    translator seeding the absolute forms' node configurations).

    Examples
    --------
    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> F = chart_function(pendulum)
    >>> bool(np.allclose(np.asarray(F([0.3])).ravel(), chart(pendulum, [0.3])))
    True
    """
    return _compiled(system, rotation, "configuration")


def chart_jets(system: ConstrainedSystem, theta: Sequence[Any] | np.ndarray, vt: Sequence[Any] | np.ndarray, delta: Sequence[Any] | np.ndarray, rotation: str = "exp") -> tuple[np.ndarray, ...]:
    """``(q, P̃ ṽ, (Ṗ ṽ) ṽ, P̃ δ)`` at θ in any backend, by CasADi's forward mode on
    the compiled chart (:func:`chart`): numbers evaluate it, CasADi expressions call
    it, Pyomo expressions replay it.  The velocity, the convective acceleration
    and the image of a second direction, e.g. the step's Δṽ (GC, thesis Eq. 3.42).

    Examples
    --------
    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> q, v, a, d = chart_jets(pendulum, [np.pi / 2], [2.0], [1.0])
    >>> v[:3].round(12) + 0.0, a[:3].round(12) + 0.0, d[:3].round(12) + 0.0
    (array([-1.,  0.,  0.]), array([ 0., -2.,  0.]), array([-0.5,  0. ,  0. ]))
    """
    if not system.n_velocities:
        zero = np.zeros(system.n)
        return np.asarray(system.q0, float), zero, zero, zero
    return applied(_compiled(system, rotation, "jets"), theta, vt, delta)


def chart_transpose(system: ConstrainedSystem, theta: Sequence[Any] | np.ndarray, g: npt.ArrayLike, rotation: str = "exp") -> np.ndarray:
    """``P̃(θ)ᵀ g`` (dof) in any backend, by one reverse pass through the compiled chart:
    the generalised force of the natural-coordinate force ``g`` (thesis Eq. 3.42's
    ``P̃ᵀ[…]``) without forming P̃'s dof columns.

    Examples
    --------
    The pendulum's weight about its hinge, hanging at 90° (centre of mass 0.5 m out):

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> theta = [0.3]
    >>> g = np.arange(12.0)
    >>> bool(np.allclose(chart_transpose(pendulum, theta, g), chart_basis(pendulum, theta, "exp").T @ g))
    True
    """
    if not system.n_velocities:
        return np.zeros(0)
    return applied(_compiled(system, rotation, "transpose"), theta, g)[0]


#: seeded restarts of the chart's inverse on a URDF arm (Gauss–Newton is local)
RANGE_RETRIES = 8


def chart_coordinates(system: ConstrainedSystem, q: npt.ArrayLike, v: npt.ArrayLike | None = None, rotation: str = "exp", tol: float = 1e-12, start: npt.ArrayLike | None = None, atol: float = 1e-9) -> Any:
    """Invert the chart numerically: θ with q(θ) = q (and ṽ with P̃(θ) ṽ = v).

    Gauss–Newton from ``start`` (default θ = 0; pass the previous node's θ to
    follow a trajectory continuously, e.g. rotor angles beyond π).  Without a
    ``start``, a joint angle with a URDF range (``system.urdf_limits``) starts
    mid-range where the range excludes 0 (:func:`~pyomo_mbdyn.mechanics.urdf.range_start`)
    and is returned on the range's branch (:func:`~pyomo_mbdyn.mechanics.urdf.angles_in_limits`:
    a configuration fixes an angle only up to whole turns; a continuous joint's on
    (−π, π]); where Gauss–Newton from there does not reach ``q`` it is retried from
    :data:`RANGE_RETRIES` seeded starts within the ranges.  Raises
    ``ValueError`` if ``q`` is not reached to ``atol`` (then it is not in the
    chart's domain, e.g. a rotation beyond 2π; a guess that fulfils the
    constraints only approximately needs a larger ``atol``).

    Examples
    --------
    The joint angle of a configuration, and the joint rate of a velocity:

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> q = chart(pendulum, [np.pi / 2])             # hanging down
    >>> chart_coordinates(pendulum, q)
    array([1.57079633])
    >>> chart_coordinates(pendulum, q, v=pendulum.null_space(q) @ [2.0])
    (array([1.57079633]), array([2.]))
    """
    q = np.asarray(q, float)
    dof = system.n_velocities
    ranged = start is None and bool(getattr(system, "urdf_limits", None))
    if ranged:  # 0, or mid-range where a URDF range excludes 0
        theta = range_start(system)
    else:
        theta = np.zeros(dof) if start is None else np.array(start, dtype=float).reshape(dof)
    if dof:  # the compiled chart: q(θ) and P̃(θ) in one evaluation
        basis = _compiled(system, rotation, "basis")

        def chart_and_basis(theta):
            q_theta, P = _evaluate(basis, theta)
            return q_theta.ravel(), P
    else:  # pragma: no cover - a system without coordinates to invert
        def chart_and_basis(theta):
            return (np.asarray(chart(system, theta, rotation), float),
                    np.asarray(chart_basis(system, theta, rotation), float))
    def gauss_newton(theta):
        q_theta, P = chart_and_basis(theta)
        for _ in range(50):
            r = q_theta - q
            if np.abs(r).max() < tol:
                break
            if not (np.all(np.isfinite(r)) and np.all(np.isfinite(P))):
                break  # Newton diverged; LAPACK's least squares may not return on NaN (OpenBLAS 0.3.31)
            theta = theta - np.linalg.lstsq(P, r, rcond=None)[0]
            q_theta, P = chart_and_basis(theta)
        return theta, q_theta, P, q_theta - q

    theta, q_theta, P, r = gauss_newton(theta)
    if ranged:  # a URDF arm: Gauss–Newton is local; retry from seeded starts within the ranges
        for extra in range_starts(system, RANGE_RETRIES):
            if np.abs(r).max() <= atol and np.all(np.isfinite(r)):
                break
            theta, q_theta, P, r = gauss_newton(extra)
    if np.abs(r).max() > atol or (np.isfinite(atol) and not np.all(np.isfinite(r))):
        raise ValueError(f"{system}: configuration not reached by the chart (|q(θ) - q| = {np.abs(r).max():.2e})")
    if ranged:
        placed = angles_in_limits(system, theta)
        if not np.array_equal(placed, theta):  # whole turns: q and the basis are those of θ
            theta = placed
            q_theta, P = chart_and_basis(theta)
    if v is None:
        return theta
    return theta, np.linalg.lstsq(P, np.asarray(v, float), rcond=None)[0]
