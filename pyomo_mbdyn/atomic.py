"""Atomic file writes: a file the library writes is either the old one or the whole new one.

Before anything is computed, :func:`check_destination` refuses an output path that
cannot be written (a directory, a missing or read-only directory, a device), naming it.

Every file the library writes (results archives, figures, animations, the HTML
view, tables) goes through :func:`atomic_write` (a file object) or
:func:`atomic_path` (a file name, for writers that only take one).  Both write
into a temporary file with a unique name in the *same* directory as the
target (``.<name>.<random>.tmp``), flush it and ``fsync`` it, and only then
``os.replace`` it onto the target, then ``fsync`` the directory where the
platform allows.  So:

* a reader opening the target sees the complete old file or the complete new
  one, never a missing, empty or half-written file, whatever number of
  processes write the same path at the same time (the last replace wins);
* a write that fails midway (a full disk, a writer that raises, an interrupt)
  leaves the old file byte for byte as it was and removes the temporary file;
* the new file has the permissions a plain ``open(path, "w")`` would give it:
  those of the file it replaces, or ``0o666`` less the process umask for a new
  file; a symbolic link as target is written through (the file it points to is
  replaced, the link stays).

The module sits in the lowest layer (it imports only :mod:`pyomo_mbdyn.errors`).

Examples
--------
>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> target = os.path.join(folder, "table.csv")
>>> with atomic_write(target, "w", encoding="utf-8", newline="") as f:
...     _ = f.write("a,b\\n1,2\\n")
>>> open(target).read()
'a,b\\n1,2\\n'
>>> try:
...     with atomic_write(target, "w") as f:
...         _ = f.write("half a ta")
...         raise RuntimeError("the writer failed")
... except RuntimeError:
...     pass
>>> open(target).read()                 # the old file, untouched
'a,b\\n1,2\\n'
>>> sorted(os.listdir(folder))          # no temporary file left behind
['table.csv']
>>> import shutil; shutil.rmtree(folder)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

import codecs
import contextlib
import os
import stat
import tempfile
from pathlib import Path

from .errors import ConfigurationError, DestinationError, MbdynError

__all__ = ["atomic_write", "atomic_path", "check_destination", "file_kind", "probe_directory"]

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def file_kind(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is, following symbolic links: ``None`` if nothing is there,
    ``"a regular file"``, or ``"a directory"``, ``"a named pipe (FIFO)"``,
    ``"a character device"``, ``"a block device"``, ``"a socket"``.

    Never opens ``path`` (opening a named pipe blocks until someone writes to it).

    >>> file_kind("/dev/null")
    'a character device'
    """
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def _umask():
    """The process umask, read without changing it where Linux tells it (/proc)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere: the classic read-by-setting, restored at once
    os.umask(mask)
    return mask


def _target(path, what):
    """(the file to replace, its permission bits) for ``path``; refuse what cannot be replaced
    the way ``open(path, "w")`` would write it."""
    path = Path(path)
    if path.is_symlink():  # write through the link, as open() does
        path = Path(os.path.realpath(path))
    kind = file_kind(path)
    if kind is None:
        return path, 0o666 & ~_umask()
    if kind != "a regular file":
        raise DestinationError(f"cannot write the {what} {str(path)!r}: it is {kind}, not a regular file")
    if not os.access(path, os.W_OK):
        raise DestinationError(f"cannot write the {what} {str(path)!r}: Permission denied")
    return path, stat.S_IMODE(os.stat(path).st_mode)


def _fsync_directory(directory):
    """Make the rename durable; silently nothing where directories cannot be opened (Windows)
    or the file system does not sync them."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _destination_error(err, path, what):
    """A DestinationError naming ``path`` for an OSError of the write, keeping its ``errno``
    (``strerror`` and ``filename`` stay unset: OSError would print them instead of the message)."""
    failure = DestinationError(f"cannot write the {what} {str(path)!r}: {err.strerror or err}; "
                               "nothing was replaced")
    failure.errno = err.errno
    return failure


