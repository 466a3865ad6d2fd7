"""Joint coordinates and body points at the nodes of any scheme block, as expressions.

The problem statements of :class:`~pyomo_mbdyn.ocp.OptimalControlProblem` in
physical terms (a final joint angle with its turns, joint bounds, a body
point for targets, path constraints and objectives) need the same physical
quantity in every scheme, whatever the scheme's unknowns are:

* **chart forms** (gc; bem, rem, dmocc with ``configurations="absolute"``):
  the joint coordinates are the chart coordinates ``θ_k`` themselves;
* **increment forms** (rem, dmocc lifted or minimal): ``θ_k = θ_0 + Σ_{i<k} w_i``,
  exact for revolute, prismatic and cylindrical joints, whose increments add
  up (a fixed axis in the parent);
* **node forms** (bem, dmocc_lm, rattle lifted: node configurations ``q_k`` as
  unknowns): a rotation about a fixed axis n (parent components) between two
  nodes is ``M = R_rel,k+1 R_rel,kᵀ = Rot(n, Δ_k)`` with ``R_rel = R_pᵀ R_c``
  (directors as columns), so ``sin Δ_k = ½ n·vee(M - Mᵀ)``,
  ``cos Δ_k = (tr M - 1)/2``, and the half-angle form
  ``Δ_k = 2 atan(sin Δ_k / (1 + cos Δ_k))`` is smooth for every |Δ_k| < π —
  the joint angle ``θ_k = θ_0 + Σ_{i<k} Δ_i`` keeps its turns.  A slide along
  a parent-fixed axis b is ``b(q_p)·(s_c - s_p)`` minus its initial value
  (exact: the offset moves by ``w b`` and turns with the parent).

Joint coordinates are measured from the reference configuration in which the
system was assembled (``system.q0``, the chart's reference), in rad and m —
the same meaning in every scheme.  Coordinates a form cannot express (a
spherical joint's or a free body's rotation vector outside the chart forms)
raise :class:`~pyomo_mbdyn.errors.NotRepresentableError` naming the scheme
and the forms that can.
"""

import numpy as np
import pyomo.environ as pyo

from ..errors import ConfigurationError, NotRepresentableError
from ..mechanics.linalg import matmul
from ..mechanics.numeric import check_numeric

__all__ = ["check_representable", "joint_dofs", "joint_kinds", "reference_coordinates", "coordinate_at_nodes",
           "point_at_node",
           "dof_values", "AXES"]

#: component names of a point's expression
AXES = ("x", "y", "z")

#: joints whose increments add up: θ_k = θ_0 + Σ w (one fixed axis in the parent)
_ADDITIVE = {"revolute", "prismatic", "cylindrical"}


def joint_kinds(system):
    """Generalised velocity name → (joint, kind) for every joint coordinate (free-body roots: (None, 'free'))."""
    out = {name: (None, "free") for name in system.velocities}
    for joint in system.joints.values():
        for d in joint.dofs:
            out[d] = (joint, joint.kind)
    return out


def joint_dofs(system, name, what):
    """The generalised velocities named by ``name``: a coordinate (``"elbow.angle"``) or a joint (all its)."""
    if isinstance(name, str):
        if name in system.velocities:
            return [name]
        if name in system.joints and system.joints[name].n_dofs:
            return list(system.joints[name].dofs)
    raise ConfigurationError(f"{what}: {name!r} is neither a joint with coordinates nor a generalised "
                             f"coordinate of {system}; joints: {list(system.joints)}, coordinates: "
                             f"{list(system.velocities)}")


def dof_values(system, values, what, names=None):
    """``values`` (a sequence in the order of ``names`` — default ``system.velocities`` —, or a
    dict by coordinate or one-coordinate joint name) as a float array over ``names``.  A bool or a
    text, alone, in the sequence or as a dict value, is a :class:`ConfigurationError` (numpy
    would read ``[True]`` as ``[1.0]`` and ``"1.0"`` as ``1.0``)."""
    names = list(system.velocities) if names is None else list(names)
    if not isinstance(values, dict):
        check_numeric(values, f"{what}: joint coordinates", f"a dict {{joint or coordinate: value}} or a sequence "
                      f"of {len(names)} numbers for {names}")
    if isinstance(values, dict):
        out, seen = {}, {}
        for key, value in values.items():
            dofs = joint_dofs(system, key, what)
            if len(dofs) != 1:
                raise ConfigurationError(f"{what}: joint {key!r} has the coordinates {dofs}; give each by name")
            if dofs[0] not in names:
                raise ConfigurationError(
                    f"{what}: {dofs[0]!r} is fixed by the closure of the loops {system.layout['loop_joints']} "
                    f"(a dependent coordinate); give the independent coordinates {names} "
                    "(system.choose_independent selects others)")
            if dofs[0] in seen:
                raise ConfigurationError(f"{what}: {dofs[0]!r} given twice (as {seen[dofs[0]]!r} and {key!r})")
            seen[dofs[0]] = key
            check_numeric(value, f"{what}: the value of {key!r}", "a number (rad or m)")
            out[dofs[0]] = value
        missing = [d for d in names if d not in out]
        if missing:
            raise ConfigurationError(f"{what}: no value for {missing}; a final configuration needs every "
                                     f"coordinate {names}")
        values = [out[d] for d in names]
    try:
        array = np.asarray(values, float).reshape(-1)
    except (TypeError, ValueError):
        raise ConfigurationError(f"{what}: expected {len(names)} joint coordinates for {names}, "
                                 f"got {values!r}") from None
    if array.shape != (len(names),) or not np.all(np.isfinite(array)):
        raise ConfigurationError(f"{what}: expected {len(names)} finite joint coordinates for {names}, "
                                 f"got {array.tolist()}")
    return array


