"""Compiled dispatch from (backfilling rule, queue order) codes to the policy kernels.

The event loop (`fairsched.backfill._loop`) calls these four handlers only. Dispatch is by integer code
because numba does not cache kernels that take other kernels as arguments (each process would recompile
them), and every policy kernel is small enough that the switch costs nothing measurable.
"""

from __future__ import annotations

from numba import njit

from fairsched.backfill._kernels import queue_insert
from fairsched.backfill.policies import conservative, easy, fcfs, lxf, no_guarantee, none, sjf
from fairsched.backfill.view import (
    BACKFILL_CONSERVATIVE,
    BACKFILL_NO_GUARANTEE,
    BACKFILL_NONE,
    NOW,
    ORDER_LXF,
    ORDER_SJF,
)


@njit(cache=True)
def _insert_position(order, queue, clock, job, req):
    if order == ORDER_SJF:
        return sjf.insert_position(queue, clock, job, req)
    return fcfs.insert_position(queue, clock, job)  # FCFS, and LXF (which re-ranks before every pass)


@njit(cache=True)
def _rank(order, queue, clock, now, submit, req):
    if order == ORDER_LXF:
        lxf.sort_queue(queue, clock, now, submit, req)


@njit(cache=True)
def _run_pass(rule, order, now, submit, req, procs, clock, hold, queue, new, out_start, out_seq):
    _rank(order, queue, clock, now, submit, req)
    if rule == BACKFILL_NONE:
        none.start_heads(now, clock, queue, hold, req, procs, new, out_start, out_seq)
    elif rule == BACKFILL_NO_GUARANTEE:
        no_guarantee.start_fitting(now, clock, queue, hold, req, procs, new, out_start, out_seq)
    else:
        easy.easy_pass(now, clock, queue, hold, req, procs, new, out_start, out_seq)


@njit(cache=True)
def on_submission(rule, order, job, submit, req, procs, clock, hold, queue, prof, new, out_start, out_seq):
    """`job` joins the queue at `now`; then one pass (conservative: its reservation) (README §1)."""
    now = clock[NOW]
    pos = _insert_position(order, queue, clock, job, req)
    if rule == BACKFILL_CONSERVATIVE:
        conservative.on_submission(job, pos, now, clock, queue, hold, prof, req, procs, new, out_start, out_seq)
    else:
        queue_insert(queue, clock, pos, job, -1, -1)
        _run_pass(rule, order, now, submit, req, procs, clock, hold, queue, new, out_start, out_seq)


@njit(cache=True)
def on_termination(rule, order, job, start, submit, req, procs, clock, hold, queue, prof, new, out_start, out_seq):
    """`job` (started at `start`) has ended and released its processors; one pass (conservative: compression)."""
    now = clock[NOW]
    if rule == BACKFILL_CONSERVATIVE:
        _rank(order, queue, clock, now, submit, req)
        conservative.on_termination(job, start, now, clock, queue, hold, prof, req, procs, new, out_start, out_seq)
    else:
        _run_pass(rule, order, now, submit, req, procs, clock, hold, queue, new, out_start, out_seq)


@njit(cache=True)
def on_advance(rule, clock, queue, hold, req, procs, new, out_start, out_seq):
    """Time has moved to `now`: conservative reservations that fall due start (no pass follows)."""
    if rule == BACKFILL_CONSERVATIVE:
        conservative.start_due(clock[NOW], clock, queue, hold, req, procs, new, out_start, out_seq)


@njit(cache=True)
def next_policy_time(rule, queue, clock):
    """The next time a policy acts without an event (a conservative reservation), -1 when none."""
    if rule == BACKFILL_CONSERVATIVE:
        return conservative.next_due(queue, clock)
    return -1
