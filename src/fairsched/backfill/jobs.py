"""The jobs of the backfilling model: rigid parallel jobs on one cluster of P processors, as int64 arrays.

A job has a submit time, a processor count, an actual run time and a requested time (the user's estimate,
SWF field 9), all in integer seconds (JSSPP'05 §4; pyss README "Scheduling semantics"). The scheduler plans
with requested times and learns run times only when jobs end.

From a `Workload` (`jobs_from_workload`), column by column:

================  ===========================================================================================
array             rule
================  ===========================================================================================
``job``           ``job_number`` (SWF field 1), kept for the schedule table
``submit``        floor(``submit_time``): times stay on the trace's clock (not shifted to 0), like pyss
``run``           ceil(``run_time``) (>= 1: a job must have run time > 0; clean the workload first)
``requested``     ceil(``runtime_estimate``) (the reader's column: ``requested_time``, else ``run_time``), then
                  the pyss rule: a missing estimate (<= 0) becomes the run time, and an estimate below the
                  run time is raised to it, so requested = max(estimate, run) >= run >= 1
``procs``         ``processors`` (the reader's column: allocated, else requested processors); 1..P
================  ===========================================================================================

The number of jobs each estimate rule touched is kept in ``estimate_counts`` (no silent fallback), including the
jobs whose ``requested_time`` was -1 in the trace and whose run time the reader copied in (`ESTIMATE_FROM_RUN_TIME`:
SDSC-Par and OSC-Clust have no requested time at all, so every estimate there is exact); `n_estimates_filled`
sums the filled ones. Jobs keep the workload's order (submission order; ties keep file order): job index i is row i
everywhere in the engine. Rounding matters only for scaled workloads (fractional seconds); integer traces pass
through unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fairsched.errors import ConfigError
from fairsched.workload.model import Workload, WorkloadColumns
from fairsched.workload.schema import PROCESSORS, RUNTIME_ESTIMATE

ESTIMATE_FROM_RUN_TIME = "requested time -1 in the trace: the reader copied the run time in"
ESTIMATE_MISSING = "estimate missing (<= 0): set to the run time"
ESTIMATE_RAISED = "estimate below the run time: raised to the run time"


@dataclass(frozen=True)
class BackfillJobs:
    """Rigid parallel jobs in submission order, and the machine size.

    Attributes
    ----------
    job : SWF job numbers (int64).
    submit, run, requested, procs : int64 arrays (seconds, seconds, seconds, processors); see the module table.
    n_processors : P, the processors of the cluster.
    source : where the jobs came from.
    estimate_counts : jobs changed by each estimate rule (`ESTIMATE_FROM_RUN_TIME`, `ESTIMATE_MISSING`,
        `ESTIMATE_RAISED`).
    """

    job: np.ndarray
    submit: np.ndarray
    run: np.ndarray
    requested: np.ndarray
    procs: np.ndarray
    n_processors: int
    source: str = ""
    estimate_counts: dict[str, int] = field(default_factory=dict)

    @property
    def n_jobs(self) -> int:
        return int(self.submit.size)

    @property
    def n_estimates_filled(self) -> int:
        """Jobs that had no estimate and plan with their run time instead (by the reader or by the pyss rule)."""
        return sum(self.estimate_counts.get(rule, 0) for rule in (ESTIMATE_FROM_RUN_TIME, ESTIMATE_MISSING))

    @classmethod
    def from_arrays(cls, submit, run, procs, requested=None, *, n_processors: int, job=None,
                    source: str = "arrays") -> BackfillJobs:
        """Jobs from plain sequences (tests, examples); same rules as `jobs_from_workload`.

        >>> jobs = BackfillJobs.from_arrays([0, 0, 1], [5, 100, 10], [2, 2, 4], [10, 100, 0], n_processors=6)
        >>> jobs.requested.tolist(), jobs.job.tolist(), jobs.estimate_counts[ESTIMATE_MISSING]
        ([10, 100, 10], [1, 2, 3], 1)
        """
        submit = np.asarray(submit, dtype=np.float64)
        number = np.arange(1, submit.size + 1) if job is None else np.asarray(job)
        estimate = np.asarray(run if requested is None else requested, dtype=np.float64)
        return _build(number, submit, np.asarray(run, dtype=np.float64), np.asarray(procs, dtype=np.float64),
                      estimate, n_processors, source)


def jobs_from_workload(workload: Workload | WorkloadColumns, *, n_processors: int | None = None) -> BackfillJobs:
    """The backfilling jobs of a workload (rules: module docstring).

    Parameters
    ----------
    workload : jobs read by `fairsched.workload.swf.read_swf` or `read_swf_columns` (possibly windowed or
        load-scaled), cleaned by `fairsched.workload.clean.clean` so that every job has a run time > 0 and 1..P
        processors.
    n_processors : P; default the header's ``MaxProcs``.

    Raises
    ------
    ConfigError : no machine size, missing columns, or jobs the model cannot run (the message counts them and
        names the cleaning call that drops them).
    """
    where = workload.source or "the workload"
    if n_processors is None:
        n_processors = workload.header_int("MaxProcs")
        if n_processors is None or n_processors < 1:
            raise ConfigError(f"{where}: the header gives no MaxProcs; pass the machine size (processors=P)")
    missing = [c for c in ("job_number", "submit_time", "run_time", PROCESSORS) if not workload.has_column(c)]
    if missing:
        raise ConfigError(f"{where}: the job table lacks column(s) {', '.join(missing)}; read traces with "
                          "fairsched.workload.swf.read_swf, which adds them")
    def floats(name: str) -> np.ndarray:
        return workload.column(name).astype(np.float64, copy=False)

    estimate_column = RUNTIME_ESTIMATE if workload.has_column(RUNTIME_ESTIMATE) else "requested_time"
    estimate = floats(estimate_column) if workload.has_column(estimate_column) else None
    run = floats("run_time")
    from_run_time = 0  # the reader's fallback: requested_time -1, runtime_estimate = run_time
    if estimate is not None and estimate_column == RUNTIME_ESTIMATE and workload.has_column("requested_time"):
        from_run_time = int(np.count_nonzero((floats("requested_time") < 0) & (estimate > 0)))
    return _build(workload.column("job_number"), floats("submit_time"), run, floats(PROCESSORS),
                  run if estimate is None else estimate, n_processors, where, from_run_time=from_run_time)


def _build(number: np.ndarray, submit: np.ndarray, run: np.ndarray, procs: np.ndarray, estimate: np.ndarray,
           n_processors: int, where: str, *, from_run_time: int = 0) -> BackfillJobs:
    if isinstance(n_processors, bool) or not isinstance(n_processors, int | np.integer) or n_processors < 1:
        raise ConfigError(f"processors={n_processors!r}: expected a positive integer machine size")
    sizes = {submit.size, run.size, procs.size, estimate.size, number.size}
    if len(sizes) != 1:
        raise ConfigError(f"{where}: job arrays of different lengths {sorted(sizes)}")
    _check_runnable(submit, run, procs, int(n_processors), where)
    run_s = np.ceil(run).astype(np.int64)
    est = np.where(np.isfinite(estimate), estimate, -1.0)
    missing = est <= 0
    est_s = np.where(missing, run_s, np.ceil(np.maximum(est, 0.0)).astype(np.int64))
    raised = ~missing & (est_s < run_s)
    submit_s = np.floor(submit).astype(np.int64)
    if submit_s.size > 1 and np.any(np.diff(submit_s) < 0):
        raise ConfigError(f"{where}: jobs must be sorted by submit time (read_swf sorts them)")
    return BackfillJobs(job=number.astype(np.int64), submit=submit_s, run=run_s,
                        requested=np.maximum(est_s, run_s), procs=procs.astype(np.int64),
                        n_processors=int(n_processors), source=where,
                        estimate_counts={ESTIMATE_FROM_RUN_TIME: from_run_time, ESTIMATE_MISSING: int(missing.sum()),
                                         ESTIMATE_RAISED: int(raised.sum())})


def _check_runnable(submit: np.ndarray, run: np.ndarray, procs: np.ndarray, n_processors: int, where: str) -> None:
    problems = {
        "no submit time": ~np.isfinite(submit),
        "no run time > 0": ~(np.isfinite(run) & (run > 0)),
        "no processors >= 1": ~(np.isfinite(procs) & (procs >= 1)),
        f"more processors than the machine's {n_processors}": np.isfinite(procs) & (procs > n_processors),
        "a fractional processor count": np.isfinite(procs) & (procs != np.floor(procs)),
    }
    found = [f"{int(bad.sum())} job(s) have {what} (first: row {int(np.flatnonzero(bad)[0])})"
             for what, bad in problems.items() if bad.any()]
    if found:
        raise ConfigError(f"{where}: {'; '.join(found)}. The backfilling model needs every job to run; clean the "
                          f"workload first: fairsched.workload.clean.clean(workload, max_processors={n_processors})")
