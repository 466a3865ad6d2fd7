"""Initial guesses: a block's variables set from a trajectory of the same grid.

:class:`InitialGuess` is the part of every multibody block that takes a guess
(``block.initialize_from(trajectory)``): it checks that the trajectory is one of
this system on this grid, matches its columns by name (:func:`column_order`) and
sets the node, interval and scheme variables.  :func:`guess_chart_coordinates`
inverts the chart node by node for the blocks whose unknowns are chart
coordinates (gc; the absolute forms).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np
import pyomo.environ as pyo

from ..errors import ConfigurationError, InputTypeError
from ..trajectory import Trajectory, column_names

if TYPE_CHECKING:
    import numpy.typing as npt

    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["InitialGuess", "column_order", "guess_chart_coordinates"]


def column_order(owner: str, trajectory: Trajectory,
                 expected: Mapping[str, Sequence[str]]) -> dict[str, list[int] | None]:
    """Where this block's columns are in ``trajectory``: ``{group: indices or None}`` for each
    ``group`` (``"coordinates"``, ``"controls"``, ``"velocities"``) of ``expected`` (a dict of
    name lists), None where the trajectory has the block's names in the block's order, else
    the trajectory's column of each of the block's names.  A trajectory whose names differ (a
    motion of another system that happens to have the same shapes) is refused by a
    :class:`ConfigurationError` naming the missing and the extra names: values would land on
    the wrong bodies."""
    order: dict[str, list[int] | None] = {}
    for group, names in expected.items():
        given = list(getattr(trajectory, group))
        names = list(names)
        if given == names:
            order[group] = None
            continue
        missing = [n for n in names if n not in given]
        extra = [n for n in given if n not in names]
        if missing or extra or len(given) != len(names):
            def show(items):  # by owner: 'upper.*' (12 columns) for a whole body's coordinates
                owners = {}
                for n in items:
                    owners.setdefault(n.rsplit(".", 1)[0], []).append(n)
                shown = [repr(ns[0]) if len(ns) == 1 else f"{o}.* ({len(ns)} columns)" for o, ns in owners.items()]
                return "[" + ", ".join(shown[:8]) + (", …" if len(shown) > 8 else "") + "]"
            system = trajectory.metadata.get("system") if isinstance(trajectory.metadata, dict) else None
            raise ConfigurationError(
                f"{owner}: initialize_from: the trajectory's {group} are not this block's: missing "
                f"{show(missing)}, extra {show(extra)}, a motion of another system"
                f"{f' ({system!r})' if system else ''}; values are matched by name, so build the guess "
                f"from this block's system")
        order[group] = [given.index(n) for n in names]
    return order


def _reordered(trajectory, order):
    """``trajectory`` with its columns in the order ``column_order`` found (itself when they
    already are).  The extras by generalised velocity (``w``, ``theta``, ``vt``) follow the
    velocities; extras by constraint row (``lam``, ``mu``, ``momentum_multipliers``) cannot be
    matched by name and are left out when the bodies or joints come in another order."""
    if all(index is None for index in order.values()):
        return trajectory

    def take(array, index):
        return array if index is None else np.asarray(array)[:, index]

    pq, pu, pn = order["coordinates"], order["controls"], order["velocities"]
    extras = {}
    for key, value in trajectory.extras.items():
        if key in ("w", "theta", "vt") and value.ndim == 2 and value.shape[1] == len(trajectory.velocities):
            extras[key] = take(value, pn)
        elif key in ("lam", "mu", "momentum_multipliers"):
            if pq is None and pn is None:
                extras[key] = value
        else:
            extras[key] = value
    return Trajectory(t=trajectory.t, q=take(trajectory.q, pq), v=take(trajectory.v, pq),
                      u=take(trajectory.u, pu), nu=take(trajectory.nu, pn),
                      coordinates=[trajectory.coordinates[i] for i in pq] if pq else trajectory.coordinates,
                      controls=[trajectory.controls[i] for i in pu] if pu else trajectory.controls,
                      velocities=[trajectory.velocities[i] for i in pn] if pn else trajectory.velocities,
                      metadata=trajectory.metadata, extras=extras, system=trajectory.system)


def guess_chart_coordinates(owner: str, system: ConstrainedSystem, trajectory: Trajectory, rotation: str,
                            theta0: npt.ArrayLike | None = None, velocities: bool = False,
                            first: str = "zero") -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """The chart coordinates θ_k of every node of a guess (and with ``velocities`` the chart
    velocities ṽ_k), the chart inverted node by node.

    Each node is expected near ``s_k`` = the previous node's θ advanced by the guess's
    increments ``w`` when it has them (the chart differences of
    :func:`~pyomo_mbdyn.ocp.interpolated_trajectory`), ``s_0 = theta0`` (the block's θ_0).
    The inversion starts as the block always did (``first``: ``"zero"`` from θ = 0 to 1e-9,
    ``"previous"`` from the previous node to 1e-4) and keeps that result when it lies within
    π of ``s_k`` in every coordinate; otherwise (a half turn that Gauss–Newton from 0 cannot
    reach, a turn beyond π that it would drop) it inverts from ``s_k`` to 1e-4 (a guess fulfils
    the constraints only roughly).  So rotations keep their turns and a half turn is reached.
    A node reached by neither is a :class:`ConfigurationError` naming the node, the
    coordinate (body and joint) that stays off, and what to do."""
    from ..discretization import chart_coordinates

    w = trajectory.w
    if w is None or np.shape(w) != (trajectory.steps, system.n_velocities):
        w = None
    theta: list[np.ndarray]
    theta, rates = [], []
    for k, q in enumerate(np.asarray(trajectory.q, float)):
        expected = (None if theta0 is None else np.asarray(theta0, float)) if k == 0 else \
            theta[-1] + (w[k - 1] if w is not None else 0.0)
        v = np.asarray(trajectory.v[k], float) if velocities else None
        plain = None if first == "zero" or k == 0 else theta[-1]
        result = None
        for start, atol in ((plain, 1e-9 if first == "zero" else 1e-4), (expected, 1e-4)):
            try:
                result = chart_coordinates(system, q, v, rotation=rotation, start=start, atol=atol)
            except ValueError:
                continue
            th = result[0] if velocities else result
            if expected is None or start is expected or np.abs(np.asarray(th) - expected).max(initial=0) < np.pi:
                break
            result = None
        if result is None:
            raise ConfigurationError(_unreached_node(owner, system, trajectory, k, expected, rotation))
        th, vt = result if velocities else (result, None)
        theta.append(np.asarray(th, float))
        rates.append(vt)
    return (np.array(theta), np.array(rates)) if velocities else np.array(theta)


def _unreached_node(owner, system, trajectory, k, start, rotation):
    """Why node ``k`` of a guess is not reached by the chart: the coordinate that stays off
    (with its body and the joint that carries the body) and whether the node fulfils the joints."""
    from ..discretization import chart, chart_coordinates

    q = np.asarray(trajectory.q[k], float)
    theta = chart_coordinates(system, q, rotation=rotation, start=start, atol=np.inf)
    off = np.abs(np.asarray(chart(system, theta, rotation), float) - q)
    i = int(np.argmax(off))
    name = column_names(system)[0][i]
    body = name.rsplit(".", 1)[0]
    joints = [j.name for j in getattr(system, "joints", {}).values() if getattr(j.child, "name", None) == body]
    carried = f"body {body!r}" + (f", joint {joints[0]!r}" if joints else "")
    phi = np.abs(np.asarray(system.constraints(q), float)).max(initial=0.0)
    if phi > 1e-4:
        why = (f"the node violates the joints (max |Φ(q)| = {phi:.3g}): the guess is not a configuration of "
               f"{system}; build it with pyomo_mbdyn.ocp.interpolated_trajectory (nodes q(θ_k) on the joints), "
               "or from a solved or simulated trajectory of this system")
    else:
        why = (f"the node fulfils the joints, so it lies further from node {k - 1} than the chart can follow "
               "(a rotation by about π or more in one step): use more steps, or give the guess its chart "
               "coordinates (the extras 'theta' of a gc trajectory, or the increments 'w' of "
               "pyomo_mbdyn.ocp.interpolated_trajectory)" if k else
               "the node fulfils the joints but is not reached from θ = 0")
    return (f"{owner}: initialize_from: node {k} (t = {float(trajectory.t[k]):g}) of the guess is not reached "
            f"by the chart of {system}: |q(θ) - q| = {off[i]:.3g} at {name!r} ({carried}); {why}")


class InitialGuess:
    """Mixin of :class:`~pyomo_mbdyn.schemes.base.MultibodyBlockData`: ``initialize_from`` (see the module
    docstring); a scheme sets its own variables in the hook ``_initialize_scheme``."""

    if TYPE_CHECKING:  # a mixin of MultibodyBlockData: the block's (Pyomo's, untyped) attributes
        def __getattr__(self, name: str) -> Any: ...

    def initialize_from(self, trajectory: Trajectory) -> None:
        """Set variable values from a simulated trajectory of the same grid (and, with a
        free horizon, the final time from the trajectory's last node time).

        The trajectory must be one of this system on this grid (N+1 nodes of n
        coordinates, N intervals of the actuated coordinates) with finite values
        wherever they are read; otherwise a :class:`ConfigurationError` names the
        array, its shape or the first bad entry, and no variable is changed."""
        lifted, velocities = self._node_variables()
        trajectory = self._check_guess(trajectory, {"q": lifted, "v": velocities, "u": True,
                                                    "nu": self.record.joint_rates})
        if self.free_horizon and trajectory.t is not None and len(trajectory.t) == self.config.steps + 1:
            self.final_time.set_value(float(trajectory.t[-1]), skip_validation=True)
        for k in self.nodes:
            for idx, (name, c) in enumerate(self._coordinate_index()):
                if lifted and not self.body[name].q[k, c].fixed:
                    self.body[name].q[k, c].set_value(trajectory.q[k, idx], skip_validation=True)
                if velocities and not self.body[name].v[k, c].fixed:
                    self.body[name].v[k, c].set_value(trajectory.v[k, idx], skip_validation=True)
        # the controls of every stage: the guess's own where it has them (a trajectory of
        # this scheme), else its interval controls u
        stage_controls = {}
        for stage, _, _ in self.control_stages:
            given = trajectory.extras.get(stage) if stage != "u" else None
            usable = given is not None and np.shape(given) == np.shape(trajectory.u) and np.all(np.isfinite(given))
            stage_controls[stage] = np.asarray(given, float) if usable else trajectory.u
        for i in self.intervals:
            for j, name in enumerate(self.velocities):
                if self.record.joint_rates:
                    self.nu[i, name].set_value(trajectory.nu[i, j], skip_validation=True)
            for stage, values in stage_controls.items():
                for a, name in enumerate(self.actuated):
                    var = self.component(stage)[i, name]
                    if not var.fixed:  # a guess may lie beyond torque bounds: the solver moves it inside
                        var.set_value(values[i, a], skip_validation=True)
        self._initialize_scheme(trajectory)

    def _check_guess(self, trajectory, used):
        """Refuse a guess that is not a Trajectory of this block's grid and system, or has NaN/inf
        where it is read; return it with its columns in this block's order (matched by name)."""
        if not isinstance(trajectory, Trajectory):
            raise InputTypeError(f"{self.scheme} block {self.name!r}: initialize_from needs a Trajectory "
                                 "(simulate(...), dyn.trajectory(), results.load(...)), "
                                 f"got {type(trajectory).__name__}")
        N, system = self.config.steps, self.system
        expected = {"q": (N + 1, system.n), "v": (N + 1, system.n), "u": (N, len(self.actuated)),
                    "nu": (N, len(self.velocities))}
        for name, shape in expected.items():
            array = getattr(trajectory, name)
            if not used[name] and name != "q":
                continue
            if array.shape != shape:
                raise ConfigurationError(
                    f"{self.scheme} block {self.name!r}: initialize_from: the trajectory's {name} has shape "
                    f"{array.shape}, this block needs {shape} (N = {N} steps, n = {system.n} coordinates, "
                    f"{len(self.actuated)} controls): a trajectory of another grid or system")
            if used[name] and not np.all(np.isfinite(array)):
                row, col = np.argwhere(~np.isfinite(array))[0]
                names = {"q": trajectory.coordinates, "v": trajectory.coordinates, "u": trajectory.controls,
                         "nu": trajectory.velocities}[name]
                label = names[col] if col < len(names) else col
                raise ConfigurationError(
                    f"{self.scheme} block {self.name!r}: initialize_from: the trajectory's {name}[{row}, {label!r}] "
                    f"is {array[row, col].item()!r}; a guess must be finite where the block reads it")
        coordinates, controls, velocities = column_names(system)
        order = column_order(f"{self.scheme} block {self.name!r}", trajectory,
                             {"coordinates": coordinates, "controls": controls, "velocities": velocities})
        return _reordered(trajectory, order)

    def _initialize_scheme(self, trajectory):
        """Hook 14 (optional, extend; "Implementing a scheme" in :mod:`pyomo_mbdyn.schemes.base`): set
        the scheme's own variables (multipliers, increments) from a trajectory; an override calls
        ``super()``."""
        if trajectory.lam is not None and self.system.bodies and \
                self.body[next(iter(self.system.bodies))].component("lam") is not None:
            for i in self.intervals:
                for g, (owner, r) in enumerate(self._constraint_index()):
                    owner.lam[i, r].value = trajectory.lam[i, g]
        if trajectory.w is not None and self.component("w") is not None and self.w.ctype is pyo.Var:
            for i in self.intervals:
                for j, name in enumerate(self.velocities):
                    # a guess may step beyond increment bounds; the solver moves it inside
                    self.w[i, name].set_value(trajectory.w[i, j], skip_validation=True)
