"""AMPL-protocol Pyomo solver plugins ``casadi_ipopt_nl`` and ``casadi_bonmin_nl``.

Both are registered with Pyomo's ``SolverFactory`` on ``import pyomo_mbdyn``,
beside the in-process ``casadi_ipopt`` / ``casadi_bonmin``
(:mod:`pyomo_mbdyn.solvers.casadi_direct`), which are faster; these solve in a
child process, for users who want the solver isolated from their Python
process.  They are ordinary AMPL-protocol shell solvers, built on Pyomo's own
``ipopt`` plugin: Pyomo writes ``stub.nl``, the driver script
:mod:`pyomo_mbdyn.solvers.ampl_driver` (run with the current Python, by path,
so that it imports neither Pyomo nor this package) solves it with the IPOPT
or Bonmin library inside the ``casadi`` wheel and writes ``stub.sol``, and
Pyomo reads it back.  Hence everything that works with the ``ipopt``
executable works here:

* ``solver.options['tol'] = 1e-10``: any IPOPT or Bonmin option by name
  (``OF_name`` options go through an options file, as with ``ipopt``);
* option files only when named (:mod:`pyomo_mbdyn.solvers.ampl_driver`, "Option
  files only when named"): the driver solves in a new empty directory with
  IPOPT's ``option_file_name=""``, so neither ``./ipopt.opt`` nor ``./bonmin.opt``
  is read; ``options={"option_file_name": path}`` names one (for Bonmin a file
  in the ``bonmin.opt`` format), relative to the caller's directory, as is an
  ``output_file``;
* ``solve(model, tee=True)`` streams the solver log; ``timelimit=s`` sets
  IPOPT's ``max_wall_time`` (Bonmin's ``bonmin.time_limit``);
* Suffixes ``dual``, ``ipopt_zL_out``, ``ipopt_zU_out`` are imported and
  ``dual``, ``ipopt_zL_in``, ``ipopt_zU_in`` exported for a warm start
  (with ``warm_start_init_point='yes'``).  The signs are those of Ipopt's AMPL
  interface, documented in :mod:`pyomo_mbdyn.solvers.ampl_driver`: for a
  minimisation the dual of an active ``≥`` constraint is positive, that of an
  active ``≤`` constraint negative, ``ipopt_zL_out ≥ 0``, ``ipopt_zU_out ≤ 0``.

Termination conditions follow Pyomo's reading of the ipopt executable's .sol
codes, refined with the solver's own status: ``optimal``, ``locallyOptimal``
(IPOPT's "solved to acceptable level"), ``infeasible``, ``unbounded``,
``maxIterations``, ``maxTimeLimit`` and ``error`` (evaluation errors, failed
restoration, ...), each with the solver's message in
``results.solver.message`` and the iteration count in
``results.solver.iterations``.  A point is loaded into the model only when
the solver reports optimality or stopped at a limit; after ``infeasible`` or
``error`` the model keeps its values.

After a solve, ``solver.timings`` holds the seconds of each phase: ``write``
(Pyomo's .nl writer), ``subprocess`` (the driver process, of which the driver
reports ``driver_read`` (reading and importing the .nl file), ``nlpsol``
(CasADi's solver set-up) and ``solve`` (the IPOPT/Bonmin call)), ``load``
(reading the .sol file and loading the model) and ``total``.
"""

from __future__ import annotations

import json
import logging
import math
import os
import signal
import subprocess
import sys
import time

from pyomo.common.errors import DeveloperError
from pyomo.common.tempfiles import TempfileManager
from pyomo.core.base.var import Var
from pyomo.opt import SolverResults, SolverStatus, TerminationCondition
from pyomo.solvers.plugins.solvers.IPOPT import IPOPT

from ..errors import ConfigurationError, SolverError, UnsupportedModelError
from . import backends
from .evaluation import INVALID_NUMBER, check_finite_start, invalid_rows, with_model_defaults
from .pyomo_to_casadi import NONSMOOTH_ADVICE
from .selection import library_version
from .threads import solver_environment

logger = logging.getLogger("pyomo_mbdyn.solvers")

__all__ = ["CasadiIpoptNL", "CasadiBonminNL"]

#: the driver, run as a script: no package import, hence no Pyomo in the child;
#: ``python -I`` (isolated: no current directory, PYTHONPATH or user site on its
#: path) so that a checkout in the working directory cannot shadow casadi
_DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ampl_driver.py")

