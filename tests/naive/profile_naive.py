"""Slow twin of `fairsched._kernels.profile`: the free-processor count stored at every integer time.

Times are small integers (a test's horizon); beyond the horizon the count is the tail's, which no operation
changes (every addition covers a finite interval). Each query is its definition, scanned time unit by time
unit. The twin also keeps the breakpoints the fast row must have: with merging, exactly the times where the
count changes (and the first time); without, every begin and end of an addition.
"""

from __future__ import annotations


class NaiveProfile:
    """Free processors at each time t >= `origin`, as a list, plus the tail beyond `horizon`."""

    def __init__(self, n_processors: int, horizon: int, *, merge: bool) -> None:
        self.origin = 0
        self.horizon = horizon
        self.tail = n_processors
        self.counts = [n_processors] * horizon
        self.merge = merge
        self.cuts = {0}  # the breakpoints of an unmerged row

    def free(self, t: int) -> int:
        return self.counts[t] if t < self.horizon else self.tail

    def add(self, begin: int, end: int, delta: int) -> None:
        if end <= begin:
            return
        for t in range(begin, end):
            self.counts[t] += delta
        self.cuts |= {begin, end}

    def archive(self, now: int) -> None:
        """The row now starts at the breakpoint at or before `now`."""
        self.origin = max(t for t in self.breakpoints() if t <= now)
        self.cuts = {t for t in self.cuts if t >= self.origin}

    def breakpoints(self) -> list[int]:
        if not self.merge:
            return sorted(self.cuts)
        return [self.origin] + [t for t in range(self.origin + 1, self.horizon + 1)
                                if self.free(t) != self.free(t - 1)]

    def row(self) -> tuple[list[int], list[int]]:
        """(times, free) of the segments, as the fast row should hold them."""
        times = self.breakpoints()
        return times, [self.free(t) for t in times]

    def fits(self, start: int, width: int, length: int) -> bool:
        return all(self.free(t) >= width for t in range(start, start + length))

    def earliest_fit(self, t0: int, width: int, length: int) -> int:
        if self.tail < width:
            return -1
        t = t0
        while not self.fits(t, width, length):
            t += 1
        return t

    def latest_fit(self, width: int, length: int, deadline: int, t_min: int) -> int:
        for s in range(deadline - length, t_min - 1, -1):
            if self.fits(s, width, length):
                return s
        return -1

    def free_since(self, width: int, deadline: int) -> int:
        t = deadline
        while t > self.origin and self.free(t - 1) >= width:
            t -= 1
        return t

    def min_free(self, t0: int, t1: int) -> int:
        return min(self.free(t) for t in range(t0, t1))
