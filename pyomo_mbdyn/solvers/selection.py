"""Which solvers can run here, and choosing one.

``get_solver()`` prefers a real ``ipopt`` (or ``bonmin``) executable on PATH and
falls back to the libraries bundled in the ``casadi`` wheel, so that models
never name a solver and a fresh ``pip install`` can solve everything.

Option files only when named (:mod:`pyomo_mbdyn.solvers.ampl_driver`): the
bundled plugins never read ``./ipopt.opt`` or ``./bonmin.opt``; the ``ipopt``
executable that ``get_solver`` returns is given an empty options file
(``option_file_name=/dev/null``) unless an option names one.  The ``bonmin``
executable reads ``./bonmin.opt`` whatever its options say: that is not covered.
"""

from __future__ import annotations

from typing import Any

import functools
import glob
import os
import shutil

__all__ = ["library_version", "available_solvers", "get_solver", "KNOWN_SOLVERS", "BUNDLED"]

try:  # inside the package
    from .backends import BACKENDS
except ImportError:  # a sibling of the AMPL driver run by path
    from backends import BACKENDS  # type: ignore

#: bundled solver name → CasADi plugin behind it: each backend in process (``casadi_<name>``)
#: and through the AMPL driver (``casadi_<name>_nl``)
BUNDLED = {f"casadi_{b.name}{route}": b.name for b in BACKENDS.values()
           for route in (("", "_nl") if b.ampl_route else ("",))}

#: name → (kind, where it comes from)
KNOWN_SOLVERS = {
    **{key: value for b in BACKENDS.values() for key, value in (
        (b.name, (b.problem_class, f"{b.name} executable on PATH (AMPL interface)")),
        (f"casadi_{b.name}", (b.problem_class, f"{b.title} library bundled in the casadi wheel, in process")),
        (f"casadi_{b.name}_nl", (b.problem_class, f"{b.title} library bundled in the casadi wheel, AMPL .nl/.sol in a subprocess")))
       if b.ampl_route or key == f"casadi_{b.name}"},
    "ripopt": ("nlp", "ripopt executable from the pyomo-ripopt package"),
}


@functools.lru_cache(maxsize=None)
def library_version(backend: str) -> str | None:
    """Version string of the library of ``backend`` (a name of
    :data:`~pyomo_mbdyn.solvers.backends.BACKENDS`: IPOPT, Bonmin) inside casadi, or None:
    from the library's version header where it has one, else from the library file's name."""
    record = BACKENDS[backend]
    try:
        import casadi
    except ImportError:
        return None
    if not casadi.has_nlpsol(record.name):
        return None
    root = os.path.dirname(casadi.__file__)
    if record.version_header is not None:
        parts, prefix = record.version_header
        header = os.path.join(root, *parts)
        if os.path.exists(header):
            with open(header) as f:
                for line in f:
                    if line.startswith(prefix):
                        return line.split('"')[1]
    for path in sorted(glob.glob(os.path.join(root, record.library_pattern))):
        return path.rsplit(".so.", 1)[1]
    return "unknown"


def _executable_version(name):
    from pyomo.opt import SolverFactory

    with _quiet():
        opt = SolverFactory(name)
        try:
            if not opt.available(exception_flag=False):
                return None
            version = opt.version()
        except Exception:
            return None
    return ".".join(str(v) for v in version) if version else "unknown"


class _quiet:
    """Silence Pyomo's 'could not locate executable' warnings while probing."""

    def __enter__(self):
        import logging

        self._loggers = [logging.getLogger(n) for n in ("pyomo.solvers", "pyomo.opt")]
        self._levels = [lg.level for lg in self._loggers]
        for lg in self._loggers:
            lg.setLevel(logging.ERROR)

    def __exit__(self, *exc):
        for lg, level in zip(self._loggers, self._levels):
            lg.setLevel(level)


