"""Atomic file writing: a result is either complete on disk or not there at all (never half-written).

`write_csv` is here, below every layer that writes tables (the replications, `fairsched.report`); it imports
numpy, pandas and its kernel only when called, so that importing this module (the CLI does, at start-up) stays
cheap.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING

from fairsched.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

_CSV_CHUNK_ROWS = 1 << 18  # rows formatted per kernel call: bounds the scratch buffer to ~21 bytes x cells


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


def write_csv(frame: pd.DataFrame, path: str | Path) -> None:
    """Write `frame` (no index) atomically; all-integer frames go through a compiled kernel, others via pandas.

    The output is byte-identical to ``frame.to_csv(path, index=False, lineterminator="\\n")`` (tested).
    """
    import numpy as np
    import pandas as pd

    from fairsched._kernels.int_csv import MAX_INT_CHARS, format_int_rows

    integer = all(pd.api.types.is_integer_dtype(dtype) and not isinstance(dtype, pd.CategoricalDtype)
                  for dtype in frame.dtypes)
    with atomic_write(path, "wb") as handle:
        if not (integer and len(frame.columns)):
            handle.write(frame.to_csv(index=False, lineterminator="\n").encode())
            return
        handle.write((",".join(str(c) for c in frame.columns) + "\n").encode())
        table = np.ascontiguousarray(np.stack([frame[c].to_numpy(dtype=np.int64) for c in frame.columns]))
        buffer = np.empty(_CSV_CHUNK_ROWS * table.shape[0] * (MAX_INT_CHARS + 1), dtype=np.uint8)
        for first in range(0, table.shape[1], _CSV_CHUNK_ROWS):
            last = min(first + _CSV_CHUNK_ROWS, table.shape[1])
            handle.write(memoryview(buffer[:format_int_rows(table, first, last, buffer)]))


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


OUTPUT_MARKER = "report.json"  # every --out directory fairsched writes has one, written last


@contextlib.contextmanager
def staged_dir(out: str | Path) -> Iterator[Path]:
    """Build an output directory in a hidden temporary sibling, then put it at `out` in one rename.

    An interruption (Ctrl-C) or an error before the end leaves neither an empty nor a half-written `out`, and a
    previous run's files at `out` are replaced as a whole (none of them is left beside the new ones). A previous
    `out` is only replaced when it is empty or was written by fairsched (it holds ``report.json``): any other
    directory is refused rather than deleted.

    Raises
    ------
    InputError : `out` is a file, a directory fairsched did not write, or its parent cannot be written.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError("is a file; --out needs a directory", path=out)
    if out.is_dir() and any(out.iterdir()) and not (out / OUTPUT_MARKER).is_file():
        raise InputError(f"holds files fairsched did not write (no {OUTPUT_MARKER}); --out replaces the whole "
                         "directory, so choose a new or empty one", path=out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    except OSError as exc:
        raise InputError(f"cannot write output files here ({exc.strerror or exc}); choose another --out",
                         path=out) from exc
    try:
        yield stage
        os.chmod(stage, 0o777 & ~_current_umask())  # mkdtemp makes it 0700; give it a plain mkdir's mode
        if out.is_dir():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
            os.replace(out, old / out.name)
            os.replace(stage, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(stage, out)
    finally:
        shutil.rmtree(stage, ignore_errors=True)  # gone already after a successful rename


@contextlib.contextmanager
def staged_files(out: str | Path) -> Iterator[Path]:
    """Write a set of result files into a hidden temporary directory inside `out`, then move them into `out`.

    For output directories that also hold what must survive between runs, such as a replication's sweep store
    (``DIR/sweep``), which `staged_dir` would replace with the rest. An interruption (Ctrl-C) or an error before
    the end leaves `out` as it was: the previous complete result set, if any, and never a half-written one; a
    directory created for this run and left empty is removed. The files move one ``os.replace`` each (a few
    milliseconds in all). ``report.json`` files naming the temporary paths are rewritten to name the final ones.

    Raises
    ------
    InputError : `out` cannot be written (see `ensure_writable_dir`).
    """
    out = Path(out)
    existed = out.exists()
    ensure_writable_dir(out)
    stage = Path(tempfile.mkdtemp(prefix=".results.", suffix=".partial", dir=out))
    done = False
    try:
        yield stage
        for path in sorted(p for p in stage.rglob("*") if p.is_file()):
            target = out / path.relative_to(stage)
            if path.name == OUTPUT_MARKER:  # it names the staged paths: name the final ones
                staged, final = (json.dumps(str(folder))[1:-1] for folder in (stage, out))
                path.write_text(path.read_text(encoding="utf-8").replace(staged, final), encoding="utf-8")
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
        done = True
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        if not done and not existed and out.is_dir() and not any(out.iterdir()):
            out.rmdir()


def final_paths(files: dict[str, Path], stage: Path, out: Path) -> dict[str, Path]:
    """`files` written under `stage` (`staged_files`), named where they end up, under `out`."""
    return {name: out / Path(path).relative_to(stage) for name, path in files.items()}
