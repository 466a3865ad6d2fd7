"""Multibody systems used by the mechanics tests."""

import numpy as np

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


def random_rotation(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]).T  # rows are directors


def random_body(name, rng, position):
    J = rng.uniform(0.5, 2.0, size=3)
    J[2] = min(J[2], 0.9 * (J[0] + J[1]))
    J[0] = min(J[0], 0.9 * (J[1] + J[2]))
    J[1] = min(J[1], 0.9 * (J[0] + J[2]))
    return RigidBody(name, rng.uniform(0.5, 3.0), J, position=position, directors=random_rotation(rng))


def make_joint(kind, name, parent, child, location, rng):
    axis = rng.normal(size=3)
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
        other = np.cross(axis, rng.normal(size=3))
        return Universal(name, parent, child, location=location, axis=axis, child_axis=other)
    if kind == "fixed":
        return Fixed(name, parent, child, location=location)
    raise ValueError(kind)


def pair(kind, seed=0, grounded=False):
    """Two bodies (or ground and one body) joined by one joint of ``kind``."""
    rng = np.random.default_rng(seed)
    sys = MultibodySystem(f"pair-{kind}", gravity=(0, 0, -9.81))
    b1 = random_body("b1", rng, rng.normal(size=3))
    b2 = random_body("b2", rng, rng.normal(size=3))
    loc = rng.normal(size=3)
    if grounded:
        sys.add_bodies(b2)
        sys.add_joints(make_joint(kind, "J", None, b2, loc, rng))
    else:
        sys.add_bodies(b1, b2)
        sys.add_joints(make_joint(kind, "J", b1, b2, loc, rng))
    return sys


def chain(kinds, seed=0, grounded=True, tree=False):
    """A chain (or with ``tree=True`` a star) of random bodies and joints."""
    rng = np.random.default_rng(seed)
    sys = MultibodySystem("chain", gravity=(0, -9.81, 0))
    bodies = [random_body(f"b{i}", rng, rng.normal(size=3) * 2) for i in range(len(kinds) + (0 if grounded else 1))]
    sys.add_bodies(*bodies)
    joints = []
    for i, kind in enumerate(kinds):
        if grounded:
            parent = None if i == 0 else (bodies[0] if tree else bodies[i - 1])
            child = bodies[i]
        else:
            parent = bodies[0] if tree else bodies[i]
            child = bodies[i + 1]
        joints.append(make_joint(kind, f"j{i}", parent, child, rng.normal(size=3) * 2, rng))
    sys.add_joints(*joints)
    return sys


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
