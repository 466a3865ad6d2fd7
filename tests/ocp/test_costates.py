"""Costates from the duals of the direct DNCO transcriptions (thesis §2.12).

λ_{k,k+1} = -y_k/h (y the Ipopt-AMPL dual of the row divided by h): checked by
the control equation u = -λ^p read from the duals alone, and against the
indirect costates, which the dual costates approach as O(h²).  Measured
(max over intervals and components of |λ_direct - λ_indirect|), pendulum,
N = 10, 20, 40, 80: direct midpoint 0.536, 0.149, 0.0382, 0.0096; direct
Greenspan 0.248, 0.064, 0.0161, 0.0041; particle, direct Gonzalez, N = 10,
20, 40: 0.0186, 0.0043, 0.00105.
"""

import numpy as np
import pyomo.environ as pyo
import pytest
from dnco_solutions import solved

from pyomo_mbdyn.errors import ConfigurationError
from pyomo_mbdyn.models import pendulum
from pyomo_mbdyn.ocp.costates import costate_table, costates, costates_from_duals, hamiltonian_drift


@pytest.mark.parametrize("model, scheme", [("pendulum", "direct-midpoint"), ("pendulum", "direct-greenspan"),
                                           ("particle", "direct-gonzalez"), ("particle", "direct-midpoint")])
def test_controls_equal_minus_lambda_p_from_the_duals(model, scheme):
    m = solved(model, scheme, 20)
    lam = costates_from_duals(m.dyn)
    u = m.dyn.trajectory().u
    n = u.shape[1]
    assert np.abs(u).max() > 0.1
    np.testing.assert_allclose(u, lam[:, n:], rtol=0, atol=1e-10 * np.abs(u).max())


def _max_difference(model, scheme, N):
    table = costate_table(solved(model, scheme, N).dyn, solved(model, "dnco", N).dyn)
    return table[[c for c in table if c.startswith("dlam_")]].abs().to_numpy().max()


@pytest.mark.parametrize("model, scheme, ladder, first", [
    ("pendulum", "direct-midpoint", (10, 20, 40, 80), 0.5),
    ("pendulum", "direct-greenspan", (10, 20, 40, 80), 0.2),
    ("particle", "direct-gonzalez", (10, 20, 40), 0.015),
])
def test_dual_costates_converge_to_indirect_costates_as_h_squared(model, scheme, ladder, first):
    diffs = np.array([_max_difference(model, scheme, N) for N in ladder])
    assert diffs[0] > first  # a real difference at coarse grids
    ratios = diffs[:-1] / diffs[1:]
    assert np.all((ratios > 3.5) & (ratios < 4.4)), ratios


def test_costate_table_side_by_side():
    direct, indirect = solved("pendulum", "direct-greenspan", 20).dyn, solved("pendulum", "dnco", 20).dyn
    table = costate_table(direct, indirect)
    assert list(table.columns) == ["t", "u_q", "lam_q_q_direct", "lam_p_q_direct", "Hd_direct",
                                   "lam_q_q_indirect", "lam_p_q_indirect", "Hd_indirect", "dlam_q_q", "dlam_p_q"]
    assert len(table) == 20
    np.testing.assert_allclose(table["t"], (np.arange(20) + 0.5) * 0.15)
    np.testing.assert_allclose(table["lam_p_q_indirect"], costates(indirect)[:, 1])
    assert np.ptp(table["Hd_indirect"]) < 1e-12 * np.abs(table["Hd_indirect"]).max()
    assert hamiltonian_drift(direct) > 0.05 and hamiltonian_drift(indirect) < 1e-12
    with pytest.raises(ConfigurationError, match="method='direct'"):
        costate_table(indirect, direct)
    with pytest.raises(ConfigurationError, match="same N"):
        costate_table(direct, solved("pendulum", "dnco", 10).dyn)


def test_rows_scaled_by_h_scale_the_duals_by_h():
    """The duals y of a row multiplied by c are y/c: λ = -y/h is independent of how the rows are scaled."""
    from pyomo_mbdyn.solvers import get_solver

    m = pendulum.build("direct-greenspan", 10)
    for k in range(10):  # the same equations, not divided by h: (x_{k+1} - x_k) - h f̄ = 0
        for con in (m.dyn.kinematics[k, "q"], m.dyn.momentum_balance[k, "q"]):
            con.set_value(con.body * m.dyn.h == 0)
    opt = get_solver("casadi_ipopt")
    opt.options["tol"] = 1e-12
    opt.solve(m)
    unscaled = np.array([[-m.dual[m.dyn.kinematics[k, "q"]], -m.dual[m.dyn.momentum_balance[k, "q"]]]
                         for k in range(10)])
    np.testing.assert_allclose(unscaled, costates(solved("pendulum", "direct-greenspan", 10).dyn),
                               rtol=1e-7, atol=1e-8)


def test_reading_duals_needs_the_suffix():
    m = pendulum.build("direct-midpoint", 4)
    m.del_component(m.dual)
    with pytest.raises(ConfigurationError, match="dual"):
        costates_from_duals(m.dyn)
    m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    with pytest.raises(ConfigurationError, match="no dual value"):
        costates_from_duals(m.dyn)
    with pytest.raises(TypeError, match="DNCOBlock"):
        costates_from_duals(m)
