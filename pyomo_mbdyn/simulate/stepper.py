"""Forward simulation: a Newton stepper on the schemes' own discrete equations.

The residuals of :mod:`pyomo_mbdyn.discretization` are evaluated once with
CasADi symbols, giving a compiled residual and its exact Jacobian; each time
step is then a dense Newton solve (numpy/LAPACK).  The Pyomo scheme blocks
solve the very same equations through ``SolverFactory``.
"""

from dataclasses import dataclass, field

import numpy as np

from ..errors import ConfigurationError, MbdynError
from ..discretization import (
    bem_residuals,
    chart,
    chart_coordinates,
    chart_velocity,
    gc_residuals,
    dmocc_lm_residuals,
    dmocc_residuals,
    projected_velocity,
    rem_residuals,
)

__all__ = ["Stepper", "Trajectory", "SimulationError", "simulate"]

STEPPER_SCHEMES = ("bem", "rem", "dmocc", "dmocc_lm", "gc")
#: Unknowns of one step of each scheme, in the stepper's order, with their sizes.
SCHEME_UNKNOWNS = {
    "bem": (("q", "n"), ("v", "n"), ("lam", "m"), ("nu", "dof")),
    "rem": (("w", "dof"), ("q", "n"), ("v", "n"), ("nu", "dof")),
    "dmocc_lm": (("q", "n"), ("lam", "m")),
    "dmocc": (("w", "dof"), ("q", "n")),
    "gc": (("theta", "dof"), ("vt", "dof")),
}
VARIATIONAL = ("dmocc", "dmocc_lm")


class SimulationError(ArithmeticError, MbdynError):
    """Newton's method failed in a time step."""

    default_message = "Try a smaller time step, or check the initial state and the controls."


@dataclass
class Trajectory:
    """A simulated trajectory on a uniform grid.

    Attributes
    ----------
    system, scheme, h : the model, scheme name and step
    t : (N+1,)   q, v : (N+1, n)   u : (N, n_act)   nu : (N, dof)
    lam : (N, m) interval multipliers (BEM) or None
    w : (N, dof) increments of the reparametrisation (REM) or None
    newton_iterations : (N,)
    """

    system: object
    scheme: str
    h: float
    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    u: np.ndarray
    nu: np.ndarray
    lam: np.ndarray = None
    w: np.ndarray = None
    newton_iterations: np.ndarray = field(default=None)
    contravariant: bool = True


