"""Compiled primitives of the backfilling engine, shared by the event loop and the policies.

Plain int64 arrays and scalars only (layout: `fairsched.backfill.view`). Three structures:

- the *holding list* ``hold``, sorted by planned end: free processors now, EASY's shadow time;
- the *termination heap* ``heap``, rows (end, start, decision number, job) of the shared heap
  (`fairsched._kernels.heap`): the README's order of terminations at one timestamp (§1);
- the conservative *profile* ``prof`` of free processors over future time, one row of the shared
  `fairsched._kernels.profile` (adjacent segments with equal free counts are merged, so it stays small).

Arrays are shifted element by element in explicit loops: numba's slice assignment is not guaranteed to handle
overlapping source and destination.
"""

from __future__ import annotations

from numba import njit

from fairsched._kernels import profile
from fairsched._kernels.heap import heap_pop as pop
from fairsched._kernels.heap import heap_push as push
from fairsched.backfill.view import (
    FREE,
    H_END,
    H_JOB,
    H_PROCS,
    K_JOB,
    K_START,
    N_HEAP,
    N_HOLD,
    N_NEW,
    N_PROF,
    N_QUEUE,
    P_FREE,
    P_TIME,
    SEQ,
)

# -- decisions -------------------------------------------------------------------------------------------


@njit(cache=True)
def next_decision(clock):
    """A new decision number (orders terminations that share end and start times, README §1)."""
    seq = clock[SEQ]
    clock[SEQ] = seq + 1
    return seq


@njit(cache=True)
def start_job(job, now, seq, clock, hold, req, procs, new, out_start, out_seq):
    """Start `job` now: it holds its processors until its planned end ``now + req[job]``.

    The caller removes the job from the queue. The engine reads ``new[:N_NEW]`` after the handler and
    schedules the terminations (it alone knows run times).
    """
    hold_insert(hold, clock, now + req[job], procs[job], job)
    clock[FREE] -= procs[job]
    out_start[job] = now
    out_seq[job] = seq
    new[clock[N_NEW]] = job
    clock[N_NEW] += 1


@njit(cache=True)
def queue_insert(queue, clock, pos, job, res, seq):
    """Insert a waiting job at position `pos` of the queue (O(queue length))."""
    n = clock[N_QUEUE]
    for k in range(n, pos, -1):
        for row in range(3):
            queue[row, k] = queue[row, k - 1]
    queue[0, pos] = job
    queue[1, pos] = res
    queue[2, pos] = seq
    clock[N_QUEUE] = n + 1


@njit(cache=True)
def queue_move(queue, src, dst):
    for row in range(3):
        queue[row, dst] = queue[row, src]


# -- holding list ----------------------------------------------------------------------------------------


@njit(cache=True)
def hold_insert(hold, clock, end, p, job):
    """Insert a holding job, keeping the list sorted by planned end (O(holding jobs))."""
    k = clock[N_HOLD]
    while k > 0 and hold[H_END, k - 1] > end:
        for row in range(3):
            hold[row, k] = hold[row, k - 1]
        k -= 1
    hold[H_END, k] = end
    hold[H_PROCS, k] = p
    hold[H_JOB, k] = job
    clock[N_HOLD] += 1


@njit(cache=True)
def hold_release_due(hold, clock, now):
    """Release every job whose planned end is <= now (README §2: it holds until the earlier of its planned
    end and the processing of its termination)."""
    n = clock[N_HOLD]
    k = 0
    while k < n and hold[H_END, k] <= now:
        clock[FREE] += hold[H_PROCS, k]
        k += 1
    if k == 0:
        return
    for i in range(k, n):
        for row in range(3):
            hold[row, i - k] = hold[row, i]
    clock[N_HOLD] = n - k


@njit(cache=True)
def hold_remove_job(hold, clock, job):
    """Release `job` if it still holds (its termination is processed before its planned end)."""
    n = clock[N_HOLD]
    for k in range(n):
        if hold[H_JOB, k] == job:
            clock[FREE] += hold[H_PROCS, k]
            for i in range(k + 1, n):
                for row in range(3):
                    hold[row, i - 1] = hold[row, i]
            clock[N_HOLD] = n - 1
            return


# -- termination heap ------------------------------------------------------------------------------------
# The shared heap of `fairsched._kernels.heap` over rows (K_END, K_START, K_SEQ, K_JOB): the decision number is
# unique, so the job column never decides and the order is the README's (end, start, decision number).


@njit(cache=True)
def heap_push(heap, clock, end, start, seq, job):
    """Schedule the termination of `job` (row (end, start, seq, job) of the termination heap). O(log running)."""
    clock[N_HEAP] = push(heap, 0, clock[N_HEAP], (end, start, seq, job))


@njit(cache=True)
def heap_pop(heap, clock):
    """Remove the (end, start, seq) minimum; return its row's (job, start)."""
    job = heap[0, K_JOB]
    start = heap[0, K_START]
    clock[N_HEAP] = pop(heap, 0, clock[N_HEAP])
    return job, start


# -- conservative profile --------------------------------------------------------------------------------
# One row of the shared `fairsched._kernels.profile`: ``prof[P_TIME]``, ``prof[P_FREE]``, size ``clock[N_PROF]``;
# merged and archived.


@njit(cache=True)
def prof_find(prof, m, t):
    """Index k of the segment holding t: P_TIME[k] <= t < P_TIME[k + 1] (binary search; t >= P_TIME[0])."""
    return profile.find(prof[P_TIME], m, t)


@njit(cache=True)
def prof_add(prof, clock, begin, end, delta):
    """Add `delta` free processors over [begin, end) (negative: occupy); begin >= P_TIME[0]. Adjacent segments
    with equal free counts are merged."""
    clock[N_PROF] = profile.add(prof[P_TIME], prof[P_FREE], clock[N_PROF], begin, end, delta, True)


@njit(cache=True)
def prof_archive(prof, clock, now):
    """Forget the segments that ended before `now` (the past never matters again)."""
    clock[N_PROF] = profile.archive(prof[P_TIME], prof[P_FREE], clock[N_PROF], now)


@njit(cache=True)
def prof_earliest(prof, clock, now, p, q):
    """Earliest t >= now with at least `p` free processors during all of [t, t + q) (README §5). O(segments).

    The last segment has every processor free, so there always is one.
    """
    return profile.earliest_fit(prof[P_TIME], prof[P_FREE], clock[N_PROF], now, p, q)


@njit(cache=True)
def prof_free_at(prof, clock, t):
    """Free processors at instant t according to the profile (tests and invariants)."""
    return prof[P_FREE, prof_find(prof, clock[N_PROF], t)]
