"""LXF: largest expansion factor first — (wait + requested) / requested, re-evaluated at every pass
(JSSPP'05 §4, after Chiang, Arpaci-Dusseau and Vernon, JSSPP'02)."""

from __future__ import annotations

from numba import njit

from fairsched.backfill.registry import register_order
from fairsched.backfill.view import N_QUEUE, ORDER_LXF, Q_JOB, QueueOrder

LXF = register_order(QueueOrder(
    name="lxf", code=ORDER_LXF,
    summary="largest expansion factor (wait + requested) / requested first, re-evaluated at every pass"))


@njit(cache=True)
def ranks_before(a, b, now, submit, req):
    """True when job `a` ranks before job `b` at `now`: larger expansion factor, ties by job index.

    (w_a + q_a) / q_a > (w_b + q_b) / q_b  <=>  w_a * q_b > w_b * q_a, with w = now - submit: compared exactly
    in integers (products stay below 2**63 for waits and requested times below ~3e9 s).
    """
    lhs = (now - submit[a]) * req[b]
    rhs = (now - submit[b]) * req[a]
    if lhs != rhs:
        return lhs > rhs
    return a < b


@njit(cache=True)
def sort_queue(queue, clock, now, submit, req):
    """Re-rank the queue at `now` (insertion sort, moving all rows of a column together).

    The order of the previous pass is kept in between and new jobs (factor 1) are appended, so the queue is
    nearly sorted and this costs about O(queue + inversions).
    """
    n = clock[N_QUEUE]
    for i in range(1, n):
        job = queue[0, i]
        res = queue[1, i]
        seq = queue[2, i]
        k = i
        while k > 0 and ranks_before(job, queue[Q_JOB, k - 1], now, submit, req):
            for row in range(3):
                queue[row, k] = queue[row, k - 1]
            k -= 1
        queue[0, k] = job
        queue[1, k] = res
        queue[2, k] = seq
