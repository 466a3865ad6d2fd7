"""Pᵀ Bᵀ τ equals the DMOCC paper's reduced forces (5.14), (5.27), (5.33), (5.39), (5.47).

The paper measures joint rates *about the axis fixed in body 1* (its Remark
5.1), so its null-space matrices (5.11), (5.24), (5.30), (5.36), (5.44) differ
from the library's (relative rates, with B P = I).  Both are null-space bases;
this test builds the paper's P, checks G P = 0 for it, and shows that the
library's B (forces and torques of the pair, action = reaction, with the ½ of
(5.9)) gives exactly the paper's reduced forces with ρ^rb = 0.
"""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from pyomo_mbdyn.mechanics import hat

from systems import increments, pairs, vectors
I3, Z3 = np.eye(3), np.zeros((3, 3))


def _paper_P(kind, sys, q):
    """Paper's P for body 1 free and body 2 on the pair; columns (φ̇¹, ω¹, joint)."""
    joint = sys.joints["J"]
    b1, b2 = sys.bodies["b1"], sys.bodies["b2"]
    q1, q2 = sys.body_coordinates(q, "b1"), sys.body_coordinates(q, "b2")
    phi1, phi2 = q1[0:3], q2[0:3]
    s1, s2 = b1.point(q1, joint.parent_point), b2.point(q2, joint.child_point)
    rho1, rho2 = s1 - phi1, s2 - phi2
    n = None
    if kind in ("revolute", "cylindrical", "planar"):
        n = joint.rotation_axes(q1, q2)[0]
    if kind == "prismatic":
        n = joint.translation_axes(q1)[0]
    if n is not None:
        I11 = I3 - np.outer(n, n)
    if kind == "spherical":  # (5.11)
        ext = np.block([[I3, -hat(rho1), hat(rho2)], [Z3, Z3, I3]])
    elif kind == "revolute":  # (5.30)
        ext = np.block([[I3, hat(rho2) @ I11 - hat(rho1), np.cross(rho2, n)[:, None]],
                        [Z3, I11, n[:, None]]])
    elif kind == "cylindrical":  # (5.24), columns (φ̇¹, ω¹, u̇, θ̇)
        u = n @ (s2 - s1)
        ext = np.block([[I11, hat(rho2) @ I11 - hat(rho1) - hat(u * n), n[:, None],
                         np.cross(rho2, n)[:, None]],
                        [Z3, I11, np.zeros((3, 1)), n[:, None]]])
    elif kind == "prismatic":  # (5.36)
        ext = np.block([[I3 - np.outer(n, n), hat(phi1 - phi2), n[:, None]],
                        [Z3, I3, np.zeros((3, 1))]])
    elif kind == "planar":  # (5.44), columns (φ̇¹, ω¹, u̇_1, u̇_2, θ̇)
        m1, m2 = joint.translation_axes(q1)
        u1, u2 = m1 @ (s2 - s1), m2 @ (s2 - s1)
        ext = np.block([[np.outer(n, n), hat(rho2) @ I11 - hat(rho1) - hat(u1 * m1 + u2 * m2),
                         m1[:, None], m2[:, None], np.cross(rho2, n)[:, None]],
                        [Z3, I11, np.zeros((3, 1)), np.zeros((3, 1)), n[:, None]]])
    r = ext.shape[1] - 6
    top = b1.internal_null_space(q1) @ np.hstack([np.eye(6), np.zeros((6, r))])
    bottom = b2.internal_null_space(q2) @ ext
    return np.vstack([top, bottom]), n


def _paper_reduced_forces(kind, joint, q1, tau_phi, tau_theta, tau_j, n):
    if kind == "spherical":  # (5.14)
        return np.concatenate([tau_phi, tau_theta - tau_j, tau_j])
    if kind == "revolute":  # (5.33)
        return np.concatenate([tau_phi, tau_theta - tau_j[0] * n, tau_j])
    if kind == "prismatic":  # (5.39)
        return np.concatenate([tau_phi - tau_j[0] * n, tau_theta, tau_j])
    if kind == "cylindrical":  # (5.27), paper order (force, torque)
        t_rot, t_slide = tau_j
        return np.concatenate([tau_phi - t_slide * n, tau_theta - t_rot * n, [t_slide, t_rot]])
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["spherical", "revolute", "prismatic", "cylindrical", "planar"])
@given(data=st.data())
def test_reduced_forces_equal_the_papers(kind, data):
    sys = data.draw(pairs(kind))
    q = sys.reparametrise(data.draw(increments(sys)), sys.q0)
    P, n = _paper_P(kind, sys, q)
    G = sys.constraint_jacobian(q)
    assert np.abs(G @ P).max() < 1e-12  # the paper's P, transcribed, is a null space
    assert np.linalg.matrix_rank(P) == sys.dof
    tau = data.draw(vectors(sys.dof, 3.0))
    reduced = P.T @ sys.control_matrix(q).T @ tau
    tau_phi, tau_theta, tau_j = tau[0:3], tau[3:6], tau[6:]
    joint = sys.joints["J"]
    q1, q2 = sys.body_coordinates(q, "b1"), sys.body_coordinates(q, "b2")
    if kind == "planar":
        # (5.47) with a = n·(ρ² × (τ_1 m_1 + τ_2 m_2)).  The paper applies the
        # slide forces at body 2's centre of mass (5.46); the library applies
        # them at the joint point, which adds the torque a n about the axis and
        # removes the coupling: the library's reduced forces are (5.47) with
        # a = 0 (and B P = I).  Both parts are checked.
        t_rot, t1, t2 = tau_j
        m1, m2 = joint.translation_axes(q1)
        rho2 = sys.bodies["b2"].point(q2, joint.child_point) - q2[0:3]
        a = n @ np.cross(rho2, t1 * m1 + t2 * m2)

        def paper_547(a):
            return np.concatenate([tau_phi - t1 * m1 - t2 * m2, tau_theta + a * n - t_rot * n,
                                   [t1, t2, -a + t_rot]])

        expected = paper_547(0.0)
        # the paper's own actuation: move the torque a n back off the child
        shift = np.zeros(sys.n)
        shift[12 + 3: 12 + 12] = (sys.bodies["b2"].internal_null_space(q2) @ np.r_[np.zeros(3), -0.5 * a * n])[3:]
        shift[3:12] = (sys.bodies["b1"].internal_null_space(q1) @ np.r_[np.zeros(3), 0.5 * a * n])[3:]
        np.testing.assert_allclose(P.T @ (sys.control_matrix(q).T @ tau + shift), paper_547(a),
                                   atol=1e-12)
    else:
        expected = _paper_reduced_forces(kind, joint, q1, tau_phi, tau_theta, tau_j, n)
    np.testing.assert_allclose(reduced, expected, atol=1e-12)
