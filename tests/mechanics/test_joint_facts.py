"""Every joint kind carries its facts as class data (issue 50): what each coordinate is, whether
increments add up, whether it may carry a point mass, which single axis it moves — and the code
outside the joint classes reads those facts, never compares a joint's kind name.

The facts are checked against what the joints do: a coordinate declared a rotation turns the
child about the joint's axis by that angle (the relative rotation's angle), one declared a
translation slides it by that distance; additive increments compose (two steps of the
reparametrisation equal one of their sum); a point mass is accepted exactly where declared."""

import ast
from pathlib import Path

import numpy as np
import pytest

import pyomo_mbdyn
from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.mechanics import (Cylindrical, Fixed, MultibodySystem, Planar, PointMass, Prismatic, Revolute,
                                   RigidBody, Spherical, Universal)
from pyomo_mbdyn.mechanics.joints import COORDINATE_KINDS, ROTATION, TRANSLATION, Joint

KINDS = [Spherical, Revolute, Prismatic, Cylindrical, Planar, Universal, Fixed]
PACKAGE = Path(pyomo_mbdyn.__file__).parent


def _every_joint_class():
    found, todo = set(), [Joint]
    while todo:
        for sub in todo.pop().__subclasses__():
            found.add(sub)
            todo.append(sub)
    return found


#: what a kind needs beyond a location and an axis
EXTRA = {Universal: {"child_axis": (1.0, 0.0, 0.0)}}


def _system(kind):
    child = RigidBody("child", 2.0, (0.3, 0.4, 0.5), position=(1.0, 0.2, -0.1))
    system = MultibodySystem(f"one {kind.__name__}")
    system.add_bodies(child)
    system.add_joints(kind("j", None, child, location=(0.5, 0.0, 0.0), axis=(0.0, 0.6, 0.8), **EXTRA.get(kind, {})))
    return system


def test_the_list_here_is_every_joint_class():
    assert _every_joint_class() == set(KINDS)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_each_coordinate_has_a_declared_kind(kind):
    joint = _system(kind).joints["j"]
    assert len(joint.coordinate_kinds) == joint.n_dofs
    assert set(joint.coordinate_kinds) <= set(COORDINATE_KINDS)
    assert joint.axis_motion in (None, ROTATION, TRANSLATION)
    if joint.axis_motion is not None:
        assert joint.coordinate_kinds == (joint.axis_motion,)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_declared_kinds_are_what_the_coordinates_do(kind):
    """Moving one coordinate by ε from the reference: a ROTATION turns the child's directors by
    the angle ε (and leaves the relative orientation otherwise), a TRANSLATION moves it by ε
    without turning it."""
    system = _system(kind)
    joint = system.joints["j"]
    eps = 0.3
    base = np.asarray(system.reparametrise(np.zeros(joint.n_dofs), system.q0), float)
    D0 = base[3:12].reshape(3, 3)
    for i, what in enumerate(joint.coordinate_kinds):
        theta = np.zeros(joint.n_dofs)
        theta[i] = eps
        q = np.asarray(system.reparametrise(theta, system.q0), float)
        R = q[3:12].reshape(3, 3).T @ D0          # relative rotation of the child's director frame
        angle = np.arccos(np.clip((np.trace(R) - 1) / 2, -1, 1))
        shift = np.linalg.norm(q[0:3] - base[0:3])
        if what == TRANSLATION:
            assert angle == pytest.approx(0.0, abs=1e-12) and shift == pytest.approx(eps, rel=1e-12)
        else:
            assert angle == pytest.approx(eps, rel=1e-12)


@pytest.mark.parametrize("kind", [k for k in KINDS if k.additive_increments], ids=lambda k: k.__name__)
def test_additive_increments_compose(kind):
    """Where declared, two steps of the reparametrisation equal one by their sum (the schemes then
    read θ_k = θ_0 + Σ w_i); the spherical joint's rotation vectors, which do not, are declared so."""
    system = _system(kind)
    joint = system.joints["j"]
    a, b = np.linspace(0.2, 0.5, joint.n_dofs), np.linspace(-0.4, 0.1, joint.n_dofs)
    once = np.asarray(system.reparametrise(a + b, system.q0), float)
    twice = np.asarray(system.reparametrise(b, system.reparametrise(a, system.q0)), float)
    assert np.allclose(once, twice, atol=1e-12)


def test_rotation_vectors_do_not_add_up_and_are_not_declared_to():
    system = _system(Spherical)
    a, b = np.array([0.4, 0.0, 0.0]), np.array([0.0, 0.5, 0.0])
    once = np.asarray(system.reparametrise(a + b, system.q0), float)
    twice = np.asarray(system.reparametrise(b, system.reparametrise(a, system.q0)), float)
    assert not np.allclose(once, twice, atol=1e-3) and not Spherical.additive_increments


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_a_point_mass_is_accepted_exactly_where_declared(kind):
    mass = PointMass("bob", 1.0, position=(1.0, 0.0, 0.0))
    system = MultibodySystem("bob")
    system.add_bodies(mass)
    # a ball joint at the mass, any other kind as a hinge at a distance (a massless rod)
    where = (1.0, 0.0, 0.0) if kind is Spherical else (0.0, 0.0, 0.0)
    make = lambda: system.add_joints(kind("j", None, mass, location=where, axis=(0.0, 0.0, 1.0),  # noqa: E731
                                          **EXTRA.get(kind, {})))
    if kind.holds_point_mass:
        make()
    else:
        with pytest.raises(ConfigurationError, match="point mass"):
            make()


def test_no_module_compares_a_joint_kind_name():
    """``joint.kind == "revolute"``, ``kind in ("revolute", "prismatic")``: nowhere in the package
    (a comparison of something named ``kind`` with a joint kind's name; the URDF reader's
    comparisons of the URDF's own joint types, ``jtype == "revolute"``, are the file format's)."""
    names = {k.kind for k in KINDS}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                parts = (node.left, *node.comparators)
                strings = {n.value for part in parts for n in ast.walk(part)
                           if isinstance(n, ast.Constant) and isinstance(n.value, str)}
                named = {n.id for part in parts for n in ast.walk(part) if isinstance(n, ast.Name)} | \
                    {n.attr for part in parts for n in ast.walk(part) if isinstance(n, ast.Attribute)}
                if strings & names and any("kind" in ident for ident in named):
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {sorted(strings & names)}")
    assert not found, "\n".join(found)
