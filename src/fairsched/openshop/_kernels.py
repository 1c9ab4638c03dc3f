"""Compiled kernels of the openshop model (numba-level API: plain arrays and scalars only, nothing raised).

The Python wrappers (`engine`, `policies.*`, `online`) validate inputs and call these. Symbols follow
Shafiee & Ghaderi, IFIP Networking 2020 (module docstring of `fairsched.openshop`): ``tau[i]`` is τ_i, the work
left on machine i; ``p`` is a task's processing time p_ij; ``eps[j]`` is the perturbation ε_j of Algorithm 2.

Instances arrive as CSR by job (``indptr``, ``task_machine``, ``task_time``) and, where a kernel walks a
machine's tasks, as CSR by machine (``m_ptr``, ``m_job``, ``m_time``) built by `engine.tasks_by_machine`.
The kernels of PBA and generalized PBA are in `policies/_pba_kernels.py`, those of Lemma 4 in
`policies/_lemma4_kernels.py`; the ones here are shared (evaluation, loads and keys, list scheduling, the online
commit).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fairsched._kernels.heap import heap_pop, heap_push

# -- evaluation (engine.py) --------------------------------------------------------------------------------


@njit(cache=True)
def permutation_kernel(indptr, task_machine, task_time, arrival, order, n_machines, release):
    """Every machine runs its tasks in job order `order`, back to back; with `release` none before its job's
    arrival. Returns (task_start, completion); a job without tasks completes at its arrival. O(tasks + m)."""
    free = np.zeros(n_machines, np.int64)
    start = np.empty(task_time.size, np.int64)
    completion = np.empty(order.size, np.int64)
    for j in order:
        ready = arrival[j] if release else 0
        done = arrival[j]
        for t in range(indptr[j], indptr[j + 1]):
            i = task_machine[t]
            s = max(free[i], ready)
            start[t] = s
            free[i] = s + task_time[t]
            done = max(done, free[i]) if t > indptr[j] else free[i]
        completion[j] = done
    return start, completion


@njit(cache=True)
def task_order_kernel(task_job, task_machine, task_time, arrival, task_order, n_jobs, n_machines, release):
    """Each machine runs its tasks in the order they appear in `task_order`. Returns (task_start, completion)."""
    free = np.zeros(n_machines, np.int64)
    start = np.empty(task_time.size, np.int64)
    completion = arrival.copy()  # jobs without tasks complete at their arrival
    seen = np.zeros(n_jobs, np.bool_)
    for t in task_order:
        i, j = task_machine[t], task_job[t]
        s = max(free[i], arrival[j]) if release else free[i]
        start[t] = s
        free[i] = s + task_time[t]
        completion[j] = max(completion[j], free[i]) if seen[j] else free[i]
        seen[j] = True
    return start, completion


@njit(cache=True)
def is_permutation(values, n):
    """True when `values` holds each of 0..n-1 exactly once."""
    if values.size != n:
        return False
    hit = np.zeros(n, np.bool_)
    for v in values:
        if v < 0 or v >= n or hit[v]:
            return False
        hit[v] = True
    return True


# -- shared helpers ----------------------------------------------------------------------------------------


@njit(cache=True)
def loads(indptr, task_machine, task_time, alive, n_machines):
    """τ_i = Σ_{j alive} p_ij (paper Algorithm 1 line 1.1)."""
    tau = np.zeros(n_machines, np.int64)
    for j in range(alive.size):
        if alive[j]:
            for t in range(indptr[j], indptr[j + 1]):
                tau[task_machine[t]] += task_time[t]
    return tau


@njit(cache=True)
def sort_machines(rank, tau):
    """Insertion sort of `rank` by (τ descending, machine ascending); O(m + inversions) on a nearly sorted rank."""
    for a in range(1, rank.size):
        i = rank[a]
        b = a - 1
        while b >= 0 and (tau[rank[b]] < tau[i] or (tau[rank[b]] == tau[i] and rank[b] > i)):
            rank[b + 1] = rank[b]
            b -= 1
        rank[b + 1] = i


@njit(cache=True)
def minmax_keys(indptr, task_machine, task_time, alive, tau):
    """key_j = max_{i∈M} (τ_i − p_ij) for every alive job (−1 for the others), p_ij = 0 off M_j.

    Implements the candidate rule of Algorithm 1 line 1.2: the second-largest completion time if j goes last.
    O(tasks + Σ_j r_j), r_j = how many of the most loaded machines job j covers.
    """
    m = tau.size
    rank = np.arange(m)
    sort_machines(rank, tau)
    mark = np.full(m, -1, np.int64)
    keys = np.full(alive.size, -1, np.int64)
    for j in range(alive.size):
        if not alive[j]:
            continue
        key = 0
        for t in range(indptr[j], indptr[j + 1]):
            mark[task_machine[t]] = j
            key = max(key, tau[task_machine[t]] - task_time[t])
        r = 0
        while r < m and mark[rank[r]] == j:  # the most loaded machine j has no task on
            r += 1
        if r < m:
            key = max(key, tau[rank[r]])
        keys[j] = key
    return keys


# -- list scheduling per machine (FIFO, SPTF, LUF; §VII) ---------------------------------------------------

KEY_COL, JOB_COL, TASK_COL = range(3)  # columns of the class heaps' key rows


@njit(cache=True)
def list_schedule_kernel(m_ptr, m_task, task_job, task_time, arrival, key, klass, n_classes, weight, offset):
    """Non-preemptive list scheduling, machine by machine: whenever machine i is free it starts, among the
    tasks of arrived jobs, the best one; idle until the next arrival when none waits.

    Tasks are grouped in classes; within a class the best task has the smallest (`key`, job); across classes
    the best class head maximises weight[c] · (offset[c] − now − key[head]) (LUF: U_j at the task's
    completion). With one class this is the plain order of `key`. `m_task` lists each machine's tasks by arrival.
    Returns task_start. O(tasks · (log tasks + classes on the machine)).
    """
    start = np.empty(task_time.size, np.int64)
    # One heap per class in rows lo[c]..: (key, job, task) rows of `fairsched._kernels.heap`, float64 (a job id
    # and a task id are exact below 2**53). A job has one task per machine, so (key, job) already orders them.
    heap = np.empty((max(task_time.size, 1), 3))
    lo = np.zeros(n_classes + 1, np.int64)
    size = np.zeros(n_classes, np.int64)
    for i in range(m_ptr.size - 1):
        a, b = m_ptr[i], m_ptr[i + 1]
        lo[:] = 0
        for x in range(a, b):
            lo[klass[m_task[x]] + 1] += 1
        for c in range(n_classes):
            lo[c + 1] += lo[c]
        lo += a
        size[:] = 0
        now = 0
        nxt = a
        for _ in range(a, b):
            if nxt < b and all_empty(size) and arrival[task_job[m_task[nxt]]] > now:
                now = arrival[task_job[m_task[nxt]]]
            while nxt < b and arrival[task_job[m_task[nxt]]] <= now:
                t = m_task[nxt]
                c = klass[t]
                size[c] = heap_push(heap, lo[c], size[c], (key[t], float(task_job[t]), float(t)))
                nxt += 1
            c = _best_class(heap, lo, size, weight, offset, now)
            t = np.int64(heap[lo[c], TASK_COL])
            size[c] = heap_pop(heap, lo[c], size[c])
            start[t] = now
            now += task_time[t]
    return start


@njit(cache=True)
def all_empty(size):
    return not (size > 0).any()


@njit(cache=True)
def _best_class(heap, lo, size, weight, offset, now):
    """The class whose head has the largest weight[c] · (offset[c] − now − key); ties: the smaller job."""
    best = -1
    best_u = 0.0
    for c in range(size.size):
        if size[c] == 0:
            continue
        u = weight[c] * (offset[c] - now - heap[lo[c], KEY_COL])
        if best < 0 or u > best_u or (u == best_u and heap[lo[c], JOB_COL] < heap[lo[best], JOB_COL]):
            best, best_u = c, u
    return best


# -- online (§VII-B) ---------------------------------------------------------------------------------------


@njit(cache=True)
def commit_interval(plan, task_machine, task_time, ready, begin, end, task_start):
    """Run the plan (tasks grouped by machine, in planned order) from `begin`: each machine starts its tasks back
    to back from max(ready, begin); those starting before `end` are committed into `task_start` and the machine's
    `ready` moves to the end of its last committed task. Later tasks wait for the next plan."""
    x = 0
    while x < plan.size:
        i = task_machine[plan[x]]
        now = max(ready[i], begin)
        while x < plan.size and task_machine[plan[x]] == i:
            t = plan[x]
            if now < end:
                task_start[t] = now
                now += task_time[t]
                ready[i] = now
            x += 1
