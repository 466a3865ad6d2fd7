"""How a scheme block's unknowns carry the configuration: chart, increments or nodes.

Each multibody block states its configuration in one of three forms, and the
form — not the scheme's name — decides how the problem statements of
:class:`~pyomo_mbdyn.ocp.OptimalControlProblem` in physical terms (a final
joint angle with its turns, joint bounds, bounded increments) are written on
it.  A block says which form it has (``block.configuration_form``, a
:class:`ConfigurationForm`; the block class's ``CONFIGURATION_FORM``); the
problem composes what the form states and touches no block internals.  A
scheme with a new form is one more class here.

* :class:`Chart` (gc) and :class:`AbsoluteChart` (bem, rem, dmocc with
  ``configurations="absolute"``): the joint coordinates are the chart
  coordinates ``θ_k`` themselves; a final configuration is ``θ_N`` fixed.  In
  the absolute forms the dynamics see only ``q(θ)``, so a step of a rotation by
  2π is no motion: a target more than π from the start bounds the steps
  ``|θ_{k+1} - θ_k| ≤`` :data:`TURN_INCREMENT_LIMIT` (rows ``ocp.turn_increment``).
* :class:`Increments` (rem, dmocc lifted or minimal): ``θ_k = θ_0 + Σ_{i<k} w_i``,
  exact for revolute, prismatic and cylindrical joints, whose increments add
  up (a fixed axis in the parent); a final configuration is ``Σ_k w_k = θ - θ_0``
  (spec §7.5).
* :class:`Nodes` (bem, dmocc_lm, rattle lifted: node configurations ``q_k`` as
  unknowns): a rotation about a fixed axis n (parent components) between two
  nodes is ``M = R_rel,k+1 R_rel,kᵀ = Rot(n, Δ_k)`` with ``R_rel = R_pᵀ R_c``
  (directors as columns), so ``sin Δ_k = ½ n·vee(M - Mᵀ)``,
  ``cos Δ_k = (tr M - 1)/2``, and the half-angle form
  ``Δ_k = 2 atan(sin Δ_k / (1 + cos Δ_k))`` is smooth for every ``|Δ_k| < π`` —
  the joint angle ``θ_k = θ_0 + Σ_{i<k} Δ_i`` keeps its turns.  A slide along
  a parent-fixed axis b is ``b(q_p)·(s_c - s_p)`` minus its initial value
  (exact: the offset moves by ``w b`` and turns with the parent).  A final
  configuration is ``q_N = q(θ)`` fixed with the rows ``Φ(q_N) = 0``
  deactivated (``q(θ)`` fulfils them; kept, LICQ fails).

Joint coordinates are measured from the reference configuration in which the
system was assembled (``system.q0``, the chart's reference), in rad and m —
the same meaning in every scheme.  Coordinates a form cannot express (a
spherical joint's or a free body's rotation vector outside the chart forms)
raise :class:`~pyomo_mbdyn.errors.NotRepresentableError` naming the scheme
and the forms that can.

Examples
--------
>>> from pyomo_mbdyn.models import three_link_arm
>>> for scheme, configurations in (("gc", None), ("rem", "lifted"), ("bem", "lifted"), ("bem", "absolute")):
...     options = {"configurations": configurations} if configurations else {}
...     m = three_link_arm.build(scheme=scheme, steps=4, case="free", **options)
...     print(scheme, configurations, type(m.dyn.configuration_form).__name__, m.dyn.final_configuration_form)
gc None Chart chart
rem lifted Increments increments
bem lifted Nodes nodes
bem absolute AbsoluteChart chart
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np
import pyomo.environ as pyo

from ..errors import ConfigurationError, NotRepresentableError
from ..mechanics.linalg import cross, dot, matmul

if TYPE_CHECKING:
    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["ConfigurationForm", "Chart", "AbsoluteChart", "Increments", "Nodes", "TURN_INCREMENT_LIMIT",
           "joint_kinds", "reference_coordinates"]

#: ``|w_k|`` ≤ this (rad) for the rotation increments of rem/dmocc under :meth:`fix_final_configuration`:
#: the sum of increments is the joint angle reached only if no step aliases (an increment of 2π
#: leaves the configuration unchanged; measured: DMOCC took one on a 7.5 rad pendulum target,
#: J = 18.7 for a motion that ended 4 turns short).  π/2 per step is far beyond the accuracy of
#: the schemes anyway; :meth:`bound_rotation_increments` sets tighter bounds.
TURN_INCREMENT_LIMIT = np.pi / 2

def joint_kinds(system: ConstrainedSystem) -> dict[str, tuple[Any, str]]:
    """Generalised velocity name → (joint, kind) for every joint coordinate (free-body roots: (None, 'free'))."""
    out = {name: (None, "free") for name in system.velocities}
    for joint in system.joints.values():
        for d in joint.dofs:
            out[d] = (joint, joint.kind)
    return out


def reference_coordinates(block: Any) -> np.ndarray:
    """θ_0: the block's initial joint coordinates — ``initial_coordinates`` as given (turns and the URDF's
    convention kept), else the chart coordinates of its initial configuration (angles placed in their
    URDF ranges: :func:`~pyomo_mbdyn.discretization.chart_coordinates`)."""
    from ..discretization import chart_coordinates

    if getattr(block, "theta_initial", None) is not None:
        return np.array(block.theta_initial, float)
    return chart_coordinates(block.system, block.q_initial, atol=1e-7)


def is_rotation(name: str) -> bool:
    """A rotation coordinate: a joint angle or a rotation-vector component."""
    return name.rsplit(".", 1)[1].startswith(("w", "angle"))


class ConfigurationForm:
    """What a block's unknowns say about the joint coordinates (see the module docstring).

    ``block`` is a :class:`~pyomo_mbdyn.schemes.MultibodyBlockData`.  The methods
    a problem statement composes:

    * :meth:`reason` / :meth:`check` — whether a joint coordinate is expressible;
    * :meth:`joint_coordinates` — its expression at every node;
    * :meth:`joint_steps` — its step θ_{k+1} − θ_k per interval; :meth:`node_rates` — θ̇_k where unknowns;
    * :meth:`bound_joint` — bounds as variable bounds where the coordinate is an unknown;
    * :meth:`bound_increments` — ``|w_k| ≤ limit`` on the rotation increments;
    * :meth:`state_final_configuration` — the final configuration's rows.
    """

    name: str | None = None

    def __init__(self, block: Any) -> None:
        self.block = block

    def __repr__(self):
        return f"{type(self).__name__}({self.block.name!r})"

    # -- joint coordinates ------------------------------------------------------
    def reason(self, dof: str) -> str | None:
        """None if the form expresses ``dof``'s joint coordinate, else why not."""
        return None

    def check(self, dofs: Iterable[str], what: str) -> None:
        """Raise :class:`NotRepresentableError` for the coordinates the form cannot express."""
        reasons = [r for r in (self.reason(d) for d in dofs) if r]
        if reasons:
            raise NotRepresentableError(
                f"{what} on the {self.block.scheme} block {self.block.name!r}: {'; '.join(reasons)}. Joint "
                "coordinates of every kind are the unknowns of the chart forms (scheme 'gc', or bem/rem/dmocc "
                "with configurations='absolute'); state the target by fix_final_position / fix_final_orientation "
                "or a body point (ocp.point) instead")

    def joint_coordinates(self, dof: str, theta0: np.ndarray | Sequence[float]) -> dict[int, Any]:
        """{k: expression of the joint coordinate ``dof`` at node k} (k = 0..N), θ measured from system.q0."""
        raise NotImplementedError

    def joint_steps(self, dof: str, theta0: np.ndarray | Sequence[float]) -> dict[int, Any]:
        """{i: expression of θ_{i+1} − θ_i} (i = 0..N−1), the step of the joint coordinate ``dof`` over
        interval i in the form's own terms (a chart difference, an increment, a half-angle step):
        no sum over earlier steps (:meth:`joint_coordinates` differenced would carry them all)."""
        theta = self.joint_coordinates(dof, theta0)
        return {i: theta[i + 1] - theta[i] for i in self.block.intervals}

    def node_rates(self, dof: str) -> dict[int, Any] | None:
        """The joint rate θ̇_k of ``dof`` at the nodes as variables {k: Var} where the block has them as
        unknowns (gc, lobatto_gc: the chart velocity ṽ), else None."""
        return None

    def bound_joint(self, dofs: Sequence[str], lower: Mapping[str, float | None],
                    upper: Mapping[str, float | None]) -> bool:
        """Bound the coordinates ``dofs`` at the nodes k ≥ 1 as variable bounds (``lower``/``upper``:
        {dof: number or None}); False where they are no variables (the problem states rows)."""
        return False

    def bound_increments(self, names: Sequence[str], limit: float, where: Any, component: str) -> None:
        """``|w_k| ≤ limit`` for the rotation coordinates ``names`` at every interval: bounds of the
        increment variables (intersected with bounds they have), or the rows ``where.<component>``."""
        raise ConfigurationError(f"{self.block.scheme}: the {self.name} form has no increments to bound")

    # -- the final configuration --------------------------------------------------
    def state_final_configuration(self, theta: Sequence[float], problem: Any) -> None:
        """State ``θ_N = theta`` on ``problem`` (an :class:`~pyomo_mbdyn.ocp.OptimalControlProblem`:
        rows go to ``problem.block``).  ``theta`` runs over ``system.velocities`` for a tree and over
        ``system.independent`` with closed loops."""
        raise NotImplementedError

    def _loop_increments(self, theta):
        """θ - θ_0 over the independent coordinates of a system with loops; rotations beyond π are
        refused (the branch and turn of a loop are followed by continuation only up to there)."""
        block, system = self.block, self.block.system
        names = system.independent
        theta0 = dict(zip(system.velocities, reference_coordinates(block)))
        delta = np.array([theta[a] - theta0[name] for a, name in enumerate(names)])
        far = [name for a, name in enumerate(names) if is_rotation(name) and abs(delta[a]) > np.pi]
        if far:
            raise NotRepresentableError(
                f"fix_final_configuration on the {block.scheme} block {block.name!r}: {far} more than π from "
                f"the start on a system with closed loops {system.layout['loop_joints']}; turns of a loop are "
                "not supported — state a target within π of the initial configuration")
        return delta

    def _turning(self, theta):
        """The rotation coordinates whose target lies more than π from the start."""
        theta0 = reference_coordinates(self.block)
        return [name for j, name in enumerate(self.block.velocities)
                if is_rotation(name) and abs(theta[j] - theta0[j]) > np.pi]


