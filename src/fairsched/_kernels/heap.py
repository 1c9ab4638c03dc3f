"""One binary min-heap over lexicographic keys: the event queues of every compiled engine (online, REF/RAND, MOSP,
openshop, backfill, the audit's replays).

A heap is the rows ``lo .. lo + n - 1`` of a *key matrix* ``keys`` of shape (capacity, K), int64 or float64 (numba
compiles one version per dtype). Rows are compared lexicographically, column 0 first, the next column breaking
ties, through the last one: ``keys[lo]`` is the smallest row. Every column takes part, so a payload column (a job
id) is also the final tie-break, and when the rows of a heap are distinct the order in which they are popped is
the sorted order of the rows, whatever the order of the pushes: ties never depend on insertion order (the SimPy
rule of docs/STYLE 2.1). Each model's tie-break is just its choice of columns:

==========================  ==========================================  ========================================
queue                       key row                                     why this order
==========================  ==========================================  ========================================
online engine, completions  (end, sequential job id)                    a fixed order of simultaneous ends
REF/RAND, per coalition     (end, owner organization)                   rows equal in both are interchangeable
REF/RAND, coalitions        (next completion, coalition index)          indexed: a coalition's key changes
MOSP list scheduling        (end, width)                                equal ends are popped together
openshop, per class         (key, job, task)  float64                   (key, job) is the paper's order; a job
                                                                        has one task per machine
backfill terminations       (end, start, decision number, job)          the pyss README's order (§1); decision
                                                                        numbers are unique
audit coalition replays     (end, decision number, job)                 the same order, for FCFS + EASY
==========================  ==========================================  ========================================

The size ``n`` stays with the caller (a clock field, a per-coalition field, a per-class array), and several heaps
may share one matrix at different offsets ``lo`` (one per coalition, one per class): `heap_push` and `heap_pop`
take it and return the new size. An *indexed* heap also keeps ``pos[item]``, the position (relative to ``lo``) of
the row whose last column is ``item`` (int64 keys only), so that `heap_replace` can change one item's key.

Every function is inlined into its caller (``inline="always"``): a non-inlined call costs two atomic reference
counts per array argument, which in the coalition loop took more than half the run time (see
`fairsched.online._coalitions.lockstep`). Numba checks a cached function against its own source file only, so
the callers' caches would outlive an edit here; `fairsched._numba_cache_dir` keys the whole cache on every numba
module instead (with ``NUMBA_CACHE_DIR`` set by hand, delete the cache after editing this module).

Slow twin: Python's `heapq` on tuples (``tests/naive/heap_naive.py``, ``tests/test_kernels.py``).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def key_less(keys, i, j):
    """Row i < row j in lexicographic order (False when the rows are equal)."""
    for c in range(keys.shape[1]):
        if keys[i, c] != keys[j, c]:
            return keys[i, c] < keys[j, c]
    return False


@njit(cache=True, inline="always")
def _swap(keys, lo, i, j, pos):
    """Swap rows lo + i and lo + j, and their items' positions when `pos` is given."""
    for c in range(keys.shape[1]):
        keys[lo + i, c], keys[lo + j, c] = keys[lo + j, c], keys[lo + i, c]
    if pos is not None:
        last = keys.shape[1] - 1
        pos[keys[lo + i, last]] = i
        pos[keys[lo + j, last]] = j


@njit(cache=True, inline="always")
def _sift_up(keys, lo, i, pos):
    """Move row lo + i up while it is smaller than its parent; return its final position."""
    while i > 0:
        parent = (i - 1) // 2
        if not key_less(keys, lo + i, lo + parent):
            break
        _swap(keys, lo, i, parent, pos)
        i = parent
    return i


@njit(cache=True, inline="always")
def _sift_down(keys, lo, n, i, pos):
    """Move row lo + i down while a child is smaller (the smaller child goes up; the left one on a tie)."""
    while True:
        child = 2 * i + 1
        if child >= n:
            return
        if child + 1 < n and key_less(keys, lo + child + 1, lo + child):
            child += 1
        if not key_less(keys, lo + child, lo + i):
            return
        _swap(keys, lo, i, child, pos)
        i = child


@njit(cache=True, inline="always")
def heap_push(keys, lo, n, key):
    """Add the row `key` (a tuple of K values) to the heap of size n at offset lo; return n + 1.

    The matrix needs a row ``lo + n``. O(K log n).
    """
    for c in range(keys.shape[1]):
        keys[lo + n, c] = key[c]
    _sift_up(keys, lo, n, None)
    return n + 1


@njit(cache=True, inline="always")
def heap_pop(keys, lo, n):
    """Remove the smallest row ``keys[lo]`` (the caller has read it) from the heap of size n >= 1; return n - 1.

    O(K log n).
    """
    n -= 1
    for c in range(keys.shape[1]):
        keys[lo, c] = keys[lo + n, c]
    _sift_down(keys, lo, n, 0, None)
    return n


@njit(cache=True, inline="always")
def heap_replace(keys, lo, n, i, key, pos):
    """Indexed heap: overwrite row lo + i with `key` (its last value: the row's item, unchanged) and restore the
    order, keeping ``pos[item]`` = each moved row's position. O(K log n)."""
    for c in range(keys.shape[1]):
        keys[lo + i, c] = key[c]
    _sift_down(keys, lo, n, _sift_up(keys, lo, i, pos), pos)
