"""The conservation table drawn: energy balance, momentum balances, constraint residual.

The energy terms T, V, W, D, E and the momenta L, p come from
:mod:`pyomo_mbdyn.diagnostics` (``dyn.diagnostics()``); nothing here
recomputes them.  :func:`~pyomo_mbdyn.balance.momentum_balance` adds what
changes a momentum: for a rotation about a coordinate axis through the origin
(or a translation along it) that the joints to the ground allow
(``G(q) ξ(q) = 0``, ξ the motion's velocity field on the coordinates), the
impulse of gravity ``-h ∇V·ξ`` and of the controls and joint friction
``-h (u + Kν)·B ξ``, evaluated where the scheme applies its loads.  The balance
``J_k − J_0 − impulse`` is then flat to solver tolerance for a
momentum-consistent scheme (DMOCC paper Prop. 4.1, Fig. 7.6; thesis §2.3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..balance import _scheme_record, energy_statement, momentum_balance
from ..errors import ConfigurationError
from .canvas import bracket, color, flat_if_constant, new_figure, styled

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from ..trajectory import Trajectory

__all__ = ["plot_conservation", "ENERGY_TERMS"]

#: energy terms of the conservation table and what each one is
ENERGY_TERMS = {
    "T": "T  kinetic energy",
    "V": "V  potential energy (gravity)",
    "W": "W  = −(work done by the controls)",
    "D": "D  energy dissipated by joint friction/damping",
}
_MOMENTA = ("Lx", "Ly", "Lz", "px", "py", "pz")
_MOMENTUM_UNIT = {"L": "N m s", "p": "N s"}


def _momentum_label(column, info):
    name = f"{column[0]}_{column[1]}"
    motion = (f"rotation about {info['axis']}" if info["motion"] == "rotation"
              else f"translation along {info['axis']}")
    why = f"{motion} symmetry" if not info["gravity"] else f"{motion} free at the joints"
    acting = ((["gravity"] if info["gravity"] else []) + [f"the control on {a}" for a in info["actuators"]]
              + (["friction"] if info["friction"] else []))
    if not acting:
        return f"{name}: conserved ({why})"
    if len(acting) > 3:
        acting = acting[:2] + [f"{len(acting) - 2} more"]
    return f"{name} ({why}): changed by " + ", ".join(acting)


def _energy_panels(ax, balance_ax, table, t, scheme, energy_unit, time_unit):
    present = [c for c in ENERGY_TERMS if c in table.columns]
    drawn = [c for c in present if np.any(table[c].to_numpy(float) != 0)] or present[:1]
    for c in drawn:
        ax.plot(t, table[c].to_numpy(float), label=ENERGY_TERMS[c])
    E = table["E"].to_numpy(float)
    ax.plot(t, E, label="E = " + " + ".join(present) + "  total", lw=2.6, color="k")
    zero = [c for c in present if c not in drawn]
    ax.set_title("energy: " + " + ".join(present) + " = E" + (f"  ({' = '.join(zero)} = 0)" if zero else ""))
    ax.set_ylabel(f"energy {bracket(energy_unit)}")
    _legend_below(ax)
    drift = E - E[0]
    balance_ax.plot(t, drift, color="k", marker=".")
    statement = energy_statement(scheme)
    scale = max(np.abs(table[present].to_numpy(float)).max(initial=0.0), np.abs(E).max(), 1e-300)
    balance_ax.set_title((statement or "E − E₀ (scheme not given: no conservation claim)").replace(": ", ":\n", 1)
                         + f"\nmax |E − E₀| = {np.abs(drift).max():.2e} {energy_unit}"
                         f" = {np.abs(drift).max() / scale:.1e} × the largest term")
    balance_ax.set_ylabel(f"E − E₀ {bracket(energy_unit)}")


def _legend_below(ax, columns=2):
    """The legend under the axes (long labels would hide the curves)."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=columns, frameon=False)


