"""The stepper's compiled sparse Newton iteration gives the trajectories of the
dense Newton iteration it replaced (``DM`` → numpy, ``np.linalg.solve``) to
round-off, with the same convergence rule.  No timings here."""

import numpy as np
import pytest

from pyomo_mbdyn.models import satellite_spin
from pyomo_mbdyn.simulate import Stepper
from pyomo_mbdyn.simulate.stepper import NewtonFunction


class DenseNewton(NewtonFunction):
    """The iteration before issue 14: residual and Jacobian as DM, a dense solve."""

    def __call__(self, x, *params):
        r, J = self.residual(x, *params)
        r = np.asarray(r).ravel()
        return r, np.linalg.solve(np.asarray(J), -r)


@pytest.mark.parametrize("scheme", ["bem", "rem"])
def test_sparse_newton_stepper_equals_dense_newton(scheme):
    system = satellite_spin.build_system("friction")
    q0, v0, u = satellite_spin.initial_state(system, "friction")
    steps, h = 20, satellite_spin.HORIZON / 80
    U = np.tile(u, (steps, 1))
    sparse = Stepper(system, h, scheme)
    dense = Stepper(system, h, scheme)
    dense._residual = DenseNewton(dense._residual.residual)
    a, b = sparse.simulate(q0, v0, steps, U), dense.simulate(q0, v0, steps, U)
    for name in ("q", "v", "nu"):
        x, y = getattr(a, name), getattr(b, name)
        assert np.abs(x - y).max() <= 1e-12 * (1 + np.abs(y).max()), name
