"""A JSON-ready summary of one workload, for ``fairsched trace info`` and for checking a trace before using it.

The figures follow ../shared/traces/SOURCES.md's table (jobs, span from first to last submit, distinct non -1
users / groups / queues / partitions, machine size from the header), plus what our pipeline adds: the sequential
job count of SPAA'13 §6.2, the offered load (`fairsched.workload.transform.offered_load`), what the reader had to
fill in or skip, and what `fairsched.workload.clean.clean` would drop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fairsched.errors import ConfigError
from fairsched.workload.clean import clean_report
from fairsched.workload.model import Workload, WorkloadColumns
from fairsched.workload.schema import MISSING, PROCESSORS
from fairsched.workload.transform import offered_load, sequential_count

if TYPE_CHECKING:
    import pandas as pd

SECONDS_PER_DAY = 86_400.0

# SWF field 11 codes (PWA swf.html v2.2).
STATUS_NAMES: dict[int, str] = {
    -1: "unknown", 0: "failed", 1: "completed", 2: "partial (continues)", 3: "last part completed",
    4: "last part failed", 5: "cancelled",
}

# Header keys copied verbatim (repeated keys joined with "; "): whom to credit and what the machine was.
HEADER_KEYS: tuple[str, ...] = ("Computer", "Installation", "Acknowledge")

# Columns counted as "distinct non -1 values", under the name shown.
DISTINCT_COLUMNS: dict[str, str] = {
    "users": "user_id", "groups": "group_id", "queues": "queue_number", "partitions": "partition_number",
}


def trace_info(workload: Workload | WorkloadColumns, *, n_processors: int | None = None) -> dict[str, object]:
    """Summary of `workload` as plain ints, floats, strings, lists and dicts (``json.dumps`` works as is).

    Parameters
    ----------
    workload : a workload as read (before cleaning: the preview says what cleaning would drop); a
        `WorkloadColumns` (`fairsched.workload.swf.read_swf_columns`) gives the same summary without pandas.
    n_processors : machine size for the offered load; default the header's ``MaxProcs``, else the widest job.

    Returns
    -------
    dict with keys ``source, jobs, sequential_jobs, first_submit, last_submit, span_seconds, span_days,
    processors, users, groups, queues, partitions, status, offered_load, read_report, clean_preview, header``.
    ``span`` is last minus first submit time (as in SOURCES.md); ``offered_load`` is ``{"value", "n_processors",
    "basis"}`` with ``value`` None when undefined. O(n).

    Examples
    --------
    >>> import pandas as pd
    >>> jobs = pd.DataFrame({"submit_time": [0.0, 86400.0], "run_time": [10.0, -1.0], "processors": [2, 1],
    ...                      "status": [1, 5], "user_id": [3, 3], "group_id": [-1, -1],
    ...                      "queue_number": [1, 2], "partition_number": [-1, -1]})
    >>> info = trace_info(Workload(jobs=jobs, source="toy"))
    >>> info["jobs"], info["sequential_jobs"], info["span_days"], info["users"], info["groups"], info["queues"]
    (2, 3, 1.0, 1, 0, 2)
    >>> info["status"], info["clean_preview"]["dropped"]["cancelled before start"]
    ({'completed (1)': 1, 'cancelled (5)': 1}, 1)
    """
    submit = workload.column("submit_time").astype(np.float64, copy=False)
    first, last = (float(submit.min()), float(submit.max())) if submit.size else (None, None)
    span = 0.0 if first is None else last - first
    info: dict[str, object] = {
        "source": workload.source,
        "jobs": workload.n_jobs,
        "sequential_jobs": sequential_count(workload),
        "first_submit": first,
        "last_submit": last,
        "span_seconds": span,
        "span_days": span / SECONDS_PER_DAY,
        "processors": _processors(workload),
    }
    info.update({name: _n_distinct(workload, column) for name, column in DISTINCT_COLUMNS.items()})
    info["status"] = _status_counts(workload.column("status").astype(np.int64, copy=False))
    info["offered_load"] = _load(workload, n_processors)
    info["read_report"] = _read_report(workload)
    info["clean_preview"] = clean_report(workload).as_dict()
    info["header"] = _header(workload)
    return info


def _processors(workload: Workload | WorkloadColumns) -> dict[str, int | None]:
    used = workload.column(PROCESSORS).astype(np.int64, copy=False)
    return {"header_max_procs": workload.header_int("MaxProcs"), "header_max_nodes": workload.header_int("MaxNodes"),
            "max_used": int(used.max()) if used.size else None}


def _n_distinct(workload: Workload | WorkloadColumns, column: str) -> int:
    if not workload.has_column(column):
        return 0
    values = workload.column(column)
    return int(np.unique(values[values != MISSING]).size)


def _status_counts(status: np.ndarray) -> dict[str, int]:
    codes, counts = np.unique(status, return_counts=True)
    order = np.argsort(-counts, kind="stable")  # most frequent first, ties by code
    return {f"{STATUS_NAMES.get(int(codes[i]), 'other')} ({int(codes[i])})": int(counts[i]) for i in order}


def _load(workload: Workload | WorkloadColumns, n_processors: int | None) -> dict[str, object]:
    """Offered load on the machine size asked for, else the header's, else the widest job (and which was used)."""
    header = workload.header_int("MaxProcs")
    used = workload.column(PROCESSORS).astype(np.int64, copy=False)
    if n_processors is not None:
        if isinstance(n_processors, bool) or not isinstance(n_processors, int | np.integer) or n_processors < 1:
            raise ConfigError(f"n_processors={n_processors!r}: expected a positive integer (the machine size)")
        m, basis = int(n_processors), "n_processors"
    elif header is not None and header > 0:
        m, basis = header, "header MaxProcs"
    else:
        m, basis = (int(used.max()) if used.size else 0), "max processors used"
    try:
        value: float | None = offered_load(workload, m)
    except ConfigError:
        value = None  # no runnable job, or a zero span: there is no load to report
    return {"value": value, "n_processors": m, "basis": basis}


