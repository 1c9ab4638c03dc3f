"""Per-job and over-time fairness of a recorded schedule: fair start times, resource equality, DRF, Jain, Gini.

* Fair start time (G. Sabin, P. Sadayappan, JSSPP 2005, §3.1) of job j, measured on the *recorded* state: at j's
  submit time t take the jobs that arrived before j (smaller index in submit order) and were running at t (with
  their recorded remaining run time and remaining time limit) or waiting at t; replay the reference scheduler
  (FCFS + EASY, `fairsched.backfill.BackfillSimulator`) from that state with no later arrival. Strict (§3.1.1):
  j joins the queue at t; relaxed (§3.1.2): j is added once every earlier job has started. A job started later
  than its FST was overtaken unfairly by later jobs. When nothing waits at t and j fits in the free CPUs, both
  FSTs are t without simulation (the what-if would start j at once).
* Resource equality (§3.2): `fairsched.backfill.fairness.resource_equality` on the recorded schedule.
* Dominant shares (A. Ghodsi et al., "Dominant Resource Fairness", NSDI 2011, §4): organization u's share of the
  pool's CPUs and of its memory at time t; its dominant share is the larger. The memory capacity is the largest
  concurrent memory allocation seen in the log (the log does not record the machine's), CPU only when the log
  has no memory.
* Jain's index (Jain, Chiu, Hawe, DEC-TR-301, 1984) (Σx)²/(n·Σx²) and the Gini coefficient Σ_i Σ_j |x_i − x_j|
  / (2 n² x̄), over organizations.
"""

from __future__ import annotations

import heapq

import numpy as np
import pandas as pd
from numba import njit

from fairsched.audit.log import NEVER, Recorded
from fairsched.backfill import BackfillJobs, BackfillSimulator
from fairsched.backfill.fairness import resource_equality


