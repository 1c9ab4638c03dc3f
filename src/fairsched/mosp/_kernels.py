"""Compiled primitives of the MOSP engine: list scheduling on one cluster and idle profiles of clusters.

Plain int64 arrays and scalars only. Two structures (list scheduling keeps its running jobs in the shared heap of
`fairsched._kernels.heap`, rows (end, width)):

- the *candidate tree*: a min-segment tree over the positions of a job list, holding each waiting job's width
  (``_TREE_INF`` once placed). ``_tree_first_leq(tree, lo, x)`` finds the first waiting job at or after list
  position ``lo`` with width <= x in O(log n), which turns Graham's "first job of the list that fits" into
  O(n log n) overall instead of a rescan of the list at every event.
- the *idle profiles* ``(times, idle, size)`` of N clusters: row c is one profile of the shared
  `fairsched._kernels.profile` (a step function, segment i covering ``[times[c, i], times[c, i + 1])``, the last
  segment running to infinity, with ``idle[c, i]`` idle processors). ``times[c, 0] = 0`` and the last segment has
  every processor idle. A reservation of q processors on ``[s, s + p)`` adds at most two breakpoints, so a row of
  capacity ``1 + 2 r`` holds r reservations.

Arrays are shifted element by element in explicit loops: numba's slice assignment is not guaranteed to handle
overlapping source and destination.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fairsched._kernels import profile
from fairsched._kernels.heap import heap_pop, heap_push

_TREE_INF = np.iinfo(np.int64).max


# -- candidate tree -----------------------------------------------------------------------------------------

@njit(cache=True)
def _tree_build(values):
    """Min-segment tree over `values` (leaves at [size, 2 size), padding = _TREE_INF); returns (tree, size)."""
    size = 1
    while size < values.size:
        size *= 2
    tree = np.full(2 * size, _TREE_INF, dtype=np.int64)
    for i in range(values.size):
        tree[size + i] = values[i]
    for i in range(size - 1, 0, -1):
        tree[i] = min(tree[2 * i], tree[2 * i + 1])
    return tree, size


@njit(cache=True)
def _tree_remove(tree, size, pos):
    """Mark list position `pos` as placed."""
    i = size + pos
    tree[i] = _TREE_INF
    i //= 2
    while i >= 1:
        tree[i] = min(tree[2 * i], tree[2 * i + 1])
        i //= 2


@njit(cache=True)
def _tree_first_leq(tree, size, lo, x):
    """First list position >= lo whose value is <= x, or -1."""
    if lo >= size:
        return -1
    i = size + lo
    while True:
        if tree[i] <= x:
            while i < size:  # descend to the leftmost qualifying leaf
                i = 2 * i if tree[2 * i] <= x else 2 * i + 1
            return i - size
        while i & 1:  # a right child: climb until we are a left child, whose right sibling is next
            i >>= 1
            if i == 0:
                return -1
        i += 1


# -- Graham list scheduling on one cluster -----------------------------------------------------------------

@njit(cache=True)
def list_schedule_kernel(runtime, width, m, order):  # pragma: no cover - jit
    """Graham's list scheduling (TPDS'11 §3.1) of jobs ``order`` on m processors; returns start times.

    At time t with m' idle processors, start the first job of the list with q <= m' (repeat); otherwise advance
    to the next completion. Requires 1 <= width <= m (else the loop would never place the job).
    """
    n = order.size
    start = np.zeros(runtime.size, dtype=np.int64)
    tree, size = _tree_build(width[order])
    running = np.empty((n, 2), np.int64)  # heap of (end, width) rows (`fairsched._kernels.heap`)
    n_running = 0
    t, idle, left = 0, m, n
    while left > 0:
        pos = _tree_first_leq(tree, size, 0, idle)
        while pos >= 0:
            j = order[pos]
            start[j] = t
            idle -= width[j]
            n_running = heap_push(running, 0, n_running, (t + runtime[j], width[j]))
            _tree_remove(tree, size, pos)
            left -= 1
            pos = _tree_first_leq(tree, size, pos + 1, idle)  # earlier positions did not fit with more idle
        if left == 0:
            break
        t = running[0, 0]
        while n_running > 0 and running[0, 0] == t:  # every job ending at t: their order does not matter
            idle += running[0, 1]
            n_running = heap_pop(running, 0, n_running)
    return start


# -- idle profiles ------------------------------------------------------------------------------------------
# Row c of (times, idle, size) is one profile of `fairsched._kernels.profile` (never merged); these wrappers keep
# the (times, idle, size, c) signature of their callers.

@njit(cache=True)
def segment_at(times, size, c, t):
    """Index of the segment of row c containing time t >= 0 (binary search)."""
    return profile.find(times[c], size[c], t)


@njit(cache=True)
def earliest_fit(times, idle, size, c, q, p, t0):
    """Earliest s >= t0 with at least q idle processors on cluster c during [s, s + p) (ILBA's "earliest strip",
    TPDS'11 §6.1); -1 when q exceeds the cluster (the last segment, all idle, has fewer than q processors)."""
    return profile.earliest_fit(times[c], idle[c], size[c], t0, q, p)


@njit(cache=True)
def latest_fit(times, idle, size, c, q, p, deadline, t_min):
    """Latest s with t_min <= s, s + p <= deadline and at least q idle processors on cluster c during [s, s + p);
    -1 when there is none (backwards placement from a deadline, TPDS'11 Algorithms 2 and 4)."""
    return profile.latest_fit(times[c], idle[c], size[c], q, p, deadline, t_min)


@njit(cache=True)
def idle_since(times, idle, size, c, q, deadline):
    """C^{>=q}: the earliest t such that at least q processors of cluster c stay idle on [t, deadline)
    (TPDS'11 §4.3); `deadline` itself when fewer than q are idle just before it, 0 when q are idle throughout."""
    return profile.free_since(times[c], idle[c], size[c], q, deadline)


@njit(cache=True)
def min_idle(times, idle, size, c, t0, t1):
    """Fewest idle processors of cluster c over [t0, t1) (t0 < t1)."""
    return profile.min_free(times[c], idle[c], size[c], t0, t1)


@njit(cache=True)
def reserve(times, idle, size, c, s, p, q):
    """Take q processors of cluster c during [s, s + p). Returns False, changing nothing, when the row lacks room
    for two more breakpoints; the caller checks beforehand that q processors are idle (`min_idle`)."""
    if size[c] + 2 > times.shape[1]:
        return False
    size[c] = profile.add(times[c], idle[c], size[c], s, s + p, -q, False)
    return True


@njit(cache=True)
def reserve_jobs(times, idle, size, cluster, start, runtime, width):
    """Reserve every job with cluster >= 0 (rows must have room); used to build profiles of kept jobs."""
    for j in range(cluster.size):
        if cluster[j] >= 0:
            reserve(times, idle, size, cluster[j], start[j], runtime[j], width[j])


# -- backwards list scheduling over several clusters ------------------------------------------------------

@njit(cache=True)
def _previous_breakpoint(times, size, clusters, e):
    """Largest breakpoint < e over the given clusters (0 when none: every profile starts at 0)."""
    best = 0
    for c in clusters:
        i = segment_at(times, size, c, e - 1)
        best = max(best, times[c, i])
    return best


@njit(cache=True)
def _max_idle_before(times, idle, size, clusters, e):
    best = 0
    for c in clusters:
        best = max(best, idle[c, segment_at(times, size, c, e - 1)])
    return best


@njit(cache=True)
def _place_backwards(times, idle, size, clusters, procs, q, p, e):
    """First cluster (in `clusters` order) with q processors idle on [e - p, e); -1 if none."""
    for c in clusters:
        if q <= procs[c] and min_idle(times, idle, size, c, e - p, e) >= q:
            reserve(times, idle, size, c, e - p, p, q)
            return c
    return -1


@njit(cache=True)
def backward_list_kernel(times, idle, size, procs, runtime, width, order, deadline, clusters,
                         out_cluster, out_start):  # pragma: no cover - jit
    """Graham's list scheduling in reversed time tau = deadline - t over several clusters' idle profiles.

    At each candidate end e (deadline, then every earlier breakpoint of any cluster, decreasing), start in
    reverse the first job of `order` that fits on some cluster during [e - p, e), on the first such cluster of
    `clusters`; repeat; then move e to the previous breakpoint. Jobs placed get out_cluster >= 0; jobs that
    never fit keep out_cluster = -1. Profiles are updated in place (rows need room for 2 more breakpoints per
    job).
    """
    tree, tsize = _tree_build(width[order])
    left = order.size
    e = deadline
    while left > 0 and e > 0:
        pos = _tree_first_leq(tree, tsize, 0, _max_idle_before(times, idle, size, clusters, e))
        while pos >= 0:
            j = order[pos]
            if runtime[j] > e:  # e only decreases: this job can never fit any more
                _tree_remove(tree, tsize, pos)
                left -= 1
            else:
                c = _place_backwards(times, idle, size, clusters, procs, width[j], runtime[j], e)
                if c >= 0:
                    out_cluster[j], out_start[j] = c, e - runtime[j]
                    _tree_remove(tree, tsize, pos)
                    left -= 1
            pos = _tree_first_leq(tree, tsize, pos + 1, _max_idle_before(times, idle, size, clusters, e))
        e = _previous_breakpoint(times, size, clusters, e)
