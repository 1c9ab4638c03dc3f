"""Atomic file writing: a result is either complete on disk or not there at all (never half-written)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from fairsched.errors import InputError


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", **open_kwargs: object) -> Iterator[IO]:
    """Open a temporary file beside `path`; on success rename it over `path` (os.replace is atomic).

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_write(target) as f:
    ...     _ = f.write("done")
    >>> target.read_text()
    'done'
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:  # a user's path: say which and why, no traceback
        raise InputError(f"cannot write here ({exc.strerror or exc}); choose another output path",
                         path=path) from exc
    try:
        # mkstemp creates the file 0600; give it the permissions a plain open() would (0666 minus umask).
        os.chmod(tmp, 0o666 & ~_current_umask())
        with os.fdopen(fd, mode, **open_kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _current_umask() -> int:
    mask = os.umask(0)  # the only portable way to read it is to set it; restore at once
    os.umask(mask)
    return mask


def ensure_writable_dir(path: str | Path) -> Path:
    """Create directory `path` if needed and check that files can be written in it, before any long computation.

    Raises
    ------
    InputError : naming the path and the reason (not a directory, permission denied, ...).
    """
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise InputError(f"cannot write output files here ({exc.strerror or exc}); choose another --out",
                         path=folder) from exc
    return folder
