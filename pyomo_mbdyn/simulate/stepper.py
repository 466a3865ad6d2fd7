"""Forward simulation: a Newton stepper on the schemes' own discrete equations.

The residuals of :mod:`pyomo_mbdyn.discretization` are evaluated once with
CasADi symbols, giving a compiled residual and its exact Jacobian; each Newton
iteration is then one call of a compiled CasADi function returning the
residual and the update -J⁻¹ r (CasADi's sparse QR on the Jacobian's
sparsity), read through ``Function.buffer`` into preallocated numpy arrays
(:class:`NewtonFunction`).  The Pyomo scheme blocks solve the very same
equations through ``SolverFactory``.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from ..discretization.common import interval_control_work, interval_joint_rates
from ..discretization.registry import record, scheme_names
from ..discretization.steps import layout
from ..errors import ConfigurationError, MbdynError
from ..mechanics.numeric import check_numeric, real, step_count
from ..trajectory import Trajectory

if TYPE_CHECKING:
    import numpy.typing as npt
    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["Stepper", "SimulationError", "simulate", "newton_solve", "check_initial_state",
           "NewtonFunction", "MAGNITUDE_LIMIT"]

#: inputs of the stepper beyond this magnitude (controls, q0, v0, h and 1/h) are refused
#: before the first step: the step equations multiply them (h² u, M v / h, products of
#: coordinates), and above it their products overflow double precision (1e308) before
#: Newton's method could say anything about the motion
MAGNITUDE_LIMIT = 1e100


class SimulationError(ArithmeticError, MbdynError):
    """Newton's method failed in a time step."""

    default_message = "Try a smaller time step, or check the initial state and the controls."


