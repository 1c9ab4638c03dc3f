"""The ``slurm`` backfilling rule: Slurm's main scheduler at events, its backfill scheduler every ``bf_interval``.

What Slurm does (``sched/backfill``; slurm.conf ``SchedulerParameters``, defaults of ``backfill.c``):

* **main scheduler**, at each submission and termination (and when a tick re-orders the queue): the waiting jobs
  in priority order start while they fit, and it stops at the first one that does not (one partition: once a job
  is left pending, no other job of the partition is scheduled);
* **backfill scheduler**, every ``bf_interval`` seconds (default 30): a plan of the running jobs by their time
  limits (the estimates) over the window [now, now + ``bf_window``) (default 1440 min = 1 day); the first
  ``bf_max_job_test`` waiting jobs in priority order (default 500) are tested one by one: a job that fits the plan
  now starts now, any other gets a reservation at its earliest start in the plan (so no later job may delay it),
  unless that start is at or after the window's end (no reservation: later jobs may then delay it). The plan ends
  at the window's end, as Slurm's does (which decides nothing more: past that end the free processors never fall
  below those just before it). Reservations live for the pass only: the next pass
  plans afresh. Slurm skips a pass when no job changed since the last one (``_more_work``): so does this rule (a
  submission, a termination, a start or a tick that re-orders the queue is a change).

What is approximated (docs/backfill.md): processors, not nodes (no whole-node allocation, no topology); one
partition, no QOS, no advance reservations; no ``bf_resolution`` rounding of the plan's times (Slurm rounds
them to 60 s) and no ``bf_continue`` / ``bf_yield_interval`` (a pass is instantaneous and never interrupted);
passes fall on the grid first submission + k · ``bf_interval``, before the submissions and terminations of that
second.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fairsched.backfill._kernels import next_decision, prof_add, prof_earliest, queue_move, start_job
from fairsched.backfill.registry import register_backfill
from fairsched.backfill.view import (
    BACKFILL_SLURM,
    BF_DIRTY,
    BF_INTERVAL,
    BF_MAX_TEST,
    BF_NEXT,
    BF_WINDOW,
    FREE,
    H_END,
    H_PROCS,
    N_HOLD,
    N_PROCS,
    N_PROF,
    N_QUEUE,
    P_FREE,
    P_TIME,
    Q_JOB,
    BackfillRule,
)
from fairsched.errors import ConfigError

BF_INTERVAL_DEFAULT = 30
"""Slurm's ``bf_interval`` default (seconds between backfill passes)."""
BF_WINDOW_DEFAULT = 1440 * 60
"""Slurm's ``bf_window`` default, 1440 minutes, in seconds."""
BF_MAX_JOB_TEST_DEFAULT = 500
"""Slurm's ``bf_max_job_test`` default (jobs tested per pass, since 20.02; 100 before)."""
_SUMMARY = ("Slurm: the main scheduler starts jobs in priority order at events, the backfill scheduler reserves "
            "for up to bf_max_job_test jobs every bf_interval")


def slurm_rule(bf_interval: int = BF_INTERVAL_DEFAULT, bf_window: int = BF_WINDOW_DEFAULT,
               bf_max_job_test: int = BF_MAX_JOB_TEST_DEFAULT) -> BackfillRule:
    """The ``slurm`` backfilling rule with these parameters (module docstring); pass it as ``backfill=``.

    Parameters
    ----------
    bf_interval : seconds between two backfill passes (Slurm's ``bf_interval``), >= 1.
    bf_window : seconds of the plan (Slurm's ``bf_window``, given there in minutes), >= 1.
    bf_max_job_test : waiting jobs tested per pass, in priority order (``bf_max_job_test``), >= 1.

    Raises
    ------
    ConfigError : a parameter that is not a whole number >= 1.

    Examples
    --------
    >>> slurm_rule(bf_interval=60).params
    (('bf_interval', 60), ('bf_window', 86400), ('bf_max_job_test', 500))
    """
    values = {"bf_interval": bf_interval, "bf_window": bf_window, "bf_max_job_test": bf_max_job_test}
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise ConfigError(f"--{name.replace('_', '-')} {value!r}: expected a whole number >= 1"
                              f"{' of seconds' if name != 'bf_max_job_test' else ''}")
    return BackfillRule(name="slurm", code=BACKFILL_SLURM, reservations=int(values["bf_max_job_test"]),
                        summary=_SUMMARY, params=tuple((k, int(v)) for k, v in values.items()))


SLURM = register_backfill(slurm_rule())


@njit(cache=True)
def next_pass(queue, clock):
    """Time of the next backfill pass, -1 when it would do nothing (no job waits, or nothing changed)."""
    if clock[N_QUEUE] > 0 and clock[BF_DIRTY] != 0:
        return clock[BF_NEXT]
    return -1


@njit(cache=True)
def pass_due(now, clock):
    """Time has moved to `now`: True when a backfill pass runs now. Moves BF_NEXT to the first grid time after now
    (grid times skipped while `next_pass` was -1 had nothing to do)."""
    due = clock[BF_NEXT]
    if now < due:
        return False
    clock[BF_NEXT] = due + ((now - due) // clock[BF_INTERVAL] + 1) * clock[BF_INTERVAL]
    if now == due and clock[BF_DIRTY] != 0:
        clock[BF_DIRTY] = 0
        return True
    return False


@njit(cache=True)
def _plan_running(now, horizon, clock, hold, prof):
    """The plan of the holding jobs: free processors over [now, horizon) by planned ends, all free from `horizon`.

    Built directly from the holding list (sorted by planned end, every end > now). O(holding jobs).
    """
    free = clock[FREE]
    prof[P_TIME, 0] = now
    prof[P_FREE, 0] = free
    m = 1
    n = clock[N_HOLD]
    k = 0
    while k < n and hold[H_END, k] < horizon:
        end = hold[H_END, k]
        while k < n and hold[H_END, k] == end:
            free += hold[H_PROCS, k]
            k += 1
        prof[P_TIME, m] = end
        prof[P_FREE, m] = free
        m += 1
    if free < clock[N_PROCS]:
        prof[P_TIME, m] = horizon
        prof[P_FREE, m] = clock[N_PROCS]
        m += 1
    clock[N_PROF] = m


@njit(cache=True)
def backfill_pass(now, clock, queue, hold, prof, req, procs, new, out_start, out_seq):
    """One pass of Slurm's backfill scheduler at `now` (module docstring), over the queue in its current order.

    Each tested job: its earliest start t in the plan (`prof_earliest`); t == now: it starts and occupies
    [now, min(now + q, horizon)); t < horizon: reserved on [t, min(t + q, horizon)); else nothing. A started job
    marks the state changed (so the next pass runs, as Slurm's job update does). O(tested × plan size).
    """
    horizon = now + clock[BF_WINDOW]
    _plan_running(now, horizon, clock, hold, prof)
    n = clock[N_QUEUE]
    tested = min(n, clock[BF_MAX_TEST])
    kept = 0
    for k in range(n):
        job = queue[Q_JOB, k]
        if k < tested:
            p = procs[job]
            q = req[job]
            t = prof_earliest(prof, clock, now, p, q)
            if t < horizon:
                prof_add(prof, clock, t, min(t + q, horizon), -p)
            if t == now:
                start_job(job, now, next_decision(clock), clock, hold, req, procs, new, out_start, out_seq)
                clock[BF_DIRTY] = 1
                continue
        queue_move(queue, k, kept)
        kept += 1
    clock[N_QUEUE] = kept