class Chart(ConfigurationForm):
    """The chart coordinates θ_k are the unknowns (gc); the dynamics see θ itself, turns included."""

    name = "chart"

    def joint_coordinates(self, dof: str, theta0: np.ndarray | Sequence[float]) -> dict[int, Any]:
        return {k: self.block.theta[k, dof] for k in self.block.nodes}

    def joint_steps(self, dof: str, theta0: np.ndarray | Sequence[float]) -> dict[int, Any]:
        theta = self.block.theta
        return {i: theta[i + 1, dof] - theta[i, dof] for i in self.block.intervals}

    def node_rates(self, dof: str) -> dict[int, Any] | None:
        vt = self.block.component("vt")  # gc's chart velocity; the absolute forms have none
        return None if vt is None else {k: vt[k, dof] for k in self.block.nodes}

    def bound_joint(self, dofs: Sequence[str], lower: Mapping[str, float | None],
                    upper: Mapping[str, float | None]) -> bool:
        block = self.block
        for k in block.nodes:
            if k == 0:
                continue
            for d in dofs:
                block.theta[k, d].setlb(lower[d])
                block.theta[k, d].setub(upper[d])
        return True

    def bound_increments(self, names: Sequence[str], limit: float, where: Any, component: str) -> None:
        theta = self.block.theta
        where.add_component(component, pyo.Constraint(
            self.block.intervals, names, rule=lambda b, i, name: (-limit, theta[i + 1, name] - theta[i, name], limit)))

    def state_final_configuration(self, theta: Sequence[float], problem: Any) -> None:
        block = self.block
        if block.system.has_loops:
            raise NotRepresentableError(f"fix_final_configuration: the {self.name} form of the {block.scheme} "
                                        "block cannot close loops")
        N = block.config.steps
        for j, name in enumerate(block.velocities):
            block.theta[N, name].fix(theta[j])


