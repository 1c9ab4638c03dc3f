"""Steps the fair-share family and DIRECTCONTR build on (pybatsim-style shared filler).

`lowest_ratio_first` orders organizations exactly by usage / share; `fill_in_order` lets each organization,
in priority order, take machines until its queue is empty.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cmp_to_key

import numpy as np


def lowest_ratio_first(usage: Sequence[int], shares: Sequence[int], candidates: Sequence[int]) -> list[int]:
    """`candidates` sorted by ``usage[u] / shares[u]`` ascending, compared exactly; ties: lowest index.

    The share of u is m(u) / m; the common factor m cancels, so `shares` may be m(u) itself. Ratios are
    compared by cross-multiplying Python ints (usage may be psi, up to ~1e18: floats would merge distinct
    ratios and int64 products would overflow). An organization with share 0 has an infinite ratio: it
    comes after every organization with a positive share, and such organizations keep index order.
    `candidates` must be ascending (the stable sort then breaks ties by index).

    >>> lowest_ratio_first([6, 6, 0], [1, 2, 0], [0, 1, 2])   # ratios 6, 3, inf
    [1, 0, 2]
    """
    positive = [u for u in candidates if shares[u] > 0]
    infinite = [u for u in candidates if shares[u] <= 0]

    def compare(a: int, b: int) -> int:
        lhs, rhs = usage[a] * shares[b], usage[b] * shares[a]  # usage[a]/shares[a] vs usage[b]/shares[b]
        return (lhs > rhs) - (lhs < rhs)

    positive.sort(key=cmp_to_key(compare))
    return positive + infinite


def fill_in_order(order: Sequence[int], waiting: Sequence[int] | np.ndarray, n_to_start: int) -> np.ndarray:
    """One organization per job to start: ``order[0]`` takes all its waiting jobs, then ``order[1]``, ...

    This is what "start a job of the best organization" does, job after job, when the priorities do not
    change within one decision (a job started at t adds no usage before t + 1). O(len(order) + n_to_start).

    >>> fill_in_order([2, 0], [5, 0, 2], 4).tolist()
    [2, 2, 0, 0]
    """
    if n_to_start == 0:
        return np.empty(0, dtype=np.int64)
    if waiting[order[0]] >= n_to_start:  # the common case: one organization fills every free machine
        return np.full(n_to_start, order[0], dtype=np.int64)
    takes: list[int] = []
    left = n_to_start
    for u in order:
        take = min(int(waiting[u]), left)
        takes.append(take)
        left -= take
        if left == 0:
            break
    return np.repeat(np.asarray(order[:len(takes)], dtype=np.int64), takes)
