"""One task of a study, as a worker runs it: build, start, solve, record.

A task (:class:`Task`) is a small picklable spec — a model name and keywords, or a
callable and keywords, the start and its seed, the solver — so that a study gives the
same numbers on every executor; :func:`run_task` builds the model inside the worker
(Pyomo models are never shipped between processes), moves its start, solves it and
returns a plain dict, whatever happens: a failed solve or an error is a record with
its ``status`` and ``message`` (:mod:`pyomo_mbdyn.studies.study` lists the fields)."""

from __future__ import annotations

from typing import Any

import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ConfigurationError, SolveFailedError


__all__ = ["Task", "run_task", "SUCCESS", "COLUMNS"]

#: termination conditions that count as solved (those of :func:`pyomo_mbdyn.ocp.solve`)
SUCCESS = ("optimal", "locallyOptimal")
#: columns every record has, after the inputs
COLUMNS = ("status", "objective", "iterations", "build_seconds", "solve_seconds", "seconds", "message")


@dataclass(frozen=True)
class Task:
    """What a worker needs to build, start and solve one model (picklable)."""

    index: int
    study: str
    build: object  # a registry model name or a callable build(**kwargs) -> model
    kwargs: dict
    inputs: dict
    solver: object = None
    solve_options: dict = field(default_factory=dict)
    start: int = 0
    seed: int = 0
    perturb: object = None
    radius: float = 0.0
    save_path: object = None


def run_task(task: Task) -> dict[str, Any]:
    """Build, start and solve one task; a record dict, whatever happens."""
    t0 = time.perf_counter()
    record = dict(task.inputs)
    record.update({key: None for key in COLUMNS})
    record["message"] = ""
    if task.save_path is not None:
        record["path"] = None
    if task.study == "multistart":
        record["final_state"] = None
        record["perturbation"] = None
    try:
        if isinstance(task.build, str) and task.study == "sweep":
            _solve_registry_model(task, record)
        else:
            _build_and_solve(task, record)
    except SolveFailedError as err:
        record.update(status=err.status or "error", objective=None, message=str(err))
    except Exception as err:  # a failed task is a row, never the end of the study
        record.update(status="error", objective=None, message=f"{type(err).__name__}: {err}")
    record["seconds"] = time.perf_counter() - t0
    return record


def _solve_registry_model(task, record):
    """A registry model through ``pyomo-mbdyn run``'s path (grid refinement included)."""
    from .run import solve_model

    kwargs = dict(task.kwargs)
    scheme, steps = kwargs.pop("scheme", None), kwargs.pop("steps", None)
    result, model = solve_model(task.build, scheme, steps, task.solver, kwargs)
    record.update(status=result["status"], objective=_float(result["objective"]),
                  iterations=_int(result["iterations"]), build_seconds=result["build_seconds"],
                  solve_seconds=result["solve_seconds"])
    for key, value in result.items():
        if key not in ("model", "stages"):
            record.setdefault(key, value)
    if task.save_path is not None:
        _save(model, task, record)


