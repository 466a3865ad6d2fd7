"""The solver libraries behind the plugins, one record each: what differs between IPOPT, Bonmin and fatrop.

Five plugins (:mod:`casadi_direct`: ``casadi_ipopt``, ``casadi_bonmin``, ``casadi_fatrop`` in process;
:mod:`casadi_plugin`: ``casadi_ipopt_nl``, ``casadi_bonmin_nl`` through the AMPL driver
:mod:`ampl_driver`) and the solver selection (:mod:`selection`) run one of the libraries in the
casadi wheel.  Everything that depends on which library — CasADi's ``nlpsol`` plugin name, the
class of problem it solves, how the user's options become the library's, which options name
its time limit, how its return status maps to AMPL's ``solve_result_num`` and its message, how
a time limit is told from another limit, whether the divergence watch and the problem's own
IPOPT defaults apply, where its version is read — is a field or a method of its
:class:`Backend` record, so that no plugin branches on a library's name.  A new NLP library
is one record here and one plugin class naming it: ``fatrop`` (in process only) is, with
``stage_wise`` (the NLP passed in stage order, :mod:`pyomo_mbdyn.solvers.stages`) and no
time limit.

Run by path, the AMPL driver imports this module as a sibling (no package, no Pyomo): it
imports only the standard library and its siblings :mod:`ampl_driver` and :mod:`watch`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

try:  # inside the package
    from .ampl_driver import (BONMIN_RESULT_CODES, IPOPT_RESULT_CODES, OPTION_FILE, bonmin_option_file,
                              bonmin_stopped_by_time, ipopt_option_file, with_ipopt_defaults)
    from .watch import given_watch_options, split_watch_options
except ImportError:  # the AMPL driver run by path: its siblings are top-level modules
    from ampl_driver import (BONMIN_RESULT_CODES, IPOPT_RESULT_CODES, OPTION_FILE, bonmin_option_file,  # type: ignore
                             bonmin_stopped_by_time, ipopt_option_file, with_ipopt_defaults)
    from watch import given_watch_options, split_watch_options  # type: ignore

__all__ = ["Backend", "IPOPT", "BONMIN", "FATROP", "BACKENDS", "backend_for"]


@dataclass(frozen=True)
class Backend:
    """One solver library of the casadi wheel, as the plugins use it.

    ``name`` is CasADi's ``nlpsol`` plugin, the AMPL executable of the same library and the
    driver's first argument; ``title`` how the library names itself in its messages;
    ``problem_class`` ``"nlp"`` or ``"minlp"`` (an MINLP library takes the ``discrete``
    flags); ``time_limit_option`` the option a solve's ``timelimit`` becomes;
    ``result_codes`` the library's return status (as CasADi names it) → (AMPL
    ``solve_result_num``, message); ``watched``: the divergence watch
    (:mod:`pyomo_mbdyn.solvers.watch`) runs on its iterations and its options are taken;
    ``problem_defaults``: an :class:`~pyomo_mbdyn.ocp.OptimalControlProblem`'s
    ``solver_defaults`` (IPOPT options) apply; ``library_pattern`` and ``version_header``
    where :func:`~pyomo_mbdyn.solvers.selection.library_version` reads its version;
    ``option_files`` turns the user's options into the library's (the option-file rules of
    :mod:`ampl_driver`); ``limit_was_time`` tells a time limit from another limit;
    ``fixed_option_file`` an options file it reads from the working directory unasked;
    ``time_limit_option`` None: the library has no time limit (a solve's ``timelimit``
    is refused); ``stage_wise``, ``ampl_route``: below."""

    name: str
    title: str
    problem_class: str
    time_limit_option: Optional[str]
    result_codes: Mapping[Any, tuple] = field(repr=False)  # keys: the status as CasADi gives it (fatrop: an int)
    watched: bool
    problem_defaults: bool
    library_pattern: str
    option_files: Callable[[Mapping[str, Any]], dict[str, Any]] = field(repr=False)
    limit_was_time: Callable[[str, Mapping[str, Any], Optional[float], Optional[float]], bool] = field(repr=False)
    version_header: Optional[tuple] = None
    #: an options file the library reads from the working directory whatever its options say
    #: (CasADi's Bonmin: ``bonmin.opt``); an in-process solve refuses an unnamed one
    fixed_option_file: Optional[str] = None
    #: the library solves problems in stage form only (fatrop): the plugin orders the NLP
    #: stage by stage (:mod:`pyomo_mbdyn.solvers.stages`) and passes the layout
    stage_wise: bool = False
    #: the library also runs as an AMPL executable and through the AMPL driver
    #: (``casadi_<name>_nl``); a stage-wise library does not (the .nl file has no stages)
    ampl_route: bool = True

    @property
    def integer_capable(self) -> bool:
        """Whether the library takes integer and binary unknowns (an MINLP solver)."""
        return self.problem_class == "minlp"

    def solver_options(self, options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """``(library_options, watch_settings)`` from the user's options: the watch's own
        options split off where the watch runs (settings None when it is off or does not
        run), the option-file rules applied.  Raises ``ValueError`` naming a bad option
        (watch options given to a library the watch does not run on, among them)."""
        watch = None
        if self.watched:
            options, watch = split_watch_options(options)
        elif given_watch_options(options):
            raise ValueError(f"{given_watch_options(options)}: the divergence watch runs on "
                             f"{', '.join(b.name.upper() for b in BACKENDS.values() if b.watched)} solves only, "
                             f"not on {self.title}'s")
        return self.option_files(options), watch

    def nlpsol_options(self, library_options: Mapping[str, Any], discrete: Iterable[bool],
                       stages: Any = None, equality: Optional[Iterable[bool]] = None) -> dict[str, Any]:
        """The options of CasADi's ``nlpsol`` for this library: its own options under its
        name, for an MINLP library the ``discrete`` flags of the unknowns, and for a
        stage-wise library the layout ``stages`` (N, nx, nu, ng of a
        :class:`~pyomo_mbdyn.solvers.stages.StageLayout`) with a flag per row
        (``equality``: lbg = ubg)."""
        opts: dict[str, Any] = {self.name: library_options}
        if self.integer_capable:
            opts["discrete"] = [bool(d) for d in discrete]
        if self.stage_wise:
            opts.update(structure_detection="manual", N=stages.N, nx=list(stages.nx), nu=list(stages.nu),
                        ng=list(stages.ng), equality=[bool(e) for e in (equality if equality is not None else ())])
        return opts

    def result(self, return_status: str) -> tuple[int, str]:
        """(AMPL ``solve_result_num``, message) of the library's return status; an unknown
        status is an error (502) that names it."""
        return self.result_codes.get(return_status, (502, f"Unknown Error ({return_status})"))

    def message(self, text: str, version: str | None, casadi_version: str) -> str:
        """The solve's message as the plugins report it: library, versions, the status text."""
        return f"{self.title} {version} (CasADi {casadi_version}): {text}"

    def stopped_by_time(self, return_status: str, options: Mapping[str, Any], timelimit: float | None,
                        wall: float | None) -> bool:
        """Whether a limit stop (AMPL codes 400–499) was the time limit."""
        return self.limit_was_time(return_status, options, timelimit, wall)


