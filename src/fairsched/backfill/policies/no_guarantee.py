"""No-guarantee backfilling: any waiting job that fits now starts, in queue order; nothing is reserved
(JSSPP'05 §4, "no guarantees", reservation depth 0)."""

from __future__ import annotations

from numba import njit

from fairsched.backfill._kernels import next_decision, queue_move, start_job
from fairsched.backfill.registry import register_backfill
from fairsched.backfill.view import BACKFILL_NO_GUARANTEE, FREE, N_QUEUE, Q_JOB, BackfillRule

NO_GUARANTEE = register_backfill(BackfillRule(
    name="no-guarantee", code=BACKFILL_NO_GUARANTEE, reservations=0,
    summary="any waiting job that fits now may start, in queue order; no reservations"))


@njit(cache=True)
def start_fitting(now, clock, queue, hold, req, procs, new, out_start, out_seq):
    """Scan the queue once in order and start every job that fits in the free processors.

    One scan suffices: free processors only decrease during a pass, so a job skipped early cannot fit later.
    Starts keep queue order (the heads first), as in the FCFS step of the other rules. O(queue).
    """
    n = clock[N_QUEUE]
    kept = 0
    for k in range(n):
        job = queue[Q_JOB, k]
        if procs[job] <= clock[FREE]:
            start_job(job, now, next_decision(clock), clock, hold, req, procs, new, out_start, out_seq)
        else:
            queue_move(queue, k, kept)
            kept += 1
    clock[N_QUEUE] = kept
