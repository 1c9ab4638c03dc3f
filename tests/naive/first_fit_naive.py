"""Slow twin of `fairsched._kernels.first_fit.first_fit`: the same first fit, written as plainly as possible."""

from __future__ import annotations


def first_fit_naive(starts: list[float], ends: list[float], procs: list[int],
                    n_processors: int) -> list[list[int]] | None:
    """Processors of each job (jobs taken by start time, ties by index), or None if one does not fit.

    A processor is free for a job starting at t when every job given it so far ends at or before t.
    """
    order = sorted(range(len(starts)), key=lambda j: (starts[j], j))
    busy_until = [float("-inf")] * n_processors
    given: list[list[int]] = [[] for _ in starts]
    for j in order:
        free = [p for p in range(n_processors) if busy_until[p] <= starts[j]]
        if len(free) < procs[j]:
            return None
        for p in free[:procs[j]]:
            busy_until[p] = ends[j]
            given[j].append(p)
    return given
