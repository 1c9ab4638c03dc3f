"""Read and write the Standard Workload Format (SWF), the one SWF parser of fairsched.

SWF version 2.2 (Parallel Workloads Archive, ``swf.html``; summarised in ../shared/traces/SWF_FORMAT.md): one job
per line with 18 whitespace-separated numeric fields, ``-1`` for a missing value, and ``;`` comment lines whose
``; Key: value`` form describes the system. `read_swf` turns a ``.swf`` or ``.swf.gz`` file (gzip is detected by
its magic bytes, not the suffix) into a `Workload`; `write_swf` writes one back, atomically.

Columns
-------
The 18 fields of `fairsched.workload.schema.SWF_FIELDS`, in file order: float64 for `SWF_FLOAT_FIELDS`, int64 for
the others (integers must be whole numbers below 2**53 in magnitude; ``2.0`` is read as 2). Two derived columns
follow the rules below; every time a rule falls back, the job is counted in ``ReadReport.fallbacks`` under the key
shown, so nothing is filled in silently:

=================  ==================================================  ===============================================
column             rule                                                fallbacks key (counted when used)
=================  ==================================================  ===============================================
``processors``     ``allocated_processors`` if >= 1                    --
                   else ``requested_processors`` if >= 1               `FALLBACK_PROCESSORS_REQUESTED`
                   else -1                                             `FALLBACK_PROCESSORS_MISSING`
``runtime_         ``requested_time`` if >= 0 (not -1)                 --
estimate``         else ``run_time`` if >= 0 (an oracle estimate)      `FALLBACK_ESTIMATE_RUN_TIME`
                   else -1                                             `FALLBACK_ESTIMATE_MISSING`
=================  ==================================================  ===============================================

LPC-EGEE records ``allocated_processors = 0`` for jobs cancelled before they started; 0 is not >= 1, so the
requested count applies. Dropping cancelled jobs is the job of `fairsched.workload.clean`, not of the reader.

Jobs are returned sorted by submit time. SWF files are sorted already; when one is not, the reader sorts stably
(ties keep file order) and counts the records whose submit time is below that of an earlier record under
`FALLBACK_OUT_OF_ORDER`.

Header and comments
-------------------
Every comment line of the form ``; Key: value`` (a key is one word, the colon is followed by a space or the end of
the line) becomes a ``(key, value)`` pair of ``Workload.header``, in file order, wherever it appears (keys repeat:
one ``Queue:`` line per queue). Other comment lines and blank lines are ignored. Comment text is decoded as UTF-8,
with undecodable bytes replaced by U+FFFD (comments are free text, not data).

Bad records
-----------
A data line is any line that is neither blank nor a comment. Its problems, checked field by field in file order
(the first one found is reported), and the ``ReadReport.skipped`` reason of each (`SKIP_REASONS`):

=============================  ======  ==============================================================
reason                         NAME    example
=============================  ======  ==============================================================
``wrong field count``          count   17 or 19 fields, a truncated line
``non-UTF-8 bytes``            column  bytes 0xFF 0xFE (a binary or corrupted file)
``non-numeric value``          column  ``abc``, ``nan``, ``inf``, ``0x10``; numbers are ASCII
                                       ``[+-]digits[.digits][e[+-]digits]`` (``.5`` and ``5.`` too)
``value out of range``         column  ``1e999``; an integer field at or above 2**53 in magnitude
``fraction in integer field``  column  ``2.5`` processors (``2.0`` is accepted as 2)
``negative submit time``       column  submit time < 0, -1 included: a job cannot be placed in time
``negative value``             column  ``-5``: anything below 0 except the missing marker -1
=============================  ======  ==============================================================

By default the first bad line raises `InputError` as ``FILE:LINE: field NAME: problem`` (``NAME`` a column name,
or ``count``), saying what was expected and how to go on. With ``skip_bad_records=True`` bad lines are dropped and
counted by reason; ``ReadReport.first_problems`` keeps the first 20 messages and ``n_records`` = jobs + skipped.

Speed
-----
A numba kernel scans each chunk of about 4 MB once, splitting lines and fields and parsing the plain decimals that
SWF files actually contain (at most 15 digits, so ``mantissa / 10**k`` is correctly rounded and equal to Python's
``float``). Vectorized checks then flag rows with a doubtful value. Every line the kernel cannot vouch for (an
exponent, a ``+``, a wrong field count, garbage) goes to `_parse_record`, the slow per-field reference parser that
decides and names the exact problem. RICC-2010-2 (447,794 records) reads in 0.6-0.9 s, of which about
0.35 s is gunzip (``benchmarks/bench_read_swf.py``, best of 3, on a loaded 2-core machine).

`read_swf_columns` swaps the kernel for its numpy twin (`fairsched.workload._swf_scan`: the same line kinds and
the same float64 values, several times slower per byte) and returns numpy columns instead of a DataFrame, so that
neither numba nor pandas is imported: importing them costs more than scanning LPC-EGEE, which is why
``fairsched trace info`` uses it. Everything after the scan (the reference parser, the errors, the derived columns)
is shared, so both readers give the same jobs and the same errors (tests/test_swf_columns.py).
"""

