"""Results archives that are hostile or are no solution (issue 46, items 4 and 8).

* a decompression bomb (a small deflated ``.npz`` whose ``q.npy`` declares a huge array)
  is refused by name from the ``.npy`` headers alone, before anything is inflated: the
  peak of traced memory stays far below the declared size;
* the limit is exact (the declared bytes of a saved archive: it loads at that limit and
  is refused one byte below), defaults to a share of the available memory and can be
  raised by ``max_bytes``;
* a header that lies about its data, non-``.npy`` and object members, complex or bool
  motion arrays, an all-NaN q, a step ``h`` the times contradict and a version that is
  not an integer are refused by name;
* paths: bytes and ``os.PathLike`` are paths, anything else a TypeError by name; a
  device, pipe or directory given to ``save`` is refused (no ``/dev/full.npz``), and
  ``pyomo-mbdyn run --save`` then exits 1 naming it;
* a block that holds its model's guess saves with ``solved: false`` and loads with a
  warning; a solved block saves ``solved: true`` and its solver's status.
"""

import dataclasses
import io
import json
import math
import os
import re
import tracemalloc
import warnings
import zipfile

import numpy as np
import pytest

import pyomo_mbdyn.trajectory as trajectory_module
from pyomo_mbdyn.cli import main
from pyomo_mbdyn.errors import (ConfigurationError, DestinationError, InputTypeError, ModellingWarning,
                                ResultsFileError)
from pyomo_mbdyn.results import SolvedTrajectory, load

MB = 10**6


def _trajectory(N=3, n=2, **kwds):
    rng = np.random.default_rng(1)
    fields = dict(t=0.25 * np.arange(N + 1), q=rng.normal(size=(N + 1, n)), v=rng.normal(size=(N + 1, n)),
                  u=rng.normal(size=(N, 1)), nu=rng.normal(size=(N, n)),
                  coordinates=[f"c{i}" for i in range(n)], controls=["a0"],
                  velocities=[f"w{i}" for i in range(n)], metadata={"model": "test", "h": 0.25})
    fields.update(kwds)
    return SolvedTrajectory(**fields)


def _npy_header(dtype, shape):
    """The bytes of a version 1.0 .npy header declaring ``shape`` of ``dtype``."""
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                                               "fortran_order": False, "shape": tuple(shape)})
    return out.getvalue()


