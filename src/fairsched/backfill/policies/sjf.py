"""SJF: shortest job first — waiting jobs ranked by requested time, the only length a scheduler knows
(JSSPP'05 §4)."""

from __future__ import annotations

from numba import njit

from fairsched.backfill.registry import register_order
from fairsched.backfill.view import N_QUEUE, ORDER_SJF, Q_JOB, QueueOrder

SJF = register_order(QueueOrder(
    name="sjf", code=ORDER_SJF, summary="shortest job first: by requested time, ties by submit order"))


@njit(cache=True)
def insert_position(queue, clock, job, req):
    """Position of `job` in a queue kept sorted by (requested time, job index): binary search, O(log queue).

    The rank never changes while a job waits, so the queue stays sorted between passes.
    """
    lo = 0
    hi = clock[N_QUEUE]
    key = req[job]
    while lo < hi:
        mid = (lo + hi) // 2
        other = queue[Q_JOB, mid]
        if req[other] < key or (req[other] == key and other < job):
            lo = mid + 1
        else:
            hi = mid
    return lo