class Stepper:
    """Newton stepper for any registered scheme with step equations
    (:data:`pyomo_mbdyn.discretization.registry.SCHEMES`: ``record.step``).

    One-step schemes (BEM, REM, RATTLE) step (q_k, v_k) → (q_{k+1}, v_{k+1});
    the variational DMOCC schemes step (q_{k-1}, q_k) → q_{k+1} (the first step
    from (q_0, v_0)), and their node velocities are recovered afterwards from
    the projected discrete Legendre transform; the chart scheme (GC) steps
    (θ_k, ṽ_k) and maps the nodes through the chart.

    Parameters
    ----------
    system : MultibodySystem
    h : float
        Time step: a number (not a bool) in [1/MAGNITUDE_LIMIT, MAGNITUDE_LIMIT].
    scheme : str or SchemeRecord
        A scheme name (or record) whose record has step equations.
    contravariant : bool
        (BEM) use B(q♯) (default) or the plain-midpoint B.
    rotation : {'exp', 'cayley'}
        Reparametrisation and chart.
    tol : float
        Newton tolerance on each unknown's update, relative to
        ``1 + |q| + |v| + |x_i|`` (by quadratic convergence the error
        after the last update is of order tol²).
    max_iter : int

    Examples
    --------
    Release a pendulum from the horizontal; ten REM steps of 10 ms:

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum(actuated=False)
    >>> stepper = Stepper(pendulum, 0.01, "rem")
    >>> stepper.equation_groups                 # the equations of one step
    {'reparametrisation': 12, 'kinematics': 12, 'momentum_balance': 1, 'joint_rates': 1}
    >>> tr = stepper.simulate(pendulum.q0, np.zeros(pendulum.n), 10)
    >>> tr.q.shape, tr.scheme, tr.h
    ((11, 12), 'rem', 0.01)
    >>> tr.newton_iterations
    array([3, 3, 3, 3, 4, 4, 4, 4, 4, 4])
    >>> float(np.ptp(tr.diagnostics()["E"])) < 1e-12   # energy conserved to round-off
    True
    """

    def __init__(self, system: ConstrainedSystem, h: float, scheme: str = "bem", *, contravariant: bool = True, rotation: str = "exp",
                 tol: float = 1e-12, max_iter: int = 25) -> None:
        import casadi

        rec = record(scheme)
        if rec.step is None:
            raise ConfigurationError(f"scheme {rec.name!r} has no Newton stepper here; the stepper "
                                     f"takes {scheme_names(system='multibody')}")
        h = real(h, "time step h", positive=True)
        if not 1.0 / MAGNITUDE_LIMIT <= h <= MAGNITUDE_LIMIT:
            raise ConfigurationError(f"time step h = {h!r} is outside [{1.0 / MAGNITUDE_LIMIT:g}, "
                                     f"{MAGNITUDE_LIMIT:g}]: check its units (seconds)")
        rec.check(system, rec.name, contravariant=contravariant)
        self.system, self.h, self.record, self.scheme = system, float(h), rec, rec.name
        step: Any  # a OneStep, TwoStep or ChartStep: the code below dispatches on its flags
        self.step_equations: Any = rec.step
        step = self.step_equations
        self.contravariant, self.rotation = contravariant, rotation
        self.options = {"contravariant": contravariant, "rotation": rotation}
        self.tol, self.max_iter = tol, max_iter
        self._layout, self.n_unknowns = layout(step, system)
        n, n_act, dof = system.n, len(system.actuated), system.n_velocities
        state = dof if step.in_chart else n

        def sym(name, k):
            s = casadi.SX.sym(name, k)
            return s, np.array([s[i] for i in range(k)], dtype=object)

        x, xs = sym("x", self.n_unknowns)
        parts = {name: xs[sl] for name, sl in self._layout}
        a, a_s = sym("a", state)   # q_k (θ_k), or q_{k-1} for two-step schemes
        b, b_s = sym("b", state)   # v_k (ṽ_k), or q_k
        u, us = sym("u", n_act)

        def function(label, inputs, groups):
            r = casadi.vertcat(*[casadi.SX(e) for group in groups.values() for e in group])
            if r.shape[0] != self.n_unknowns:  # pragma: no cover - a bug, not a user error
                raise RuntimeError(f"{rec.name}: {r.shape[0]} equations for {self.n_unknowns} unknowns")
            return NewtonFunction(casadi.Function(label, inputs, [r, casadi.jacobian(r, x)]))

        h, options = self.h, self.options
        if step.two_step:
            first = step.first_residuals(system, h, a_s, b_s, parts, us, options)
            self._first = function("first", [x, a, b, u], first)
            u1, u1s = sym("u1", n_act)
            res = step.residuals(system, h, a_s, b_s, parts, us, u1s, options)
            self._residual = function("residual", [x, a, b, u, u1], res)
        else:
            res = step.residuals(system, h, a_s, b_s, parts, us, options)
            self._residual = function("residual", [x, a, b, u], res)
        self.equation_groups = {k: len(v) for k, v in res.items()}

    def _vector(self, parts):
        x = np.zeros(self.n_unknowns)
        for name, sl in self._layout:
            if name in parts:
                x[sl] = parts[name]
        return x

    def _parts(self, x):
        return {name: x[sl] for name, sl in self._layout}

    def step(self, a: npt.ArrayLike, b: npt.ArrayLike, u: npt.ArrayLike, previous: Mapping[str, Any] | None = None, k: int = 0, u_next: npt.ArrayLike | None = None, first: bool = True) -> tuple[dict[str, np.ndarray], int]:
        """One Newton step; returns (unknowns by name, iterations).

        One-step and chart schemes: from (a, b) = (q_k, v_k) or (θ_k, ṽ_k) with
        controls u.  Two-step schemes: ``first`` from (q_0, v_0) with u_0, else
        from (a, b) = (q_k, q_{k-1}) with u = u_{k-1} and ``u_next`` = u_k.
        """
        a, b = np.asarray(a, float), np.asarray(b, float)
        step = self.step_equations
        if step.two_step:
            guess = step.guess(self.system, self.h, a, b, previous, self.options, first)
            fun, params = (self._first, (a, b, u)) if first else (self._residual, (b, a, u, u_next))
        else:
            guess = step.guess(self.system, self.h, a, b, previous, self.options)
            fun, params = self._residual, (a, b, u)
        scale = 1.0 + np.abs(b).max(initial=0) + np.abs(a).max(initial=0)
        x, it = newton_solve(fun, self._vector(guess), params, self.tol, self.max_iter, scale,
                             f"{self.scheme} step {k}",
                             explain=lambda: self._explain_step(k, u if u_next is None else np.r_[u, u_next]))
        return self._parts(x), it

    def _explain_step(self, k, u):
        """What a failed step ``k`` was given: its times, h, and its largest control with the
        displacement it causes in one step, |u| h² / m_min (m_min the smallest entry of the
        mass matrix), when that is more than a Newton step can follow."""
        text = f"The step runs from t = {k * self.h:.6g} to {(k + 1) * self.h:.6g} (h = {self.h:g})"
        names = list(self.system.actuated)
        u = np.asarray(u, float).ravel()
        if not names or not u.size:
            return text + " without controls."
        a = int(np.argmax(np.abs(u)))
        name = names[a % len(names)]
        text += f"; its largest control is {name!r} = {u[a]:.6g}"
        try:
            m_min = float(np.min(np.diag(np.asarray(self.system.mass_matrix(), float))))
        except Exception:  # noqa: BLE001 - a mass matrix that depends on q: no estimate
            return text + "."
        moved = abs(u[a]) * self.h ** 2 / m_min
        if moved > 1.0:
            text += (f", which moves the system by about |u| h²/m_min = {moved:.3g} in one step (m_min = "
                     f"{m_min:.3g}, the smallest entry of the mass matrix): more than Newton's method can "
                     "follow from the previous node — check the controls' units and magnitude, or reduce h")
        return text + "."

    def simulate(self, q0: npt.ArrayLike, v0: npt.ArrayLike, steps: int, controls: npt.ArrayLike | None = None) -> Trajectory:
        """Integrate ``steps`` steps from (q0, v0); ``controls`` is (steps, n_act).

        Before the first step, controls, q0 and v0 that are not numbers (bools, texts),
        not finite, or beyond :data:`MAGNITUDE_LIMIT` are a :class:`ConfigurationError`
        naming the control and the step (or the coordinate); a step whose Newton method
        fails raises :class:`SimulationError` saying how it failed, from when to when,
        and which control was largest."""
        system = self.system
        steps = step_count(steps, "simulate")
        n_act = len(system.actuated)
        if controls is not None:
            check_numeric(controls, "simulate: controls", f"an array ({steps}, {n_act}) of numbers")
        U = np.zeros((steps, n_act)) if controls is None else np.asarray(controls, dtype=float)
        if U.ndim == 1 and n_act:
            U = np.tile(U, (steps, 1))
        if U.shape != (steps, n_act):
            raise ConfigurationError(
                f"controls must have shape ({steps}, {n_act}) for the actuated coordinates "
                f"{system.actuated}, got {U.shape}")
        bad = np.argwhere(~np.isfinite(U) | (np.abs(U) > MAGNITUDE_LIMIT))
        if len(bad):
            i, a = bad[0]
            raise ConfigurationError(
                f"simulate: controls must be finite numbers of magnitude ≤ {MAGNITUDE_LIMIT:g}; the control "
                f"of {system.actuated[a]!r} at step {i} is {float(U[i, a])!r} (check its units)")
        check_initial_state(system, q0, v0)
        q0, v0 = np.asarray(q0, dtype=float), np.asarray(v0, dtype=float)
        step = self.step_equations
        t = self.h * np.arange(steps + 1)
        if step.in_chart:
            return self._simulate_chart(q0, v0, steps, U, t)
        Q: Any
        V: Any
        x: Any
        Q, V, iterations, x = [q0], [v0], [], None
        extras: dict[str, Any] = {name: [] for name, _ in self._layout if name not in ("q", "v")}
        # a step that states the controls' work itself (stage controls: work(system, h, state, x, u,
        # options)) records it per interval
        work: Any = [] if callable(getattr(self.step_equations, "work", None)) else None
        for k in range(steps):
            if step.two_step:
                if k == 0:
                    x, it = self.step(q0, v0, U[0], None, 0, first=True)
                else:
                    x, it = self.step(Q[-1], Q[-2], U[k - 1], x, k, u_next=U[k], first=False)
            else:
                x, it = self.step(Q[-1], V[-1], U[k], x, k)
                if work is not None:
                    work.append(self.step_equations.work(system, self.h, Q[-1], V[-1], x, U[k], self.options))
                V.append(x["v"])
            Q.append(x["q"])
            for name in extras:
                extras[name].append(x[name])
            iterations.append(it)
        Q = np.array(Q)
        if step.two_step:
            V = self.step_equations.node_velocities(system, self.h, Q, U, v0)
        V = np.array(V)
        if "nu" in extras:
            nu = np.array(extras.pop("nu"))
        else:  # no joint rates among the unknowns: the controls' work as force × displacement
            nu = interval_joint_rates(system, Q, self.h)
            if work is None and len(system.actuated):
                work = interval_control_work(system, Q, U)
        if work is not None:
            extras["work"] = work
        return Trajectory.of_system(system, t, Q, V, U, nu, self._metadata(steps),  # type: ignore[arg-type]  # a CoordinateSystem too
                                    newton_iterations=np.array(iterations),
                                    **{name: np.array(values) for name, values in extras.items()})

    def _simulate_chart(self, q0, v0, steps, U, t):
        """The chart stepper works on (θ, ṽ); q, v and ν come from the chart."""
        system, step = self.system, self.step_equations
        th, vt = step.enter(system, q0, v0, self.options)
        TH, VT, iterations, x = [th], [vt], [], None
        extras = {name: [] for name, _ in self._layout if name not in ("theta", "vt")}  # θ_{k+½}
        work = [] if callable(getattr(step, "work", None)) else None
        for k in range(steps):
            x, it = self.step(TH[-1], VT[-1], U[k], x, k)
            if work is not None:
                work.append(step.work(system, self.h, TH[-1], VT[-1], x, U[k], self.options))
            TH.append(x["theta"])
            VT.append(x["vt"])
            iterations.append(it)
            for name in extras:
                extras[name].append(x[name])
        if work is not None:
            extras["work"] = work
        Q, V, nu = step.leave(system, TH, VT, self.options)
        return Trajectory.of_system(system, t, Q, V, U, nu, self._metadata(steps),
                                    newton_iterations=np.array(iterations), theta=np.array(TH), vt=np.array(VT),
                                    **{name: np.array(values) for name, values in extras.items()})

    def _metadata(self, steps):
        return {"scheme": self.scheme, "system": self.system.name, "steps": int(steps), "h": self.h,
                "horizon": self.h * steps, "contravariant": self.contravariant}


