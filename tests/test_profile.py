"""The shared free-processor profile (`fairsched._kernels.profile`) against its slow twin
(tests/naive/profile_naive.py) on random operation sequences, and a case worked by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairsched._kernels import profile
from tests.naive.profile_naive import NaiveProfile

HORIZON = 160  # every time of a script stays below it (the twin's list)
P = 6  # processors


class FastProfile:
    """One row of the compiled profile with its size, as backfilling (merged) or MOSP (not) keeps it."""

    def __init__(self, capacity: int, *, merge: bool) -> None:
        self.times = np.zeros(capacity, np.int64)
        self.free = np.zeros(capacity, np.int64)
        self.free[0] = P
        self.m = 1
        self.merge = merge

    def row(self) -> tuple[list[int], list[int]]:
        return self.times[:self.m].tolist(), self.free[:self.m].tolist()


@st.composite
def scripts(draw: st.DrawFn) -> tuple[bool, list[tuple]]:
    """Merged or not, then operations with small times (many shared breakpoints) and deltas of both signs, each
    followed by the queries at a drawn time, width and length."""
    merge = draw(st.booleans())
    ops = []
    for _ in range(draw(st.integers(1, 30))):
        if draw(st.integers(0, 4)) == 0:
            change = ("archive", draw(st.integers(0, 50)))
        else:
            change = ("add", draw(st.integers(0, 50)), draw(st.integers(0, 12)), draw(st.integers(-3, 3)))
        query = (draw(st.integers(0, 60)), draw(st.integers(0, P + 1)), draw(st.integers(1, 12)),
                 draw(st.integers(0, 60)))
        ops.append((change, query))
    return merge, ops


def _check_queries(fast: FastProfile, naive: NaiveProfile, query: tuple[int, int, int, int]) -> None:
    origin = naive.origin
    t0, width, length, span = max(query[0], origin), query[1], query[2], query[3]
    t, f, m = fast.times, fast.free, fast.m
    assert profile.find(t, m, t0) == max(k for k in range(m) if t[k] <= t0)
    assert profile.earliest_fit(t, f, m, t0, width, length) == naive.earliest_fit(t0, width, length)
    deadline = t0 + span
    assert (profile.latest_fit(t, f, m, width, length, deadline, origin)
            == naive.latest_fit(width, length, deadline, origin))
    assert profile.free_since(t, f, m, width, deadline) == naive.free_since(width, deadline)
    assert profile.min_free(t, f, m, t0, t0 + length) == naive.min_free(t0, t0 + length)


@given(scripts())
def test_profile_matches_its_slow_twin(script: tuple[bool, list[tuple]]) -> None:
    merge, ops = script
    fast, naive = FastProfile(2 * len(ops) + 4, merge=merge), NaiveProfile(P, HORIZON, merge=merge)
    for change, query in ops:
        origin = naive.origin
        if change[0] == "add":
            begin, length, delta = max(change[1], origin), change[2], change[3]
            fast.m = profile.add(fast.times, fast.free, fast.m, begin, begin + length, delta, merge)
            naive.add(begin, begin + length, delta)
        else:
            now = max(change[1], origin)
            fast.m = profile.archive(fast.times, fast.free, fast.m, now)
            naive.archive(now)
        assert fast.row() == naive.row()
        _check_queries(fast, naive, query)


def test_a_profile_worked_by_hand() -> None:
    """4 processors; occupy 3 on [2, 5), then 1 on [5, 7): free 4 | 1 | 3 | 4 with breakpoints 0, 2, 5, 7."""
    times, free = np.zeros(8, np.int64), np.zeros(8, np.int64)
    free[0] = 4
    m = profile.add(times, free, 1, 2, 5, -3, True)
    m = profile.add(times, free, m, 5, 7, -1, True)
    assert (times[:m].tolist(), free[:m].tolist()) == ([0, 2, 5, 7], [4, 1, 3, 4])
    assert profile.earliest_fit(times, free, m, 0, 2, 2) == 0  # [0, 2) has 4 free
    assert profile.earliest_fit(times, free, m, 0, 2, 3) == 5  # [2, 5) has 1 free; [5, 8) has >= 3
    assert profile.earliest_fit(times, free, m, 0, 4, 3) == 7  # 4 free on [0, 2) only, then from 7
    assert profile.earliest_fit(times, free, m, 0, 5, 1) == -1  # wider than the machine
    assert profile.latest_fit(times, free, m, 2, 2, 7, 0) == 5 and profile.latest_fit(times, free, m, 2, 3, 7, 0) == -1
    assert profile.free_since(times, free, m, 3, 9) == 5 and profile.free_since(times, free, m, 1, 9) == 0
    assert profile.min_free(times, free, m, 1, 6) == 1 and profile.min_free(times, free, m, 5, 9) == 3
    m = profile.add(times, free, m, 5, 7, 1, True)  # merged: [5, 7) joins the tail
    assert (times[:m].tolist(), free[:m].tolist()) == ([0, 2, 5], [4, 1, 4])
    m = profile.archive(times, free, m, 3)  # the row now starts at the segment holding 3
    assert (times[:m].tolist(), free[:m].tolist()) == ([2, 5], [1, 4])


@pytest.mark.parametrize("merge", [True, False])
def test_freeing_what_was_taken_merges_only_when_asked(merge: bool) -> None:
    times, free = np.zeros(6, np.int64), np.zeros(6, np.int64)
    free[0] = 2
    m = profile.add(times, free, 1, 1, 3, -1, merge)
    m = profile.add(times, free, m, 1, 3, 1, merge)
    assert times[:m].tolist() == ([0] if merge else [0, 1, 3]) and free[:m].tolist() == [2] * m