from __future__ import annotations

import gzip
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, NamedTuple

import numpy as np

from fairsched._io import atomic_write
from fairsched.errors import ConfigError, InputError
from fairsched.workload._swf_scan import _COMMENT, _DATA, _SUSPECT, ChunkScan
from fairsched.workload.files import open_binary
from fairsched.workload.model import ReadReport, Workload, WorkloadColumns
from fairsched.workload.schema import (
    MISSING,
    N_SWF_FIELDS,
    PROCESSORS,
    RUNTIME_ESTIMATE,
    SWF_FIELDS,
    SWF_FLOAT_FIELDS,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FALLBACK_ESTIMATE_MISSING",
    "FALLBACK_ESTIMATE_RUN_TIME",
    "FALLBACK_OUT_OF_ORDER",
    "FALLBACK_PROCESSORS_MISSING",
    "FALLBACK_PROCESSORS_REQUESTED",
    "SKIP_REASONS",
    "read_swf",
    "read_swf_columns",
    "write_swf",
]

# ReadReport.fallbacks keys (module docstring, "Columns").
FALLBACK_PROCESSORS_REQUESTED = "processors from requested_processors (allocated_processors < 1)"
FALLBACK_PROCESSORS_MISSING = "processors missing (allocated and requested processors < 1)"
FALLBACK_ESTIMATE_RUN_TIME = "runtime_estimate from run_time (requested_time = -1)"
FALLBACK_ESTIMATE_MISSING = "runtime_estimate missing (requested_time and run_time = -1)"
FALLBACK_OUT_OF_ORDER = "records out of submit order"

# ReadReport.skipped keys: why a data line was dropped (module docstring, "Bad records").
REASON_FIELD_COUNT = "wrong field count"
REASON_NOT_UTF8 = "non-UTF-8 bytes"
REASON_NON_NUMERIC = "non-numeric value"
REASON_OUT_OF_RANGE = "value out of range"
REASON_FRACTION = "fraction in integer field"
REASON_NEGATIVE_SUBMIT = "negative submit time"
REASON_NEGATIVE = "negative value"
SKIP_REASONS: tuple[str, ...] = (REASON_FIELD_COUNT, REASON_NOT_UTF8, REASON_NON_NUMERIC, REASON_OUT_OF_RANGE,
                                 REASON_FRACTION, REASON_NEGATIVE_SUBMIT, REASON_NEGATIVE)

MAX_FIRST_PROBLEMS = 20
_CHUNK_BYTES = 1 << 22  # 4 MB: per-line bookkeeping stays below 70 MB even for a file of blank lines
_WRITE_ROWS = 100_000  # lines formatted per write: bounded memory for big traces
_MAX_EXACT_INT = 2.0**53  # float64 holds every integer below this exactly
_SUBMIT = SWF_FIELDS.index("submit_time")
_INT_COLUMNS = np.array([j for j, name in enumerate(SWF_FIELDS) if name not in SWF_FLOAT_FIELDS])
_NUMBER = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEADER = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)[ \t]*:(?=\s|$)(.*)", re.DOTALL)
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_FIX = "Fix the line, or pass --skip-bad-records (skip_bad_records=True) to drop such lines and count them."



