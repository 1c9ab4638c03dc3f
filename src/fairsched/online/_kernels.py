"""Compiled primitives of the online engine: accrual, events, starts, on plain int64 arrays.

Private to `fairsched.online` (the engine wraps them; REF's coalition kernel calls them from numba).
Every function takes arrays and scalars only. State layout:

``org_state`` int64 (N_ORG_FIELDS, k), one column per organization:
    WAITING        released jobs not started
    RUNNING        jobs running now
    PSI, WORK      psi_sp of the organization's jobs and unit parts executed before ``now``
    RUNNING_ON     jobs running on the organization's machines (whoever owns the job)
    PSI_ON, WORK_ON  the same accrual credited to the machine owner (DIRECTCONTR's phi)
    HEAD           position of the first record with un-started copies in the organization's record list
    HEAD_STARTED   copies of that record already started
    HEAD_RELEASE   release time of the first waiting job, -1 when none waits
``clock`` int64 (N_CLOCK,): NOW, NEXT_RELEASE (first record not released), N_FREE, TOTAL_WAITING, HEAP_SIZE.
Records are sorted by release; ``org_records[org_ptr[u]:org_ptr[u+1]]`` lists organization u's records in
release order (its FIFO queue). Sequential job ``s`` of record ``r`` is ``rec_first_seq[r] + copy``.
Free machines form a stack (``free_stack[:N_FREE]``, top = most recently freed) with ``stack_pos`` giving each
free machine's position, so a chosen machine leaves the stack in O(1). Running jobs sit in ``completions``
(m, 2), the shared heap of `fairsched._kernels.heap` keyed by the rows (end, sequential id) (columns
``END_COL``, ``SEQ_COL``; size ``clock[HEAP_SIZE]``): ties never depend on insertion order.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from fairsched._kernels.heap import heap_pop, heap_push

WAITING, RUNNING, PSI, WORK, RUNNING_ON, PSI_ON, WORK_ON, HEAD, HEAD_STARTED, HEAD_RELEASE = range(10)
N_ORG_FIELDS = 10
NOW, NEXT_RELEASE, N_FREE, TOTAL_WAITING, HEAP_SIZE = range(5)
N_CLOCK = 5
END_COL, SEQ_COL = range(2)  # columns of the completion heap's key rows

# Return codes of `start_jobs` (the engine turns them into PolicyError messages).
OK, BAD_COUNT, BAD_ORG, TOO_MANY_OF_ORG, BAD_MACHINE_COUNT, BAD_MACHINE_ID, MACHINE_NOT_FREE = range(7)


@njit(cache=True)
def advance(org_state, clock, t):
    """Accrue utilities over [now, t): psi += d*W + n*d(d+1)/2, W += n*d (SPAA'13 Eq. (3), closed form)."""
    d = t - clock[NOW]
    if d <= 0:
        return
    tri = d * (d + 1) // 2
    for u in range(org_state.shape[1]):
        org_state[PSI, u] += d * org_state[WORK, u] + tri * org_state[RUNNING, u]
        org_state[WORK, u] += d * org_state[RUNNING, u]
        org_state[PSI_ON, u] += d * org_state[WORK_ON, u] + tri * org_state[RUNNING_ON, u]
        org_state[WORK_ON, u] += d * org_state[RUNNING_ON, u]
    clock[NOW] = t


@njit(cache=True)
def next_event_time(rec_release, clock, completions):
    """Time of the next release or completion; -1 when nothing is left to happen."""
    nxt = -1
    if clock[NEXT_RELEASE] < rec_release.size:
        nxt = rec_release[clock[NEXT_RELEASE]]
    if clock[HEAP_SIZE] > 0 and (nxt < 0 or completions[0, END_COL] < nxt):
        nxt = completions[0, END_COL]
    return nxt


@njit(cache=True)
def process_events(rec_release, rec_org, rec_copies, seq_record, seq_machine, machine_owner, org_state, clock,
                   free_stack, stack_pos, completions):
    """Apply every completion at or before ``now`` (freeing machines), then every release at or before ``now``."""
    now = clock[NOW]
    while clock[HEAP_SIZE] > 0 and completions[0, END_COL] <= now:
        seq = completions[0, SEQ_COL]
        clock[HEAP_SIZE] = heap_pop(completions, 0, clock[HEAP_SIZE])
        machine = seq_machine[seq]
        org_state[RUNNING, rec_org[seq_record[seq]]] -= 1
        org_state[RUNNING_ON, machine_owner[machine]] -= 1
        top = clock[N_FREE]
        free_stack[top] = machine
        stack_pos[machine] = top
        clock[N_FREE] = top + 1
    rec = clock[NEXT_RELEASE]
    while rec < rec_release.size and rec_release[rec] <= now:
        u = rec_org[rec]
        if org_state[WAITING, u] == 0:
            org_state[HEAD_RELEASE, u] = rec_release[rec]
        org_state[WAITING, u] += rec_copies[rec]
        clock[TOTAL_WAITING] += rec_copies[rec]
        rec += 1
    clock[NEXT_RELEASE] = rec


@njit(cache=True)
def run_until_decision(rec_release, rec_org, rec_copies, seq_record, seq_machine, machine_owner, org_state, clock,
                       free_stack, stack_pos, completions, horizon):
    """Jump from event to event until a machine is free while a job waits (return True) or nothing is left to
    happen at or before `horizon` (return False; horizon < 0 means none)."""
    while True:
        t = next_event_time(rec_release, clock, completions)
        if t < 0 or (horizon >= 0 and t > horizon):
            return False
        advance(org_state, clock, t)
        process_events(rec_release, rec_org, rec_copies, seq_record, seq_machine, machine_owner, org_state, clock,
                       free_stack, stack_pos, completions)
        if clock[N_FREE] > 0 and clock[TOTAL_WAITING] > 0:
            return True


@njit(cache=True)
def check_assignment(orgs, machines, use_machines, org_state, clock, stack_pos, mark, stamp):
    """Validate a decision before any state changes; return (code, offending index or value)."""
    n_start = min(clock[N_FREE], clock[TOTAL_WAITING])
    if orgs.size != n_start:
        return BAD_COUNT, orgs.size
    k = org_state.shape[1]
    per_org = np.zeros(k, dtype=np.int64)
    for i in range(orgs.size):
        u = orgs[i]
        if u < 0 or u >= k:
            return BAD_ORG, u
        per_org[u] += 1
        if per_org[u] > org_state[WAITING, u]:
            return TOO_MANY_OF_ORG, u
    if use_machines:
        if machines.size != n_start:
            return BAD_MACHINE_COUNT, machines.size
        for i in range(machines.size):
            m = machines[i]
            if m < 0 or m >= stack_pos.size:
                return BAD_MACHINE_ID, m
            if stack_pos[m] < 0 or mark[m] == stamp:  # busy, or listed twice
                return MACHINE_NOT_FREE, m
            mark[m] = stamp
    return OK, 0


@njit(cache=True)
def _take_machine(free_stack, stack_pos, clock, machine):
    """Remove `machine` from the free stack in O(1) (the top element fills its slot)."""
    top = clock[N_FREE] - 1
    pos = stack_pos[machine]
    moved = free_stack[top]
    free_stack[pos] = moved
    stack_pos[moved] = pos
    stack_pos[machine] = -1
    clock[N_FREE] = top


# What `start_jobs` reads (the jobs, by record, and the machines' owners) and changes (the engine's state arrays):
# the engine builds them once per simulation and passes them as plain tuples in this field order; `start_jobs`
# unpacks them once per call.
StartJobs = namedtuple("StartJobs", "rec_release rec_processing rec_copies rec_first_seq org_records org_ptr "
                                    "machine_owner")
StartState = namedtuple("StartState", "org_state clock free_stack stack_pos seq_start seq_machine completions")


@njit(cache=True)
def start_jobs(orgs, machines, use_machines, jobs, state):
    """Start, for each i, the head job of ``orgs[i]`` (FIFO) on ``machines[i]`` (or the top free machine).

    `jobs`, `state`: tuples in `StartJobs`, `StartState` order (built once by the engine, unpacked once here).
    The caller has validated the assignment with `check_assignment`.
    """
    rec_release, rec_processing, rec_copies, rec_first_seq, org_records, org_ptr, machine_owner = jobs
    org_state, clock, free_stack, stack_pos, seq_start, seq_machine, completions = state
    now = clock[NOW]
    for i in range(orgs.size):
        u = orgs[i]
        machine = machines[i] if use_machines else free_stack[clock[N_FREE] - 1]
        _take_machine(free_stack, stack_pos, clock, machine)
        rec = org_records[org_ptr[u] + org_state[HEAD, u]]
        seq = rec_first_seq[rec] + org_state[HEAD_STARTED, u]
        seq_start[seq] = now
        seq_machine[seq] = machine
        clock[HEAP_SIZE] = heap_push(completions, 0, clock[HEAP_SIZE], (now + rec_processing[rec], seq))
        org_state[RUNNING, u] += 1
        org_state[RUNNING_ON, machine_owner[machine]] += 1
        org_state[WAITING, u] -= 1
        clock[TOTAL_WAITING] -= 1
        org_state[HEAD_STARTED, u] += 1
        if org_state[HEAD_STARTED, u] == rec_copies[rec]:
            org_state[HEAD, u] += 1
            org_state[HEAD_STARTED, u] = 0
        if org_state[WAITING, u] > 0:
            org_state[HEAD_RELEASE, u] = rec_release[org_records[org_ptr[u] + org_state[HEAD, u]]]
        else:
            org_state[HEAD_RELEASE, u] = -1