def _momentum_rows(table, trajectory, rec):
    """[(group, columns, balance table or None, reason)] for the L and p rows."""
    present = [c for c in _MOMENTA if c in table.columns and table[c].notna().any()]
    if not present:
        return []
    balance, reason = None, None
    if trajectory is None or getattr(trajectory, "system", None) is None:
        reason = "impulses of the loads not given (pass trajectory=)"
    else:
        from ..mechanics import MultibodySystem

        if not isinstance(trajectory.system, MultibodySystem):
            reason = "no rigid-body motions for this system"
        else:
            balance = momentum_balance(trajectory, table, scheme=None if rec is None else rec.name)
    if balance is not None:
        rows = [(group, [c for c in balance.attrs["momenta"] if c[0] == group], balance, None) for group in "Lp"]
        rows = [row for row in rows if row[1]]
        if rows:
            return rows  # the momenta without a balance law (no free motion) are left out
        reason = "not conserved under control: " + (
            balance.attrs["impulse_error"] or "no rotation about a coordinate axis through the origin "
                                              "and no translation is free at the joints to the ground")
    return [(group, [c for c in present if c[0] == group], None, reason) for group in "Lp"
            if any(c[0] == group for c in present)]


def _draw_momentum_row(left, right, group, columns, balance, reason, table, t, rec, time_unit):
    what = "angular momentum about the origin" if group == "L" else "linear momentum"
    unit_ = _MOMENTUM_UNIT[group]
    if balance is None:  # raw changes, clearly not a balance
        for i, c in enumerate(columns):
            J = table[c].to_numpy(float)
            left.plot(t, J - J[0], color=color(i), label=f"{c[0]}_{c[1]} − {c[0]}_{c[1]}(0)")
        left.set_title(f"{what}: change (not a balance)")
        left.set_ylabel(f"{group} − {group}₀ [{unit_}]")
        left.legend(loc="best")
        right.axis("off")
        right.text(0.02, 0.5, f"{what}:\n{reason}", transform=right.transAxes, va="center", wrap=True)
        return
    described = balance.attrs["momenta"]
    for i, c in enumerate(columns):
        shade = color(i)
        left.plot(t, balance[c].to_numpy(float), color=shade, label=_momentum_label(c, described[c]))
        left.plot(t, balance[c].iloc[0] + balance[f"{c}_impulse"].to_numpy(float), ls="none", marker="o",
                  mfc="none", color=shade)
        right.plot(t, balance[f"{c}_balance"].to_numpy(float), color=shade, marker=".",
                   label=f"{c[0]}_{c[1]} − {c[0]}_{c[1]}(0) − impulse")
    left.plot([], [], ls="none", marker="o", mfc="none", color="0.3", label="initial value + impulse of the loads")
    drawn = np.concatenate([balance[c].to_numpy(float) for c in columns]
                           + [balance[c].iloc[0] + balance[f"{c}_impulse"].to_numpy(float) for c in columns])
    flat_if_constant(left, drawn)  # a conserved momentum: flat on plain ticks, its balance on the right
    left.set_title(f"{what} against the impulses that change it")
    left.set_ylabel(f"{group} [{unit_}]")
    _legend_below(left, columns=1)
    consistency = "" if rec is None else (
        " — flat: momentum-consistent scheme" if rec.momentum_consistent
        else f" — {rec.name.upper()} is not momentum-consistent")
    worst = max(np.abs(balance[f"{c}_balance"].to_numpy(float)).max() for c in columns)
    right.set_title(f"{'angular' if group == 'L' else 'linear'}-momentum balance{consistency}"
                    f"\nmax |{group} − {group}₀ − impulse| = {worst:.2e} {unit_}")
    right.set_ylabel(f"{group} − {group}₀ − impulse [{unit_}]")
    right.legend(loc="best")


