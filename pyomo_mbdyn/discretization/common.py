"""Pieces shared by the step equations of several schemes.

``u`` is always the control (minus the applied generalised force on the
actuated coordinates); ``ν`` the interval joint rates; ``K`` the Rayleigh
friction coefficients of the system.
"""

import numpy as np

from ..mechanics.linalg import as_array, shared_array

__all__ = ["full_controls", "efforts", "midpoint"]


def full_controls(system, u):
    """Place the actuated controls ``u`` (length n_act) into a length-dof vector."""
    full = [0.0] * system.n_velocities
    for a, idx in enumerate(system.actuated_indices):
        full[idx] = u[a]
    return full


def efforts(system, nu, u_full):
    """``K ν + u`` without zero terms."""
    K = system.friction
    out = []
    for j in range(system.n_velocities):
        e = 0.0
        if K[j] != 0:
            e = nu[j] * float(K[j])
        if not (isinstance(u_full[j], float) and u_full[j] == 0.0):
            e = u_full[j] if (isinstance(e, float) and e == 0.0) else e + u_full[j]
        out.append(e)
    return shared_array(np.array(out, dtype=object))


def midpoint(a, b):
    return shared_array(as_array((as_array(a) + as_array(b)) * 0.5))

