"""MOSP instance files (JSON) and schedule files (CSV), read and written by ``fairsched mosp``.

Instance file (one cluster per organization, ``org`` = its index; clusters in any order, each org 0..N-1 exactly
once; jobs in any order, ids unique)::

    {
      "clusters": [
        {"org": 0, "procs": 32},
        {"org": 1, "procs": 16}
      ],
      "jobs": [
        {"id": 0, "owner": 0, "runtime": 5, "procs": 3},
        {"id": 1, "owner": 1, "runtime": 2, "procs": 16}
      ]
    }

Every value is a JSON integer (``5``, not ``5.0`` or ``"5"``): runtime p >= 1, procs q >= 1 and at most the
largest cluster (a rigid job runs on one cluster, TPDS'11 §3), owner one of the orgs. `write_instance` writes one
record per line, so files diff well. A bad file raises `fairsched.errors.InputError` ``FILE:LINE: field NAME:
problem`` — LINE is where the offending job (or cluster) record starts, found by a second, position-tracking pass
over the text that runs only when something is wrong.

Schedule file (`write_schedule_csv`): header ``job,owner,cluster,start,end,procs,runtime``, one row per job in
instance order; ``job`` is the instance's job id, ``end = start + runtime``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from fairsched._io import atomic_write
from fairsched.errors import ConfigError, InputError
from fairsched.mosp.instance import MospInstance, MospSchedule

TOP_KEYS = ("clusters", "jobs")
CLUSTER_KEYS = ("org", "procs")
JOB_KEYS = ("id", "owner", "runtime", "procs")
SCHEDULE_COLUMNS = ("job", "owner", "cluster", "start", "end", "procs", "runtime")

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def read_instance(path: str | Path) -> MospInstance:
    """Read a MOSP instance from a JSON file (format: module docstring).

    Raises
    ------
    InputError : unreadable file, invalid JSON (with its line), or a record breaking a rule: a missing or unknown
        key, a non-integer value, a cluster org that is not 0..N-1 exactly once, procs < 1, a duplicate job id,
        an unknown owner, runtime <= 0, or a job wider than every cluster or than its owner's cluster. The message
        names the file, the line of the record, the field and the fix.
    """
    path = Path(path)
    text = _read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"not valid JSON: {error.msg} (column {error.colno}); fix the syntax (an instance file "
                         'is {"clusters": [...], "jobs": [...]})', path=path, line=error.lineno) from None
    where = _Where(path, text)
    if not isinstance(data, dict):
        raise InputError(f"the file holds a JSON {type(data).__name__}; expected an object "
                         '{"clusters": [...], "jobs": [...]}', path=path, line=1)
    _check_keys(data, TOP_KEYS, where, what="the instance", line=1)
    procs = _read_clusters(data["clusters"], where)
    job_id, owner, runtime, width = _read_jobs(data["jobs"], procs, where)
    return MospInstance.from_arrays(procs, owner, runtime, width, job_id=job_id)


def write_instance(instance: MospInstance, path: str | Path) -> None:
    """Write `instance` as a JSON instance file, atomically (complete on disk or not there at all).

    One record per line, clusters in org order, jobs in instance order; `read_instance` gives it back.
    """
    instance.check()
    clusters = [json.dumps({"org": k, "procs": int(m)}) for k, m in enumerate(instance.procs)]
    jobs = [json.dumps({"id": int(i), "owner": int(o), "runtime": int(p), "procs": int(q)})
            for i, o, p, q in zip(instance.job_id, instance.owner, instance.runtime, instance.width, strict=True)]
    with atomic_write(path, encoding="utf-8") as handle:
        handle.write('{\n  "clusters": ' + _json_list(clusters) + ',\n  "jobs": ' + _json_list(jobs) + "\n}\n")


def write_schedule_csv(instance: MospInstance, schedule: MospSchedule, path: str | Path) -> None:
    """Write `schedule` as CSV ``job,owner,cluster,start,end,procs,runtime`` (row j = job j), atomically.

    Raises `ConfigError` when the schedule does not have one row per job of the instance.
    """
    cluster = np.asarray(schedule.cluster, dtype=np.int64).reshape(-1)
    start = np.asarray(schedule.start, dtype=np.int64).reshape(-1)
    if cluster.size != instance.n_jobs or start.size != instance.n_jobs:
        raise ConfigError(f"schedule {schedule.algorithm!r} has {cluster.size} clusters and {start.size} start "
                          f"times for an instance of {instance.n_jobs} jobs; expected one of each per job")
    columns = (instance.job_id, instance.owner, cluster, start, start + instance.runtime, instance.width,
               instance.runtime)
    rows = np.column_stack(columns) if instance.n_jobs else np.empty((0, len(columns)), dtype=np.int64)
    lines = [",".join(SCHEDULE_COLUMNS)] + [",".join(map(str, row)) for row in rows.tolist()]
    with atomic_write(path, encoding="utf-8", newline="") as handle:
        handle.write("\n".join(lines) + "\n")


def _json_list(records: list[str]) -> str:
    if not records:
        return "[]"
    return "[\n    " + ",\n    ".join(records) + "\n  ]"


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the instance file ({error}); expected a UTF-8 JSON file", path=path) from None


# ---------------------------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------------------------

def _read_clusters(clusters: Any, where: _Where) -> np.ndarray:
    """m_k of each org k, from records in any order; each org 0..N-1 exactly once, procs >= 1."""
    if not isinstance(clusters, list) or not clusters:
        raise InputError("expected a non-empty list of clusters, one per organization: "
                         '[{"org": 0, "procs": 32}, ...]', path=where.path, field="clusters")
    n_orgs = len(clusters)
    procs = np.zeros(n_orgs, dtype=np.int64)
    seen: dict[int, int] = {}
    for index, record in enumerate(clusters):
        name = f"clusters[{index}]"
        values = _record_ints(record, CLUSTER_KEYS, where, "clusters", index, name)
        org, m = values["org"], values["procs"]
        if not 0 <= org < n_orgs:
            where.fail(f"{name} has org {org}; with {n_orgs} clusters the orgs are 0..{n_orgs - 1}, each exactly "
                       "once", "clusters", index, "org")
        if org in seen:
            where.fail(f"{name} gives org {org} a second cluster (the first is clusters[{seen[org]}], line "
                       f"{where.line('clusters', seen[org])}); give each organization exactly one cluster",
                       "clusters", index, "org")
        if m < 1:
            where.fail(f"{name} (org {org}) has procs {m}; expected an integer >= 1 (every organization "
                       "contributes a cluster)", "clusters", index, "procs")
        seen[org] = index
        procs[org] = m
    return procs


def _read_jobs(jobs: Any, procs: np.ndarray, where: _Where) -> tuple[np.ndarray, ...]:
    """Job arrays (id, owner, runtime, width) after the type checks per record and the range checks per column."""
    if not isinstance(jobs, list):
        raise InputError(f"is a JSON {type(jobs).__name__}; expected a list of jobs "
                         '[{"id": 0, "owner": 0, "runtime": 5, "procs": 3}, ...]', path=where.path, field="jobs")
    values = np.zeros((len(jobs), len(JOB_KEYS)), dtype=np.int64)
    for index, record in enumerate(jobs):
        ints = _record_ints(record, JOB_KEYS, where, "jobs", index, f"jobs[{index}]")
        values[index] = [ints[k] for k in JOB_KEYS]
    job_id, owner, runtime, width = values.T.copy()
    n_orgs = procs.size
    rules = (
        ("owner", (owner < 0) | (owner >= n_orgs),
         f"is not an organization; expected an org of a cluster, 0..{n_orgs - 1}"),
        ("runtime", runtime < 1, "must be >= 1: every job runs for a positive (integer) time"),
        ("procs", width < 1, "must be >= 1: a job needs at least one processor"),
        ("procs", width > procs.max(),
         f"is wider than every cluster (largest: {procs.max()} processors); a rigid job runs on one cluster"),
        ("procs", width > procs[np.clip(owner, 0, n_orgs - 1)],
         "is wider than its owner's cluster; every organization must be able to run its own jobs alone (the "
         "local schedule is the baseline no organization may lose against, TPDS'11 §2.1)"),
    )
    columns = {"owner": owner, "runtime": runtime, "procs": width}
    for key, bad, problem in rules:
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            where.fail(f"jobs[{j}] (id {job_id[j]}) has {key} {columns[key][j]}, which {problem}", "jobs", j, key)
    _check_unique_ids(job_id, where)
    return job_id, owner, runtime, width


def _check_unique_ids(job_id: np.ndarray, where: _Where) -> None:
    first_index: dict[int, int] = {}
    for index, ident in enumerate(job_id.tolist()):
        if ident in first_index:
            earlier = first_index[ident]
            where.fail(f"jobs[{index}] reuses id {ident} of jobs[{earlier}] (line {where.line('jobs', earlier)}); "
                       "job ids must be unique", "jobs", index, "id")
        first_index[ident] = index


def _record_ints(record: Any, keys: tuple[str, ...], where: _Where, array: str, index: int,
                 name: str) -> dict[str, int]:
    """The integer values of `keys` in one record; InputError on a missing/unknown key or a non-integer."""
    if not isinstance(record, dict):
        where.fail(f"{name} is a JSON {type(record).__name__}; expected an object with keys {', '.join(keys)}",
                   array, index, None)
    if set(record) != set(keys):
        _check_keys(record, keys, where, what=name, line=where.line(array, index))
    for key in keys:
        value = record[key]
        if isinstance(value, bool) or not isinstance(value, int):
            where.fail(f"{name} has {key} {json.dumps(value)}; expected a JSON integer (e.g. 5, not 5.0 or \"5\")",
                       array, index, key)
        if not _INT64_MIN <= value <= _INT64_MAX:
            where.fail(f"{name} has {key} {value}, outside the 64-bit integer range", array, index, key)
    return {key: record[key] for key in keys}


def _check_keys(record: dict, keys: tuple[str, ...], where: _Where, *, what: str, line: int | None) -> None:
    missing = [k for k in keys if k not in record]
    if missing:
        raise InputError(f"{what} has no {missing[0]!r}; expected the keys {', '.join(keys)}", path=where.path,
                         line=line, field=missing[0])
    unknown = [k for k in record if k not in keys]
    if unknown:
        # the likeliest surprise: a release date, which this offline model does not have
        hint = " (the model has no release dates: every job is available at time 0)" if keys == JOB_KEYS else ""
        raise InputError(f"{what} has an unknown key {unknown[0]!r}; expected only {', '.join(keys)}{hint}",
                         path=where.path, line=line, field=unknown[0])


# ---------------------------------------------------------------------------------------------------------------
# Where a record starts (only computed when a record is bad)
# ---------------------------------------------------------------------------------------------------------------

_WHITESPACE = re.compile(r"[ \t\n\r]*")


@dataclass
class _Where:
    """The file being read, and the 1-based line on which each element of a top-level array starts."""

    path: Path
    text: str
    _starts: dict[str, list[int]] = field(default_factory=dict)

    def line(self, array: str, index: int) -> int | None:
        if not self._starts:
            self._starts = _element_starts(self.text)
        starts = self._starts.get(array, [])
        return self.text.count("\n", 0, starts[index]) + 1 if index < len(starts) else None

    def fail(self, message: str, array: str, index: int, key: str | None) -> NoReturn:
        """Raise InputError for element `index` of top-level `array`, at the line where it starts."""
        raise InputError(message, path=self.path, line=self.line(array, index), field=key)


def _element_starts(text: str) -> dict[str, list[int]]:
    """Character offset of each element of each top-level array, for valid JSON whose top level is an object.

    Walks the top-level object with `json.JSONDecoder.raw_decode`, one value at a time; a repeated key keeps its
    last occurrence, as `json.loads` does.
    """
    decoder = json.JSONDecoder()
    starts: dict[str, list[int]] = {}
    pos = _skip(text, _skip(text, 0) + 1)  # past '{'
    while text[pos] != "}":
        key, pos = decoder.raw_decode(text, pos)
        pos = _skip(text, _skip(text, pos) + 1)  # past ':'
        if text[pos] == "[":
            starts[key], pos = _array_starts(text, pos, decoder)
        else:
            _, pos = decoder.raw_decode(text, pos)
        pos = _skip(text, pos)
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
    return starts


def _array_starts(text: str, pos: int, decoder: json.JSONDecoder) -> tuple[list[int], int]:
    """Offsets of the elements of the array opening at `pos`, and the position after its ']'."""
    offsets: list[int] = []
    pos = _skip(text, pos + 1)
    while text[pos] != "]":
        offsets.append(pos)
        _, pos = decoder.raw_decode(text, pos)
        pos = _skip(text, pos)
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
    return offsets, pos + 1


def _skip(text: str, pos: int) -> int:
    return _WHITESPACE.match(text, pos).end()