def _members(path):
    """The members of an archive as raw bytes, by name."""
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _write_zip(path, members, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _npy(array):
    out = io.BytesIO()
    np.save(out, array, allow_pickle=False)
    return out.getvalue()


def _header(path):
    with np.load(path) as archive:
        return json.loads(str(archive["header"][()]))


def _with_header(path, target, **changes):
    """A copy of archive ``path`` at ``target`` with its JSON header entries changed."""
    members = _members(path)
    header = {**_header(path), **changes}
    members["header.npy"] = _npy(np.array(json.dumps(header)))
    return _write_zip(target, members)


def _bomb(path, declared_bytes, chunk=MB):
    """A valid archive of a 3-step trajectory whose q.npy is replaced by a deflated member
    declaring ``declared_bytes`` of zeros (written in chunks: the test never holds them)."""
    good = _trajectory().save(path.with_name("good.npz"))
    members = _members(good)
    rows = declared_bytes // (8 * 2)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data in members.items():
            if name != "q.npy":
                archive.writestr(name, data)
        with archive.open("q.npy", "w", force_zip64=True) as member:
            member.write(_npy_header("<f8", (rows, 2)))
            zeros = bytes(chunk)
            left = rows * 16
            while left:
                member.write(zeros[:min(chunk, left)])
                left -= min(chunk, left)
    return path


def _refused_lean(path, match, **kwds):
    """load refuses ``path`` with ``match``; the traced peak memory of the attempt stays under 1 MB."""
    tracemalloc.start()
    try:
        with pytest.raises(ResultsFileError, match=match):
            load(path, **kwds)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MB, f"the refusal allocated {peak} bytes"


# -- the decompression bomb (item 4) ------------------------------------------------------

def test_a_decompression_bomb_is_refused_before_inflating(tmp_path):
    path = _bomb(tmp_path / "bomb.npz", 64 * MB)
    assert path.stat().st_size < MB < 64 * MB  # small on disk, large when inflated
    _refused_lean(path, r"the member 'q.npy' declares a float64 array of shape \(4000000, 2\), 64 MB "
                        r"\(64000000 bytes\): more than the limit max_bytes = 10 MB", max_bytes=10 * MB)


def test_the_default_limit_is_half_the_available_memory(tmp_path, monkeypatch):
    path = _bomb(tmp_path / "bomb.npz", 64 * MB)
    monkeypatch.setattr(trajectory_module, "available_memory", lambda: 100 * MB)
    _refused_lean(path, r"more than the limit max_bytes = 50 MB .*by default half the memory available")
    N = 12_000  # about 0.8 MB declared: refused with 1 MB available, read with 2 MB
    traj = _trajectory(N=N, metadata={"model": "long"})
    saved = traj.save(tmp_path / "long.npz")
    declared = sum(a.nbytes for a in traj.arrays().values())
    assert 0.5 * MB < declared < MB
    monkeypatch.setattr(trajectory_module, "available_memory", lambda: MB)
    with pytest.raises(ResultsFileError, match=r"more than the limit max_bytes = 500 kB"):
        load(saved)
    monkeypatch.setattr(trajectory_module, "available_memory", lambda: 2 * MB)
    assert load(saved).identical(traj)


def test_a_bomb_longer_than_its_times_is_refused_at_any_limit(tmp_path):
    """q declares 4 000 000 nodes where t has 4: refused from the headers, not inflated."""
    path = _bomb(tmp_path / "bomb.npz", 64 * MB)
    _refused_lean(path, r"the array 'q' declares the shape \(4000000, 2\), but t has 4 nodes and the header "
                        r"names 2 coordinates: expected \(4, 2\); refused before inflating it", max_bytes=10**12)


def test_a_declaration_beyond_any_memory_is_refused_by_default(tmp_path):
    """2^62 float64 entries (3.7e19 bytes): more than half of any machine's memory."""
    members = _members(_trajectory().save(tmp_path / "good.npz"))
    members["q.npy"] = _npy_header("<f8", (2**61, 2)) + bytes(64)
    _refused_lean(_write_zip(tmp_path / "huge.npz", members),
                  r"'q.npy' declares a float64 array of shape \(2305843009213693952, 2\), 36.9 EB")


def test_the_limit_counts_the_declared_bytes_exactly(tmp_path):
    traj = _trajectory(extras={"lam": np.ones((3, 4))})
    path = traj.save(tmp_path / "exact.npz")
    header_bytes = np.dtype(f"<U{len(json.dumps(_header(path)))}").itemsize
    total = sum(a.nbytes for a in traj.arrays().values()) + header_bytes
    assert load(path, max_bytes=total).identical(traj)
    with pytest.raises(ResultsFileError, match=rf"its members declare [\d.]+ kB \({total} bytes\) together: more "
                                               rf"than the limit max_bytes = [\d.]+ kB \({total - 1} bytes\)"):
        load(path, max_bytes=total - 1)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "1e9"])
def test_max_bytes_must_be_a_positive_integer(tmp_path, bad):
    path = _trajectory().save(tmp_path / "a.npz")
    with pytest.raises(ConfigurationError, match=f"max_bytes must be a positive integer.*{type(bad).__name__}"):
        load(path, max_bytes=bad)


def test_a_header_that_lies_about_its_data_is_refused(tmp_path):
    members = _members(_trajectory().save(tmp_path / "good.npz"))
    members["q.npy"] = _npy_header("<f8", (4, 1000)) + bytes(64)  # declares 32 000 bytes, holds 64
    _refused_lean(_write_zip(tmp_path / "liar.npz", members),
                  r"'q.npy' declares a float64 array of shape \(4, 1000\) \(\d+ \+ 32000 bytes\) but its zip "
                  r"entry holds \d+ bytes: corrupted, or a header that lies")


def test_members_that_are_not_npy_arrays_are_refused(tmp_path):
    members = _members(_trajectory().save(tmp_path / "good.npz"))
    _write_zip(tmp_path / "extra.npz", {**members, "notes.txt": bytes(100)})
    with pytest.raises(ResultsFileError, match=r"the member 'notes.txt' is not a .npy array"):
        load(tmp_path / "extra.npz")
    members["q.npy"] = b"not an array at all"
    with pytest.raises(ResultsFileError, match=r"corrupted or not written by Trajectory.save \(ValueError: .*; "
                                               r"the member 'q.npy' is not a readable .npy array\)"):
        load(_write_zip(tmp_path / "text.npz", members))