@styled
def plot_conservation(table: pd.DataFrame, fig: Figure | None = None, *, scheme: str | None = None,
                      trajectory: Trajectory | None = None, energy_unit: str = "J", time_unit: str = "s",
                      constraint_unit: str | None = None) -> Figure:
    """Draw the conservation table of ``dyn.diagnostics()`` (a DataFrame).

    Rows of panels:

    * the energy terms T, V, W (= −work done by the controls), D (dissipated
      by joint friction) and their sum E; next to it E − E₀, titled with what
      the scheme guarantees (:func:`energy_statement`) and its largest value;
    * with ``trajectory`` (of a MultibodySystem): per momentum group (angular
      L [N m s], linear p [N s]) the momenta whose motion the ground joints
      allow, against their initial value plus the impulse of the applied
      loads (○), and the balance J − J₀ − impulse (:func:`momentum_balance`);
      without it, or where no balance can be formed, the momentum changes in a
      panel that says so;
    * the constraint residual max \\|Φ(q_k)\\| (log scale) when positive somewhere.

    ``scheme`` (a name) defaults to ``trajectory.scheme``.  ``energy_unit``,
    ``time_unit`` and ``constraint_unit`` label the axes (a multibody
    system's constraint rows are lengths or numbers: ``"m or 1, by row"``).
    A ``trajectory`` whose metadata say ``solved: false`` (a block's guess, or
    values changed after the solve) gets the figure title "not a solution": its
    balances are those of a guess, not of the scheme's solution.
    Returns the figure.
    """
    import pandas as pd

    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas DataFrame (dyn.diagnostics()), got {type(table).__name__}")
    missing = [c for c in ("T", "V", "E") if c not in table.columns]
    if missing:
        raise ConfigurationError(f"conservation table lacks the columns {missing}; it has {list(table.columns)}")
    if len(table) == 0:
        raise ConfigurationError("conservation table is empty")
    if scheme is None and trajectory is not None:
        scheme = getattr(trajectory, "metadata", {}).get("scheme")
    rec = _scheme_record(scheme)
    t = table["t"].to_numpy(float) if "t" in table.columns else table.index.to_numpy(float)
    rows = _momentum_rows(table, trajectory, rec)
    residual = table["constraint_residual"].to_numpy(float) if "constraint_residual" in table.columns else None
    show_residual = residual is not None and np.any(residual > 0)
    n_rows = 1 + len(rows) + show_residual
    fig = new_figure(figsize=(13, 4.6 * n_rows)) if fig is None else fig
    grid = fig.add_gridspec(n_rows, 2)  # type: ignore[arg-type]  # n_rows: an int (+ a numpy bool)
    energy_ax = fig.add_subplot(grid[0, 0])
    drift_ax = fig.add_subplot(grid[0, 1], sharex=energy_ax)
    _energy_panels(energy_ax, drift_ax, table, t, scheme, energy_unit, time_unit)
    axes = [energy_ax, drift_ax]
    for r, row in enumerate(rows, start=1):
        left, right = fig.add_subplot(grid[r, 0], sharex=energy_ax), fig.add_subplot(grid[r, 1], sharex=energy_ax)
        _draw_momentum_row(left, right, *row, table, t, rec, time_unit)  # type: ignore[call-arg]  # row: 4 entries
        axes += [left, right]
    if show_residual:
        ax = fig.add_subplot(grid[n_rows - 1, :], sharex=energy_ax)  # type: ignore[index]  # n_rows: an int
        # residual is an array here (show_residual)
        ax.semilogy(t, np.where(residual > 0, residual, np.nan), marker=".", color=color(3))  # type: ignore[operator, arg-type]
        ax.set_title("constraint residual at the nodes (log scale; zeros not drawn)")
        ax.set_ylabel(f"largest |residual| {bracket(constraint_unit or _constraint_unit(trajectory))}")
        axes.append(ax)
    for ax in axes:
        if ax.axison:
            ax.set_xlabel(f"t {bracket(time_unit)}")
    if getattr(trajectory, "metadata", {}).get("solved") is False:  # a guess: say so on the figure
        fig.suptitle("not a solution (a guess or changed values: metadata solved = false)")
    fig.tight_layout()
    return fig


def _constraint_unit(trajectory):
    """Joint rows are lengths (m), director and alignment rows numbers (1); other systems' rows are their own."""
    from ..mechanics import MultibodySystem

    system = getattr(trajectory, "system", None)
    if system is None or isinstance(system, MultibodySystem):
        return "m or 1, by row"
    return ""