#: the driver's exit statuses: 0 a solve ran (its outcome, failures included, is
#: in stub.casadi.json), 2 a bad command line, 3 an internal error of the driver;
#: a negative status (a signal) or any other is a crash of the process
DRIVER_EXIT = {0: "handled", 2: "bad command line", 3: "internal error of the driver"}

#: seconds the driver process may run beyond ``timelimit`` (its start-up and the
#: reading of the .nl file are outside IPOPT's max_wall_time) before it is stopped
TIMEOUT_GRACE = 30.0


class _CasadiAmplSolver(IPOPT):
    """Shared machinery; subclasses set ``backend`` (a :class:`~pyomo_mbdyn.solvers.backends.Backend`)."""

    backend: backends.Backend | None = None

    def __init__(self, **kwds):
        super().__init__(**kwds)
        self.name = self.type = f"casadi_{self.backend.name}_nl"
        self.options.solver = self.name
        self._capabilities.integer = self.backend.integer_capable
        self.timings = {}
        #: the divergence watch's report when it stopped the last solve (:mod:`pyomo_mbdyn.solvers.watch`)
        self.divergence = None

    # -- executable and version ---------------------------------------------
    def _default_executable(self):
        return sys.executable

    def available(self, exception_flag=True):
        return library_version(self.backend.name) is not None

    def _get_version(self):
        version = library_version(self.backend.name)
        return tuple(int(p) for p in version.split(".")) if version else None

    # -- presolve: refuse what the backend cannot solve ----------------------
    def solve(self, *args, **kwds):
        """Pyomo's ``solve``; also records ``self.timings`` (see the module docstring).

        Whatever happens (a refused model or option, a time-out, a crash), the
        temporary files of this solve are removed and Pyomo's temporary-file
        context is closed (``keepfiles=True`` keeps them, as for ``ipopt``)."""
        limit = kwds.get("timelimit")
        if limit is not None and not (isinstance(limit, (int, float)) and math.isfinite(limit) and limit > 0):
            raise ConfigurationError(f"{self.name}: timelimit must be a positive number of seconds, got {limit!r}")
        if args:
            check_finite_start(args[0], self.name)
            if self.backend.problem_defaults:  # the problem's own IPOPT defaults (OptimalControlProblem.solver_defaults)
                kwds = with_model_defaults(args[0], self.options, kwds)
        self.timings = {}
        self.divergence = None
        self._timed_out = False
        depth = len(TempfileManager._context_stack)
        keep = bool(kwds.get("keepfiles", False))
        t0 = time.perf_counter()
        try:
            results = super().solve(*args, **kwds)
        except BaseException:
            self._remove_leftovers(depth, keep)
            raise
        total = time.perf_counter() - t0
        self.timings["load"] = total - self.timings.get("write", 0.0) - self.timings.get("subprocess", 0.0)
        self.timings["total"] = total
        return results

    def _remove_leftovers(self, depth, keep):
        """Close the temporary-file contexts this solve opened (removing their files
        unless ``keep``) and the files the driver derives from the stub."""
        for path in (getattr(self, "_soln_file", None), self._status_file_or_none()):
            if path and not keep and os.path.exists(path):
                os.remove(path)
        while len(TempfileManager._context_stack) > depth:
            TempfileManager.pop(remove=not keep)

    def _status_file_or_none(self):
        return self._status_file() if getattr(self, "_soln_file", None) else None

    def _apply_solver(self):
        t0 = time.perf_counter()
        try:
            return super()._apply_solver()
        finally:
            self.timings["subprocess"] = time.perf_counter() - t0

    def _execute_command(self, command):
        """Pyomo's, with the process given ``timelimit`` + :data:`TIMEOUT_GRACE` (IPOPT's
        own ``max_wall_time`` stops the solve at ``timelimit``); a process still running
        then is stopped and reported as ``maxTimeLimit``, not ``TimeoutExpired``."""
        limit = self._timelimit
        try:
            self._timelimit = None if limit is None else limit + TIMEOUT_GRACE
            rc, log = super()._execute_command(command)
            if rc != 0:  # not a handled outcome (those exit 0): refused command line, bug or crash
                tail = "\n".join(log.strip().splitlines()[-12:])
                raise SolverError(f"{self.name} stopped without a solution: {self._exit_reason(rc)}. "
                                  f"Solver output:\n{tail}")
            return rc, log
        except subprocess.TimeoutExpired as err:
            self._timed_out = True  # handled: process_output reports maxTimeLimit
            return 0, f"{self.name}: the solver process was stopped after {err.timeout:.2g} s (timelimit {limit} s)"
        finally:
            self._timelimit = limit

    def _presolve(self, *args, **kwds):
        self._model = args[0] if args else None
        t0 = time.perf_counter()
        try:
            super()._presolve(*args, **kwds)
        except DeveloperError:  # Pyomo's .nl writer has no min()/max(): name where they are
            where = _nonsmooth_rows(self._model) if self._model is not None else []
            if not where:
                raise
            raise UnsupportedModelError(
                f"{self.name}: {where[0][1]} in {where[0][0]} cannot be solved ({NONSMOOTH_ADVICE})") from None
        self.timings["write"] = time.perf_counter() - t0
        if not self.backend.integer_capable:
            discrete = self._discrete_variables()
            if discrete:
                names = ", ".join(discrete[:5]) + (" ..." if len(discrete) > 5 else "")
                raise UnsupportedModelError(
                    f"{self.name} solves continuous problems only, but the model has "
                    f"{len(discrete)} integer or binary variables ({names}). "
                    "Use SolverFactory('casadi_bonmin'), or relax them with "
                    "TransformationFactory('core.relax_integer_vars')."
                )

    def _symbol_map(self):
        model = getattr(self, "_model", None)
        if model is None or self._smap_id is None:
            return None
        return model.solutions.symbol_map.get(self._smap_id)

    def _discrete_variables(self):
        smap = self._symbol_map()
        if smap is None:
            return []
        found = []
        for obj in smap.bySymbol.values():
            obj = obj() if callable(obj) and not hasattr(obj, "ctype") else obj
            if obj.ctype is Var and not obj.fixed and (obj.is_integer() or obj.is_binary()):
                found.append(obj.name)
        return found

    # -- command line --------------------------------------------------------
    def create_command_line(self, executable, problem_files):
        limit = self.backend.time_limit_option
        if self._timelimit is not None and limit not in self.options:
            self.options[limit] = float(self._timelimit)
        cmd = super().create_command_line(executable, problem_files)
        at = cmd.cmd.index(executable)
        cmd.cmd[at + 1 : at + 1] = ["-I", "-u", _DRIVER, self.backend.name]
        cmd.env = solver_environment(cmd.env)  # one BLAS thread: the same iterates anywhere
        return cmd

    # -- results ----------------------------------------------------------
    def _status_file(self):
        return os.path.splitext(self._soln_file)[0] + ".casadi.json"

    def process_output(self, rc):
        status = {}
        path = self._status_file()
        if os.path.exists(path):
            with open(path) as f:
                status = json.load(f)
            os.remove(path)
        for key in ("read_seconds", "nlpsol_seconds", "wall_seconds"):
            if status.get(key) is not None:
                self.timings[{"read_seconds": "driver_read", "nlpsol_seconds": "nlpsol",
                              "wall_seconds": "solve"}[key]] = status[key]
        if "error" in status:
            return self._results_for_error(status, rc)
        if getattr(self, "_timed_out", False):
            results = SolverResults()
            results.solver.status = SolverStatus.aborted
            results.solver.termination_condition = TerminationCondition.maxTimeLimit
            results.solver.message = self._log
            results.solver.return_code = -int(signal.SIGKILL)
            return results
        if not os.path.exists(self._results_file):
            raise SolverError(
                f"{self.name} stopped without writing a solution: {self._exit_reason(rc)}. "
                f"Solver output:\n{self._tail_of_log()}"
            )
        results = super().process_output(rc)
        self._refine(results, status)
        return results

    @staticmethod
    def _exit_reason(rc):
        """What the driver's exit status says: handled, a bad command line, an internal
        error, or a crash (killed by a signal)."""
        if rc is not None and rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = f"signal {-rc}"
            return f"the solver process crashed ({name}, exit status {rc})"
        meaning = DRIVER_EXIT.get(rc, "a crash of the solver process")
        return f"exit status {rc} ({meaning})"

    def _tail_of_log(self, lines=20):
        if self._log_file and os.path.exists(self._log_file):
            with open(self._log_file) as f:
                return "".join(f.readlines()[-lines:])
        return "(no log)"

    def _results_for_error(self, status, rc):
        kind, message = status["error"], status["message"]
        if kind == "unsupported":
            where = self._component_name(status["segment"])
            raise UnsupportedModelError(
                f"{self.name}: {status['construct']} in {where} cannot be solved: "
                "CasADi's .nl importer has no such operation. Reformulate it "
                "smoothly (e.g. replace Expr_if by a smooth approximation)."
            )
        if kind == "discrete":
            raise UnsupportedModelError(f"{self.name}: {message}")
        if kind == "options":
            raise ConfigurationError(
                f"{self.name}: the solver rejected its options {dict(self.options)}: {message}"
            )
        results = SolverResults()
        results.solver.status = SolverStatus.error
        results.solver.termination_condition = TerminationCondition.error
        results.solver.message = f"{self.name}: {message}"
        results.solver.return_code = rc
        return results

    def _component_name(self, segment):
        smap = self._symbol_map()
        symbol = ("c" if segment[0] == "C" else "o") + segment[1:]
        if smap is not None and symbol in smap.bySymbol:
            obj = smap.bySymbol[symbol]
            kind = "constraint" if segment[0] == "C" else "objective"
            return f"{kind} '{obj.name}'"
        return f"segment {segment}"

    def _refine(self, results, status):
        solver = results.solver
        code = status.get("solve_result_num", solver.id)
        if status.get("message"):
            solver.message = status["message"]
        if INVALID_NUMBER in (solver.message or "") and self._model is not None:
            rows = invalid_rows(self._model)
            if rows:
                solver.message += " At the starting point: " + "; ".join(rows)
        solver.iterations = status.get("iterations")
        if status.get("wall_seconds") is not None:
            solver.wallclock_time = status["wall_seconds"]
        if code in (1, 2):
            solver.termination_condition = TerminationCondition.locallyOptimal
            solver.status = SolverStatus.warning if code == 2 else SolverStatus.ok
        elif 400 <= code <= 499:
            time_limit = self.backend.stopped_by_time(status.get("return_status", ""), self.options,
                                                      self._timelimit, status.get("wall_seconds"))
            solver.termination_condition = (
                TerminationCondition.maxTimeLimit if time_limit else TerminationCondition.maxIterations
            )
        elif 500 <= code <= 599:
            solver.termination_condition = TerminationCondition.error
            solver.status = SolverStatus.error
        if status.get("divergence"):  # stopped by the divergence watch (solvers.watch): the report attached
            self.divergence = dict(status["divergence"])
            solver.divergence = dict(status["divergence"])
            solver.status = SolverStatus.aborted
        if solver.termination_condition in (
            TerminationCondition.infeasible,
            TerminationCondition.unbounded,
            TerminationCondition.error,
        ):
            logger.warning(
                "%s: %s (%s). No point was loaded into the model. Check the "
                "initial point, bounds and scaling, or try another start "
                "(tee=True shows the solver log).",
                self.name,
                solver.termination_condition,
                solver.message,
            )

    def _postsolve(self):
        results = super()._postsolve()
        if getattr(self, "_timed_out", False):  # stopped from outside: no point to load
            self._load_solutions = False
        if results.solver.termination_condition in (
            TerminationCondition.infeasible,
            TerminationCondition.unbounded,
            TerminationCondition.error,
        ):
            self._load_solutions = False
        return results


def _nonsmooth_rows(model):
    """``[(component, "min()" | "max()")]`` for the active rows and objectives using them."""
    import pyomo.environ as pyo

    found = []
    for component in list(model.component_data_objects(pyo.Objective, active=True)) + \
            list(model.component_data_objects(pyo.Constraint, active=True)):
        kind = "objective" if component.ctype is pyo.Objective else "constraint"
        stack = [component.expr]
        while stack:
            node = stack.pop()
            name = type(node).__name__
            if name in ("MaxExpression", "MinExpression"):
                found.append((f"{kind} '{component.name}'", "max()" if name == "MaxExpression" else "min()"))
                break
            stack.extend(getattr(node, "args", ()) or ())
    return found


class CasadiIpoptNL(_CasadiAmplSolver):
    """IPOPT (with MUMPS) from the casadi wheel, through the AMPL protocol."""

    backend = backends.IPOPT


class CasadiBonminNL(_CasadiAmplSolver):
    """Bonmin (branch-and-bound over IPOPT, CBC) from the casadi wheel."""

    backend = backends.BONMIN
