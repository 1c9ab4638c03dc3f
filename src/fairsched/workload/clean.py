"""Drop the jobs that cannot be simulated, and say why each one went.

SWF logs carry records that no scheduler can replay: jobs cancelled before they started, jobs with an unknown
(-1) or zero run time, jobs with no processor count, and jobs wider than the machine (PWA ``swf.html`` v2.2;
../shared/traces/SWF_FORMAT.md, "Parsers should skip jobs with run < 0 or alloc <= 0, or treat them explicitly").
Following our rule against silent fallbacks, `clean` drops them *and counts them by reason*.

The rules live in one table, `CLEAN_RULES`, in the order they are tried; a job is charged to the first rule it
matches, so the counts add up to the number of dropped jobs:

1. ``cancelled before start`` : status = 5 and run_time <= 0 (``-1`` included).
2. ``run time missing``       : run_time = -1 (or NaN).
3. ``run time <= 0``          : run_time <= 0.
4. ``processors missing``     : processors = -1.
5. ``processors <= 0``        : processors <= 0.
6. ``processors > machine``   : processors > max_processors (default: the header's ``MaxProcs``, else no limit).

``processors`` is the reader's derived column (allocated processors, else requested ones; see
`fairsched.workload.schema.PROCESSORS`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from fairsched.errors import ConfigError
from fairsched.workload.model import Workload, WorkloadColumns
from fairsched.workload.schema import MISSING, PROCESSORS

W = TypeVar("W", Workload, WorkloadColumns)  # cleaning keeps the workload's kind: pandas table or numpy columns
CANCELLED = 5  # SWF field 11: status 5 = cancelled


@dataclass(frozen=True)
class _Columns:
    """The few columns the rules look at, as numpy arrays, plus the machine size (None = no limit)."""

    status: np.ndarray
    run_time: np.ndarray
    processors: np.ndarray
    max_processors: int | None


def _run_missing(c: _Columns) -> np.ndarray:
    return (c.run_time == MISSING) | np.isnan(c.run_time)


def _too_wide(c: _Columns) -> np.ndarray:
    if c.max_processors is None:
        return np.zeros(c.processors.shape, dtype=bool)
    return c.processors > c.max_processors


# reason -> vectorized predicate; tried in this order, a job is charged to the first match (module docstring).
CLEAN_RULES: dict[str, Callable[[_Columns], np.ndarray]] = {
    "cancelled before start": lambda c: (c.status == CANCELLED) & ((c.run_time <= 0) | np.isnan(c.run_time)),
    "run time missing": _run_missing,
    "run time <= 0": lambda c: c.run_time <= 0,
    "processors missing": lambda c: c.processors == MISSING,
    "processors <= 0": lambda c: c.processors <= 0,
    "processors > machine": _too_wide,
}


@dataclass(frozen=True)
class CleanReport:
    """What `clean` kept and dropped.

    Attributes
    ----------
    kept : jobs kept.
    dropped : jobs dropped, by reason, in the order of `CLEAN_RULES` (every reason present, 0 when unused).
    max_processors : the machine size the ``processors > machine`` rule used (None = no limit).
    """

    kept: int
    dropped: dict[str, int] = field(default_factory=dict)
    max_processors: int | None = None

    @property
    def n_dropped(self) -> int:
        return sum(self.dropped.values())

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form: ``{"kept", "dropped_total", "dropped": {reason: count}, "max_processors"}``."""
        return {"kept": self.kept, "dropped_total": self.n_dropped, "dropped": dict(self.dropped),
                "max_processors": self.max_processors}

    def lines(self) -> list[str]:
        """Human-readable summary, one line per non-zero reason.

        >>> CleanReport(kept=3, dropped={"run time missing": 2, "run time <= 0": 0}).lines()
        ['kept 3 jobs, dropped 2', '  run time missing: 2']
        """
        out = [f"kept {self.kept} jobs, dropped {self.n_dropped}"]
        out += [f"  {reason}: {count}" for reason, count in self.dropped.items() if count]
        return out


def drop_reasons(workload: Workload | WorkloadColumns, *,
                 max_processors: int | None = None) -> tuple[np.ndarray, int | None]:
    """Index into ``list(CLEAN_RULES)`` of the first rule each job matches (-1 = kept), and the machine size used.

    The shared core of `clean` and of `fairsched.workload.info.trace_info`'s preview; O(n · rules), vectorized.
    """
    limit = _machine_size(workload, max_processors)
    cols = _Columns(status=workload.column("status").astype(np.int64, copy=False),
                    run_time=workload.column("run_time").astype(np.float64, copy=False),
                    processors=workload.column(PROCESSORS).astype(np.int64, copy=False),
                    max_processors=limit)
    reason = np.full(workload.n_jobs, -1, dtype=np.int64)
    for index, predicate in enumerate(CLEAN_RULES.values()):
        reason[(reason == -1) & predicate(cols)] = index
    return reason, limit


def clean(workload: W, *, max_processors: int | None = None) -> tuple[W, CleanReport]:
    """Keep only the jobs a simulator can replay; count the others by reason (rules: module docstring).

    Parameters
    ----------
    workload : jobs as read from SWF (`fairsched.workload.swf.read_swf`, or `read_swf_columns` for numpy
        columns: the result has the same type) or generated.
    max_processors : machine size; wider jobs are dropped. Default: the header's ``MaxProcs``, else no limit.

    Returns
    -------
    The workload with the kept jobs (order kept, index reset) and a `CleanReport`. O(n).

    Examples
    --------
    >>> import pandas as pd
    >>> jobs = pd.DataFrame({"status": [1, 5, 1], "run_time": [10.0, -1.0, 0.0], "processors": [1, 0, 1]})
    >>> kept, report = clean(Workload(jobs=jobs))
    >>> kept.jobs["run_time"].tolist(), report.dropped["cancelled before start"], report.dropped["run time <= 0"]
    ([10.0], 1, 1)
    """
    reason, limit = drop_reasons(workload, max_processors=max_processors)
    report = _report(reason, limit)
    return workload.take(reason == -1), report


def clean_report(workload: Workload | WorkloadColumns, *, max_processors: int | None = None) -> CleanReport:
    """The `CleanReport` that `clean` would give, without building the cleaned table (``trace info``'s preview)."""
    return _report(*drop_reasons(workload, max_processors=max_processors))


def _report(reason: np.ndarray, limit: int | None) -> CleanReport:
    counts = np.bincount(reason[reason >= 0], minlength=len(CLEAN_RULES))
    return CleanReport(kept=int(np.count_nonzero(reason == -1)),
                       dropped={name: int(n) for name, n in zip(CLEAN_RULES, counts, strict=True)},
                       max_processors=limit)


def _machine_size(workload: Workload | WorkloadColumns, max_processors: int | None) -> int | None:
    if max_processors is None:
        header = workload.header_int("MaxProcs")
        # A header MaxProcs of -1 or 0 means "unknown" in some archive files: then there is no limit.
        return header if header is not None and header > 0 else None
    if isinstance(max_processors, bool) or not isinstance(max_processors, int | np.integer) or max_processors < 1:
        raise ConfigError(f"max_processors={max_processors!r}: expected a positive integer (the machine size "
                          "in processors), or None to use the trace header's MaxProcs")
    return int(max_processors)
