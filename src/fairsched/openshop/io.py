"""Instance files and per-job result tables of the concurrent open shop model.

An instance file is JSON, one job per line when written by `write_instance`::

    {"machines": 4, "jobs": [
    {"id": 0, "arrival": 0, "priority": 1, "tasks": {"0": 5, "3": 2}},
    {"id": 1, "arrival": 2, "priority": 2.5, "tasks": {"1": 4}}
    ]}

============  =========  ==========================================================================================
key           required   meaning
============  =========  ==========================================================================================
machines      yes        m, an integer >= 1
jobs          yes        a list of job objects (any order; read in arrival order, ties in file order)
id            yes        the job's identifier, an integer, unique
tasks         yes        machine index (a decimal string "0".."m-1", JSON keys are strings) -> processing time p_ij,
                         an integer >= 1; machines without a task are left out (p_ij = 0); ``{}`` is a job
                         without tasks
arrival       no (0)     release time, an integer >= 0
priority      no (1)     P_j > 0 of linear utilities U_j(t) = P_j (τ - t) (Networking'20 §VI), a number
============  =========  ==========================================================================================

Anything else (an unknown key, a duplicate key or id, a float where an integer is expected, a machine out of range)
raises `InputError` naming the file, the line where the offending job starts and the field.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np

from fairsched._io import atomic_write
from fairsched.errors import ConfigError, InputError
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule

__all__ = ["JOBS_CSV_COLUMNS", "read_instance", "write_instance", "write_jobs_csv"]

JOBS_CSV_COLUMNS: tuple[str, ...] = ("job", "arrival", "completion", "utility")
_JOB_KEYS = ("id", "arrival", "priority", "tasks")
_REQUIRED_JOB_KEYS = ("id", "tasks")
_EXAMPLE = '{"machines": 4, "jobs": [{"id": 0, "arrival": 0, "priority": 1, "tasks": {"0": 5, "3": 2}}]}'
_WHITESPACE = re.compile(r"[ \t\n\r]*")


class _Duplicated(dict):
    """A JSON object in which a key appeared twice (json keeps the last value silently; we refuse it)."""

    duplicate: str = ""


def _pairs_hook(pairs: list[tuple[str, object]]) -> dict:
    obj = dict(pairs)
    if len(obj) < len(pairs):
        obj = _Duplicated(pairs)
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                obj.duplicate = key
                break
            seen.add(key)
    return obj


class _JobError(Exception):
    """A problem in job number `index` of the list, located in the file afterwards (only on the error path)."""

    def __init__(self, index: int, field: str, message: str) -> None:
        super().__init__(message)
        self.index, self.field, self.message = index, field, message


# ----------------------------------------------------------------------------------------------------------- reading

def read_instance(path: str | Path) -> OpenShopInstance:
    """Read an instance file (format in the module docstring) into an `OpenShopInstance`, jobs sorted by arrival.

    Raises
    ------
    InputError
        ``FILE:LINE: field NAME: problem`` for bad JSON (its line) or a bad job (the line where the job starts).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "three.json"
    >>> _ = p.write_text('{"machines": 2, "jobs": [{"id": 7, "arrival": 3, "tasks": {"1": 4}},'
    ...                  ' {"id": 8, "tasks": {"0": 1, "1": 2}}, {"id": 9, "arrival": 3, "tasks": {}}]}')
    >>> inst = read_instance(p)
    >>> inst.job_id.tolist(), inst.arrival.tolist(), inst.to_dense().tolist()
    ([8, 7, 9], [0, 3, 3], [[1, 2], [0, 4], [0, 0]])
    """
    text = _read_text(path)
    try:
        data = json.loads(text, object_pairs_hook=_pairs_hook)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg} (column {exc.colno}); expected an object like {_EXAMPLE}",
                         path=path, line=exc.lineno) from exc
    n_machines, jobs = _top_level(data, path)
    try:
        rows = [_job_row(job, k, n_machines) for k, job in enumerate(jobs)]
        _check_unique_ids(rows)
    except _JobError as exc:
        raise InputError(f"job {exc.index} of the list: {exc.message}", path=path,
                         line=_job_line(text, exc.index), field=exc.field) from None
    return _instance(n_machines, rows)


def _read_text(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot open the file: {exc.strerror or exc}. Check the path and permissions.",
                         path=path) from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start}); instance files are JSON.",
                         path=path) from exc


def _top_level(data: object, path: str | Path) -> tuple[int, list]:
    if not isinstance(data, dict):
        raise InputError(f"expected a JSON object like {_EXAMPLE}, got a {type(data).__name__}", path=path, line=1)
    if isinstance(data, _Duplicated):
        raise InputError(f"key {data.duplicate!r} appears twice; keep one", path=path, line=1, field=data.duplicate)
    for key in ("machines", "jobs"):
        if key not in data:
            raise InputError(f"missing key {key!r}; expected an object like {_EXAMPLE}", path=path, line=1,
                             field=key)
    unknown = sorted(set(data) - {"machines", "jobs"})
    if unknown:
        raise InputError(f"unknown key {unknown[0]!r}; the keys are 'machines' and 'jobs'", path=path, line=1,
                         field=unknown[0])
    machines = data["machines"]
    if not _is_int(machines) or machines < 1:
        raise InputError(f"expected an integer >= 1, got {machines!r}", path=path, line=1, field="machines")
    if not isinstance(data["jobs"], list):
        raise InputError(f"expected a list of job objects, got {data['jobs']!r:.40}", path=path, line=1,
                         field="jobs")
    return int(machines), data["jobs"]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _job_row(job: object, k: int, n_machines: int) -> tuple[int, int, float, list[int], list[int]]:
    """(id, arrival, priority, machines, times) of one job object, machines increasing."""
    if not isinstance(job, dict):
        raise _JobError(k, "jobs", 'expected a job object like {"id": 0, "tasks": {"0": 5}}, '
                                   f"got {job!r:.40}")
    if isinstance(job, _Duplicated):
        raise _JobError(k, job.duplicate, f"key {job.duplicate!r} appears twice; keep one")
    for key in _REQUIRED_JOB_KEYS:
        if key not in job:
            raise _JobError(k, key, f"missing key {key!r}; a job needs 'id' and 'tasks' ('arrival' and "
                                    "'priority' default to 0 and 1)")
    unknown = sorted(set(job) - set(_JOB_KEYS))
    if unknown:
        raise _JobError(k, unknown[0], f"unknown key {unknown[0]!r}; the keys are {', '.join(_JOB_KEYS)}")
    job_id, arrival, priority = job["id"], job.get("arrival", 0), job.get("priority", 1)
    if not _is_int(job_id) or not -(2**63) <= job_id < 2**63:
        raise _JobError(k, "id", f"expected an integer, got {job_id!r}")
    if not _is_int(arrival) or not 0 <= arrival < 2**62:
        raise _JobError(k, "arrival", f"expected an integer >= 0, got {arrival!r}")
    if isinstance(priority, bool) or not isinstance(priority, int | float) or not (math.isfinite(priority)
                                                                                   and priority > 0):
        raise _JobError(k, "priority", f"expected a number > 0 (P_j of linear utilities), got {priority!r}")
    machines, times = _tasks(job["tasks"], k, n_machines)
    return int(job_id), int(arrival), float(priority), machines, times


def _tasks(tasks: object, k: int, n_machines: int) -> tuple[list[int], list[int]]:
    if not isinstance(tasks, dict):
        raise _JobError(k, "tasks", f"expected an object mapping machine index to processing time, like "
                                    f"{{\"0\": 5, \"3\": 2}}, got {tasks!r:.40}")
    if isinstance(tasks, _Duplicated):
        raise _JobError(k, "tasks", f"machine {tasks.duplicate!r} appears twice; merge the two tasks into one "
                                    "(sum of processing times, Networking'20 footnote 2)")
    pairs = []
    for key, time in tasks.items():
        if not (key.isascii() and key.isdigit() and str(int(key)) == key and int(key) < n_machines):
            raise _JobError(k, "tasks", f"machine {key!r} is not a machine index 0..{n_machines - 1} "
                                        "(written in decimal, without leading zeros)")
        if not _is_int(time) or not 1 <= time < 2**62:
            raise _JobError(k, "tasks", f"machine {key}: processing time {time!r} is not an integer >= 1 "
                                        "(leave a machine out for no task)")
        pairs.append((int(key), int(time)))
    pairs.sort()
    return [m for m, _ in pairs], [t for _, t in pairs]


def _check_unique_ids(rows: list[tuple]) -> None:
    first: dict[int, int] = {}
    for k, row in enumerate(rows):
        if row[0] in first:
            raise _JobError(k, "id", f"id {row[0]} is already used by job {first[row[0]]} of the list; ids are "
                                     "unique")
        first[row[0]] = k


def _instance(n_machines: int, rows: list[tuple]) -> OpenShopInstance:
    order = sorted(range(len(rows)), key=lambda k: rows[k][1])  # stable: ties keep file order
    rows = [rows[k] for k in order]
    counts = np.array([len(r[3]) for r in rows], dtype=np.int64)
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return OpenShopInstance.from_tasks(
        n_machines, indptr, np.array([m for r in rows for m in r[3]], dtype=np.int64),
        np.array([t for r in rows for t in r[4]], dtype=np.int64),
        arrival=np.array([r[1] for r in rows], dtype=np.int64), priority=np.array([r[2] for r in rows]),
        job_id=np.array([r[0] for r in rows], dtype=np.int64))


def _job_line(text: str, index: int) -> int | None:
    """Line (1-based) where element `index` of the top-level "jobs" list starts; None if it cannot be located.

    Walks the top-level object with `json.JSONDecoder.raw_decode`, value by value: only run to report an error.
    """
    decoder = json.JSONDecoder()
    pos = _skip(text, 0)
    if not text.startswith("{", pos):
        return None
    pos = _skip(text, pos + 1)
    while pos < len(text) and text[pos] == '"':
        key, pos = decoder.raw_decode(text, pos)
        pos = _skip(text, _skip(text, pos) + 1)  # past the colon
        if key == "jobs" and text.startswith("[", pos):
            return _element_line(text, _skip(text, pos + 1), index, decoder)
        _, pos = decoder.raw_decode(text, pos)
        pos = _skip(text, _skip(text, pos) + 1)  # past the comma
    return None


def _element_line(text: str, pos: int, index: int, decoder: json.JSONDecoder) -> int:
    for _ in range(index):
        _, pos = decoder.raw_decode(text, pos)
        pos = _skip(text, _skip(text, pos) + 1)
    return text.count("\n", 0, pos) + 1


def _skip(text: str, pos: int) -> int:
    return _WHITESPACE.match(text, pos).end()


# ----------------------------------------------------------------------------------------------------------- writing

def write_instance(instance: OpenShopInstance, path: str | Path) -> None:
    """Write `instance` as an instance file (one job per line), atomically; `read_instance` reads it back equal.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "one.json"
    >>> write_instance(OpenShopInstance.from_dense([[5, 0, 0, 2]]), p)
    >>> print(p.read_text(), end="")
    {"machines": 4, "jobs": [
    {"id": 0, "arrival": 0, "priority": 1, "tasks": {"0": 5, "3": 2}}
    ]}
    """
    lines = []
    for j in range(instance.n_jobs):
        rows = slice(instance.indptr[j], instance.indptr[j + 1])
        priority = float(instance.priority[j])
        job = {"id": int(instance.job_id[j]), "arrival": int(instance.arrival[j]),
               "priority": int(priority) if priority.is_integer() else priority,
               "tasks": {str(m): int(t) for m, t in zip(instance.task_machine[rows].tolist(),
                                                        instance.task_time[rows].tolist(), strict=True)}}
        lines.append(json.dumps(job))
    with atomic_write(path, "w", encoding="utf-8") as handle:
        handle.write(f'{{"machines": {int(instance.n_machines)}, "jobs": [\n')
        handle.write(",\n".join(lines) + ("\n" if lines else ""))
        handle.write("]}\n")


def write_jobs_csv(instance: OpenShopInstance, schedule: OpenShopSchedule, utilities: np.ndarray,
                   path: str | Path) -> None:
    """Write the per-job table ``job,arrival,completion,utility`` (instance order), atomically.

    ``job`` is the instance's job id, ``completion`` C_j of `schedule`, ``utility`` U_j(C_j) as given (written with
    Python's shortest round-trip float format).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "jobs.csv"
    >>> inst = OpenShopInstance.from_dense([[2], [3]], job_id=[10, 11])
    >>> write_jobs_csv(inst, OpenShopSchedule(np.array([0, 2]), np.array([2, 5])), np.array([-2.0, -5.0]), p)
    >>> print(p.read_text(), end="")
    job,arrival,completion,utility
    10,0,2,-2.0
    11,0,5,-5.0
    """
    completion = np.asarray(schedule.completion)
    utilities = np.asarray(utilities, dtype=np.float64)
    for name, values in (("schedule.completion", completion), ("utilities", utilities)):
        if values.shape != (instance.n_jobs,):
            raise ConfigError(f"{name}: expected one value per job ({instance.n_jobs}), got shape {values.shape}")
    rows = (f"{j},{a},{c},{u!r}" for j, a, c, u in zip(instance.job_id.tolist(), instance.arrival.tolist(),
                                                      completion.tolist(), utilities.tolist(), strict=True))
    with atomic_write(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(",".join(JOBS_CSV_COLUMNS) + "\n")
        handle.writelines(row + "\n" for row in rows)
