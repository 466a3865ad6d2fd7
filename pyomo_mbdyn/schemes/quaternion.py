"""The quaternion energy-momentum scheme as a Pyomo block (thesis ch. 5).

For a MultibodySystem that is one rigid body on a spherical joint to the
ground (a top).  ``body[b].quat[k, i]`` and ``body[b].p[k, i]`` (i = 0..3) are
the unit quaternion and its conjugate momentum at the nodes, ``body[b].gamma[k]``
the interval multiplier of ``|𝔮| = 1``; the equations (``rotation``,
``momentum_balance``, ``unit_quaternion``) are those of
:func:`pyomo_mbdyn.simulate.quaternion.quaternion_residuals`.  Forward dynamics
only (no controls).  ``trajectory()`` and ``diagnostics()`` report the
motion in the system's director coordinates, like the other schemes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyomo.environ as pyo

from ..errors import ConfigurationError, InputTypeError
from ..discretization.quaternion import QuaternionTop, director_trajectory, quaternion_residuals
from ..simulate.stepper import check_initial_state
from ..trajectory import Trajectory, column_names
from .base import SchemeBlockData
from .guesses import column_order
from .options import declare_scheme_block, initial_state, multibody_config

if TYPE_CHECKING:
    #: the Pyomo block component: made by declare_scheme_block when this module is imported
    import numpy.typing as npt

    QuaternionBlock: type[Any]

__all__ = ["QuaternionBlock", "quaternion_state"]


def quaternion_state(top: QuaternionTop, q: npt.ArrayLike, v: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """(𝔮, 𝔭) of a director configuration and velocity of the top's body."""
    d = np.asarray(q, float)[3:12].reshape(3, 3)  # rows d_i
    R = d.T  # columns d_i: body axes to space
    from scipy.spatial.transform import Rotation  # here: no scipy on a model build (issue 48)
    x, y, z, w = Rotation.from_matrix(R).as_quat()
    quat = np.array([w, x, y, z])
    omega = np.asarray(top.body.twist(q, v), float)[3:6]
    return quat, top.momentum(quat, omega)