# ----------------------------------------------------------------------------------------------------------- reading

def read_swf(path: str | Path, *, skip_bad_records: bool = False) -> Workload:
    """Read an SWF file (plain or gzip) into a `Workload` sorted by submit time.

    Implements the Standard Workload Format v2.2 (Parallel Workloads Archive ``swf.html``); the column rules,
    fallbacks and problem kinds are the tables of this module's docstring.

    Parameters
    ----------
    path : the ``.swf`` or ``.swf.gz`` file; gzip is recognised by its magic bytes.
    skip_bad_records : drop malformed data lines and count them by reason instead of raising on the first one.

    Returns
    -------
    Workload
        ``jobs`` (18 SWF columns plus ``processors`` and ``runtime_estimate``), ``header`` pairs in file order,
        ``source`` = ``str(path)`` and a `ReadReport`. An empty or header-only file gives 0 jobs.

    Raises
    ------
    InputError
        ``FILE:LINE: field NAME: problem`` for the first malformed record (unless `skip_bad_records`), or
        ``FILE: problem`` when the file cannot be opened or decompressed.

    Notes
    -----
    One streaming pass over chunks of about 4 MB, O(file size) time; memory holds the parsed float64 table.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "three.swf"
    >>> _ = p.write_text("; MaxProcs: 4\\n" + "".join(
    ...     f"{i} {10 * i} 0 5 {i} -1 -1 -1 -1 -1 1 1 1 -1 1 -1 -1 -1\\n" for i in (1, 2, 3)))
    >>> w = read_swf(p)
    >>> w.jobs["processors"].tolist(), w.jobs["runtime_estimate"].tolist(), w.header
    ([1, 2, 3], [5.0, 5.0, 5.0], (('MaxProcs', '4'),))
    >>> w.read_report.fallbacks
    {'runtime_estimate from run_time (requested_time = -1)': 3}
    """
    from fairsched.workload._swf_kernels import scan_chunk  # numba: only readers into pandas pay for importing it

    return _read(path, skip_bad_records, scan_chunk).to_workload()


def read_swf_columns(path: str | Path, *, skip_bad_records: bool = False, compiled: bool = False) -> WorkloadColumns:
    """Read an SWF file like `read_swf`, into numpy columns: the same jobs, header, report and errors, without
    importing pandas (``fairsched trace info`` and ``fairsched backfill`` start in a fraction of the time).

    By default the lines are scanned by the numpy twin of the compiled scanner (`fairsched.workload._swf_scan`), a
    few times slower per byte but with nothing to import, so numba is not imported either. ``compiled=True`` scans
    with the numba kernel, for callers that import numba anyway (``fairsched backfill`` simulates with it): its
    kernel then loads from numba's cache in milliseconds. Either way, lines the scanner does not vouch for go to
    the same reference parser.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "one.swf"
    >>> _ = p.write_text("1 0 0 5 2 -1 -1 -1 -1 -1 1 1 1 -1 1 -1 -1 -1\\n")
    >>> w = read_swf_columns(p)
    >>> w.n_jobs, w.column("processors").tolist(), w.column("runtime_estimate").tolist()
    (1, [2], [5.0])
    """
    if compiled:
        from fairsched.workload._swf_kernels import scan_chunk
    else:
        from fairsched.workload._swf_scan import scan_chunk

    return _read(path, skip_bad_records, scan_chunk)


def _read(path: str | Path, skip_bad_records: bool, scan: Callable[[bytes], ChunkScan]) -> WorkloadColumns:
    reader = _Reader(path=str(path), skip_bad_records=skip_bad_records, scan=scan)
    with open_binary(path) as stream:  # a damaged gzip stream: one InputError (fairsched.workload.files)
        first_line = 1
        for chunk in _iter_chunks(stream):
            first_line += reader.read_chunk(chunk, first_line)
    return reader.columns()


