"""The compiled event loop of the backfilling engine (pyss README §1: events, their order, one pass per event).

At each timestamp t, in this order:

1. time advances to t: jobs whose planned end is <= t stop holding processors (README §2); a ticked order's
   tick due at t recomputes its keys (`fairsched.backfill.view`; running jobs are those whose termination is
   not processed, so a job ending at t still counts); conservative reservations due at t start (§5); if the
   tick changed the queue order, one pass (none, no-guarantee, EASY);
2. submissions at t, in job order, each followed by one pass (`policies._dispatch.on_submission`);
3. terminations at t, by (start time, decision number), each releasing the job and followed by one pass.

`run_events` stops when nothing is left (DONE), just before the submission of job ``pause_before`` (PAUSED:
the state is the system "at that job's arrival", JSSPP'05 §3.1), or as soon as job ``stop_job`` has started
or the queue has emptied when asked (STOPPED: the fair-start-time what-ifs stop there). Calling it again
resumes exactly where it stopped: a pause never changes the schedule.

The loop alone reads actual run times (to schedule terminations); policies never see them.
"""

from __future__ import annotations

from collections import namedtuple

from numba import njit

from fairsched.backfill._kernels import heap_pop, heap_push, hold_release_due, hold_remove_job
from fairsched.backfill.policies._dispatch import (
    next_policy_time,
    on_advance,
    on_end,
    on_submission,
    on_termination,
    on_tick,
    tick_pass,
)
from fairsched.backfill.view import K_END, N_HEAP, N_NEW, N_QUEUE, NEXT_SUB, NOW, PERIOD, TICK

DONE, PAUSED, STOPPED = 0, 1, 2

# What `run_events` reads and changes, built once per simulator (`BackfillSimulator`, which passes them as plain
# tuples in this field order) and unpacked once per call: the jobs' columns (read-only; `run` is the actual run
# time, which only the loop reads) and the mutable state arrays of `fairsched.backfill.view`. Inside the loop every
# helper still takes plain arrays (a tuple field read costs reference-count operations per access; see
# `fairsched.online._coalitions`).
LoopJobs = namedtuple("LoopJobs", "submit run req procs")
LoopState = namedtuple("LoopState", "clock hold heap queue prof cert new out_start out_seq")
# A ticked order's arrays (`fairsched.backfill.view.TickSetup` plus the keys); size-1 dummies for other orders.
LoopTick = namedtuple("LoopTick", "org jpar opar ost key")


@njit(cache=True)
def next_event_time(rule, submit, submit_limit, clock, heap, queue):
    """Time of the next submission (below `submit_limit`), termination, due reservation or tick; -1 when none.

    Ticks are events only while another event is pending: a run ends with its last termination."""
    t = -1
    if clock[NEXT_SUB] < submit_limit:
        t = submit[clock[NEXT_SUB]]
    if clock[N_HEAP] > 0 and (t < 0 or heap[K_END, 0] < t):
        t = heap[K_END, 0]
    due = next_policy_time(rule, queue, clock)
    if due >= 0 and (t < 0 or due < t):
        t = due
    if t >= 0 and 0 <= clock[TICK] < t:
        t = clock[TICK]
    return t


@njit(cache=True)
def flush_starts(clock, heap, run, new, out_seq):
    """Schedule the terminations of the jobs the last handler started (end = start + actual run time)."""
    now = clock[NOW]
    for k in range(clock[N_NEW]):
        job = new[k]
        heap_push(heap, clock, now + run[job], now, out_seq[job], job)
    clock[N_NEW] = 0


@njit(cache=True)
def _stopped(clock, out_start, stop_job, stop_when_queue_empty):
    return (stop_job >= 0 and out_start[stop_job] >= 0) or (stop_when_queue_empty and clock[N_QUEUE] == 0)


@njit(cache=True)
def run_events(rule, order, jobs, state, tk, submit_limit, pause_before, stop_job, stop_when_queue_empty):
    """Process events in README order until DONE, PAUSED or STOPPED (module docstring); return that code.

    Parameters: `rule`, `order` policy codes; `jobs`, `state`, `tk` tuples in `LoopJobs`, `LoopState`,
    `LoopTick` order;
    `submit_limit` jobs >= this index are never submitted; `pause_before` job index or -1; `stop_job` job index
    or -1; `stop_when_queue_empty` bool.
    Complexity per event: O(log running) for the heap plus the policy's pass.
    """
    submit, run, req, procs = jobs
    clock, hold, heap, queue, prof, cert, new, out_start, out_seq = state
    while True:
        t = next_event_time(rule, submit, submit_limit, clock, heap, queue)
        if t < 0:
            return DONE
        advanced = t > clock[NOW]
        ticked = 0 <= clock[TICK] <= t
        if advanced:
            clock[NOW] = t
            hold_release_due(hold, clock, t)
        reordered = False
        if ticked:
            reordered = on_tick(order, clock, heap, out_start, queue, submit, procs, tk)
            clock[TICK] = t + clock[PERIOD]
        if advanced:
            on_advance(rule, order, submit, clock, queue, hold, prof, req, procs, new, out_start, out_seq)
        if reordered:
            tick_pass(rule, order, submit, req, procs, clock, hold, queue, new, out_start, out_seq)
        if advanced or ticked:
            flush_starts(clock, heap, run, new, out_seq)
            if _stopped(clock, out_start, stop_job, stop_when_queue_empty):
                return STOPPED
        while clock[NEXT_SUB] < submit_limit and submit[clock[NEXT_SUB]] <= t:
            job = clock[NEXT_SUB]
            if job == pause_before:
                return PAUSED
            clock[NEXT_SUB] = job + 1
            on_submission(rule, order, job, submit, req, procs, clock, hold, queue, prof, cert, new, out_start,
                          out_seq, tk)
            flush_starts(clock, heap, run, new, out_seq)
            if _stopped(clock, out_start, stop_job, stop_when_queue_empty):
                return STOPPED
        while clock[N_HEAP] > 0 and heap[K_END, 0] <= t:
            job, start = heap_pop(heap, clock)
            on_end(order, job, start, t, procs, tk)
            _release(job, start, rule, order, submit, req, procs, clock, hold, queue, prof, cert, new, out_start,
                     out_seq)
            flush_starts(clock, heap, run, new, out_seq)
            if _stopped(clock, out_start, stop_job, stop_when_queue_empty):
                return STOPPED


@njit(cache=True)
def _release(job, start, rule, order, submit, req, procs, clock, hold, queue, prof, cert, new, out_start,
             out_seq):
    hold_remove_job(hold, clock, job)
    on_termination(rule, order, job, start, submit, req, procs, clock, hold, queue, prof, cert, new, out_start,
                   out_seq)


@njit(cache=True)
def inject_submission(rule, order, job, jobs, state, tk):
    """Submit `job` at the current time, outside the normal sequence (the relaxed fair-start-time what-if adds
    the job once every earlier job has started, JSSPP'05 §3.1.2); one pass follows as for any submission."""
    submit, run, req, procs = jobs
    clock, hold, heap, queue, prof, cert, new, out_start, out_seq = state
    on_submission(rule, order, job, submit, req, procs, clock, hold, queue, prof, cert, new, out_start, out_seq, tk)
    flush_starts(clock, heap, run, new, out_seq)
