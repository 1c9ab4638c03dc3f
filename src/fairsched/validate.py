"""Independent checks of schedules against their inputs; they never use the engines.

Four models, each with its own list of rules: online schedules (`check_online_schedule`, below), backfilling
schedules (`check_backfill_schedule`), multi-organization makespan schedules (`check_mosp_schedule`) and
multi-task job schedules (`check_openshop_schedule`).

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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numba import njit

from fairsched.errors import ConfigError, InvalidScheduleError
from fairsched.scenario import COPIES, JOB, ORG, PROCESSING_TIME, RELEASE, Scenario

if TYPE_CHECKING:  # the validator needs only the jobs' arrays, not the backfilling engine's package import
    from fairsched.backfill.jobs import BackfillJobs
    from fairsched.mosp.instance import MospInstance, MospSchedule
    from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule

# The online engine's schedule columns (fairsched.online.engine.SCHEDULE_COLUMNS), restated so that the
# validator does not import the engine it checks.
SCHEDULE_COLUMNS = ("job", "org", "release", "start", "end", "machine")

DEFAULT_MAX_MESSAGES = 100  # per kind of violation; the rest are counted in one summary sentence
_SHOWN_IN_ERROR = 10
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
    findings = _run_checks(schedule, scenario, t_end, _SHOWN_IN_ERROR)
    if findings.total:
        shown = findings.messages[:_SHOWN_IN_ERROR]
        raise _violations(f"the schedule breaks the online model's rules in {findings.total} place(s); first "
                          f"{len(shown)}", shown, "engine")


# -- findings --------------------------------------------------------------------------------------------


def _violations(headline: str, messages: list[str], producer: str) -> InvalidScheduleError:
    """The error every ``assert_*``/``check_*`` raises: a headline, one violation per line, and whom to tell."""
    return InvalidScheduleError(f"{headline}:\n  - " + "\n  - ".join(messages)
                                + f"\nA schedule produced by fairsched's {producer} should never fail this check: "
                                "please report it.")

@dataclass
class _Findings:
    """Violation sentences, at most `limit` per kind, and the true total count."""

    limit: int | None
    messages: list[str] = field(default_factory=list)
    total: int = 0

    def add(self, count: int, describe: Callable[[int], str], what: str) -> None:
        """Record `count` violations of one kind; ``describe(i)`` words the i-th (only those shown)."""
        self.total += count
        shown = count if self.limit is None else min(count, self.limit)
        self.messages.extend(describe(i) for i in range(shown))
        if shown < count:
            self.messages.append(f"... and {count - shown} more {what} (not listed)")


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
                limit: int | None) -> _Findings:
    findings = _Findings(limit)
    if t_end is not None and (int(t_end) != t_end or t_end < 0):
        raise ConfigError(f"t_end must be a non-negative integer number of seconds, got {t_end!r}")
    if not _check_columns(schedule, findings):
        return findings
    records = _Records.of(scenario)
    rows = _Rows(*(schedule[c].to_numpy(np.int64) for c in SCHEDULE_COLUMNS),
                 record=_record_of_job(schedule["job"].to_numpy(np.int64), records.job))
    known = _check_rows(rows, records, t_end, findings)
    counts = np.bincount(rows.record[rows.record >= 0], minlength=records.job.size)  # rows per job
    _check_copies(rows, records, counts, t_end, findings)
    _check_overlaps(rows, known, findings)
    _check_greedy(rows, records, known, counts, t_end, findings)
    _check_fifo(rows, records, counts, findings)
    return findings


def _check_columns(schedule: pd.DataFrame, findings: _Findings) -> bool:
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


def _record_of_job(job: np.ndarray, record_job: np.ndarray) -> np.ndarray:
    """Index of each row's job number in the scenario's jobs table, -1 when the job number is unknown."""
    order = _argsort_stable(record_job)
    sorted_job = record_job[order]
    if sorted_job.size and np.any(sorted_job[1:] == sorted_job[:-1]):
        dup = int(sorted_job[1:][sorted_job[1:] == sorted_job[:-1]][0])
        raise ConfigError(f"scenario job numbers must be unique to validate a schedule; job {dup} repeats")
    record = np.full(job.size, -1, dtype=np.int64)
    if sorted_job.size == 0 or job.size == 0:
        return record
    lo, hi = int(sorted_job[0]), int(sorted_job[-1])
    inside = (job >= lo) & (job <= hi)
    if hi - lo <= 4 * sorted_job.size + (1 << 20):  # dense job numbers: a lookup table beats a binary search
        table = np.full(hi - lo + 1, -1, dtype=np.int64)
        table[sorted_job - lo] = order
        record[inside] = table[job[inside] - lo]
    else:
        pos = np.minimum(np.searchsorted(sorted_job, job), sorted_job.size - 1)
        hit = sorted_job[pos] == job
        record[hit] = order[pos[hit]]
    return record


def _check_rows(rows: _Rows, records: _Records, t_end: int | None, findings: _Findings) -> np.ndarray:
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
                  findings: _Findings) -> None:
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


def _check_overlaps(rows: _Rows, known: np.ndarray, findings: _Findings) -> None:
    """On each machine the intervals [start, end) are disjoint (so at most m jobs run at any instant)."""
    idx = np.flatnonzero(known)
    idx = idx[_argsort_stable(rows.start[idx])]
    m = int(rows.machine[idx].max()) + 1 if idx.size else 0
    n_clash, first, second = _overlaps_kernel(idx, rows.start, rows.end, rows.machine, m,
                                              idx.size if findings.limit is None else findings.limit)
    a, b = first, second
    findings.add(int(n_clash), lambda i: f"machine {rows.machine[a[i]]} runs job {rows.job[a[i]]} (row {a[i]}) "
                                         f"during [{rows.start[a[i]]}, {rows.end[a[i]]}) and job {rows.job[b[i]]} "
                                         f"(row {b[i]}) from t={rows.start[b[i]]}, before the first ends: the jobs "
                                         "overlap", "overlaps")


@njit(cache=True)
def _overlaps_kernel(order: np.ndarray, start: np.ndarray, end: np.ndarray, machine: np.ndarray, n_machines: int,
                     max_out: int):  # pragma: no cover - jit
    """Pairs (earlier row, row) on one machine where the row starts before the earlier one ends.

    `order` lists the rows to check by non-decreasing start; each machine remembers the row that ends last
    among those seen, so this is one pass with O(m) extra memory (a sort by (machine, start) was slower),
    and a long job overlapping several later ones is reported once per later job.
    Returns the number of such pairs and the first `max_out` of them.
    """
    previous = np.full(n_machines, -1, np.int64)
    first = np.empty(max_out, np.int64)
    second = np.empty(max_out, np.int64)
    n_clash = 0
    for row in order:
        mach = machine[row]
        prev = previous[mach]
        if prev >= 0 and start[row] < end[prev]:
            if n_clash < max_out:
                first[n_clash], second[n_clash] = prev, row
            n_clash += 1
        if prev < 0 or end[row] > end[prev]:
            previous[mach] = row
    return n_clash, first[:min(n_clash, max_out)], second[:min(n_clash, max_out)]


def _argsort_stable(values: np.ndarray) -> np.ndarray:
    """Stable sort order of `values`; the identity, without sorting, when already sorted (engine output)."""
    if values.size < 2 or np.all(values[1:] >= values[:-1]):
        return np.arange(values.size)
    return np.argsort(values, kind="stable")


def _sorted(values: np.ndarray) -> np.ndarray:
    if values.size < 2 or np.all(values[1:] >= values[:-1]):
        return values
    return np.sort(values)


def _check_greedy(rows: _Rows, records: _Records, known: np.ndarray, counts: np.ndarray, t_end: int | None,
                  findings: _Findings) -> None:
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
    by_release = _argsort_stable(records.release)
    max_out = end.size + records.release.size + 1 if findings.limit is None else findings.limit
    n_gaps, begin, stop, busy, waiting = _idle_gaps_kernel(
        _sorted(start), _sorted(end), records.release[by_release], (records.copies * exact)[by_release],
        _sorted(leaves), m, int(t_stop), int(max_out))

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


def _check_fifo(rows: _Rows, records: _Records, counts: np.ndarray, findings: _Findings) -> None:
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


# =========================================================================================================
# Backfilling schedules (JSSPP'05 §4; event semantics of ../shared/oracles/pyss/README.md §1–§5)
# =========================================================================================================
#
# A backfilling schedule has one row per rigid parallel job: it runs once on `procs` of the cluster's P
# processors during [start, end), with end = start + run. What the schedule and the policy let us check:
#
# * every policy: each job exactly once, with the jobs' submit time and processors; start >= submit;
#   end = start + run; at every instant the running jobs use at most P processors;
# * none, no-guarantee, EASY (each pass starts with the FCFS step, and passes run only after submissions and
#   terminations): every start is at a submission or end time, and after the last event at each event time t
#   the head of the queue (the best-ranked job waiting at t) does not fit in the processors free at t;
#   no-guarantee: no waiting job fits;
# * none with FCFS: starts are non-decreasing in queue (submission) order; none with SJF/LXF: no job starts at
#   t while a job submitted before t, ranked before it at t, waits;
# * EASY with FCFS: each job starts no later than the shadow time it gets on becoming the queue head
#   (EASY's guarantee: backfilling never delays the head's reservation, computed from requested times). The
#   shadow time is computed from the state after the last event at that time h, so a job backfilled at h itself
#   counts as running: the schedule cannot say whether it started before or after the head changed;
# * conservative: the generic checks only (its guarantees refer to reservations the schedule does not show).
#
# At an event time t the state after the last event is: running = {start <= t < end}, waiting =
# {submit <= t < start}; an ended job's processors are free at its end (its termination has been processed).

BACKFILL_SCHEDULE_COLUMNS = ("job", "submit", "start", "end", "procs")
# Restated from fairsched.backfill.policies so that the validator does not import the engine it checks.
BACKFILL_ORDERS = ("fcfs", "sjf", "lxf")
BACKFILL_RULES = ("none", "no-guarantee", "easy", "conservative")


def check_backfill_schedule(schedule: pd.DataFrame, jobs: BackfillJobs, *, order: str = "fcfs",
                            backfill: str = "easy", max_messages: int | None = DEFAULT_MAX_MESSAGES) -> list[str]:
    """Every rule of the backfilling model and policy that `schedule` breaks, as sentences (empty: valid).

    Implements the checks listed above (JSSPP'05 §4 model; pyss README semantics).

    Parameters
    ----------
    schedule : DataFrame with columns ``job, submit, start, end, procs`` (more are ignored), one row per job.
    jobs : the `fairsched.backfill.jobs.BackfillJobs` the schedule claims to solve (run times, requested
        times, processors, P).
    order, backfill : the policy that produced it (``fcfs|sjf|lxf`` × ``none|no-guarantee|easy|conservative``).
    max_messages : at most this many sentences per kind of violation (None = all).

    Complexity: O(n log n) for the generic checks; the queue checks sweep the event times, O(events × queue)
    (O(events) for FCFS); the EASY check is O(n × running log running).

    Examples
    --------
    >>> from fairsched.backfill.jobs import BackfillJobs
    >>> jobs = BackfillJobs.from_arrays([0, 0, 1, 5], [5, 100, 10, 5], [2, 2, 4, 2], [10, 100, 10, 5],
    ...                                 n_processors=6)
    >>> rows = pd.DataFrame({"job": [1, 2, 3, 4], "submit": [0, 0, 1, 5], "start": [0, 0, 10, 5],
    ...                      "end": [5, 100, 20, 10], "procs": [2, 2, 4, 2]})
    >>> check_backfill_schedule(rows, jobs, backfill="easy")
    []
    >>> check_backfill_schedule(rows, jobs, backfill="none")  # doctest: +ELLIPSIS
    ['job 4 (row 3) starts at t=5 before job 3 (row 2), earlier in queue order, which starts at t=10: ...']
    """
    if order not in BACKFILL_ORDERS or backfill not in BACKFILL_RULES:
        raise ConfigError(f"order={order!r}, backfill={backfill!r}: expected an order in {BACKFILL_ORDERS} and a "
                          f"backfilling rule in {BACKFILL_RULES}")
    findings = _Findings(max_messages)
    rows = _backfill_rows(schedule, jobs, findings)
    if rows is None:
        return findings.messages
    _check_backfill_capacity(rows, jobs.n_processors, findings)
    if backfill != "conservative":
        _check_queue_rules(rows, jobs, order, backfill, findings)
    if backfill == "none" and order == "fcfs":
        _check_fcfs_starts(rows, findings)
    if backfill == "easy" and order == "fcfs":
        _check_easy_reservations(rows, jobs, findings)
    return findings.messages


def validate_backfill_schedule(schedule: pd.DataFrame, jobs: BackfillJobs, *, order: str = "fcfs",
                               backfill: str = "easy") -> None:
    """Raise `InvalidScheduleError` listing the first violations; silent if valid (`check_backfill_schedule`)."""
    messages = check_backfill_schedule(schedule, jobs, order=order, backfill=backfill, max_messages=_SHOWN_IN_ERROR)
    if messages:
        shown = messages[:_SHOWN_IN_ERROR]
        raise _violations(f"the schedule breaks the backfilling model's rules ({order} × {backfill}); first "
                          f"{len(shown)}", shown, "engine")


@dataclass(frozen=True)
class _JobRows:
    """Schedule rows aligned with the jobs: entry i is job index i (submission order); `row` = schedule row."""

    row: np.ndarray
    start: np.ndarray
    end: np.ndarray
    submit: np.ndarray
    procs: np.ndarray
    req: np.ndarray
    job: np.ndarray


def _backfill_rows(schedule: pd.DataFrame, jobs: BackfillJobs, findings: _Findings) -> _JobRows | None:
    """Columns, job numbers (each job once), submit/procs/end/start rules; None when later checks cannot run."""
    missing = [c for c in BACKFILL_SCHEDULE_COLUMNS if c not in schedule.columns]
    bad = [c for c in BACKFILL_SCHEDULE_COLUMNS if c in schedule.columns and (
        not pd.api.types.is_integer_dtype(schedule[c].dtype) or bool(schedule[c].isna().any()))]
    if missing or bad:
        findings.add(1, lambda _: f"the schedule lacks column(s) {missing} or has non-integer column(s) {bad}; "
                                  f"expected integer columns {', '.join(BACKFILL_SCHEDULE_COLUMNS)}", "")
        return None
    col = {c: schedule[c].to_numpy(np.int64) for c in BACKFILL_SCHEDULE_COLUMNS}
    index = _record_of_job(col["job"], jobs.job)
    unknown = np.flatnonzero(index < 0)
    findings.add(unknown.size, lambda i: f"row {unknown[i]}: job {col['job'][unknown[i]]} is not one of the jobs",
                 "rows with unknown jobs")
    known = np.flatnonzero(index >= 0)
    counts = np.bincount(index[known], minlength=jobs.n_jobs)
    twice, never = np.flatnonzero(counts > 1), np.flatnonzero(counts == 0)
    findings.add(twice.size, lambda i: f"job {jobs.job[twice[i]]} appears {counts[twice[i]]} times; each job runs "
                                       "exactly once", "jobs run more than once")
    findings.add(never.size, lambda i: f"job {jobs.job[never[i]]} (submitted at t={jobs.submit[never[i]]}) never "
                                       "runs; every job must run", "jobs missing")
    row = np.full(jobs.n_jobs, -1, dtype=np.int64)
    row[index[known][::-1]] = known[::-1]  # first row of each job
    if never.size:
        return None
    _check_backfill_fields(col, row, jobs, findings)
    return _JobRows(row=row, start=col["start"][row], end=col["end"][row], submit=jobs.submit, procs=jobs.procs,
                    req=jobs.requested, job=jobs.job)


def _check_backfill_fields(col: dict[str, np.ndarray], row: np.ndarray, jobs: BackfillJobs,
                           findings: _Findings) -> None:
    start, end = col["start"][row], col["end"][row]
    rules = [
        (col["submit"][row] != jobs.submit, lambda i: f"is listed as submitted at t={col['submit'][row[i]]}, but "
                                                      f"the job is submitted at t={jobs.submit[i]}", "wrong submits"),
        (col["procs"][row] != jobs.procs, lambda i: f"is listed on {col['procs'][row[i]]} processors, but the job "
                                                    f"needs {jobs.procs[i]}", "wrong processor counts"),
        (end != start + jobs.run, lambda i: f"ends at t={end[i]}; expected start + run time = {start[i]} + "
                                            f"{jobs.run[i]} = {start[i] + jobs.run[i]}", "wrong end times"),
        (start < jobs.submit, lambda i: f"starts at t={start[i]}, before its submission at t={jobs.submit[i]}",
         "starts before submission"),
    ]
    for broken, words, what in rules:
        bad = np.flatnonzero(broken)
        findings.add(bad.size, lambda i, bad=bad, words=words: f"job {jobs.job[bad[i]]} (row {row[bad[i]]}) "
                                                               f"{words(bad[i])}", what)


def _check_backfill_capacity(rows: _JobRows, n_processors: int, findings: _Findings) -> None:
    """At every instant the jobs running ([start, end)) use at most P processors: a sweep over start and end
    times, reading the usage after all the changes at each time (so a job ending at t frees its processors
    for a job starting at t)."""
    times = np.concatenate((rows.end, rows.start))
    delta = np.concatenate((-rows.procs, rows.procs))
    order = np.argsort(times, kind="stable")
    used = np.cumsum(delta[order])
    last_at_time = np.append(times[order][1:] != times[order][:-1], True)
    over = np.flatnonzero(last_at_time & (used > n_processors))
    t_over, u_over = times[order][over], used[over]

    def describe(i: int) -> str:
        t = t_over[i]
        running = np.flatnonzero((rows.start <= t) & (rows.end > t))
        return (f"at t={t} the running jobs use {u_over[i]} processors, more than the machine's {n_processors} "
                f"(jobs {rows.job[running][:8].tolist()}{'...' if running.size > 8 else ''})")

    findings.add(over.size, describe, "instants over capacity")


def _check_fcfs_starts(rows: _JobRows, findings: _Findings) -> None:
    """No backfilling, FCFS: start times never decrease in submission order (pyss README §3)."""
    bad = np.flatnonzero(rows.start[1:] < rows.start[:-1])
    findings.add(bad.size, lambda i: f"job {rows.job[bad[i] + 1]} (row {rows.row[bad[i] + 1]}) starts at "
                                     f"t={rows.start[bad[i] + 1]} before job {rows.job[bad[i]]} (row "
                                     f"{rows.row[bad[i]]}), earlier in queue order, which starts at "
                                     f"t={rows.start[bad[i]]}: without backfilling only the head may start",
                 "queue-order inversions")


def _check_queue_rules(rows: _JobRows, jobs: BackfillJobs, order: str, backfill: str, findings: _Findings) -> None:
    """Starts at event times; the head (no-guarantee: any waiting job) never fits after the last pass at an
    event time; without backfilling, no start ahead of a better-ranked job that waited before."""
    events = np.union1d(rows.submit, rows.end)
    off = np.flatnonzero(~np.isin(rows.start, events))
    findings.add(off.size, lambda i: f"job {rows.job[off[i]]} (row {rows.row[off[i]]}) starts at t={rows.start[off[i]]}"
                                     ", where no job is submitted or ends: passes run only after those events",
                 "starts between events")
    by_start = _argsort_stable(rows.start)
    by_end = _argsort_stable(rows.end)
    limit = events.size if findings.limit is None else findings.limit
    n_fit, fit_t, fit_j, n_jump, jump_t, jump_j, jump_k = _queue_sweep_kernel(
        events, rows.submit, rows.start, rows.end, rows.procs, rows.req, by_start, by_end, jobs.n_processors,
        BACKFILL_ORDERS.index(order), backfill == "no-guarantee", backfill == "none" and order != "fcfs", limit)
    what = "a waiting job" if backfill == "no-guarantee" else f"the queue head ({order})"
    findings.add(int(n_fit), lambda i: f"at t={fit_t[i]} {what}, job {rows.job[fit_j[i]]} (row {rows.row[fit_j[i]]}, "
                                       f"{rows.procs[fit_j[i]]} processors), waits though it fits in the free "
                                       "processors after the last event at t", "idle fits")
    findings.add(int(n_jump), lambda i: f"at t={jump_t[i]} job {rows.job[jump_j[i]]} (row {rows.row[jump_j[i]]}) "
                                        f"starts while job {rows.job[jump_k[i]]}, ranked before it ({order}) and "
                                        "waiting since before t, does not: without backfilling only the head "
                                        "may start", "starts ahead of the head")


@njit(cache=True)
def _ranks_before(a, b, t, order, submit, req):  # pragma: no cover - jit
    """Queue order at time t: 0 FCFS (index), 1 SJF (requested, index), 2 LXF (expansion factor, exact)."""
    if order == 1 and req[a] != req[b]:
        return req[a] < req[b]
    if order == 2:
        lhs = (t - submit[a]) * req[b]
        rhs = (t - submit[b]) * req[a]
        if lhs != rhs:
            return lhs > rhs
    return a < b


_N_WAIT, _I_SUB, _I_START, _I_END, _USED, _HEAD = range(6)  # cursor fields of the queue sweep


@njit(cache=True)
def _advance_queue_sweep(t, cur, waiting, slot, began, submit, start, end, procs, by_start, by_end):
    """Bring the sweep to the state after the last event at t: add submissions (jobs still waiting at t),
    remove starts (recording in `began` those at t), subtract ends. Returns how many jobs began at t."""
    n = submit.size
    while cur[_I_SUB] < n and submit[cur[_I_SUB]] <= t:
        j = cur[_I_SUB]
        if start[j] > t:
            slot[j] = cur[_N_WAIT]
            waiting[cur[_N_WAIT]] = j
            cur[_N_WAIT] += 1
        cur[_I_SUB] += 1
    n_began = 0
    while cur[_I_START] < n and start[by_start[cur[_I_START]]] <= t:
        j = by_start[cur[_I_START]]
        cur[_USED] += procs[j]
        if slot[j] >= 0:  # swap-remove from the waiting set
            last = waiting[cur[_N_WAIT] - 1]
            waiting[slot[j]] = last
            slot[last] = slot[j]
            slot[j] = -1
            cur[_N_WAIT] -= 1
        if start[j] == t:
            began[n_began] = j
            n_began += 1
        cur[_I_START] += 1
    while cur[_I_END] < n and end[by_end[cur[_I_END]]] <= t:
        cur[_USED] -= procs[by_end[cur[_I_END]]]
        cur[_I_END] += 1
    return n_began


@njit(cache=True)
def _scan_waiting(t, cur, waiting, submit, start, procs, req, order, full_scan, need_earlier):
    """(best-ranked waiting job, best-ranked among those waiting since before t, narrowest), -1 when none.

    For FCFS without `full_scan` only the head is needed: the smallest index not started by t (monotone in t).
    """
    best = earlier = narrow = -1
    if order == 0:
        while cur[_HEAD] < submit.size and start[cur[_HEAD]] <= t:
            cur[_HEAD] += 1
        best = cur[_HEAD] if cur[_HEAD] < submit.size and submit[cur[_HEAD]] <= t else -1
    if full_scan or order != 0:
        for w in range(cur[_N_WAIT]):
            j = waiting[w]
            if best < 0 or _ranks_before(j, best, t, order, submit, req):
                best = j
            if need_earlier and submit[j] < t and (earlier < 0 or _ranks_before(j, earlier, t, order, submit, req)):
                earlier = j
            if narrow < 0 or procs[j] < procs[narrow]:
                narrow = j
    return best, earlier, narrow


@njit(cache=True)
def _queue_sweep_kernel(events, submit, start, end, procs, req, by_start, by_end, n_procs, order, any_fit,
                        no_backfill, max_out):  # pragma: no cover - jit
    """Sweep the event times; at each t after its last event: waiting = {submit <= t < start}, free = P - used.

    Reports (t, job) where the best-ranked waiting job (any_fit: the narrowest) fits, and, when no_backfill,
    (t, job j started at t, job k waiting since before t and ranked before j). Returns counts and the first
    `max_out` of each. O(events) for FCFS without any_fit (the head is a pointer), else O(events × queue).
    """
    n = submit.size
    waiting, slot, began = np.empty(n, np.int64), np.full(n, -1, np.int64), np.empty(n, np.int64)
    cur = np.zeros(6, np.int64)
    fit_t, fit_j = np.empty(max_out, np.int64), np.empty(max_out, np.int64)
    jump_t, jump_j, jump_k = np.empty(max_out, np.int64), np.empty(max_out, np.int64), np.empty(max_out, np.int64)
    n_fit = n_jump = 0
    for t in events:
        n_began = _advance_queue_sweep(t, cur, waiting, slot, began, submit, start, end, procs, by_start, by_end)
        best, earlier, narrow = _scan_waiting(t, cur, waiting, submit, start, procs, req, order, any_fit, no_backfill)
        probe = narrow if any_fit else best
        if probe >= 0 and procs[probe] <= n_procs - cur[_USED]:
            if n_fit < max_out:
                fit_t[n_fit], fit_j[n_fit] = t, probe
            n_fit += 1
        for b in range(n_began if no_backfill and earlier >= 0 else 0):
            if _ranks_before(earlier, began[b], t, order, submit, req):
                if n_jump < max_out:
                    jump_t[n_jump], jump_j[n_jump], jump_k[n_jump] = t, began[b], earlier
                n_jump += 1
    k, m = min(n_fit, max_out), min(n_jump, max_out)
    return n_fit, fit_t[:k], fit_j[:k], n_jump, jump_t[:m], jump_j[:m], jump_k[:m]


def _check_easy_reservations(rows: _JobRows, jobs: BackfillJobs, findings: _Findings) -> None:
    """EASY with FCFS: job j becomes the head at h_j = max(submit_j, max_{k<j} start_k); from the state after the
    last event at h_j its shadow time sigma_j is computed from requested times (pyss README §4); j must start
    by sigma_j."""
    head_since = np.maximum(rows.submit, np.concatenate(([np.iinfo(np.int64).min], np.maximum.accumulate(
        rows.start)[:-1])))
    by_start = _argsort_stable(rows.start)
    limit = rows.start.size if findings.limit is None else findings.limit
    n_late, late_j, late_h, late_sigma = _easy_reservation_kernel(
        head_since, rows.start, rows.end, rows.procs, rows.req, by_start, jobs.n_processors, limit)
    findings.add(int(n_late), lambda i: f"job {rows.job[late_j[i]]} (row {rows.row[late_j[i]]}) became the queue head "
                                        f"at t={late_h[i]} with shadow time t={late_sigma[i]} but starts at "
                                        f"t={rows.start[late_j[i]]}: EASY backfilling delayed the head's "
                                        "reservation", "late queue heads")


@njit(cache=True)
def _easy_reservation_kernel(head_since, start, end, procs, req, by_start, n_procs, max_out):  # pragma: no cover
    """For each job j with start_j > h_j (h non-decreasing in j): sigma_j from the jobs running after the last
    event at h_j ({start <= h < end}, planned end start + req); report j when start_j > sigma_j."""
    n = start.size
    running = np.empty(n, np.int64)
    n_run = i_start = n_late = 0
    late_j, late_h, late_s = np.empty(max_out, np.int64), np.empty(max_out, np.int64), np.empty(max_out, np.int64)
    for j in range(n):
        h = head_since[j]
        if start[j] <= h:
            continue
        while i_start < n and start[by_start[i_start]] <= h:
            running[n_run] = by_start[i_start]
            n_run += 1
            i_start += 1
        kept = 0
        for r in range(n_run):  # drop the jobs ended by h
            if end[running[r]] > h:
                running[kept] = running[r]
                kept += 1
        n_run = kept
        live = running[:n_run]
        planned = start[live] + req[live]
        order = np.argsort(planned)
        avail = n_procs
        for r in range(n_run):
            avail -= procs[live[r]]
        sigma = h
        k = 0
        while avail < procs[j] and k < n_run:
            sigma = planned[order[k]]
            while k < n_run and planned[order[k]] == sigma:
                avail += procs[live[order[k]]]
                k += 1
        if start[j] > sigma:
            if n_late < max_out:
                late_j[n_late], late_h[n_late], late_s[n_late] = j, h, sigma
            n_late += 1
    m = min(n_late, max_out)
    return n_late, late_j[:m], late_h[:m], late_s[:m]


# -- openshop: multi-task jobs (Networking'20) -----------------------------------------------------------

def check_openshop_schedule(instance: OpenShopInstance, schedule: OpenShopSchedule) -> None:
    """Raise `InvalidScheduleError` listing every rule of the openshop model `schedule` breaks; silent if valid.

    Implements the rules of Shafiee & Ghaderi, "On max-min fairness of completion times for multi-task job
    scheduling" (IFIP Networking 2020), §II: one integer start >= 0 per task; a task occupies its machine during
    [start, start + p_ij) without preemption and no two tasks of a machine overlap; no task starts before its
    job's arrival (§VII-B); C_j = max over j's tasks of start + p_ij (Eq. (1)), the arrival for a job without tasks.
    Re-derived from the instance's arrays, independently of the engine. O(t log t) for t tasks.

    Examples
    --------
    >>> from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
    >>> inst = OpenShopInstance.from_dense([[2, 0], [1, 3]])
    >>> check_openshop_schedule(inst, OpenShopSchedule(np.array([0, 2, 0]), np.array([2, 3])))
    >>> check_openshop_schedule(inst, OpenShopSchedule(np.array([0, 1, 0]), np.array([2, 3])))
    Traceback (most recent call last):
    ...
    fairsched.errors.InvalidScheduleError: the schedule breaks the openshop model's rules in 1 place(s):
      - machine 0 runs task 0 (job 0) during [0, 2) and task 1 (job 1) from t=1, before the first ends
    A schedule produced by fairsched's algorithms should never fail this check: please report it.
    """
    findings = _Findings(_SHOWN_IN_ERROR)
    start, completion = _openshop_arrays(instance, schedule, findings)
    if start is not None and completion is not None:
        _check_openshop_tasks(instance, start, findings)
        _check_openshop_completion(instance, start, completion, findings)
    if findings.total:
        raise _violations(f"the schedule{f' of {schedule.algorithm}' if schedule.algorithm else ''} breaks the "
                          f"openshop model's rules in {findings.total} place(s)", findings.messages, "algorithms")


def _openshop_arrays(instance: OpenShopInstance, schedule: OpenShopSchedule,
                     findings: _Findings) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The schedule's arrays as int64 when they have one integer per task / job, else (None, None) and a finding."""
    arrays = []
    for name, size, what in (("task_start", instance.n_tasks, "task"), ("completion", instance.n_jobs, "job")):
        values = np.asarray(getattr(schedule, name))
        if values.shape != (size,) or not (values.size == 0 or np.issubdtype(values.dtype, np.integer)):
            findings.add(1, lambda _, n=name, v=values, s=size, w=what: f"{n} has shape {v.shape} and dtype "
                                                                        f"{v.dtype}; expected {s} integers (one "
                                                                        f"per {w})", "")
            return None, None
        arrays.append(values.astype(np.int64))
    return arrays[0], arrays[1]


def _check_openshop_tasks(instance: OpenShopInstance, start: np.ndarray, findings: _Findings) -> None:
    """Starts >= 0 and >= the job's arrival; per machine, [start, start + p) disjoint."""
    job = instance.task_job()
    release = instance.arrival[job]
    negative = np.flatnonzero(start < 0)
    findings.add(negative.size, lambda i: f"task {negative[i]} (job {instance.job_id[job[negative[i]]]}) starts at "
                                          f"t={start[negative[i]]} < 0", "negative starts")
    early = np.flatnonzero((start < release) & (start >= 0))
    findings.add(early.size, lambda i: f"task {early[i]} (job {instance.job_id[job[early[i]]]}, machine "
                                       f"{instance.task_machine[early[i]]}) starts at t={start[early[i]]}, before "
                                       f"its job arrives at t={release[early[i]]}", "starts before arrival")
    end = start + instance.task_time
    order = _argsort_stable(start)
    n_clash, a, b = _overlaps_kernel(order, start, end, instance.task_machine, instance.n_machines,
                                     order.size if findings.limit is None else findings.limit)
    findings.add(int(n_clash), lambda i: f"machine {instance.task_machine[a[i]]} runs task {a[i]} (job "
                                       f"{instance.job_id[job[a[i]]]}) during [{start[a[i]]}, {end[a[i]]}) and task "
                                       f"{b[i]} (job {instance.job_id[job[b[i]]]}) from t={start[b[i]]}, before the "
                                       "first ends", "overlaps")


def _check_openshop_completion(instance: OpenShopInstance, start: np.ndarray, completion: np.ndarray,
                               findings: _Findings) -> None:
    """C_j = max over the job's tasks of start + p (Eq. (1)); the arrival for a job without tasks."""
    expected = instance.arrival.astype(np.int64)
    has_tasks = np.diff(instance.indptr) > 0
    if instance.n_tasks:
        expected[has_tasks] = np.maximum.reduceat(start + instance.task_time, instance.indptr[:-1][has_tasks])
    wrong = np.flatnonzero(completion != expected)
    findings.add(wrong.size, lambda i: f"job {instance.job_id[wrong[i]]} is said to complete at "
                                       f"t={completion[wrong[i]]}, but its last task ends at t={expected[wrong[i]]}"
                                       if has_tasks[wrong[i]] else
                                       f"job {instance.job_id[wrong[i]]} has no task and should complete at its "
                                       f"arrival t={expected[wrong[i]]}, not t={completion[wrong[i]]}",
                 "wrong completion times")


# -- MOSP: multi-organization schedules (TPDS'11) --------------------------------------------------------

def check_mosp_schedule(instance: MospInstance, schedule: MospSchedule, *, local_order: str = "hf",
                        delay_reference: MospSchedule | None = None, makespan_bound: float | None = None,
                        local_constraint: bool = True, seed: int = 0) -> None:
    """Raise `InvalidScheduleError` listing every rule of the MOSP model `schedule` breaks; silent if valid.

    Implements the rules of Dutot, Pascual, Rzadca, Trystram, "Approximation algorithms for the
    multi-organization scheduling problem" (IEEE TPDS 2011), §2.1–§2.2: every job runs once, on one cluster with
    at least q processors, from an integer start >= 0 for exactly p; at every instant a cluster's running jobs
    ([start, start + p)) use at most its m_k processors; and constraint (1), C_max(O_k) <= C_max^loc(O_k) for every
    organization k. Checked independently of the algorithms: a sweep over each cluster's sorted start/end events;
    only C_max^loc comes from `fairsched.mosp.policies.local.local_schedule`.

    Parameters
    ----------
    instance, schedule : the `fairsched.mosp.instance` objects (row j of the schedule is job j).
    local_order, seed : the local policy defining C_max^loc (hf, lpt, spt, rnd); `seed` seeds rnd.
    delay_reference : a schedule no job may start later than (ILBA's input: Prop. 11).
    makespan_bound : C_max must not exceed it (e.g. 3LB for MOCCA, Theorem 1); floats get a 1e-9 relative slack
        for the rounding of LB = W/m.
    local_constraint : check constraint (1) (off for the paper's §7.3 runs without the HF fall-back).
    """
    findings = _Findings(_SHOWN_IN_ERROR)
    rows = _mosp_rows(instance, schedule, findings)
    if rows is not None:
        cluster, start, end = rows
        _check_mosp_capacity(instance, cluster, start, end, findings)
        if local_constraint:
            _check_mosp_local(instance, end, local_order, seed, findings)
        if makespan_bound is not None:
            _check_mosp_bound(instance, end, makespan_bound, findings)
        if delay_reference is not None:
            _check_mosp_delays(instance, start, delay_reference, findings)
    if findings.total:
        raise _violations(f"the schedule{f' of {schedule.algorithm}' if schedule.algorithm else ''} breaks the "
                          f"MOSP model's rules in {findings.total} place(s)", findings.messages, "algorithms")


def _mosp_rows(instance: MospInstance, schedule: MospSchedule,
               findings: _Findings) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Shape, integer type, cluster range, start >= 0 and width <= m_cluster; None when later checks cannot run."""
    n, n_orgs = instance.n_jobs, instance.n_orgs
    raw_cluster, raw_start = np.asarray(schedule.cluster), np.asarray(schedule.start)
    if raw_cluster.shape != (n,) or raw_start.shape != (n,) or not (
            np.issubdtype(raw_cluster.dtype, np.integer) and np.issubdtype(raw_start.dtype, np.integer)):
        findings.add(1, lambda _: f"the schedule has cluster {raw_cluster.shape} {raw_cluster.dtype} and start "
                                  f"{raw_start.shape} {raw_start.dtype}; expected one integer cluster and one "
                                  f"integer start per job ({n} jobs): every job runs exactly once", "")
        return None
    cluster, start = raw_cluster.astype(np.int64), raw_start.astype(np.int64)
    job = instance.job_id
    unknown = np.flatnonzero((cluster < 0) | (cluster >= n_orgs))
    findings.add(unknown.size, lambda i: f"job {job[unknown[i]]} (row {unknown[i]}) runs on cluster "
                                         f"{cluster[unknown[i]]}; expected one of the clusters 0..{n_orgs - 1}",
                 "jobs on unknown clusters")
    early = np.flatnonzero(start < 0)
    findings.add(early.size, lambda i: f"job {job[early[i]]} (row {early[i]}) starts at t={start[early[i]]}; "
                                       "every job is available at 0 and starts at t >= 0", "negative starts")
    if unknown.size:
        return None
    wide = np.flatnonzero(instance.width > instance.procs[cluster])
    findings.add(wide.size, lambda i: f"job {job[wide[i]]} (row {wide[i]}) needs {instance.width[wide[i]]} "
                                      f"processors but runs on cluster {cluster[wide[i]]} of "
                                      f"{instance.procs[cluster[wide[i]]]}", "jobs on too small clusters")
    return cluster, start, start + instance.runtime


def _check_mosp_capacity(instance: MospInstance, cluster: np.ndarray, start: np.ndarray, end: np.ndarray,
                         findings: _Findings) -> None:
    """Sweep each cluster's events sorted by time; the usage after all changes at t ([start, end)) is <= m_k.
    Events are sorted by (cluster, time); each cluster's changes sum to 0, so one running sum serves all."""
    on = np.concatenate((cluster, cluster))
    times = np.concatenate((start, end))
    delta = np.concatenate((instance.width, -instance.width))
    order = np.lexsort((times, on))
    on, times, used = on[order], times[order], np.cumsum(delta[order])
    last = np.append((on[1:] != on[:-1]) | (times[1:] != times[:-1]), True)
    over = np.flatnonzero(last & (used > instance.procs[on]))

    def describe(i: int) -> str:
        c, t = on[over[i]], times[over[i]]
        running = np.flatnonzero((cluster == c) & (start <= t) & (end > t))
        return (f"at t={t} cluster {c} runs jobs {instance.job_id[running][:8].tolist()}"
                f"{'...' if running.size > 8 else ''} using {used[over[i]]} processors, more than its "
                f"{instance.procs[c]}")

    findings.add(over.size, describe, "instants over capacity")


def _check_mosp_local(instance: MospInstance, end: np.ndarray, local_order: str, seed: int,
                      findings: _Findings) -> None:
    """Constraint (1) of TPDS'11 §2.2: no organization finishes later than with its local schedule."""
    from fairsched.mosp.policies.local import local_schedule  # the only algorithm the validator relies on

    local = local_schedule(instance, order=local_order, seed=seed)
    mine = np.zeros(instance.n_orgs, dtype=np.int64)
    alone = np.zeros(instance.n_orgs, dtype=np.int64)
    np.maximum.at(mine, instance.owner, end)
    np.maximum.at(alone, instance.owner, local.start + instance.runtime)
    worse = np.flatnonzero(mine > alone)
    findings.add(worse.size, lambda i: f"organization {worse[i]} finishes at t={mine[worse[i]]}, later than "
                                       f"t={alone[worse[i]]} with its local {local_order} schedule (constraint "
                                       "(1): it would rather leave the grid)", "organizations worse off")


def _check_mosp_bound(instance: MospInstance, end: np.ndarray, bound: float, findings: _Findings) -> None:
    c_max = int(end.max(initial=0))
    slack = 1e-9 * max(1.0, abs(float(bound))) if isinstance(bound, float) else 0
    if c_max > bound + slack:
        last = int(np.argmax(end))
        findings.add(1, lambda _: f"C_max = {c_max} (job {instance.job_id[last]}) exceeds the bound {bound}", "")


def _check_mosp_delays(instance: MospInstance, start: np.ndarray, reference: MospSchedule,
                       findings: _Findings) -> None:
    """No job starts later than in `reference` (TPDS'11 Prop. 11 for ILBA)."""
    ref = np.asarray(reference.start)
    if ref.shape != start.shape:
        findings.add(1, lambda _: f"the delay reference has {ref.size} starts for {start.size} jobs", "")
        return
    late = np.flatnonzero(start > ref)
    findings.add(late.size, lambda i: f"job {instance.job_id[late[i]]} (row {late[i]}) starts at "
                                      f"t={start[late[i]]}, later than t={ref[late[i]]} in the reference schedule",
                 "delayed jobs")
