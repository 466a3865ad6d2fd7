"""An AMPL solver driver backed by the IPOPT and Bonmin libraries in CasADi.

Run as ``python path/to/ampl_driver.py SOLVER stub.nl -AMPL [option=value
...]`` with ``SOLVER`` one of ``ipopt``, ``bonmin`` (``python -m
pyomo_mbdyn.solvers.ampl_driver`` works too, but imports the package and
with it Pyomo; run by path, the driver imports only casadi, numpy and its
sibling modules :mod:`nl_file` and :mod:`selection`).  Like the
``ipopt`` executable it reads ``stub.nl``, solves, and writes ``stub.sol``; it
also writes ``stub.casadi.json`` with the solver's own status, iteration count
and timing, which the Pyomo plugin reads for the details the .sol format has no
place for.

Sign convention
---------------
The .sol file carries duals and bound multipliers exactly as Ipopt's own AMPL
interface writes them (``AmplTNLP::finalize_solution``), so a user sees the
same numbers as with the ``ipopt`` executable.  Ipopt minimises
``σ f(x)`` with ``σ = +1`` for minimisation and ``σ = -1`` for maximisation,
with Lagrangian ``σ f + λᵀ g - z_Lᵀ (x - x_L) + z_Uᵀ (x - x_U)``,
``z_L, z_U ≥ 0``.  CasADi reports ``lam_g = λ`` and ``lam_x = z_U - z_L``.
Written to the .sol file:

========================  ================================
``dual`` (constraints)    ``-σ λ``
``ipopt_zL_out``          ``σ z_L``
``ipopt_zU_out``          ``-σ z_U``
========================  ================================

For a minimisation this makes the dual of an active ``g(x) ≥ b`` positive and
that of an active ``g(x) ≤ b`` negative, ``ipopt_zL_out ≥ 0`` and
``ipopt_zU_out ≤ 0``.  A warm start reads ``dual`` (the .nl ``d`` segment),
``ipopt_zL_in`` and ``ipopt_zU_in`` with the inverse map.

Options are passed as ``name=value``; names without a dot are options of the
solver (``tol=1e-10`` for IPOPT, ``bonmin.algorithm=B-BB`` or ``tol=...`` for
Bonmin).  Values are converted to int, then float, else kept as strings.

Option files only when named
----------------------------
IPOPT reads ``./ipopt.opt`` and CasADi's Bonmin ``./bonmin.opt`` (a name fixed in
CasADi's interface, with no option to turn it off) whenever the working
directory holds one: a file planted there could loosen the tolerances (IPOPT then
reports "optimal" at the start) or, with ``output_file``, overwrite any file the
user can write with the solver log.  So no solve of the library reads an option
file it was not given:

* IPOPT gets ``option_file_name=""`` (:data:`IPOPT_DEFAULTS`) unless the user
  names a file; a named file must exist (:func:`ipopt_option_file`, relative
  names against the working directory), since IPOPT silently ignores a missing one;
* for Bonmin, ``option_file_name`` names a file in the ``bonmin.opt`` format,
  read by :func:`read_option_file` and passed as options (those given
  explicitly win; :func:`bonmin_option_file`);
* this driver solves in a new empty directory (:func:`solve_nl`), so nothing in
  the caller's directory is read; the paths the user named (the stub,
  ``option_file_name``, ``output_file``) are made absolute first.

The in-process plugins (:mod:`pyomo_mbdyn.solvers.casadi_direct`) apply the same
rules; there Bonmin cannot be kept from reading ``./bonmin.opt``, so an unnamed
one is refused by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import contextlib
import json
import os
import sys
import time

__all__ = ["main", "solve_nl", "IPOPT_RESULT_CODES", "IPOPT_DEFAULTS", "with_ipopt_defaults",
           "OPTION_FILE", "ipopt_option_file", "bonmin_option_file", "read_option_file", "absolute_paths"]

#: IPOPT options both casadi_ipopt paths set unless the user does (the one table
#: of the library's IPOPT defaults; :func:`with_ipopt_defaults`).
#:
#: * ``mumps_pivot_order`` 3 (SCOTCH): MUMPS's automatic fill-reducing ordering
#:   (7) makes the KKT factorisations of the lifted schemes 3-4x slower than
#:   SCOTCH and, on the three-link arm at N = 160, so inaccurate that IPOPT stalls
#:   (51 iterations, regularisation to 1e7) where SCOTCH converges in 8
#:   (benchmarks/README.md, "Linear algebra").
#: * ``mumps_pivtol`` 1e-4 instead of IPOPT's 1e-6: the lifted schemes' KKT
#:   matrices are badly scaled (the arm's multipliers of the kinematic rows grow
#:   like 1/h: 3.5e7 at N = 40); with the looser pivoting the factors are too
#:   inaccurate for IPOPT's inertia test, which then regularises by 1e7-1e10 and
#:   stalls (the arm's REM at N >= 160; benchmarks/README.md, "Convergence at scale").
#:
#: * ``option_file_name`` "" (empty): no options file, where IPOPT would read
#:   ``./ipopt.opt`` whenever the working directory holds one (the module
#:   docstring, "Option files only when named").
#:
#: The ``mumps_*`` entries apply only when MUMPS is the linear solver.
IPOPT_DEFAULTS = {"mumps_pivot_order": 3, "mumps_pivtol": 1e-4, "option_file_name": ""}

#: the option that names an options file (IPOPT's own; for Bonmin this library's,
#: in the format of ``bonmin.opt``)
OPTION_FILE = "option_file_name"

#: options whose value is a path the solver opens (made absolute before the driver
#: leaves the caller's directory)
PATH_OPTIONS = (OPTION_FILE, "output_file")


def _named_file(options):
    """The absolute path of the option file ``options`` names, or None (unset or "").
    Raises ``ValueError`` naming the option when it is not a readable file."""
    name = options.get(OPTION_FILE, "")
    if not isinstance(name, str):
        raise ValueError(f"option {OPTION_FILE!r} must be a file name (a string), got {name!r}")
    if name == "":
        return None
    path = os.path.abspath(name)
    if not os.path.exists(path) or os.path.isdir(path) or not os.access(path, os.R_OK):
        raise ValueError(f"option {OPTION_FILE!r} names {name!r}, which is not a readable file "
                         f"({path}); give an existing options file, or \"\" for none")
    return path


def ipopt_option_file(options: Mapping[str, Any]) -> dict[str, Any]:
    """IPOPT's ``options`` with ``option_file_name`` empty unless the user named a
    file, which is checked to exist (IPOPT itself ignores a missing one without a
    word) and made absolute."""
    path = _named_file(options)
    return {**options, OPTION_FILE: "" if path is None else path}


def read_option_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The options of an IPOPT / Bonmin options file (``name value`` pairs separated
    by white space, ``#`` to the end of a line a comment, a value with spaces in
    double quotes), as ``{name: value}`` with values typed as on the command line."""
    import shlex

    with open(path) as f:
        text = f.read()
    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    tokens = list(lexer)
    if len(tokens) % 2:
        raise ValueError(f"options file {path}: {tokens[-1]!r} has no value")
    return {name: _convert(value) for name, value in zip(tokens[::2], tokens[1::2])}