def _read_report(workload: Workload | WorkloadColumns) -> dict[str, object]:
    report = workload.read_report
    return {"records": report.n_records, "fallbacks": dict(report.fallbacks), "skipped": dict(report.skipped),
            "first_problems": list(report.first_problems)}


def _header(workload: Workload | WorkloadColumns) -> dict[str, str]:
    out = {}
    for key in HEADER_KEYS:
        values = [v.strip() for k, v in workload.header if k.lower() == key.lower()]
        if values:
            out[key] = "; ".join(values)
    return out


def recorded_waits(workload: Workload) -> pd.DataFrame:
    """The jobs whose trace records a wait and a run time (both >= 0, run > 0) and processors >= 1:
    ``submit, wait, run, procs`` in trace order, for the waits-by-width figure of ``trace info --out``."""
    import pandas as pd  # here: `trace info` without --out never imports pandas

    jobs = workload.jobs
    wait = jobs["wait_time"].to_numpy(dtype=np.float64)
    run = jobs["run_time"].to_numpy(dtype=np.float64)
    procs = jobs[PROCESSORS].to_numpy(dtype=np.int64)
    keep = (wait >= 0) & (run > 0) & (procs >= 1)
    return pd.DataFrame({"submit": jobs["submit_time"].to_numpy(dtype=np.float64)[keep], "wait": wait[keep],
                         "run": run[keep], "procs": procs[keep]})


def arrivals(submit: np.ndarray, work: np.ndarray, *, bin_seconds: float = SECONDS_PER_DAY) -> pd.DataFrame:
    """Jobs and work (processor-seconds) submitted per time bin, from the first submit: ``day, jobs, work``.

    ``day`` is the bin's start in days since the first submit; every bin up to the last submit has a row (quiet
    days show as 0). O(n).

    >>> arrivals(np.array([0.0, 10.0, 2 * 86400.0]), np.array([5.0, 1.0, 2.0])).to_numpy().tolist()
    [[0.0, 2.0, 6.0], [1.0, 0.0, 0.0], [2.0, 1.0, 2.0]]
    """
    import pandas as pd

    submit = np.asarray(submit, dtype=np.float64)
    if submit.size == 0:
        return pd.DataFrame({"day": [], "jobs": [], "work": []})
    index = np.floor((submit - submit.min()) / bin_seconds).astype(np.int64)
    n = int(index.max()) + 1
    return pd.DataFrame({"day": np.arange(n) * bin_seconds / SECONDS_PER_DAY,
                         "jobs": np.bincount(index, minlength=n).astype(np.int64),
                         "work": np.bincount(index, weights=np.asarray(work, dtype=np.float64), minlength=n)})
