"""In-process Pyomo solver plugins ``casadi_ipopt``, ``casadi_bonmin`` and ``casadi_fatrop``.

``casadi_fatrop`` (:class:`CasadiFatropDirect`) solves the same models in stage form
where the structure fits; what differs is described on its class.

They are direct interfaces in Pyomo's sense (``DirectSolver``, like
``gurobi_direct``): the model is translated into a CasADi NLP in the same
process (:mod:`pyomo_mbdyn.solvers.pyomo_to_casadi`) and solved with the IPOPT
or Bonmin library inside the ``casadi`` wheel — no .nl file, no subprocess, no
files at all.  The AMPL-protocol plugins ``casadi_ipopt_nl`` and
``casadi_bonmin_nl`` (:mod:`pyomo_mbdyn.solvers.casadi_plugin`) solve the same
problems in a child process, for users who want isolation; both paths keep the
contract of Pyomo's ``ipopt`` plugin:

* ``solver.options[name] = value`` for any IPOPT option (Bonmin: its
  ``bonmin.*`` options and IPOPT's); values are typed as the AMPL driver types
  ``name=value`` text (int, else float, else string) and an ``OF_`` prefix is
  dropped; an option IPOPT rejects raises ``ConfigurationError`` (a
  ``ValueError``);
* defaults that differ from IPOPT's own: ``IPOPT_DEFAULTS``
  (:mod:`pyomo_mbdyn.solvers.ampl_driver`; MUMPS ordered by SCOTCH), which
  any option the user sets overrides;
* ``solve(model, tee=True)`` prints the solver log (otherwise it is kept in
  memory and written to ``logfile=`` if given); ``timelimit=s`` sets IPOPT's
  ``max_wall_time`` (Bonmin's ``bonmin.time_limit``) unless the option is set;
* Suffixes ``dual``, ``ipopt_zL_out``, ``ipopt_zU_out`` are imported and
  ``dual``, ``ipopt_zL_in``, ``ipopt_zU_in`` (export Suffixes) used as the
  starting multipliers, which IPOPT uses with ``warm_start_init_point='yes'``.
* option files only when named (:mod:`pyomo_mbdyn.solvers.ampl_driver`, "Option
  files only when named"): IPOPT runs with ``option_file_name=""`` and so never
  reads ``./ipopt.opt``; ``options={"option_file_name": path}`` names a file
  (which must exist).  For Bonmin ``option_file_name`` names a file in the
  ``bonmin.opt`` format, read into the options; CasADi's Bonmin reads
  ``./bonmin.opt`` itself at every solve, which a solve in process cannot prevent
  without changing the directory of every thread, so an unnamed ``bonmin.opt``
  in the working directory is refused with a ``ConfigurationError`` naming it
  (``casadi_bonmin_nl`` solves in a directory of its own and ignores it).  The
  log goes to ``tee``, ``logfile`` or an ``output_file`` the user names, nowhere else.

Sign convention (Ipopt's AMPL interface, ``AmplTNLP::finalize_solution``,
identical to :mod:`pyomo_mbdyn.solvers.ampl_driver`): IPOPT minimises
``σ f`` (``σ = +1`` minimise, ``-1`` maximise) with Lagrangian
``σ f + λᵀ g - z_Lᵀ (x - x_L) + z_Uᵀ (x - x_U)``, ``z_L, z_U ≥ 0``; CasADi
returns ``lam_g = λ`` and ``lam_x = z_U - z_L``.  Imported:
``dual = -σ λ``, ``ipopt_zL_out = σ z_L``, ``ipopt_zU_out = -σ z_U``; a warm
start inverts the map.  For a minimisation the dual of an active ``≥``
constraint is positive, of an active ``≤`` negative, ``ipopt_zL_out ≥ 0``,
``ipopt_zU_out ≤ 0``.

Termination conditions: ``optimal``; ``locallyOptimal`` (solved to acceptable
level, or a feasible point of a square problem); ``infeasible``; ``unbounded``;
``maxIterations``; ``maxTimeLimit``; ``error`` (evaluation errors, failed
restoration, too few degrees of freedom, ...), with the solver's message in
``results.solver.message``, the iteration count in
``results.solver.iterations`` and the solver's own wall time (the ``nlpsol``
call: IPOPT with CasADi's function evaluations) in
``results.solver.wallclock_time``.  After ``infeasible``, ``unbounded`` or
``error`` nothing is loaded into the model.

Structure: the equations a scheme block states at every interval (its
``uniform_residuals()``) are not walked one by one; the block's step
residual, one CasADi Function of one interval's unknowns built from the
discretisation layer's formula, is mapped over the intervals, so CasADi
generates its derivatives once per step instead of differentiating a flat
graph of N copies.  Only rows that are still active and still have the body
the block built are mapped; everything else (objective, user constraints,
changed or deactivated rows) is walked generically, and fixed variables enter
the mapped Function as constants, so the Pyomo model stays the single source
of truth.  ``SolverFactory('casadi_ipopt', structured=False)`` (or
``solver.structured = False``) walks every row into one flat SX graph; both
give the same NLP.  The step Functions are cached per system, grid and
options, so repeated solves and sweeps reuse them.

After a solve, ``solver.timings`` holds the seconds of each phase:
``translate`` (Pyomo → CasADi SX), ``nlpsol`` (CasADi's set-up of the solver:
derivatives, sparsity), ``solve`` (the ``nlpsol`` call) and ``load`` (filling
the results and loading them into the model).
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
import os
import re
import time

import numpy as np
from pyomo.common.collections import Bunch
from pyomo.common.tempfiles import TempfileManager
from pyomo.core.base import SymbolMap, TextLabeler
from pyomo.core.base.suffix import Suffix
from pyomo.opt import SolverResults, SolverStatus, TerminationCondition
from pyomo.opt.base.solvers import OptSolver
from pyomo.opt.results.solution import SolutionStatus
from pyomo.solvers.plugins.solvers.direct_or_persistent_solver import DirectOrPersistentSolver
from pyomo.solvers.plugins.solvers.direct_solver import DirectSolver

from ..errors import ConfigurationError, UnsupportedModelError
from .ampl_driver import OPTION_FILE, _convert, _is_option_error
from .compiled import resolve_mode
from .evaluation import INVALID_NUMBER, invalid_rows
from .selection import library_version
from .interrupts import interruptible
from .threads import blas_threads
from .backends import BONMIN, FATROP, IPOPT, Backend
from .watch import watch_callback

logger = logging.getLogger("pyomo_mbdyn.solvers")

__all__ = ["CasadiIpoptDirect", "CasadiBonminDirect", "CasadiFatropDirect"]

_FAILED = (
    TerminationCondition.infeasible,
    TerminationCondition.unbounded,
    TerminationCondition.error,
)


class _CasadiDirect(DirectSolver):
    """Shared machinery; subclasses set ``backend`` (a :class:`~pyomo_mbdyn.solvers.backends.Backend`)."""

    backend: Backend | None = None

    def __init__(self, structured=True, compiled=None, **kwds):
        kwds.setdefault("type", f"casadi_{self.backend.name}")
        super().__init__(**kwds)
        #: map the equations scheme blocks state at every interval (see the module docstring)
        self.structured = bool(structured)
        #: evaluate the mapped steps as native code: "auto", "always", "never", or None for
        #: $PYOMO_MBDYN_COMPILE else "auto" (:mod:`pyomo_mbdyn.solvers.compiled`)
        self.compiled = compiled
        self.name = self.type = kwds["type"]
        version = library_version(self.backend.name)
        self._python_api_exists = version is not None
        self._version = tuple(int(p) for p in version.split(".") if p.isdigit()) if version else None
        self._capabilities.linear = True
        self._capabilities.quadratic_objective = True
        self._capabilities.quadratic_constraint = True
        self._capabilities.integer = self.backend.integer_capable
        self._capabilities.sos1 = False
        self._capabilities.sos2 = False
        self._nlp = None
        self._solution = None
        self._watch = None
        #: the divergence watch's report when it stopped the last solve (:mod:`pyomo_mbdyn.solvers.watch`)
        self.divergence = None
        self.timings = {}
        self.native_groups = (0, 0)

    # -- availability ---------------------------------------------------------
    def available(self, exception_flag=True):
        ok = self._python_api_exists
        if exception_flag and not ok:
            from ..errors import SolverUnavailableError

            raise SolverUnavailableError(f"{self.name}: casadi has no {self.backend.name} plugin here.")
        return ok

    def _get_version(self):
        return self._version

    def warm_start_capable(self):
        # as Pyomo's ipopt plugin: the initial point is always the variables'
        # values; multipliers come through the Suffixes described above
        return False

    # -- presolve: translate the model ---------------------------------------------
    def _presolve(self, *args, **kwds):
        if len(args) != 1:
            raise ValueError(f"{self.name} solves one model at a time, got {len(args)}")
        t0 = time.perf_counter()
        self.timings = {}
        self._set_instance(args[0], kwds)
        self.timings["translate"] = time.perf_counter() - t0
        #: the mapped step groups whose derivatives this solve evaluates as native code,
        #: and all of them (:mod:`pyomo_mbdyn.solvers.compiled`)
        self.native_groups = self._nlp.extras.get("native", (0, 0))
        # DirectOrPersistentSolver._presolve without its temporary log file
        warmstart = kwds.pop("warmstart", False)
        self._keepfiles = kwds.pop("keepfiles", False)
        self._save_results = kwds.pop("save_results", True)
        TempfileManager.push()
        self.results = None
        from pyomo.opt.base.formats import ResultsFormat

        self._results_format = ResultsFormat.soln
        OptSolver._presolve(self, **kwds)
        if self._save_results:
            self._smap_id = id(self._symbol_map)
            self._pyomo_model.solutions.add_symbol_map(self._symbol_map)
        if warmstart:
            raise ValueError(
                f"{self.name}: warmstart=True is not used; the variables' values are always the "
                "initial point (multipliers: the dual/ipopt_zL_in/ipopt_zU_in Suffixes with "
                "warm_start_init_point='yes')"
            )

    def _set_instance(self, model, kwds={}):
        from .pyomo_to_casadi import translate

        DirectOrPersistentSolver._set_instance(self, model, kwds)
        structured = self.structured and not self.backend.stage_wise  # see CasadiFatropDirect
        nlp = translate(model, self.name, self._skip_trivial_constraints, structured,
                        resolve_mode(self.compiled), stage_wise=self.backend.stage_wise)
        if not self.backend.integer_capable:
            discrete = [v.name for v, d in zip(nlp.variables, nlp.discrete) if d]
            if discrete:
                names = ", ".join(discrete[:5]) + (" ..." if len(discrete) > 5 else "")
                raise UnsupportedModelError(
                    f"{self.name} solves continuous problems only, but the model has "
                    f"{len(discrete)} integer or binary variables ({names}). "
                    "Use SolverFactory('casadi_bonmin'), or relax them with "
                    "TransformationFactory('core.relax_integer_vars')."
                )
        self._nlp = nlp
        smap = self._symbol_map = SymbolMap()
        if self._symbolic_solver_labels:
            labeler = TextLabeler()
            self._var_labels = [smap.getSymbol(v, labeler) for v in nlp.variables]
            self._con_labels = [smap.getSymbol(c, labeler) for c in nlp.constraints]
        else:
            self._var_labels = [f"x{i}" for i in range(nlp.n_var)]
            self._con_labels = [f"c{j}" for j in range(nlp.n_con)]
            smap.addSymbols(zip(nlp.variables, self._var_labels))
            smap.addSymbols(zip(nlp.constraints, self._con_labels))
        self._obj_label = None
        if nlp.objective is not None:
            self._obj_label = "o0"
            if not self._symbolic_solver_labels:
                smap.addSymbol(nlp.objective, "o0")
            else:
                self._obj_label = smap.getSymbol(nlp.objective, labeler)

    # -- solve -----------------------------------------------------------------------
    def _solver_options(self):
        options = {}
        for name, value in self.options.items():
            if name.startswith("OF_"):
                name = name[3:]
            options[name] = _convert(str(value)) if not isinstance(value, bool) else value
        limit = self.backend.time_limit_option
        if self._timelimit is not None and limit is None:
            raise ConfigurationError(
                f"{self.name}: timelimit={self._timelimit!r}, but {self.backend.title} has no time limit; "
                "bound the iterations instead (options={'max_iter': n})")
        if self._timelimit is not None and limit not in options:
            options[limit] = float(self._timelimit)
        try:  # option files only when named (the module docstring); the watch's options are the library's
            options, self._watch_settings = self.backend.solver_options(options)
        except (OSError, ValueError) as err:
            raise ConfigurationError(f"{self.name}: {err}") from None
        if self.backend.fixed_option_file:
            _refuse_unnamed_option_file(self.name, self.options, self.backend.fixed_option_file)
        return options

    def _initial_multipliers(self, nlp):
        """lam_x0, lam_g0 from the export Suffixes (inverse of the sign map)."""
        sigma = nlp.sigma
        found = {}
        for block in self._pyomo_model.block_data_objects(active=True, descend_into=True):
            for suffix in block.component_objects(Suffix, active=True, descend_into=False):
                if suffix.local_name in ("dual", "ipopt_zL_in", "ipopt_zU_in") and suffix.export_enabled():
                    found.setdefault(suffix.local_name, suffix)
        lam_g0 = np.zeros(nlp.n_con)
        lam_x0 = np.zeros(nlp.n_var)
        if "dual" in found:
            dual = found["dual"]
            for j, con in enumerate(nlp.constraints):
                v = dual.get(con)
                if v is not None:
                    lam_g0[j] = -sigma * v
        for name, sign in (("ipopt_zL_in", -sigma), ("ipopt_zU_in", -sigma)):
            # lam_x = z_U - z_L with z_L = σ zL_in, z_U = -σ zU_in
            if name in found:
                suffix = found[name]
                for i, var in enumerate(nlp.variables):
                    v = suffix.get(var)
                    if v is not None:
                        lam_x0[i] += sign * v
        return lam_x0, lam_g0

    def _apply_solver(self):
        import casadi as ca

        nlp = self._nlp
        options = self._solver_options()
        stages = nlp.extras.get("stages")
        equality = (np.asarray(nlp.lbg) == np.asarray(nlp.ubg)) if stages is not None else None
        opts = {"print_time": False, **self.backend.nlpsol_options(options, nlp.discrete, stages, equality)}
        opts.update(nlp.extras.get("functions", {}))
        self._watch = None
        if self._watch_settings is not None:  # solvers.watch: stop a solve that diverges
            callback, self._watch = watch_callback(self._watch_settings, nlp.lbg, nlp.ubg, nlp.sigma)
            opts["iteration_callback"] = callback
        lam_x0, lam_g0 = self._initial_multipliers(nlp)
        if stages is not None:
            lam_x0, lam_g0 = stages.lifted_multipliers(lam_x0, lam_g0)
        log = io.StringIO()
        quiet = (
            contextlib.ExitStack()
            if self._tee
            else _redirect(log)
        )
        self._solution = None
        with quiet:
            t0 = time.perf_counter()
            try:
                solver = ca.nlpsol(self.name, self.backend.name, {"x": nlp.x, "f": nlp.f, "g": nlp.g}, opts)
            except RuntimeError as err:
                raise ConfigurationError(
                    f"{self.name}: the solver rejected its options {dict(self.options)}: {_short(err)}"
                ) from None
            t1 = time.perf_counter()
            self.timings["nlpsol"] = t1 - t0
            try:
                # the same iterates on every machine (solvers.threads); Ctrl-C / SIGTERM
                # inside IPOPT raised as an interruption, not read as a failed solve
                with blas_threads(), interruptible():
                    sol = solver(
                        x0=nlp.x0, lbx=nlp.lbx, ubx=nlp.ubx, lbg=nlp.lbg, ubg=nlp.ubg,
                        lam_x0=lam_x0, lam_g0=lam_g0,
                    )
                error = None
            except RuntimeError as err:
                sol, error = None, _short(err)
            if sol is not None and stages is not None:  # the model's unknowns and rows from the lifted NLP's
                x, lam_x, lam_g = stages.solution(np.asarray(sol["x"]).ravel(), np.asarray(sol["lam_x"]).ravel(),
                                                  np.asarray(sol["lam_g"]).ravel())
                sol = {"x": x, "lam_x": lam_x, "lam_g": lam_g, "f": sol["f"]}
            wall = time.perf_counter() - t1
            self.timings["solve"] = wall
        self._log = log.getvalue()
        if self._log_file:
            with open(self._log_file, "w") as f:
                f.write(self._log)
        stats = solver.stats()
        if error is not None and _is_option_error(error):
            raise ConfigurationError(
                f"{self.name}: the solver rejected its options {dict(self.options)}: {error}"
            )
        self._solution = (sol, stats, error, wall)
        return Bunch(rc=None, log=None)

    # -- results -------------------------------------------------------------------
    def _postsolve(self):
        import casadi as ca

        nlp = self._nlp
        sol, stats, error, wall = self._solution
        return_status = stats.get("return_status", "unknown")
        code, text = self.backend.result(return_status)
        message = self.backend.message(text, library_version(self.backend.name), ca.__version__)
        if error is not None:
            code, message = 502, f"{self.name}: {error}"
        watch = self._watch
        self.divergence = watch.report if watch is not None and return_status == "User_Requested_Stop" else None
        if self.divergence is not None:
            message = f"{watch.message()} ({message})"
        if INVALID_NUMBER in message:
            rows = invalid_rows(self._pyomo_model)
            if rows:
                message += " At the starting point: " + "; ".join(rows)
        results = SolverResults()
        results.solver.name = self.name
        results.solver.return_code = 0
        results.solver.id = code
        results.solver.message = message
        results.solver.iterations = int(stats.get("iter_count", 0) or 0)
        results.solver.wallclock_time = wall
        status, tc, soln_status = _classify(code, return_status, self, wall)
        if self.divergence is not None:  # stopped on purpose: nothing to load, the report attached
            status = SolverStatus.aborted
            results.solver.divergence = dict(self.divergence)
        results.solver.status = status
        results.solver.termination_condition = tc
        results.problem.name = self._pyomo_model.name
        results.problem.number_of_variables = nlp.n_var
        results.problem.number_of_constraints = nlp.n_con
        results.problem.number_of_objectives = 1 if nlp.objective is not None else 0
        results.problem.sense = "maximize" if nlp.sigma < 0 else "minimize"
        n_discrete = sum(nlp.discrete)
        results.problem.number_of_integer_variables = n_discrete
        results.problem.number_of_continuous_variables = nlp.n_var - n_discrete

        if tc in _FAILED:
            logger.warning(
                "%s: %s (%s). No point was loaded into the model. Check the "
                "initial point, bounds and scaling, or try another start "
                "(tee=True shows the solver log).",
                self.name, tc, message,
            )
            self._load_solutions = False
        if sol is not None and tc is not TerminationCondition.unbounded and tc is not TerminationCondition.error:
            x = np.asarray(sol["x"]).ravel()
            self._x = x
            if self._save_results:
                self._fill_solution(results, sol, x, soln_status, message)
        self.results = results
        TempfileManager.pop(remove=not self._keepfiles)
        return results

    def _fill_solution(self, results, sol, x, soln_status, message):
        nlp = self._nlp
        sigma = nlp.sigma
        wanted = lambda name: any(re.match(s, name) for s in self._suffixes)  # noqa: E731
        soln = results.solution.add()
        soln.status = soln_status
        soln.message = message
        variables = {label: {"Value": float(v)} for label, v in zip(self._var_labels, x)}
        lam_x = np.asarray(sol["lam_x"]).ravel()
        if wanted("ipopt_zL_out"):
            z_l = sigma * np.maximum(-lam_x, 0.0)
            for label, v in zip(self._var_labels, z_l):
                variables[label]["ipopt_zL_out"] = float(v)
        if wanted("ipopt_zU_out"):
            z_u = -sigma * np.maximum(lam_x, 0.0)
            for label, v in zip(self._var_labels, z_u):
                variables[label]["ipopt_zU_out"] = float(v)
        soln.variable.update(variables)
        if wanted("dual"):
            y = -sigma * np.asarray(sol["lam_g"]).ravel()
            soln.constraint.update({label: {"Dual": float(v)} for label, v in zip(self._con_labels, y)})
        if self._obj_label is not None:
            soln.objective[self._obj_label] = {"Value": sigma * float(sol["f"])}

    def solve(self, *args, **kwds):
        """Pyomo's ``solve``; also records ``self.timings`` (see the module docstring).
        Non-finite starting values and a ``timelimit`` that is not a positive number
        are refused by name before anything is translated."""
        from .evaluation import check_finite_start, with_model_defaults

        limit = kwds.get("timelimit")
        if limit is not None and not (isinstance(limit, (int, float)) and math.isfinite(limit) and limit > 0):
            raise ConfigurationError(f"{self.name}: timelimit must be a positive number of seconds, got {limit!r}")
        if args:
            check_finite_start(args[0], self.name)
            if self.backend.problem_defaults:  # the problem's own IPOPT defaults (OptimalControlProblem.solver_defaults)
                kwds = with_model_defaults(args[0], self.options, kwds)
        t0 = time.perf_counter()
        results = super().solve(*args, **kwds)
        total = time.perf_counter() - t0
        phases = sum(self.timings.get(k, 0.0) for k in ("translate", "nlpsol", "solve"))
        self.timings["load"] = total - phases
        self.timings["total"] = total
        return results

    def _load_vars(self, vars_to_load=None):
        """``load_vars()`` of Pyomo's direct interfaces: the last primal point."""
        x = getattr(self, "_x", None)
        if x is None:
            raise RuntimeError(f"{self.name}: no solution to load")
        index = {id(v): i for i, v in enumerate(self._nlp.variables)}
        targets = self._nlp.variables if vars_to_load is None else vars_to_load
        for v in targets:
            i = index.get(id(v))
            if i is not None:
                v.set_value(float(x[i]), skip_validation=True)


