"""What a backfilling policy sees and may change: the engine state layout, shared by engine and policies.

The backfilling model (JSSPP'05 §4; semantics of ../shared/oracles/pyss/README.md §1–§5) has two kinds of
policy, combined freely: a *queue order* (FCFS, SJF, LXF) and a *backfilling rule* (none, no-guarantee,
EASY, conservative). Both run inside numba (the whole event loop is compiled), so a policy is a set of
`@njit` kernels over the plain int64 arrays below, described by a `QueueOrder` or `BackfillRule` and
registered by name (`fairsched.backfill.registry`, by the modules of `fairsched.backfill.policies`).

What policies see
-----------------
Per job (index i = submission order): ``submit[i]``, ``req[i]`` (the requested time, the user's estimate) and
``procs[i]``. **Never the actual run time**: the engine alone knows it and learns it when the job terminates
(non-clairvoyant, JSSPP'05 §4). A policy starts jobs with `fairsched.backfill._kernels.start_job`, which
records the decision; the engine then schedules the termination.

State arrays (all int64; the *live* part of each is a prefix whose length is kept in ``clock``, so a snapshot
copies only what is in use, never whole-trace arrays)::

    clock[N_CLOCK]     NOW, NEXT_SUB (first job not yet submitted), N_QUEUE, N_HOLD, N_HEAP, FREE (free
                       processors now), SEQ (decision counter), N_PROF, N_NEW (jobs started by the current
                       handler, not yet handed to the engine), N_PROCS (P), TICK (time of the next tick of a
                       ticked order, -1: the order has no ticks), PERIOD (seconds between ticks); the
                       ``slurm`` rule's BF_INTERVAL, BF_WINDOW, BF_MAX_TEST, BF_NEXT, BF_DIRTY; conservative's
                       QUIET
    hold[3, cap_run]   jobs *holding* processors (README §2): H_END planned end (start + requested), H_PROCS,
                       H_JOB; sorted by planned end. A job holds until the earlier of its planned end and the
                       processing of its termination event.
    heap[cap_run, 4]   started jobs whose termination is not processed: rows (K_END actual end, K_START, K_SEQ
                       decision number, K_JOB) of the shared binary heap (`fairsched._kernels.heap`), ordered by
                       the whole row (K_SEQ is unique, so K_JOB never decides). Engine only.
    queue[3, n]        waiting jobs in queue order: Q_JOB, Q_RES (conservative reservation R_j), Q_SEQ
                       (decision number of that reservation).
    prof[2, cap_prof]  conservative free-processor profile (the ``slurm`` rule: its plan, rebuilt by each backfill
                       pass): P_TIME breakpoints (increasing, P_TIME[0] <= now)
                       and P_FREE, the free processors from P_TIME[k] until P_TIME[k + 1] (the last segment
                       extends to infinity and has all P processors free).
    cert[n, CERT_SIZE] conservative, incremental re-planning: each waiting job's certificate, the blocking times
                       proving that its reservation cannot move yet (`fairsched.backfill.policies._compress`):
                       the count r, then r times, and at CERT_TAIL the start of the windows left uncovered.
    new[n]             jobs started by the current handler (``new[:N_NEW]``).
    out_start[n], out_seq[n]  start time and decision number of each started job (-1: not started).

Ticked orders (`QueueOrder.ticked`: the fair-share orders, whose keys change over time) also get the arrays
of a `TickSetup` (passed to the compiled loop as the tuple ``(org, jpar, opar, ost, key)``): the organization of
each job, per-job and per-order parameters, the order's own running state, and ``key[n]``, each waiting job's
rank key (smaller first, ties by job index) as of the last tick. Keys are recomputed only at ticks (every
PERIOD seconds from the first submission, like Slurm's ``PriorityCalcPeriod``), never between them; a job
submitted between two ticks gets its key from the state of the last tick.

``cap_run`` = min(n, 2P) + 1: at most P jobs hold processors, plus at most P jobs whose planned end is ``now``
and whose termination at ``now`` is not processed yet.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# clock fields
NOW, NEXT_SUB, N_QUEUE, N_HOLD, N_HEAP, FREE, SEQ, N_PROF, N_NEW, N_PROCS, TICK, PERIOD = range(12)
# the ``slurm`` rule's parameters and state (`fairsched.backfill.policies.slurm_rule`): seconds between backfill
# passes, planning window (s), jobs tested per pass, time of the next pass, 1 when something changed since the last
BF_INTERVAL, BF_WINDOW, BF_MAX_TEST, BF_NEXT, BF_DIRTY = range(12, 17)
# conservative, incremental re-planning: 1 while every waiting job has been checked since free processors last
# increased anywhere in the profile (`fairsched.backfill.policies._compress`, "Quiet compressions")
QUIET = 17
N_CLOCK = 18
RULE_CLOCK = {"bf_interval": BF_INTERVAL, "bf_window": BF_WINDOW, "bf_max_job_test": BF_MAX_TEST}
"""A backfilling rule's parameter name -> the clock field that holds it (`BackfillRule.params`)."""
# rows of hold, queue and prof; columns of heap
H_END, H_PROCS, H_JOB = range(3)
K_END, K_START, K_SEQ, K_JOB = range(4)
Q_JOB, Q_RES, Q_SEQ = range(3)
P_TIME, P_FREE = range(2)
CERT_POINTS = 16  # blocking times a certificate keeps at most
CERT_TAIL = CERT_POINTS + 1  # the column of cert holding the start of the uncovered windows
CERT_SIZE = CERT_POINTS + 2

