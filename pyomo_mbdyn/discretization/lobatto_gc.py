"""Step equations of the three-stage Lobatto IIIA–IIIB pair in chart coordinates (fourth-order GC).

The variational integrator of the Lagrangian of the system's chart θ ↦ q(θ)
(:mod:`.charts`; for a chain from the ground θ are the joint angles),

    L(θ, θ̇) = ½ (P̃(θ)θ̇)ᵀ M (P̃(θ)θ̇) − V(q(θ)),

with the discrete Lagrangian of quadratic polynomials and Lobatto (Simpson)
quadrature (Marsden & West 2001, §2.6; Hairer, Lubich & Wanner, *Geometric Numerical
Integration*, 2nd ed., §VI.6.3–6.4: it *is* the Lobatto IIIA–IIIB pair with s = 3):
θ(t) quadratic through θ_k, θ_{k+½}, θ_{k+1} on [t_k, t_k + h], stage values
Θ = (θ_k, θ_{k+½}, θ_{k+1}) at c = (0, ½, 1) with the weights b = (⅙, ⅔, ⅙), stage rates

    h Θ̇_1 = −3θ_k + 4θ_{k+½} − θ_{k+1},   h Θ̇_2 = θ_{k+1} − θ_k,   h Θ̇_3 = θ_k − 4θ_{k+½} + 3θ_{k+1},

and the action ``S(θ_k, θ_{k+½}, θ_{k+1}) = h Σ_s b_s L(Θ_s, Θ̇_s)``.  The controls act at
the stages as the generalised forces ``F_s = P̃(Θ_s)ᵀB(q(Θ_s))ᵀu_s`` (u the applied
force, as everywhere in the library; F_s = u_s on a chain of revolute and prismatic
joints), their virtual work by the same quadrature (discrete Lagrange–d'Alembert).  One
step ``(θ_k, ṽ_k) → (θ_{k+1}, ṽ_{k+1})`` is the pair of discrete Legendre transforms and
the stationarity of S in the middle node:

::

    start_momentum     p(θ_k, ṽ_k) + ∂S/∂θ_k + h b_1 F_1                     (dof)
    stage_balance      ∂S/∂θ_{k+½} + h b_2 F_2                              (dof)
    momentum_balance   p(θ_{k+1}, ṽ_{k+1}) − ∂S/∂θ_{k+1} − h b_3 F_3        (dof)

with the momentum ``p(θ, ṽ) = ∂L/∂θ̇ = P̃ᵀMP̃ ṽ`` and the unknowns θ_{k+½}, θ_{k+1},
ṽ_{k+1} (3 dof; the arm: 9 per step and 9 stage controls, against 215 unknowns per
step of :mod:`.lobatto` in natural coordinates).  Fourth order in θ, ṽ and the
optimal cost (with one control per stage), symplectic and symmetric; the energy error
bounded, O(h⁴); a momentum map exact where its symmetry acts linearly on θ (a shift of
a joint angle: the conjugate momentum of a vertical first joint), not for rotations of
a free root (its rotation vector).  Trees only (the chart of a tree).

Written out, ``∂S/∂θ_j = h b_j ∂L/∂θ(Θ_j, Θ̇_j) + Σ_s b_s p(Θ_s, Θ̇_s) STAGE_RATES[s, j]``: the
stage momenta P_s = p(Θ_s, Θ̇_s) and slopes ∂L/∂θ of the partitioned Runge–Kutta form, with
``∂L/∂θ = (∂(P̃θ̇)/∂θ)ᵀ M P̃θ̇ − P̃ᵀ∇V`` by one reverse pass of L through the chart (CasADi's
algorithmic differentiation) at each stage; where the chart's rates are the generalised
velocities (chains of revolute and prismatic joints, B P̃ = I) the stage forces are u_s.
The step is compiled once per system and rotation parametrisation
(:func:`.common.compiled_function`) and used in every backend (:func:`.common.applied`:
numbers evaluate it, CasADi graphs call it, Pyomo expressions replay it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from .charts import chart_velocity
from .common import applied, compiled_function, symbols, thesis_controls
from .lobatto import LOBATTO_WEIGHTS
from .steps import ChartStep

if TYPE_CHECKING:
    import numpy.typing as npt
    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["STAGE_RATES", "lobatto_gc_residuals", "lobatto_gc_work", "LobattoGCStep", "LOBATTO_GC_STEP"]

#: h Θ̇_s = Σ_j STAGE_RATES[s, j] Θ_j: the rates of the quadratic through the nodes 0, ½, 1 at the stages
STAGE_RATES = np.array([[-3.0, 4.0, -1.0], [-1.0, 0.0, 1.0], [1.0, -4.0, 3.0]])


def _stage_rates(h, nodes):
    """``[Θ̇_1, Θ̇_2, Θ̇_3]`` of the quadratic through the three nodes (arrays of any backend)."""
    return [sum(c * x for c, x in zip(row, nodes) if c) / h for row in STAGE_RATES]


def _rates_are_generalised_velocities(system, rotation):
    """Whether ``B(q(θ)) P̃(θ) = I``: the chart's rates are the system's generalised velocities
    (chains of revolute and prismatic joints: joint angles), so that the stage forces are
    ``F_s = -u_s`` without the chart's derivatives (as GC's momentum balance on chains).
    Checked at two random θ; a system whose chart rates are not its generalised velocities
    (a free root's rotation vector) fails at the first."""
    from .charts import chart, chart_basis

    rng = np.random.default_rng(0)
    for _ in range(2):
        theta = rng.uniform(-1.0, 1.0, system.n_velocities)
        B = np.asarray(system.control_matrix(np.asarray(chart(system, theta, rotation), float)), float)
        BP = B @ np.asarray(chart_basis(system, theta, rotation), float)
        if BP.shape != (system.n_velocities,) * 2 or np.abs(BP - np.eye(system.n_velocities)).max() > 1e-9:
            return False
    return True


def _step_function(system, rotation):
    """The CasADi function ``(h, θ_k, ṽ_k, θ_{k+½}, θ_{k+1}, ṽ_{k+1}, u_1, u_2, u_3)`` ↦ the
    three residual groups of the module docstring (built once per system and rotation)."""

    def build():
        import casadi

        from .charts import chart_function

        chart = chart_function(system, rotation)  # θ ↦ q(θ), compiled once
        dof, n_act = system.n_velocities, len(system.actuated)
        h = casadi.SX.sym("h")
        th0, thm, th1 = (casadi.SX.sym(name, dof) for name in ("theta0", "theta_mid", "theta1"))
        vt0, vt1 = (casadi.SX.sym(name, dof) for name in ("vt0", "vt1"))
        controls = [symbols(f"u{s}", n_act) for s in (1, 2, 3)]
        M = casadi.DM(np.diag(np.asarray(system.mass_matrix(), float)))
        grad_V = casadi.DM(np.asarray(system.potential_gradient(), float))

        # q(θ), p = ∂L/∂θ̇ and ∂L/∂θ at a point (θ, θ̇) of its own, by one reverse pass of L; the
        # slopes of S are assembled from the three stages' (the arm's step: 2 094 instructions,
        # Hessian 29 000; CasADi's gradient of the summed action with the stage forces through
        # the chart: 4 077 and 48 000)
        theta, rate = casadi.SX.sym("theta", dof), casadi.SX.sym("rate", dof)
        q = chart(theta)
        v = casadi.jtimes(q, theta, rate)
        slopes = casadi.gradient(0.5 * casadi.dot(v, M * v) - casadi.dot(grad_V, q), casadi.vertcat(theta, rate))
        stage = casadi.Function("lagrangian_slopes", [theta, rate], [q, slopes[dof:], slopes[:dof]])

        nodes = [th0, thm, th1]
        rates = _stage_rates(h, nodes)
        stages = [stage(x, r) for x, r in zip(nodes, rates)]
        weights = [float(b) for b in LOBATTO_WEIGHTS]
        # ∂S/∂Θ_j = h b_j ∂L/∂θ(Θ_j, Θ̇_j) + Σ_s b_s p(Θ_s, Θ̇_s) STAGE_RATES[s, j]
        action_slopes = [h * weights[j] * stages[j][2]
                         + sum(weights[s] * float(STAGE_RATES[s, j]) * stages[s][1] for s in range(3))
                         for j in range(3)]
        def stage_force(theta, q, u):
            """F_s = P̃ᵀBᵀu_s = −P̃ᵀBᵀū_s (θ_s a node symbol): u_s where the chart's rates are the
            generalised velocities, else by a reverse pass through the chart."""
            full = np.array(thesis_controls(system, u), dtype=object)
            if direct:
                return -casadi.vertcat(*[casadi.SX(x) for x in full])
            B = system.control_matrix(np.array([q[i] for i in range(q.shape[0])], dtype=object))
            load = np.asarray(np.asarray(B, dtype=object).T @ full, dtype=object).ravel()
            return -casadi.jtimes(q, theta, casadi.vertcat(*[casadi.SX(x) for x in load]), True)

        direct = _rates_are_generalised_velocities(system, rotation)
        forces = [stage_force(theta, q, u_) for theta, (q, _, _), (_, u_) in zip(nodes, stages, controls)]
        start_momentum = stage(th0, vt0)[1]
        end_momentum = stage(th1, vt1)[1]
        groups = {
            "start_momentum": start_momentum + action_slopes[0] + h * weights[0] * forces[0],
            "stage_balance": action_slopes[1] + h * weights[1] * forces[1],
            "momentum_balance": end_momentum - action_slopes[2] - h * weights[2] * forces[2],
        }
        inputs = [h, th0, vt0, thm, th1, vt1] + [u for u, _ in controls]
        return casadi.Function("lobatto_gc_step", inputs, list(groups.values()),
                               ["h", "theta0", "vt0", "theta_mid", "theta1", "vt1", "u1", "u2", "u3"],
                               list(groups))

    return compiled_function(system, ("lobatto gc step", rotation), build)


def lobatto_gc_residuals(system: ConstrainedSystem, h: Any, th0: np.ndarray, vt0: np.ndarray, th_mid: np.ndarray, th1: np.ndarray, vt1: np.ndarray, u_start: np.ndarray, u_mid: np.ndarray, u_end: np.ndarray, rotation: str = "exp") -> dict[str, np.ndarray]:
    """Residuals of one step (the module docstring's three groups), in any backend.

    ``u_start``, ``u_mid``, ``u_end`` are the actuated controls at the stages t_k,
    t_{k+½}, t_{k+1}.

    Examples
    --------
    A ball thrown in gravity (its chart coordinates are its position): the configuration
    is quadratic in t, so the step is exact and the residuals vanish at the exact motion.

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import MultibodySystem, PointMass
    >>> fall = MultibodySystem("fall", gravity=(0, -9.81, 0))
    >>> fall.add_bodies(PointMass("ball", 2.0))
    >>> h, v0 = 0.1, np.array([1.0, 2.0, 0.0])
    >>> g = np.array([0.0, -9.81, 0.0])
    >>> at = lambda t: (v0 * t + 0.5 * g * t ** 2, v0 + g * t)
    >>> (theta_mid, _), (theta1, vt1) = at(h / 2), at(h)
    >>> r = lobatto_gc_residuals(fall, h, np.zeros(3), v0, theta_mid, theta1, vt1, [], [], [])
    >>> {name: float(np.abs(rows).max()) < 1e-14 for name, rows in r.items()}
    {'start_momentum': True, 'stage_balance': True, 'momentum_balance': True}
    """
    function = _step_function(system, rotation)
    h = np.array([h], dtype=object)
    out = applied(function, h, th0, vt0, th_mid, th1, vt1, u_start, u_mid, u_end)
    return dict(zip(("start_momentum", "stage_balance", "momentum_balance"), out))


def lobatto_gc_work(system: ConstrainedSystem, h: Any, th0: np.ndarray, th_mid: np.ndarray, th1: np.ndarray, u_start: np.ndarray, u_mid: np.ndarray, u_end: np.ndarray, rotation: str = "exp") -> Any:
    """The work done on the controls in one step by the method's quadrature,
    ``W = -h Σ_s b_s u_s·ν_s`` (u the applied force) with
    the stage joint rates ``ν_s = B(q(Θ_s)) P̃(Θ_s) Θ̇_s`` (= Θ̇_s on a chain of revolute
    joints); numbers only.  The column W of a trajectory's conservation table: T + V + W
    has the scheme's O(h⁴) error.

    Examples
    --------
    The pendulum driven from rest for one step of 0.01 s: the work equals minus the
    energy gained, to the scheme's accuracy.

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> from pyomo_mbdyn.simulate import simulate
    >>> pendulum = examples.pendulum()
    >>> tr = simulate(pendulum, pendulum.q0, np.zeros(12), 0.01, 1, [[0.5]], scheme="lobatto_gc")
    >>> W = lobatto_gc_work(pendulum, 0.01, tr.theta[0], tr.theta_mid[0], tr.theta[1], [0.5], [0.5], [0.5])
    >>> gained = pendulum.kinetic_energy(tr.v[1]) + pendulum.potential_energy(tr.q[1])
    >>> bool(abs(W + gained) < 1e-6 * abs(W))
    True
    """
    nodes = [np.asarray(x, float) for x in (th0, th_mid, th1)]
    work = 0.0
    for b, theta, rate, u in zip(LOBATTO_WEIGHTS, nodes, _stage_rates(h, nodes), (u_start, u_mid, u_end)):
        q, v, _ = chart_velocity(system, theta, rate, rotation)
        rates = np.asarray(system.control_matrix(np.asarray(q, float)), float) @ np.asarray(v, float)
        work -= b * float(np.asarray(u, float) @ rates[system.actuated_indices])
    return h * work


class LobattoGCStep(ChartStep):
    """Lobatto IIIA–IIIB (s = 3) on the chart for the Newton stepper: unknowns θ_{k+½}, θ_{k+1},
    ṽ_{k+1}; the interval's control acts at its three stages."""

    unknowns = (("theta_mid", "dof"), ("theta", "dof"), ("vt", "dof"))

    def residuals(self, system: ConstrainedSystem, h: Any, th0: np.ndarray, vt0: np.ndarray, x: Mapping[str, Any], u: np.ndarray, options: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return lobatto_gc_residuals(system, h, th0, vt0, x["theta_mid"], x["theta"], x["vt"], u, u, u,
                                    options.get("rotation", "exp"))

    def work(self, system: ConstrainedSystem, h: Any, th0: np.ndarray, vt0: np.ndarray, x: Mapping[str, Any], u: np.ndarray, options: Mapping[str, Any] | None = None) -> Any:
        """The controls' work on the step (:func:`lobatto_gc_work`), the same control at every stage."""
        return lobatto_gc_work(system, h, th0, x["theta_mid"], x["theta"], u, u, u,
                               (options or {}).get("rotation", "exp"))

    def guess(self, system: ConstrainedSystem, h: Any, th: np.ndarray, vt: np.ndarray, previous: Mapping[str, Any] | None, options: Mapping[str, Any]) -> dict[str, Any]:
        return {"theta_mid": th + 0.5 * h * vt, "theta": th + h * vt, "vt": vt}


LOBATTO_GC_STEP = LobattoGCStep()
