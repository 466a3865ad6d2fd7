"""Every file the library writes is replaced in one step (issue 29, pyomo_mbdyn.atomic).

A write that fails midway (a full disk) leaves the previous file byte for byte and no
temporary file; concurrent saves to one path never let a reader see a missing or a
half-written archive; named pipes and other non-regular files are refused before they are
opened; a written file has the permissions a plain ``open(path, "w")`` gives.
"""

import errno
import multiprocessing
import os
import stat
import threading

import numpy as np
import pandas as pd
import pytest

from pyomo_mbdyn import figures, plotting, results
from pyomo_mbdyn.atomic import atomic_path, atomic_write, file_kind
from pyomo_mbdyn.errors import DestinationError, MissingFileError, ResultsFileError
from pyomo_mbdyn.plotting import animate_html
from pyomo_mbdyn.mechanics import MultibodySystem, PointMass, Revolute, RigidBody, Spherical
from pyomo_mbdyn.simulate import simulate
from pyomo_mbdyn.atomic import check_destination
from pyomo_mbdyn.trajectory import Trajectory

#: bytes (or characters) a "full disk" takes before it fails: less than any file written here
ROOM = 1000


def _trajectory(which, steps=200):
    """Trajectory "A" or "B": same layout, different numbers and metadata (about 25 kB)."""
    rng = np.random.default_rng({"A": 1, "B": 2}[which])
    n = 6
    return Trajectory(t=np.linspace(0.0, 1.0, steps + 1), q=rng.standard_normal((steps + 1, n)),
                      v=rng.standard_normal((steps + 1, n)), u=rng.standard_normal((steps, 2)),
                      nu=rng.standard_normal((steps, n)), coordinates=tuple(f"b.c{i}" for i in range(n)),
                      controls=("b.c0", "b.c1"), velocities=tuple(f"b.c{i}" for i in range(n)),
                      extras={"lam": rng.standard_normal((steps, 3))}, metadata={"model": which, "steps": steps})


@pytest.fixture(scope="module")
def pendulum():
    """A link and a bob swinging 6 steps (the stepper, BEM): a motion with its system."""
    link = RigidBody("link", 1.0, (0.01, 0.1, 0.1), position=(0.5, 0, 0))
    bob = PointMass("bob", 0.5, position=(1.0, 0, 0))
    system = MultibodySystem("pendulum", gravity=(0, -9.81, 0))
    system.add_bodies(link, bob)
    system.add_joints(Revolute("hinge", None, link, location=(0, 0, 0), axis=(0, 0, 1)),
                      Spherical("ball", link, bob, location=(1, 0, 0)))
    system.actuate("hinge")
    return simulate(system, system.q0, np.zeros(system.q0.shape), h=0.05, steps=6,
                    controls=np.full((6, 1), 0.3), scheme="bem")


class _FullDisk:
    """A file object that takes ``room`` bytes (characters in text mode) and then fails as a
    full disk does: the part that fitted is written, then OSError(ENOSPC)."""

    def __init__(self, f, room):
        self._f, self._room = f, room

    def write(self, data):
        if len(data) > self._room:
            self._f.write(data[: self._room])
            self._f.flush()
            self._room = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._room -= len(data)
        return self._f.write(data)

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()

    def __iter__(self):
        return iter(self._f)


def full_disk(monkeypatch):
    """From now on every file opened on a descriptor (the temporary file of atomic_write)
    fills the disk after ROOM bytes; returns the list of those files."""
    opened, fdopen = [], os.fdopen

    def fdopen_on_full_disk(fd, *args, **kwargs):
        opened.append(_FullDisk(fdopen(fd, *args, **kwargs), ROOM))
        return opened[-1]

    monkeypatch.setattr(os, "fdopen", fdopen_on_full_disk)
    return opened


def _assert_failed_on_full_disk(raised, path, old_bytes, opened):
    assert opened, "the write did not go through atomic_write"
    assert raised.value.errno == errno.ENOSPC and str(path) in str(raised.value)
    assert path.read_bytes() == old_bytes
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name], "a temporary file was left behind"


# -- (a) a write that fails midway leaves the old file --------------------------------------------
def test_failed_save_keeps_the_old_archive(tmp_path, monkeypatch):
    path = _trajectory("A").save(tmp_path / "run.npz")
    old = path.read_bytes()
    opened = full_disk(monkeypatch)
    with pytest.raises(DestinationError, match="results file") as raised:
        _trajectory("B").save(path)
    _assert_failed_on_full_disk(raised, path, old, opened)
    assert results.load(path).identical(_trajectory("A"))