class _Replacement:
    """A fresh file next to the target (``fd`` open, ``temporary`` its name) that either
    replaces the target (:meth:`commit`) or vanishes (:meth:`abort`)."""

    def __init__(self, path, what, suffix):
        self.target, mode = _target(path, what)
        try:
            self.fd, self.temporary = tempfile.mkstemp(dir=self.target.parent, prefix=f".{self.target.name}.",
                                                       suffix=suffix)
        except OSError as err:
            if not self.target.parent.is_dir():
                raise DestinationError(f"cannot write the {what} {str(self.target)!r}: the directory "
                                       f"{str(self.target.parent)!r} does not exist") from None
            raise DestinationError(f"cannot write the {what} {str(self.target)!r}: {err.strerror or err}") from None
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(self.fd, mode)
            else:
                os.chmod(self.temporary, mode)
        except BaseException as err:
            self.abort()
            if isinstance(err, OSError):
                raise _destination_error(err, self.target, what) from None
            raise

    def release(self):
        """The descriptor is closed elsewhere from now on (a file object owns it)."""
        self.fd = None

    def close(self):
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)

    def commit(self):
        self.close()
        os.replace(self.temporary, self.target)
        _fsync_directory(self.target.parent)

    def abort(self):
        with contextlib.suppress(OSError):
            self.close()
        with contextlib.suppress(OSError):
            os.unlink(self.temporary)


@contextlib.contextmanager
def _replacing(path, what, suffix):
    """Yield a :class:`_Replacement` of ``path``; commit it when the block ends cleanly,
    abort it on any exception (an OSError of the write becomes a DestinationError)."""
    replacement = _Replacement(path, what, suffix)
    try:
        yield replacement
        replacement.commit()
    except BaseException as err:
        replacement.abort()
        if isinstance(err, OSError) and not isinstance(err, MbdynError):
            raise _destination_error(err, replacement.target, what) from None
        raise


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "wb", *, encoding: str | None = None, newline: str | None = None,
                 what: str = "file") -> Iterator[IO[Any]]:
    """Write ``path`` atomically through the file object this yields.

    ``mode`` is ``"wb"`` (bytes, the default) or ``"w"`` (text, with ``encoding``
    and ``newline`` as for :func:`open`).  When the ``with`` block ends without an
    exception the data is flushed and fsynced and the file replaces ``path`` in
    one step (see the module docstring).  When it raises, ``path`` is left as it
    was, the temporary file is removed and the exception propagates; an
    ``OSError`` of the write itself (a full disk: ``errno.ENOSPC``) propagates as
    :class:`~pyomo_mbdyn.errors.DestinationError` naming ``path`` and the reason,
    with the original ``errno``.

    Raises :class:`~pyomo_mbdyn.errors.DestinationError` (an ``OSError``), before
    the block runs, when ``path`` is a directory, a named pipe or another
    non-regular file, a read-only file, or lies in a directory that is missing or
    refuses new files.  ``what`` names the file in messages (``"results file"``).
    """
    if mode not in ("w", "wt", "wb"):
        raise ConfigurationError(f"atomic_write: mode must be 'w' (text) or 'wb' (bytes), got {mode!r}")
    if "b" in mode and (encoding is not None or newline is not None):
        raise ConfigurationError("atomic_write: encoding and newline apply to text mode 'w' only")
    if encoding is not None:
        codecs.lookup(encoding)  # a LookupError for an unknown encoding before any file exists
    with _replacing(path, what, ".tmp") as replacement:
        f = os.fdopen(replacement.fd, mode, encoding=encoding, newline=newline)
        replacement.release()
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], *, what: str = "file") -> Iterator[Path]:
    """Yield a temporary file name next to ``path`` for a writer that only takes a name
    (matplotlib's animation writers); when the block ends without an exception the
    file written there is fsynced and replaces ``path`` in one step.

    The temporary name ends in ``.tmp`` plus the suffix of ``path``
    (``.anim.gif.k3x9.tmp.gif``), so writers that choose the format by the
    extension choose the right one.  Failures behave as in :func:`atomic_write`.
    """
    suffix = ".tmp" + Path(path).suffix
    with _replacing(path, what, suffix) as replacement:
        replacement.close()  # the writer opens the file by name
        yield Path(replacement.temporary)
        with open(replacement.temporary, "rb+") as f:
            os.fsync(f.fileno())


