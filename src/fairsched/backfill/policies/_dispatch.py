"""Compiled dispatch from (backfilling rule, queue order) codes to the policy kernels.

The event loop (`fairsched.backfill._loop`) calls these handlers only (plus the three hooks of ticked orders:
`on_tick`, `tick_pass`, `on_end`). ``tk`` is the tuple ``(org, jpar, opar, ost, key)`` of a ticked order
(`fairsched.backfill.view.TickSetup`; size-1 dummies for the other orders). Dispatch is by integer code
because numba does not cache kernels that take other kernels as arguments (each process would recompile
them), and every policy kernel is small enough that the switch costs nothing measurable.
"""

from __future__ import annotations

from numba import njit

from fairsched.backfill._kernels import queue_insert
from fairsched.backfill.policies import (
    _slurm_kernels,
    _ticked,
    conservative,
    directcontr,
    drf,
    easy,
    fcfs,
    lxf,
    no_guarantee,
    none,
    sjf,
    slurm_rule,
)
from fairsched.backfill.view import (
    BACKFILL_CONSERVATIVE,
    BACKFILL_CONSERVATIVE_FULL,
    BACKFILL_NO_GUARANTEE,
    BACKFILL_NONE,
    BACKFILL_SLURM,
    BF_DIRTY,
    FIRST_TICKED_ORDER,
    NOW,
    ORDER_DIRECTCONTR,
    ORDER_DRF,
    ORDER_LXF,
    ORDER_SJF,
    ORDER_SLURM_CLASSIC,
    ORDER_SLURM_FAIR_TREE,
)


@njit(cache=True)
def is_conservative(rule):
    """Conservative backfilling or its slow twin (every waiting job holds a reservation)."""
    return rule in (BACKFILL_CONSERVATIVE, BACKFILL_CONSERVATIVE_FULL)


@njit(cache=True)
def _insert_position(order, queue, clock, job, submit, req, procs, tk):
    if order == ORDER_SJF:
        return sjf.insert_position(queue, clock, job, req)
    if order >= FIRST_TICKED_ORDER:
        org, jpar, opar, ost, key = tk
        key[job] = _job_key(order, job, clock[NOW], submit, procs, org, jpar, opar, ost)
        return _ticked.insert_position(queue, clock, job, key)
    return fcfs.insert_position(queue, clock, job)  # FCFS, and LXF (which re-ranks before every pass)


@njit(cache=True)
def _job_key(order, job, now, submit, procs, org, jpar, opar, ost):
    """A ticked order's key for a job submitted `now`, from the order's state at the last tick."""
    if order in (ORDER_SLURM_FAIR_TREE, ORDER_SLURM_CLASSIC):
        return _slurm_kernels.job_key(job, now, submit, org, jpar, opar, ost)
    if order == ORDER_DRF:
        return drf.job_key(job, submit, procs, org, jpar, opar, ost)
    return directcontr.job_key(job, submit, procs, org, jpar, opar, ost)


@njit(cache=True)
def on_tick(order, clock, heap, out_start, queue, submit, procs, tk):
    """A tick of a ticked order at ``now``: recompute its keys and, when one changed, re-sort the queue.

    Returns True when the queue order changed (then the loop runs `tick_pass`).
    """
    org, jpar, opar, ost, key = tk
    now = clock[NOW]
    if order == ORDER_DRF:
        return drf.on_tick(now, clock, heap, out_start, queue, submit, procs, org, jpar, opar, ost, key)
    if order == ORDER_DIRECTCONTR:
        return directcontr.on_tick(now, clock, heap, out_start, queue, submit, procs, org, jpar, opar, ost, key)
    if order in (ORDER_SLURM_FAIR_TREE, ORDER_SLURM_CLASSIC):
        return _slurm_kernels.on_tick(now, clock, heap, out_start, queue, submit, procs, org, jpar, opar, ost, key)
    return False


@njit(cache=True)
def on_end(order, job, start, now, procs, tk):
    """A ticked order learns that `job` (started at `start`) ended at `now` (its termination is processed)."""
    if order == ORDER_DIRECTCONTR:
        org, jpar, opar, ost, _ = tk
        directcontr.on_end(job, start, now, procs, org, jpar, opar, ost)
    elif order in (ORDER_SLURM_FAIR_TREE, ORDER_SLURM_CLASSIC):
        org, jpar, opar, ost, _ = tk
        _slurm_kernels.on_end(job, start, now, procs, org, jpar, opar, ost)