def _ipopt_options(options):
    return ipopt_option_file(with_ipopt_defaults(options))


def _ipopt_time(return_status, options, timelimit, wall):
    return return_status.endswith("Time_Exceeded")   # Maximum_CpuTime_Exceeded, Maximum_WallTime_Exceeded


def _bonmin_time(return_status, options, timelimit, wall):
    # Bonmin says LIMIT_EXCEEDED for time, node and solution limits alike
    return bonmin_stopped_by_time(options, timelimit, wall)


#: IPOPT 3.14 with MUMPS
IPOPT = Backend(name="ipopt", title="Ipopt", problem_class="nlp", time_limit_option="max_wall_time",
                result_codes=IPOPT_RESULT_CODES, watched=True, problem_defaults=True,
                library_pattern="libipopt.so.*.*.*", option_files=_ipopt_options,
                limit_was_time=_ipopt_time,
                version_header=(("include", "coin-or", "IpoptConfig.h"), "#define IPOPT_VERSION "))

#: Bonmin (branch and bound over IPOPT, CBC)
BONMIN = Backend(name="bonmin", title="Bonmin", problem_class="minlp", time_limit_option="bonmin.time_limit",
                 result_codes=BONMIN_RESULT_CODES, watched=False, problem_defaults=False,
                 library_pattern="libbonmin.so.*.*.*", option_files=bonmin_option_file,
                 limit_was_time=_bonmin_time, fixed_option_file="bonmin.opt")

#: fatrop's return flag (``IpSolverReturnFlag``, CasADi's ``stats()["return_status"]``)
FATROP_RESULT_CODES = {
    0: (0, "Optimal Solution Found"),
    1: (400, "Maximum Number of Iterations Exceeded."),
    2: (1, "Solved To Acceptable Level."),
    3: (200, "Converged to a locally infeasible point. Problem may be infeasible."),
    4: (502, "Line search failed."),
    5: (502, "Error in step computation."),
    6: (502, "Unknown error."),
}

#: fatrop's options the plugin sets unless the user does: IPOPT's tolerance and a bound on
#: the iterations (fatrop's own default is 1000)
FATROP_DEFAULTS = {"tol": 1e-8, "max_iter": 3000}


def _fatrop_options(options):
    """fatrop's options: :data:`FATROP_DEFAULTS` under the user's; fatrop reads no option
    file, so ``option_file_name`` is refused (the option-file rules: files only when named,
    and fatrop cannot be given one)."""
    if options.get(OPTION_FILE):
        raise ValueError(f"{OPTION_FILE}={options[OPTION_FILE]!r}: fatrop reads no option files; "
                         "give its options directly")
    return {**FATROP_DEFAULTS, **{k: v for k, v in options.items() if k != OPTION_FILE}}


def _no_time(return_status, options, timelimit, wall):
    return False  # fatrop has no time limit: its limit stops are the iteration limit


#: fatrop (Riccati recursion over the stages; CasADi's interface in manual structure mode)
FATROP = Backend(name="fatrop", title="Fatrop", problem_class="nlp", time_limit_option=None,
                 result_codes=FATROP_RESULT_CODES, watched=False, problem_defaults=False,
                 library_pattern="libfatrop.so.*.*.*", option_files=_fatrop_options,
                 limit_was_time=_no_time, stage_wise=True, ampl_route=False)

#: every backend by name
BACKENDS = {b.name: b for b in (IPOPT, BONMIN, FATROP)}


def backend_for(discrete: bool) -> Backend:
    """The library for a problem with (``discrete=True``) or without integer unknowns."""
    wanted = "minlp" if discrete else "nlp"
    return next(b for b in BACKENDS.values() if b.problem_class == wanted)
