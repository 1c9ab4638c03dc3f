"""Instance generators: random instances, and Networking'20 Theorem 2's vertex-cover construction, whose optimal
number of jobs finishing in the second slot must equal a brute-force minimum vertex cover."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from fairsched.errors import ConfigError
from fairsched.openshop.generate import (
    random_instance,
    second_slot_jobs,
    vertex_cover_from_schedule,
    vertex_cover_instance,
)
from fairsched.openshop.instance import OpenShopSchedule
from fairsched.openshop.policies.exact import brute_force, lexicographic_milp


def min_vertex_cover(edges: list[tuple[int, int]], n_vertices: int) -> int:
    """Smallest |W| with every edge touching W, by trying every subset, smallest first."""
    for size in range(n_vertices + 1):
        for subset in itertools.combinations(range(n_vertices), size):
            chosen = set(subset)
            if all(u in chosen or v in chosen for u, v in edges):
                return size
    raise AssertionError("unreachable: V is a cover")


def random_graph(rng: np.random.Generator, n_vertices: int, p_edge: float) -> list[tuple[int, int]]:
    return [(u, v) for u, v in itertools.combinations(range(n_vertices), 2) if rng.random() < p_edge]


# -------------------------------------------------------------------------------------------------- random_instance


def test_random_instance_is_deterministic_per_seed() -> None:
    a = random_instance(20, 5, 3, arrivals=50, max_priority=4)
    b = random_instance(20, 5, np.random.default_rng(3), arrivals=50, max_priority=4)
    c = random_instance(20, 5, 4, arrivals=50, max_priority=4)
    assert np.array_equal(a.to_dense(), b.to_dense())
    assert np.array_equal(a.arrival, b.arrival) and np.array_equal(a.priority, b.priority)
    assert not np.array_equal(a.to_dense(), c.to_dense())


def test_random_instance_respects_its_parameters() -> None:
    inst = random_instance(300, 40, 9, density=0.25, max_time=7, arrivals=30, max_priority=3)
    dense = inst.to_dense()
    assert (dense.max(axis=1) >= 1).all()  # every job has a task
    assert dense.max() <= 7 and inst.task_time.min() >= 1
    assert 0.23 < inst.n_tasks / dense.size < 0.27
    assert (np.diff(inst.arrival) >= 0).all() and inst.arrival.min() >= 0 and inst.arrival.max() <= 30
    assert set(inst.priority.tolist()) == {1.0, 2.0, 3.0}
    full = random_instance(4, 3, 0, density=1.0)
    assert (full.to_dense() > 0).all()
    assert random_instance(4, 3, 0).arrival.tolist() == [0, 0, 0, 0]
    assert random_instance(3, 2, 0, arrivals=[5, 1, 3]).arrival.tolist() == [1, 3, 5]


def test_sparse_jobs_get_one_task() -> None:
    inst = random_instance(50, 4, 1, density=0.01)
    assert np.diff(inst.indptr).min() == 1


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"n_jobs": 0}, "n_jobs"), ({"density": 0.0}, "density"), ({"density": 1.5}, "density"),
    ({"max_time": 0}, "max_time"), ({"arrivals": -1}, "arrivals"), ({"arrivals": [1, 2]}, "arrivals"),
])
def test_random_instance_rejects_bad_parameters(kwargs: dict, match: str) -> None:
    params = {"n_jobs": 3, "n_machines": 2, "rng": 0} | kwargs
    with pytest.raises(ConfigError, match=match):
        random_instance(**params)


# ------------------------------------------------------------------------------------------------------ Theorem 2


def test_vertex_cover_instance_by_hand() -> None:
    # Triangle 0-1-2 plus pendant 3 on vertex 2; one dummy job.
    inst = vertex_cover_instance([(0, 1), (1, 2), (0, 2), (2, 3)], 4, n_dummy=1)
    assert inst.n_machines == 5 and inst.n_jobs == 5
    assert inst.to_dense().tolist() == [
        [1, 0, 1, 0, 0],
        [1, 1, 0, 0, 0],
        [0, 1, 1, 1, 0],
        [0, 0, 0, 1, 0],
        [0, 0, 0, 0, 1],
    ]
    schedule = brute_force(inst)
    assert schedule.completion.max() == 2  # two slots suffice
    assert second_slot_jobs(schedule) == 2 == min_vertex_cover([(0, 1), (1, 2), (0, 2), (2, 3)], 4)
    assert schedule.completion[4] == 1  # the dummy job finishes in the first slot


def test_second_slot_counts_completion_two_only() -> None:
    schedule = OpenShopSchedule(task_start=np.zeros(0, np.int64), completion=np.array([1, 2, 2, 3, 0]))
    assert second_slot_jobs(schedule) == 2
    assert vertex_cover_from_schedule(schedule, 3).tolist() == [1, 2]


def test_optimum_second_slot_equals_minimum_vertex_cover() -> None:
    """Networking'20 Theorem 2's reduction, checked by brute force on random small graphs."""
    rng = np.random.default_rng(2020)
    sizes = []
    for _ in range(20):
        n_vertices = int(rng.integers(2, 7))
        edges = random_graph(rng, n_vertices, float(rng.uniform(0.2, 0.9)))
        n_dummy = int(rng.integers(0, 9 - n_vertices))
        inst = vertex_cover_instance(edges, n_vertices, n_dummy=n_dummy)
        schedule = brute_force(inst)
        sizes.append(min_vertex_cover(edges, n_vertices))
        assert second_slot_jobs(schedule) == sizes[-1], (edges, n_dummy)
        cover = set(vertex_cover_from_schedule(schedule, n_vertices).tolist())
        assert all(u in cover or v in cover for u, v in edges)
        assert (schedule.completion[n_vertices:] == 1).all()
        assert schedule.completion.max() == (2 if edges else (1 if n_dummy else 0))
    assert min(sizes) <= 1 and max(sizes) >= 3  # the graphs are not all trivial


def test_milp_finds_the_minimum_vertex_cover_of_larger_graphs() -> None:
    rng = np.random.default_rng(7)
    for _ in range(3):
        edges = random_graph(rng, 11, 0.3)
        schedule = lexicographic_milp(vertex_cover_instance(edges, 11))
        assert second_slot_jobs(schedule) == min_vertex_cover(edges, 11)


@pytest.mark.parametrize(("edges", "match"), [
    ([(0, 0)], "self-loop"), ([(0, 1), (1, 0)], "twice"), ([(0, 5)], "vertices must be"),
])
def test_vertex_cover_instance_rejects_non_simple_graphs(edges: list, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        vertex_cover_instance(edges, 3)