class Stepper:
    """Newton stepper for ``bem``, ``rem``, ``dmocc`` or ``dmocc_lm`` on a MultibodySystem.

    The energy-momentum schemes step (q_k, v_k) → (q_{k+1}, v_{k+1}); the
    variational DMOCC schemes step (q_{k-1}, q_k) → q_{k+1} (the first step
    from (q_0, v_0)), and their node velocities are recovered afterwards from
    the projected discrete Legendre transform.

    Parameters
    ----------
    system : MultibodySystem
    h : float            time step (> 0)
    scheme : 'bem', 'rem', 'dmocc' or 'dmocc_lm'
    contravariant : bool (BEM) use B(q♯) (default) or the plain-midpoint B
    rotation : 'exp' or 'cayley' (REM increments)
    tol : float          Newton tolerance on each unknown's update, relative to
                         1 + |q| + |v| + |x_i| (by quadratic convergence the error
                         after the last update is of order tol²)
    max_iter : int
    """

    def __init__(self, system, h, scheme="bem", *, contravariant=True, rotation="exp",
                 tol=1e-12, max_iter=25):
        import casadi

        if scheme not in STEPPER_SCHEMES:
            raise ConfigurationError(f"unknown scheme {scheme!r} for the stepper; use one of {STEPPER_SCHEMES}")
        if not (h > 0 and np.isfinite(h)):
            raise ConfigurationError(f"time step h must be positive, got {h!r}")
        if not contravariant and scheme != "bem":
            raise ConfigurationError("the plain-midpoint B is available for the BEM only")
        self.system, self.h, self.scheme = system, float(h), scheme
        self.contravariant, self.rotation = contravariant, rotation
        self.tol, self.max_iter = tol, max_iter
        sizes = {"n": system.n, "m": system.m, "dof": system.n_velocities}
        self._layout = []
        start = 0
        for name, size in SCHEME_UNKNOWNS[scheme]:
            self._layout.append((name, slice(start, start + sizes[size])))
            start += sizes[size]
        self.n_unknowns = start
        n, n_act = system.n, len(system.actuated)

        def sym(name, k):
            s = casadi.SX.sym(name, k)
            return s, np.array([s[i] for i in range(k)], dtype=object)

        x, xs = sym("x", self.n_unknowns)
        q0, q0s = sym("q0", n)
        v0, v0s = sym("v0", n)
        u, us = sym("u", n_act)
        parts = {name: xs[sl] for name, sl in self._layout}
        if scheme == "bem":
            res = bem_residuals(system, self.h, q0s, v0s, parts["q"], parts["v"], parts["lam"],
                                parts["nu"], us, contravariant)
        elif scheme == "rem":
            res = rem_residuals(system, self.h, q0s, v0s, parts["w"], parts["q"], parts["v"],
                                parts["nu"], us, rotation)
        elif scheme == "gc":
            dof = system.n_velocities
            q0, q0s = sym("th0", dof)
            v0, v0s = sym("vt0", dof)
            res = gc_residuals(system, self.h, q0s, v0s, parts["theta"], parts["vt"], us, rotation)
        if scheme in VARIATIONAL:
            if system.friction.any():
                raise ConfigurationError(
                    f"{scheme}: the variational schemes take no Rayleigh friction "
                    f"(coordinates {[v for v, k in zip(system.velocities, system.friction) if k]})")
            q1, q1s = sym("q1", n)
            u1, u1s = sym("u1", n_act)
            if scheme == "dmocc_lm":
                first = dmocc_lm_residuals(system, self.h, None, q0s, parts["q"], parts["lam"],
                                           None, us, v0=v0s)
                res = dmocc_lm_residuals(system, self.h, q0s, q1s, parts["q"], parts["lam"], us, u1s)
            else:
                first = dmocc_residuals(system, self.h, None, q0s, parts["w"], parts["q"], None,
                                        us, v0=v0s, rotation=rotation)
                res = dmocc_residuals(system, self.h, q0s, q1s, parts["w"], parts["q"], us, u1s,
                                      rotation=rotation)
            rf = casadi.vertcat(*[casadi.SX(e) for group in first.values() for e in group])
            self._first = casadi.Function("first", [x, q0, v0, u], [rf, casadi.jacobian(rf, x)])
            r = casadi.vertcat(*[casadi.SX(e) for group in res.values() for e in group])
            self._residual = casadi.Function("residual", [x, q0, q1, u, u1], [r, casadi.jacobian(r, x)])
        else:
            r = casadi.vertcat(*[casadi.SX(e) for group in res.values() for e in group])
            self._residual = casadi.Function("residual", [x, q0, v0, u], [r, casadi.jacobian(r, x)])
        if r.shape[0] != self.n_unknowns:  # pragma: no cover - a bug, not a user error
            raise RuntimeError(f"{scheme}: {r.shape[0]} equations for {self.n_unknowns} unknowns")
        self.equation_groups = {k: len(v) for k, v in res.items()}

    def _initial_guess(self, q, v, x_prev):
        x = np.zeros(self.n_unknowns) if x_prev is None else x_prev.copy()
        sl = dict(self._layout)
        if self.scheme == "gc":
            x[sl["theta"]] = q + self.h * v
            x[sl["vt"]] = v
            return x
        if self.scheme in VARIATIONAL:
            # v is the previous node (q_{k-1}) or, at the first step, v_0
            if "w" in sl:
                if x_prev is None:
                    nu = np.linalg.lstsq(np.asarray(self.system.null_space(q), float), v, rcond=None)[0]
                    x[sl["w"]] = self.h * nu
                x[sl["q"]] = np.asarray(self.system.reparametrise(x[sl["w"]], q, self.rotation), float)
            else:
                x[sl["q"]] = q + self.h * v if x_prev is None else 2 * q - v
            return x
        if self.scheme == "bem":
            x[sl["q"]] = q + self.h * v
            x[sl["v"]] = v
        else:
            nu = x[sl["nu"]] if x_prev is not None else np.zeros(len(x[sl["nu"]]))
            w = self.h * nu
            x[sl["w"]] = w
            x[sl["q"]] = np.asarray(self.system.reparametrise(w, q, self.rotation), dtype=float)
            x[sl["v"]] = v
        return x

    def step(self, q, v, u, x_prev=None, k=0, u_next=None, first=True):
        """One step; returns (x, iterations).

        Energy-momentum schemes: from (q, v) with controls u.  Variational
        schemes: ``first`` from (q_0, v_0) with u_0, else from (q_{k-1} = v,
        q_k = q)... see :meth:`simulate`.
        """
        x = self._initial_guess(np.asarray(q, float), np.asarray(v, float), x_prev)
        if self.scheme in VARIATIONAL:
            if first:
                fun, params = self._first, (q, v, u)
            else:
                fun, params = self._residual, (v, q, u, u_next)
        else:
            fun, params = self._residual, (q, v, u)
        scale = 1.0 + np.abs(np.asarray(v)).max() + np.abs(np.asarray(q)).max()
        return newton_solve(fun, x, params, self.tol, self.max_iter, scale, f"{self.scheme} step {k}")

    def _simulate_gc(self, q0, v0, steps, U):
        """The GC stepper works on (θ, ṽ); q and v come from the chart."""
        system, sl = self.system, dict(self._layout)
        th, vt = chart_coordinates(system, q0, v0, self.rotation)
        TH, VT, iterations, x = [th], [vt], [], None
        for k in range(steps):
            x, it = self.step(TH[-1], VT[-1], U[k], x, k)
            TH.append(x[sl["theta"]])
            VT.append(x[sl["vt"]])
            iterations.append(it)
        Q = [np.asarray(chart(system, t, self.rotation), float) for t in TH]
        V = [np.asarray(chart_velocity(system, t, w, self.rotation)[1], float) for t, w in zip(TH, VT)]
        nu = []
        for k in range(steps):
            q_mid, v_mid, _ = chart_velocity(system, 0.5 * (TH[k] + TH[k + 1]), 0.5 * (VT[k] + VT[k + 1]),
                                             self.rotation)
            nu.append(np.asarray(system.control_matrix(np.asarray(q_mid, float)), float)
                      @ np.asarray(v_mid, float))
        nu = np.array(nu)
        tr = Trajectory(system, "gc", self.h, self.h * np.arange(steps + 1), np.array(Q), np.array(V), U,
                        nu, newton_iterations=np.array(iterations))
        tr.theta, tr.vt = np.array(TH), np.array(VT)
        return tr

    def simulate(self, q0, v0, steps, controls=None):
        """Integrate ``steps`` steps from (q0, v0); ``controls`` is (steps, n_act)."""
        system = self.system
        steps = int(steps)
        if steps < 1:
            raise ConfigurationError(f"steps must be ≥ 1, got {steps}")
        n_act = len(system.actuated)
        U = np.zeros((steps, n_act)) if controls is None else np.asarray(controls, dtype=float)
        if U.ndim == 1 and n_act:
            U = np.tile(U, (steps, 1))
        if U.shape != (steps, n_act):
            raise ConfigurationError(
                f"controls must have shape ({steps}, {n_act}) for the actuated coordinates "
                f"{system.actuated}, got {U.shape}")
        q0, v0 = np.asarray(q0, dtype=float), np.asarray(v0, dtype=float)
        check_initial_state(system, q0, v0)
        if self.scheme == "gc":
            return self._simulate_gc(q0, v0, steps, U)
        Q, V = [q0], [v0]
        extras = {name: [] for name, _ in self._layout if name in ("lam", "nu", "w")}
        iterations = []
        x = None
        sl = dict(self._layout)
        for k in range(steps):
            if self.scheme in VARIATIONAL:
                if k == 0:
                    x, it = self.step(q0, v0, U[0], None, 0, first=True)
                else:
                    x, it = self.step(Q[-1], Q[-2], U[k - 1], x, k, u_next=U[k], first=False)
            else:
                x, it = self.step(Q[-1], V[-1], U[k], x, k)
                V.append(x[sl["v"]])
            Q.append(x[sl["q"]])
            for name in extras:
                extras[name].append(x[sl[name]])
            iterations.append(it)
        if self.scheme in VARIATIONAL:
            V = [v0] + [projected_velocity(system, self.h, Q[k], Q[k + 1], U[k]) for k in range(1, steps)]
            V.append(projected_velocity(system, self.h, Q[steps], None, None, Q[steps - 1], U[steps - 1]))
            nu = np.array([np.linalg.lstsq(np.asarray(system.null_space(0.5 * (Q[k] + Q[k + 1])), float),
                                           (Q[k + 1] - Q[k]) / self.h, rcond=None)[0]
                           for k in range(steps)])
        else:
            nu = np.array(extras["nu"])
        return Trajectory(system, self.scheme, self.h, self.h * np.arange(steps + 1), np.array(Q),
                          np.array(V), U, nu,
                          lam=np.array(extras["lam"]) if "lam" in extras else None,
                          w=np.array(extras["w"]) if "w" in extras else None,
                          newton_iterations=np.array(iterations), contravariant=self.contravariant)




