"""The shared compiled primitives (`fairsched._kernels`) against their slow twins in tests/naive/ (the heap's:
Python's `heapq` on tuples)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fairsched._kernels.first_fit import first_fit
from fairsched._kernels.heap import heap_pop, heap_push, heap_replace
from tests.naive.first_fit_naive import first_fit_naive
from tests.naive.heap_naive import NaiveHeaps, indexed_minimum


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


# -- the shared heap (`fairsched._kernels.heap`) against heapq on tuples -----------------------------------------

@st.composite
def heap_scripts(draw: st.DrawFn) -> tuple[type, int, int, list[tuple[int, tuple[int, ...] | None]]]:
    """A dtype, K columns, a number of heaps sharing one matrix, and pushes (small values: many ties in every
    column) and pops (only of non-empty heaps)."""
    dtype = draw(st.sampled_from([np.int64, np.float64]))
    n_cols, n_heaps = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    sizes = [0] * n_heaps
    script: list[tuple[int, tuple[int, ...] | None]] = []
    for _ in range(draw(st.integers(0, 60))):
        heap = draw(st.integers(0, n_heaps - 1))
        if sizes[heap] > 0 and draw(st.booleans()):
            script.append((heap, None))
            sizes[heap] -= 1
        else:
            script.append((heap, tuple(draw(st.lists(st.integers(-2, 2), min_size=n_cols, max_size=n_cols)))))
            sizes[heap] += 1
    return dtype, n_cols, n_heaps, script


@given(heap_scripts())
def test_shared_heap_pops_what_heapq_pops(case: tuple[type, int, int, list]) -> None:
    dtype, n_cols, n_heaps, script = case
    capacity = max(1, sum(key is not None for _, key in script))  # every heap gets room for every push
    keys = np.full((capacity * n_heaps, n_cols), 99, dtype=dtype)
    sizes = [0] * n_heaps
    twin = NaiveHeaps(n_heaps)
    for heap, key in script:
        lo = heap * capacity
        if key is None:
            popped = tuple(keys[lo].tolist())
            sizes[heap] = heap_pop(keys, lo, sizes[heap])
            assert popped == twin.pop(heap)
        else:
            sizes[heap] = heap_push(keys, lo, sizes[heap], tuple(dtype(value) for value in key))
            twin.push(heap, key)
    for heap in range(n_heaps):  # drain: the rest comes out in sorted order too
        lo = heap * capacity
        while sizes[heap]:
            popped = tuple(keys[lo].tolist())
            sizes[heap] = heap_pop(keys, lo, sizes[heap])
            assert popped == twin.pop(heap)
        assert not twin.heaps[heap]


def test_shared_heap_breaks_ties_by_the_next_column_by_hand() -> None:
    keys = np.zeros((4, 2), dtype=np.int64)
    n = 0
    for row in ((5, 3), (5, 1), (2, 9), (5, 2)):
        n = heap_push(keys, 0, n, row)
    popped = []
    while n:
        popped.append(tuple(keys[0].tolist()))
        n = heap_pop(keys, 0, n)
    assert popped == [(2, 9), (5, 1), (5, 2), (5, 3)]


@given(st.integers(1, 8), st.lists(st.tuples(st.integers(0, 7), st.integers(0, 4)), max_size=40))
def test_indexed_heap_tracks_positions_and_the_minimum(n_items: int, updates: list[tuple[int, int]]) -> None:
    """Rows (key, item), ``pos[item]`` = its row: after every re-key the root is the smallest (key, item), and
    every position is right."""
    rows = np.column_stack((np.full(n_items, 10), np.arange(n_items))).astype(np.int64)  # sorted: a heap already
    pos = np.arange(n_items, dtype=np.int64)
    twin = dict.fromkeys(range(n_items), 10)
    for item, key in updates:
        item %= n_items
        heap_replace(rows, 0, n_items, pos[item], (np.int64(key), np.int64(item)), pos)
        twin[item] = key
        assert tuple(rows[0].tolist()) == indexed_minimum(twin)
        assert [int(rows[pos[i], 1]) for i in range(n_items)] == list(range(n_items))
        assert sorted(map(tuple, rows.tolist())) == sorted((k, i) for i, k in twin.items())