def reference_coordinates(dyn):
    """θ_0: the chart coordinates of the block's initial configuration."""
    from ..discretization import chart_coordinates

    return chart_coordinates(dyn.system, dyn.q_initial, atol=1e-7)


def _form(dyn):
    if dyn.component("theta") is not None:
        return "chart"
    if dyn.component("w") is not None:
        return "increments"
    return "nodes"


def _body_q(dyn, body, k):
    if body.name == "ground":
        return np.asarray(body.q0, dtype=object)
    blk = dyn.body[body.name]
    return np.array([blk.q[k, c] for c in blk.coordinates], dtype=object)


def _relative_rotation(dyn, joint, k):
    """R_rel = R_pᵀ R_c at node k (directors as columns; the ground's R = I)."""
    def R(body):
        if body.name == "ground":
            return np.eye(3)
        d = body.directors(_body_q(dyn, body, k))
        return np.array([[d[j][i] for j in range(3)] for i in range(3)], dtype=object)

    return matmul(R(joint.parent).T, R(joint.child))


def _rotation_step(dyn, joint, k):
    """Δ_k = 2 atan(sin Δ / (1 + cos Δ)) of the joint's rotation from node k to k+1."""
    side, n = joint._rotation_axes[0]
    n = np.asarray(n, float)
    M = matmul(_relative_rotation(dyn, joint, k + 1), _relative_rotation(dyn, joint, k).T)
    sin = 0.5 * (n[0] * (M[2, 1] - M[1, 2]) + n[1] * (M[0, 2] - M[2, 0]) + n[2] * (M[1, 0] - M[0, 1]))
    cos = 0.5 * (M[0, 0] + M[1, 1] + M[2, 2] - 1.0)
    return 2.0 * pyo.atan(sin / (1.0 + cos))


def _slide(joint, qp, qc):
    """b(q_p)·(s_c - s_p): the joint's offset along its spatial translation axis b."""
    b = joint.translation_axes(qp)[0]
    s_p = joint.parent.point(qp, joint.parent_point)
    s_c = joint.child.point(qc, joint.child_point) if joint.child.has_orientation else qc[0:3]
    return sum(b[i] * (s_c[i] - s_p[i]) for i in range(3))


def _initial_q(dyn, body):
    """The body's coordinates in the block's initial configuration (numbers)."""
    if body.name == "ground":
        return np.asarray(body.q0, float)
    q0, start = np.asarray(dyn.q_initial, float), 0
    for name, other in dyn.system.bodies.items():
        size = len(other.q0)
        if name == body.name:
            return q0[start:start + size]
        start += size
    raise ConfigurationError(f"{body} is not a body of {dyn.system}")  # pragma: no cover


def _representable(dyn, dof):
    """None if the block's form expresses ``dof``'s joint coordinate, else why not."""
    form = _form(dyn)
    if form == "chart":
        return None
    joint, kind = joint_kinds(dyn.system)[dof]
    if form == "increments":
        if kind in _ADDITIVE or getattr(dyn.system, "additive_increments", False):
            return None
        return f"the increments of {dof!r} ({kind}) do not add up"
    if kind in _ADDITIVE:
        return None
    return f"{dof!r} ({kind}) is a rotation vector, not a coordinate of the node configurations"


def check_representable(dyn, dofs, what):
    """Raise :class:`NotRepresentableError` for the coordinates the block cannot express."""
    reasons = [r for r in (_representable(dyn, d) for d in dofs) if r]
    if reasons:
        raise NotRepresentableError(
            f"{what} on the {dyn.scheme} block {dyn.name!r}: {'; '.join(reasons)}. Joint coordinates of "
            "every kind are the unknowns of the chart forms (scheme 'gc', or bem/rem/dmocc with "
            "configurations='absolute'); state the target by fix_final_position / fix_final_orientation "
            "or a body point (ocp.point) instead")


def coordinate_at_nodes(dyn, dof, theta0):
    """{k: expression of the joint coordinate ``dof`` at node k} (k = 0..N), θ measured from system.q0."""
    check_representable(dyn, [dof], "joint coordinate")
    N = dyn.config.steps
    form = _form(dyn)
    if form == "chart":
        return {k: dyn.theta[k, dof] for k in range(N + 1)}
    j = list(dyn.velocities).index(dof)
    if form == "increments":
        out, total = {0: float(theta0[j])}, float(theta0[j])
        for k in range(N):
            total = total + dyn.w[k, dof]
            out[k + 1] = total
        return out
    joint, kind = joint_kinds(dyn.system)[dof]
    if dof.endswith(".slide"):
        start = float(_slide(joint, _initial_q(dyn, joint.parent), _initial_q(dyn, joint.child)))
        return {k: float(theta0[j]) + (_slide(joint, _body_q(dyn, joint.parent, k), _body_q(dyn, joint.child, k))
                                       - start) for k in range(N + 1)}
    out, total = {0: float(theta0[j])}, float(theta0[j])
    for k in range(N):
        total = total + _rotation_step(dyn, joint, k)
        out[k + 1] = total
    return out


def point_at_node(dyn, body, components, k):
    """Spatial position of the body-fixed point ``components`` at node k (a point mass: its position)."""
    q = _body_q(dyn, body, k)
    return body.point(q, components) if body.has_orientation else q[0:3]