def test_an_object_member_is_refused_without_unpickling(tmp_path):
    members = _members(_trajectory(extras={"lam": np.ones(2)}).save(tmp_path / "good.npz"))
    out = io.BytesIO()
    np.save(out, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    members["extra.lam.npy"] = out.getvalue()
    with pytest.raises(ResultsFileError, match=r"'extra.lam.npy' has the dtype object"):
        load(_write_zip(tmp_path / "pickle.npz", members))


# -- arrays and metadata that are no motion (item 8) ------------------------------------

@pytest.mark.parametrize("name, array, match", [
    ("q", np.zeros((4, 2), dtype=complex), r"the array 'q' has the dtype complex128"),
    ("u", np.zeros((3, 1), dtype=bool), r"the array 'u' has the dtype bool"),
    ("t", np.arange(4, dtype=np.complex64), r"the array 't' has the dtype complex64"),
])
def test_complex_and_bool_motion_arrays_are_refused(tmp_path, name, array, match):
    members = _members(_trajectory().save(tmp_path / "good.npz"))
    members[f"{name}.npy"] = _npy(array)
    with pytest.raises(ResultsFileError, match=match + r"; t, q, v, u and nu hold real numbers"):
        load(_write_zip(tmp_path / "bad.npz", members))
    said = {"t": "t must hold real node times"}.get(name, f"{name} must hold real numbers")
    with pytest.raises(ConfigurationError, match=rf"{said} .*got dtype {array.dtype}"):
        _trajectory(**{name: array})  # nor can such a trajectory be made (and saved)


def test_extras_keep_bool_and_complex(tmp_path):
    traj = _trajectory(extras={"mask": np.array([True, False]), "costate": np.array([1 + 2j])})
    assert load(traj.save(tmp_path / "extras.npz")).identical(traj)


def test_an_all_nan_q_is_refused(tmp_path):
    members = _members(_trajectory().save(tmp_path / "good.npz"))
    members["q.npy"] = _npy(np.full((4, 2), np.nan))
    with pytest.raises(ResultsFileError, match=r"q holds no finite number \(every one of its 8 entries is NaN\)"):
        load(_write_zip(tmp_path / "nan.npz", members))
    with pytest.raises(ConfigurationError, match="q holds no finite number"):
        _trajectory(q=np.full((4, 2), np.nan))
    partly = np.zeros((4, 2))
    partly[1:] = np.nan  # one finite entry: a (poor) motion, still readable
    assert load(_trajectory(q=partly).save(tmp_path / "partly.npz")).q[0, 0] == 0.0


@pytest.mark.parametrize("h, match", [
    (0.3, r"metadata\['h'\] = 0.3 contradicts the node times: t\[1\] - t\[0\] = 0.25"),
    (0.125, r"metadata\['h'\] = 0.125 contradicts"),
])
def test_a_step_that_contradicts_the_times_is_refused(tmp_path, h, match):
    path = _trajectory().save(tmp_path / "good.npz")
    metadata = {**_header(path)["metadata"], "h": h}
    with pytest.raises(ResultsFileError, match=match):
        load(_with_header(path, tmp_path / "h.npz", metadata=metadata))
    with pytest.raises(ConfigurationError, match=match):
        _trajectory(metadata={"h": h})


def test_a_step_kept_to_rounding_is_accepted():
    h = 0.1
    t = h * np.arange(1001)  # t_k = h k, as the library writes it: differences off h by rounding only
    assert not np.all(np.diff(t) == h)
    traj = _trajectory(N=1000, t=t, metadata={"h": h})
    assert traj.h == h


@pytest.mark.parametrize("version, shown", [(True, "true (bool)"), (2.0, "2.0 (float)"), ("2", '"2" (str)'),
                                            (None, "null (NoneType)")])
def test_a_version_that_is_not_an_integer_is_refused(tmp_path, version, shown):
    path = _trajectory().save(tmp_path / "good.npz")
    bad = _with_header(path, tmp_path / "v.npz", version=version)
    with pytest.raises(ResultsFileError, match=re.escape(f"format version {shown} is not an integer")):
        load(bad)


# -- paths ---------------------------------------------------------------------------------

def test_bytes_and_pathlike_paths(tmp_path):
    traj = _trajectory()
    written = traj.save(os.fsencode(tmp_path / "b"))  # bytes, as os.listdir(bytes) gives names
    assert written == tmp_path / "b.npz"
    assert load(os.fsencode(written)).identical(traj)

    class Where:
        def __fspath__(self):
            return str(written)

    assert load(Where()).identical(traj)


@pytest.mark.parametrize("bad", [3, None, ["a.npz"]])
def test_a_path_of_another_type_is_a_type_error_by_name(tmp_path, bad):
    with pytest.raises(InputTypeError, match=rf"results.load: the path must be a str, bytes or os.PathLike, "
                                             rf"got {type(bad).__name__}"):
        load(bad)
    with pytest.raises(TypeError, match="results file: the path must be"):
        _trajectory().save(bad)


def test_save_refuses_devices_pipes_and_directories(tmp_path):
    traj = _trajectory()
    with pytest.raises(DestinationError, match=r"'/dev/null': it is a character device, not a regular file"):
        traj.save("/dev/null")
    assert not os.path.exists("/dev/null.npz")
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(DestinationError, match=r"pipe': it is a named pipe \(FIFO\), not a regular file"):
        traj.save(tmp_path / "pipe")
    (tmp_path / "out").mkdir()
    with pytest.raises(DestinationError, match=r"out': it is a directory; give a file name"):
        traj.save(tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "pipe"]  # nothing written beside them


def test_cli_save_to_a_device_fails_by_name(capsys):
    """``run --save /dev/null``: the solve stands (printed), the save fails by name, exit 1."""
    assert main(["run", "particle", "--save", "/dev/null", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] in ("optimal", "locallyOptimal") and "saved" not in out
    assert out["error"] == ("--save /dev/null: DestinationError: cannot write the results file '/dev/null': "
                            "it is a character device, not a regular file")
    assert not os.path.exists("/dev/null.npz")


# -- a block's guess is no solution (item 8) ----------------------------------------------

@pytest.fixture(scope="module")
def particle():
    from pyomo_mbdyn.models import particle

    return particle


def test_a_block_holding_its_guess_saves_as_no_solution(tmp_path, particle):
    model = particle.build(steps=10)
    assert not model.dyn.never_solved  # started from the model's guess: from_block reads it
    traj = SolvedTrajectory.from_block(model.dyn)
    assert (traj.solved, traj.metadata["solution_status"]) == (False, None)
    path = traj.save(tmp_path / "guess.npz")
    with pytest.warns(ModellingWarning, match=r"guess.npz: this trajectory is not a solver's solution"):
        back = load(path)
    assert back.solved is False
    from pyomo_mbdyn.plotting.html_view import _default_title

    assert "not a solution" in _default_title(back, model.dyn.system)


def test_a_solved_block_saves_as_a_solution_until_it_is_changed(tmp_path, particle):
    import pyomo.environ as pyo

    from pyomo_mbdyn.solvers import get_solver

    model = particle.build(steps=10)
    result = get_solver("casadi_ipopt").solve(model)
    assert str(result.solver.termination_condition) == "optimal"
    traj = SolvedTrajectory.from_block(model.dyn)
    assert (traj.solved, traj.metadata["solution_status"]) == (True, "optimal")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ModellingWarning)
        assert load(traj.save(tmp_path / "solved.npz")).solved is True
    var = next(v for v in model.dyn.component_data_objects(pyo.Var) if not v.fixed)
    solved_value = var.value
    var.set_value(solved_value + 1.0)  # no longer the solver's point
    assert model.dyn.trajectory().metadata["solved"] is False
    var.set_value(solved_value)
    assert model.dyn.solution_status == "optimal"


def test_an_interpolated_guess_says_it_is_no_solution():
    from pyomo_mbdyn.mechanics import examples
    from pyomo_mbdyn.ocp import interpolated_trajectory

    pendulum = examples.pendulum()
    guess = interpolated_trajectory(pendulum, 0.25, 4, [1.0])
    assert guess.solved is False and math.isclose(guess.h, 0.25)


def test_the_conservation_figure_of_a_guess_says_it_is_no_solution():
    import matplotlib

    matplotlib.use("Agg")
    from pyomo_mbdyn.diagnostics import trajectory_table
    from pyomo_mbdyn.mechanics import examples
    from pyomo_mbdyn.plotting import plot_conservation
    from pyomo_mbdyn.simulate import simulate

    pendulum = examples.pendulum()
    motion = simulate(pendulum, pendulum.q0, np.zeros(pendulum.n), 0.1, 3, controls=[[-0.5]] * 3)
    table = trajectory_table(motion)
    guess = dataclasses.replace(motion, metadata={**motion.metadata, "solved": False, "solution_status": None})
    fig = plot_conservation(table, trajectory=guess)
    assert fig._suptitle is not None and fig._suptitle.get_text().startswith("not a solution")
    solved = dataclasses.replace(motion, metadata={**motion.metadata, "solved": True, "solution_status": "optimal"})
    assert plot_conservation(table, trajectory=solved)._suptitle is None
