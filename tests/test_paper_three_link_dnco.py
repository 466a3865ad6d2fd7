"""Thesis E3, Ch. 8: the three-link arm in joint angles as an indirect DNCO (N = 40).

Measured (casadi_ipopt): indirect J_d = 3 988 024 at N = 40 (4 011 721 at
N = 20), H^d = 6.48e5 constant to ≈ 1e-13 relative; the direct Gonzalez
transcription (J_d = 3 987 552 at N = 40) spreads H^d by 68 %, 17 %, 4.9 %
of its size at N = 20, 40, 80, and T + V + W stays within 3e-12 with the
Gonzalez gradient but spreads by 6.6 with the midpoint rule (N = 20).
"""

import numpy as np
import pytest
from dnco_solutions import solved

from pyomo_mbdyn.models import three_link_arm_dnco as arm
from pyomo_mbdyn.ocp.costates import costates, hamiltonian_drift


def _directors(alpha):
    """Redundant coordinates (φ, d1, d2) of the three bodies (thesis E3, F^i), 18 entries."""
    theta = np.cumsum(alpha)
    out, tip = [], np.zeros(2)
    for (_, _, _, length), th in zip(arm.LINKS, theta):
        d1 = np.array([np.cos(th), np.sin(th)])
        out += [tip + 0.5 * length * d1, d1, np.array([-d1[1], d1[0]])]
        tip = tip + length * d1
    return np.concatenate(out)


@pytest.mark.parametrize("alpha", [arm.ALPHA0, arm.ALPHAF, np.array([0.3, -1.1, 2.0])])
def test_mass_matrix_is_P_transpose_M_P_of_the_director_model(alpha):
    """M(α) = Pᵀ diag(m I, E1 I, E2 I) P with P = ∂q/∂α (finite differences of F^i)."""
    eps = 1e-6
    P = np.column_stack([(_directors(alpha + eps * e) - _directors(alpha - eps * e)) / (2 * eps)
                         for e in np.eye(3)])
    Mq = np.diag(np.concatenate([[m, m, E1, E1, E2, E2] for m, E1, E2, _ in arm.LINKS]))
    np.testing.assert_allclose(np.array(arm.mass_matrix(alpha), dtype=float), P.T @ Mq @ P, rtol=1e-8)


def test_boundary_configurations_are_the_papers():
    np.testing.assert_allclose(_directors(arm.ALPHA0)[[0, 1, 6, 7, 12, 13]], [0, 3.5, 3, 7, 6, 11], atol=1e-12)
    np.testing.assert_allclose(_directors(arm.ALPHAF)[[0, 1, 6, 7, 12, 13]], [0, 3.5, 0, 10, 0, 17], atol=1e-12)
    V = sum(m * 9.81 * y for (m, *_), y in zip(arm.LINKS, (3.5, 10, 17)))
    assert arm.potential(arm.ALPHAF) == pytest.approx(V, rel=1e-14)


def test_indirect_dnco_conserves_hd_and_energy():
    m = solved("three-link-arm", "dnco", 40)
    Hd = m.dyn.interval_table()["Hd"].to_numpy()
    assert np.ptp(Hd) < 1e-12 * np.abs(Hd).max()
    E = m.dyn.diagnostics()["E"].to_numpy()
    assert np.ptp(E) < 1e-14 * np.abs(E).max()
    tr = m.dyn.trajectory()
    u, lam = tr.u, tr.costates
    np.testing.assert_allclose(u, lam[:, 3:], atol=1e-9 * np.abs(u).max())
    # the indirect solution is feasible for the direct Gonzalez NLP: it cannot be cheaper
    direct = solved("three-link-arm", "direct-gonzalez", 40)
    assert m.dyn.cost() >= direct.dyn.cost() and m.dyn.cost() - direct.dyn.cost() < 1e-3 * direct.dyn.cost()


def test_direct_transcriptions_do_not_conserve_hd():
    spreads = []
    for N in (20, 40):
        Hd = solved("three-link-arm", "direct-gonzalez", N).dyn.interval_table(
            costates(solved("three-link-arm", "direct-gonzalez", N).dyn))["Hd"].to_numpy()
        spreads.append(np.ptp(Hd) / np.abs(Hd).max())
    assert spreads[0] > 0.6 and spreads[1] > 0.15 and spreads[0] / spreads[1] > 3.5
    midpoint = solved("three-link-arm", "direct-midpoint", 20).dyn
    assert hamiltonian_drift(midpoint) > 0.05
    assert np.ptp(midpoint.diagnostics()["E"]) > 1.0
    assert np.abs(costates(midpoint)).max() > 1e3