def test_failed_figure_keeps_the_old_figure(pendulum, tmp_path, monkeypatch):
    import pyomo.environ as pyo

    from pyomo_mbdyn.schemes import scheme_block

    m = pyo.ConcreteModel("link")
    m.dyn = scheme_block("bem", system=pendulum.system, steps=6, horizon=0.3, controls=pendulum.u)
    m.dyn.initialize_from(pendulum)
    path = tmp_path / "link_snapshots.png"  # the first figure model_figures writes
    path.write_bytes(b"the previous figure")
    opened = full_disk(monkeypatch)
    with pytest.raises(DestinationError, match="figure") as raised:
        figures.model_figures("link", m, tmp_path)
    _assert_failed_on_full_disk(raised, path, b"the previous figure", opened)


def test_failed_animation_keeps_the_old_gif(pendulum, tmp_path, monkeypatch):
    from matplotlib.animation import PillowWriter

    opened = []

    def finish_on_full_disk(writer):
        opened.append(writer.outfile)
        with open(writer.outfile, "wb") as f:
            f.write(b"GIF89a" + bytes(ROOM))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(PillowWriter, "finish", finish_on_full_disk)
    path = tmp_path / "swing.gif"
    path.write_bytes(b"the previous animation")
    with pytest.raises(DestinationError, match="animation") as raised:
        plotting.animate(pendulum.system, pendulum.q, path)
    _assert_failed_on_full_disk(raised, path, b"the previous animation", opened)
    assert opened[0] != str(path)


def test_failed_html_keeps_the_old_page(pendulum, tmp_path, monkeypatch):
    path = tmp_path / "view.html"
    path.write_bytes(b"<html>the previous page</html>")
    opened = full_disk(monkeypatch)
    with pytest.raises(DestinationError, match="HTML view") as raised:
        animate_html(pendulum, path)
    _assert_failed_on_full_disk(raised, path, b"<html>the previous page</html>", opened)


def test_failed_csv_keeps_the_old_table(tmp_path, monkeypatch):
    """A table written as the CLI's ``--csv`` should write it: DataFrame.to_csv into atomic_write."""
    table = pd.DataFrame({"steps": np.arange(200), "objective": np.linspace(0, 1, 200)})
    path = tmp_path / "runs.csv"
    path.write_bytes(b"task,steps\n0,20\n")
    opened = full_disk(monkeypatch)
    with pytest.raises(DestinationError, match="CSV table") as raised:
        with atomic_write(path, "w", encoding="utf-8", newline="", what="CSV table") as f:
            table.to_csv(f, index_label="task")
    _assert_failed_on_full_disk(raised, path, b"task,steps\n0,20\n", opened)


def test_successful_writes_leave_only_the_target(pendulum, tmp_path):
    archive = _trajectory("B").save(tmp_path / "run")  # .npz appended
    html = animate_html(pendulum, tmp_path / "view.html")
    gif = plotting.animate(pendulum.system, pendulum.q, tmp_path / "swing.gif")
    with atomic_write(tmp_path / "runs.csv", "w", newline="") as f:
        pd.DataFrame({"steps": [20, 40]}).to_csv(f, index_label="task")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.npz", "runs.csv", "swing.gif", "view.html"]
    assert results.load(archive).identical(_trajectory("B"))
    assert html.read_text(encoding="utf-8").rstrip().endswith("</html>")
    assert gif.read_bytes()[:6] == b"GIF89a"
    assert (tmp_path / "runs.csv").read_text() == "task,steps\n0,20\n1,40\n"


