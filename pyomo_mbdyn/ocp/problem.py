"""Optimal-control problems on top of a scheme block.

:class:`OptimalControlProblem` adds one named sub-block ``m.<block>_ocp`` (by
default ``ocp`` on the parent of the scheme block) with the objective and the
boundary conditions, and never touches the scheme's own equations:

* control effort ``J = h Σ_i Σ_a w_a u[i, a]²`` (the papers' objective, DMOCC
  §1.5: ``J_d = h Σ ‖τ_n‖²``);
* final position of a body point; final orientation through the skew part of
  ``R_targetᵀ R_N`` (three regular rows — never the degenerate diagonal form
  (7.1) of the DMOCC paper, whose Jacobian vanishes at the solution);
* final rest: ``v_N = 0`` for the energy-momentum schemes, and for the
  variational schemes the reduced discrete Legendre transform
  ``P(q_N)ᵀ[D2 L_d(q_{N-1}, q_N)] - (h/2) u_{N-1} = 0`` (DMOCC 3.21 with
  ``D2 L = 0``), dropping rows whose momenta are conserved anyway;
* bounds on the per-step rotation increments against aliasing (spec §0.7).

Sign convention: ``u`` is minus the applied generalised force (see
:mod:`pyomo_mbdyn.mechanics.system`); the effort objective does not see it.
"""

import numpy as np
import pyomo.environ as pyo

from ..errors import ConfigurationError
from ..mechanics.linalg import as_array, matmul
from ..simulate.discrete import lagrangian_slopes

__all__ = ["OptimalControlProblem"]


class OptimalControlProblem:
    """Objective and boundary conditions for a scheme block ``dyn``.

    Parameters
    ----------
    dyn : a scheme block (bem, rem, dmocc, dmocc_lm, gc)
    name : str
        Name of the sub-block added to the model holding ``dyn``.
    """

    def __init__(self, dyn, name="ocp"):
        if dyn.scheme == "quaternion":
            raise ConfigurationError("the quaternion block is forward dynamics only")
        self.dyn = dyn
        model = dyn.parent_block()
        if model.component(name) is not None:
            raise ConfigurationError(f"the model already has a component named {name!r}")
        model.add_component(name, pyo.Block())
        self.block = model.component(name)
        self.block.final_position = pyo.ConstraintList()
        self.block.final_orientation = pyo.ConstraintList()
        self.block.final_rest = pyo.ConstraintList()

    # -- objective -------------------------------------------------------------
    def minimise_control_effort(self, weights=None):
        """``J = h Σ_i Σ_a w_a u[i, a]²``; ``weights`` maps actuated names to w_a (default 1)."""
        dyn = self.dyn
        w = {a: 1.0 for a in dyn.actuated}
        unknown = set(weights or {}) - set(w)
        if unknown:
            raise ConfigurationError(f"no actuated coordinates {sorted(unknown)}; actuated: {list(w)}")
        w.update(weights or {})
        self.block.control_effort = pyo.Objective(
            expr=dyn.h * sum(w[a] * dyn.u[i, a] ** 2 for i in dyn.intervals for a in dyn.actuated))
        return self.block.control_effort

    # -- final conditions ---------------------------------------------------------
    def _final_q(self, body):
        N = self.dyn.config.steps
        blk = self.dyn.body[body]
        return np.array([blk.q[N, c] for c in blk.coordinates], dtype=object)

    def fix_final_position(self, body, target, point=(0, 0, 0)):
        """The body point (components in the body frame) at ``target`` at t_N."""
        b = self.dyn.system.bodies[body]
        q = self._final_q(body)
        position = b.point(q, np.asarray(point, float)) if b.has_orientation else q[0:3]
        for k in range(3):
            self.block.final_position.add(position[k] == float(target[k]))

    def fix_final_orientation(self, body, R_target=np.eye(3)):
        """skew(R_targetᵀ R_N) = 0 with R_N = [d_1 d_2 d_3] at t_N (three regular rows).

        Among the orientations this admits (R = R_target, and the rotations by
        π about any axis) the initial guess selects R_target.
        """
        q = self._final_q(body)
        d = [q[3:6], q[6:9], q[9:12]]
        R = np.array([[d[j][i] for j in range(3)] for i in range(3)], dtype=object)
        E = matmul(np.asarray(R_target, float).T, R)
        for i, j in ((2, 1), (0, 2), (1, 0)):
            self.block.final_orientation.add(E[i, j] - E[j, i] == 0)

    def require_final_rest(self, drop=()):
        """Rest at t_N; ``drop`` names generalised velocities whose momentum rows
        are left out (momenta conserved anyway, e.g. the linear momentum of a
        free system without external forces — the rows would be redundant)."""
        dyn = self.dyn
        N = dyn.config.steps
        keep = [j for j in dyn.velocities if j not in set(drop)]
        if dyn.uses_velocities:
            for name in dyn.system.bodies:
                for c in dyn.body[name].coordinates:
                    self.block.final_rest.add(dyn.body[name].v[N, c] == 0)
            return
        system, h = dyn.system, dyn.h
        q_prev, q_N = dyn.q_array(N - 1), dyn.q_array(N)
        _, D2 = lagrangian_slopes(system, h, q_prev, q_N)
        reduced = matmul(system.null_space(q_N).T, as_array(D2))
        u_full = {a: dyn.u[N - 1, a] for a in dyn.actuated}
        for j, name in enumerate(dyn.velocities):
            if name in keep:
                self.block.final_rest.add(reduced[j] - 0.5 * h * u_full.get(name, 0.0) == 0)

    # -- bounds ---------------------------------------------------------------
    def bound_rotation_increments(self, limit=1.0):
        """|rotation increment| ≤ limit per step and rotation coordinate (anti-aliasing).

        Needs a reduced scheme with increments ``w`` (rem, dmocc)."""
        dyn = self.dyn
        if not hasattr(dyn, "w"):
            raise ConfigurationError(f"{dyn.scheme}: no rotation increments to bound (use rem or dmocc)")
        for j in dyn.velocities:
            if j.split(".", 1)[1].startswith(("w", "angle")):
                for i in dyn.intervals:
                    dyn.w[i, j].setlb(-limit)
                    dyn.w[i, j].setub(limit)