def _iter_chunks(stream: IO[bytes]) -> Iterator[bytes]:
    """Blocks of about `_CHUNK_BYTES` that end at a line break (the last one may not)."""
    pending = bytearray()  # grows in place, so that even one enormous line is read in linear time
    while True:
        block = stream.read(_CHUNK_BYTES)
        if not block:
            break
        cut = block.rfind(b"\n") + 1
        pending += block[:cut] if cut else block
        if cut:
            yield bytes(pending)
            pending = bytearray(block[cut:])
    if pending:
        yield bytes(pending)


class _Problem(NamedTuple):
    reason: str  # one of SKIP_REASONS
    field: str   # a column name, or "count"
    detail: str  # what was found and what was expected


@dataclass
class _Reader:
    """Accumulates what `read_swf` finds, chunk after chunk."""

    path: str
    skip_bad_records: bool
    scan: Callable[[bytes], ChunkScan]
    header: list[tuple[str, str]] = field(default_factory=list)
    parts: list[np.ndarray] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    n_records: int = 0

    def read_chunk(self, chunk: bytes, first_line: int) -> int:
        """Parse one chunk whose first line has number `first_line`; returns its number of lines."""
        scan = self.scan(chunk)
        kinds, starts, ends = scan.kinds.copy(), scan.starts, scan.ends
        data_lines = np.flatnonzero(kinds == _DATA)  # the lines of scan.values, in order
        doubtful = _doubtful_records(scan.values)
        kinds[data_lines[doubtful]] = _SUSPECT
        lines, records = [data_lines[~doubtful]], [scan.values[:, ~doubtful]]
        for i in np.flatnonzero(kinds == _COMMENT).tolist():
            self._comment(chunk[starts[i]:ends[i]])
        for i in np.flatnonzero(kinds == _SUSPECT).tolist():
            parsed = _parse_record(chunk[starts[i]:ends[i]])
            self.n_records += 1
            if isinstance(parsed, _Problem):
                self._problem(first_line + i, parsed)
            else:
                lines.append(np.array([i]))
                records.append(np.array(parsed).reshape(N_SWF_FIELDS, 1))
        self.n_records += len(lines[0])
        if len(records) > 1:  # records rescued by the reference parser go back to their place in file order
            self.parts.append(np.concatenate(records, axis=1)[:, np.argsort(np.concatenate(lines), kind="stable")])
        else:
            self.parts.append(records[0])
        return kinds.size

    def _comment(self, line: bytes) -> None:
        text = line.decode("utf-8", errors="replace").strip()[1:].strip()
        match = _HEADER.fullmatch(text)
        if match:
            self.header.append((match.group(1), match.group(2).strip()))

    def _problem(self, line: int, problem: _Problem) -> None:
        """Raise the problem as an InputError, or count it when skipping bad records."""
        if not self.skip_bad_records:
            raise InputError(f"{problem.detail}. {_FIX}", path=self.path, line=line, field=problem.field)
        self.skipped[problem.reason] += 1
        if len(self.problems) < MAX_FIRST_PROBLEMS:
            count = self.skipped[problem.reason]
            message = f"{problem.detail}; line dropped ({count} '{problem.reason}' so far)"
            self.problems.append(str(InputError(message, path=self.path, line=line, field=problem.field)))

    def columns(self) -> WorkloadColumns:
        values = np.concatenate(self.parts, axis=1) if self.parts else np.empty((N_SWF_FIELDS, 0))
        columns, fallbacks = _job_columns(values)
        report = ReadReport(n_records=self.n_records, skipped=dict(self.skipped), fallbacks=fallbacks,
                            first_problems=tuple(self.problems))
        return WorkloadColumns(columns=columns, header=tuple(self.header), source=self.path, read_report=report)


def _doubtful_records(values: np.ndarray) -> np.ndarray:
    """Records (columns of `values`) that break a value rule, for `_parse_record` to name the problem."""
    ints = values[_INT_COLUMNS]
    return (((values < 0) & (values != MISSING)).any(axis=0) | (values[_SUBMIT] < 0)
            | (ints != np.floor(ints)).any(axis=0))


