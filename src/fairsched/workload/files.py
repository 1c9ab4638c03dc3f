"""Opening a log file, plain or gzip: the one place where a missing, truncated or corrupt file becomes an error.

Every reader of `fairsched.workload` (SWF, sacct, jobs.csv) and the format sniffer of ``fairsched audit`` open
their input through `open_binary` (or `read_bytes` / `read_head`, built on it). gzip is recognised by its magic
bytes, not by the suffix. A file that cannot be opened, a truncated gzip stream (``EOFError``), a corrupt one
(``zlib.error``) or a bad gzip header or CRC (``gzip.BadGzipFile``) becomes one `InputError`
``FILE: problem``, which the CLI prints as one line ``error: FILE: ...`` with exit code 2, whatever the command.

Only the standard library is imported here: ``fairsched trace info`` reads through this module without paying
for pandas or numba.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from fairsched.errors import InputError

__all__ = ["GZIP_MAGIC", "open_binary", "read_bytes", "read_head"]

GZIP_MAGIC = b"\x1f\x8b"
# What a damaged gzip stream raises while it is read: truncated, corrupt deflate data, bad header or CRC.
_GZIP_ERRORS = (EOFError, zlib.error, gzip.BadGzipFile)


def _damaged(exc: BaseException, path: str | Path) -> InputError:
    return InputError(f"cannot decompress the gzip data ({exc or type(exc).__name__}); the file looks truncated "
                      "or corrupted. Download or export it again, or check it with `gzip -t`.", path=path)


@contextmanager
def open_binary(path: str | Path) -> Iterator[IO[bytes]]:
    """Open `path` for binary reading, through gzip when it starts with the gzip magic bytes.

    Raises
    ------
    InputError
        ``FILE: problem`` when the file cannot be opened, or when its gzip data turns out to be damaged while the
        caller reads it (the error is raised from the ``with`` block).

    Examples
    --------
    >>> import gzip, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.gz"
    >>> _ = p.write_bytes(gzip.compress(b"hello\\n" * 1000)[:30])
    >>> with open_binary(p) as stream:
    ...     stream.read()
    Traceback (most recent call last):
    fairsched.errors.InputError: ...t.gz: cannot decompress the gzip data (...); the file looks truncated or ...
    """
    try:
        raw = open(path, "rb")  # noqa: SIM115 -- closed below, after the caller is done
    except OSError as exc:
        raise InputError(f"cannot open the file: {exc.strerror or exc}. Check the path and permissions.",
                         path=path) from exc
    is_gzip = False
    try:
        is_gzip = raw.read(2) == GZIP_MAGIC
        raw.seek(0)
        with gzip.GzipFile(fileobj=raw, mode="rb") if is_gzip else raw as stream:
            yield stream
    except _GZIP_ERRORS as exc:
        if not is_gzip:
            raise
        raise _damaged(exc, path) from exc
    except OSError as exc:  # an I/O error while reading (a disk or network file system failing)
        raise InputError(f"cannot read the file: {exc.strerror or exc}", path=path) from exc
    finally:
        raw.close()


def read_bytes(path: str | Path) -> bytes:
    """The whole (decompressed) content of `path`; `InputError` as in `open_binary`."""
    with open_binary(path) as stream:
        return stream.read()


def read_head(path: str | Path, n_bytes: int = 1 << 16) -> bytes:
    """The first `n_bytes` (decompressed) bytes of `path`; `InputError` as in `open_binary`."""
    with open_binary(path) as stream:
        return stream.read(n_bytes)

