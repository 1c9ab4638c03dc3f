"""The shared compiled primitives (`fairsched._kernels`) against their slow twins in tests/naive/."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fairsched._kernels.first_fit import first_fit
from tests.naive.first_fit_naive import first_fit_naive


@st.composite
def jobs(draw: st.DrawFn) -> tuple[list[int], list[int], list[int], int]:
    n_processors = draw(st.integers(1, 6))
    n = draw(st.integers(0, 25))
    starts = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    lengths = draw(st.lists(st.integers(0, 10), min_size=n, max_size=n))
    procs = draw(st.lists(st.integers(1, n_processors), min_size=n, max_size=n))
    return starts, [s + d for s, d in zip(starts, lengths, strict=True)], procs, n_processors


@given(jobs())
def test_first_fit_matches_its_slow_twin(case: tuple[list[int], list[int], list[int], int]) -> None:
    starts, ends, procs, n_processors = case
    start, end = np.asarray(starts, np.float64), np.asarray(ends, np.float64)
    need = np.asarray(procs, np.int64)
    offsets = np.concatenate([[0], np.cumsum(need)]).astype(np.int64)
    out = np.empty(int(offsets[-1]), np.int64)
    order = np.argsort(start, kind="stable")
    failed = first_fit(order, start, end, need, n_processors, offsets, out)
    expected = first_fit_naive(starts, ends, procs, n_processors)
    assert (failed >= 0) == (expected is None)
    if expected is not None:
        assert [out[offsets[j]:offsets[j + 1]].tolist() for j in range(len(starts))] == expected
        # and the assignment is feasible: no processor runs two overlapping jobs
        for j in range(len(starts)):
            for k in range(j):
                if starts[j] < ends[k] and starts[k] < ends[j]:
                    assert not set(expected[j]) & set(expected[k])


def test_first_fit_reports_the_job_that_does_not_fit() -> None:
    start, end = np.array([0.0, 0.0, 1.0]), np.array([5.0, 5.0, 2.0])
    need = np.array([1, 1, 1])
    offsets = np.array([0, 1, 2, 3])
    out = np.empty(3, np.int64)
    assert first_fit(np.arange(3), start, end, need, 2, offsets, out) == 2
    assert first_fit(np.arange(3), start, end, need, 3, offsets, out) == -1
    assert out.tolist() == [0, 1, 2]
