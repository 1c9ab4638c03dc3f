"""Slow twin of `fairsched._kernels.heap`: Python's `heapq` on tuples, which compares them lexicographically."""

from __future__ import annotations

import heapq


class NaiveHeaps:
    """Several heaps of key tuples (one list each), with the shared heap's push / pop-the-minimum protocol."""

    def __init__(self, n_heaps: int) -> None:
        self.heaps: list[list[tuple[float, ...]]] = [[] for _ in range(n_heaps)]

    def push(self, heap: int, key: tuple[float, ...]) -> None:
        heapq.heappush(self.heaps[heap], key)

    def pop(self, heap: int) -> tuple[float, ...]:
        """Remove and return the smallest tuple of `heap`."""
        return heapq.heappop(self.heaps[heap])


def indexed_minimum(keys: dict[int, float]) -> tuple[float, int]:
    """The smallest (key, item) of an indexed heap whose items' keys are `keys`."""
    return min((key, item) for item, key in keys.items())
