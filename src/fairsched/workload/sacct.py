"""Read a Slurm accounting export (``sacct --parsable2``), the one sacct reader of fairsched.

The export to give it (docs/audit.md, "Exporting the log")::

    sacct -a -X -P -S 2024-01-01 -E 2024-02-01 \\
          --format=JobIDRaw,JobID,Account,User,Group,Partition,QOS,Submit,Eligible,Start,End,Elapsed,State,\\
NCPUS,NNodes,ReqMem,AllocTRES,Timelimit,NodeList > cluster.sacct

``-P`` (``--parsable2``) separates fields by ``|`` under a header line naming them. Fields are taken **by name**
from the header, in any order, with any extra fields; only a job id (``JobID`` or ``JobIDRaw``), ``Submit``,
``Start`` and a CPU count (``NCPUS``, ``AllocCPUS`` or ``AllocTRES`` ``cpu=``) are required, plus ``Elapsed`` or
``End``. `read_sacct` returns a `Workload` in the SWF columns (so every model can use it) plus the accounting
columns of `fairsched.workload.schema` (``job_id``, ``account``, ``user``, ``group``, ``partition``, ``queue`` =
QOS, ``memory_mb``, ``billing`` and ``gpus`` from ``AllocTRES``).

Rules for real, messy exports
-----------------------------
Each rule below is applied to every record and counted (``ReadReport.skipped`` for records not read as jobs,
``ReadReport.fallbacks`` for values derived by a rule), so nothing happens silently.

=====================================  ====================================================================
case                                   rule
=====================================  ====================================================================
step records ``123.batch``, ``123.0``  skipped, counted as `SKIP_STEP` (``sacct -X`` leaves them out)
array elements ``4744528_255``         read as jobs; ``job_id`` keeps the text; counted `NOTE_ARRAY`
``Start`` ``Unknown``/``None``, or      the job never started: ``wait_time = run_time = -1``; it is kept, so
``NodeList`` ``None assigned``         that the audit counts it as waiting at the end; `NOTE_NEVER_STARTED`
``End`` ``Unknown`` (still running)    run time = ``Elapsed`` so far; `NOTE_RUNNING`
``State`` ``CANCELLED by N``           status 5 (cancelled); ``TIMEOUT``, ``NODE_FAIL``, ``FAILED``,
                                       ``OUT_OF_MEMORY``... status 0; ``COMPLETED`` 1; others -1
``Elapsed`` ``[D-]HH:MM:SS``           seconds (``MM:SS.mmm`` too); ``End - Start`` when ``Elapsed`` is absent
``Timelimit`` ``UNLIMITED``,           no estimate: ``requested_time = -1`` (then ``runtime_estimate`` = run
``Partition_Limit``                    time, as for SWF); counted `NOTE_NO_LIMIT`
memory ``2800Mc`` / ``500000Mn`` /     per CPU x CPUs / per node x nodes / the job's total (``500G`` with
``187000M``, ``500G``                  ``AllocTRES mem=500G,node=2`` shows a bare value is the total); the
                                       ``AllocTRES`` ``mem=`` value wins when present; K/M/G/T are binary
``AllocTRES billing=16,cpu=16,...``    ``cpu=`` gives the CPUs when no ``NCPUS``/``AllocCPUS`` column;
                                       ``billing=`` the job's billing rate (``billing``, NaN when absent),
                                       ``gres/gpu=`` its GPUs (``gpus``: 0 when absent, NaN without AllocTRES)
a ``|`` inside a free-text field       too many fields: the extra ``|`` are given back to the free-text
(``JobName``, ``Constraints``,         columns (`FREE_TEXT_FIELDS`) in every possible way, and the split is
``SubmitLine``, ...)                   kept when every typed column then holds a valid value (times, ints,
                                       durations, ids, states, TRES, memory; ``NCPUS`` = ``AllocCPUS``) and
                                       all such splits agree on the fields read; otherwise (or beyond
                                       20,000 valid splits) the line is reported; `NOTE_PIPE`. ``Cluster``
                                       (untyped) is taken from a split naming a cluster read without doubt
a free-text field spanning lines       too few fields: the next lines are joined (with ``\\n``) until the
(multi-line ``SubmitLine``)            header's count is reached; the record keeps its first line number
the same job twice: one job per        records of one (``Cluster``, ``JobIDRaw``, ``Submit``) with the same
(Cluster, JobIDRaw, Submit)            start are copies of one run (a dump concatenated twice, a federated
                                       cluster): one is kept (the longest run time), the others dropped and
                                       counted `SKIP_DUPLICATE`; with different starts they are the runs of
                                       a requeued job (``sacct -D``): the last run is kept, the earlier ones
                                       (and a never-started record beside a run) counted `SKIP_REQUEUE`.
                                       ``JobID`` stands in for a missing ``JobIDRaw``, "" for ``Cluster``
=====================================  ====================================================================

Times (``2021-02-11T22:36:19``) are read as given, without a time zone: only differences matter. The earliest
submit time becomes time 0; the header pair ``UnixStartTime`` keeps it (seconds since the epoch, read as UTC).
A record that breaks a rule raises `InputError` ``FILE:LINE: field NAME: problem``; with
``skip_bad_records=True`` it is dropped and counted by reason (`SKIP_REASONS`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from fairsched.errors import InputError
from fairsched.workload.files import read_bytes
from fairsched.workload.model import ReadReport, Workload
from fairsched.workload.schema import (
    ACCOUNTING_KEYS,
    BILLING,
    GPUS,
    JOB_ID,
    MEMORY_MB,
    MISSING,
    PROCESSORS,
    RUNTIME_ESTIMATE,
    SWF_FIELDS,
)

__all__ = ["FREE_TEXT_FIELDS", "NOTE_ARRAY", "NOTE_NEVER_STARTED", "NOTE_NO_LIMIT", "NOTE_PIPE", "NOTE_RUNNING",
           "SKIP_DUPLICATE", "SKIP_REASONS", "SKIP_REQUEUE", "SKIP_STEP", "is_sacct_header", "read_sacct"]

SKIP_STEP = "job step (export with sacct -X)"
SKIP_DUPLICATE = "duplicate record of a job run (same Cluster, JobIDRaw, Submit and Start)"
SKIP_REQUEUE = "earlier run of a requeued job (same Cluster, JobIDRaw and Submit; the last run is kept)"
REASON_FIELD_COUNT = "wrong field count"
REASON_VALUE = "malformed value"
REASON_MISSING = "missing value"
SKIP_REASONS = (SKIP_STEP, SKIP_DUPLICATE, SKIP_REQUEUE, REASON_FIELD_COUNT, REASON_VALUE, REASON_MISSING)

NOTE_ARRAY = "array job elements (JobID A_B)"
NOTE_NEVER_STARTED = "never started (Start Unknown/None or NodeList 'None assigned')"
NOTE_RUNNING = "still running at export (End Unknown): run time = Elapsed so far"
NOTE_NO_LIMIT = "no time limit (UNLIMITED/Partition_Limit): runtime_estimate = run time"
NOTE_PIPE = "'|' inside a free-text field, recovered from the typed columns"
NOTE_MULTILINE = "record spanning several lines, joined"
NOTE_CPUS_FROM_TRES = "CPUs from AllocTRES cpu="
NOTE_CANCELLED_BY = "State 'CANCELLED by N' read as CANCELLED"

FREE_TEXT_FIELDS = frozenset({"jobname", "constraints", "submitline", "comment", "admincomment",
                              "systemcomment", "workdir", "container", "reservation", "wckey", "extra",
                              "licenses", "reason", "flags", "mcslabel", "blockid", "failednode"})
_MAX_EXTRA_SPLITS = 20_000  # ways to give the extra '|' back to free-text columns; beyond, report the line

_INT = re.compile(r"^-?\d+$")
_TIME = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|Unknown|None)$")
_DURATION = re.compile(r"^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)(?:\.(\d+))?$")
_LIMITS = ("UNLIMITED", "Partition_Limit")
_JOBID = re.compile(r"^\d+(?:[_+](?:\d+|\[[^\]|]*\]))?(?:\.[\w-]+)?$")
_STATE = re.compile(r"^[A-Z_]+(?: by \d+)?\+?$")
_EXIT = re.compile(r"^\d+:\d+$")
_TRES = re.compile(r"^[\w/:.-]+=[^,=|]*(?:,[\w/:.-]+=[^,=|]*)*$")
_MEMORY = re.compile(r"^(\d+(?:\.\d+)?)([KMGTP]?)([cn]?)$")
_UNIT_MB = {"": 1.0, "K": 1 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0**2, "P": 1024.0**3}

_INT_FIELDS = frozenset({"alloccpus", "allocnodes", "ncpus", "nnodes", "reqcpus", "reqnodes", "gid", "uid",
                         "elapsedraw", "cputimeraw", "dbindex", "priority", "qosraw", "associd", "ntasks",
                         "consumedenergyraw", "resvcpuraw", "wckeyid", "reservationid", "arraytaskid"})
_TIME_FIELDS = frozenset({"submit", "eligible", "start", "end"})
_DURATION_FIELDS = frozenset({"elapsed", "cputime", "reserved", "resvcpu", "suspended", "systemcpu", "totalcpu",
                              "usercpu", "avecpu", "mincpu", "timelimit"})


def _valid(name: str, text: str) -> bool:
    """Whether `text` can be the value of column `name` (lower case); untyped columns accept anything."""
    if text == "":
        return True
    if name in _INT_FIELDS:
        return bool(_INT.match(text))
    if name in _TIME_FIELDS:
        return bool(_TIME.match(text))
    if name in _DURATION_FIELDS:
        return bool(_DURATION.match(text)) or text in _LIMITS or text == "INVALID"
    if name in ("jobid", "jobidraw"):
        return bool(_JOBID.match(text))
    if name == "state":
        return bool(_STATE.match(text))
    if name in ("exitcode", "derivedexitcode"):
        return bool(_EXIT.match(text))
    if name in ("alloctres", "reqtres"):
        return bool(_TRES.match(text))
    if name == "reqmem":
        return bool(_MEMORY.match(text))
    return True


def is_sacct_header(line: str) -> bool:
    """Whether `line` is the header of a ``sacct -P`` export (``|``-separated names including a job id)."""
    names = {name.strip().lower() for name in line.strip().split("|")}
    return "|" in line and bool(names & {"jobid", "jobidraw"}) and "submit" in names


class _Problem(Exception):
    def __init__(self, field: str, message: str, reason: str = REASON_VALUE) -> None:
        super().__init__(message)
        self.field, self.message, self.reason = field, message, reason


@dataclass
class _Reader:
    path: str
    names: list[str]
    skip_bad_records: bool
    index: dict[str, int] = field(default_factory=dict)
    rows: list[tuple] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    notes: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    n_records: int = 0
    keys: list[tuple[str, str, int]] = field(default_factory=list)  # (Cluster, JobIDRaw, Submit) of each row
    clusters: set[str] = field(default_factory=set)  # Cluster values read without doubt

    def __post_init__(self) -> None:
        for i, name in enumerate(self.names):
            self.index.setdefault(name.lower(), i)
        self.free = [i for i, name in enumerate(self.names) if name.lower() in FREE_TEXT_FIELDS]
        self.typed = [(i, name.lower()) for i, name in enumerate(self.names)
                      if name.lower() not in FREE_TEXT_FIELDS]
        self.wanted = [i for i, name in enumerate(self.names) if name.lower() in _WANTED]

    # -- records ------------------------------------------------------------------------------------------
    def record(self, text: str, line: int) -> None:
        self.n_records += 1
        try:
            fields = self._split(text)
            row = self._parse(fields)
        except _Problem as problem:
            message = str(InputError(problem.message, path=self.path, line=line, field=problem.field))
            if not self.skip_bad_records:
                raise InputError(f"{problem.message}. Fix the record, or pass --skip-bad-records to drop such "
                                 "records and count them", path=self.path, line=line, field=problem.field) from None
            self.skipped[problem.reason] += 1
            if len(self.problems) < 20:
                self.problems.append(message)
            return
        if row is None:
            self.skipped[SKIP_STEP] += 1
            return
        self.keys.append((self._key(fields, ("cluster",)), self._key(fields, ("jobidraw", "jobid")), row[1]))
        self.rows.append((line, *row))

    def merged_rows(self) -> list[tuple]:
        """One row per (Cluster, JobIDRaw, Submit): the last run of a requeued job, one copy of a repeated record.

        Records of one key with the same start are copies of one run (a dump concatenated twice, federated
        clusters listing it twice, or variants differing only in fields not read): the one with the longest run
        time is kept (ties: the first in the file), the others are counted as `SKIP_DUPLICATE`. Distinct starts
        are the runs of a requeued job (``sacct -D``): the latest start is kept, the earlier runs (and a record
        that never started, when another one did) are counted as `SKIP_REQUEUE`.
        """
        groups: dict[tuple[str, str, int], list[int]] = {}
        for i, key in enumerate(self.keys):
            groups.setdefault(key, []).append(i)
        kept = []
        for members in groups.values():
            runs: dict[int, int] = {}  # start (-1: never started) -> row kept for that run
            for i in members:
                _, _, submit, wait, run = self.rows[i][:5]
                start = submit + wait if wait >= 0 else -1
                best = runs.get(start)
                if best is not None:
                    self.skipped[SKIP_DUPLICATE] += 1
                    if run <= self.rows[best][4]:
                        continue
                runs[start] = i
            last = max(runs)
            if len(runs) > 1:
                self.skipped[SKIP_REQUEUE] += len(runs) - 1
            kept.append(runs[last])
        return [self.rows[i] for i in sorted(kept)]

    def _split(self, text: str) -> list[str]:
        fields = text.split("|")
        extra = len(fields) - len(self.names)
        if extra < 0:
            raise _Problem("count", f"{len(fields)} fields, the header names {len(self.names)} (a truncated record?)",
                           REASON_FIELD_COUNT)
        if extra == 0:
            if "cluster" in self.index:
                self.clusters.add(fields[self.index["cluster"]])
            return fields
        candidates: dict[tuple[str, ...], list[list[str]]] = {}  # fields read -> the splits giving them
        for n_splits, split in enumerate(self._valid_splits(fields), start=1):
            if n_splits > _MAX_EXTRA_SPLITS:
                raise _Problem("count", f"{len(fields)} fields, the header names {len(self.names)}; more than "
                               f"{_MAX_EXTRA_SPLITS:,} readings of the extra '|' fit the typed columns",
                               REASON_FIELD_COUNT)
            candidates.setdefault(tuple(split[i] for i in self.wanted), []).append(split)
        if len(candidates) == 1:
            self.notes[NOTE_PIPE] += 1
            splits = next(iter(candidates.values()))
            # Cluster is untyped, so the readings may disagree on it: prefer one naming a cluster already seen.
            cluster = self.index.get("cluster")
            if cluster is None:
                return splits[0]
            names = {split[cluster] for split in splits}
            if len(names) == 1:
                self.clusters |= names
            return next((split for split in splits if split[cluster] in self.clusters), splits[0])
        why = ("no way of reading the extra '|' as part of a free-text field "
               f"({', '.join(self.names[i] for i in self.free) or 'the header has none'}) gives valid values"
               if not candidates else f"{len(candidates)} different readings fit the typed columns")
        raise _Problem("count", f"{len(fields)} fields, the header names {len(self.names)}; {why}",
                       REASON_FIELD_COUNT)

    def _valid_splits(self, fields: list[str]) -> Iterator[list[str]]:
        """Every way of giving the extra pieces of `fields` to the free-text columns that leaves a valid value in
        each typed column (depth-first, free-text columns taking as few pieces as possible first)."""
        n, n_pieces = len(self.names), len(fields)
        free, kinds = set(self.free), [name.lower() for name in self.names]
        values: list[str] = []

        def walk(column: int, piece: int) -> Iterator[list[str]]:
            if column == n:
                if piece == n_pieces and self._consistent(values):
                    yield list(values)
                return
            spare = n_pieces - piece - (n - column)  # pieces beyond one per remaining column
            for take in range(1, spare + 2) if column in free else (1,):
                value = "|".join(fields[piece:piece + take])
                if column in free or _valid(kinds[column], value):
                    values.append(value)
                    yield from walk(column + 1, piece + take)
                    values.pop()

        yield from walk(0, 0)

    def _consistent(self, values: list[str]) -> bool:
        """Cross-field rule of a reading: ``NCPUS`` and ``AllocCPUS`` are the same count when both are given."""
        ncpus, alloc = self.index.get("ncpus"), self.index.get("alloccpus")
        return ncpus is None or alloc is None or "" in (values[ncpus], values[alloc]) or values[ncpus] == values[alloc]

    def _get(self, fields: list[str], *names: str) -> tuple[str, str] | None:
        """(name, value) of the first of `names` present in the header with a non-empty value."""
        for name in names:
            i = self.index.get(name)
            if i is not None and fields[i].strip() != "":
                return self.names[i], fields[i].strip()
        return None

    def _parse(self, fields: list[str]) -> tuple | None:
        found = self._get(fields, "jobid", "jobidraw")
        if found is None:
            raise _Problem("JobID", "empty job id", REASON_MISSING)
        name, job_id = found
        if not _JOBID.match(job_id):
            raise _Problem(name, f"{job_id!r} is not a Slurm job id (123, 123_4, 123.batch)")
        if "." in job_id:
            return None
        if "_" in job_id:
            self.notes[NOTE_ARRAY] += 1
        submit = self._time(fields, "submit", required=True)
        start = self._time(fields, "start")
        end = self._time(fields, "end")
        nodelist = self._get(fields, "nodelist")
        started = start is not None and not (nodelist is not None and nodelist[1] == "None assigned")
        cpus = self._cpus(fields)
        limit = self._limit(fields)
        status, state = self._state(fields)
        if not started:
            self.notes[NOTE_NEVER_STARTED] += 1
            wait = run = MISSING
        else:
            if start < submit:
                raise _Problem("Start", f"starts before its submit time ({start - submit} s)")
            run = self._run_time(fields, start, end)
            wait = start - submit
            if cpus < 1:
                raise _Problem("NCPUS", "0 CPUs allocated to a job that ran")
        memory = self._memory(fields, cpus)
        keys = [self._key(fields, column) for column in _KEY_COLUMNS]
        uid, gid = self._int(fields, "uid"), self._int(fields, "gid")
        billing, gpus = self._billing_gpus(fields)
        return (job_id, submit, wait, run, cpus, limit, status, state, memory, uid, gid, *keys, billing, gpus)

    def _billing_gpus(self, fields: list[str]) -> tuple[float, float]:
        """``AllocTRES`` ``billing=`` (NaN when absent) and the GPUs (``gres/gpu=``; 0 when the TRES list has
        none, NaN without AllocTRES)."""
        tres = self._tres(fields)
        if not tres:
            return float("nan"), float("nan")
        billing = _as_int(("AllocTRES", tres["billing"])) if "billing" in tres else float("nan")
        return float(billing), float(_as_int(("AllocTRES", tres["gres/gpu"])) if "gres/gpu" in tres else 0)

    def _time(self, fields: list[str], name: str, *, required: bool = False) -> int | None:
        i = self.index.get(name)
        text = fields[i].strip() if i is not None else ""
        if text in ("", "Unknown", "None"):
            if required:
                raise _Problem(name.capitalize(), f"no {name} time ({text or 'empty'})", REASON_MISSING)
            return None
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise _Problem(self.names[i], f"{text!r} is not a time (YYYY-MM-DDTHH:MM:SS, Unknown, None)") from None
        return int(moment.replace(tzinfo=UTC).timestamp())

    def _run_time(self, fields: list[str], start: int, end: int | None) -> int:
        found = self._get(fields, "elapsed")
        if found is not None:
            seconds = _duration(found[1])
            if seconds is None:
                raise _Problem(found[0], f"{found[1]!r} is not a duration ([D-]HH:MM:SS)")
            if end is None:
                self.notes[NOTE_RUNNING] += 1
            return seconds
        if end is None:
            raise _Problem("End", "neither Elapsed nor End: the run time is unknown", REASON_MISSING)
        if end < start:
            raise _Problem("End", f"ends before it starts ({end - start} s)")
        return end - start

    def _cpus(self, fields: list[str]) -> int:
        found = self._get(fields, "ncpus", "alloccpus")
        if found is not None:
            return _as_int(found)
        tres = self._tres(fields)
        if "cpu" in tres:
            self.notes[NOTE_CPUS_FROM_TRES] += 1
            return _as_int(("AllocTRES", tres["cpu"]))
        found = self._get(fields, "reqcpus")
        return _as_int(found) if found is not None else 0

    def _tres(self, fields: list[str]) -> dict[str, str]:
        found = self._get(fields, "alloctres")
        if found is None:
            return {}
        if not _TRES.match(found[1]):
            raise _Problem(found[0], f"{found[1]!r} is not a TRES list (billing=16,cpu=16,mem=30000M,node=2)")
        return dict(item.split("=", 1) for item in found[1].split(","))

    def _limit(self, fields: list[str]) -> int:
        found = self._get(fields, "timelimit")
        if found is None or found[1] in _LIMITS:
            self.notes[NOTE_NO_LIMIT] += 1
            return MISSING
        seconds = _duration(found[1])
        if seconds is None:
            raise _Problem(found[0], f"{found[1]!r} is not a time limit ([D-]HH:MM:SS, UNLIMITED, Partition_Limit)")
        return seconds

    def _state(self, fields: list[str]) -> tuple[int, str]:
        found = self._get(fields, "state")
        if found is None:
            return MISSING, ""
        if not _STATE.match(found[1]):
            raise _Problem(found[0], f"{found[1]!r} is not a job state (COMPLETED, CANCELLED by 123, TIMEOUT, ...)")
        state = found[1].split(" ")[0].rstrip("+")
        if state == "CANCELLED" and " by " in found[1]:
            self.notes[NOTE_CANCELLED_BY] += 1
        return _STATUS.get(state, MISSING), state

    def _memory(self, fields: list[str], cpus: int) -> float:
        tres = self._tres(fields)
        if "mem" in tres:
            return _megabytes(("AllocTRES", tres["mem"]), 1)
        found = self._get(fields, "reqmem")
        if found is None:
            return float("nan")
        match = _MEMORY.match(found[1])
        if match is None:
            raise _Problem(found[0], f"{found[1]!r} is not a memory size (2800Mc, 500000Mn, 187000M, 500G)")
        per = match.group(3)
        nodes = self._get(fields, "nnodes", "allocnodes")
        count = cpus if per == "c" else (_as_int(nodes) if per == "n" and nodes is not None else 1)
        return _megabytes(found, max(count, 1))

    def _key(self, fields: list[str], names: tuple[str, ...]) -> str:
        found = self._get(fields, *names)
        return "" if found is None else found[1]

    def _int(self, fields: list[str], name: str) -> int:
        found = self._get(fields, name)
        return MISSING if found is None else _as_int(found)

    # -- result -------------------------------------------------------------------------------------------
    def workload(self) -> Workload:
        columns = ("line", JOB_ID, "submit", "wait_time", "run_time", PROCESSORS, "requested_time", "status",
                   "state", MEMORY_MB, "user_id", "group_id", *ACCOUNTING_KEYS, BILLING, GPUS)
        raw = pd.DataFrame.from_records(self.merged_rows(), columns=columns)
        origin = int(raw["submit"].min()) if len(raw) else 0
        raw = raw.sort_values(["submit", "line"], kind="stable").reset_index(drop=True)
        n = len(raw)
        jobs = pd.DataFrame({name: np.full(n, MISSING, dtype=np.int64) for name in SWF_FIELDS})
        jobs["job_number"] = np.arange(1, n + 1, dtype=np.int64)
        jobs["submit_time"] = (raw["submit"].to_numpy(np.int64) - origin).astype(np.float64)
        for name in ("wait_time", "run_time", "requested_time"):
            jobs[name] = raw[name].to_numpy(np.int64).astype(np.float64)
        for name in ("status", "user_id", "group_id"):
            jobs[name] = raw[name].to_numpy(np.int64)
        jobs["allocated_processors"] = raw[PROCESSORS].to_numpy(np.int64)
        for name in ("average_cpu_time", "used_memory", "requested_memory", "think_time"):
            jobs[name] = jobs[name].astype(np.float64)
        jobs[PROCESSORS] = raw[PROCESSORS].to_numpy(np.int64)
        estimate = jobs["requested_time"].to_numpy()
        jobs[RUNTIME_ESTIMATE] = np.where(estimate >= 0, estimate, jobs["run_time"].to_numpy())
        for name in (JOB_ID, *ACCOUNTING_KEYS, "state"):
            jobs[name] = raw[name].astype(str).to_numpy() if n else np.array([], dtype=object)
        for name in (MEMORY_MB, BILLING, GPUS):
            jobs[name] = raw[name].to_numpy(np.float64)
        jobs["line"] = raw["line"].to_numpy(np.int64)
        report = ReadReport(n_records=self.n_records, skipped=dict(self.skipped), fallbacks=dict(self.notes),
                            first_problems=tuple(self.problems))
        header = (("UnixStartTime", str(origin)), ("Format", "sacct"))
        return Workload(jobs=jobs, header=header, source=self.path, read_report=report)


_WANTED = frozenset({"jobid", "jobidraw", "submit", "start", "end", "elapsed", "ncpus", "alloccpus", "alloctres",
                     "reqcpus", "timelimit", "state", "reqmem", "nnodes", "allocnodes", "uid", "gid", "account",
                     "user", "group", "partition", "qos", "nodelist"})
_KEY_COLUMNS = (("account",), ("user",), ("group",), ("partition",), ("qos",))  # ACCOUNTING_KEYS, queue = QOS
_STATUS = {"COMPLETED": 1, "CANCELLED": 5, "FAILED": 0, "TIMEOUT": 0, "NODE_FAIL": 0, "OUT_OF_MEMORY": 0,
           "BOOT_FAIL": 0, "DEADLINE": 0, "PREEMPTED": 0}


def _duration(text: str) -> int | None:
    """Seconds of ``[D-]HH:MM:SS``, ``MM:SS`` or ``MM:SS.mmm`` (fractions dropped), else None."""
    match = _DURATION.match(text)
    if match is None:
        return None
    days, hours, minutes, seconds, _ = match.groups()
    if hours is None and days is not None:
        return None
    return ((int(days or 0) * 24 + int(hours or 0)) * 60 + int(minutes)) * 60 + int(seconds)


def _as_int(found: tuple[str, str]) -> int:
    name, text = found
    if not _INT.match(text):
        raise _Problem(name, f"{text!r} is not an integer")
    return int(text)


def _megabytes(found: tuple[str, str], count: int) -> float:
    match = _MEMORY.match(found[1])
    if match is None:
        raise _Problem(found[0], f"{found[1]!r} is not a memory size (2800Mc, 500000Mn, 187000M, 500G)")
    return float(match.group(1)) * _UNIT_MB[match.group(2)] * count


def read_sacct(path: str | Path, *, skip_bad_records: bool = False) -> Workload:
    """Read a ``sacct -P`` export into a `Workload` (SWF columns + accounting columns), sorted by submit time.

    Parameters
    ----------
    path : the export (plain text or gzip, recognised by its magic bytes).
    skip_bad_records : drop malformed records and count them by reason instead of raising on the first one.

    Returns
    -------
    Workload
        ``jobs``: the SWF columns (``submit_time`` in seconds since the earliest submit; ``wait_time`` and
        ``run_time`` -1 for jobs that never started), ``processors``, ``runtime_estimate``, ``job_id``,
        ``account``, ``user``, ``group``, ``partition``, ``queue`` (QOS), ``memory_mb``, ``state`` and ``line``
        (the record's first line in the file). ``read_report`` counts skipped records and applied rules.

    Raises
    ------
    InputError : ``FILE:LINE: field NAME: problem`` (module docstring, "Rules").

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "tiny.sacct"
    >>> _ = p.write_text("JobID|Account|Submit|Start|Elapsed|NCPUS|Timelimit|State\\n"
    ...                  "7|a|2021-01-01T00:00:00|2021-01-01T00:00:10|00:01:00|4|UNLIMITED|COMPLETED\\n"
    ...                  "7.batch|a|2021-01-01T00:00:00|2021-01-01T00:00:10|00:01:00|4||COMPLETED\\n"
    ...                  "8_1|b|2021-01-01T00:00:05|Unknown|00:00:00|2|1-00:00:00|PENDING\\n")
    >>> w = read_sacct(p)
    >>> w.jobs[["job_id", "account", "wait_time", "run_time", "processors"]].values.tolist()
    [['7', 'a', 10.0, 60.0, 4], ['8_1', 'b', -1.0, -1.0, 2]]
    >>> w.read_report.skipped
    {'job step (export with sacct -X)': 1}
    """
    path = Path(path)
    raw = read_bytes(path)  # gzip or plain; a damaged file is one InputError (fairsched.workload.files)
    lines = raw.decode("utf-8", errors="replace").splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise InputError("empty file: no sacct header line; export with sacct -P --format=...", path=path, line=1)
    if not is_sacct_header(lines[first]):
        raise InputError("not a sacct -P export: the first line must name the fields, separated by '|', "
                         "including JobID and Submit (sacct -X -P --format=JobID,Submit,...)", path=path,
                         line=first + 1, field="header")
    names = [name.strip() for name in lines[first].split("|")]
    trailing = names[-1] == ""  # --parsable (not --parsable2) ends every line with '|'
    if trailing:
        names = names[:-1]
    _check_header(names, path, first + 1)
    reader = _Reader(path=str(path), names=names, skip_bad_records=skip_bad_records)
    i = first + 1
    while i < len(lines):
        line_no, text = i + 1, lines[i]
        i += 1
        if not text.strip():
            continue
        if trailing and text.endswith("|"):
            text = text[:-1]
        while text.count("|") + 1 < len(names) and i < len(lines) and not _starts_record(lines[i], len(names)):
            text += "\n" + lines[i]
            i += 1
            reader.notes[NOTE_MULTILINE] += 1
        reader.record(text, line_no)
    return reader.workload()


def _starts_record(line: str, n_names: int) -> bool:
    """A line that alone holds a whole record (it is not the continuation of a multi-line field)."""
    return line.count("|") + 1 >= n_names


def _check_header(names: list[str], path: Path, line: int) -> None:
    have = {name.lower() for name in names}
    needs = (("JobID or JobIDRaw", {"jobid", "jobidraw"}), ("Submit", {"submit"}), ("Start", {"start"}),
             ("Elapsed or End", {"elapsed", "end"}), ("NCPUS, AllocCPUS or AllocTRES", {"ncpus", "alloccpus",
                                                                                      "alloctres"}))
    for what, options in needs:
        if not have & options:
            raise InputError(f"missing column {what}; export with sacct -X -P --format=JobID,Account,User,Group,"
                             "Partition,QOS,Submit,Start,End,Elapsed,State,NCPUS,Timelimit,ReqMem,AllocTRES",
                             path=path, line=line, field=what.split(" ")[0])