def test_a_writer_that_raises_leaves_the_old_file(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(b"old")
    with pytest.raises(ValueError, match="the writer"):
        with atomic_write(path) as f:
            f.write(b"new and half")
            raise ValueError("the writer failed")
    with pytest.raises(KeyboardInterrupt):
        with atomic_path(path) as temporary:
            temporary.write_bytes(b"new")
            raise KeyboardInterrupt
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["data.bin"]


def test_checking_a_destination_never_touches_it(tmp_path):
    """check_destination used to create and delete the target: a reader saw it come and go."""
    new, old = tmp_path / "new.npz", tmp_path / "old.npz"
    old.write_bytes(b"old")
    before = os.stat(old)
    check_destination(new, "results file")
    check_destination(old, "results file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.npz"]
    assert old.read_bytes() == b"old" and os.stat(old).st_mtime_ns == before.st_mtime_ns


def test_a_symbolic_link_is_written_through(tmp_path):
    real = tmp_path / "real.npz"
    _trajectory("A").save(real)
    link = tmp_path / "link.npz"
    link.symlink_to(real)
    _trajectory("B").save(link)
    assert link.is_symlink() and results.load(real).identical(_trajectory("B"))


# -- (b) concurrent saves and loads ---------------------------------------------------------------
#: saves per writer; the reader reads until both writers are done, and at least MIN_READS times
SAVES, MIN_READS = 300, 300


def _save_in_a_loop(path, which, start):
    trajectory = _trajectory(which)
    start.wait()
    for _ in range(SAVES):
        trajectory.save(path)


def _load_in_a_loop(path, start, done, counts):
    expected = {"A": _trajectory("A"), "B": _trajectory("B")}
    tally = {"A": 0, "B": 0, "other": 0, "missing": 0, "corrupt": 0}
    start.wait()
    reads = 0
    while reads < MIN_READS or not done.is_set():
        try:
            loaded = Trajectory.load(path)
        except MissingFileError:
            tally["missing"] += 1
        except ResultsFileError:
            tally["corrupt"] += 1
        else:
            tally[next((k for k, t in expected.items() if loaded.identical(t)), "other")] += 1
        reads += 1
    counts.put(tally)


def test_concurrent_saves_never_show_a_missing_or_corrupt_archive(tmp_path):
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    path = tmp_path / "shared.npz"
    _trajectory("A").save(path)
    start, done, counts = context.Barrier(3), context.Event(), context.Queue()
    writers = [context.Process(target=_save_in_a_loop, args=(path, which, start)) for which in "AB"]
    reader = context.Process(target=_load_in_a_loop, args=(path, start, done, counts))
    for process in (*writers, reader):
        process.start()
    for process in writers:
        process.join(120)
    done.set()
    tally = counts.get(timeout=120)
    reader.join(120)
    assert [p.exitcode for p in (*writers, reader)] == [0, 0, 0]
    assert tally["missing"] == 0 and tally["corrupt"] == 0 and tally["other"] == 0, tally
    assert tally["A"] + tally["B"] >= MIN_READS
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared.npz"]


# -- (c) named pipes and other non-regular files --------------------------------------------------
def test_a_named_pipe_is_refused_before_it_is_opened(tmp_path):
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)

    def unblock():  # only if a regression opened the pipe: let the test fail instead of hanging
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass

    safety = threading.Timer(10.0, unblock)
    safety.start()
    try:
        for read in (Trajectory.load, results.load):
            with pytest.raises(ResultsFileError, match=r"pipe\.npz: is a named pipe \(FIFO\), not a results archive"):
                read(fifo)
        with pytest.raises(DestinationError, match="it is a named pipe"):
            _trajectory("A").save(fifo)
        with pytest.raises(DestinationError, match="it is a named pipe"):
            with atomic_write(fifo) as f:
                f.write(b"x")
    finally:
        safety.cancel()
    assert file_kind(fifo) == "a named pipe (FIFO)"
    assert [p.name for p in tmp_path.iterdir()] == ["pipe.npz"]


def test_a_device_is_refused_as_an_archive():
    with pytest.raises(ResultsFileError, match="/dev/null: is a character device"):
        results.load("/dev/null")


# -- (d) permissions --------------------------------------------------------------------------
@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_permissions_are_those_of_a_plain_open(tmp_path, umask):
    old_umask = os.umask(umask)
    try:
        with open(tmp_path / "plain.txt", "w") as f:
            f.write("x")
        with atomic_write(tmp_path / "atomic.txt", "w") as f:
            f.write("x")
        _trajectory("A").save(tmp_path / "run.npz")
    finally:
        os.umask(old_umask)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
    assert modes == dict.fromkeys(["plain.txt", "atomic.txt", "run.npz"], 0o666 & ~umask)


def test_replacing_a_file_keeps_its_permissions(tmp_path):
    path = tmp_path / "run.npz"
    path.write_bytes(b"old")
    path.chmod(0o640)
    _trajectory("A").save(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    if os.geteuid() != 0:  # root may write read-only files
        path.chmod(0o444)
        with pytest.raises(DestinationError, match="Permission denied"):
            _trajectory("B").save(path)
        assert results.load(path).identical(_trajectory("A"))
