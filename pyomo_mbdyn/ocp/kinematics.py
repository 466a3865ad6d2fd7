"""Joint coordinates named by the user, and body points at the nodes of any scheme block.

The problem statements of :class:`~pyomo_mbdyn.ocp.OptimalControlProblem` in
physical terms name joints and coordinates (``"elbow"``, ``"elbow.angle"``) and
body points; these helpers turn a user's names and values into the system's
coordinates (validated, with errors that name the joint) and give a body
point's position at a node.  How a joint coordinate is expressed on a block's
unknowns — the chart, increment and node forms — is the block's
(:mod:`pyomo_mbdyn.schemes.configuration_forms`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence, cast

import numpy as np
import numpy.typing as npt

from ..errors import ConfigurationError
from ..mechanics.numeric import check_numeric
from ..schemes.configuration_forms import body_coordinates

if TYPE_CHECKING:
    from ..mechanics.bodies import Body, RigidBody
    from ..mechanics.protocol import ConstrainedSystem
    from ..schemes.base import MultibodyBlockData

__all__ = ["joint_dofs", "point_at_node", "dof_values", "AXES"]

#: component names of a point's expression
AXES = ("x", "y", "z")


def joint_dofs(system: ConstrainedSystem, name: str, what: str) -> list[str]:
    """The generalised velocities named by ``name``: a coordinate (``"elbow.angle"``) or a joint (all its)."""
    if isinstance(name, str):
        if name in system.velocities:
            return [name]
        if name in system.joints and system.joints[name].n_dofs:
            return list(system.joints[name].dofs)
    raise ConfigurationError(f"{what}: {name!r} is neither a joint with coordinates nor a generalised "
                             f"coordinate of {system}; joints: {list(system.joints)}, coordinates: "
                             f"{list(system.velocities)}")


def dof_values(system: ConstrainedSystem, values: dict[str, float] | npt.ArrayLike, what: str,
               names: Sequence[str] | None = None) -> np.ndarray:
    """``values`` (a sequence in the order of ``names`` — default ``system.velocities`` —, or a
    dict by coordinate or one-coordinate joint name) as a float array over ``names``.  A bool or a
    text, alone, in the sequence or as a dict value, is a :class:`ConfigurationError` (numpy
    would read ``[True]`` as ``[1.0]`` and ``"1.0"`` as ``1.0``)."""
    names = list(system.velocities) if names is None else list(names)
    expected = f"a dict {{joint or coordinate: value}} or a sequence of {len(names)} numbers for {names}"
    if values is None:  # np.asarray(None, float) is [nan]: say what was given and what is expected
        raise ConfigurationError(f"{what}: got None; expected {expected}")
    if not isinstance(values, dict):
        check_numeric(values, f"{what}: joint coordinates", expected)
    if isinstance(values, dict):
        out: dict[str, Any]
        seen: dict[str, str]
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
            if value is None:
                raise ConfigurationError(f"{what}: the value of {key!r} must be a number (rad or m), got None")
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
        given = values if isinstance(values, (list, tuple)) and any(v is None for v in values) else array.tolist()
        raise ConfigurationError(f"{what}: expected {len(names)} finite joint coordinates for {names}, "
                                 f"got {given!r}")
    return array


def point_at_node(dyn: MultibodyBlockData, body: Body, components: Any, k: int) -> np.ndarray:
    """Spatial position of the body-fixed point ``components`` at node k (a point mass: its position)."""
    q = body_coordinates(dyn, body, k)
    # a body with an orientation is a RigidBody (a PointMass has none)
    return cast("RigidBody", body).point(q, components) if body.has_orientation else q[0:3]