def check_initial_state(system, q0, v0, tol=1e-9):
    """Raise if (q0, v0) is off the constraint manifold (position or velocity level)."""
    q0, v0 = np.asarray(q0, dtype=float), np.asarray(v0, dtype=float)
    if q0.shape != (system.n,) or v0.shape != (system.n,):
        raise ConfigurationError(f"initial state must have length n = {system.n}, got {q0.shape}, {v0.shape}")
    phi = np.abs(np.asarray(system.constraints(q0), dtype=float)).max(initial=0)
    if phi > tol:
        raise ConfigurationError(f"{system}: initial configuration is off the constraint manifold "
                                 f"(max |Φ(q0)| = {phi:.2e}); build it with system.reparametrise")
    gv = np.abs(np.asarray(system.constraint_jacobian(q0), dtype=float) @ v0).max(initial=0)
    if gv > tol * max(1.0, np.abs(v0).max()):
        raise ConfigurationError(f"{system}: initial velocity violates the constraints "
                                 f"(max |G(q0) v0| = {gv:.2e}); use v0 = system.null_space(q0) @ nu0")


def simulate(system, q0, v0, h, steps, controls=None, scheme="bem", **options):
    """Convenience: ``Stepper(system, h, scheme, **options).simulate(...)``."""
    return Stepper(system, h, scheme, **options).simulate(q0, v0, steps, controls)


