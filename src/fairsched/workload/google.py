"""Read the Google cluster trace 2011 (clusterdata-2011-2) into a concurrent open shop instance; the one Google reader.

Implements the workload of Shafiee & Ghaderi, "On max-min fairness of completion times for multi-task job
scheduling", IFIP Networking 2020 (Networking'20), §VII: jobs of at most 200 tasks, the original machines mapped at
random onto 200 machines, several tasks of one job on one machine merged into one task (§II, footnote 2), the
priority kept for linear utilities. Trace schema: C. Reiss, J. Wilkes, J. L. Hellerstein, "Google cluster-usage
traces: format + schema" (2011/2014); summary in ../shared/traces/SWF_FORMAT.md.

Input
-----
``DIR/task_events/part-NNNNN-of-MMMMM.csv.gz`` and ``DIR/job_events/part-NNNNN-of-MMMMM.csv.gz``: gzip CSV, no
header, times in microseconds (0 = before the trace window, which starts at 600 s). Only these columns are read:

==============  ===========================  =====================================================
table           column (0-based)             expected
==============  ===========================  =====================================================
task_events     0 time, 2 job ID,            integers >= 0; event type 0..8; the machine ID may be
                3 task index, 4 machine ID,  empty except on SCHEDULE events (it names the machine
                5 event type, 8 priority     the task runs on)
job_events      0 time, 2 job ID,            integers >= 0; event type 0..8
                3 event type
==============  ===========================  =====================================================

Event types: 0 SUBMIT, 1 SCHEDULE, 2 EVICT, 3 FAIL, 4 FINISH, 5 KILL, 6 LOST, 7 UPDATE_PENDING, 8 UPDATE_RUNNING.
Fields past the last column of the schema are ignored. A malformed row raises `InputError` as
``FILE:LINE: field NAME: problem``; with ``skip_bad_records=True`` it is dropped and counted by reason
(`SKIP_REASONS`) in `GoogleReport.skipped`.

Rules
-----
* Events of a task (job ID, task index) are taken in time order, ties in file order (parts in part order).
* A task *finished* when its last state event (SCHEDULE, EVICT, FAIL, FINISH, KILL or LOST) is a FINISH; its
  duration is that FINISH time minus its last SCHEDULE time (an earlier run that was evicted does not count) and it
  ran on the machine of that SCHEDULE.
* Production class (§VII: "jobs with at most 200 number of tasks which are about 99% of all the jobs in the
  production class"), only with ``min_priority`` > 0: a job is kept only if its priority (the largest on any event
  of its tasks) is at least ``min_priority``; `PRODUCTION_PRIORITY` = 9, since "9, 10, and 11 are production
  priorities" (google/cluster-data, ClusterData2011_2.md). Off by default: the paper also says its jobs have "9
  different values of job priorities", which a production-only set (3 values at most) cannot have; the effect of
  the filter is measured in docs/replication/networking20.md.
* A job is kept when it has at most `max_tasks` tasks (distinct task indices, before merging), every task finished,
  no task was scheduled at time 0 (it started before the window: its duration is unknown) and job_events has a
  SUBMIT for it. Its arrival is its first SUBMIT time (0 when submitted before the window). Otherwise the job is
  counted under the first reason of `DROP_REASONS` that applies, in `GoogleReport.dropped_jobs` (and its tasks in
  `GoogleReport.dropped_tasks`).
* Machines: every original machine ID seen on a SCHEDULE event of the parts read is sent, independently and
  uniformly at random, to one of `machines` machines: sorted IDs, ``default_rng(seed).integers(0, machines)``. The
  same parts and seed give the same map.
* Tasks of one job that land on one machine (same original machine, or two original machines mapped together)
  merge into one task whose duration is the sum (footnote 2).
* Priority: P_j = 1 + the largest priority (0..11 in the trace) on any event of the job's tasks, so that P_j > 0 for
  linear utilities U_j(t) = P_j (τ - t) (§VI).
* Units: times become integers in units of `time_unit_s` seconds (default 1 s, the paper's unit; δ₀ of the online
  algorithm is in seconds). Merged durations and arrivals are rounded up (a job never arrives before it was
  submitted; a task never gets 0); `GoogleReport.raised_to_one_unit` counts merged tasks shorter than one unit.

Jobs are sorted by arrival, ties by job ID; ``OpenShopInstance.job_id`` is the Google job ID.

Speed
-----
pandas' C parser reads the 10 parts of the stored slice (1,827,856 task events, 39,435 job events) and the rows are
checked in about 1.0-1.1 s; the rules (two sorts and segment reductions, vectorized numpy) take about 0.5 s more:
``read_google`` on the whole slice takes 1.5 s (best of 3; 1.9 s cold) on a loaded 2-core machine.
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from fairsched.errors import ConfigError, InputError
from fairsched.workload.multitask import OpenShopInstance

__all__ = [
    "DROP_REASONS",
    "JOB_EVENT_COLUMNS",
    "PRODUCTION_PRIORITY",
    "SKIP_REASONS",
    "TASK_EVENT_COLUMNS",
    "GoogleReport",
    "read_google",
]

# The schema, in file order (Reiss, Wilkes & Hellerstein, "format + schema", task_events and job_events tables).
TASK_EVENT_COLUMNS: tuple[str, ...] = (
    "time", "missing_info", "job_id", "task_index", "machine_id", "event_type", "user", "scheduling_class",
    "priority", "cpu_request", "memory_request", "disk_request", "different_machine",
)
JOB_EVENT_COLUMNS: tuple[str, ...] = (
    "time", "missing_info", "job_id", "event_type", "user", "scheduling_class", "job_name", "logical_job_name",
)
SUBMIT, SCHEDULE, EVICT, FAIL, FINISH, KILL, LOST, UPDATE_PENDING, UPDATE_RUNNING = range(9)
_MICROSECONDS = 1_000_000

# GoogleReport.dropped_jobs keys, in the order they are tried (a job is counted under the first that applies).
DROP_BELOW_PRIORITY = "priority below min_priority (not the production class)"
DROP_TOO_MANY_TASKS = "more than max_tasks tasks"
DROP_NEVER_SCHEDULED = "a task never scheduled"
DROP_RUNNING = "a task still running at the end of the slice"
DROP_EVICTED = "a task evicted (last event EVICT)"
DROP_FAILED = "a task failed (last event FAIL)"
DROP_KILLED = "a task killed (last event KILL)"
DROP_LOST = "a task lost (last event LOST)"
DROP_NO_SCHEDULE = "a task finished without a SCHEDULE event"
DROP_STARTED_BEFORE = "a task started before the trace window (duration unknown)"
DROP_NO_SUBMIT = "no SUBMIT event in job_events (arrival unknown)"
DROP_NO_TASKS = "no task events in the slice"
DROP_REASONS: tuple[str, ...] = (DROP_BELOW_PRIORITY,
                                 DROP_TOO_MANY_TASKS, DROP_NEVER_SCHEDULED, DROP_RUNNING, DROP_EVICTED, DROP_FAILED,
                                 DROP_KILLED, DROP_LOST, DROP_NO_SCHEDULE, DROP_STARTED_BEFORE, DROP_NO_SUBMIT,
                                 DROP_NO_TASKS)
PRODUCTION_PRIORITY = 9  # "9, 10, and 11 are production priorities" (ClusterData2011_2.md)
_KEEP = len(DROP_REASONS)  # the "reason" code of a kept task or job: larger than every real reason
# Last state event of a task -> its reason code (FINISH is refined afterwards).
_LAST_EVENT_REASON = {-1: DROP_NEVER_SCHEDULED, SCHEDULE: DROP_RUNNING, EVICT: DROP_EVICTED, FAIL: DROP_FAILED,
                      KILL: DROP_KILLED, LOST: DROP_LOST}

# GoogleReport.skipped keys: why a row was dropped with skip_bad_records=True.
SKIP_MISSING = "missing value"
SKIP_NON_NUMERIC = "non-numeric value"
SKIP_FRACTION = "fraction in integer field"
SKIP_OUT_OF_RANGE = "value out of range"
SKIP_REASONS: tuple[str, ...] = (SKIP_MISSING, SKIP_NON_NUMERIC, SKIP_FRACTION, SKIP_OUT_OF_RANGE)
MAX_FIRST_PROBLEMS = 20
_MAX_EXACT = 2**53  # float64 (pandas' type for a column with empty cells) holds every integer below this exactly
_PART = re.compile(r"part-(\d+)-of-\d+\.csv(\.gz)?$")
_FIX = "Fix the row, or pass skip_bad_records=True (--skip-bad-records) to drop such rows and count them."


@dataclass(frozen=True)
class _Field:
    """One column read from a table: its name, 0-based position and allowed range."""

    name: str
    column: int
    hi: int = _MAX_EXACT - 1
    required: bool = True


@dataclass(frozen=True)
class _Table:
    subdir: str
    columns: tuple[str, ...]
    fields: tuple[_Field, ...]


_TASK_TABLE = _Table("task_events", TASK_EVENT_COLUMNS, (
    _Field("time", 0), _Field("job_id", 2), _Field("task_index", 3), _Field("machine_id", 4, required=False),
    _Field("event_type", 5, hi=8), _Field("priority", 8)))
_JOB_TABLE = _Table("job_events", JOB_EVENT_COLUMNS, (_Field("time", 0), _Field("job_id", 2),
                                                      _Field("event_type", 3, hi=8)))


@dataclass(frozen=True)
class GoogleReport:
    """What `read_google` read, kept and dropped, and why.

    Attributes
    ----------
    time_unit_s : seconds per time unit of the instance (arrivals and processing times are integers in it).
    parts : part numbers read.
    n_task_events, n_job_events : rows read (good and bad).
    n_jobs_seen : distinct job IDs in task_events or job_events.
    n_tasks_seen : distinct (job ID, task index) in task_events.
    n_jobs_kept : jobs of the instance.
    n_tasks_kept : tasks of the kept jobs, before merging.
    n_merged_tasks : tasks of the instance (after mapping machines and merging, footnote 2).
    n_original_machines : distinct machine IDs on SCHEDULE events.
    dropped_jobs : jobs dropped, by reason (`DROP_REASONS`).
    dropped_tasks : tasks of the dropped jobs, by the job's reason.
    raised_to_one_unit : merged tasks shorter than one time unit, given 1 unit.
    skipped : bad rows dropped with ``skip_bad_records=True``, by reason (`SKIP_REASONS`).
    first_problems : the first bad rows, as ``FILE:LINE: field NAME: problem`` strings.
    """

    time_unit_s: float
    parts: tuple[int, ...] = ()
    n_task_events: int = 0
    n_job_events: int = 0
    n_jobs_seen: int = 0
    n_tasks_seen: int = 0
    n_jobs_kept: int = 0
    n_tasks_kept: int = 0
    n_merged_tasks: int = 0
    n_original_machines: int = 0
    dropped_jobs: dict[str, int] = field(default_factory=dict)
    dropped_tasks: dict[str, int] = field(default_factory=dict)
    raised_to_one_unit: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    first_problems: tuple[str, ...] = ()


def read_google(directory: str | Path, *, machines: int = 200, max_tasks: int = 200, seed: int = 0,
                skip_bad_records: bool = False, parts: Sequence[int] | None = None,
                time_unit_s: float = 1.0, min_priority: int = 0) -> tuple[OpenShopInstance, GoogleReport]:
    """Read the task_events and job_events parts of a clusterdata-2011-2 directory into an `OpenShopInstance`.

    Implements the data preparation of Networking'20 §VII (jobs of at most 200 tasks on 200 randomly mapped
    machines, merged tasks per footnote 2); the rules are in this module's docstring.

    Parameters
    ----------
    directory : holds ``task_events/`` and ``job_events/`` with ``part-NNNNN-of-MMMMM.csv.gz`` files.
    machines : number of machines of the instance (m).
    max_tasks : largest number of tasks (before merging) of a kept job.
    seed : seed of the random machine map.
    skip_bad_records : drop malformed rows and count them instead of raising on the first one.
    parts : part numbers to read from both tables (each must exist); None = every part present.
    time_unit_s : seconds per integer time unit of the instance (> 0; durations and arrivals are rounded up).
    min_priority : keep only jobs whose trace priority is at least this (0 = every job; `PRODUCTION_PRIORITY` = the
        production class of §VII).

    Returns
    -------
    (OpenShopInstance, GoogleReport)
        Jobs sorted by arrival then job ID, ``job_id`` the Google job ID, ``priority`` = trace priority + 1.

    Raises
    ------
    InputError
        A missing directory or part, an unreadable file, or ``FILE:LINE: field NAME: problem`` for a bad row.
    ConfigError
        ``machines``, ``max_tasks`` or ``time_unit_s`` out of range.

    Notes
    -----
    O(E log E) for E task events (two sorts); memory a few arrays of E int64.
    """
    _check_options(machines, max_tasks, time_unit_s)
    if int(min_priority) != min_priority or not 0 <= min_priority <= 11:
        raise ConfigError(f"min_priority: expected a trace priority 0..11 (9 = production), got {min_priority!r}")
    problems = _Problems(skip_bad_records)
    part_numbers, task_paths, job_paths = _part_files(Path(directory), parts)
    tasks, n_task_rows = _read_table(task_paths, _TASK_TABLE, problems)
    jobs, n_job_rows = _read_table(job_paths, _JOB_TABLE, problems)
    outcome = _task_outcomes(tasks)
    instance, counts = _build(outcome, jobs, machines=machines, max_tasks=max_tasks, seed=seed,
                              unit_us=time_unit_s * _MICROSECONDS, min_priority=int(min_priority))
    report = GoogleReport(time_unit_s=float(time_unit_s), parts=part_numbers, n_task_events=n_task_rows,
                          n_job_events=n_job_rows, skipped=dict(problems.skipped),
                          first_problems=tuple(problems.first), **counts)
    return instance, report


def _check_options(machines: int, max_tasks: int, time_unit_s: float) -> None:
    if int(machines) != machines or machines < 1:
        raise ConfigError(f"machines: expected an integer >= 1, got {machines!r}")
    if int(max_tasks) != max_tasks or max_tasks < 1:
        raise ConfigError(f"max_tasks: expected an integer >= 1, got {max_tasks!r}")
    if not np.isfinite(time_unit_s) or time_unit_s <= 0:
        raise ConfigError(f"time_unit_s: expected seconds > 0 (1 = seconds, 0.001 = milliseconds), got {time_unit_s!r}")


# ----------------------------------------------------------------------------------------------------------- files

def _part_files(directory: Path, parts: Sequence[int] | None) -> tuple[tuple[int, ...], list[Path], list[Path]]:
    """The part numbers and files of both tables, in part order."""
    found = {}
    for table in (_TASK_TABLE, _JOB_TABLE):
        sub = directory / table.subdir
        if not sub.is_dir():
            raise InputError(f"no {table.subdir}/ directory; expected the clusterdata-2011-2 layout "
                             f"{table.subdir}/part-00000-of-00500.csv.gz. Check the path.", path=directory)
        found[table.subdir] = {int(m.group(1)): p for p in sub.iterdir() if (m := _PART.match(p.name))}
    tasks, jobs = found["task_events"], found["job_events"]
    wanted = sorted(set(tasks) | set(jobs)) if parts is None else sorted({int(k) for k in parts})
    if not wanted:
        raise InputError("no part-NNNNN-of-MMMMM.csv.gz files in task_events/ and job_events/ (or parts=[]); "
                         "nothing to read. Check the path.", path=directory)
    for number in wanted:
        for name, table in (("task_events", tasks), ("job_events", jobs)):
            if number not in table:
                raise InputError(f"part {number} of {name} is missing (found parts {sorted(table)}); both tables "
                                 "must cover the same time windows. Pass parts= to choose the parts present.",
                                 path=directory / name)
    return tuple(wanted), [tasks[k] for k in wanted], [jobs[k] for k in wanted]


class _Problems:
    """Raise on the first bad row, or count bad rows by reason and keep the first messages."""

    def __init__(self, skip: bool) -> None:
        self.skip = skip
        self.skipped: Counter[str] = Counter()
        self.first: list[str] = []

    def add(self, path: Path, lines: np.ndarray, fields: list[str], reasons: np.ndarray, details: list[str]) -> None:
        """Bad rows of one file: `reasons` for all of them, `fields` and `details` for the first ones."""
        if not self.skip:
            raise InputError(f"{details[0]}. {_FIX}", path=path, line=int(lines[0]), field=fields[0])
        self.skipped.update({SKIP_REASONS[r]: int(c) for r, c in zip(*np.unique(reasons, return_counts=True),
                                                                     strict=True)})
        for line, name, detail in zip(lines, fields, details, strict=False):
            if len(self.first) >= MAX_FIRST_PROBLEMS:
                break
            self.first.append(str(InputError(detail, path=path, line=int(line), field=name)))


def _read_table(paths: list[Path], table: _Table, problems: _Problems) -> tuple[dict[str, np.ndarray], int]:
    """The good rows of every part, concatenated in part order, as int64 columns (-1 = empty machine ID)."""
    frames, n_rows = [], 0
    for path in paths:
        raw = _read_csv(path, table)
        n_rows += len(raw)
        frames.append(_good_rows(raw, table, path, problems))
    names = [f.name for f in table.fields]
    return {name: np.concatenate([f[name] for f in frames]) if frames else np.zeros(0, np.int64)
            for name in names}, n_rows


def _read_csv(path: Path, table: _Table) -> pd.DataFrame:
    try:
        return pd.read_csv(path, header=None, names=range(len(table.columns)),
                           usecols=[f.column for f in table.fields], skip_blank_lines=False, compression="infer",
                           encoding="latin-1", low_memory=False)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise InputError(f"cannot read the file ({exc}); it looks truncated, corrupted or unreadable.",
                         path=path) from exc
    except pd.errors.EmptyDataError:
        return pd.DataFrame({f.column: np.zeros(0, np.int64) for f in table.fields})
    except pd.errors.ParserError as exc:
        raise InputError(f"not a {table.subdir} CSV part ({exc}); expected {len(table.columns)} comma-separated "
                         f"fields: {', '.join(table.columns)}.", path=path) from exc


def _good_rows(raw: pd.DataFrame, table: _Table, path: Path, problems: _Problems) -> dict[str, np.ndarray]:
    """Check every field of every row; report the bad rows (first problem of each, in column order), keep the rest."""
    numbers = {fld.name: _as_number(raw[fld.column]) for fld in table.fields}
    kind = numbers["event_type"]
    first_field = np.full(len(raw), -1)
    first_reason = np.full(len(raw), -1)
    for k, fld in enumerate(table.fields):
        missing = raw[fld.column].isna().to_numpy()
        required = missing if fld.required else missing & (kind == SCHEDULE)  # the machine the task runs on
        for r, bad in enumerate(_field_problems(numbers[fld.name], missing, required, fld.hi)):
            hit = bad & (first_reason < 0)
            first_field[hit], first_reason[hit] = k, r
    bad_rows = np.flatnonzero(first_reason >= 0)
    if bad_rows.size:
        _report_rows(raw, table, path, problems, bad_rows, first_field[bad_rows], first_reason[bad_rows])
    good = first_reason < 0
    return {name: np.nan_to_num(v[good], nan=-1).astype(np.int64) for name, v in numbers.items()}


def _as_number(column: pd.Series) -> np.ndarray:
    """int64 when the column parsed as integers, else float64 with NaN for empty or non-numeric cells."""
    if column.dtype.kind in "iu":
        return column.to_numpy()
    number = column if column.dtype.kind == "f" else pd.to_numeric(column, errors="coerce")
    return number.to_numpy(dtype=np.float64, na_value=np.nan)


def _field_problems(number: np.ndarray, missing: np.ndarray, required: np.ndarray, hi: int) -> list[np.ndarray]:
    """Masks aligned with `SKIP_REASONS`: missing, non-numeric, fraction, out of range."""
    present = ~np.isnan(number) if number.dtype.kind == "f" else np.ones(number.size, dtype=bool)
    non_numeric = ~missing & ~present
    with np.errstate(invalid="ignore"):
        fraction = present & (np.floor(number) != number) if number.dtype.kind == "f" else ~present
        out_of_range = present & ((number < 0) | (number > hi))
    return [required, non_numeric, fraction & ~out_of_range, out_of_range]


def _report_rows(raw: pd.DataFrame, table: _Table, path: Path, problems: _Problems, rows: np.ndarray,
                 fields: np.ndarray, reasons: np.ndarray) -> None:
    shown = rows[:MAX_FIRST_PROBLEMS]  # messages are built for the first rows only: a bad file may have millions
    names = [table.fields[k].name for k in fields[: shown.size]]
    details = [_detail(table.fields[k], SKIP_REASONS[r], raw[table.fields[k].column].iloc[row])
               for row, k, r in zip(shown, fields, reasons, strict=False)]
    problems.add(path, rows + 1, names, reasons, details)


def _detail(fld: _Field, reason: str, value: object) -> str:
    wanted = "an event type 0..8" if fld.name == "event_type" else "an integer >= 0"
    if reason == SKIP_MISSING:
        when = " on a SCHEDULE event (the machine the task runs on)" if fld.name == "machine_id" else ""
        return f"{reason}{when}; expected {wanted}"
    return f"{reason} {str(value)[:40]!r}; expected {wanted}"


# ----------------------------------------------------------------------------------------------------------- rules

@dataclass(frozen=True)
class _TaskOutcome:
    """Per task (sorted by job ID then task index): its job, reason code, duration (µs) and original machine."""

    job: np.ndarray
    reason: np.ndarray
    duration_us: np.ndarray
    machine: np.ndarray
    job_priority: pd.Series  # largest priority of each job's task events, indexed by job ID
    machine_ids: np.ndarray  # sorted distinct machine IDs of SCHEDULE events


def _task_outcomes(ev: dict[str, np.ndarray]) -> _TaskOutcome:
    """Apply the task rules (module docstring, "Rules") to the events of every task."""
    order = np.lexsort((np.arange(ev["time"].size), ev["time"], ev["task_index"], ev["job_id"]))
    job, task, time, kind = (ev[k][order] for k in ("job_id", "task_index", "time", "event_type"))
    machine = ev["machine_id"][order]
    new = np.ones(job.size, dtype=bool)
    new[1:] = (job[1:] != job[:-1]) | (task[1:] != task[:-1])
    task_of = np.cumsum(new) - 1
    n_tasks = int(new.sum())
    last_state = _last_in_group(task_of, (kind >= SCHEDULE) & (kind <= LOST), n_tasks)
    last_schedule = _last_in_group(task_of, kind == SCHEDULE, n_tasks)
    last_kind = np.where(last_state >= 0, kind[last_state], -1)
    reason = np.full(n_tasks, _KEEP, dtype=np.int64)
    for event, name in _LAST_EVENT_REASON.items():
        reason[last_kind == event] = DROP_REASONS.index(name)
    finished = last_kind == FINISH
    reason[finished & (last_schedule < 0)] = DROP_REASONS.index(DROP_NO_SCHEDULE)
    start = np.where(last_schedule >= 0, time[last_schedule], -1)
    reason[finished & (start == 0)] = DROP_REASONS.index(DROP_STARTED_BEFORE)
    ok = reason == _KEEP
    duration = np.where(ok, time[last_state] - start, 0)
    priority = pd.Series(ev["priority"]).groupby(ev["job_id"]).max()
    return _TaskOutcome(job=job[new], reason=reason, duration_us=duration,
                        machine=np.where(ok, machine[last_schedule], -1), job_priority=priority,
                        machine_ids=np.unique(ev["machine_id"][ev["event_type"] == SCHEDULE]))


def _last_in_group(group: np.ndarray, mask: np.ndarray, n_groups: int) -> np.ndarray:
    """Index of the last event with `mask` in each group of consecutive events (-1 if none)."""
    out = np.full(n_groups, -1, dtype=np.int64)
    idx = np.flatnonzero(mask)
    g = group[idx]
    last = np.ones(idx.size, dtype=bool)
    last[:-1] = g[1:] != g[:-1]
    out[g[last]] = idx[last]
    return out


def _build(outcome: _TaskOutcome, job_events: dict[str, np.ndarray], *, machines: int, max_tasks: int, seed: int,
           unit_us: float, min_priority: int = 0) -> tuple[OpenShopInstance, dict]:
    """Apply the job rules, map machines, merge tasks and assemble the instance and the report counts."""
    jobs, first_task, n_tasks = np.unique(outcome.job, return_index=True, return_counts=True)
    reason = np.minimum.reduceat(outcome.reason, first_task) if jobs.size else np.zeros(0, np.int64)
    reason[n_tasks > max_tasks] = DROP_REASONS.index(DROP_TOO_MANY_TASKS)
    reason[outcome.job_priority.reindex(jobs).to_numpy() < min_priority] = DROP_REASONS.index(DROP_BELOW_PRIORITY)
    submitted = job_events["event_type"] == SUBMIT
    submit = pd.Series(job_events["time"][submitted]).groupby(job_events["job_id"][submitted]).min()
    arrival_us = submit.reindex(jobs).to_numpy()
    reason[np.isnan(arrival_us) & (reason == _KEEP)] = DROP_REASONS.index(DROP_NO_SUBMIT)
    silent = np.setdiff1d(np.unique(job_events["job_id"]), jobs)  # submitted but no task event in the slice
    kept = reason == _KEEP
    target = np.random.default_rng(seed).integers(0, machines, size=outcome.machine_ids.size)
    task_kept = np.repeat(kept, n_tasks)
    rank = np.empty(jobs.size, dtype=np.int64)
    order = np.lexsort((jobs[kept], np.ceil(arrival_us[kept] / unit_us)))
    rank[np.flatnonzero(kept)[order]] = np.arange(order.size)
    new_machine = target[np.searchsorted(outcome.machine_ids, outcome.machine[task_kept])]
    instance, raised = _merged_instance(rank[np.repeat(np.arange(jobs.size), n_tasks)[task_kept]], new_machine,
                                        outcome.duration_us[task_kept], machines, unit_us, jobs[kept][order],
                                        arrival_us[kept][order], outcome.job_priority.reindex(jobs[kept][order]))
    dropped = Counter({DROP_REASONS[r]: int(c) for r, c in zip(*np.unique(reason[~kept], return_counts=True),
                                                                 strict=True)})
    dropped_tasks = Counter({DROP_REASONS[r]: int(n_tasks[~kept][reason[~kept] == r].sum()) for r in
                             np.unique(reason[~kept])})
    if silent.size:
        dropped[DROP_NO_TASKS] = int(silent.size)
    counts = dict(n_jobs_seen=int(jobs.size + silent.size), n_tasks_seen=int(outcome.job.size),
                  n_jobs_kept=int(kept.sum()), n_tasks_kept=int(n_tasks[kept].sum()),
                  n_merged_tasks=instance.n_tasks, n_original_machines=int(outcome.machine_ids.size),
                  dropped_jobs=dict(dropped), dropped_tasks=dict(dropped_tasks), raised_to_one_unit=raised)
    return instance, counts


def _merged_instance(job_rank: np.ndarray, machine: np.ndarray, duration_us: np.ndarray, n_machines: int,
                     unit_us: float, job_id: np.ndarray, arrival_us: np.ndarray,
                     priority: pd.Series) -> tuple[OpenShopInstance, int]:
    """Sum the durations of each (job, machine) pair (footnote 2), round up to units, and build the CSR instance."""
    key = job_rank * n_machines + machine
    pairs, where = np.unique(key, return_inverse=True)
    total_us = np.bincount(where, weights=duration_us, minlength=pairs.size)  # exact: sums < 2**53 µs
    units = np.ceil(total_us / unit_us).astype(np.int64)
    raised = int((units < 1).sum())
    indptr = np.zeros(job_id.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(pairs // n_machines, minlength=job_id.size), out=indptr[1:])
    instance = OpenShopInstance.from_tasks(
        n_machines, indptr, pairs % n_machines, np.maximum(units, 1),
        arrival=np.ceil(arrival_us / unit_us).astype(np.int64), priority=priority.to_numpy(np.float64) + 1.0,
        job_id=job_id)
    return instance, raised
