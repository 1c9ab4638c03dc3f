"""The coalition game's replays, compiled: FCFS + EASY backfilling of a coalition's jobs on its CPUs, and its ψsp.

`coalition_values` replays many coalitions in one call (no Python between them) and returns v(C) for each;
`coalition_schedule` replays one and also returns every job's start. Both give exactly the schedule of
``fairsched.backfill.simulate(jobs, order="fcfs", backfill="easy")`` on the coalition's jobs — the event
semantics of the pyss oracle README (§1, §2, §4) — which is their slow twin (tests/test_audit_replay.py, with
the README-built naive engine of tests/naive/backfill_naive.py beside it). What makes them faster than the
general engine, for this one (order, rule):

* FCFS ranks by job index, so the queue is a slice of an array: the heads that start are dropped by moving its
  first index, and jobs only ever join at its end;
* a pass returns at once when the free processors are fewer than a lower bound of the waiting jobs' widths
  (kept on every join, made exact by every full scan): no waiting job can start, and the general pass would
  also have started none and changed nothing;
* terminations are ordered by (end, decision number): decisions are numbered in time order, so this is the
  engine's (end, start, decision number);
* ψsp (SPAA'13 Eq. (3)) is summed as each job starts, in two int64 words (``high·2^62 + low``), so no job
  array is built per coalition.

The jobs are those of `fairsched.audit.game.ReferenceJobs` (sorted by submit time): job j belongs to coalition
C when its organization is a member and it is no wider than C's CPUs. ``run`` >= 1 and ``req`` >= ``run`` (the
rules of `fairsched.backfill.jobs`); one term q·(u·(t_end − s) − u(u−1)/2) must fit in int64, which
`fairsched.audit.game.Game` checks before using these kernels (it falls back to the engine otherwise).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from fairsched._kernels.heap import heap_pop, heap_push
from fairsched.errors import ConfigError

WORD = 1 << 62  # v(C) = high * WORD + low

_NO_WAITING = 1 << 62  # the width bound when no job waits

@njit(cache=True)
def _replay(member, n_cpus, org, submit, run, req, procs, t_end, out_start, out_value, row, queue, hold_end,
            hold_procs, hold_job, heap):
    """Replay one coalition (member[u] != 0: u is in it; n_cpus its CPUs): v(C) and the number of its jobs
    wider than its CPUs into out_value[row] = (high, low, too wide), the start of each of its jobs into
    out_start (other entries untouched).

    The engine's event loop for FCFS + EASY (`fairsched.backfill._loop.run_events`), one event per iteration:
    when time moves to t, holds whose planned end <= t are released; then the submissions at t, then the
    terminations at t by (end, decision number); one EASY pass after each
    (`fairsched.backfill.policies.easy.easy_pass`). Written as one function on purpose: numba counts the
    references of every array handed to a helper, which cost more than the replay itself here (the shared heap's
    functions, `fairsched._kernels.heap`, are inlined, so they hand nothing).
    """
    n = org.size
    free = n_cpus
    seq = 0  # decision number of the next start
    qh = 0  # the queue is queue[qh:qt], in job order (FCFS)
    qt = 0
    nh = 0  # holding jobs, sorted by planned end: hold_*[:nh]
    nheap = 0  # terminations not processed yet: rows (end, decision number, job) of heap[:nheap], the shared heap
    smallest = _NO_WAITING  # a lower bound of the waiting jobs' widths
    high = 0
    low = 0
    too_wide = 0
    nxt = 0
    while nxt < n and (member[org[nxt]] == 0 or procs[nxt] > n_cpus):
        too_wide += member[org[nxt]] != 0
        nxt += 1
    now = submit[nxt] if nxt < n else 0
    while True:
        # -- the next event: a submission first at equal times (README §1)
        if nxt < n and (nheap == 0 or submit[nxt] <= heap[0, 0]):
            t = submit[nxt]
            submission = True
        elif nheap > 0:
            t = heap[0, 0]
            submission = False
        else:
            break
        if t > now:  # holds end at their planned end (README §2)
            now = t
            k = 0
            while k < nh and hold_end[k] <= now:
                free += hold_procs[k]
                k += 1
            if k > 0:
                for i in range(k, nh):
                    hold_end[i - k] = hold_end[i]
                    hold_procs[i - k] = hold_procs[i]
                    hold_job[i - k] = hold_job[i]
                nh -= k
        if submission:
            queue[qt] = nxt
            qt += 1
            if procs[nxt] < smallest:
                smallest = procs[nxt]
            nxt += 1
            while nxt < n and (member[org[nxt]] == 0 or procs[nxt] > n_cpus):
                too_wide += member[org[nxt]] != 0
                nxt += 1
        else:  # pop the (end, decision number) minimum
            job = heap[0, 2]
            nheap = heap_pop(heap, 0, nheap)
            for k in range(nh):  # still holding (its planned end is later): release it now
                if hold_job[k] == job:
                    free += hold_procs[k]
                    for i in range(k + 1, nh):
                        hold_end[i - 1] = hold_end[i]
                        hold_procs[i - 1] = hold_procs[i]
                        hold_job[i - 1] = hold_job[i]
                    nh -= 1
                    break
        # -- one EASY pass: the heads that fit start; then a waiting job starts iff p <= free and
        #    (now + q <= sigma or p <= extra), sigma and extra being the head's reservation (README §4)
        if free < smallest:  # no waiting job fits in the free processors: the pass would start nothing
            continue
        heads = True
        sigma = 0
        extra = 0
        kept = qh
        i = qh
        while i < qt:
            job = queue[i]
            p = procs[job]
            by_shadow = True
            if heads:
                if p > free:  # the head waits: its reservation, then one scan of the others
                    heads = False
                    qh = i
                    kept = i + 1
                    i += 1
                    if qt - qh < 2 or free == 0:
                        if qt - qh < 2:
                            smallest = p
                        kept = qt  # nothing else can start: nothing moves
                        break
                    smallest = p
                    avail = free
                    k = 0
                    while k < nh:
                        sigma = hold_end[k]
                        while k < nh and hold_end[k] == sigma:
                            avail += hold_procs[k]
                            k += 1
                        if avail >= p:
                            break
                    extra = avail - p
                    continue
            elif p > free or not ((now + req[job] <= sigma) or p <= extra):
                queue[kept] = job
                kept += 1
                if p < smallest:
                    smallest = p
                i += 1
                continue
            else:
                by_shadow = now + req[job] <= sigma
            # -- start `job` now: it holds p processors until now + req, ends at now + run
            i += 1
            free -= p
            if not by_shadow:
                extra -= p
            out_start[job] = now
            end = now + req[job]
            k = nh
            while k > 0 and hold_end[k - 1] > end:
                hold_end[k] = hold_end[k - 1]
                hold_procs[k] = hold_procs[k - 1]
                hold_job[k] = hold_job[k - 1]
                k -= 1
            hold_end[k] = end
            hold_procs[k] = p
            hold_job[k] = job
            nh += 1
            stop = now + run[job]
            nheap = heap_push(heap, 0, nheap, (stop, seq, job))
            seq += 1
            # psi_sp (SPAA'13 Eq. (3)): q * (u * (t_end - s) - u (u - 1) / 2), u = units done by t_end
            done = min(stop, t_end) - min(now, t_end)
            if done > 0:
                low += p * (done * (t_end - now) - done * (done - 1) // 2)
                if low >= WORD:
                    low -= WORD
                    high += 1
        if heads:  # every waiting job started
            qh = qt
            smallest = _NO_WAITING
        else:
            qt = kept
    out_value[row, 0] = high
    out_value[row, 1] = low
    out_value[row, 2] = too_wide


@njit(cache=True, nogil=True)
def _values_kernel(members, n_cpus, org, submit, run, req, procs, t_end, out_value):
    """v of every row of `members` (a (m, k) 0/1 matrix) with its CPUs n_cpus[i], into out_value[i] = (high,
    low, too wide). One set of work arrays serves every replay."""
    n = org.size
    cap = int(n_cpus.max()) + 1
    queue = np.zeros(n + 1, dtype=np.int64)
    hold_end = np.zeros(cap, dtype=np.int64)
    hold_procs = np.zeros(cap, dtype=np.int64)
    hold_job = np.zeros(cap, dtype=np.int64)
    heap = np.zeros((n + 1, 3), dtype=np.int64)
    out_start = np.zeros(n, dtype=np.int64)
    for i in range(members.shape[0]):
        _replay(members[i], n_cpus[i], org, submit, run, req, procs, t_end, out_start, out_value, i, queue,
                hold_end, hold_procs, hold_job, heap)


def coalition_values(members: np.ndarray, n_cpus: np.ndarray, org: np.ndarray, submit: np.ndarray,
                     run: np.ndarray, req: np.ndarray, procs: np.ndarray, t_end: int, *,
                     threads: int = 1) -> tuple[list[int], list[int]]:
    """v(C) of every coalition (row of `members`, (m, k) 0/1; `n_cpus` its CPUs) as exact Python ints, and the
    number of its jobs too wide for its CPUs (left out of its replay).

    The job arrays are int64, sorted by submit time, run >= 1, req >= run (module docstring). O(Σ events ×
    (holding jobs + log running)) plus one scan of the queue per pass that can start a job. With `threads` > 1
    the rows are dealt round robin to that many threads (the kernel releases the GIL; each thread has its own
    work arrays): the same values, in less wall time on several cores, not less CPU time.

    >>> coalition_values(np.array([[1]]), np.array([1]), np.zeros(3, np.int64), np.array([0, 0, 0]),
    ...                  np.array([2, 1, 1]), np.array([2, 1, 1]), np.array([1, 1, 2]), 4)   # 4+3, then 2 at [2, 3)
    ([9], [1])
    """
    m = np.ascontiguousarray(members, dtype=np.uint8)
    cpus = np.ascontiguousarray(n_cpus, dtype=np.int64)
    out = np.zeros((m.shape[0], 3), dtype=np.int64)
    jobs = _jobs(org, submit, run, req, procs)
    parts = max(1, min(int(threads), m.shape[0]))
    if parts == 1:
        if m.shape[0]:
            _values_kernel(m, cpus, *jobs, int(t_end), out)
    else:
        def part(i: int) -> np.ndarray:
            mine = np.zeros((len(range(i, m.shape[0], parts)), 3), dtype=np.int64)
            _values_kernel(np.ascontiguousarray(m[i::parts]), np.ascontiguousarray(cpus[i::parts]), *jobs,
                           int(t_end), mine)
            return mine

        with ThreadPoolExecutor(max_workers=parts) as pool:
            for i, mine in enumerate(pool.map(part, range(parts))):
                out[i::parts] = mine
    return [int(high) * WORD + int(low) for high, low in out[:, :2].tolist()], out[:, 2].tolist()


def default_threads() -> int:
    """Threads for the game's replays: ``$FAIRSCHED_THREADS`` when set, else the CPUs this process may use."""
    text = os.environ.get("FAIRSCHED_THREADS", "").strip()
    if text:
        try:
            value = int(text)
        except ValueError:
            raise ConfigError(f"FAIRSCHED_THREADS={text!r}: expected a whole number >= 1") from None
        if value < 1:
            raise ConfigError(f"FAIRSCHED_THREADS={text!r}: expected a whole number >= 1")
        return value
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def coalition_schedule(member: np.ndarray, n_cpus: int, org: np.ndarray, submit: np.ndarray, run: np.ndarray,
                       req: np.ndarray, procs: np.ndarray, t_end: int) -> tuple[np.ndarray, int]:
    """One coalition's replay: the start of every job (-1: not in its replay) and v(C) (exact int)."""
    jobs = _jobs(org, submit, run, req, procs)
    n = jobs[0].size
    out_start = np.full(n, -1, dtype=np.int64)
    out_value = np.zeros((1, 3), dtype=np.int64)
    cap = int(n_cpus) + 1
    _replay(np.ascontiguousarray(member, dtype=np.uint8), int(n_cpus), *jobs, int(t_end), out_start, out_value, 0,
            np.zeros(n + 1, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64),
            np.zeros((n + 1, 3), np.int64))
    return out_start, int(out_value[0, 0]) * WORD + int(out_value[0, 1])


def _jobs(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    return tuple(np.ascontiguousarray(a, dtype=np.int64) for a in arrays)
