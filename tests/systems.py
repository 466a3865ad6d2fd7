"""Multibody systems used by the mechanics tests, seeded and as hypothesis strategies."""

import hypothesis.extra.numpy as hnp
import numpy as np
from hypothesis import strategies as st

from pyomo_mbdyn.mechanics import (
    Cylindrical,
    Fixed,
    MultibodySystem,
    Planar,
    PointMass,
    Prismatic,
    Revolute,
    RigidBody,
    Spherical,
    Universal,
)

JOINT_TYPES = ["spherical", "revolute", "prismatic", "cylindrical", "planar", "universal", "fixed"]


def rotation_from_quaternion(quaternion):
    """Directors (rows) of the rotation of a non-zero quaternion (w, x, y, z), normalised here."""
    q = np.asarray(quaternion, dtype=float)
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]).T  # rows are directors


def random_rotation(rng):
    return rotation_from_quaternion(rng.normal(size=4))


def _body(name, position, J, mass, directors):
    J = np.array(J, dtype=float)
    J[2] = min(J[2], 0.9 * (J[0] + J[1]))
    J[0] = min(J[0], 0.9 * (J[1] + J[2]))
    J[1] = min(J[1], 0.9 * (J[0] + J[2]))
    return RigidBody(name, mass, J, position=position, directors=directors)


def random_body(name, rng, position):
    J = rng.uniform(0.5, 2.0, size=3)
    return _body(name, position, J, rng.uniform(0.5, 3.0), random_rotation(rng))


def make_joint(kind, name, parent, child, location, axis, other=None):
    """A joint of ``kind``; ``other`` (universal only) is crossed with ``axis`` for the child axis."""
    if kind == "spherical":
        return Spherical(name, parent, child, location=location)
    if kind == "revolute":
        return Revolute(name, parent, child, location=location, axis=axis)
    if kind == "prismatic":
        return Prismatic(name, parent, child, location=location, axis=axis)
    if kind == "cylindrical":
        return Cylindrical(name, parent, child, location=location, axis=axis)
    if kind == "planar":
        return Planar(name, parent, child, location=location, axis=axis)
    if kind == "universal":
        return Universal(name, parent, child, location=location, axis=axis, child_axis=np.cross(axis, other))
    if kind == "fixed":
        return Fixed(name, parent, child, location=location)
    raise ValueError(kind)


def _rng_parts(rng):
    """Body and joint makers drawing from numpy's generator (fixed examples by seed)."""
    def body(name, spread):
        return random_body(name, rng, rng.normal(size=3) * spread)

    def joint(kind, name, parent, child, spread):
        location = rng.normal(size=3) * spread
        axis = rng.normal(size=3)
        other = rng.normal(size=3) if kind == "universal" else None
        return make_joint(kind, name, parent, child, location, axis, other)

    return body, joint


def _pair(kind, grounded, body, joint):
    sys = MultibodySystem(f"pair-{kind}", gravity=(0, 0, -9.81))
    b1, b2 = body("b1", 1.0), body("b2", 1.0)
    if grounded:
        sys.add_bodies(b2)
        sys.add_joints(joint(kind, "J", None, b2, 1.0))
    else:
        sys.add_bodies(b1, b2)
        sys.add_joints(joint(kind, "J", b1, b2, 1.0))
    return sys


def _chain(kinds, grounded, tree, body, joint):
    sys = MultibodySystem("chain", gravity=(0, -9.81, 0))
    bodies = [body(f"b{i}", 2.0) for i in range(len(kinds) + (0 if grounded else 1))]
    sys.add_bodies(*bodies)
    joints = []
    for i, kind in enumerate(kinds):
        if grounded:
            parent = None if i == 0 else (bodies[0] if tree else bodies[i - 1])
            child = bodies[i]
        else:
            parent = bodies[0] if tree else bodies[i]
            child = bodies[i + 1]
        joints.append(joint(kind, f"j{i}", parent, child, 2.0))
    sys.add_joints(*joints)
    return sys


def pair(kind, seed=0, grounded=False):
    """Two bodies (or ground and one body) joined by one joint of ``kind``."""
    return _pair(kind, grounded, *_rng_parts(np.random.default_rng(seed)))


def chain(kinds, seed=0, grounded=True, tree=False):
    """A chain (or with ``tree=True`` a star) of random bodies and joints."""
    return _chain(kinds, grounded, tree, *_rng_parts(np.random.default_rng(seed)))


# -- hypothesis strategies: the same systems, drawn as arrays so that failures shrink ------
def floats(lo, hi):
    """Bounded floats; subnormal magnitudes below 1e-8 become 0 (physical magnitudes)."""
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False).map(lambda x: 0.0 if abs(x) < 1e-8 else x)


def vectors(shape, bound):
    """Arrays with entries in [-bound, bound]."""
    return hnp.arrays(np.float64, shape, elements=floats(-bound, bound))