def _parse_record(line: bytes) -> list[float] | _Problem:
    """The 18 values of one data line, or its first problem: the slow reference parser (module docstring)."""
    tokens = line.split()
    if len(tokens) != N_SWF_FIELDS:
        return _Problem(REASON_FIELD_COUNT, "count",
                        f"expected {N_SWF_FIELDS} whitespace-separated fields, found {len(tokens)}")
    row = []
    for name, token in zip(SWF_FIELDS, tokens, strict=True):
        value = _parse_value(name, token)
        if isinstance(value, _Problem):
            return value
        row.append(value)
    return row


def _parse_value(name: str, token: bytes) -> float | _Problem:
    """One field's value, or why it is not acceptable (checks in the order of the module docstring)."""
    if not _NUMBER.fullmatch(token):
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            return _Problem(REASON_NOT_UTF8, name, f"bytes {_clip(token)} are not UTF-8 text; expected a number "
                            "(is this a binary or corrupted file?)")
        return _Problem(REASON_NON_NUMERIC, name, f"{_clip(text)} is not a number; expected a decimal such as "
                        "42, 3.5, or -1 for missing")
    value = float(token)
    text = _clip(token.decode("ascii"))
    is_int = name not in SWF_FLOAT_FIELDS
    if not np.isfinite(value) or (is_int and abs(value) >= _MAX_EXACT_INT):
        limit = "an integer below 2**53 in magnitude" if is_int else "a finite number"
        return _Problem(REASON_OUT_OF_RANGE, name, f"{text} is out of range; expected {limit}")
    if is_int and not value.is_integer():
        return _Problem(REASON_FRACTION, name, f"{text} has a fraction; {name} is an integer field, expected a "
                        "whole number or -1 for missing")
    if name == "submit_time" and value < 0:
        return _Problem(REASON_NEGATIVE_SUBMIT, name, f"submit time {text} is negative; expected seconds >= 0 "
                        "since the start of the log (a job cannot be placed in time without it)")
    if value < 0 and value != MISSING:
        return _Problem(REASON_NEGATIVE, name, f"{text} is negative; expected a value >= 0, or -1 for missing")
    return value


def _clip(token: bytes | str, limit: int = 40) -> str:
    """repr of a token, shortened so that one garbage line cannot flood the message."""
    return repr(token if len(token) <= limit else token[:limit]) + ("..." if len(token) > limit else "")


def _job_columns(values: np.ndarray) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """The jobs' columns from one row of `values` per field, sorted by submit time, with the derived columns;
    and the fallback counts."""
    submit = values[_SUBMIT]
    fallbacks = {FALLBACK_OUT_OF_ORDER: int(np.count_nonzero(submit < np.maximum.accumulate(submit)))}
    if fallbacks[FALLBACK_OUT_OF_ORDER]:
        values = values[:, np.argsort(submit, kind="stable")]
    columns: dict[str, np.ndarray] = {
        name: values[j].copy() if name in SWF_FLOAT_FIELDS else values[j].astype(np.int64)
        for j, name in enumerate(SWF_FIELDS)
    }
    allocated, requested = columns["allocated_processors"], columns["requested_processors"]
    use_requested = (allocated < 1) & (requested >= 1)
    no_processors = (allocated < 1) & (requested < 1)
    columns[PROCESSORS] = np.where(allocated >= 1, allocated, np.where(use_requested, requested, MISSING))
    requested_time, run_time = columns["requested_time"], columns["run_time"]
    use_run_time = (requested_time < 0) & (run_time >= 0)
    no_estimate = (requested_time < 0) & (run_time < 0)
    columns[RUNTIME_ESTIMATE] = np.where(requested_time >= 0, requested_time,
                                         np.where(use_run_time, run_time, float(MISSING)))
    fallbacks |= {
        FALLBACK_PROCESSORS_REQUESTED: int(np.count_nonzero(use_requested)),
        FALLBACK_PROCESSORS_MISSING: int(np.count_nonzero(no_processors)),
        FALLBACK_ESTIMATE_RUN_TIME: int(np.count_nonzero(use_run_time)),
        FALLBACK_ESTIMATE_MISSING: int(np.count_nonzero(no_estimate)),
    }
    return columns, {key: n for key, n in fallbacks.items() if n}