def probe_directory(directory: str | os.PathLike[str]) -> None:
    """Raise the ``OSError`` the file system gives when no new file can be made in
    ``directory`` (missing, read-only, no permission); otherwise return nothing.

    The probe is a uniquely named temporary file, removed at once, so that probes
    of several processes at the same time never meet and no name a reader might
    look at ever appears."""
    fd, probe = tempfile.mkstemp(dir=directory, prefix=".pyomo_mbdyn-probe.", suffix=".tmp")
    os.close(fd)
    os.unlink(probe)


def check_destination(path: str | os.PathLike[str], what: str = "file", create_directory: bool = False) -> Path:
    """Refuse, before anything is computed or written, an output file that cannot be written.

    Raises :class:`~pyomo_mbdyn.errors.DestinationError` (an ``OSError``) naming
    ``path`` when it is a directory, when a directory on its way is a file, when
    its directory does not exist (with ``create_directory`` it is created, as
    plotting does), when it exists but is a named pipe, a device or another
    non-regular file, or when the file system refuses to write it (a read-only
    file, no permission to make files in its directory, a read-only file
    system).  The check never creates, changes or removes ``path`` itself (a
    reader of ``path`` never sees it come and go): it makes and removes a
    uniquely named file beside it, where :func:`~pyomo_mbdyn.atomic.atomic_write`
    will write.  Returns ``path`` as a :class:`~pathlib.Path`.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> check_destination(os.path.join(folder, "run.npz")).name
    'run.npz'
    >>> os.listdir(folder)                      # nothing left behind
    []
    >>> check_destination(os.path.join(folder, "plots", "run.npz"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    pyomo_mbdyn.errors.DestinationError: cannot write the file '...run.npz': the directory '...plots' does not exist
    >>> check_destination(os.path.join(folder, "plots", "run.npz"), create_directory=True).parent.is_dir()
    True
    >>> check_destination(folder)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    pyomo_mbdyn.errors.DestinationError: cannot write the file '...': it is a directory; give a file name
    >>> import shutil; shutil.rmtree(folder)
    """
    path = Path(path)
    if path.is_dir():
        raise DestinationError(f"cannot write the {what} {str(path)!r}: it is a directory; give a file name")
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise DestinationError(f"cannot write the {what} {str(path)!r}: {str(ancestor)!r} is a file, not a directory")
    if not path.parent.exists():
        if not create_directory:
            raise DestinationError(f"cannot write the {what} {str(path)!r}: the directory {str(path.parent)!r} "
                                   "does not exist")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise DestinationError(f"cannot write the {what} {str(path)!r}: cannot create the directory "
                                   f"{str(path.parent)!r} ({err.strerror or err})") from None
    kind = file_kind(path)
    if kind not in (None, "a regular file"):  # opening a named pipe would block
        raise DestinationError(f"cannot write the {what} {str(path)!r}: it is {kind}, not a regular file")
    try:
        if kind is not None:
            with open(path, "ab"):  # a read-only file is refused, as open(path, "w") refuses it
                pass
        probe_directory(Path(os.path.realpath(path)).parent)  # where the atomic write puts its temporary file
    except OSError as err:
        raise DestinationError(f"cannot write the {what} {str(path)!r}: {err.strerror or err}") from None
    return path