def bonmin_option_file(options: Mapping[str, Any]) -> dict[str, Any]:
    """Bonmin's ``options`` with the file named by ``option_file_name`` (the format of
    ``bonmin.opt``) read into them, the options given explicitly winning; the name
    itself is removed (CasADi's Bonmin has no such option: it always reads
    ``./bonmin.opt``, which the callers keep out of reach).  Names as
    :func:`bonmin_options` returns them (``bonmin.`` prefix dropped)."""
    path = _named_file(options)
    given = bonmin_options({k: v for k, v in options.items() if k != OPTION_FILE})
    if path is None:
        return given
    return {**bonmin_options(read_option_file(path)), **given}


def absolute_paths(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with the paths in :data:`PATH_OPTIONS` made absolute (against the
    working directory), so that they mean the same after a change of directory."""
    return {k: (os.path.abspath(v) if k in PATH_OPTIONS and isinstance(v, str) and v else v)
            for k, v in options.items()}


def with_ipopt_defaults(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` (IPOPT's, as the user gave them) with :data:`IPOPT_DEFAULTS`
    added where unset; MUMPS's options only when ``linear_solver`` is MUMPS."""
    defaults = IPOPT_DEFAULTS
    if str(options.get("linear_solver", "mumps")) != "mumps":
        defaults = {k: v for k, v in defaults.items() if not k.startswith("mumps_")}
    return {**defaults, **options}

#: Ipopt's ApplicationReturnStatus (as CasADi names it) → (solve_result_num,
#: message), following ``AmplTNLP::finalize_solution`` of Ipopt 3.14.
IPOPT_RESULT_CODES = {
    "Solve_Succeeded": (0, "Optimal Solution Found"),
    "Solved_To_Acceptable_Level": (1, "Solved To Acceptable Level."),
    "Feasible_Point_Found": (2, "Found feasible point for square problem."),
    "Infeasible_Problem_Detected": (
        200,
        "Converged to a locally infeasible point. Problem may be infeasible.",
    ),
    "Diverging_Iterates": (300, "Iterates diverging; problem might be unbounded."),
    "Maximum_Iterations_Exceeded": (400, "Maximum Number of Iterations Exceeded."),
    "Maximum_CpuTime_Exceeded": (401, "Maximum CPU Time Exceeded."),
    "Maximum_WallTime_Exceeded": (402, "Maximum Wall Time Exceeded."),
    "Search_Direction_Becomes_Too_Small": (500, "Search Direction becomes Too Small."),
    "Restoration_Failed": (501, "Restoration Phase Failed."),
    "Invalid_Number_Detected": (
        502,
        "Invalid number in NLP function or derivative detected.",
    ),
    "Error_In_Step_Computation": (502, "Error in step computation."),
    "Not_Enough_Degrees_Of_Freedom": (502, "Problem has too few degrees of freedom."),
    "User_Requested_Stop": (502, "Stopping optimization at current point as requested by user."),
}

#: Bonmin's TMINLP::SolverReturn (as CasADi names it) → (code, message).
BONMIN_RESULT_CODES = {
    "SUCCESS": (0, "Optimal"),
    "INFEASIBLE": (220, "Infeasible problem"),
    "CONTINUOUS_UNBOUNDED": (300, "Continuous relaxation is unbounded"),
    "LIMIT_EXCEEDED": (400, "Limit exceeded (time, nodes or solutions)"),
    "USER_INTERRUPT": (502, "Interrupted by user"),
    "MINLP_ERROR": (502, "Error in the MINLP solver"),
}


def bonmin_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Options as Bonmin users write them → as CasADi's Bonmin interface takes them.

    Bonmin registers its own options as ``bonmin.algorithm``, ``bonmin.node_limit``,
    ``bonmin.time_limit``, … and IPOPT's (for the NLP subproblems) under their plain
    names (``tol``, ``max_iter``, ``print_level``); CasADi looks them up without the
    ``bonmin.`` prefix and rejects ``bonmin.algorithm`` ("No such BONMIN option:
    bonmin").  So the prefix is dropped; giving one option both ways is an error.
    """
    out: dict[str, Any] = {}
    for name, value in options.items():
        key = name[len("bonmin."):] if name.startswith("bonmin.") else name
        if key in out and out[key] != value:
            raise ValueError(f"Bonmin option {key!r} given twice with different values "
                             f"({out[key]!r} and {value!r}, as {name!r})")
        out[key] = value
    return out


def bonmin_stopped_by_time(options: Mapping[str, Any], timelimit: float | None, wall: float | None) -> bool:
    """Whether Bonmin's LIMIT_EXCEEDED (said alike for time, node and solution limits)
    was its time limit (``bonmin.time_limit``, ``time_limit`` or the solve's
    ``timelimit``): the search ran for at least half of it (Bonmin's clock is CPU
    time, which runs ahead of the wall clock under threaded BLAS)."""
    limit = None if timelimit is None else float(timelimit)
    for name in ("bonmin.time_limit", "time_limit"):
        if name in options:
            limit = float(options[name])
    return limit is not None and wall is not None and wall >= 0.5 * limit


def _is_option_error(message):
    """A solver's complaint about an option (IPOPT: "Unknown option", "Invalid value";
    Bonmin: "No such BONMIN option", "Invalid options were detected"; fatrop: "Fatrop
    option not supported")."""
    text = message.lower()
    return "option" in text and any(word in text for word in ("unknown", "invalid", "no such", "not supported"))


def _convert(value):
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value.strip('"')


def parse_options(args: Iterable[str]) -> dict[str, Any]:
    """``['tol=1e-8', 'mu_strategy=adaptive']`` → ``{'tol': 1e-8, ...}``."""
    options = {}
    for arg in args:
        if "=" not in arg:
            raise ValueError(f"option {arg!r} is not of the form name=value")
        name, value = arg.split("=", 1)
        options[name.strip()] = _convert(value.strip())
    return options


def solve_nl(solver: str, stub: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """Solve ``stub.nl`` with ``solver`` ('ipopt' or 'bonmin'); write stub.sol.

    Returns the status dictionary that is also written to ``stub.casadi.json``.
    """
    import casadi
    import numpy as np

    if __package__:
        from .backends import BACKENDS
        from .nl_file import UnsupportedConstruct, read_nl, write_sol
        from .selection import library_version
        from .watch import message_of, watch_callback
    else:  # run as a script: the siblings are on sys.path[0] (put there by __main__ below)
        from backends import BACKENDS  # type: ignore
        from nl_file import UnsupportedConstruct, read_nl, write_sol  # type: ignore
        from selection import library_version  # type: ignore
        from watch import message_of, watch_callback  # type: ignore

    backend = BACKENDS[solver]
    status = {"solver": solver, "casadi": casadi.__version__}  # type: ignore[attr-defined]  # not in casadi's stubs
    t_read = time.perf_counter()
    try:
        nl = read_nl(stub + ".nl")
    except UnsupportedConstruct as err:
        status.update(error="unsupported", message=str(err),
                      construct=err.construct, segment=err.segment)
        return status
    if not backend.integer_capable and nl.n_discrete:
        minlp = [b.name for b in BACKENDS.values() if b.integer_capable]
        status.update(
            error="discrete",
            message=f"{nl.n_binary} binary and {nl.n_integer} integer variables: "
            f"{backend.title.upper()} solves continuous problems only; use "
            + " or ".join(f"casadi_{name}" for name in minlp),
        )
        return status

    # --- import through CasADi and expand to SX (much faster than MX graphs)
    clean = stub + ".casadi.nl"
    with open(clean, "w") as stream:
        stream.write(nl.text)
    builder = casadi.NlpBuilder()
    try:
        builder.import_nl(clean, {})
    except RuntimeError as err:
        status.update(error="import", message=f"CasADi could not import the .nl file: {err}")
        return status
    finally:
        os.remove(clean)
    x_mx = casadi.vertcat(*builder.x) if nl.n_var else casadi.MX(0, 1)
    g_mx = casadi.vertcat(*builder.g) if nl.n_con else casadi.MX(0, 1)
    f_mx = casadi.MX(builder.f) if nl.n_obj else casadi.MX(0)
    fun = casadi.Function("nlp", [x_mx], [f_mx, g_mx]).expand()
    x = casadi.SX.sym("x", nl.n_var)
    f, g = fun(x)
    status["read_seconds"] = time.perf_counter() - t_read

    # ObjSign σ: CasADi has already multiplied f by σ, so it minimises σ f.
    sigma = -1.0 if _maximises(nl.text) else 1.0

    # --- options (option files only when named: the module docstring)
    opts = {"print_time": False}
    solver_opts = absolute_paths(options)
    watch = None
    try:  # the divergence watch's options are the library's (watch.py), not the solver's
        solver_opts, watch_settings = backend.solver_options(solver_opts)
        opts.update(backend.nlpsol_options(solver_opts, builder.discrete))
        if watch_settings is not None:
            opts["iteration_callback"], watch = watch_callback(watch_settings, builder.g_lb, builder.g_ub, sigma)
    except (OSError, ValueError) as err:
        status.update(error="options", message=str(err))
        return status

    # --- warm start: d segment (AMPL duals) and ipopt_z*_in suffixes
    x0 = np.array(builder.x_init, dtype=float)
    lam_g0 = -sigma * np.array(builder.lambda_init, dtype=float)
    zl = np.zeros(nl.n_var)
    zu = np.zeros(nl.n_var)
    for name, arr, sign in (("ipopt_zL_in", zl, sigma), ("ipopt_zU_in", zu, -sigma)):
        kind, values = nl.suffixes.get(name, (0, {}))
        for i, v in values.items():
            arr[i] = sign * v
    lam_x0 = zu - zl

    # the solver runs in a new empty directory: nothing the caller's directory holds
    # (an ipopt.opt, a bonmin.opt, which CasADi's Bonmin always reads) is read
    with _empty_directory():
        t0 = time.perf_counter()
        try:
            nlpsol = casadi.nlpsol("solver", solver, {"x": x, "f": f, "g": g}, opts)
        except RuntimeError as err:
            status.update(error="options", message=_short(err))
            return status
        status["nlpsol_seconds"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        try:
            res = nlpsol(
                x0=x0,
                lbx=builder.x_lb,
                ubx=builder.x_ub,
                lbg=builder.g_lb,
                ubg=builder.g_ub,
                lam_x0=lam_x0,
                lam_g0=lam_g0,
            )
        except RuntimeError as err:  # Bonmin reads its options when the solve starts
            status.update(error="options" if _is_option_error(str(err)) else "solve", message=_short(err))
            return status
        wall = time.perf_counter() - t0
    stats = nlpsol.stats()
    return_status = stats.get("return_status", "unknown")
    code, text = backend.result(return_status)

    xs = np.array(res["x"]).ravel()
    lam_g = np.array(res["lam_g"]).ravel()
    lam_x = np.array(res["lam_x"]).ravel()
    z_l = np.maximum(-lam_x, 0.0)
    z_u = np.maximum(lam_x, 0.0)
    message = backend.message(text, library_version(solver), casadi.__version__)  # type: ignore[attr-defined]
    if watch is not None and watch.report is not None and return_status == "User_Requested_Stop":
        status["divergence"] = watch.report
        message = f"{message_of(watch.report)} ({message})"
    write_sol(
        stub + ".sol",
        message,
        xs,
        -sigma * lam_g,
        code,
        var_suffixes=[("ipopt_zU_out", -sigma * z_u), ("ipopt_zL_out", sigma * z_l)],
    )
    status.update(
        return_status=return_status,
        solve_result_num=code,
        message=message,
        iterations=int(stats.get("iter_count", 0)),
        wall_seconds=wall,
    )
    return status


@contextlib.contextmanager
def _empty_directory():
    """Run the block in a new empty temporary directory (this process is the driver's
    own, with one thread), back in the caller's directory afterwards; the directory
    and anything the solver left in it are removed."""
    import shutil
    import tempfile

    try:
        home = os.getcwd()
    except OSError:  # the caller's directory is gone: nothing to return to
        home = None
    place = tempfile.mkdtemp(prefix="casadi_solve_")
    os.chdir(place)
    try:
        yield place
    finally:
        os.chdir(home if home is not None else tempfile.gettempdir())
        shutil.rmtree(place, ignore_errors=True)


def _maximises(text):
    for line in text.splitlines():
        if line.startswith("O"):
            return line.split()[1] != "0"
    return False


def _short(err):
    msg = str(err).strip().splitlines()
    return msg[-1] if msg else repr(err)


USAGE = "usage: python ampl_driver.py {ipopt|bonmin} stub[.nl] -AMPL [name=value ...]"


def _backend_names():
    if __package__:
        from .backends import BACKENDS
    else:
        from backends import BACKENDS
    return BACKENDS


def main(argv: Sequence[str] | None = None) -> int:
    """Solve ``stub.nl`` with IPOPT or Bonmin, as :data:`USAGE` says, for the AMPL-protocol plugins.

    Exit status 0 once the solve has ended, solved or not (its status is written to
    ``stub.casadi.json`` for the plugin), 2 for a bad command line or option, 3 for
    an internal error of the driver.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) < 2 or argv[0] not in _backend_names():
        print(USAGE, file=sys.stderr)
        return 2
    solver, stub = argv[0], os.path.abspath(argv[1])
    if stub.endswith(".nl"):
        stub = stub[:-3]
    rest = [a for a in argv[2:] if a != "-AMPL"]
    try:
        options = parse_options(rest)
    except ValueError as err:
        print(f"casadi_{solver}: {err}", file=sys.stderr)
        return 2
    try:
        status = solve_nl(solver, stub, options)
    except Exception as err:  # a bug here, not a failed solve: say so, with its own exit status
        import traceback

        traceback.print_exc(file=sys.stderr)
        print(f"casadi_{solver}: internal error of the driver: {type(err).__name__}: {err}", file=sys.stderr)
        return 3
    with open(stub + ".casadi.json", "w") as f:
        json.dump(status, f)
    # Handled failures exit with 0: the plugin reads stub.casadi.json and
    # reports them (Pyomo would otherwise raise before reading anything).
    if "error" in status:
        print(f"casadi_{solver}: {status['message']}", file=sys.stderr)
        return 0
    print(f"\ncasadi_{solver}: {status['message']}")
    return 0


if __name__ == "__main__":
    # run with ``python -I`` (the plugin does): the script's own directory, and only
    # it, is put on the path for its siblings nl_file and selection
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())