def fair_start_times(recorded: Recorded, n_cpus: int, *, sample: int = 0,
                     seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Strict and relaxed FST of the started jobs, and the weight of each job whose FST was computed.

    Returns int64 arrays in `recorded.jobs` row order (-1: never started, or not in the sample) and the
    float64 weights: 1 for a job measured with certainty, ``slow / sample`` for a job whose what-if was drawn
    among the ``slow`` jobs that need one, 0 for the others. With ``sample = 0`` (or at least as many as need
    one) every what-if runs; otherwise ``sample`` of them, drawn uniformly with ``seed``: weighted counts are
    then unbiased estimates (Horvitz-Thompson) of the counts over all jobs.
    """
    n = recorded.jobs.shape[0]
    submit, start, run, cpus, estimate = (recorded.column(c).astype(np.int64)
                                          for c in ("submit", "start", "run", "cpus", "estimate"))
    end = np.where(start < NEVER, start + np.maximum(run, 1), NEVER)
    order = np.lexsort((np.arange(n), submit))
    kind = _sweep_kernel(submit, start, end, cpus, order, n_cpus, np.zeros(n, dtype=np.bool_))[0]
    slow = np.flatnonzero(kind == _SLOW)
    chosen = np.zeros(n, dtype=bool)
    if sample and slow.size > sample:
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_STAGE_FST,)))
        chosen[rng.choice(slow, size=sample, replace=False)] = True
        slow_weight = slow.size / sample
    else:
        chosen[slow] = True
        slow_weight = 1.0
    strict = np.where(kind == _IMMEDIATE, submit, -1)
    relaxed = strict.copy()
    weight = (kind == _IMMEDIATE).astype(np.float64)
    _, who, run_at, running, wait_at, waiting = _sweep_kernel(submit, start, end, cpus, order, n_cpus, chosen)
    for i, j in enumerate(who.tolist()):
        strict[j], relaxed[j] = _what_if(int(submit[j]), running[run_at[i]:run_at[i + 1]].tolist(),
                                         np.sort(waiting[wait_at[i]:wait_at[i + 1]]).tolist(), j, n_cpus, start,
                                         run, cpus, estimate)
        weight[j] = slow_weight
    return strict, relaxed, weight


_STAGE_FST = 2
_NOT_STARTED, _IMMEDIATE, _SLOW = 0, 1, 2  # the kinds of job of `_sweep_kernel`


@njit(cache=True)
def _sweep_kernel(submit, start, end, cpus, order, n_cpus, chosen):  # pragma: no cover - jit
    """`_sweep` compiled (its slow twin, tests/test_audit_fst_sweep.py): each job's kind (_NOT_STARTED,
    _IMMEDIATE: no queue and enough free CPUs at its submission, _SLOW: a what-if is needed) and, for the slow
    jobs with ``chosen``, in sweep order: the jobs (``who``), and as CSR arrays the earlier jobs running at its
    submission (in `_sweep`'s heap order, the order `_what_if` queues them in) and those waiting (in heap
    order: `_sweep` sorts them)."""
    n = submit.size
    kind = np.zeros(n, np.int8)
    # (time, job) min-heaps as in heapq: pending (start, job) of earlier jobs not started yet at the current
    # time, running (end, job) of earlier jobs running at the current time
    pend_t, pend_j, run_t, run_j = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64), np.empty(
        n, np.int64)
    n_pend = n_run = busy = 0
    n_chosen = int(chosen.sum())
    who, run_at, wait_at = np.empty(n_chosen, np.int64), np.zeros(n_chosen + 1, np.int64), np.zeros(n_chosen + 1,
                                                                                                      np.int64)
    run_list, wait_list = np.empty(16, np.int64), np.empty(16, np.int64)
    c = 0
    for j in order:
        t = submit[j]
        while n_pend and pend_t[0] <= t:
            i = pend_j[0]
            n_pend = _heap_pop(pend_t, pend_j, n_pend)
            n_run = _heap_push(run_t, run_j, n_run, end[i], i)
            busy += cpus[i]
        while n_run and run_t[0] <= t:
            busy -= cpus[run_j[0]]
            n_run = _heap_pop(run_t, run_j, n_run)
        if start[j] < NEVER:
            if n_pend == 0 and n_cpus - busy >= cpus[j]:
                kind[j] = _IMMEDIATE
            else:
                kind[j] = _SLOW
                if chosen[j]:
                    who[c] = j
                    run_list = _put(run_list, run_at[c], run_j[:n_run])
                    wait_list = _put(wait_list, wait_at[c], pend_j[:n_pend])
                    run_at[c + 1], wait_at[c + 1] = run_at[c] + n_run, wait_at[c] + n_pend
                    c += 1
        if start[j] <= t:
            n_run = _heap_push(run_t, run_j, n_run, end[j], j)
            busy += cpus[j]
        elif start[j] < NEVER:
            n_pend = _heap_push(pend_t, pend_j, n_pend, start[j], j)
    return kind, who[:c], run_at[:c + 1], run_list[:run_at[c]], wait_at[:c + 1], wait_list[:wait_at[c]]


@njit(cache=True)
def _put(buffer, at, values):  # pragma: no cover - jit
    """`values` written at buffer[at:], the buffer doubled as often as needed; returns the buffer."""
    if at + values.size > buffer.size:
        bigger = np.empty(max(2 * buffer.size, at + values.size), np.int64)
        for k in range(at):
            bigger[k] = buffer[k]
        buffer = bigger
    for k in range(values.size):
        buffer[at + k] = values[k]
    return buffer


@njit(cache=True)
def _before(heap_t, heap_j, a, b):  # pragma: no cover - jit
    return heap_t[a] < heap_t[b] or (heap_t[a] == heap_t[b] and heap_j[a] < heap_j[b])


@njit(cache=True)
def _sift_down(heap_t, heap_j, start, pos):  # pragma: no cover - jit
    """heapq's ``_siftdown``: move the item at pos up towards start while it is below its parent."""
    item_t, item_j = heap_t[pos], heap_j[pos]
    while pos > start:
        parent = (pos - 1) >> 1
        if item_t < heap_t[parent] or (item_t == heap_t[parent] and item_j < heap_j[parent]):
            heap_t[pos], heap_j[pos] = heap_t[parent], heap_j[parent]
            pos = parent
            continue
        break
    heap_t[pos], heap_j[pos] = item_t, item_j


@njit(cache=True)
def _heap_push(heap_t, heap_j, size, t, j):  # pragma: no cover - jit
    """heapq.heappush of (t, j) on the first `size` items; returns the new size."""
    heap_t[size], heap_j[size] = t, j
    _sift_down(heap_t, heap_j, 0, size)
    return size + 1


