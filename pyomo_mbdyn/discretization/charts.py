"""The chart of a tree: minimal coordinates θ ↦ q(θ) and its inverse.

``q(θ) = F(θ, q_ref)`` is the absolute nodal reparametrisation of a tree from
its reference configuration (thesis §2.4; DMOCC §5.3): θ are root positions
and rotation vectors and joint coordinates.  Derivatives along directions come
from Taylor jets (:mod:`.jets`), exact in every backend.
"""

import numpy as np

from ..mechanics.linalg import as_array, shared_array
from .jets import directional_derivatives

__all__ = ["chart", "chart_velocity", "chart_basis", "chart_coordinates"]


def chart(system, theta, rotation="exp"):
    """Minimal-coordinate map ``q(θ) = F(θ, q_ref)``: the absolute reparametrisation
    of a tree from its reference configuration (thesis §2.4: θ = joint angles,
    root positions and rotation vectors)."""
    return system.reparametrise(theta, system.q0, rotation)


def chart_velocity(system, theta, vt, rotation="exp"):
    """``(q, v, a)`` = ``(q(θ), P̃(θ) ṽ, (Ṗ ṽ)(θ) ṽ)`` by Taylor jets, any backend."""
    return directional_derivatives(lambda t: chart(system, t, rotation), theta, vt)


def chart_basis(system, theta, rotation):
    """``P̃(θ) = ∂q/∂θ`` column by column (n × dof)."""
    dof = system.n_velocities
    cols = []
    for j in range(dof):
        e = np.zeros(dof)
        e[j] = 1.0
        cols.append(shared_array(chart_velocity(system, theta, e, rotation)[1]))
    return as_array(np.array(cols, dtype=object).T.reshape(system.n, dof))



def chart_coordinates(system, q, v=None, rotation="exp", tol=1e-12, start=None, atol=1e-9):
    """Invert the chart numerically: θ with q(θ) = q (and ṽ with P̃(θ) ṽ = v).

    Gauss–Newton from ``start`` (default θ = 0; pass the previous node's θ to
    follow a trajectory continuously, e.g. rotor angles beyond π); raises
    ``ValueError`` if ``q`` is not reached to ``atol`` (then it is not in the
    chart's domain, e.g. a rotation beyond 2π; a guess that fulfils the
    constraints only approximately needs a larger ``atol``).
    """
    q = np.asarray(q, float)
    dof = system.n_velocities
    theta = np.zeros(dof) if start is None else np.array(start, dtype=float).reshape(dof)
    for _ in range(50):
        r = np.asarray(chart(system, theta, rotation), float) - q
        if np.abs(r).max() < tol:
            break
        P = np.asarray(chart_basis(system, theta, rotation), float)
        theta = theta - np.linalg.lstsq(P, r, rcond=None)[0]
    r = np.asarray(chart(system, theta, rotation), float) - q
    if np.abs(r).max() > atol:
        raise ValueError(f"{system}: configuration not reached by the chart (|q(θ) - q| = {np.abs(r).max():.2e})")
    if v is None:
        return theta
    P = np.asarray(chart_basis(system, theta, rotation), float)
    return theta, np.linalg.lstsq(P, np.asarray(v, float), rcond=None)[0]
