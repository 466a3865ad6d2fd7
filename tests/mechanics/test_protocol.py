"""One protocol for the systems (issue 32): what every system states, and what the schemes read.

MultibodySystem and CoordinateSystem are ConstrainedSystems (redundant coordinates,
holonomic constraints, a null space, input rows, a reparametrisation);
HamiltonianSystem is a System.  A system that leaves out a member of the protocol
cannot be made; a tree states the loop interface the same way as the protocol's
defaults; the scheme blocks take exactly the ConstrainedSystems.
"""

import numpy as np
import pyomo.environ as pyo
import pytest

from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.mechanics import (ConstrainedSystem, CoordinateSystem, HamiltonianSystem, MultibodySystem, System,
                                   examples)
from pyomo_mbdyn.models import crane, three_link_arm
from pyomo_mbdyn.schemes import scheme_block


def test_every_system_kind_is_a_system_and_the_constrained_ones_say_so():
    arm, crane_system = three_link_arm.build_system(), crane.build_system()
    particle = HamiltonianSystem(1, lambda q: [[1.0]], lambda q: 0.0 * q[0])
    assert isinstance(arm, MultibodySystem) and isinstance(crane_system, CoordinateSystem)
    assert all(isinstance(s, ConstrainedSystem) for s in (arm, crane_system))
    assert isinstance(particle, System) and not isinstance(particle, ConstrainedSystem)
    assert arm.inputs_dual_to_null_space and not crane_system.inputs_dual_to_null_space
    assert crane_system.additive_increments and not arm.additive_increments


def test_a_system_without_a_member_of_the_protocol_cannot_be_made():
    class Incomplete(ConstrainedSystem):
        n, m, velocities, coordinates, actuated, q0, friction = 1, 0, ["x"], ["p.x"], [], np.zeros(1), np.zeros(1)

        def mass_matrix(self):
            return np.eye(1)

    with pytest.raises(TypeError, match="abstract method.*(constraint_jacobian|null_space|kinetic_energy)"):
        Incomplete()


@pytest.mark.parametrize("system", [examples.pendulum(), three_link_arm.build_system(), crane.build_system()],
                         ids=["pendulum", "arm", "crane"])
def test_a_tree_states_the_loop_interface_as_the_protocol_defaults(system):
    q = system.q0
    assert not system.has_loops and list(system.dropped_constraints) == []
    assert list(system.independent) == list(system.velocities) and list(system.dependent) == []
    assert list(system.active_rows) == list(range(system.m)) and system.m_active == system.m
    assert system.active_labels() == system.constraint_labels()
    np.testing.assert_array_equal(np.asarray(system.active_jacobian(q), float),
                                  np.asarray(system.constraint_jacobian(q), float))
    np.testing.assert_array_equal(np.asarray(system.tree_null_space(q), float), np.asarray(system.null_space(q), float))
    assert system.actuated_indices == [list(system.velocities).index(a) for a in system.actuated]
    assert system.n_velocities == len(system.velocities)


def test_scheme_blocks_take_constrained_systems_only():
    particle = HamiltonianSystem(1, lambda q: [[1.0]], lambda q: 0.0 * q[0], name="particle")
    m = pyo.ConcreteModel()
    with pytest.raises((ConfigurationError, ValueError), match="expected a MultibodySystem or CoordinateSystem, got HamiltonianSystem"):
        m.dyn = scheme_block("rem", system=particle, steps=2, horizon=1.0)