@njit(cache=True)
def _heap_pop(heap_t, heap_j, size):  # pragma: no cover - jit
    """heapq.heappop (the smallest item, at 0, is dropped; read it before); returns the new size. Same moves as
    heapq, so the items are left in the same order (`_what_if` queues the running jobs in it)."""
    size -= 1
    last_t, last_j = heap_t[size], heap_j[size]
    if size == 0:
        return 0
    heap_t[0], heap_j[0] = last_t, last_j
    # heapq's _siftup: move the smaller child up until a leaf, then sift the item down
    pos, child = 0, 1
    while child < size:
        right = child + 1
        if right < size and not _before(heap_t, heap_j, child, right):
            child = right
        heap_t[pos], heap_j[pos] = heap_t[child], heap_j[child]
        pos = child
        child = 2 * pos + 1
    heap_t[pos], heap_j[pos] = last_t, last_j
    _sift_down(heap_t, heap_j, 0, pos)
    return size


def _sweep(recorded: Recorded, n_cpus: int, slow, immediate) -> None:
    """Walk the jobs in submit order, keeping the recorded running and waiting sets of earlier jobs; call
    ``immediate(j, t)`` when j found no queue and enough free CPUs, else ``slow(j, t, running, waiting)``.

    The slow twin of `_sweep_kernel` (`fair_start_times` walked the jobs twice with it before)."""
    start, run, cpus, submit = (recorded.column(c) for c in ("start", "run", "cpus", "submit"))
    end = np.where(start < NEVER, start + np.maximum(run, 1), NEVER)
    order = np.lexsort((np.arange(start.size), submit))
    pending: list[tuple[int, int]] = []   # (start, job) of earlier jobs not started yet at the current time
    running: list[tuple[int, int]] = []   # (end, job) of earlier jobs running at the current time
    waiting: set[int] = set()
    busy = 0
    for j in order.tolist():
        t = int(submit[j])
        while pending and pending[0][0] <= t:
            _, i = heapq.heappop(pending)
            waiting.discard(i)
            heapq.heappush(running, (int(end[i]), i))
            busy += int(cpus[i])
        while running and running[0][0] <= t:
            busy -= int(cpus[heapq.heappop(running)[1]])
        if start[j] < NEVER:
            if not waiting and n_cpus - busy >= cpus[j]:
                if immediate is not None:
                    immediate(j, t)
            else:
                slow(j, t, [i for _, i in running], sorted(waiting) if immediate is not None else [])
        if start[j] <= t:
            heapq.heappush(running, (int(end[j]), j))
            busy += int(cpus[j])
        elif start[j] < NEVER:
            heapq.heappush(pending, (int(start[j]), j))
            waiting.add(j)


def _what_if(t: int, running: list[int], waiting: list[int], j: int, n_cpus: int, start: np.ndarray,
             run: np.ndarray, cpus: np.ndarray, estimate: np.ndarray) -> tuple[int, int]:
    """Replay FCFS + EASY from the recorded state at t (running, then waiting jobs, then j, all submitted at t)."""
    end = start + np.maximum(run, 1)
    rows = np.array([*running, *waiting, j], dtype=np.int64)
    n_run = len(running)
    remaining = np.where(np.arange(rows.size) < n_run, end[rows] - t, end[rows] - start[rows])
    limit = np.where(np.arange(rows.size) < n_run, start[rows] + estimate[rows] - t, estimate[rows])
    jobs = BackfillJobs.from_arrays(np.full(rows.size, t), remaining, cpus[rows], np.maximum(limit, remaining),
                                    n_processors=n_cpus, job=rows)
    last = rows.size - 1
    strict = BackfillSimulator(jobs, "fcfs", "easy").run_until_started(last)
    sim = BackfillSimulator(jobs, "fcfs", "easy")
    sim.run(pause_before=last)
    sim.run_until_queue_empty(submit_limit=last)
    relaxed = sim.inject(last)
    if relaxed is None:
        relaxed = sim.run_until_started(last, submit_limit=last)
    return strict, relaxed


def resource_equality_of(recorded: Recorded, n_cpus: int) -> np.ndarray:
    """RE deficit (deserved − consumed CPU-seconds, JSSPP'05 §3.2) per job; NaN for jobs that never started."""
    ran = recorded.started
    jobs = recorded.jobs[ran]
    schedule = pd.DataFrame({"job": np.flatnonzero(ran), "submit": jobs["submit"].to_numpy(),
                             "start": jobs["start"].to_numpy(), "end": jobs["start"].to_numpy()
                             + np.maximum(jobs["run"].to_numpy(), 1), "procs": jobs["cpus"].to_numpy()})
    deficit = np.full(len(recorded.jobs), np.nan)
    deficit[ran] = resource_equality(schedule, n_cpus)["deficit"].to_numpy(np.float64)
    return deficit


