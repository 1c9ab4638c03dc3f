"""EASY backfilling: the head of the queue gets a reservation (its shadow time); another job may start now
only if it does not delay that reservation (Lifka 1995; JSSPP'05 §4 "aggressive"; pyss README §4)."""

from __future__ import annotations

from numba import njit

from fairsched.backfill._kernels import next_decision, queue_move, start_job
from fairsched.backfill.policies.none import start_heads
from fairsched.backfill.registry import register_backfill
from fairsched.backfill.view import BACKFILL_EASY, FREE, H_END, H_PROCS, N_HOLD, N_QUEUE, Q_JOB, BackfillRule

EASY = register_backfill(BackfillRule(
    name="easy", code=BACKFILL_EASY, reservations=1,
    summary="EASY: the queue head gets a reservation; others may start now if they do not delay it"))


@njit(cache=True)
def shadow(hold, clock, need):
    """The head's reservation (pyss README §4): shadow time sigma and extra processors x.

    sigma = the smallest planned end e with free(now) + sum(p_j over holding j with e_j <= e) >= need; jobs
    with equal planned ends are released together. x = free(now) + sum(p_j, e_j <= sigma) - need.
    `hold` is sorted by planned end, so this is one scan. Requires need <= P.
    """
    avail = clock[FREE]
    n = clock[N_HOLD]
    k = 0
    while k < n:
        end = hold[H_END, k]
        while k < n and hold[H_END, k] == end:
            avail += hold[H_PROCS, k]
            k += 1
        if avail >= need:
            return end, avail - need
    return -1, -1  # unreachable for need <= P: every holding job releases by its planned end


@njit(cache=True)
def easy_pass(now, clock, queue, hold, req, procs, new, out_start, out_seq):
    """One EASY pass: the FCFS step, then one scan of the other waiting jobs in queue order.

    Job j starts now iff p_j <= free(now) and (now + q_j <= sigma or p_j <= x); a job that runs past sigma
    uses extra processors (x -= p_j). sigma is not recomputed within the pass, the head is not retried, and
    nothing is stored between passes (the next pass recomputes the reservation). O(holding + queue).
    """
    start_heads(now, clock, queue, hold, req, procs, new, out_start, out_seq)
    n = clock[N_QUEUE]
    if n < 2:
        return
    sigma, extra = shadow(hold, clock, procs[queue[Q_JOB, 0]])
    kept = 1
    for k in range(1, n):
        job = queue[Q_JOB, k]
        p = procs[job]
        by_shadow = now + req[job] <= sigma
        if p <= clock[FREE] and (by_shadow or p <= extra):
            start_job(job, now, next_decision(clock), clock, hold, req, procs, new, out_start, out_seq)
            if not by_shadow:
                extra -= p
        else:
            queue_move(queue, k, kept)
            kept += 1
    clock[N_QUEUE] = kept
