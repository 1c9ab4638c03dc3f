"""The one random machine order shared by DIRECTCONTR and its time-stepped twin (tests/naive).

PPAM'13 Algorithm 1, line 9 (and SPAA'13 Algorithm 4, line 12) visit "a random permutation of the set of
all processors" at each scheduling event and give waiting jobs to the *free* ones in that order. Only the
order of the free machines matters (busy ones are skipped), and only its first ``count`` entries (one per
job started), so we draw exactly that: the first ``count`` entries of a uniformly random permutation of the
free machines, by a partial Fisher–Yates shuffle. Every caller goes through `random_machine_order`, so the
engine-driven policy and the naive twin consume random numbers identically and can be compared job for job.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Below this many draws a plain Python loop over a sparse swap table beats copying all free machine ids
# into a numba kernel (both compute the same Fisher–Yates swaps; tests compare them).
_SPARSE_MAX_COUNT = 4


def random_machine_order(free_sorted: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """The first `count` machines of a uniformly random permutation of `free_sorted`.

    Implements the random processor order of PPAM'13 Algorithm 1, line 9 / SPAA'13 Algorithm 4, line 12,
    restricted to the free machines (see the module docstring for why this is the same distribution).

    Parameters
    ----------
    free_sorted : int array of free machine ids, ascending (e.g. ``OnlineView.free_machines()``).
    count : machines wanted, ``0 <= count <= free_sorted.size``.
    rng : the generator to draw from; exactly one call ``rng.random(count)`` is made.

    Returns
    -------
    int64 array (count,) of distinct ids from `free_sorted`.

    Notes
    -----
    Step i swaps position i with position ``i + floor(u_i * (n - i))`` for the i-th draw u_i in [0, 1)
    (Knuth's Algorithm P, stopped after `count` steps). O(count) for small counts, else O(n) (one copy).

    Examples
    --------
    >>> order = random_machine_order(np.array([2, 5, 7]), 3, np.random.default_rng(0))
    >>> sorted(order.tolist())
    [2, 5, 7]
    """
    free = np.asarray(free_sorted, dtype=np.int64)
    n = free.size
    if not 0 <= count <= n:
        raise ValueError(f"cannot pick {count} machines out of {n} free ones")
    draws = rng.random(count)
    if count == 1:  # the usual decision under contention; the swap of step 0 below
        return free[min(int(draws[0] * n), n - 1):][:1].copy()
    if count <= _SPARSE_MAX_COUNT:
        return _partial_fisher_yates_sparse(free, draws)
    return _partial_fisher_yates_kernel(free.copy(), draws)


def _partial_fisher_yates_sparse(free: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Same swaps as the kernel, recording only the touched positions (no O(n) copy)."""
    n = free.size
    moved: dict[int, int] = {}  # position -> id now there, for positions a swap has touched
    out = np.empty(draws.size, dtype=np.int64)
    for i, u in enumerate(draws.tolist()):
        j = min(i + int(u * (n - i)), n - 1)  # min() guards u * (n - i) rounding up to n - i
        at_j = moved.get(j, int(free[j]))
        moved[j] = moved.get(i, int(free[i]))
        out[i] = at_j
    return out


@njit(cache=True)
def _partial_fisher_yates_kernel(free: np.ndarray, draws: np.ndarray) -> np.ndarray:  # pragma: no cover - jit
    """Partial Fisher–Yates on `free` (int64, modified in place) with uniform `draws` in [0, 1)."""
    n = free.size
    for i in range(draws.size):
        j = i + int(draws[i] * (n - i))
        if j > n - 1:
            j = n - 1
        tmp = free[i]
        free[i] = free[j]
        free[j] = tmp
    return free[:draws.size].copy()