# ----------------------------------------------------------------------------------------------------------- writing

def write_swf(workload: Workload, path: str | Path, *, extra_header: Sequence[tuple[str, str]] = ()) -> None:
    """Write `workload` as SWF, atomically; gzip-compressed when `path` ends in ``.gz``.

    Implements the Standard Workload Format v2.2 (Parallel Workloads Archive ``swf.html``): the ``; Key: value``
    lines of ``workload.header`` then `extra_header`, then one line per job with the 18 `SWF_FIELDS` (integers as
    integers, floats in their shortest exact form without needless decimals: ``142.0`` -> ``142``). Derived
    columns are not written; `read_swf` recomputes them, so read -> write -> read gives the same jobs and header.

    Parameters
    ----------
    workload : the jobs (must have every SWF column, without NaN) and header to write.
    path : destination; the file is either complete or absent (`fairsched._io.atomic_write`).
    extra_header : further ``(key, value)`` header pairs, e.g. ``[("Note", "scaled to load 0.9")]``.

    Raises
    ------
    ConfigError
        A missing SWF column, a NaN or infinite value, or a header key/value that SWF cannot carry.
    """
    header = [*workload.header, *extra_header]
    head = "".join(_header_line(key, value) for key, value in header)
    columns = _formatted_columns(workload.jobs)
    gzip_it = str(path).endswith(".gz")
    with atomic_write(path, "wb") as raw, (
        gzip.GzipFile(filename=Path(path).name, mode="wb", fileobj=raw, mtime=0) if gzip_it else nullcontext(raw)
    ) as sink:
        sink.write(head.encode("utf-8"))
        for lo in range(0, len(workload.jobs), _WRITE_ROWS):
            rows = zip(*(col[lo:lo + _WRITE_ROWS] for col in columns), strict=True)
            sink.write(("\n".join(map(" ".join, rows)) + "\n").encode("ascii"))


def _header_line(key: str, value: str) -> str:
    if not _KEY.fullmatch(key):
        raise ConfigError(f"SWF header key {key!r} is not one word; use letters, digits, '_' or '-', "
                          "starting with a letter (e.g. 'MaxProcs')")
    if "\n" in value or "\r" in value:
        raise ConfigError(f"SWF header value of {key!r} contains a line break; header values are one line each")
    return f"; {key}: {value}\n"


def _formatted_columns(jobs: pd.DataFrame) -> list[list[str]]:
    """The 18 SWF columns of `jobs` as lists of strings, in file order."""
    missing = [name for name in SWF_FIELDS if name not in jobs.columns]
    if missing:
        raise ConfigError(f"cannot write SWF: the jobs table lacks the columns {', '.join(missing)}; "
                          "expected all 18 of fairsched.workload.schema.SWF_FIELDS")
    return [_format_column(name, jobs[name].to_numpy()) for name in SWF_FIELDS]


def _format_column(name: str, values: np.ndarray) -> list[str]:
    """Integers as integers; floats as integers when whole (and exact), else in Python's shortest repr."""
    if values.dtype.kind in "iub":
        return values.astype(np.int64).astype(str).tolist()
    values = values.astype(np.float64)
    n_bad = int(np.count_nonzero(~np.isfinite(values)))
    if n_bad:
        raise ConfigError(f"cannot write SWF: column {name} has {n_bad} NaN or infinite values; SWF has neither, "
                          "so replace them with -1 (missing) first")
    whole = (values == np.floor(values)) & (np.abs(values) < _MAX_EXACT_INT)
    out = np.empty(values.size, dtype=object)
    out[whole] = values[whole].astype(np.int64).astype(str)
    out[~whole] = [repr(v) for v in values[~whole].tolist()]
    return out.tolist()