@declare_scheme_block("QuaternionBlock")
class QuaternionBlockData(SchemeBlockData):
    """Quaternion energy-momentum scheme for a heavy top (Betsch & Siebert 2009).

    Examples
    --------
    A top tilted by 0.3 rad, spinning about its axis at 10 rad/s:

    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.mechanics import MultibodySystem, RigidBody, Spherical, rotation_exp
    >>> from pyomo_mbdyn.ocp import solve
    >>> from pyomo_mbdyn.schemes import QuaternionBlock
    >>> R0 = rotation_exp([0.3, 0.0, 0.0])
    >>> cone = RigidBody("cone", 1.0, (0.3, 0.3, 0.2), position=0.5 * R0[:, 2], directors=R0.T)
    >>> top = MultibodySystem("top", gravity=(0, 0, -9.81))
    >>> top.add_bodies(cone)
    >>> top.add_joints(Spherical("tip", None, cone, location=(0, 0, 0)))
    >>> v0 = top.null_space(top.q0) @ (10.0 * R0[:, 2])      # ω = 10 d_3
    >>> m = pyo.ConcreteModel()
    >>> m.dyn = QuaternionBlock(system=top, steps=5, horizon=0.1, initial_velocity=v0)
    >>> str(solve(m).solver.termination_condition)
    'optimal'
    >>> quat = [m.dyn.body["cone"].quat[5, i].value for i in range(4)]
    >>> round(sum(x * x for x in quat), 9)                   # a unit quaternion
    1.0
    >>> table = m.dyn.diagnostics()                          # in director coordinates
    >>> bool(np.ptp(table["E"]) < 1e-8 and np.ptp(table["Lz"]) < 1e-8)
    True
    """

    scheme = "quaternion"
    CONFIG = multibody_config()
    del CONFIG["controls"]  # forward dynamics only
    del CONFIG["free_horizon"]  # the top is simulated on a given grid

    def _build(self):
        config, system = self.config, self.system
        if system.actuated:
            raise ConfigurationError("quaternion block: forward dynamics only; the system has actuators")
        self.top = QuaternionTop.from_system(system)
        self._grid()
        self.components = pyo.RangeSet(0, 3)
        name = self.top.body.name
        self.body = pyo.Block([name])
        self.joint = pyo.Block(list(system.joints))
        blk = self.body[name]
        blk.quat = pyo.Var(self.nodes, self.components, initialize=0.0)
        blk.p = pyo.Var(self.nodes, self.components, initialize=0.0)
        blk.gamma = pyo.Var(self.intervals, initialize=0.0)
        q0 = initial_state(system, config)[0]
        v0 = np.zeros(system.n) if config.initial_velocity is None else config.initial_velocity
        check_initial_state(system, q0, v0)
        quat0, p0 = quaternion_state(self.top, q0, v0)
        for k in self.nodes:
            for i in self.components:
                blk.quat[k, i].value, blk.p[k, i].value = quat0[i], p0[i]
        for i in self.components:
            blk.quat[0, i].fix(quat0[i])
            blk.p[0, i].fix(p0[i])
        res = {}
        for k in self.intervals:
            res[k] = quaternion_residuals(
                self.top, self.h, [blk.quat[k, i] for i in self.components], [blk.p[k, i] for i in self.components],
                [blk.quat[k + 1, i] for i in self.components], [blk.p[k + 1, i] for i in self.components],
                blk.gamma[k])
        blk.rotation = pyo.Constraint(self.intervals, self.components, rule=lambda b, k, i: res[k]["rotation"][i] == 0)
        blk.momentum_balance = pyo.Constraint(
            self.intervals, self.components, rule=lambda b, k, i: res[k]["momentum_balance"][i] == 0)
        blk.unit_quaternion = pyo.Constraint(self.intervals, rule=lambda b, k: res[k]["unit_quaternion"][0] == 0)

    def quaternion_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        blk = self.body[self.top.body.name]
        Q = np.array([[pyo.value(blk.quat[k, i]) for i in self.components] for k in self.nodes])
        P = np.array([[pyo.value(blk.p[k, i]) for i in self.components] for k in self.nodes])
        return Q, P

    def trajectory(self) -> Trajectory:
        """The motion in the system's director coordinates (``q``, ``v``), with the
        quaternions and their momenta as extras ``quaternion`` and ``p``; no
        controls, and joint rates ν left at zero (the top has no joint rates here)."""
        Q, P = self.quaternion_arrays()
        # Q, P: arrays (N+1, 4), row k the node's; director_trajectory's annotation says Sequence[ndarray]
        q, v = director_trajectory(self.top, self.system, Q, P, self.h)  # type: ignore[arg-type]
        N = self.config.steps
        return Trajectory.of_system(self.system, self.h * np.arange(N + 1), q, v, np.zeros((N, 0)),
                                    np.zeros((N, self.system.n_velocities)), self._metadata(),
                                    quaternion=Q, p=P)

    def initialize_from(self, trajectory: Trajectory) -> None:
        """From a director trajectory (any scheme) of the same grid and system; its columns are
        matched by name (a trajectory of another system is a :class:`ConfigurationError`)."""
        owner = f"{self.scheme} block {self.name!r}"
        if not isinstance(trajectory, Trajectory):
            raise InputTypeError(f"{owner}: initialize_from needs a Trajectory, got {type(trajectory).__name__}")
        shape = (self.config.steps + 1, self.system.n)
        if trajectory.q.shape != shape or trajectory.v.shape != shape:
            raise ConfigurationError(f"{owner}: initialize_from: the trajectory's q has shape {trajectory.q.shape}, "
                                     f"this block needs {shape}: a trajectory of another grid or system")
        index = column_order(owner, trajectory, {"coordinates": column_names(self.system)[0]})["coordinates"]
        q, v = (trajectory.q, trajectory.v) if index is None else (trajectory.q[:, index], trajectory.v[:, index])
        blk = self.body[self.top.body.name]
        for k in self.nodes:
            quat, p = quaternion_state(self.top, q[k], v[k])
            for i in self.components:
                if not blk.quat[k, i].fixed:
                    blk.quat[k, i].value, blk.p[k, i].value = quat[i], p[i]