@njit(cache=True)
def tick_pass(rule, order, submit, req, procs, clock, hold, queue, new, out_start, out_seq):
    """After a tick reordered the queue: one pass (none, no-guarantee, EASY; slurm: its main scheduler, and the
    next backfill pass will run), as Slurm's scheduler runs with the new priorities. Conservative: nothing (the
    new order decides the next compression)."""
    if not is_conservative(rule):
        if rule == BACKFILL_SLURM:
            clock[BF_DIRTY] = 1
        _run_pass(rule, order, clock[NOW], submit, req, procs, clock, hold, queue, new, out_start, out_seq)


@njit(cache=True)
def _rank(order, queue, clock, now, submit, req):
    if order == ORDER_LXF:
        lxf.sort_queue(queue, clock, now, submit, req)


@njit(cache=True)
def _run_pass(rule, order, now, submit, req, procs, clock, hold, queue, new, out_start, out_seq):
    _rank(order, queue, clock, now, submit, req)
    if rule in (BACKFILL_NONE, BACKFILL_SLURM):  # slurm: its main scheduler
        none.start_heads(now, clock, queue, hold, req, procs, new, out_start, out_seq)
    elif rule == BACKFILL_NO_GUARANTEE:
        no_guarantee.start_fitting(now, clock, queue, hold, req, procs, new, out_start, out_seq)
    else:
        easy.easy_pass(now, clock, queue, hold, req, procs, new, out_start, out_seq)


@njit(cache=True)
def on_submission(rule, order, job, submit, req, procs, clock, hold, queue, prof, cert, new, out_start, out_seq, tk):
    """`job` joins the queue at `now`; then one pass (conservative: its reservation) (README §1)."""
    now = clock[NOW]
    pos = _insert_position(order, queue, clock, job, submit, req, procs, tk)
    if rule == BACKFILL_SLURM:
        clock[BF_DIRTY] = 1
    if is_conservative(rule):
        conservative.on_submission(job, pos, now, clock, queue, hold, prof, cert, req, procs, new, out_start,
                                   out_seq)
    else:
        queue_insert(queue, clock, pos, job, -1, -1)
        _run_pass(rule, order, now, submit, req, procs, clock, hold, queue, new, out_start, out_seq)


@njit(cache=True)
def arrival_without_job(rule, order, submit, req, procs, clock, hold, queue, new, out_start, out_seq):
    """The pass of a submission at ``now`` whose job is held back (the relaxed fair-start-time what-if): as
    `on_submission` minus the insertion (slurm: the arrival still counts as a change for the next backfill pass).
    Not for conservative (its submission only reserves the new job)."""
    if rule == BACKFILL_SLURM:
        clock[BF_DIRTY] = 1
    _run_pass(rule, order, clock[NOW], submit, req, procs, clock, hold, queue, new, out_start, out_seq)


@njit(cache=True)
def on_termination(rule, order, job, start, submit, req, procs, clock, hold, queue, prof, cert, new, out_start,
                   out_seq):
    """`job` (started at `start`) has ended and released its processors; one pass (conservative: compression,
    in full for the slow twin ``BACKFILL_CONSERVATIVE_FULL``)."""
    now = clock[NOW]
    if rule == BACKFILL_SLURM:
        clock[BF_DIRTY] = 1
    if is_conservative(rule):
        _rank(order, queue, clock, now, submit, req)
        conservative.on_termination(job, start, now, rule == BACKFILL_CONSERVATIVE_FULL, clock, queue, hold, prof,
                                    cert, req, procs, new, out_start, out_seq)
    else:
        _run_pass(rule, order, now, submit, req, procs, clock, hold, queue, new, out_start, out_seq)


@njit(cache=True)
def on_advance(rule, order, submit, clock, queue, hold, prof, req, procs, new, out_start, out_seq):
    """Time has moved to `now`: conservative reservations that fall due start (no pass follows); slurm: its
    backfill pass when one is due."""
    now = clock[NOW]
    if is_conservative(rule):
        conservative.start_due(now, clock, queue, hold, req, procs, new, out_start, out_seq)
    elif rule == BACKFILL_SLURM and slurm_rule.pass_due(now, clock):
        _rank(order, queue, clock, now, submit, req)
        slurm_rule.backfill_pass(now, clock, queue, hold, prof, req, procs, new, out_start, out_seq)


@njit(cache=True)
def next_policy_time(rule, queue, clock):
    """The next time a policy acts without an event (a conservative reservation, a slurm backfill pass), -1 when
    none."""
    if is_conservative(rule):
        return conservative.next_due(queue, clock)
    if rule == BACKFILL_SLURM:
        return slurm_rule.next_pass(queue, clock)
    return -1
