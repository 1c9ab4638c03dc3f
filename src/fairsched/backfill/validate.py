"""Independent checks of backfilling schedules against their jobs; they never use the engine.

Backfilling schedules (JSSPP'05 §4; event semantics of ../shared/oracles/pyss/README.md §1–§5).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from fairsched._validation import (
    DEFAULT_MAX_MESSAGES,
    SHOWN_IN_ERROR,
    Findings,
    argsort_stable,
    record_of_job,
    violations,
)
from fairsched.backfill.engine import SCHEDULE_COLUMNS
from fairsched.backfill.policies import backfill_names, get_order, order_names
from fairsched.errors import ConfigError

if TYPE_CHECKING:  # the validator needs only the jobs' arrays, and the schedule's columns
    import pandas as pd

    from fairsched.backfill.jobs import BackfillJobs

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
# * conservative: the generic checks only (its guarantees refer to reservations the schedule does not show);
# * slurm (main scheduler at submissions and terminations, backfill passes on the grid first submission +
#   k * bf_interval): the pass times are event times too; after the last event at each event time the head does
#   not fit (the main scheduler ran, or the pass tested the head first; LXF: as for ticked orders, the widest
#   waiting job, since a pass skipped for want of a change does not re-rank); with FCFS and a window longer than every
#   requested time, EASY's guarantee holds (the head is the first job each pass reserves for, its reservation
#   is always inside the window, and between passes only heads start);
# * ticked orders (drf, directcontr: keys recomputed at ticks every `calc_period` s from the first submission,
#   which the schedule does not show): the ticks are event times too (a tick that reorders the queue runs a
#   pass); with the rank unknown, none and EASY are checked by "not every waiting job fits" (the head is one
#   of them), no-guarantee as for the other orders, and none's "no start ahead of a better-ranked job" is
#   left out.
#
# At an event time t the state after the last event is: running = {start <= t < end}, waiting =
# {submit <= t < start}; an ended job's processors are free at its end (its termination has been processed).

BACKFILL_SCHEDULE_COLUMNS = SCHEDULE_COLUMNS[:5]  # job, submit, start, end, procs: what the checks read
# The registered names, by code (the queue-sweep kernel switches on an order's position here, i.e. its code).
BACKFILL_ORDERS = tuple(order_names())
BACKFILL_RULES = tuple(backfill_names())
BACKFILL_TICKED_ORDERS = tuple(name for name in BACKFILL_ORDERS if get_order(name).ticked)


def check_backfill_schedule(schedule: pd.DataFrame | Mapping[str, np.ndarray], jobs: BackfillJobs, *,
                            order: str = "fcfs", backfill: str = "easy",
                            max_messages: int | None = DEFAULT_MAX_MESSAGES,
                            calc_period: int = 300, bf_interval: int = 30, bf_window: int = 86400) -> list[str]:
    """Every rule of the backfilling model and policy that `schedule` breaks, as sentences (empty: valid).

    Implements the checks listed above (JSSPP'05 §4 model; pyss README semantics).

    Parameters
    ----------
    schedule : DataFrame with columns ``job, submit, start, end, procs`` (more are ignored), one row per job;
        or a mapping of those names to arrays (`fairsched.backfill.BackfillResult.columns`).
    jobs : the `fairsched.backfill.jobs.BackfillJobs` the schedule claims to solve (run times, requested
        times, processors, P).
    order, backfill : the policy that produced it (a registered queue order × backfilling rule).
    max_messages : at most this many sentences per kind of violation (None = all).
    calc_period : ticked orders only: the seconds between ticks the schedule was made with.
    bf_interval, bf_window : the ``slurm`` rule only: seconds between its backfill passes, and of its plan.

    Complexity: O(n log n) for the generic checks; the queue checks sort and sweep the event times (ticks and
    passes included), O(events log events + n × queue) (the queue is scanned only where a job is submitted,
    starts or ends; O(events log events) for FCFS); the EASY check is O(n × running log running).

    Examples
    --------
    >>> from fairsched.backfill.jobs import BackfillJobs
    >>> jobs = BackfillJobs.from_arrays([0, 0, 1, 5], [5, 100, 10, 5], [2, 2, 4, 2], [10, 100, 10, 5],
    ...                                 n_processors=6)
    >>> import pandas as pd
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
    findings = Findings(max_messages)
    rows = _backfill_rows(schedule, jobs, findings)
    if rows is None:
        return findings.messages
    _check_backfill_capacity(rows, jobs.n_processors, findings)
    if backfill != "conservative":
        ticks = _tick_times(rows, calc_period) if order in BACKFILL_TICKED_ORDERS else None
        passes = _tick_times(rows, bf_interval, "bf_interval")[1:] if backfill == "slurm" else None
        _check_queue_rules(rows, jobs, order, backfill, findings, ticks, passes)
    if backfill == "none" and order == "fcfs":
        _check_fcfs_starts(rows, findings)
    slurm_as_easy = backfill == "slurm" and rows.req.size > 0 and bf_window > int(rows.req.max())
    if (backfill == "easy" or slurm_as_easy) and order == "fcfs":
        _check_easy_reservations(rows, jobs, findings)
    return findings.messages


def validate_backfill_schedule(schedule: pd.DataFrame | Mapping[str, np.ndarray], jobs: BackfillJobs, *,
                               order: str = "fcfs", backfill: str = "easy", calc_period: int = 300,
                               bf_interval: int = 30, bf_window: int = 86400) -> None:
    """Raise `InvalidScheduleError` listing the first violations; silent if valid (`check_backfill_schedule`)."""
    messages = check_backfill_schedule(schedule, jobs, order=order, backfill=backfill, max_messages=SHOWN_IN_ERROR,
                                       calc_period=calc_period, bf_interval=bf_interval, bf_window=bf_window)
    if messages:
        shown = messages[:SHOWN_IN_ERROR]
        raise violations(f"the schedule breaks the backfilling model's rules ({order} × {backfill}); first "
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


def _backfill_rows(schedule: pd.DataFrame | Mapping[str, np.ndarray], jobs: BackfillJobs,
                   findings: Findings) -> _JobRows | None:
    """Columns, job numbers (each job once), submit/procs/end/start rules; None when later checks cannot run."""
    missing = [c for c in BACKFILL_SCHEDULE_COLUMNS if c not in schedule]  # DataFrame: its columns
    bad = [c for c in BACKFILL_SCHEDULE_COLUMNS if c in schedule and not _whole_numbers(schedule[c])]
    if missing or bad:
        findings.add(1, lambda _: f"the schedule lacks column(s) {missing} or has non-integer column(s) {bad}; "
                                  f"expected integer columns {', '.join(BACKFILL_SCHEDULE_COLUMNS)}", "")
        return None
    col = {c: np.asarray(schedule[c], dtype=np.int64) for c in BACKFILL_SCHEDULE_COLUMNS}
    index = record_of_job(col["job"], jobs.job)
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


def _whole_numbers(column: object) -> bool:
    """An integer column without missing values: a numpy array of integer dtype, or a pandas Series whose dtype
    pandas calls integer (nullable ``Int64`` included) holding no NA."""
    if isinstance(column, np.ndarray):
        return column.dtype.kind in "iu"
    import pandas as pd  # a Series: pandas is loaded already

    return bool(pd.api.types.is_integer_dtype(column.dtype) and not column.isna().any())


def _check_backfill_fields(col: dict[str, np.ndarray], row: np.ndarray, jobs: BackfillJobs,
                           findings: Findings) -> None:
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


def _check_backfill_capacity(rows: _JobRows, n_processors: int, findings: Findings) -> None:
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


def _check_fcfs_starts(rows: _JobRows, findings: Findings) -> None:
    """No backfilling, FCFS: start times never decrease in submission order (pyss README §3)."""
    bad = np.flatnonzero(rows.start[1:] < rows.start[:-1])
    findings.add(bad.size, lambda i: f"job {rows.job[bad[i] + 1]} (row {rows.row[bad[i] + 1]}) starts at "
                                     f"t={rows.start[bad[i] + 1]} before job {rows.job[bad[i]]} (row "
                                     f"{rows.row[bad[i]]}), earlier in queue order, which starts at "
                                     f"t={rows.start[bad[i]]}: without backfilling only the head may start",
                 "queue-order inversions")


def _tick_times(rows: _JobRows, calc_period: int, name: str = "calc_period") -> np.ndarray:
    """The ticks of a ticked order (the grid of slurm's backfill passes): every `calc_period` s from the first
    submission while events remain."""
    if isinstance(calc_period, bool) or not isinstance(calc_period, int | np.integer) or calc_period < 1:
        raise ConfigError(f"{name}={calc_period!r}: expected a whole number of seconds >= 1")
    if rows.submit.size == 0:
        return np.zeros(0, np.int64)
    first = int(rows.submit.min())
    return np.arange(first, int(rows.end.max()) + 1, int(calc_period), dtype=np.int64)


def _event_times(rows: _JobRows, ticks: np.ndarray | None,
                 passes: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct event times (submissions, ends, and the ticks and passes given) and the jobs (indices)
    whose start is not one of them.

    The tick and pass grids are long (a pass every 30 s over two years: 2 million times) and already sorted, so
    they are merged with the submit and end times by one sort of the concatenation and one pass dropping
    repeats, and the starts are looked up by binary search: O(E log E) on the E event times, where repeated
    ``np.union1d`` and ``np.isin`` hash the long arrays again at each step (seconds per schedule). Same result
    as `_event_times_naive` (tests/test_backfill_validate.py).
    """
    events = np.concatenate([rows.submit, rows.end, *(grid for grid in (ticks, passes) if grid is not None)])
    if not events.size:
        return events, np.zeros(0, np.int64)
    events.sort()
    events = events[np.concatenate(([True], events[1:] != events[:-1]))]
    at = np.minimum(np.searchsorted(events, rows.start), events.size - 1)
    return events, np.flatnonzero(events[at] != rows.start)


def _event_times_naive(rows: _JobRows, ticks: np.ndarray | None,
                       passes: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Slow twin of `_event_times` (the validator's code before it): repeated ``np.union1d`` and ``np.isin``."""
    events = np.union1d(rows.submit, rows.end)
    for grid in (ticks, passes):
        if grid is not None:
            events = np.union1d(events, grid)
    return events, np.flatnonzero(~np.isin(rows.start, events))


def _check_queue_rules(rows: _JobRows, jobs: BackfillJobs, order: str, backfill: str, findings: Findings,
                       ticks: np.ndarray | None = None, passes: np.ndarray | None = None) -> None:
    """Starts at event times; the head (no-guarantee: any waiting job) never fits after the last pass at an
    event time; without backfilling, no start ahead of a better-ranked job that waited before. Ticked orders
    (`ticks` given): ticks are event times, and the head is replaced by the widest waiting job. The slurm rule
    (`passes`, its backfill pass grid): pass times are event times too."""
    events, off = _event_times(rows, ticks, passes)
    where = "no job is submitted or ends"
    if ticks is not None:
        where += " and no tick falls"
    if passes is not None:
        where += " and no backfill pass runs"
    findings.add(off.size, lambda i: f"job {rows.job[off[i]]} (row {rows.row[off[i]]}) starts at t={rows.start[off[i]]}"
                                     f", where {where}: passes run only after those events",
                 "starts between events")
    by_start = argsort_stable(rows.start)
    by_end = argsort_stable(rows.end)
    limit = events.size if findings.limit is None else findings.limit
    # rank unknown at some event times: ticked orders (keys from ticks), and LXF under slurm (it re-ranks only
    # when a pass runs, and a pass on the grid is skipped when nothing changed)
    ticked = ticks is not None or (passes is not None and order == "lxf")
    n_fit, fit_t, fit_j, n_jump, jump_t, jump_j, jump_k = _queue_sweep_kernel(
        events, rows.submit, rows.start, rows.end, rows.procs, rows.req, by_start, by_end, jobs.n_processors,
        -1 if ticked else BACKFILL_ORDERS.index(order), backfill == "no-guarantee",
        backfill == "none" and order != "fcfs" and not ticked, limit)
    what = ("a waiting job" if backfill == "no-guarantee" else
            "the widest waiting job (so every one, the queue head among them)" if ticked else
            f"the queue head ({order})")
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
_T_MIN, _T_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


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
    Order -1 (a ticked order, rank unknown): "best" is the widest waiting job.
    """
    best = earlier = narrow = -1
    if order == 0:
        while cur[_HEAD] < submit.size and start[cur[_HEAD]] <= t:
            cur[_HEAD] += 1
        best = cur[_HEAD] if cur[_HEAD] < submit.size and submit[cur[_HEAD]] <= t else -1
    if full_scan or order != 0:
        for w in range(cur[_N_WAIT]):
            j = waiting[w]
            if order < 0:
                if best < 0 or procs[j] > procs[best]:
                    best = j
            elif best < 0 or _ranks_before(j, best, t, order, submit, req):
                best = j
            if need_earlier and submit[j] < t and (earlier < 0 or _ranks_before(j, earlier, t, order, submit, req)):
                earlier = j
            if narrow < 0 or procs[j] < procs[narrow]:
                narrow = j
    return best, earlier, narrow


@njit(cache=True)
def _next_change(cur, submit, start, end, by_start, by_end):  # pragma: no cover - jit
    """The first time after the sweep's state at which a job is submitted, starts or ends (_T_MAX: none)."""
    n = submit.size
    nxt = _T_MAX
    if cur[_I_SUB] < n:
        nxt = min(nxt, submit[cur[_I_SUB]])
    if cur[_I_START] < n:
        nxt = min(nxt, start[by_start[cur[_I_START]]])
    if cur[_I_END] < n:
        nxt = min(nxt, end[by_end[cur[_I_END]]])
    return nxt


@njit(cache=True)
def _queue_sweep_kernel(events, submit, start, end, procs, req, by_start, by_end, n_procs, order, any_fit,
                        no_backfill, max_out, reuse=True):  # pragma: no cover - jit
    """Sweep the event times; at each t after its last event: waiting = {submit <= t < start}, free = P - used.

    Reports (t, job) where the best-ranked waiting job (any_fit: the narrowest) fits, and, when no_backfill,
    (t, job j started at t, job k waiting since before t and ranked before j). Returns counts and the first
    `max_out` of each. O(events) for FCFS without any_fit (the head is a pointer), else O(changes × queue +
    events): between two submissions, starts or ends (the changes) the state is the same, and so is the finding
    at the ticks and passes in between (each reported at its own time), since the orders met with a grid rank
    alike at every t (LXF, whose rank moves with t, has none: under slurm it is checked as a ticked order; it is
    evaluated at every event time all the same). ``reuse=False`` evaluates every event time afresh (the slow
    twin, tests/test_backfill_validate.py).
    """
    n = submit.size
    waiting, slot, began = np.empty(n, np.int64), np.full(n, -1, np.int64), np.empty(n, np.int64)
    cur = np.zeros(6, np.int64)
    fit_t, fit_j = np.empty(max_out, np.int64), np.empty(max_out, np.int64)
    jump_t, jump_j, jump_k = np.empty(max_out, np.int64), np.empty(max_out, np.int64), np.empty(max_out, np.int64)
    n_fit = n_jump = 0
    probe, fits = -1, False
    same_until = _T_MIN  # the event times before it find the state of the last one evaluated
    for t in events:
        if t >= same_until:
            n_began = _advance_queue_sweep(t, cur, waiting, slot, began, submit, start, end, procs, by_start, by_end)
            best, earlier, narrow = _scan_waiting(t, cur, waiting, submit, start, procs, req, order, any_fit,
                                                  no_backfill)
            probe = narrow if any_fit else best
            fits = probe >= 0 and procs[probe] <= n_procs - cur[_USED]
            for b in range(n_began if no_backfill and earlier >= 0 else 0):
                if _ranks_before(earlier, began[b], t, order, submit, req):
                    if n_jump < max_out:
                        jump_t[n_jump], jump_j[n_jump], jump_k[n_jump] = t, began[b], earlier
                    n_jump += 1
            if reuse and order != 2:
                same_until = _next_change(cur, submit, start, end, by_start, by_end)
        if fits:
            if n_fit < max_out:
                fit_t[n_fit], fit_j[n_fit] = t, probe
            n_fit += 1
    k, m = min(n_fit, max_out), min(n_jump, max_out)
    return n_fit, fit_t[:k], fit_j[:k], n_jump, jump_t[:m], jump_j[:m], jump_k[:m]


def _check_easy_reservations(rows: _JobRows, jobs: BackfillJobs, findings: Findings) -> None:
    """EASY with FCFS: job j becomes the head at h_j = max(submit_j, max_{k<j} start_k); from the state after the
    last event at h_j its shadow time sigma_j is computed from requested times (pyss README §4); j must start
    by sigma_j."""
    head_since = np.maximum(rows.submit, np.concatenate(([np.iinfo(np.int64).min], np.maximum.accumulate(
        rows.start)[:-1])))
    by_start = argsort_stable(rows.start)
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


