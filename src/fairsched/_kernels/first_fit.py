"""First-fit processor assignment: the compiled kernel shared by the Gantt charts of the backfill and MOSP reports.

The models count processors and never name them (JSSPP'05 §4, TPDS'11 §2); drawing a schedule needs names, and
first fit in order of start time gives every job the lowest-numbered processors free when it starts.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def first_fit(order: np.ndarray, start: np.ndarray, end: np.ndarray, procs: np.ndarray, n_processors: int,
                      offsets: np.ndarray, out: np.ndarray) -> int:
    """Give each job, in `order`, the lowest-numbered processors free at its start; return -1, or the position in
    `order` of the first job that did not fit.

    Job j needs ``procs[j]`` of the `n_processors` processors during ``[start[j], end[j])``; its processors go to
    ``out[offsets[j]:offsets[j] + procs[j]]``, increasing. O(n·P) for n jobs. Slow twin:
    ``tests/naive/first_fit_naive.py``.

    ``free_at[p]`` is the end of the last job given processor p (-inf: never used); p is free at t iff
    free_at[p] <= t, so a job ending at t frees its processors for a job starting at t.
    """
    free_at = np.full(n_processors, -np.inf)
    for k in range(order.size):
        j = order[k]
        pos = offsets[j]
        need = procs[j]
        for p in range(n_processors):
            if need == 0:
                break
            if free_at[p] <= start[j]:
                free_at[p] = end[j]
                out[pos] = p
                pos += 1
                need -= 1
        if need > 0:
            return k
    return -1