# Codes the compiled dispatcher switches on (numba cannot cache kernels that take functions as arguments,
# so policies are chosen by integer code; `fairsched.backfill.policies` maps names to codes).
ORDER_FCFS, ORDER_SJF, ORDER_LXF, ORDER_DRF, ORDER_DIRECTCONTR, ORDER_SLURM_FAIR_TREE, ORDER_SLURM_CLASSIC = range(7)
FIRST_TICKED_ORDER = ORDER_DRF  # codes >= this one are ticked orders (keys recomputed at ticks)
BACKFILL_NONE, BACKFILL_NO_GUARANTEE, BACKFILL_EASY, BACKFILL_CONSERVATIVE = range(4)
# Conservative backfilling re-planned in full at every compression (the slow twin of the incremental re-planning,
# same schedules; never registered by name: `fairsched.backfill.policies.conservative.FULL_REPLAN`).
BACKFILL_CONSERVATIVE_FULL = 4
BACKFILL_SLURM = 5  # Slurm's backfill scheduler, passes every bf_interval (`fairsched.backfill.policies.slurm_rule`)


@dataclass(frozen=True)
class QueueOrder:
    """A queue order: how waiting jobs are ranked (the head is first).

    Attributes
    ----------
    name : registered name (``fcfs``, ``sjf``, ``lxf``).
    code : the integer the compiled dispatcher switches on.
    summary : one line for the CLI help and the docs.
    """

    name: str
    code: int
    summary: str
    ticked: bool = False
    prepare: Callable[[Any, Mapping[str, Any]], TickSetup] | None = field(default=None, compare=False, repr=False)
    """Ticked orders: builds the `TickSetup` of one run from the jobs and the order's parameters."""


@dataclass(frozen=True)
class TickSetup:
    """What a ticked order runs with (layouts of `opar` and `ost` belong to the order's module).

    Attributes
    ----------
    period : seconds between two ticks (Slurm's ``PriorityCalcPeriod``), >= 1.
    org : int64[n], the organization index of each job (0-based).
    jpar : float64[rows, n], per-job parameters (e.g. memory), at least one row.
    opar : float64[m], the order's parameters (shares, capacities, weights...).
    ost : float64[s], the order's initial running state (accumulators, per-organization keys).
    """

    period: int
    org: np.ndarray
    jpar: np.ndarray
    opar: np.ndarray
    ost: np.ndarray


@dataclass(frozen=True)
class BackfillRule:
    """A backfilling rule: which waiting jobs may start, and what is promised to the others.

    Attributes
    ----------
    name : registered name (``none``, ``no-guarantee``, ``easy``, ``conservative``).
    code : the integer the compiled dispatcher switches on.
    summary : one line for the CLI help and the docs.
    reservations : JSSPP'05's "reservation depth": 0 (none), 1 (the queue head), or -1 (every waiting job);
        None for ``none``, which does not backfill at all; ``slurm``: its ``bf_max_job_test`` (the jobs each
        backfill pass tests and reserves for, re-planned at every pass).
    params : the rule's parameters as ``(name, integer)`` pairs, each held in the clock field `RULE_CLOCK` names
        (empty for every rule but ``slurm``).
    """

    name: str
    code: int
    summary: str
    reservations: int | None
    params: tuple[tuple[str, int], ...] = ()