def _build_and_solve(task, record):
    """``build(**kwargs)``, the start moved for ``start > 0``, :func:`~pyomo_mbdyn.ocp.solve`."""
    from ..ocp.solve import solve

    t0 = time.perf_counter()
    model = _build(task)
    if task.start:
        record["perturbation"] = _perturb(task, model)
    record["build_seconds"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    try:
        results = solve(model, task.solver, task.solve_options)
    finally:
        record["solve_seconds"] = time.perf_counter() - t0
    record.update(status=str(results.solver.termination_condition), objective=_objective(model),
                  iterations=_int(getattr(results.solver, "iterations", None)))
    if task.study == "multistart":
        record["final_state"] = _final_state(model)
    if task.save_path is not None:
        _save(model, task, record)


def _perturb(task, model):
    """Move start ``task.start`` of ``model`` (its generator ``default_rng([seed, start])``);
    the name of the perturbation applied.  ``"auto"`` moves the chart where the model's
    block has one that reaches every node of its guess and every free variable otherwise
    (a system without a chart, a rotation beyond the chart's reach: the sphere's three
    turns): benchmarks/pages/multistart.md measured the chart to find the most optima."""
    from ..ocp.guess import perturb_chart, perturb_start

    def rng():
        return np.random.default_rng([task.seed, task.start])

    if callable(task.perturb):
        task.perturb(model, rng())
        return getattr(task.perturb, "__name__", "callable")
    if task.perturb == "controls":
        _perturb_controls(model, task.radius, rng())
    elif task.perturb == "chart":
        perturb_chart(model, task.radius, rng())
    elif task.perturb == "auto":
        try:
            perturb_chart(model, task.radius, rng())
            return "chart"
        except ConfigurationError:
            perturb_start(model, task.radius, rng())
            return "guess"
    else:
        perturb_start(model, task.radius, rng())
    return task.perturb


def _build(task):
    if isinstance(task.build, str):
        from ..plugins import model_spec

        return model_spec(task.build).build(**task.kwargs)
    return task.build(**task.kwargs)


def _objective(model):
    import pyomo.environ as pyo

    from ..schemes.structure import expression_value

    value = None
    for obj in model.component_data_objects(pyo.Objective, active=True):
        value = expression_value(obj.expr)  # DAG-safe, as pyomo-mbdyn run evaluates it
    return _float(value)


def _final_state(model):
    """``q_N`` then ``v_N`` of the scheme block ``model.dyn`` (None without one)."""
    dyn = model.component("dyn")
    if dyn is None or not callable(getattr(dyn, "trajectory", None)):
        return None
    trajectory = dyn.trajectory()
    return [float(x) for x in np.concatenate([trajectory.q[-1], trajectory.v[-1]])]


def _perturb_controls(model, radius, rng):
    """Random controls: every free ``model.dyn.u[i, a]`` (and the controls of the scheme's
    other stages, ``control_stages``) drawn uniformly within ``u_guess ± radius · scale_a``,
    clipped to its bounds, where ``scale_a`` is the guess's largest |u[·, a]| (else the
    largest finite bound of u[·, a], else 1)."""
    dyn = model.component("dyn")
    controls = None if dyn is None else dyn.component("u")
    if controls is None:
        raise ConfigurationError("multistart: perturb='controls' needs a scheme block model.dyn with controls u")
    stages = [dyn.component(name) for name, _, _ in getattr(dyn, "control_stages", (("u", 0.5, 1.0),))]
    controls = {(stage.local_name, index): var for stage in stages for index, var in stage.items()}

    def actuator(key):
        index = key[1]
        return index[-1] if isinstance(index, tuple) else index

    peaks, bounds = {}, {}
    for index, var in controls.items():
        a = actuator(index)
        peaks[a] = max(peaks.get(a, 0.0), 0.0 if var.value is None else abs(var.value))
        finite = [abs(b) for b in (var.lb, var.ub) if b is not None and math.isfinite(b)]
        bounds[a] = max([bounds.get(a, 0.0), *finite])
    scale = {a: peaks[a] or bounds[a] or 1.0 for a in peaks}
    moved = 0
    for index, var in controls.items():
        if var.fixed:
            continue
        centre = 0.0 if var.value is None else var.value
        value = centre + rng.uniform(-radius, radius) * scale[actuator(index)]
        lower = -np.inf if var.lb is None else var.lb
        upper = np.inf if var.ub is None else var.ub
        var.set_value(float(np.clip(value, lower, upper)), skip_validation=True)
        moved += 1
    return moved


def _save(model, task, record):
    """Save the solved trajectory (:mod:`pyomo_mbdyn.results`); its path into the record."""
    from ..results import SolvedTrajectory

    try:
        metadata = {key: record[key] for key in ("status", "objective", "iterations")}
        metadata.update(study=task.study, task=task.index, **task.inputs)
        path = Path(task.save_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        record["path"] = str(SolvedTrajectory.from_block(model.dyn, **metadata).save(path))
    except Exception as err:  # the solve stands; say why nothing was saved
        record["message"] = f"trajectory not saved: {type(err).__name__}: {err}"


def _float(value):
    return None if value is None else float(value)


def _int(value):
    return None if value is None else int(value)