def _redirect(buf):
    """Send the solver's output (CasADi prints through Python's streams) to a buffer:
    this thread's output only, ``sys.stdout`` left as found even when several threads
    solve at once (:mod:`pyomo_mbdyn.solvers.output`)."""
    from .output import capture_output

    return capture_output(buf)


def _refuse_unnamed_option_file(name, options, path):
    """CasADi's Bonmin reads ``./bonmin.opt`` (``path``, the backend's
    ``fixed_option_file``) at every solve (the name is fixed in its interface, with no
    option to turn it off), and a solve in process cannot move to another directory
    without moving every thread of the program.  So such a file in the working directory
    is refused unless it is the file the user named with ``option_file_name`` (then the
    library reads what the options already hold)."""
    if not os.path.exists(path) or os.path.isdir(path):
        return
    named = options.get(OPTION_FILE, options.get("OF_" + OPTION_FILE))
    if isinstance(named, str) and named and os.path.exists(named) and os.path.samefile(named, path):
        return
    raise ConfigurationError(
        f"{name}: the working directory holds {os.path.abspath(path)}, which the solver library "
        f"would read as its options, and option files are used only when named. To use it, name it "
        f"(options={{'{OPTION_FILE}': '{path}'}}); otherwise move it away, or solve with "
        f"the AMPL-route plugin {name}_nl (which solves in a directory of its own and does not read it)."
    )