class AbsoluteChart(Chart):
    """θ_k are the unknowns and ``q_k = F(θ_k)`` (bem, rem, dmocc with ``configurations="absolute"``):
    the dynamics see only q(θ), so a step of a rotation by 2π is no motion and a target more than π
    from the start bounds the steps (rows ``ocp.turn_increment``)."""

    def state_final_configuration(self, theta: Sequence[float], problem: Any) -> None:
        super().state_final_configuration(theta, problem)
        turning = self._turning(theta)
        if turning:
            self.bound_increments(turning, TURN_INCREMENT_LIMIT, problem.block, "turn_increment")


class Increments(ConfigurationForm):
    """The per-step increments w_k of the relative reparametrisation are unknowns (rem, dmocc):
    ``θ_k = θ_0 + Σ_{i<k} w_i`` where the increments add up."""

    name = "increments"

    def reason(self, dof: str) -> str | None:
        joint, kind = joint_kinds(self.block.system)[dof]
        if getattr(joint, "additive_increments", False) or self.block.system.additive_increments:
            return None
        return f"the increments of {dof!r} ({kind}) do not add up"

    def joint_coordinates(self, dof: str, theta0: np.ndarray | Sequence[float]) -> dict[int, Any]:
        block = self.block
        j = list(block.velocities).index(dof)
        out, total = {0: float(theta0[j])}, float(theta0[j])
        for k in block.intervals:
            total = total + block.w[k, dof]
            out[k + 1] = total
        return out

    def joint_steps(self, dof: str, theta0: np.ndarray | Sequence[float]) -> dict[int, Any]:
        return {i: self.block.w[i, dof] for i in self.block.intervals}

    def bound_increments(self, names: Sequence[str], limit: float, where: Any, component: str) -> None:
        block = self.block
        for name in names:
            for i in block.intervals:
                w = block.w[i, name]
                w.setlb(max(-limit, w.lb if w.lb is not None else -np.inf))
                w.setub(min(limit, w.ub if w.ub is not None else np.inf))

    def state_final_configuration(self, theta: Sequence[float], problem: Any) -> None:
        block, rows = self.block, problem.block.final_configuration
        if block.system.has_loops:
            delta = self._loop_increments(theta)
            for a, name in enumerate(block.system.independent):
                rows.add(sum(block.w[i, name] for i in block.intervals) == float(delta[a]))
            return
        self.check(list(block.velocities), "fix_final_configuration")
        theta0 = reference_coordinates(block)
        self.bound_increments(self._turning(theta), TURN_INCREMENT_LIMIT, problem.block, "turn_increment")
        for j, name in enumerate(block.velocities):
            rows.add(sum(block.w[i, name] for i in block.intervals) == float(theta[j] - theta0[j]))