def newton_solve(fun, x, params, tol, max_iter, scale, label):
    """Newton's method on ``fun(x, *params) -> (r, J)``; returns (x, iterations).

    Converged when every update is below ``tol (scale + |x_i|)``, or when the
    residual has stagnated at round-off (ill-conditioned multiplier systems).
    """
    r_first = r_prev = None
    for it in range(1, max_iter + 1):
        r, J = fun(x, *params)
        r = np.asarray(r).ravel()
        r_norm = np.abs(r).max()
        if not np.isfinite(r_norm):
            raise SimulationError(f"{label}: residual is not finite at Newton iteration {it}.")
        r_first = r_norm if r_first is None else r_first
        # converged at round-off: the residual no longer decreases and is tiny
        # (the multiplier formulation is ill-conditioned, O(1/h³), so the
        # updates of γ stagnate well above machine precision)
        if r_prev is not None and r_norm > 0.5 * r_prev and r_norm <= 1e-9 * (1.0 + r_first):
            return x, it - 1
        try:
            dx = np.linalg.solve(np.asarray(J), -r)
        except np.linalg.LinAlgError:
            raise SimulationError(f"{label}: singular Newton matrix "
                                  "(redundant constraints or a singular configuration).") from None
        x = x + dx
        r_prev = r_norm
        # per unknown: multipliers may be large, configurations O(1)
        if np.all(np.abs(dx) <= tol * (scale + np.abs(x))):
            return x, it
    r = np.asarray(fun(x, *params)[0]).ravel()
    raise SimulationError(f"{label}: Newton did not converge in {max_iter} "
                          f"iterations (|residual| = {np.abs(r).max():.2e}).")