def _short(err):
    msg = [line for line in str(err).strip().splitlines() if line.strip()]
    return msg[-1] if msg else repr(err)


def _classify(code, return_status, solver, wall=None):
    """AMPL solve_result_num → (SolverStatus, TerminationCondition, SolutionStatus),
    as Pyomo's .sol reader and the AMPL plugin's refinement do."""
    TC = TerminationCondition
    if code == 0:
        return SolverStatus.ok, TC.optimal, SolutionStatus.optimal
    if code in (1, 2):
        status = SolverStatus.warning if code == 2 else SolverStatus.ok
        return status, TC.locallyOptimal, SolutionStatus.optimal
    if 200 <= code <= 299:
        return SolverStatus.warning, TC.infeasible, SolutionStatus.infeasible
    if 300 <= code <= 399:
        return SolverStatus.warning, TC.unbounded, SolutionStatus.unbounded
    if 400 <= code <= 499:
        time_limit = solver.backend.stopped_by_time(return_status, solver.options, solver._timelimit, wall)
        tc = TC.maxTimeLimit if time_limit else TC.maxIterations
        return SolverStatus.warning, tc, SolutionStatus.stoppedByLimit
    return SolverStatus.error, TC.error, SolutionStatus.error


class CasadiIpoptDirect(_CasadiDirect):
    """IPOPT (with MUMPS) from the casadi wheel, in process."""

    backend = IPOPT


