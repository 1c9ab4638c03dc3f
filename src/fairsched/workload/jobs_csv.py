"""Read a Batsim / evalys ``jobs.csv`` (the schedule a Batsim simulation wrote), the one jobs.csv reader.

Batsim's output, one row per job (oar-team/batsim ``docs/output-jobs.rst``): ``job_id``, ``workload_name``,
``submission_time``, ``requested_number_of_resources``, ``requested_time``, ``starting_time``,
``execution_time``, ``finish_time``, ``waiting_time``, ``final_state``, ... Columns are taken by name; the required
ones are ``job_id``, ``submission_time``, ``requested_number_of_resources`` and ``starting_time``, plus
``execution_time`` or ``finish_time``. Optional accounting columns ``account``, ``user``, ``group``, ``partition``,
``queue`` (evalys and many converters add them) become the organization keys; without them, ``account`` is the
``workload_name`` (Batsim runs one workload per submitter when several submit). ``user_id``/``group_id`` fill
the SWF numeric ids.

Rules: times are seconds (floats are rounded to the nearest second, counted); a job with ``final_state``
``REJECTED`` or a negative / empty ``starting_time`` never started (``wait_time = run_time = -1``), counted; the
requested time is the user's estimate (``-1`` or empty: none). A malformed value raises
``FILE:LINE: field NAME: problem``; ``skip_bad_records=True`` drops and counts such rows. The file may be
gzip-compressed (recognised by its magic bytes; `fairsched.workload.files`).
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from fairsched.errors import InputError
from fairsched.workload.files import read_bytes
from fairsched.workload.model import ReadReport, Workload
from fairsched.workload.schema import (
    ACCOUNTING_KEYS,
    JOB_ID,
    MEMORY_MB,
    MISSING,
    PROCESSORS,
    RUNTIME_ESTIMATE,
    SWF_FIELDS,
)

__all__ = ["NOTE_NEVER_STARTED", "NOTE_ROUNDED", "is_jobs_csv_header", "read_jobs_csv"]

NOTE_NEVER_STARTED = "never started (REJECTED or no starting_time)"
NOTE_ROUNDED = "fractional seconds rounded"
NOTE_ACCOUNT_FROM_WORKLOAD = "account from workload_name (no account column)"
REASON_VALUE = "malformed value"
_REQUIRED = ("job_id", "submission_time", "requested_number_of_resources", "starting_time")


def is_jobs_csv_header(line: str) -> bool:
    """Whether `line` is the header of a Batsim jobs.csv."""
    names = {name.strip() for name in line.strip().split(",")}
    return {"job_id", "submission_time", "starting_time"} <= names


def read_jobs_csv(path: str | Path, *, skip_bad_records: bool = False) -> Workload:
    """Read a Batsim / evalys ``jobs.csv`` into a `Workload` (SWF columns + accounting columns; module docstring).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "jobs.csv"
    >>> _ = p.write_text("job_id,workload_name,submission_time,requested_number_of_resources,requested_time,"
    ...                  "starting_time,execution_time,final_state\\n"
    ...                  "w0!1,w0,0,2,100,5,50,COMPLETED_SUCCESSFULLY\\nw1!2,w1,3,1,-1,-1,0,REJECTED\\n")
    >>> w = read_jobs_csv(p)
    >>> w.jobs[["job_id", "account", "wait_time", "run_time", "processors"]].values.tolist()
    [['w0!1', 'w0', 5.0, 50.0, 2], ['w1!2', 'w1', -1.0, -1.0, 1]]
    """
    path = Path(path)
    text = read_bytes(path).decode("utf-8", errors="replace")  # gzip or plain (fairsched.workload.files)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if not rows:
        raise InputError("empty file: no jobs.csv header line", path=path, line=1)
    names = [name.strip() for name in rows[0]]
    missing = [name for name in _REQUIRED if name not in names]
    if "execution_time" not in names and "finish_time" not in names:
        missing.append("execution_time")
    if missing:
        raise InputError(f"missing column {missing[0]}; a Batsim jobs.csv names {', '.join(_REQUIRED)}, "
                         "execution_time", path=path, line=1, field=missing[0])
    notes: Counter = Counter()
    skipped: Counter = Counter()
    problems: list[str] = []
    records = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        try:
            records.append((number, *_record(dict(zip(names, row, strict=False)), notes)))
        except _Problem as problem:
            error = InputError(problem.message, path=path, line=number, field=problem.field)
            if not skip_bad_records:
                raise error from None
            skipped[REASON_VALUE] += 1
            if len(problems) < 20:
                problems.append(str(error))
    if "account" not in names:
        notes[NOTE_ACCOUNT_FROM_WORKLOAD] = len(records)
    report = ReadReport(n_records=len(records) + sum(skipped.values()), skipped=dict(skipped),
                        fallbacks=dict(notes), first_problems=tuple(problems))
    return Workload(jobs=_table(records), header=(("Format", "jobs-csv"),), source=str(path), read_report=report)


class _Problem(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


def _seconds(row: dict[str, str], name: str, notes: Counter, *, allow_missing: bool = False) -> int:
    text = (row.get(name) or "").strip()
    if text == "" and allow_missing:
        return MISSING
    try:
        value = float(text)
    except ValueError:
        raise _Problem(name, f"{text!r} is not a number of seconds") from None
    if not np.isfinite(value):
        raise _Problem(name, f"{text!r} is not a finite number of seconds")
    if value != round(value):
        notes[NOTE_ROUNDED] += 1
    return round(value)


def _record(row: dict[str, str], notes: Counter) -> tuple:
    job_id = (row.get("job_id") or "").strip()
    if not job_id:
        raise _Problem("job_id", "empty job id")
    submit = _seconds(row, "submission_time", notes)
    if submit < 0:
        raise _Problem("submission_time", f"negative submit time {submit}")
    cpus = _seconds(row, "requested_number_of_resources", notes)
    limit = _seconds(row, "requested_time", notes, allow_missing=True)
    start = _seconds(row, "starting_time", notes, allow_missing=True)
    state = (row.get("final_state") or "").strip()
    if state == "REJECTED" or start < 0:
        notes[NOTE_NEVER_STARTED] += 1
        wait = run = MISSING
    else:
        if "execution_time" in row and (row["execution_time"] or "").strip():
            run = _seconds(row, "execution_time", notes)
        else:
            run = _seconds(row, "finish_time", notes) - start
        if run < 0:
            raise _Problem("execution_time", f"negative run time {run}")
        if start < submit:
            raise _Problem("starting_time", f"starts {submit - start} s before its submission")
        if cpus < 1:
            raise _Problem("requested_number_of_resources", f"{cpus} resources for a job that ran")
        wait = start - submit
    status = 1 if state.startswith("COMPLETED_SUCCESSFULLY") else (5 if state == "COMPLETED_KILLED" else 0)
    keys = [(row.get(key) or "").strip() for key in ACCOUNTING_KEYS]
    if "account" not in row:
        keys[0] = (row.get("workload_name") or "").strip()
    ids = [int(row[name]) if (row.get(name) or "").strip().lstrip("-").isdigit() else MISSING
           for name in ("user_id", "group_id")]
    return (job_id, submit, wait, run, cpus, limit, status, state, *ids, *keys)


def _table(records: list[tuple]) -> pd.DataFrame:
    columns = ("line", JOB_ID, "submit", "wait_time", "run_time", PROCESSORS, "requested_time", "status", "state",
               "user_id", "group_id", *ACCOUNTING_KEYS)
    raw = pd.DataFrame.from_records(records, columns=columns).sort_values(["submit", "line"], kind="stable")
    raw = raw.reset_index(drop=True)
    n = len(raw)
    jobs = pd.DataFrame({name: np.full(n, MISSING, dtype=np.int64) for name in SWF_FIELDS})
    for name in ("average_cpu_time", "used_memory", "requested_memory", "think_time"):
        jobs[name] = jobs[name].astype(np.float64)
    jobs["job_number"] = np.arange(1, n + 1, dtype=np.int64)
    jobs["submit_time"] = raw["submit"].to_numpy(np.float64)
    for name in ("wait_time", "run_time", "requested_time"):
        jobs[name] = raw[name].to_numpy(np.float64)
    for name in ("status", "user_id", "group_id"):
        jobs[name] = raw[name].to_numpy(np.int64)
    jobs["allocated_processors"] = raw[PROCESSORS].to_numpy(np.int64)
    jobs[PROCESSORS] = raw[PROCESSORS].to_numpy(np.int64)
    estimate = jobs["requested_time"].to_numpy()
    jobs[RUNTIME_ESTIMATE] = np.where(estimate >= 0, estimate, jobs["run_time"].to_numpy())
    for name in (JOB_ID, *ACCOUNTING_KEYS, "state"):
        jobs[name] = raw[name].astype(str).to_numpy() if n else np.array([], dtype=object)
    jobs[MEMORY_MB] = np.full(n, np.nan)
    jobs["line"] = raw["line"].to_numpy(np.int64)
    return jobs
