"""Rest at the final time, as each scheme states it.

What "the system is at rest at t_N" means depends on what a scheme's unknowns
are, so each scheme block states it (``block.final_rest``, a
:class:`FinalRest`; the block class's ``FINAL_REST``) and
:meth:`OptimalControlProblem.require_final_rest
<pyomo_mbdyn.ocp.OptimalControlProblem.require_final_rest>` only composes it.
The registry records the same form by name (``record.final_rest``).

* :class:`ChartVelocityRest` (``"chart_velocity"``, gc): ṽ_N = 0 — the chart
  velocity; the node velocity is tangent, so the system is at rest.
* :class:`MomentumRest` (``"joint_rates"``, bem, rem, rattle): with
  ``reduced=True`` (default) and ``form="momenta"`` (default) the dof rows
  ``P(q_N)ᵀ M v_N = 0`` (one per ``system.independent`` coordinate; with closed
  loops ``P = P_t N``, so these are the independent rows of the M-orthogonal
  form and LICQ holds).  The node velocity of the lifted schemes need not be
  tangent (G(q_N) v_N ≠ 0); these rows leave it only in M⁻¹ range(G(q_N)ᵀ),
  exactly the node velocity that keeps the configuration still: the stepper
  continued from (q_N, v_N) under the holding control u = -P(q_N)ᵀ∇V stays
  at q_N (tests/ocp/test_final_rest_is_rest.py).  For rattle (G v_N = 0 at the
  nodes) they mean v_N = 0.  ``form="joint_rates"``: ``ν_N = B(q_N) v_N = 0``
  of the contravariant control matrix (thesis §2.10; with loops the
  independent rows E_iᵀ B_t v_N), kept for reproducing numbers computed with
  it — for bem/rem *not* rest in general (the kernel of B is not
  M⁻¹ range(Gᵀ), issue 30), and only for inputs dual to the null space.
  ``reduced=False``: all of ``v_N = 0``.
* :class:`LegendreRest` (``"legendre"``, dmocc, dmocc_lm): the reduced discrete
  Legendre transform ``P(q_N)ᵀ D₂L_d(q_{N-1}, q_N) - (h/2) u_{N-1} = 0``
  (DMOCC paper Eq. 3.21), the end momentum of the last step set to zero.

Examples
--------
>>> from pyomo_mbdyn.models import three_link_arm
>>> for scheme in ("gc", "rem", "dmocc"):
...     m = three_link_arm.build(scheme=scheme, steps=4, case="free")
...     print(scheme, m.dyn.final_rest.name, m.dyn.final_rest.name == m.dyn.record.final_rest)
gc chart_velocity True
rem joint_rates True
dmocc legendre True
"""

from __future__ import annotations

from typing import Any, Iterable

from ..discretization import lagrangian_slopes
from ..errors import ConfigurationError
from ..mechanics.linalg import as_array, matmul

__all__ = ["FinalRest", "ChartVelocityRest", "MomentumRest", "LegendreRest"]


class FinalRest:
    """Rest at t_N on a block (see the module docstring).  :meth:`state` adds the rows to a
    ConstraintList (or fixes variables) for the generalised velocities ``keep``."""

    name: str | None = None

    def __init__(self, block: Any) -> None:
        self.block = block

    def __repr__(self):
        return f"{type(self).__name__}({self.block.name!r})"

    def state(self, rows: Any, keep: Iterable[str], reduced: bool = True, form: str | None = None) -> None:
        """State rest at t_N for the generalised velocities ``keep`` (rows added to ``rows``)."""
        raise NotImplementedError

    def _takes_no_form(self, reduced, form):
        if form is not None:
            raise ConfigurationError(
                f"require_final_rest: form={form!r} applies to the reduced rest of the lifted schemes "
                f"(bem, rem, rattle), not to the {self.block.scheme} block's {self.name!r} rest"
                + ("" if reduced else " with reduced=False (all of v_N = 0)"))


class ChartVelocityRest(FinalRest):
    """ṽ_N = 0: the chart velocities at t_N fixed to zero (gc)."""

    name = "chart_velocity"

    def state(self, rows: Any, keep: Iterable[str], reduced: bool = True, form: str | None = None) -> None:
        self._takes_no_form(reduced, form)
        N = self.block.config.steps
        for name in keep:
            self.block.vt[N, name].fix(0.0)