class CasadiBonminDirect(_CasadiDirect):
    """Bonmin (branch-and-bound over IPOPT, CBC) from the casadi wheel, in process."""

    backend = BONMIN


class CasadiFatropDirect(_CasadiDirect):
    """fatrop from the casadi wheel, in process: an interior-point method like IPOPT whose
    linear algebra is a Riccati recursion over the stages of an optimal control problem.

    The model is translated stage-wise (:mod:`pyomo_mbdyn.solvers.stages`): the unknowns
    of each node that two intervals share become a state and a copy, the scheme's implicit
    step rows path equalities of their interval's stage, and gap rows ``x_{k+1} − z_k = 0``
    join the stages; CasADi's fatrop interface is given the layout (``structure_detection=
    "manual"``, ``N``, ``nx``, ``nu``, ``ng``, ``equality``).  The NLP is always one flat
    SX graph (``structured`` is ignored): CasADi's fatrop interface takes no derivative
    Functions (``nlpsol`` rejects ``grad_f``, ``jac_g``, ``hess_lag``), so the mapped
    steps' derivatives of ``casadi_ipopt`` cannot be passed, and CasADi's own AD of the
    mapped MX graph evaluated the Panda's GC Hessian 2.3× slower than the flat SX graph
    (benchmarks/pages/stage_structure.md).  A model that does not fit —
    an unknown off the scheme's grid (a free final time), a row over more than one
    interval, an objective coupling two stages, several grids — is refused with a
    :class:`~pyomo_mbdyn.errors.ConfigurationError` naming it, before anything is solved.

    Options: fatrop's own (``tol``, ``max_iter``, ``mu_init``, ``tol_acceptable``, …;
    defaults :data:`~pyomo_mbdyn.solvers.backends.FATROP_DEFAULTS`: ``tol=1e-8``,
    ``max_iter=3000``); an unknown option is a ``ConfigurationError``.  fatrop has **no
    time limit**: ``timelimit=`` is refused (bound ``max_iter``).  No divergence watch
    and no IPOPT defaults of the problem apply.  Results are loaded as IPOPT's: the
    primal values (each unknown from its own column, not its copy), the termination
    condition (fatrop's return flag mapped as IPOPT's statuses), the iteration count (as
    fatrop counts: ``max_iter + 1`` when it stops at its limit),
    and the ``dual`` Suffix (the rows' multipliers, the same as the unlifted NLP's, with
    IPOPT's signs); ``ipopt_zL_out`` / ``ipopt_zU_out`` are filled from CasADi's
    ``lam_x`` as for IPOPT.  Starting multipliers are passed to CasADi but fatrop
    starts its own.  The AMPL route (``casadi_fatrop_nl``) does not exist: a .nl file
    has no stages.
    """

    backend = FATROP
