"""Where figures are written."""

from __future__ import annotations

import os
from pathlib import Path

from ..atomic import probe_directory
from ..errors import DestinationError

__all__ = ["output_directory"]

def output_directory(directory: str | os.PathLike[str]) -> Path:
    """The directory figures are written into, created (with its parents) when missing.

    Raises :class:`~pyomo_mbdyn.errors.DestinationError` (an ``OSError``) naming
    it when it is a file, lies under a file, or cannot be created or written.
    Returns it as a :class:`~pathlib.Path`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> output_directory(root / "figures" / "arm").is_dir()
    True
    >>> (root / "notes.txt").write_text("x")
    1
    >>> output_directory(root / "notes.txt" / "figures")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pyomo_mbdyn.errors.DestinationError: cannot write figures into '.../notes.txt/figures': ... a file, not a directory
    """
    directory = Path(directory)
    ancestor = directory
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        where = "it is" if ancestor == directory else f"{str(ancestor)!r} is"
        raise DestinationError(f"cannot write figures into {str(directory)!r}: {where} a file, not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe_directory(directory)  # a uniquely named probe: plots of other processes in parallel never meet it
    except OSError as err:
        raise DestinationError(f"cannot write figures into {str(directory)!r}: {err.strerror or err}") from None
    return directory
