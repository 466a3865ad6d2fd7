"""Step equations of the midpoint rule in generalised coordinates (GC, thesis §2.5).

The baseline scheme: the chart coordinates θ of :mod:`.charts` with the
implicit midpoint rule, neither energy nor momentum consistent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..mechanics.linalg import as_array, matmul, shared_array
from .charts import chart_jets, chart_transpose
from .common import efforts, midpoint, thesis_controls

if TYPE_CHECKING:
    import numpy.typing as npt
    from ..mechanics.protocol import ConstrainedSystem

__all__ = ["gc_residuals"]


def gc_residuals(system: ConstrainedSystem, h: Any, th0: np.ndarray, vt0: np.ndarray, th1: np.ndarray, vt1: np.ndarray, u: np.ndarray, rotation: str = "exp", nu: np.ndarray | None = None, inverse_dynamics: Callable[[np.ndarray, np.ndarray, np.ndarray], Any] | None = None) -> dict[str, np.ndarray]:
    """One step of the midpoint rule in generalised coordinates (thesis Eq. 3.40–3.42).

    ::

        kinematics            θ_{k+1} - θ_k - h ṽ_{k+½}                               (dof)
        momentum_balance      M̃(θ_{k+½})(ṽ_{k+1} - ṽ_k)
                              + h P̃ᵀ[M Ṗṽ + ∇V + Bᵀ(K ν - u)]                          (dof)

    with ``M̃ = P̃ᵀ M P̃``, all at ``θ_{k+½}, ṽ_{k+½}``, evaluated as
    ``P̃ᵀ[M(P̃(ṽ_{k+1} - ṽ_k) + h Ṗṽ) + h(∇V + Bᵀ(K ν - u))]`` (M̃ is never formed), and ``ν = B P̃ ṽ_{k+½}``
    (= ṽ for chains of revolute and prismatic joints, where ``P̃ᵀBᵀ = I`` and
    ``K ṽ - u`` results, the thesis's ``K ṽ + ū``).  Neither energy nor momentum consistent.

    ``inverse_dynamics(θ, ṽ, a)`` (optional, arrays in the order of ``system.velocities``)
    is ``P̃ᵀ[M(P̃ a + Ṗṽṽ) + ∇V]`` = M̃ a + c + g evaluated another way, e.g. by the
    recursive Newton–Euler algorithm of a chain
    (:meth:`~pyomo_mbdyn.simulate.recursive.Chain.inverse_dynamics_function`), for
    systems with ``P̃ᵀBᵀ = I`` (chains of revolute and prismatic joints): then
    ``momentum_balance = h (inverse_dynamics(θ, ṽ, Δṽ/h) + K ν + u)`` and ν = ṽ.  The same
    equation in O(dof) operations instead of the natural coordinates' chart and its
    derivatives (the Panda's step: 3 900 instead of 8 300 CasADi instructions).
    """
    th0, vt0, th1, vt1 = as_array(th0), as_array(vt0), as_array(th1), as_array(vt1)
    th_mid, vt_mid = midpoint(th0, th1), midpoint(vt0, vt1)
    if inverse_dynamics is not None:
        rates = vt_mid if nu is None else as_array(nu)
        effort = efforts(system, rates, thesis_controls(system, u))
        tau = as_array(inverse_dynamics(th_mid, vt_mid, as_array((vt1 - vt0) / h)))
        out = {"kinematics": as_array(th1 - th0 - vt_mid * h),
               "momentum_balance": as_array((tau + effort) * h)}
        if nu is not None:
            out["joint_rates"] = as_array(as_array(nu) - vt_mid)
        return out
    # q, P̃ṽ, (Ṗṽ)ṽ and P̃Δṽ at the midpoint by forward mode through the compiled chart
    q_mid, v_mid, a_mid, dv_mid = (shared_array(x) for x in chart_jets(system, th_mid, vt_mid, vt1 - vt0, rotation))
    M = np.diag(system.mass_matrix())
    B = system.control_matrix(q_mid)
    rates = shared_array(matmul(B, v_mid)) if nu is None else as_array(nu)
    effort = efforts(system, rates, thesis_controls(system, u))
    force = shared_array(system.potential_gradient() + matmul(B.T, effort))
    # M̃ Δṽ + h P̃ᵀ[M a + f] written as P̃ᵀ[M (P̃ Δṽ + h a) + h f]: M̃ = P̃ᵀ M P̃ is never
    # formed, and P̃ᵀ is one reverse pass (the Panda's step: 13 725 → 8 300 CasADi instructions)
    inertia = shared_array(M * (dv_mid + a_mid * h) + force * h)
    out = {
        "kinematics": as_array(th1 - th0 - vt_mid * h),
        "momentum_balance": as_array(chart_transpose(system, th_mid, inertia, rotation)),
    }
    if nu is not None:  # lifted joint rates (the Pyomo block keeps them as variables)
        out["joint_rates"] = as_array(as_array(nu) - matmul(B, v_mid))
    return out