class MomentumRest(FinalRest):
    """P(q_N)ᵀ M v_N = 0 (default), B(q_N) v_N = 0 (``form="joint_rates"``) or v_N = 0
    (``reduced=False``) on the node velocity of the lifted schemes (bem, rem, rattle)."""

    name = "joint_rates"

    def state(self, rows: Any, keep: Iterable[str], reduced: bool = True, form: str | None = None) -> None:
        block = self.block
        system, N = block.system, block.config.steps
        if form is not None:
            if not reduced:
                raise ConfigurationError(
                    f"require_final_rest: form={form!r} applies to the reduced rest of the lifted schemes "
                    f"(bem, rem, rattle), not to the {block.scheme} block's {self.name!r} rest with "
                    "reduced=False (all of v_N = 0)")
            if form not in ("momenta", "joint_rates"):
                raise ConfigurationError(f"require_final_rest: form must be 'momenta' (P(q_N)ᵀ M v_N = 0, the "
                                         f"default) or 'joint_rates' (B(q_N) v_N = 0), got {form!r}")
            if form == "joint_rates" and not system.has_loops and not system.inputs_dual_to_null_space:
                raise ConfigurationError(
                    f"require_final_rest: form='joint_rates' needs inputs dual to the null space; {system} "
                    f"has an input matrix B that is not a left inverse of P (use the default form 'momenta')")
        keep = set(keep)
        names = system.independent if system.has_loops else block.velocities
        if not reduced:
            for name in system.bodies:
                for c in block.body[name].coordinates:
                    rows.add(block.body[name].v[N, c] == 0)
            return
        q_N, v_N = block.q_array(N), block.v_array(N)
        if form == "joint_rates":
            # ν_N = B(q_N) v_N = 0 (with closed loops the independent rows E_iᵀ B_t(q_N) v_N = 0)
            nu = matmul(system.control_matrix(q_N), as_array(v_N))
            index = {name: j for j, name in enumerate(block.velocities)}
            for name in names:
                if name in keep:
                    rows.add(nu[index[name]] == 0)
            return
        # P(q_N)ᵀ M v_N = 0 (ν_N = P⁺ v_N = 0 with the M-orthogonal left inverse P⁺ = (PᵀMP)⁻¹PᵀM):
        # v_N ∈ M⁻¹ range(G(q_N)ᵀ), the node velocities that leave the configuration still
        momenta = matmul(matmul(system.null_space(q_N).T, system.mass_matrix()), as_array(v_N))
        for j, name in enumerate(names):
            if name in keep:
                rows.add(momenta[j] == 0)


class LegendreRest(FinalRest):
    """P(q_N)ᵀ D₂L_d(q_{N-1}, q_N) + (h/2) Bᵀu_{N-1} = 0 (u the applied force): the end momentum of the last
    step of the variational schemes (dmocc, dmocc_lm; DMOCC paper Eq. 3.21)."""

    name = "legendre"

    def state(self, rows: Any, keep: Iterable[str], reduced: bool = True, form: str | None = None) -> None:
        self._takes_no_form(reduced, form)
        block = self.block
        system, h, N = block.system, block.h, block.config.steps
        keep = set(keep)
        q_prev, q_N = block.q_array(N - 1), block.q_array(N)
        _, D2 = lagrangian_slopes(system, h, q_prev, q_N)
        momenta = matmul(system.null_space(q_N).T, as_array(D2))
        u = {a: block.u[N - 1, a] for a in block.actuated}
        if system.has_loops:  # Pᵀ Bᵀ u = Nᵀ u over the independent coordinates
            forces = system.reduced_forces(q_N, [u.get(name, 0.0) for name in block.velocities])
            for j, name in enumerate(system.independent):
                if name in keep:
                    rows.add(momenta[j] + 0.5 * h * forces[j] == 0)
            return
        for j, name in enumerate(block.velocities):
            if name in keep:
                rows.add(momenta[j] + 0.5 * h * u.get(name, 0.0) == 0)