def dominant_shares(recorded: Recorded, n_cpus: int, times: np.ndarray) -> tuple[pd.DataFrame, float | None]:
    """DRF dominant share of each organization at each time (rows: time, org, cpu_share, memory_share,
    gpu_share, dominant_share) and the memory capacity used (None: the log has no memory, CPU shares only).

    GPUs (Slurm ``AllocTRES`` ``gres/gpu=``) are a resource of their own when some job of the log has one; their
    capacity is the largest concurrent GPU allocation of the log, as for memory."""
    start, run, cpus, org, memory, gpus = (recorded.column(c) for c in ("start", "run", "cpus", "org", "memory_mb",
                                                                        "gpus"))
    ran = (start < NEVER) & (run > 0)
    has_memory = bool(ran.any()) and bool(np.all(np.isfinite(memory[ran])))
    capacity = _peak(start[ran], start[ran] + run[ran], memory[ran]) if has_memory else None
    gpus = np.nan_to_num(gpus.astype(np.float64))
    gpu_capacity = _peak(start[ran], start[ran] + run[ran], gpus[ran]) if ran.any() else 0.0
    k = recorded.n_orgs
    frames = []
    for u in range(k):
        mine = ran & (org == u)
        cpu = _active(start[mine], start[mine] + run[mine], cpus[mine], times) / n_cpus
        mem = (_active(start[mine], start[mine] + run[mine], memory[mine], times) / capacity
               if capacity else np.zeros_like(cpu))
        gpu = (_active(start[mine], start[mine] + run[mine], gpus[mine], times) / gpu_capacity
               if gpu_capacity else np.zeros_like(cpu))
        frames.append(pd.DataFrame({"time": times, "org": u, "cpu_share": cpu, "memory_share": mem,
                                    "gpu_share": gpu, "dominant_share": np.maximum(np.maximum(cpu, mem), gpu)}))
    return pd.concat(frames, ignore_index=True), capacity


def _active(begin: np.ndarray, end: np.ndarray, weight: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Σ w_j over jobs with begin_j <= t < end_j, for each t."""
    w = weight.astype(np.float64)
    b, e = np.argsort(begin, kind="stable"), np.argsort(end, kind="stable")
    cb = np.concatenate([[0.0], np.cumsum(w[b])])
    ce = np.concatenate([[0.0], np.cumsum(w[e])])
    return cb[np.searchsorted(begin[b], times, side="right")] - ce[np.searchsorted(end[e], times, side="right")]


def _peak(begin: np.ndarray, end: np.ndarray, weight: np.ndarray) -> float:
    times = np.concatenate([begin, end])
    delta = np.concatenate([weight, -weight]).astype(np.float64)
    order = np.lexsort((delta, times))
    return float(max(np.cumsum(delta[order]).max(), 0.0))


def jain(x: np.ndarray) -> float:
    """Jain's fairness index (Σx)²/(n·Σx²): 1 when all equal, 1/n when one takes everything; NaN if all 0.

    >>> jain(np.array([1.0, 1.0])), jain(np.array([1.0, 0.0]))
    (1.0, 0.5)
    """
    x = np.asarray(x, dtype=np.float64)
    x = x[np.isfinite(x)]
    square = float(np.sum(x * x))
    return float(x.sum() ** 2 / (x.size * square)) if square > 0 else float("nan")


def gini(x: np.ndarray) -> float:
    """Gini coefficient Σ_i Σ_j |x_i − x_j| / (2 n² mean): 0 when all equal; NaN if the mean is 0.

    >>> gini(np.array([1.0, 1.0])), gini(np.array([0.0, 2.0]))
    (0.0, 0.5)
    """
    x = np.asarray(x, dtype=np.float64)
    x = x[np.isfinite(x)]
    mean = float(x.mean()) if x.size else 0.0
    if mean == 0:
        return float("nan")
    return float(np.abs(x[:, None] - x[None, :]).sum() / (2 * x.size**2 * mean))
