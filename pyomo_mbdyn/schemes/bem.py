"""The basic energy-momentum scheme (BEM) as a Pyomo block.

Thesis §2.3, Eq. (3.21)–(3.23): per interval ``[t_k, t_{k+1}]``

    q_{k+1} - q_k - h v_{k+½} = 0                                  kinematics
    M (v_{k+1} - v_k) + h [G(q_{k+½})ᵀγ + B(q♯)ᵀ(Kν + u) + ∇V] = 0  momentum_balance
    Φ(q_{k+1}) = 0                                                 internal_constraint, joint_constraint
    ν - B(q♯) v_{k+½} = 0                                          joint_rates

with interval multipliers γ_{k,k+1} (``body[b].lam``, ``joint[j].lam``).  The
equations are those of :func:`pyomo_mbdyn.simulate.discrete.bem_residuals`.
"""

import pyomo.environ as pyo

from ..simulate.discrete import bem_residuals
from .base import INTERNAL_NAMES, SchemeBlockData, declare_scheme_block

__all__ = ["BEMBlock", "BEMBlockData"]


@declare_scheme_block("BEMBlock")
class BEMBlockData(SchemeBlockData):
    """Energy-momentum scheme with interval multipliers (a DAE of index 3 made discrete)."""

    scheme = "bem"

    def _add_scheme_variables(self):
        system = self.system
        for name, body in system.bodies.items():
            blk = self.body[name]
            blk.internal = pyo.Set(initialize=INTERNAL_NAMES[: body.n_internal], ordered=True)
            blk.lam = pyo.Var(self.intervals, blk.internal, initialize=0.0)
        for name, joint in system.joints.items():
            blk = self.joint[name]
            blk.rows = pyo.RangeSet(0, joint.n_constraints - 1) if joint.n_constraints else pyo.Set(initialize=[])
            blk.lam = pyo.Var(self.intervals, blk.rows, initialize=0.0)

    def _initialize_scheme(self, trajectory):
        if trajectory.lam is None:
            return
        for i in self.intervals:
            for g, (owner, r) in enumerate(self._constraint_index()):
                owner.lam[i, r].value = trajectory.lam[i, g]

    def _lam_array(self, i):
        return [owner.lam[i, r] for owner, r in self._constraint_index()]

    def _add_discrete_equations(self):
        system, h = self.system, self.h
        residuals = {}
        for i in self.intervals:
            residuals[i] = bem_residuals(
                system, h, self.q_array(i), self.v_array(i), self.q_array(i + 1), self.v_array(i + 1),
                self._lam_array(i), self.nu_array(i), self.u_array(i), self.config.contravariant)
        coords = self._coordinate_index()
        where = {key: g for g, key in enumerate(coords)}
        for name in system.bodies:
            blk = self.body[name]

            def kinematics(b, i, c, name=name):
                return residuals[i]["kinematics"][where[name, c]] == 0

            def momentum_balance(b, i, c, name=name):
                return residuals[i]["momentum_balance"][where[name, c]] == 0

            blk.kinematics = pyo.Constraint(self.intervals, blk.coordinates, rule=kinematics)
            blk.momentum_balance = pyo.Constraint(self.intervals, blk.coordinates, rule=momentum_balance)
        rows = self._constraint_index()
        row_of = {(id(owner), r): g for g, (owner, r) in enumerate(rows)}
        steps = pyo.RangeSet(1, self.config.steps)
        for name in system.bodies:
            blk = self.body[name]
            blk.internal_constraint = pyo.Constraint(
                steps, blk.internal,
                rule=lambda b, k, r: residuals[k - 1]["constraint"][row_of[id(b), r]] == 0)
        for name in system.joints:
            blk = self.joint[name]
            blk.joint_constraint = pyo.Constraint(
                steps, blk.rows,
                rule=lambda b, k, r: residuals[k - 1]["constraint"][row_of[id(b), r]] == 0)
        index = {j: n for n, j in enumerate(self.velocities)}
        self.joint_rates = pyo.Constraint(
            self.intervals, self.velocities,
            rule=lambda b, i, j: residuals[i]["joint_rates"][index[j]] == 0)