def check_initial_state(system: ConstrainedSystem, q0: npt.ArrayLike, v0: npt.ArrayLike, tol: float = 1e-9) -> None:
    """Raise if (q0, v0) is off the constraint manifold (position or velocity level).

    Examples
    --------
    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import MultibodySystem, Revolute, RigidBody
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum(actuated=False)
    >>> v0 = pendulum.null_space(pendulum.q0) @ [2.0]     # turning at 2 rad/s: admissible
    >>> check_initial_state(pendulum, pendulum.q0, v0)
    >>> check_initial_state(pendulum, pendulum.q0, np.ones(12))
    Traceback (most recent call last):
        ...
    pyomo_mbdyn.errors.ConfigurationError: MultibodySystem('pendulum'): initial velocity violates the
    constraints (max |G(q0) v0| = 2.00e+00); use v0 = system.null_space(q0) @ nu0
    """
    check_numeric(q0, f"{system}: the initial configuration", "an array of numbers")
    check_numeric(v0, f"{system}: the initial velocity", "an array of numbers")
    q0, v0 = np.asarray(q0, dtype=float), np.asarray(v0, dtype=float)
    if q0.shape != (system.n,) or v0.shape != (system.n,):
        raise ConfigurationError(f"{system}: initial state must have length n = {system.n}; got the initial "
                                 f"configuration of shape {q0.shape} and the initial velocity of shape {v0.shape}")
    for what, x in (("configuration", q0), ("velocity", v0)):
        if not np.all(np.isfinite(x)):
            i = int(np.flatnonzero(~np.isfinite(x))[0])
            raise ConfigurationError(f"{system}: the initial {what} must be finite; entry {i} "
                                     f"({system.coordinates[i]}) is {float(x[i])}")
        if np.abs(x).max(initial=0) > MAGNITUDE_LIMIT:
            i = int(np.argmax(np.abs(x)))
            raise ConfigurationError(f"{system}: the initial {what} has entry {i} ({system.coordinates[i]}) = "
                                     f"{float(x[i])!r}, beyond {MAGNITUDE_LIMIT:g}: check its units")
    phi = np.abs(np.asarray(system.constraints(q0), dtype=float)).max(initial=0)
    if phi > tol:
        raise ConfigurationError(f"{system}: initial configuration is off the constraint manifold "
                                 f"(max |Φ(q0)| = {phi:.2e}); build it with system.reparametrise")
    gv = np.abs(np.asarray(system.constraint_jacobian(q0), dtype=float) @ v0).max(initial=0)
    if gv > tol * max(1.0, np.abs(v0).max()):
        raise ConfigurationError(f"{system}: initial velocity violates the constraints "
                                 f"(max |G(q0) v0| = {gv:.2e}); use v0 = system.null_space(q0) @ nu0")


