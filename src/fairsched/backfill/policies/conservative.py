"""Conservative backfilling: every waiting job holds a reservation; a job may start early only if it delays
no reservation; reservations are compressed when jobs end (Mu'alem & Feitelson 2001; JSSPP'05 §4;
pyss README §5).

Reservations live in the free-processor profile (`fairsched.backfill._kernels`, ``prof_*``), which holds every
holding job on [now, planned end) and every reservation on [R_j, R_j + q_j). A compression re-plans only the
reservations that the change can move (`fairsched.backfill.policies._compress`); `FULL_REPLAN`, never
registered by name, re-plans every one at every compression instead (`compress`, pyss's way): the slow twin
the tests compare with, giving the same schedules.

Deviation for SJF and LXF (pyss only has FCFS): a new job is still placed at its earliest fit without moving
anyone (arrival never reorders reservations); the queue order decides the order of compression, i.e. who
gets first pick of the room a job leaves when it ends before its requested time.
"""

from __future__ import annotations

from numba import njit

from fairsched.backfill._kernels import (
    next_decision,
    prof_add,
    prof_archive,
    prof_earliest,
    queue_insert,
    queue_move,
    start_job,
)
from fairsched.backfill.policies._compress import certify, compress_incremental
from fairsched.backfill.registry import register_backfill
from fairsched.backfill.view import (
    BACKFILL_CONSERVATIVE,
    BACKFILL_CONSERVATIVE_FULL,
    N_QUEUE,
    Q_JOB,
    Q_RES,
    Q_SEQ,
    BackfillRule,
)

_SUMMARY = "conservative: every waiting job has a reservation; starting early may delay none of them"
CONSERVATIVE = register_backfill(BackfillRule(name="conservative", code=BACKFILL_CONSERVATIVE, reservations=-1,
                                              summary=_SUMMARY))
FULL_REPLAN = BackfillRule(name="conservative", code=BACKFILL_CONSERVATIVE_FULL, reservations=-1, summary=_SUMMARY)
"""Conservative backfilling that re-plans every reservation at every compression (the slow twin; pass it as
``backfill=`` to `fairsched.backfill.simulate`, `BackfillSimulator` or `fair_start_times`)."""


@njit(cache=True)
def on_submission(job, pos, now, clock, queue, hold, prof, cert, req, procs, new, out_start, out_seq):
    """Reserve the earliest fit for `job` given every existing reservation; start now if that is now.

    No compression on submission (README §5). `pos` is the job's place in the queue order.
    """
    prof_archive(prof, clock, now)
    res = prof_earliest(prof, clock, now, procs[job], req[job])
    prof_add(prof, clock, res, res + req[job], -procs[job])
    seq = next_decision(clock)
    if res == now:
        start_job(job, now, seq, clock, hold, req, procs, new, out_start, out_seq)
    else:
        queue_insert(queue, clock, pos, job, res, seq)
        certify(now, res, procs[job], req[job], job, clock, prof, cert)  # why it cannot start earlier


@njit(cache=True)
def on_termination(job, start, now, full, clock, queue, hold, prof, cert, req, procs, new, out_start, out_seq):
    """Release the unused part [now, start + q) of the ended job, then compress the reservations (`full`: every
    one, with `compress`; else only those the change can move, `_compress.compress_incremental`)."""
    prof_archive(prof, clock, now)
    prof_add(prof, clock, now, start + req[job], procs[job])
    if full:
        compress(now, clock, queue, hold, prof, req, procs, new, out_start, out_seq)
    else:
        compress_incremental(now, start + req[job] > now, clock, queue, hold, prof, cert, req, procs, new, out_start,
                             out_seq)


@njit(cache=True)
def compress(now, clock, queue, hold, prof, req, procs, new, out_start, out_seq):
    """In queue order, move each reservation to the earliest fit against everything else (README §5).

    Never later: the old slot is still free once the job's own reservation is lifted, because every other
    reservation was placed compatibly with it. A reservation that moves gets a new decision number; one
    moved to `now` starts now. O(queue x profile).
    """
    n = clock[N_QUEUE]
    kept = 0
    for k in range(n):
        job = queue[Q_JOB, k]
        old = queue[Q_RES, k]
        p = procs[job]
        q = req[job]
        prof_add(prof, clock, old, old + q, p)
        res = prof_earliest(prof, clock, now, p, q)
        prof_add(prof, clock, res, res + q, -p)
        if res != old:
            queue[Q_RES, k] = res
            queue[Q_SEQ, k] = next_decision(clock)
        if res == now:
            start_job(job, now, queue[Q_SEQ, k], clock, hold, req, procs, new, out_start, out_seq)
        else:
            queue_move(queue, k, kept)
            kept += 1
    clock[N_QUEUE] = kept


@njit(cache=True)
def start_due(now, clock, queue, hold, req, procs, new, out_start, out_seq):
    """Start every waiting job whose reservation has come (R_j <= now): once now reaches R_j it is fixed."""
    n = clock[N_QUEUE]
    kept = 0
    for k in range(n):
        if queue[Q_RES, k] <= now:
            start_job(queue[Q_JOB, k], now, queue[Q_SEQ, k], clock, hold, req, procs, new, out_start, out_seq)
        else:
            queue_move(queue, k, kept)
            kept += 1
    clock[N_QUEUE] = kept


@njit(cache=True)
def next_due(queue, clock):
    """Earliest reservation among the waiting jobs (-1: none): a start that no event may precede."""
    best = -1
    for k in range(clock[N_QUEUE]):
        if best < 0 or queue[Q_RES, k] < best:
            best = queue[Q_RES, k]
    return best
