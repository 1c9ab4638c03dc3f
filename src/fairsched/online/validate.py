"""Independent checks of online schedules against their scenario; they never use the engine.

The rules are those of the online multi-organization model (Skowron & Rzadca, "Non-monetary fair scheduling —
cooperative game theory approach", SPAA'13 long version, Sec. 2): every sequential job runs at most once, on one
machine, without preemption, no earlier than its release; a machine runs one job at a time; the schedule is
greedy (no machine idles at a moment when a released job waits); each organization's jobs start in FIFO order.

Instants follow the engine's convention, stated here once: a job occupies ``[start, end)``, so a job completing
at ``t`` frees its machine at ``t``, and a job starting at ``t`` is running (not waiting) at ``t``.

Because this module re-derives everything from the schedule's rows and the scenario's jobs table, it is what
catches engine bugs: tests run it on every schedule an engine or policy produces.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numba import njit

from fairsched._validation import (
    DEFAULT_MAX_MESSAGES,
    SHOWN_IN_ERROR,
    Findings,
    argsort_stable,
    overlaps_kernel,
    record_of_job,
    sorted_values,
    violations,
)
from fairsched.errors import ConfigError
from fairsched.online.engine import SCHEDULE_COLUMNS  # the engine's columns; nothing else of it is used
from fairsched.scenario import COPIES, JOB, ORG, PROCESSING_TIME, RELEASE, Scenario

_NEVER = np.iinfo(np.int64).max  # "start" of a copy that never starts: after every real time


# -- public API ------------------------------------------------------------------------------------------

def check_online_schedule(schedule: pd.DataFrame, scenario: Scenario, *, t_end: int | None = None,
                          max_messages: int | None = DEFAULT_MAX_MESSAGES) -> list[str]:
    """Every rule of the online model that `schedule` breaks, as readable sentences (empty: valid).

    Implements the model of SPAA'13 Sec. 2 (greedy, FIFO per organization, no preemption, releases).

    Parameters
    ----------
    schedule : DataFrame with columns ``job, org, release, start, end, machine`` (one row per sequential
        job that started; copies of a parallel job share the job number).
    scenario : the scenario the schedule claims to solve.
    t_end : the horizon the schedule was simulated to, or None when it runs every job to completion. With a
        horizon, jobs may be left waiting at ``t_end`` (greedy and FIFO still say which), no row may start
        after ``t_end``, and greedy is checked on ``[0, t_end)``; without one, on ``[0, last completion)``.
    max_messages : at most this many sentences per kind of violation; the others are counted in one
        summary sentence (a broken 7-million-row schedule would otherwise produce millions). None = all.

    Returns
    -------
    list of str
        Each sentence names the row, job number, machine and time involved.

    Notes
    -----
    Checks, in order: columns present and integer; machine ids in range; job numbers known, with the
    scenario's org and release; ``end = start + processing_time``; ``start >= release``; no start after
    ``t_end``; rows per job <= its copies (= its copies without horizon); no overlap on a machine; greedy;
    FIFO per organization. Rows with an unknown job or machine, and the extra runs of a job run too often,
    are reported once and left out of the later checks they would only confuse. Complexity: O(n log n)
    for n rows (a few sorts and two linear sweeps); about 2 s for 7.2 million rows.

    Examples
    --------
    >>> from fairsched.scenario import scenario_from_arrays
    >>> s = scenario_from_arrays(release=[0, 0, 1], processing_time=[3, 2, 1], org=[0, 1, 0],
    ...                          machines_per_org=[1, 1])
    >>> rows = [[1, 0, 0, 0, 3, 0], [2, 1, 0, 0, 2, 1], [3, 0, 1, 2, 3, 1]]
    >>> check_online_schedule(pd.DataFrame(rows, columns=list(SCHEDULE_COLUMNS)), s)
    []
    >>> rows[2][3:5] = [3, 4]   # job 3 now waits during [2, 3) although machine 1 is free
    >>> check_online_schedule(pd.DataFrame(rows, columns=list(SCHEDULE_COLUMNS)), s)  # doctest: +ELLIPSIS
    ['at t=2 machine 1 is idle (until t=3) while job 3 of org 0 (released at t=1) waits: ...']
    """
    return _run_checks(schedule, scenario, t_end, max_messages).messages


def validate_online_schedule(schedule: pd.DataFrame, scenario: Scenario, *, t_end: int | None = None) -> None:
    """Raise `InvalidScheduleError` listing the first violations and their total number; silent if valid.

    Implements the same checks as `check_online_schedule` (SPAA'13 Sec. 2).
    """
    findings = _run_checks(schedule, scenario, t_end, SHOWN_IN_ERROR)
    if findings.total:
        shown = findings.messages[:SHOWN_IN_ERROR]
        raise violations(f"the schedule breaks the online model's rules in {findings.total} place(s); first "
                          f"{len(shown)}", shown, "engine")


# -- the records ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Records:
    """The scenario's jobs table as arrays (one record = `copies` identical sequential jobs)."""

    job: np.ndarray
    org: np.ndarray
    release: np.ndarray
    processing: np.ndarray
    copies: np.ndarray
    n_machines: int

    @classmethod
    def of(cls, scenario: Scenario) -> _Records:
        jobs = scenario.jobs
        return cls(*(jobs[c].to_numpy(np.int64) for c in (JOB, ORG, RELEASE, PROCESSING_TIME, COPIES)),
                   n_machines=int(scenario.n_machines))


@dataclass(frozen=True)
class _Rows:
    """The schedule's columns as int64 arrays, plus each row's scenario record (-1: unknown job)."""

    job: np.ndarray
    org: np.ndarray
    release: np.ndarray
    start: np.ndarray
    end: np.ndarray
    machine: np.ndarray
    record: np.ndarray

    def where(self, i: int) -> str:
        return f"row {i}: job {self.job[i]} on machine {self.machine[i]}"


# -- the checks ------------------------------------------------------------------------------------------

def _run_checks(schedule: pd.DataFrame, scenario: Scenario, t_end: int | None,
                limit: int | None) -> Findings:
    findings = Findings(limit)
    if t_end is not None and (int(t_end) != t_end or t_end < 0):
        raise ConfigError(f"t_end must be a non-negative integer number of seconds, got {t_end!r}")
    if not _check_columns(schedule, findings):
        return findings
    records = _Records.of(scenario)
    rows = _Rows(*(schedule[c].to_numpy(np.int64) for c in SCHEDULE_COLUMNS),
                 record=record_of_job(schedule["job"].to_numpy(np.int64), records.job))
    known = _check_rows(rows, records, t_end, findings)
    counts = np.bincount(rows.record[rows.record >= 0], minlength=records.job.size)  # rows per job
    _check_copies(rows, records, counts, t_end, findings)
    _check_overlaps(rows, known, findings)
    _check_greedy(rows, records, known, counts, t_end, findings)
    _check_fifo(rows, records, counts, findings)
    return findings


def _check_columns(schedule: pd.DataFrame, findings: Findings) -> bool:
    """Columns present, integer, without missing values; False stops the other checks (they need them)."""
    missing = [c for c in SCHEDULE_COLUMNS if c not in schedule.columns]
    if missing:
        findings.add(1, lambda _: f"the schedule lacks column(s) {', '.join(missing)}; expected "
                                  f"{', '.join(SCHEDULE_COLUMNS)}", "")
        return False
    bad = [c for c in SCHEDULE_COLUMNS
           if not pd.api.types.is_integer_dtype(schedule[c].dtype) or bool(schedule[c].isna().any())]
    if bad:
        findings.add(len(bad), lambda i: f"column {bad[i]} has dtype {schedule[bad[i]].dtype} or missing values; "
                                         "expected integers (seconds, ids)", "non-integer columns")
        return False
    return True




def _check_rows(rows: _Rows, records: _Records, t_end: int | None, findings: Findings) -> np.ndarray:
    """Row-by-row rules; returns the mask of rows usable by the later checks (known job, real machine)."""
    m = records.n_machines
    out = np.flatnonzero((rows.machine < 0) | (rows.machine >= m))
    findings.add(out.size, lambda i: f"{rows.where(out[i])} at t={rows.start[out[i]]}: no such machine "
                                     f"(the scenario has machines 0..{m - 1})", "rows on unknown machines")
    unknown = np.flatnonzero(rows.record < 0)
    findings.add(unknown.size, lambda i: f"{rows.where(unknown[i])} at t={rows.start[unknown[i]]}: "
                                         "the scenario has no such job number", "rows with unknown jobs")
    known = (rows.record >= 0) & (rows.machine >= 0) & (rows.machine < m)
    rec = np.where(rows.record >= 0, rows.record, 0)
    true_org, true_release = records.org[rec], records.release[rec]
    true_end = rows.start + records.processing[rec]
    rules = [
        (rows.org != true_org, lambda i: f"is listed under org {rows.org[i]}, but the scenario gives org "
                                         f"{true_org[i]}", "wrong organizations"),
        (rows.release != true_release, lambda i: f"is listed as released at t={rows.release[i]}, but the scenario "
                                                 f"releases it at t={true_release[i]}", "wrong release times"),
        (rows.end != true_end, lambda i: f"ends at t={rows.end[i]}; expected start + processing time = "
                                         f"{rows.start[i]} + {records.processing[rec[i]]} = {true_end[i]}",
         "wrong completion times"),
        (rows.start < true_release, lambda i: f"starts before its release at t={true_release[i]}",
         "starts before release"),
    ]
    if t_end is not None:
        rules.append((rows.start > t_end, lambda i: f"starts after the horizon t_end={t_end}", "starts after t_end"))
    for broken, words, what in rules:
        bad = np.flatnonzero(broken & (rows.record >= 0))
        findings.add(bad.size, lambda i, bad=bad, words=words: f"{rows.where(bad[i])} starting at "
                                                               f"t={rows.start[bad[i]]} {words(bad[i])}", what)
    return known


def _check_copies(rows: _Rows, records: _Records, counts: np.ndarray, t_end: int | None,
                  findings: Findings) -> None:
    """Each sequential job runs at most once (rows per job <= copies); all of them when there is no horizon."""
    extra = np.flatnonzero(counts > records.copies)

    def twice(i: int) -> str:
        r = extra[i]
        where = np.flatnonzero(rows.record == r)[:5].tolist()
        return (f"job {records.job[r]} appears {counts[r]} times (rows {where}...) but has only "
                f"{records.copies[r]} cop{'y' if records.copies[r] == 1 else 'ies'}: a sequential job ran twice")

    findings.add(extra.size, twice, "jobs run too often")
    if t_end is not None:
        return  # waiting at the horizon is legal; greedy and FIFO say whether it was justified
    short = np.flatnonzero(counts < records.copies)
    findings.add(short.size, lambda i: f"job {records.job[short[i]]} of org {records.org[short[i]]} (released at "
                                       f"t={records.release[short[i]]}): {records.copies[short[i]] - counts[short[i]]} "
                                       f"of its {records.copies[short[i]]} copies never start, but without a "
                                       "horizon every job must run to completion", "jobs missing")


def _check_overlaps(rows: _Rows, known: np.ndarray, findings: Findings) -> None:
    """On each machine the intervals [start, end) are disjoint (so at most m jobs run at any instant)."""
    idx = np.flatnonzero(known)
    idx = idx[argsort_stable(rows.start[idx])]
    m = int(rows.machine[idx].max()) + 1 if idx.size else 0
    n_clash, first, second = overlaps_kernel(idx, rows.start, rows.end, rows.machine, m,
                                              idx.size if findings.limit is None else findings.limit)
    a, b = first, second
    findings.add(int(n_clash), lambda i: f"machine {rows.machine[a[i]]} runs job {rows.job[a[i]]} (row {a[i]}) "
                                         f"during [{rows.start[a[i]]}, {rows.end[a[i]]}) and job {rows.job[b[i]]} "
                                         f"(row {b[i]}) from t={rows.start[b[i]]}, before the first ends: the jobs "
                                         "overlap", "overlaps")



def _check_greedy(rows: _Rows, records: _Records, known: np.ndarray, counts: np.ndarray, t_end: int | None,
                  findings: Findings) -> None:
    """No instant t < t_stop at which a machine idles while a released job waits (SPAA'13 Sec. 2, greedy).

    Both counts are step functions that change only at event times, so a sweep over the sorted starts,
    ends, releases and "leave the queue" times visits every distinct state once: O(n log n) for the sorts.
    """
    m = records.n_machines
    start, end = rows.start[known], np.maximum(rows.end[known], rows.start[known])
    t_stop = t_end if t_end is not None else (int(end.max()) if end.size else 0)
    # A job run too often would make "released - started" meaningless, so such jobs are left out of the
    # waiting count (they are reported already); every other started copy leaves the queue at its start.
    exact = counts <= records.copies
    listed = rows.record >= 0
    queued = listed if exact.all() else listed & exact[np.maximum(rows.record, 0)]
    leaves = np.maximum(rows.start[queued], records.release[rows.record[queued]])
    by_release = argsort_stable(records.release)
    max_out = end.size + records.release.size + 1 if findings.limit is None else findings.limit
    n_gaps, begin, stop, busy, waiting = _idle_gaps_kernel(
        sorted_values(start), sorted_values(end), records.release[by_release], (records.copies * exact)[by_release],
        sorted_values(leaves), m, int(t_stop), int(max_out))

    def describe(i: int) -> str:
        t = int(begin[i])
        running = known & (rows.start <= t) & (rows.end > t)
        idle = int(np.argmin(np.bincount(rows.machine[running], minlength=m)))
        gone = queued & (np.maximum(rows.start, records.release[np.maximum(rows.record, 0)]) <= t)
        left = np.bincount(rows.record[gone], minlength=records.job.size)
        r = int(np.flatnonzero((records.release <= t) & exact & (left < records.copies))[0])
        return (f"at t={t} machine {idle} is idle (until t={stop[i]}) while job {records.job[r]} of org "
                f"{records.org[r]} (released at t={records.release[r]}) waits: {busy[i]} of {m} machines busy, "
                f"{waiting[i]} job(s) waiting (greedy: a free machine must take a waiting job)")

    findings.add(int(n_gaps), describe, "idle periods while jobs wait")


@njit(cache=True)
def _idle_gaps_kernel(starts: np.ndarray, ends: np.ndarray, releases: np.ndarray, copies: np.ndarray,
                      leaves: np.ndarray, n_machines: int, t_stop: int, max_out: int):  # pragma: no cover - jit
    """Maximal periods [begin, stop) within [0, t_stop) with busy < n_machines and waiting > 0.

    busy(t) = #starts <= t - #ends <= t (machines running a job at t); waiting(t) = sum of `copies` of
    releases <= t - #leaves <= t (copies released by t and not started by t). All inputs sorted ascending.
    Returns the number of periods and the first `max_out` periods' begin, stop, busy and waiting at begin.
    """
    begin = np.empty(max_out, np.int64)
    stop = np.empty(max_out, np.int64)
    busy_at = np.empty(max_out, np.int64)
    waiting_at = np.empty(max_out, np.int64)
    never = np.iinfo(np.int64).max
    i_s = i_e = i_r = i_l = 0
    released = 0
    n_gaps = 0
    in_gap = False
    while True:
        t = never
        if i_s < starts.size:
            t = min(t, starts[i_s])
        if i_e < ends.size:
            t = min(t, ends[i_e])
        if i_r < releases.size:
            t = min(t, releases[i_r])
        if i_l < leaves.size:
            t = min(t, leaves[i_l])
        if t >= t_stop:
            break
        while i_s < starts.size and starts[i_s] <= t:
            i_s += 1
        while i_e < ends.size and ends[i_e] <= t:
            i_e += 1
        while i_r < releases.size and releases[i_r] <= t:
            released += copies[i_r]
            i_r += 1
        while i_l < leaves.size and leaves[i_l] <= t:
            i_l += 1
        busy = i_s - i_e
        waiting = released - i_l
        idle = busy < n_machines and waiting > 0
        if idle and not in_gap:
            if n_gaps < max_out:
                begin[n_gaps], busy_at[n_gaps], waiting_at[n_gaps] = t, busy, waiting
            in_gap = True
        elif in_gap and not idle:
            if n_gaps < max_out:
                stop[n_gaps] = t
            n_gaps += 1
            in_gap = False
    if in_gap:
        if n_gaps < max_out:
            stop[n_gaps] = t_stop
        n_gaps += 1
    return n_gaps, begin, stop, busy_at, waiting_at


def _check_fifo(rows: _Rows, records: _Records, counts: np.ndarray, findings: Findings) -> None:
    """Each organization's jobs start in order of (release, job number); copies of a job are interchangeable.

    With each job's copies sorted by start (never-started copies last, at +inf), the organization's
    sequence of starts must be non-decreasing; it suffices that the latest copy of each job starts no
    later than the earliest copy of the next job.
    """
    n = records.job.size
    listed = rows.record >= 0
    rec, start = rows.record[listed], rows.start[listed]
    first = np.full(n, _NEVER, dtype=np.int64)
    np.minimum.at(first, rec, start)
    last = np.full(n, -1, dtype=np.int64)
    np.maximum.at(last, rec, start)
    last[counts < records.copies] = _NEVER
    order = _fifo_order(records)
    a, b = order[:-1], order[1:]
    exact = counts <= records.copies  # a job run too often is reported already; its extra runs prove nothing here
    bad = np.flatnonzero((records.org[a] == records.org[b]) & (last[a] > first[b]) & exact[a] & exact[b])

    def describe(i: int) -> str:
        early, late = int(a[bad[i]]), int(b[bad[i]])
        row = int(np.flatnonzero((rows.record == late) & (rows.start == first[late]))[0])
        if last[early] == _NEVER:
            when = "has a copy that never starts"
        else:
            row_e = int(np.flatnonzero((rows.record == early) & (rows.start == last[early]))[0])
            when = f"starts at t={last[early]} on machine {rows.machine[row_e]}"
        return (f"org {records.org[late]}: job {records.job[late]} (released at t={records.release[late]}) starts "
                f"at t={first[late]} on machine {rows.machine[row]}, yet job {records.job[early]}, earlier in FIFO "
                f"order (released at t={records.release[early]}), {when}: FIFO per organization is broken")

    findings.add(bad.size, describe, "FIFO inversions")


def _fifo_order(records: _Records) -> np.ndarray:
    """Records by (org, release, job number): each organization's FIFO order, organizations one after another."""
    rel, job = records.release, records.job
    if rel.size < 2 or np.all((rel[1:] > rel[:-1]) | ((rel[1:] == rel[:-1]) & (job[1:] > job[:-1]))):
        # The scenario's documented order, (release, job): a stable sort by org alone suffices, and a
        # 16-bit key lets numpy use its radix sort.
        org = records.org
        return np.argsort(org.astype(np.uint16) if org.max() < 1 << 16 and org.min() >= 0 else org, kind="stable")
    return np.lexsort((job, rel, records.org))