def simulate(system: ConstrainedSystem, q0: npt.ArrayLike, v0: npt.ArrayLike, h: float, steps: int, controls: npt.ArrayLike | None = None, scheme: str = "bem", **options: Any) -> Trajectory:
    """Convenience: ``Stepper(system, h, scheme, **options).simulate(...)``."""
    return Stepper(system, h, scheme, **options).simulate(q0, v0, steps, controls)


class NewtonFunction:
    """A compiled Newton iteration for ``fun(x, *params) -> (r, J)`` (a CasADi
    ``Function`` with a sparse Jacobian output).

    Calling it returns ``(r, dx)`` with ``dx = -J(x)⁻¹ r(x)``: one evaluation of
    a CasADi function that evaluates ``fun`` and solves with CasADi's sparse QR
    (``Linsol`` plugin ``'qr'``, symbolic factorisation once for the Jacobian's
    sparsity), through ``Function.buffer`` into preallocated numpy arrays: no
    ``DM`` is built, converted or densified, and no BLAS is involved (threaded
    BLAS made dense solves of 100-200 unknowns 40x slower on a loaded machine).
    ``dx`` is ``None`` when the factorisation fails (an exactly singular
    Newton matrix).  The returned arrays are buffers overwritten by the next
    call (copy them to keep them).  Buffers are per thread, so one instance
    may be called from several threads.

    ``residual`` is the original ``fun`` (``DM`` in and out), for callers that
    want the Jacobian itself.
    """

    def __init__(self, fun: Any, linear_solver: str = "qr") -> None:
        import casadi

        self.residual = fun
        self.n = fun.size1_out(0)
        sparsity = fun.sparsity_out(1)
        args = [casadi.MX.sym(fun.name_in(i), fun.sparsity_in(i)) for i in range(fun.n_in())]
        r, J = fun(*args)
        dx = -casadi.Linsol(f"{fun.name()}_linsol", linear_solver, sparsity).solve(J, r)
        self.function = casadi.Function(f"{fun.name()}_newton", args, [r, dx])
        self._sizes = [fun.numel_in(i) for i in range(fun.n_in())]
        self._local = threading.local()

    def _buffers(self):
        local = self._local
        try:
            return local.buffers
        except AttributeError:
            buf, evaluate = self.function.buffer()
            args = [np.zeros(k) for k in self._sizes]
            r, dx = np.zeros(self.n), np.zeros(self.n)
            for i, a in enumerate(args):
                buf.set_arg(i, memoryview(a))
            buf.set_res(0, memoryview(r))
            buf.set_res(1, memoryview(dx))
            local.buffers = (buf, evaluate, args, r, dx)
            return local.buffers

    def __call__(self, x, *params):
        buf, evaluate, args, r, dx = self._buffers()
        for a, value in zip(args, (x, *params)):
            a[:] = value
        evaluate()
        return r, (dx if buf.ret() == 0 else None)

    def __getstate__(self):  # CasADi buffers do not pickle; they are rebuilt on the first call
        state = dict(self.__dict__)
        del state["_local"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._local = threading.local()


#: a residual at or below this is zero to round-off for :func:`newton_solve`: an iterate with
#: it is accepted even where the Newton matrix cannot be solved
ROUND_OFF_RESIDUAL = 1e-14


def newton_solve(fun: Any, x: np.ndarray, params: Sequence[Any], tol: float, max_iter: int, scale: float, label: str, explain: Callable[[], str] | None = None) -> tuple[np.ndarray, int]:
    """Newton's method on ``fun(x, *params) -> (r, J)``; returns (x, iterations).

    ``fun`` is a :class:`NewtonFunction` (or a CasADi ``Function`` returning
    the residual and its Jacobian, compiled into one here: pass the
    :class:`NewtonFunction` when solving repeatedly).
    Converged when every update is below ``tol (scale + |x_i|)``, or when the
    residual has stagnated at round-off (ill-conditioned multiplier systems).
    A failure raises :class:`SimulationError` saying which: a residual that is
    not finite, a singular Newton matrix, an update that overflows, or no
    convergence; ``explain()`` (optional) adds what the caller knows of the
    inputs (the stepper: the step's times and its largest control).
    """
    if not isinstance(fun, NewtonFunction):
        fun = NewtonFunction(fun)
    x = np.array(x, dtype=float)
    r_first = r_prev = None

    def fail(message):
        extra = explain() if explain is not None else ""
        return SimulationError(f"{label}: {message}" + (f" {extra}" if extra else ""))

    for it in range(1, max_iter + 1):
        r, dx = fun(x, *params)
        r_norm = np.abs(r).max(initial=0.0)
        if not np.isfinite(r_norm):
            where = ("at the start of the step (the step's inputs or its first guess do not evaluate)"
                     if it == 1 else f"at Newton iteration {it} (the iterates left the finite numbers)")
            raise fail(f"residual is not finite {where}.")
        r_first = r_norm if r_first is None else r_first
        # converged at round-off: the residual no longer decreases and is tiny
        # (the multiplier formulation is ill-conditioned, O(1/h³), so the
        # updates of γ stagnate well above machine precision)
        if r_prev is not None and r_norm > 0.5 * r_prev and r_norm <= 1e-9 * (1.0 + r_first):
            return x, it - 1
        if dx is None:
            raise fail(f"singular Newton matrix at iteration {it} (|residual| = {r_norm:.3g}): redundant "
                       "constraints, a singular configuration, or inputs so large that their terms swamp the "
                       "rest of the Jacobian.")
        if not np.all(np.isfinite(dx)):
            if r_norm <= ROUND_OFF_RESIDUAL:
                # the iterate already solves the step to round-off (e.g. a state at rest, guessed by
                # the step before); its Newton matrix may be singular there (RATTLE's velocity-level
                # multipliers of a point mass at rest), so there is no update to take
                return x, it - 1
            raise fail(f"the Newton update overflowed at iteration {it} (|residual| = {r_norm:.3g}).")
        x = x + dx
        r_prev = r_norm
        # per unknown: multipliers may be large, configurations O(1)
        if np.all(np.abs(dx) <= tol * (scale + np.abs(x))):
            return x, it
    r = fun(x, *params)[0]
    raise fail(f"Newton did not converge in {max_iter} iterations (|residual| = {np.abs(r).max(initial=0.0):.2e}).")
