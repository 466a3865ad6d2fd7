"""A start from the optimum of the same problem in another scheme.

The fourth-order Lobatto pair carries, per interval, a middle-stage configuration, three
sets of stage multipliers (``lobatto``) and three stage controls.  From an interpolated
guess its NLP is far from its solution (the crane, N = 40: the iteration limit); from a
second-order optimum that lacks these unknowns (REM has no multipliers) IPOPT needs
1 131 iterations for ``lobatto`` (5 for ``lobatto_gc``, which has no multipliers): its
middle stages and stage multipliers do not satisfy the scheme's steps (REM has no
multipliers; they start at zero while the rope carries the load).  :func:`start_from_scheme` solves the problem in the reference
scheme, then *simulates* the target scheme with the reference's controls
(:func:`~pyomo_mbdyn.simulate.simulate`): every stage configuration and multiplier of the
start then satisfies the target's own step equations, and only the boundary conditions
and the optimality conditions are left to the solver (the crane: 5 iterations for
``lobatto``, 6 for ``lobatto_gc``, N = 40).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np
import pyomo.environ as pyo

from ..errors import MbdynError

__all__ = ["start_from_scheme"]


def start_from_scheme(model: pyo.ConcreteModel, reference: Callable[[], pyo.ConcreteModel],
                      solver: str = "casadi_ipopt", options: Mapping[str, Any] | None = None) -> str:
    """Start ``model.dyn`` from the optimum of ``reference()``, a model of the same problem in
    another scheme on the same grid; a one-line description of the start, also stored as
    ``model.start_description`` (``pyomo-mbdyn run`` prints it as ``start``).

    ``reference()`` is solved with ``solver`` (``options`` its options); its controls are
    simulated by ``model``'s scheme from the reference's initial state, and ``model.dyn`` is
    initialised from that simulation (stage configurations and multipliers consistent with
    the scheme's steps), or from the reference's trajectory itself when the simulation fails.
    When the reference does not solve, ``model`` keeps its own guess and the description says
    so: the start is a convenience, never a reason to fail.

    Examples
    --------
    A pendulum's quarter turn, rest to rest, by the Lobatto IIIA–IIIB pair, started from the
    REM optimum:

    >>> import numpy as np
    >>> import pyomo.environ as pyo
    >>> from pyomo_mbdyn.mechanics import examples
    >>> from pyomo_mbdyn.ocp import OptimalControlProblem
    >>> from pyomo_mbdyn.schemes import scheme_block
    >>> pendulum = examples.pendulum()
    >>> def swing_up(scheme):
    ...     m = pyo.ConcreteModel()
    ...     m.dyn = scheme_block(scheme, system=pendulum, steps=8, horizon=1.0)
    ...     problem = OptimalControlProblem(m.dyn)
    ...     effort = problem.minimise_control_effort()
    ...     problem.fix_final_configuration([np.pi / 2])
    ...     problem.require_final_rest()
    ...     return m
    >>> m = swing_up("lobatto")
    >>> start_from_scheme(m, lambda: swing_up("rem"))  # doctest: +ELLIPSIS
    'the rem optimum (N = 8, ... iterations), its controls simulated by lobatto'
    >>> str(pyo.SolverFactory("casadi_ipopt").solve(m).solver.termination_condition)
    'optimal'
    """
    from ..simulate import simulate

    ref = reference()
    opt = pyo.SolverFactory(solver)
    for key, value in (options or {}).items():
        opt.options[key] = value
    result = opt.solve(ref, load_solutions=False)
    status = result.solver.termination_condition
    scheme, steps = model.dyn.scheme, model.dyn.config.steps
    if status not in (pyo.TerminationCondition.optimal, pyo.TerminationCondition.locallyOptimal):
        description = f"the model's guess (the {ref.dyn.scheme} reference ended {status})"
    else:
        ref.solutions.load_from(result)
        trajectory = ref.dyn.trajectory()
        iterations = getattr(result.solver, "iterations", None)
        solved = f"the {ref.dyn.scheme} optimum (N = {steps}, {iterations} iterations)"
        try:
            start = simulate(model.dyn.system, trajectory.q[0], trajectory.v[0], model.dyn.step_length, steps,
                             controls=trajectory.u, scheme=scheme)
            if not (np.all(np.isfinite(start.q)) and np.all(np.isfinite(start.v))):
                raise MbdynError("the simulation left the finite numbers")
            description = f"{solved}, its controls simulated by {scheme}"
        except (MbdynError, ArithmeticError, np.linalg.LinAlgError):
            start, description = trajectory, solved
        model.dyn.initialize_from(start)
    model.start_description = description
    return description