class Nodes(ConfigurationForm):
    """The node configurations q_k are unknowns (bem, dmocc_lm, rattle lifted): joint angles by the
    summed half-angle steps, slides by the offset along the parent's axis."""

    name = "nodes"

    def reason(self, dof: str) -> str | None:
        joint, kind = joint_kinds(self.block.system)[dof]
        if getattr(joint, "additive_increments", False):   # a free body's root (joint None): not
            return None
        return f"{dof!r} ({kind}) is a rotation vector, not a coordinate of the node configurations"

    def joint_coordinates(self, dof: str, theta0: np.ndarray | Sequence[float]) -> dict[int, Any]:
        block = self.block
        j = list(block.velocities).index(dof)
        joint, _ = joint_kinds(block.system)[dof]
        if dof.endswith(".slide"):
            start = float(_slide(joint, _initial_q(block, joint.parent), _initial_q(block, joint.child)))
            return {k: float(theta0[j]) + (_slide(joint, body_coordinates(block, joint.parent, k),
                                                  body_coordinates(block, joint.child, k)) - start)
                    for k in block.nodes}
        out, total = {0: float(theta0[j])}, float(theta0[j])
        for k in block.intervals:
            total = total + _rotation_step(block, joint, k)
            out[k + 1] = total
        return out

    def joint_steps(self, dof: str, theta0: np.ndarray | Sequence[float]) -> dict[int, Any]:
        block = self.block
        joint, _ = joint_kinds(block.system)[dof]
        if dof.endswith(".slide"):
            return super().joint_steps(dof, theta0)  # node by node: no sum to carry
        return {i: _rotation_step(block, joint, i) for i in block.intervals}

    def state_final_configuration(self, theta: Sequence[float], problem: Any) -> None:
        from ..discretization import chart
        from ..mechanics.loops import move_independent

        block, system, N = self.block, self.block.system, self.block.config.steps
        if system.has_loops:
            self._fix_final_nodes(move_independent(system, self._loop_increments(theta), block.q_initial))
            return
        turning = self._turning(theta)
        self.check(turning, f"fix_final_configuration (turns of {turning})")
        self._fix_final_nodes(np.asarray(chart(system, theta), float))
        if turning:
            # θ - π ≤ θ_N ≤ θ + π on the summed half-angle steps: inactive at the solution, it selects the turn
            coordinate = problem.joint_coordinates()
            target = dict(zip(block.velocities, theta))
            problem.block.final_turns = pyo.Constraint(
                turning, rule=lambda b, name: (float(target[name] - np.pi), coordinate[N, name],
                                               float(target[name] + np.pi)))

    def _fix_final_nodes(self, q_f):
        """q_N = q_f fixed and its constraint rows Φ(q_N) deactivated (q_f fulfils them; kept, they
        would repeat the fixed values and LICQ would fail)."""
        block, N = self.block, self.block.config.steps
        for idx, (name, c) in enumerate(block._coordinate_index()):
            block.body[name].q[N, c].fix(q_f[idx])
        for name in block.system.bodies:
            if block.body[name].component("internal_constraint") is not None:
                for r in block.body[name].internal:
                    block.body[name].internal_constraint[N, r].deactivate()
        for name in block.system.joints:
            for r in block.joint[name].rows:
                block.joint[name].joint_constraint[N, r].deactivate()


