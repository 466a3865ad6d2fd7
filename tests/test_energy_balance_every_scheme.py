"""The energy balance T + V + W is a true diagnostic for every scheme (issue 46, item 6).

W is the work done on the actuators.  Schemes with joint-rate unknowns (bem, rem, gc)
state it as -h u·ν; the others (dmocc, dmocc_lm, rattle) have no joint rates, and the
rates recovered from the null space, P⁺Δq/h, are not the rates of the actuated
coordinates once Δq leaves range P (the crane's winch), so their W is the work of their
lumped nodal forces along the step, -u·½[B(q_k) + B(q_{k+1})]Δq
(:func:`~pyomo_mbdyn.discretization.common.interval_control_work`);
the stage-control schemes (lobatto, lobatto_gc, cg2) give their own quadrature.

Checked on every registered scheme that takes controls, on the crane (a coordinate
system: trolley, winch, rope) and the three-link arm (rigid bodies in directors), driven
by the same smooth controls: the error of T + V + W stays at round-off where the registry
says the scheme conserves energy, and falls at the scheme's order (ratio 2^order between
N and 2N, within 30 %) where it does not.  The schemes are taken from the registry, so a
new scheme is checked too.
"""

import numpy as np
import pytest

import pyomo_mbdyn  # noqa: F401
from pyomo_mbdyn.discretization.registry import record, scheme_names
from pyomo_mbdyn.models import crane
from pyomo_mbdyn.models import three_link_arm as arm
from pyomo_mbdyn.simulate import simulate

SYSTEMS = {  # (system, horizon, control amplitudes: applied forces / torques)
    "crane": (crane.build_system, 2.0, (20.0, 10.0)),
    "arm": (arm.build_system, 1.0, (300.0, -200.0, 50.0)),
}


def _cases():
    for name, (build, _, _) in SYSTEMS.items():
        coordinate_system = name == "crane"
        for scheme in scheme_names():
            rec = record(scheme)
            if not rec.controls or rec.system != "multibody":
                continue
            if coordinate_system and not rec.coordinate_systems:
                continue
            yield name, scheme


def _energy_error(name, scheme, steps):
    """max_k |E_k - E_0| over the energy scale (max |W|, max T) of a driven motion from rest."""
    build, horizon, amplitudes = SYSTEMS[name]
    system = build()
    h = horizon / steps
    t_mid = (np.arange(steps) + 0.5) * h
    controls = np.sin(np.pi * t_mid / horizon)[:, None] * np.asarray(amplitudes)[None, :]
    trajectory = simulate(system, system.q0, np.zeros(system.n), h, steps, controls=controls, scheme=scheme)
    table = trajectory.diagnostics()
    E = table["E"].to_numpy()
    scale = max(np.abs(table["W"]).max(), table["T"].max())
    assert scale > 1e-3  # the motors move the system
    return np.abs(E - E[0]).max() / scale


@pytest.mark.parametrize("name, scheme", list(_cases()))
def test_energy_balance_error_is_round_off_or_falls_at_the_scheme_order(name, scheme):
    rec = record(scheme)
    coarse, fine = _energy_error(name, scheme, 10), _energy_error(name, scheme, 20)
    if rec.energy_consistent:
        assert max(coarse, fine) < 1e-12
    else:
        assert coarse > 1e-12  # not conserved: the error is there to be measured ...
        assert 0.7 * 2 ** rec.order < coarse / fine < 1.3 * 2 ** rec.order  # ... and falls at the order


def test_rattle_crane_optimum_has_a_second_order_energy_balance():
    """The optimal-control block's trajectory carries the same work (the run's
    ``energy_balance_error``): RATTLE's crane optimum, N = 20 and 40 (was 0.396 at every N)."""
    import pyomo.environ as pyo

    errors = []
    for steps in (20, 40):
        m = crane.build("rattle", steps=steps)
        result = pyo.SolverFactory("casadi_ipopt").solve(m)
        assert result.solver.termination_condition == pyo.TerminationCondition.optimal
        table = m.dyn.trajectory().diagnostics()
        E = table["E"].to_numpy()
        errors.append(np.abs(E - E[0]).max() / np.abs(table["W"]).max())
    assert errors[0] < 1e-2
    assert 2.8 < errors[0] / errors[1] < 5.2


def test_control_work_is_finite_where_the_chord_midpoint_degenerates():
    """The sphere's DMOCC guess turns a body half a turn between nodes: the directors' chord
    midpoint is singular there (B(q_{k+½}) ~ 1e15, the work was NaN), the nodes are admissible,
    so the work of the nodal forces is finite (zero: the guess applies no force)."""
    import warnings

    from pyomo_mbdyn.models import sphere

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # three turns in six steps (no increment bound, which would let the guess make none)
        work = sphere.build(steps=6, turns=3, increment_bound=0).dyn.trajectory().extras["work"]
    assert work.shape == (6,) and np.all(work == 0.0)