def available_solvers() -> list[dict[str, Any]]:
    """List the solvers that can run here.

    Returns
    -------
    list of dict
        ``{"name", "kind" ('nlp' or 'minlp'), "version", "source"}`` for each
        available solver, bundled ones included.

    Examples
    --------
    The IPOPT and Bonmin libraries bundled in the casadi wheel are always there:

    >>> solvers = {s["name"]: s for s in available_solvers()}
    >>> solvers["casadi_ipopt"]["kind"], solvers["casadi_bonmin"]["kind"]
    ('nlp', 'minlp')
    >>> sorted(solvers["casadi_ipopt"])
    ['kind', 'name', 'source', 'version']
    """
    import pyomo_mbdyn  # noqa: F401  (registers the casadi plugins)

    found = []
    for name, (kind, source) in KNOWN_SOLVERS.items():
        if name in BUNDLED:
            version = library_version(BUNDLED[name])
        elif name == "ripopt":
            try:
                import pyomo_ripopt  # noqa: F401
            except ImportError:
                continue
            version = _executable_version(name)
        else:
            if shutil.which(name) is None:
                continue
            version = _executable_version(name)
        if version is not None:
            found.append({"name": name, "kind": kind, "version": version, "source": source})
    return found


def _has_discrete_variables(model):
    from pyomo.core.base.var import Var

    return any(
        v.is_integer() or v.is_binary()
        for v in model.component_data_objects(Var, active=True, descend_into=True)
        if not v.fixed
    )


def get_solver(name: str | None = None, *, model: Any = None, discrete: bool | None = None, **options: Any) -> Any:
    """Return a ready Pyomo solver, preferring an executable on PATH.

    Parameters
    ----------
    name : str, optional
        A solver name (``'ipopt'``, ``'casadi_ipopt'`` (in process),
        ``'casadi_ipopt_nl'`` (AMPL protocol, subprocess), ``'bonmin'``,
        ``'casadi_bonmin'``, ``'casadi_bonmin_nl'``, ``'ripopt'`` or any Pyomo
        solver).  Without it: the ``ipopt`` executable when it is on PATH, else
        ``casadi_ipopt``; for discrete problems ``bonmin`` or else
        ``casadi_bonmin``.
    model : Pyomo model, optional
        Used only to decide whether the problem has integer variables.
    discrete : bool, optional
        Say directly whether the problem has integer variables.
    **options
        Solver options, set on ``solver.options``.

    Raises
    ------
    SolverUnavailableError
        When ``name`` is unknown or cannot run here; the message lists the
        solvers that are available.
    """
    from pyomo.opt import SolverFactory

    import pyomo_mbdyn  # noqa: F401

    from ..errors import SolverUnavailableError

    from .backends import backend_for

    if discrete is None:
        discrete = model is not None and _has_discrete_variables(model)
    if name is None:  # the library's own executable on PATH, else the casadi wheel's
        library = backend_for(discrete).name
        name = library if shutil.which(library) else f"casadi_{library}"
    with _quiet():
        solver = SolverFactory(name)
        try:
            ok = solver is not None and bool(solver.available(exception_flag=False))
        except Exception:
            ok = False
    if not ok:
        listing = ", ".join(f"{s['name']} ({s['version']})" for s in available_solvers())
        raise SolverUnavailableError(
            f"solver {name!r} is not available here; available: {listing or 'none'}."
        )
    for key, value in options.items():
        solver.options[key] = value
    if name in BACKENDS and BACKENDS[name].fixed_option_file is None:  # the ipopt executable
        _no_implicit_option_file(solver)
    return solver


def _no_implicit_option_file(solver):
    """Let Pyomo's ``ipopt`` plugin (the executable on PATH) read no ``./ipopt.opt``:
    each command line it creates gets ``option_file_name=<os.devnull>`` (an empty
    options file) unless an option names a file (``option_file_name``, or ``OF_``
    options, which Pyomo writes to a file of its own and names).  The ``bonmin``
    executable reads ``./bonmin.opt`` with no option to turn it off, and is left as
    it is (solvers guide, "Option files")."""
    from .ampl_driver import OPTION_FILE

    create = solver.create_command_line
    if getattr(create, "_no_implicit_option_file", False):
        return

    def create_command_line(executable, problem_files):
        command = create(executable, problem_files)
        if not any(key == OPTION_FILE or str(key).startswith("OF_") for key in solver.options):
            command.cmd.append(f"{OPTION_FILE}={os.devnull}")
        return command

    create_command_line._no_implicit_option_file = True
    solver.create_command_line = create_command_line
