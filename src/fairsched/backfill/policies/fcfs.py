"""FCFS: first come, first served — waiting jobs ranked by submission (JSSPP'05 §4; pyss README §3)."""

from __future__ import annotations

from numba import njit

from fairsched.backfill.registry import register_order
from fairsched.backfill.view import N_QUEUE, ORDER_FCFS, Q_JOB, QueueOrder

FCFS = register_order(QueueOrder(
    name="fcfs", code=ORDER_FCFS, summary="first come, first served: by submit time (job order)"))


@njit(cache=True)
def insert_position(queue, clock, job):
    """Position of `job` in a queue kept in job-index (= submission) order.

    New jobs arrive last, so the scan from the back stops at once; a job injected later (the relaxed
    fair-start-time what-if of JSSPP'05 §3.1.2) still lands in its place. O(1) usually, O(queue) at worst.
    """
    pos = clock[N_QUEUE]
    while pos > 0 and queue[Q_JOB, pos - 1] > job:
        pos -= 1
    return pos
