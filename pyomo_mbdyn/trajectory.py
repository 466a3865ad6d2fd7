"""The one trajectory type of the library, and its archive on disk.

A :class:`Trajectory` holds a discrete motion on the grid ``t_k = k h``
(k = 0..N), whoever produced it: the Newton stepper
(:func:`pyomo_mbdyn.simulate.simulate`), an initial guess
(:func:`pyomo_mbdyn.ocp.interpolated_trajectory`), or a scheme block's
current values (``block.trajectory()``, every scheme, DNCO included):

* ``t`` (N+1,), ``q`` and ``v`` (N+1, n) node configurations and velocities;
* ``u`` (N, n_act) interval controls on the actuated coordinates (the
  applied generalised force, N or N m, see :mod:`pyomo_mbdyn.mechanics.system`) and
  ``nu`` (N, dof) interval joint rates;
* optional named ``extras`` (multipliers ``lam``, increments ``w``, chart
  coordinates ``theta``/``vt``, momenta ``p``, costates, Newton iterations, …
  of any shape), also readable as attributes (``trajectory.lam``; the
  well-known names give ``None`` when absent);
* the names of the coordinates (columns of ``q``, ``v``), of the controls
  (columns of ``u``) and of the generalised velocities (columns of ``nu``);
* a ``metadata`` dict (model, scheme, steps, solver, status, objective,
  iterations, …) of JSON values; ``trajectory.scheme`` and ``trajectory.h``
  read it;
* the system it belongs to (``system``; not saved).

:meth:`Trajectory.save` writes one ``.npz`` archive (``numpy.savez``):
every array as its own ``.npy`` member (dtype, byte order, shape and bytes
kept as they are) and everything else as one JSON string in the member
``header``.  :func:`load` reads it back with ``allow_pickle=False``; the
result is :meth:`~Trajectory.identical` to what was saved: every array
bit for bit (NaN payloads and signed zeros included), the names and the
metadata equal.

Examples
--------
>>> import numpy as np
>>> traj = Trajectory(t=np.array([0.0, 0.5]), q=np.zeros((2, 3)), v=np.zeros((2, 3)),
...                         u=np.ones((1, 1)), nu=np.zeros((1, 3)),
...                         coordinates=("ball.x", "ball.y", "ball.z"), controls=("ball.vx",),
...                         velocities=("ball.vx", "ball.vy", "ball.vz"),
...                         metadata={"model": "ball", "steps": 1})
>>> traj.steps
1
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy.typing as npt
    import pandas as pd
    import xarray as xr

    from .mechanics import HamiltonianSystem, MultibodySystem

import json
import math
import os
import re
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .atomic import atomic_write, check_destination, file_kind
from .errors import (ConfigurationError, DestinationError, InputTypeError, MissingFileError, ModellingWarning,
                     ResultsFileError)

__all__ = ["Trajectory", "load", "archive_path", "available_memory", "column_names", "unit", "FORMAT",
           "FORMAT_VERSION"]

#: name and version written into every archive's header
#: version 2: ``u`` is the applied generalised force (version 1 stored minus it, the thesis's sign)
FORMAT, FORMAT_VERSION = "pyomo_mbdyn.SolvedTrajectory", 2

_ARRAYS = ("t", "q", "v", "u", "nu")
_EXTRA_PREFIX = "extra."
_EXTRA_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")
_HEADER = "header"
#: extras that read as None when a trajectory does not carry them
_KNOWN_EXTRAS = ("lam", "mu", "w", "theta", "vt", "p", "costates", "newton_iterations")


def column_names(system: MultibodySystem | HamiltonianSystem) -> tuple[list[str], list[str], list[str]]:
    """(coordinates, controls, velocities): the column names of q/v, u and nu.

    Coordinates are ``body.c`` with ``c`` in ``x, y, z, d1x, …, d3z`` (or a
    coordinate group's own names); controls ``system.actuated``; velocities
    ``system.velocities``.  A system with generalised coordinates only (a
    :class:`~pyomo_mbdyn.mechanics.HamiltonianSystem`) names each column by its
    coordinate names.

    Examples
    --------
    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> link = pendulum.bodies["link"]
    >>> coordinates, controls, velocities = column_names(pendulum)
    >>> coordinates[:4], controls, velocities
    (['link.x', 'link.y', 'link.z', 'link.d1x'], ['hinge.angle'], ['hinge.angle'])
    """
    from .mechanics.system import coordinate_names

    if not hasattr(system, "bodies"):
        names = list(system.names)
        return names, names, names
    coordinates = [f"{name}.{c}" for name, body in system.bodies.items() for c in coordinate_names(body)]
    # a system with bodies (the hasattr test above) is a MultibodySystem
    return coordinates, list(system.actuated), list(system.velocities)  # type: ignore[union-attr]


#: the SI unit of a generalised coordinate by the kind of its name's last part
_ANGLE, _LENGTH = "rad", "m"
_RATE = {"rad": "rad/s", "m": "m/s", "1": "1/s", "": ""}
_FORCE = {"rad": "N m", "m": "N", "": ""}


def _coordinate_kind(name):
    """'rad', 'm', '1' (director components) or '' (unknown) from a column name ``owner.part``."""
    part = name.rsplit(".", 1)[-1]
    if part.startswith(("angle", "beta", "swing", "alpha", "phi", "psi", "theta")) or part in ("wx", "wy", "wz"):
        return _ANGLE
    if part in ("x", "y", "z", "s", "vx", "vy", "vz") or part.startswith("slide"):
        return _LENGTH
    if len(part) == 3 and part[0] == "d" and part[1] in "123" and part[2] in "xyz":
        return "1"
    return ""


def unit(name: str, quantity: str) -> str:
    """The SI unit of column ``name`` of ``quantity``: ``"q"`` (coordinate: m, rad or 1 for
    director components), ``"v"`` and ``"nu"`` (its rate: m/s, rad/s, 1/s), ``"u"`` (the
    generalised force on that coordinate: N for a translation, N m for a rotation), ``"t"``
    (s).  Read from the library's column names (``body.x``, ``body.d1x``, ``joint.angle``,
    ``joint.slide``, ``body.vx``, ``body.wx``); '' where the name does not tell.

    >>> unit("elbow.angle", "u"), unit("link1.d1x", "v"), unit("trolley.s", "nu")
    ('N m', '1/s', 'm/s')
    """
    if quantity == "t":
        return "s"
    kind = _coordinate_kind(name)
    if quantity == "q":
        return kind
    if quantity in ("v", "nu"):
        return _RATE[kind]
    if quantity == "u":
        return _FORCE.get(kind, "")
    raise ConfigurationError(f"unit: quantity must be 't', 'q', 'v', 'nu' or 'u', got {quantity!r}")


def _numeric_array(value, what):
    """``value`` as an ndarray of a numeric or boolean dtype (never copied if it is one)."""
    try:
        array = np.asarray(value)
    except Exception as err:  # pragma: no cover - numpy raises many types here
        raise ConfigurationError(f"Trajectory: {what} is not an array ({err})") from None
    if array.dtype.kind not in "biufc" or array.dtype.fields is not None:
        raise ConfigurationError(
            f"Trajectory: {what} must hold numbers (bool, int, float or complex), "
            f"got dtype {array.dtype}")
    return array


def _real_array(value, what):
    """``value`` as an ndarray of real numbers (an integer or floating dtype): the motion's
    arrays t, q, v, u and nu are real, a bool or complex array is no configuration."""
    array = _numeric_array(value, what)
    if array.dtype.kind not in "iuf":
        kind = {"b": "booleans", "c": "complex numbers"}.get(array.dtype.kind, "no real numbers")
        raise ConfigurationError(f"Trajectory: {what} must hold real numbers (an integer or floating dtype), "
                                 f"got dtype {array.dtype} ({kind})")
    return array


def _names(value, what, length, columns_of):
    if isinstance(value, str):
        raise ConfigurationError(f"Trajectory: {what} must be a sequence of names, got the string {value!r}")
    names = tuple(value)
    bad = [n for n in names if not isinstance(n, str)]
    if bad:
        raise ConfigurationError(f"Trajectory: {what} must be strings, got {bad[0]!r}")
    if len(names) != length:
        raise ConfigurationError(
            f"Trajectory: {what} has {len(names)} names but {columns_of} has {length} columns")
    seen = {}
    for column, name in enumerate(names):
        if name in seen:
            raise ConfigurationError(
                f"Trajectory: {what} must be distinct (a column is found by its name), but {name!r} names "
                f"the columns {seen[name]} and {column} of {columns_of}")
        seen[name] = column
    return names


def _check_times(t):
    """Node times: real, finite and strictly increasing (time runs forward)."""
    if t.dtype.kind not in "iuf":
        raise ConfigurationError(f"Trajectory: t must hold real node times (integers or floats), got dtype "
                                 f"{t.dtype}")
    bad = np.flatnonzero(~np.isfinite(t))
    if bad.size:
        raise ConfigurationError(f"Trajectory: the node times t must be finite; t[{bad[0]}] is {t[bad[0]].item()!r}")
    back = np.flatnonzero(t[1:] <= t[:-1])  # not np.diff: unsigned times would wrap around
    if back.size:
        k = int(back[0])
        raise ConfigurationError(
            f"Trajectory: the node times t must increase strictly (time runs forward); t[{k}] = "
            f"{t[k].item()!r} is followed by t[{k + 1}] = {t[k + 1].item()!r}")


def _check_step(metadata, t):
    """``metadata['h']``, when given, is the step size: a positive finite number (None: unknown)
    that the node times keep, ``t[k+1] - t[k] = h`` for every k (to a few rounding errors of
    ``t``'s dtype: the library writes ``t = h·k``)."""
    h = metadata.get("h")
    if h is None:
        return
    if isinstance(h, bool) or not isinstance(h, (int, float)) or not (math.isfinite(h) and h > 0):
        raise ConfigurationError(f"Trajectory: metadata['h'] is the step size and must be a positive finite "
                                 f"number (or None), got {type(h).__name__} {h!r}")
    if t.shape[0] < 2:
        return
    times = t.astype(np.float64)
    eps = np.finfo(t.dtype).eps if t.dtype.kind == "f" else np.finfo(np.float64).eps
    tolerance = 64 * eps * max(float(np.max(np.abs(times))), h)
    off = np.abs(np.diff(times) - h)
    k = int(np.argmax(off))
    if off[k] > tolerance:
        raise ConfigurationError(
            f"Trajectory: metadata['h'] = {h!r} contradicts the node times: t[{k + 1}] - t[{k}] = "
            f"{float(times[k + 1] - times[k])!r} (the grid is t_k = t_0 + k h)")


def _check_configurations(q):
    """A configuration array that holds numbers: q with entries but not one finite value
    (all NaN, say) is no motion."""
    if q.size and q.dtype.kind == "f" and not np.isfinite(q).any():
        value = "NaN" if np.isnan(q).all() else "NaN or infinite"
        raise ConfigurationError(f"Trajectory: q holds no finite number (every one of its {q.size} entries is "
                                 f"{value}): no configuration at all")


def _json_value(value, where):
    """A JSON-representable copy of ``value``: numpy scalars become Python numbers,
    tuples lists; anything else that JSON cannot hold is an error naming ``where``."""
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        value = value.item()
    if value is None:
        return value
    for kind in (bool, int, float, str):  # plain types also for subclasses (enums, np.float64)
        if isinstance(value, kind):
            return kind.__str__(value) if kind is str else kind(value)
    if isinstance(value, (list, tuple)):
        return [_json_value(x, f"{where}[{i}]") for i, x in enumerate(value)]
    if isinstance(value, dict):
        bad = [k for k in value if not isinstance(k, str)]
        if bad:
            raise ConfigurationError(f"Trajectory: metadata {where} has a key {bad[0]!r} that is not a string")
        return {k: _json_value(x, f"{where}[{k!r}]") for k, x in value.items()}
    raise ConfigurationError(
        f"Trajectory: metadata {where} = {value!r} ({type(value).__name__}) is not a JSON value "
        f"(None, bool, int, float, str, list, dict); put arrays into extras")


def _same_json(a, b):
    """Equality of JSON values in which NaN equals NaN and types must match."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    return a == b


def _same_array(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@dataclass(eq=False)
class Trajectory:
    """A solved (or simulated) trajectory with its names and metadata.

    Parameters
    ----------
    t : (N+1,) array
        Node times.
    q, v : (N+1, n) arrays
        Node configurations and velocities in the system's coordinate order.
    u : (N, n_act) array
        Interval controls on ``controls`` (u is the applied generalised force).
    nu : (N, dof) array
        Interval joint rates ν = B(q♯) v_{k+½} on ``velocities``.
    coordinates, controls, velocities : sequences of str
        Column names of q and v, of u, of nu.
    metadata : dict
        JSON values under string keys (numpy scalars are turned into Python
        numbers and tuples into lists on construction, so that what is kept is
        exactly what a load gives back).
    extras : dict of str → array
        Further named arrays of any shape (multipliers, costates, …).  Names
        are letters, digits and ``_ . -``; entries that are None are dropped.
    system : MultibodySystem, optional
        The system (or other system) of the motion; neither saved nor compared.

    Notes
    -----
    Arrays keep their dtype (``t``, ``q``, ``v``, ``u``, ``nu`` any integer or
    floating type: a motion is real, so bool and complex are refused; extras
    also bool or complex); they are not copied.  Every
    inconsistency (shapes, name counts, non-numeric data, metadata JSON cannot
    hold) raises a :class:`ConfigurationError` (a ``ValueError``) naming the
    field, and so does a motion that cannot be one: node times that are not
    finite or do not increase strictly, a ``q`` with entries but no finite one
    (all NaN), a name given to two columns of ``q``,
    ``u`` or ``nu`` (columns are found by name, e.g. by ``initialize_from``),
    or a ``metadata['h']`` that is not a positive finite number (or None) or
    that the node times contradict (``t[k+1] - t[k] ≠ h``).

    Examples
    --------
    A trajectory from the Newton stepper (three BEM steps of a driven pendulum),
    saved and loaded back:

    >>> import numpy as np
    >>> from pyomo_mbdyn.mechanics import examples
    >>> pendulum = examples.pendulum()
    >>> link = pendulum.bodies["link"]
    >>> from pyomo_mbdyn.simulate import simulate
    >>> tr = simulate(pendulum, pendulum.q0, np.zeros(12), 0.1, 3, controls=[[0.5]] * 3)
    >>> tr.steps, tr.h, tr.scheme, tr.q.shape, tr.u.shape, tr.nu.shape
    (3, 0.1, 'bem', (4, 12), (3, 1), (3, 1))
    >>> tr.coordinates[:3], tr.controls, tr.velocities
    (('link.x', 'link.y', 'link.z'), ('hinge.angle',), ('hinge.angle',))
    >>> list(tr.extras), tr.lam.shape, tr.w is None     # extras read as attributes
    (['newton_iterations', 'lam'], (3, 11), True)
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = tr.save(os.path.join(folder, "pendulum.npz"))
    ...     tr.identical(load(path))
    True
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    u: np.ndarray
    nu: np.ndarray
    coordinates: Sequence[str] = ()
    controls: Sequence[str] = ()
    velocities: Sequence[str] = ()
    metadata: dict = field(default_factory=dict)
    extras: dict = field(default_factory=dict)
    system: Any = field(default=None, repr=False)  # a MultibodySystem or HamiltonianSystem, None when loaded

    def __post_init__(self):
        for name in _ARRAYS:
            check = _numeric_array if name == "t" else _real_array  # t: _check_times names its dtype
            setattr(self, name, check(getattr(self, name), name))
        t, q, v, u, nu = (getattr(self, name) for name in _ARRAYS)
        if t.ndim != 1 or t.shape[0] < 1:
            raise ConfigurationError(f"Trajectory: t must be a 1-D array of N+1 ≥ 1 node times, got shape {t.shape}")
        N = t.shape[0] - 1
        if q.ndim != 2 or q.shape[0] != N + 1:
            raise ConfigurationError(f"Trajectory: q must have shape (N+1, n) = ({N + 1}, n), got {q.shape}")
        if v.shape != q.shape:
            raise ConfigurationError(f"Trajectory: v must have the shape of q {q.shape}, got {v.shape}")
        for name, array in (("u", u), ("nu", nu)):
            if array.ndim != 2 or array.shape[0] != N:
                raise ConfigurationError(
                    f"Trajectory: {name} must have shape (N, columns) = ({N}, ·) (one row per "
                    f"interval), got {array.shape}")
        _check_times(t)
        _check_configurations(q)
        self.coordinates = _names(self.coordinates, "coordinates", q.shape[1], "q")
        self.controls = _names(self.controls, "controls", u.shape[1], "u")
        self.velocities = _names(self.velocities, "velocities", nu.shape[1], "nu")
        if not isinstance(self.metadata, dict):
            raise ConfigurationError(f"Trajectory: metadata must be a dict, got {type(self.metadata).__name__}")
        self.metadata = _json_value(self.metadata, "metadata")
        _check_step(self.metadata, t)
        if not isinstance(self.extras, dict):
            raise ConfigurationError(f"Trajectory: extras must be a dict, got {type(self.extras).__name__}")
        extras = {}
        for key, value in self.extras.items():
            if value is None:
                continue
            if not isinstance(key, str) or not _EXTRA_NAME.fullmatch(key):
                raise ConfigurationError(
                    f"Trajectory: extras name {key!r} is not allowed (use letters, digits, _ . -)")
            extras[key] = _numeric_array(value, f"extras[{key!r}]")
        self.extras = extras

    # -- construction from a model ------------------------------------------
    @classmethod
    def of_system(cls, system: MultibodySystem | HamiltonianSystem, t: npt.ArrayLike, q: npt.ArrayLike, v: npt.ArrayLike,
                  u: npt.ArrayLike, nu: npt.ArrayLike, metadata: Mapping[str, Any] | None = None,
                  **extras: npt.ArrayLike | None) -> Trajectory:
        """A trajectory of ``system`` with the column names it defines
        (:func:`column_names`); keyword arguments are extras (None dropped)."""
        coordinates, controls, velocities = column_names(system)
        # the constructor makes the arrays of t … nu (__post_init__)
        return cls(t=t, q=q, v=v, u=u, nu=nu, coordinates=coordinates, controls=controls,  # type: ignore[arg-type]
                   velocities=velocities, metadata=dict(metadata or {}), extras=extras, system=system)

    @classmethod
    def from_block(cls, dyn: Any, extras: Mapping[str, npt.ArrayLike | None] | None = None, *, allow_unsolved: bool = False,
                   **metadata: Any) -> Trajectory:
        """``dyn.trajectory()`` of a scheme block, with more extras and metadata.

        A block that was never solved — it holds exactly the values it was built
        with and its model has no solver solution (``dyn.never_solved``) — is
        refused with a :class:`ConfigurationError` unless ``allow_unsolved=True``:
        its construction values (q_0 at every node, zero controls) are no motion.
        A block whose values were set otherwise (``initialize_from``, by hand) is
        read as it is.

        The metadata starts with ``model`` (the Pyomo model's name), ``system``,
        ``scheme``, ``steps``, ``horizon`` and ``h``; keyword arguments add to or
        override them (``solver=``, ``status=``, ``objective=``,
        ``iterations=``, or a whole result dictionary of ``pyomo-mbdyn run`` as
        ``**result``).
        """
        if not callable(getattr(dyn, "trajectory", None)) or not hasattr(dyn, "system"):
            raise ConfigurationError(f"Trajectory.from_block: {dyn!r} is not a scheme block (no trajectory())")
        if not allow_unsolved and getattr(dyn, "never_solved", False):
            raise ConfigurationError(
                f"Trajectory.from_block: the {getattr(dyn, 'scheme', '')} block {dyn.name!r} of model "
                f"{dyn.model().name!r} was never solved (it holds the values it was built with); solve it "
                "first, or pass allow_unsolved=True to read them anyway")
        trajectory = dyn.trajectory()
        trajectory.metadata.update(_json_value(metadata, "metadata"))
        trajectory.extras.update({k: _numeric_array(v, f"extras[{k!r}]") for k, v in (extras or {}).items()})
        return trajectory

    # -- attributes -------------------------------------------------------------
    def __getattr__(self, name):
        extras = self.__dict__.get("extras") or {}
        if name in extras:
            return extras[name]
        if name in _KNOWN_EXTRAS:
            return None
        raise AttributeError(f"{type(self).__name__} has no attribute or extra {name!r}")

    @property
    def h(self) -> float | None:
        """Step size: ``metadata['h']``, else ``t[1] - t[0]``."""
        if "h" in self.metadata:
            return self.metadata["h"]
        return float(self.t[1] - self.t[0]) if self.t.shape[0] > 1 else None

    @property
    def scheme(self) -> str | None:
        """``metadata['scheme']`` (None if unknown)."""
        return self.metadata.get("scheme")

    @property
    def solved(self) -> bool | None:
        """Whether the trajectory is a solver's solution: ``metadata['solved']``, which
        a scheme block's :meth:`trajectory` records (False for a block that holds its
        model's guess, was never solved or was changed after its solve; its
        ``metadata['solution_status']`` is the solver's status); None when the
        producer does not say (a simulation, an older archive)."""
        return self.metadata.get("solved")

    # -- properties -----------------------------------------------------------
    @property
    def steps(self) -> int:
        """Number of intervals N."""
        return self.t.shape[0] - 1

    def arrays(self) -> dict[str, np.ndarray]:
        """All arrays by archive member name: ``t, q, v, u, nu`` and ``extra.<name>``."""
        out = {name: getattr(self, name) for name in _ARRAYS}
        out.update({_EXTRA_PREFIX + key: value for key, value in self.extras.items()})
        return out

    def identical(self, other: object) -> bool:
        """True if ``other`` holds the same names, metadata (NaN equal to NaN) and
        arrays of the same dtype, shape and bytes."""
        if not isinstance(other, Trajectory):
            return False
        mine, theirs = self.arrays(), other.arrays()
        return (self.coordinates == other.coordinates and self.controls == other.controls
                and self.velocities == other.velocities and mine.keys() == theirs.keys()
                and all(_same_array(mine[k], theirs[k]) for k in mine)
                and _same_json(self.metadata, other.metadata))

    # -- files -----------------------------------------------------------------
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the ``.npz`` archive ``path`` (``.npz`` is appended if missing);
        return the path written.

        The write is atomic (:func:`~pyomo_mbdyn.atomic.atomic_write`): a reader of
        ``path`` sees the old archive or the whole new one, whoever else saves
        there at the same time; a failed write (a full disk) raises
        :class:`~pyomo_mbdyn.errors.DestinationError` and leaves the old archive
        as it was.  A destination that cannot be written is refused before
        anything is written (:func:`archive_path`: a device such as ``/dev/full``, a
        directory, a missing directory, a read-only place; a path that is not a str,
        bytes or ``os.PathLike`` is an :class:`~pyomo_mbdyn.errors.InputTypeError`)."""
        path = archive_path(path)
        header = {"format": FORMAT, "version": FORMAT_VERSION, "coordinates": list(self.coordinates),
                  "controls": list(self.controls), "velocities": list(self.velocities),
                  "extras": list(self.extras), "metadata": self.metadata}
        with atomic_write(path, "wb", what="results file") as f:
            # numpy's stubs read the arrays given by keyword as savez's allow_pickle
            np.savez(f, **{_HEADER: np.array(json.dumps(header, allow_nan=True))}, **self.arrays())  # type: ignore[arg-type]
        return path

    @classmethod
    def load(cls, path: str | bytes | os.PathLike[str], *, max_bytes: int | None = None) -> Trajectory:
        """Read an archive written by :meth:`save` (no pickles are read).

        ``path`` is a str, bytes (decoded as the file system does) or an
        ``os.PathLike``; anything else is an
        :class:`~pyomo_mbdyn.errors.InputTypeError` (a ``TypeError``).

        Raises :class:`~pyomo_mbdyn.errors.MissingFileError` (a
        ``FileNotFoundError``) when ``path`` does not exist and
        :class:`~pyomo_mbdyn.errors.ResultsFileError` (a ``ValueError``) naming
        the file when it is not such an archive: a directory, a named pipe, a
        device or another non-regular file (refused before it is opened: reading a
        named pipe would wait for a writer), a text file, a ``.npy`` array, a
        truncated or corrupted zip, an ``.npz`` of someone else's arrays, another
        format version or a version that is not an integer (``true`` is not 1),
        arrays that are no motion (complex or bool t, q, v, u, nu; object or
        structured dtypes anywhere; q with no finite entry; a ``metadata['h']``
        the node times contradict).

        **Size limit.**  Before any array is inflated, every member's ``.npy`` header is
        read from the zip stream (a few hundred bytes) and its declared shape × item
        size counted; a member, or all of them together, declaring more than
        ``max_bytes`` is refused by name (a 1.5 MB deflated file can declare 1.6 GB
        of zeros), and so is a motion array whose declared shape does not fit the
        declared length of ``t`` and the names in the header.  ``max_bytes``
        defaults to half the memory available now (:func:`available_memory`:
        ``MemAvailable`` of ``/proc/meminfo``, else ``os.sysconf``); pass a larger
        value to read a larger archive on purpose.  A
        member whose zip entry does not hold exactly its header's bytes (a header that
        lies about the data) and a member that is not a ``.npy`` array are refused too.

        A trajectory whose metadata says it is not a solver's solution
        (``solved: false``, a block saved with its guess) loads with a
        :class:`~pyomo_mbdyn.errors.ModellingWarning` saying so; ``trajectory.solved``
        tells it (:attr:`solved`)."""
        path = _file_path(path, "results.load")
        limit = _byte_limit(max_bytes)
        kind = file_kind(path)
        if kind is None:
            raise MissingFileError(f"no results file {str(path)!r}")
        if kind == "a directory":
            raise ResultsFileError(f"{path}: is a directory, not a results archive")
        if kind != "a regular file":
            raise ResultsFileError(f"{path}: is {kind}, not a results archive (a regular .npz file)")
        try:
            stream = open(path, "rb")
        except OSError as err:
            raise ResultsFileError(f"{path}: cannot be read: {err.strerror or err}") from None
        with stream:
            shapes = {}
            if zipfile.is_zipfile(stream):  # a .npy or text file is refused by np.load below, as before
                shapes = _check_members(path, stream, limit)
            stream.seek(0)
            trajectory = cls._read(path, stream, shapes)
        if trajectory.solved is False:
            warnings.warn(
                f"{path}: this trajectory is not a solver's solution (metadata solved: false, solution status "
                f"{trajectory.metadata.get('solution_status')!r}): it holds the values its block had, e.g. the "
                "model's guess", ModellingWarning, stacklevel=3)
        return trajectory

    @classmethod
    def _read(cls, path, stream, shapes):
        """The trajectory in the archive open as ``stream`` (its members checked; ``shapes``
        the shapes their headers declare, by array name)."""
        try:
            archive = np.load(stream, allow_pickle=False)
        except Exception as err:  # numpy raises OSError, ValueError, EOFError, BadZipFile … here
            raise ResultsFileError(
                f"{path}: not a results archive (.npz written by Trajectory.save); numpy cannot read it as "
                f"one: {type(err).__name__}: {err}") from None
        if not hasattr(archive, "files"):  # a single .npy array
            raise ResultsFileError(f"{path}: a single numpy array, not a results archive (.npz written by "
                                   "Trajectory.save)")
        with archive:
            if _HEADER not in archive.files:
                raise ResultsFileError(f"{path}: not a SolvedTrajectory archive (no {_HEADER!r} member)")
            try:
                header = json.loads(str(archive[_HEADER][()]))
                if not isinstance(header, dict):
                    raise ValueError(f"the header is a JSON {type(header).__name__}, not an object")
                version = header.get("version")
                if header.get("format") == FORMAT and type(version) is not int:  # True == 1 in Python
                    raise ResultsFileError(
                        f"{path}: format version {json.dumps(version)} ({type(version).__name__}) is not an "
                        f"integer; this library reads {FORMAT!r} version {FORMAT_VERSION}")
                if header.get("format") == FORMAT and version == 1:
                    raise ResultsFileError(
                        f"{path}: format version 1, written before the controls became the applied "
                        f"forces: its u has the opposite sign (minus the applied force, the thesis's); "
                        f"solve again to write version {FORMAT_VERSION}")
                if header.get("format") != FORMAT or version != FORMAT_VERSION:
                    raise ResultsFileError(
                        f"{path}: format {header.get('format')!r} version {version!r}; "
                        f"this library reads {FORMAT!r} version {FORMAT_VERSION}")
                missing = [n for n in (*_ARRAYS, *(_EXTRA_PREFIX + k for k in header["extras"]))
                           if n not in archive.files]
                if missing:
                    raise ResultsFileError(f"{path}: archive lacks the arrays {missing}")
                _check_shapes(path, shapes, header)  # before inflating the motion's arrays
                arrays = {name: archive[name] for name in _ARRAYS}
                extras = {key: archive[_EXTRA_PREFIX + key] for key in header["extras"]}
                fields = {key: header[key] for key in ("coordinates", "controls", "velocities", "metadata")}
            except ResultsFileError:
                raise
            except Exception as err:  # truncated or corrupted members, a header of another layout
                what = f"header lacks {err}" if isinstance(err, KeyError) else f"{type(err).__name__}: {err}"
                raise ResultsFileError(f"{path}: corrupted or not written by Trajectory.save ({what})") from None
        try:
            return cls(**arrays, **fields, extras=extras)
        except ConfigurationError as err:
            raise ResultsFileError(f"{path}: inconsistent archive: {err}") from None

    # -- tables -------------------------------------------------------------------
    def to_dataframe(self) -> pd.DataFrame:
        """A pandas DataFrame indexed by node k with two-level columns:
        ``("t", "")``, ``("q", coordinate)``, ``("v", coordinate)``,
        ``("u", control)``, ``("nu", velocity)`` and, for every extra of shape
        (N+1,), (N+1, m), (N,) or (N, m), ``(name, column index)``.  Interval
        quantities (u, nu, and extras with N rows) stand at the node that
        starts their interval; the last node holds NaN.  Other extras are left
        out."""
        import pandas as pd

        N = self.steps

        def node_rows(a):
            a = a.reshape(a.shape[0], -1)
            if a.shape[0] == N + 1:
                return a
            padded = np.full((N + 1, a.shape[1]), np.nan, dtype=np.result_type(a.dtype, float))
            padded[:N] = a
            return padded

        blocks = [pd.DataFrame({("t", ""): self.t})]
        for group, names in (("q", self.coordinates), ("v", self.coordinates), ("u", self.controls),
                             ("nu", self.velocities)):
            data = node_rows(getattr(self, group))
            blocks.append(pd.DataFrame(data, columns=pd.MultiIndex.from_tuples([(group, n) for n in names])))
        for key, value in self.extras.items():
            if value.ndim in (1, 2) and value.shape[0] in (N, N + 1):
                data = node_rows(value)
                columns = pd.MultiIndex.from_tuples([(key, str(j)) for j in range(data.shape[1])])
                blocks.append(pd.DataFrame(data, columns=columns))
        table = pd.concat(blocks, axis=1)
        table.index.name = "k"
        return table

    def units(self) -> dict[str, Any]:
        """``{"t": "s", "q": {coordinate: unit}, "v": …, "u": …, "nu": …}`` (:func:`unit`)."""
        out: dict[str, Any] = {"t": "s"}
        for group, names in (("q", self.coordinates), ("v", self.coordinates), ("u", self.controls),
                             ("nu", self.velocities)):
            out[group] = {name: unit(name, group) for name in names}
        return out

    def to_xarray(self) -> xr.Dataset:
        """An ``xarray.Dataset``: ``q``, ``v`` over (``t``, ``coordinate``), ``u`` over
        (``interval``, ``control``), ``nu`` over (``interval``, ``velocity``), extras of
        N+1 or N rows over ``t`` or ``interval`` (and ``<name>_column``).  The interval
        dimension carries ``t_start`` and ``t_end``; every column dimension its units
        (coordinate ``unit``: ``q_unit``, ``v_unit``, …), every variable ``long_name``
        and, where one unit holds for all its columns, ``units``; the metadata are the
        Dataset's attributes (nested values as JSON text, so that ``to_netcdf`` writes them).

        Requires ``xarray`` (a dependency of pyomo_mbdyn).
        """
        import xarray as xr

        N = self.steps
        units = self.units()
        coords = {"t": ("t", self.t, {"units": "s", "long_name": "node time"}),
                  "t_start": ("interval", self.t[:-1], {"units": "s", "long_name": "interval start"}),
                  "t_end": ("interval", self.t[1:], {"units": "s", "long_name": "interval end"}),
                  "coordinate": list(self.coordinates), "control": list(self.controls),
                  "velocity": list(self.velocities),
                  "q_unit": ("coordinate", [units["q"][c] for c in self.coordinates]),
                  "v_unit": ("coordinate", [units["v"][c] for c in self.coordinates]),
                  "u_unit": ("control", [units["u"][c] for c in self.controls]),
                  "nu_unit": ("velocity", [units["nu"][c] for c in self.velocities])}
        long_names = {"q": "node configuration", "v": "node velocity",
                      "u": "interval control (the applied generalised force)",
                      "nu": "interval joint rate"}
        data: dict[str, Any] = {}
        for group, dims in (("q", ("t", "coordinate")), ("v", ("t", "coordinate")),
                            ("u", ("interval", "control")), ("nu", ("interval", "velocity"))):
            attrs: dict[str, Any] = {"long_name": long_names[group]}
            column_units = set(units[group].values())
            if len(column_units) == 1:
                attrs["units"] = column_units.pop()
            data[group] = (dims, getattr(self, group), attrs)
        for key, value in self.extras.items():
            if value.ndim in (1, 2) and value.shape[0] in (N, N + 1):
                row = "t" if value.shape[0] == N + 1 else "interval"
                if value.ndim == 1:
                    data[key] = ((row,), value)
                else:
                    data[key] = ((row, f"{key}_column"), value)
        attrs = {k: (v if isinstance(v, (str, int, float)) and not isinstance(v, bool) else json.dumps(v))
                 for k, v in self.metadata.items()}
        return xr.Dataset(data, coords=coords, attrs=attrs)

    def diagnostics(self) -> pd.DataFrame:
        """Per-node conservation table of this trajectory (T, V, W, D, E, momenta, constraint
        residual; :func:`pyomo_mbdyn.diagnostics.trajectory_table`).  Needs ``system``."""
        from .diagnostics import trajectory_table

        if self.system is None:
            raise ConfigurationError("Trajectory.diagnostics: the trajectory has no system (a loaded archive): "
                                     "set trajectory.system = the MultibodySystem it belongs to")
        return trajectory_table(self)


def load(path: str | bytes | os.PathLike[str], *, max_bytes: int | None = None) -> Trajectory:
    """:meth:`Trajectory.load`."""
    return Trajectory.load(path, max_bytes=max_bytes)


def _file_path(path: Any, what: str) -> Path:
    """``path`` (str, bytes or ``os.PathLike``) as a :class:`~pathlib.Path`; anything else is an
    InputTypeError naming ``what``, a path with a NUL character a ConfigurationError."""
    try:
        name = os.fspath(path)
    except TypeError:
        raise InputTypeError(f"{what}: the path must be a str, bytes or os.PathLike, got "
                             f"{type(path).__name__} {path!r}") from None
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    if "\0" in name:
        raise ConfigurationError(f"{what}: the path {name!r} holds a NUL character")
    if not name:
        raise ConfigurationError(f"{what}: the path is empty")
    return Path(name)


def archive_path(path: str | os.PathLike[str]) -> Path:
    """The ``.npz`` file :meth:`Trajectory.save` writes for ``path``, checked before anything
    is computed or written: ``.npz`` is appended when missing, but only to a name that is
    free or a regular file: a device (``/dev/full``), a directory, a named pipe or a socket
    given as ``path`` is refused with a :class:`~pyomo_mbdyn.errors.DestinationError`
    (an ``OSError``) naming it, not turned into ``/dev/full.npz`` beside it; then
    :func:`~pyomo_mbdyn.atomic.check_destination` refuses what cannot be written.

    >>> archive_path("/dev/null")
    Traceback (most recent call last):
        ...
    pyomo_mbdyn.errors.DestinationError: cannot write the results file '/dev/null': it is a character device, not a regular file
    """
    path = _file_path(path, "results file")
    kind = file_kind(path)
    if kind == "a directory":
        raise DestinationError(f"cannot write the results file {str(path)!r}: it is a directory; give a file name")
    if kind not in (None, "a regular file"):
        raise DestinationError(f"cannot write the results file {str(path)!r}: it is {kind}, not a regular file")
    if path.suffix != ".npz":
        path = path.with_name(path.name + ".npz")
    return check_destination(path, "results file")


#: the share of the available memory an archive may declare by default (Trajectory.load)
MEMORY_SHARE = 0.5


def available_memory() -> int | None:
    """Bytes of memory available now: ``MemAvailable`` of ``/proc/meminfo`` (Linux), else
    ``os.sysconf('SC_AVPHYS_PAGES') × SC_PAGE_SIZE``; None where neither tells.

    >>> memory = available_memory()
    >>> memory is None or memory > 0
    True
    """
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _byte_limit(max_bytes):
    """The byte limit of a load: ``max_bytes`` (a positive integer), or by default
    :data:`MEMORY_SHARE` of :func:`available_memory` (1 GiB where it is unknown)."""
    if max_bytes is None:
        memory = available_memory()
        return int(MEMORY_SHARE * memory) if memory else 2**30
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, np.integer)) or max_bytes <= 0:
        raise ConfigurationError(f"results.load: max_bytes must be a positive integer (bytes), got "
                                 f"{type(max_bytes).__name__} {max_bytes!r}")
    return int(max_bytes)


def _size(n):
    """``n`` bytes for a message: '1.6 GB (1600000000 bytes)'."""
    for unit_name, scale in (("EB", 1e18), ("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit_name} ({n} bytes)"
    return f"{n} bytes"


def _member_header(path, archive, info):
    """(dtype, shape, header length) of the ``.npy`` member ``info``, read from the zip
    stream without inflating the data (numpy's header readers take the first bytes only)."""
    name = info.filename
    try:
        with archive.open(info) as member:
            version = np.lib.format.read_magic(member)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(member)
            elif version == (2, 0):
                shape, _, dtype = np.lib.format.read_array_header_2_0(member)
            else:
                raise ValueError(f".npy format version {version} (Trajectory.save writes 1.0 or 2.0)")
            return dtype, shape, member.tell()
    except Exception as err:  # not a .npy member, a corrupted or truncated stream, a header numpy refuses
        raise ResultsFileError(f"{path}: corrupted or not written by Trajectory.save ({type(err).__name__}: "
                               f"{err}; the member {name!r} is not a readable .npy array)") from None


def _check_shapes(path, shapes, header):
    """Refuse, before inflating them, motion arrays whose declared shapes do not fit the node
    times and the names in the header: q and v (N+1, n coordinates), u (N, controls), nu
    (N, velocities), N+1 the declared length of t (a bomb declares a q far longer than t)."""
    t = shapes.get("t")
    if t is None or len(t) != 1 or t[0] < 1:
        return  # the constructor names what is wrong with t
    nodes = t[0]
    columns = {key: len(header[names]) if isinstance(header.get(names), list) else None
               for key, names in (("q", "coordinates"), ("v", "coordinates"), ("u", "controls"),
                                  ("nu", "velocities"))}
    for key, names in (("q", "coordinates"), ("v", "coordinates"), ("u", "controls"), ("nu", "velocities")):
        rows = nodes if key in ("q", "v") else nodes - 1
        expected = (rows, columns[key])
        declared = tuple(shapes.get(key, ()))
        if columns[key] is not None and declared != expected:
            raise ResultsFileError(
                f"{path}: the array {key!r} declares the shape {declared}, but t has {nodes} nodes and the header "
                f"names {columns[key]} {names}: expected {expected}; refused before inflating it")


def _check_members(path, stream, limit):
    """Refuse, before numpy inflates anything, an archive whose members declare more than
    ``limit`` bytes (each, or together), hold another dtype than a results archive may, or
    do not hold what their ``.npy`` header declares."""
    try:
        archive = zipfile.ZipFile(stream)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as err:
        raise ResultsFileError(f"{path}: not a results archive (.npz written by Trajectory.save): a corrupted "
                               f"zip ({type(err).__name__}: {err})") from None
    shapes = {}
    with archive:
        total = 0
        for info in archive.infolist():
            name = info.filename
            if not name.endswith(".npy"):
                raise ResultsFileError(f"{path}: the member {name!r} is not a .npy array (an archive written by "
                                       "Trajectory.save holds .npy members only)")
            dtype, shape, header_length = _member_header(path, archive, info)
            key = name[:-len(".npy")]
            if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
                raise ResultsFileError(f"{path}: the member {name!r} has the dtype {dtype} (objects or "
                                       "fields); a results archive holds numbers only")
            if key in _ARRAYS and dtype.kind not in "iuf":
                raise ResultsFileError(f"{path}: the array {key!r} has the dtype {dtype}; t, q, v, u and nu "
                                       "hold real numbers (an integer or floating dtype), not booleans or "
                                       "complex numbers")
            if key == _HEADER and dtype.kind != "U":
                raise ResultsFileError(f"{path}: the member {name!r} has the dtype {dtype}, not a string")
            if key not in (_HEADER, *_ARRAYS) and dtype.kind not in "biufc":
                raise ResultsFileError(f"{path}: the member {name!r} has the dtype {dtype}; extras hold numbers")
            shapes[key] = tuple(shape)
            declared = math.prod(shape) * dtype.itemsize  # Python integers: no overflow
            total += declared
            if declared > limit or total > limit:
                what = (f"the member {name!r} declares a {dtype} array of shape {tuple(shape)}, {_size(declared)}"
                        if declared > limit else f"its members declare {_size(total)} together")
                raise ResultsFileError(
                    f"{path}: {what}: more than the limit max_bytes = {_size(limit)} (by default half the "
                    "memory available now); refused before inflating anything. Pass max_bytes= to "
                    "results.load to read a larger archive on purpose")
            if info.file_size != header_length + declared:
                raise ResultsFileError(
                    f"{path}: the member {name!r} declares a {dtype} array of shape {tuple(shape)} "
                    f"({header_length} + {declared} bytes) but its zip entry holds {info.file_size} bytes: "
                    "corrupted, or a header that lies about the data")
    return shapes