# -- the node kinematics of the node form (and body points of every form) ----------------
def body_coordinates(block: Any, body: Any, k: int) -> np.ndarray:
    """The coordinates of ``body`` at node k (the ground's are numbers)."""
    if body.name == "ground":
        return np.asarray(body.q0, dtype=object)
    blk = block.body[body.name]
    return np.array([blk.q[k, c] for c in blk.coordinates], dtype=object)


def _relative_rotation(block, joint, k):
    """R_rel = R_pᵀ R_c at node k (directors as columns; the ground's R = I)."""
    def R(body):
        if body.name == "ground":
            return np.eye(3)
        d = body.directors(body_coordinates(block, body, k))
        return np.array([[d[j][i] for j in range(3)] for i in range(3)], dtype=object)

    return matmul(R(joint.parent).T, R(joint.child))


def _rotation_step(block, joint, k):
    """Δ_k = 2 atan(sin Δ / (1 + cos Δ)) of the joint's rotation from node k to k+1."""
    side, n = joint._rotation_axes[0]
    n = np.asarray(n, float)
    if joint.rod:
        return _rod_step(block, joint, k, n)
    M = matmul(_relative_rotation(block, joint, k + 1), _relative_rotation(block, joint, k).T)
    sin = 0.5 * (n[0] * (M[2, 1] - M[1, 2]) + n[1] * (M[0, 2] - M[2, 0]) + n[2] * (M[1, 0] - M[0, 1]))
    cos = 0.5 * (M[0, 0] + M[1, 1] + M[2, 2] - 1.0)
    return 2.0 * pyo.atan(sin / (1.0 + cos))


def _rod_step(block, joint, k, n):
    """The same angle for a point mass on a rod (no directors): the turn of the rod
    λ = R_pᵀ(x_c - s_p), seen in the parent's frame, about n from node k to k+1 —
    sin Δ = n·(λ_k × λ_{k+1})/ℓ², cos Δ = (λ_k·λ_{k+1} - (n·λ_k)(n·λ_{k+1}))/ℓ², ℓ the rod's
    length across the axis (``joint.rod_across``; the joint's rows keep it at every node)."""
    def lever(k):
        qp = body_coordinates(block, joint.parent, k)
        delta = body_coordinates(block, joint.child, k)[0:3] - joint.parent.point(qp, joint.parent_point)
        if joint.parent.name == "ground":
            return delta
        return np.array([dot(d, delta) for d in joint.parent.directors(qp)], dtype=object)

    a, b = lever(k), lever(k + 1)
    sin = dot(n, cross(a, b)) / joint.rod_across
    cos = (dot(a, b) - dot(n, a) * dot(n, b)) / joint.rod_across
    return 2.0 * pyo.atan(sin / (1.0 + cos))


def _slide(joint, qp, qc):
    """b(q_p)·(s_c - s_p): the joint's offset along its spatial translation axis b."""
    b = joint.translation_axes(qp)[0]
    s_p = joint.parent.point(qp, joint.parent_point)
    s_c = joint.child.point(qc, joint.child_point) if joint.child.has_orientation else qc[0:3]
    return sum(b[i] * (s_c[i] - s_p[i]) for i in range(3))


def _initial_q(block, body):
    """The body's coordinates in the block's initial configuration (numbers)."""
    if body.name == "ground":
        return np.asarray(body.q0, float)
    q0, start = np.asarray(block.q_initial, float), 0
    for name, other in block.system.bodies.items():
        size = len(other.q0)
        if name == body.name:
            return q0[start:start + size]
        start += size
    raise ConfigurationError(f"{body} is not a body of {block.system}")  # pragma: no cover
