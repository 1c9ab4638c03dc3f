"""One free-processor profile: a step function of time kept as breakpoints, for backfilling and MOSP.

A profile is one *row*: ``times[:m]`` (int64, strictly increasing) and ``free[:m]``, segment k covering
``[times[k], times[k + 1])`` with ``free[k]`` free processors, the last segment running to infinity. The size
``m`` stays with the caller (a clock field, a per-cluster array), as the heap's size does
(`fairsched._kernels.heap`): the functions that change the row take it and return the new size, and the caller
guarantees room for two more breakpoints. Two users:

==========================================  ==================================================================
user                                        its rows
==========================================  ==================================================================
conservative backfilling                    one row, ``prof[P_TIME]`` and ``prof[P_FREE]`` with its size in
(`fairsched.backfill._kernels`, ``prof_*``)  ``clock[N_PROF]`` (`fairsched.backfill.view`); adjacent segments with
                                            equal counts are merged (`add` with ``merge=True``) and the past is
                                            archived (`archive`), so it stays small
MOSP idle profiles                          one row per cluster, ``times[c]``, ``idle[c]``, ``size[c]``, rows of
(`fairsched.mosp._kernels`)                 a fixed capacity, never merged (the backward list scheduler walks
                                            every breakpoint); earliest and latest fit, C^{>=q}
==========================================  ==================================================================

Queries take ``t >= times[0]``. Every function is inlined into its caller (``inline="always"``, as the heap's:
a non-inlined call costs reference counts per array argument); numba checks cached machine code against the
caller's file only, so `fairsched._numba_cache_dir` keys the cache on every numba module.

Arrays are shifted element by element in explicit loops: numba's slice assignment is not guaranteed to handle
overlapping source and destination.

Slow twin: ``tests/naive/profile_naive.py`` (a list of segments), compared on random operation sequences in
``tests/test_profile.py``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

TIME_INF = np.iinfo(np.int64).max // 4  # "no later breakpoint": far above any time, safe to add a duration to


@njit(cache=True, inline="always")
def find(times, m, t):
    """Index k of the segment holding t: ``times[k] <= t < times[k + 1]`` (binary search; t >= times[0]).

    Branch-free (the step is a conditional move): conservative backfilling's incremental compression calls it
    for every blocking time of every certificate, where a mispredicted branch per halving cost more than the
    comparisons. O(log m).
    """
    lo = 0
    n = m
    while n > 1:
        half = n >> 1
        lo = lo + half if times[lo + half] <= t else lo
        n -= half
    return lo


@njit(cache=True, inline="always")
def segment_end(times, m, k):
    """End of segment k: the next breakpoint, `TIME_INF` for the last segment."""
    return times[k + 1] if k + 1 < m else TIME_INF


@njit(cache=True, inline="always")
def split(times, free, m, t):
    """Make t a breakpoint (the new segment copies the count of the one it cuts); return (its index, new m)."""
    k = find(times, m, t)
    if times[k] == t:
        return k, m
    for i in range(m, k + 1, -1):
        times[i] = times[i - 1]
        free[i] = free[i - 1]
    times[k + 1] = t
    free[k + 1] = free[k]
    return k + 1, m + 1


@njit(cache=True, inline="always")
def drop(times, free, m, k):
    """Remove breakpoint k >= 1 (its segment joins the previous one); return m - 1."""
    for i in range(k + 1, m):
        times[i - 1] = times[i]
        free[i - 1] = free[i]
    return m - 1


@njit(cache=True, inline="always")
def add(times, free, m, begin, end, delta, merge):
    """Add `delta` free processors over [begin, end) (negative: occupy); return the new size.

    Nothing changes when end <= begin. With `merge`, the breakpoints at begin and end are dropped again when
    they no longer separate different counts. O(m) (the shifts), plus O(log m).
    """
    if end <= begin:
        return m
    a, m = split(times, free, m, begin)
    b, m = split(times, free, m, end)
    for k in range(a, b):
        free[k] += delta
    if merge:
        if b < m and free[b] == free[b - 1]:
            m = drop(times, free, m, b)
        if a > 0 and free[a] == free[a - 1]:
            m = drop(times, free, m, a)
    return m


@njit(cache=True, inline="always")
def archive(times, free, m, now):
    """Forget the segments that end at or before `now` (the past never matters again); return the new size."""
    k = find(times, m, now)
    if k == 0:
        return m
    for i in range(k, m):
        times[i - k] = times[i]
        free[i - k] = free[i]
    return m - k


@njit(cache=True, inline="always")
def earliest_fit(times, free, m, t0, width, length):
    """Earliest t >= t0 with at least `width` free processors during all of [t, t + length); -1 when the last
    segment (which runs forever) has fewer. O(segments scanned).

    Candidates are t0 and the ends of segments too full: when segment k blocks the window, the next candidate
    is where segment k + 1 begins (conservative backfilling's reservation, pyss README §5; ILBA's "earliest
    strip", TPDS'11 §6.1).
    """
    if free[m - 1] < width:
        return -1
    k = find(times, m, t0)
    t = t0
    while k < m and times[k] < t + length:
        if free[k] < width:
            t = times[k + 1]
        k += 1
    return t


@njit(cache=True, inline="always")
def latest_fit(times, free, m, width, length, deadline, t_min):
    """Latest s with t_min <= s, s + length <= deadline and at least `width` free processors during
    [s, s + length); -1 when there is none (backwards placement from a deadline, TPDS'11 Algorithms 2 and 4)."""
    e = deadline  # candidate end of the strip
    if e - length < t_min:
        return -1
    i = find(times, m, e - 1) if e > times[0] else 0
    while True:
        if free[i] < width:  # the strip must end at or before this segment's start
            e = times[i]
            if e - length < t_min:
                return -1
        elif times[i] <= e - length:
            return e - length
        i -= 1
        if i < 0:
            return -1


@njit(cache=True, inline="always")
def free_since(times, free, m, width, deadline):
    """The earliest t such that at least `width` processors stay free on [t, deadline) (TPDS'11 §4.3's
    C^{>=q}); `deadline` itself when fewer are free just before it, times[0] when enough are free throughout."""
    if deadline <= times[0]:
        return deadline
    i = find(times, m, deadline - 1)
    while i >= 0 and free[i] >= width:
        i -= 1
    return times[0] if i < 0 else min(segment_end(times, m, i), deadline)


@njit(cache=True, inline="always")
def min_free(times, free, m, t0, t1):
    """Fewest free processors over [t0, t1) (t0 < t1). O(log m + segments scanned)."""
    i = find(times, m, t0)
    low = free[i]
    while segment_end(times, m, i) < t1:
        i += 1
        low = min(low, free[i])
    return low
