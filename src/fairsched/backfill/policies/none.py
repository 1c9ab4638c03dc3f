"""No backfilling: strict queue order, only the head of the queue may start (pyss README §3 for FCFS)."""

from __future__ import annotations

from numba import njit

from fairsched.backfill._kernels import next_decision, queue_move, start_job
from fairsched.backfill.registry import register_backfill
from fairsched.backfill.view import BACKFILL_NONE, FREE, N_QUEUE, Q_JOB, BackfillRule

NONE = register_backfill(BackfillRule(
    name="none", code=BACKFILL_NONE, reservations=None,
    summary="no backfilling: only the head of the queue may start (strict queue order)"))


@njit(cache=True)
def start_heads(now, clock, queue, hold, req, procs, new, out_start, out_seq):
    """While the queue is not empty and its head fits in the free processors, start the head.

    The shared first step of every pass (pyss README §3 "FCFS", §4 step 1); EASY builds on it.
    Returns the number of jobs started. O(queue) when any job starts (the queue shifts), else O(1).
    """
    n = clock[N_QUEUE]
    k = 0
    while k < n and procs[queue[Q_JOB, k]] <= clock[FREE]:
        start_job(queue[Q_JOB, k], now, next_decision(clock), clock, hold, req, procs, new, out_start, out_seq)
        k += 1
    if k > 0:
        for i in range(k, n):
            queue_move(queue, i, i - k)
        clock[N_QUEUE] = n - k
    return k