def directions(size=3):
    """Unit vectors (from arrays of norm at least 0.1, normalised)."""
    return vectors(size, 1.0).filter(lambda a: np.linalg.norm(a) >= 0.1).map(lambda a: a / np.linalg.norm(a))


def _drawn_parts(draw):
    """Body and joint makers drawing from hypothesis: positions and locations in a box of
    half-width 3·spread (where the seeded examples draw normals times spread), inertias
    and masses in the same ranges, directions of length one."""
    def body(name, spread):
        position = draw(vectors(3, 3.0 * spread))
        J = draw(hnp.arrays(np.float64, 3, elements=st.floats(0.5, 2.0, allow_nan=False)))
        mass = draw(st.floats(0.5, 3.0, allow_nan=False))
        return _body(name, position, J, mass, rotation_from_quaternion(draw(directions(4))))

    def joint(kind, name, parent, child, spread):
        location = draw(vectors(3, 3.0 * spread))
        axis = draw(directions())
        other = None
        if kind == "universal":  # a child axis well away from parallel to the parent's
            other = draw(directions().filter(lambda b: np.linalg.norm(np.cross(axis, b)) >= 0.1))
        return make_joint(kind, name, parent, child, location, axis, other)

    return body, joint


@st.composite
def pairs(draw, kind, grounded=False):
    """Strategy: :func:`pair` with drawn parameters."""
    return _pair(kind, grounded, *_drawn_parts(draw))


@st.composite
def chains(draw, kinds, grounded=True, tree=False):
    """Strategy: :func:`chain` with drawn parameters."""
    return _chain(kinds, grounded, tree, *_drawn_parts(draw))


def increments(system, scale=1.0):
    """Strategy: increments in [-scale, scale] of the system's minimal velocities."""
    return vectors(system.n_velocities, scale)


def satellite():
    """Thesis Table 4.1 (exact closed forms): main body and three actuated rotors."""
    from pyomo_mbdyn.models import satellite_spin

    return satellite_spin.build_system("torque")


def pitcher():
    """DMOCC §7.3 topology: ground -R- collarbone -S- upper arm -R- forearm."""
    sys = MultibodySystem("pitcher", gravity=(0, 0, -9.81))
    collar = RigidBody("collarbone", 2.0, (0.02, 0.01, 0.02), position=(0.1, 0, 1.4))
    upper = RigidBody("upper_arm", 2.1, (0.013, 0.002, 0.013), position=(0.2, 0, 1.25))
    fore = RigidBody("forearm", 1.6, (0.01, 0.002, 0.01), position=(0.2, 0, 0.97))
    sys.add_bodies(collar, upper, fore)
    sys.add_joints(
        Revolute("torso", None, collar, location=(0, 0, 1.4), axis=(0, 0, 1)),
        Spherical("shoulder", collar, upper, location=(0.2, 0, 1.4)),
        Revolute("elbow", upper, fore, location=(0.2, 0, 1.1), axis=(0, 1, 0)),
    )
    for j in ("torso", "shoulder", "elbow"):
        sys.actuate(j)
    return sys


def point_mass_pendulum():
    """A point mass on a rigid massive link hinged to the ground (crane-like)."""
    sys = MultibodySystem("pm", gravity=(0, 0, -9.81))
    rod = RigidBody("rod", 1.0, (0.1, 0.1, 0.01), position=(0, 0, -0.5))
    bob = PointMass("bob", 2.0, position=(0, 0, -1.0))
    sys.add_bodies(rod, bob)
    sys.add_joints(
        Revolute("pivot", None, rod, location=(0, 0, 0), axis=(1, 0, 0)),
        Spherical("tip", rod, bob, location=(0, 0, -1.0)),
    )
    return sys


def admissible(sys, rng, scale=1.0, base=None):
    """A random configuration on the constraint manifold (and the increment)."""
    u = rng.uniform(-scale, scale, size=sys.n_velocities)
    base = sys.q0 if base is None else base
    return sys.reparametrise(u, base), u


def director_double_pendulum():
    """Two unit links on revolute joints about e3 from the ground, gravity along -e2."""
    link1 = RigidBody("link1", 1.0, (0.1, 0.1, 0.02), position=(0.5, 0, 0))
    link2 = RigidBody("link2", 1.0, (0.1, 0.1, 0.02), position=(1.5, 0, 0))
    sys = MultibodySystem("double pendulum", gravity=(0, -9.81, 0))
    sys.add_bodies(link1, link2)
    sys.add_joints(Revolute("shoulder", None, link1, location=(0, 0, 0), axis=(0, 0, 1)),
                   Revolute("elbow", link1, link2, location=(1, 0, 0), axis=(0, 0, 1)))
    return sys


def random_state(sys, seed, spread=0.3):
    """An admissible (q0, v0): increments up to ``spread`` from q_ref, rates in [-1, 1]."""
    rng = np.random.default_rng(seed)
    q0 = sys.reparametrise(rng.uniform(-spread, spread, sys.n_velocities), sys.q0)
    return q0, sys.null_space(q0) @ rng.uniform(-1, 1, sys.n_velocities)
