"""Evaluating openshop schedules: hand-computed timelines, a slow twin of both kernels, list scheduling with
arrivals, and the refusal of malformed orders."""

from __future__ import annotations

import numpy as np
import pytest

from fairsched.errors import ConfigError
from fairsched.openshop.engine import (
    completion_of,
    evaluate_permutation,
    evaluate_task_order,
    list_schedule,
    tasks_by_machine,
)
from fairsched.openshop.instance import OpenShopInstance
from fairsched.openshop.validate import validate_openshop_schedule

# 3 jobs x 2 machines; tasks (CSR by job): 0=(j0,m0,3) 1=(j0,m1,1) 2=(j1,m0,1) 3=(j1,m1,2) 4=(j2,m0,4)
TIMES = [[3, 1], [1, 2], [4, 0]]


def naive_evaluate(times: np.ndarray, arrival: np.ndarray, machine_orders: list[list[int]], release: bool):
    """Slow twin: each machine i runs the jobs of machine_orders[i] back to back (dense p_ij, ends per job)."""
    n, m = times.shape
    end = np.zeros((n, m), dtype=np.int64)
    start = np.full((n, m), -1, dtype=np.int64)
    for i in range(m):
        clock = 0
        for j in machine_orders[i]:
            clock = max(clock, arrival[j]) if release else clock
            start[j, i] = clock
            clock += times[j, i]
            end[j, i] = clock
    completion = np.where((times > 0).any(axis=1), np.where(times > 0, end, -1).max(axis=1), arrival)
    return start, completion


def random_instance(rng: np.random.Generator, *, with_arrivals: bool) -> OpenShopInstance:
    n, m = int(rng.integers(1, 9)), int(rng.integers(1, 5))
    times = rng.integers(1, 7, size=(n, m)) * (rng.random((n, m)) < rng.uniform(0.2, 1.0))
    arrival = np.sort(rng.integers(0, 15, n)) if with_arrivals else None
    return OpenShopInstance.from_dense(times, arrival=arrival)


def test_permutation_timeline_by_hand() -> None:
    inst = OpenShopInstance.from_dense(TIMES)
    s = evaluate_permutation(inst, np.array([1, 0, 2]))
    # m0: j1 [0,1) j0 [1,4) j2 [4,8); m1: j1 [0,2) j0 [2,3)
    assert s.task_start.tolist() == [1, 2, 0, 0, 4]
    assert s.completion.tolist() == [4, 2, 8]
    validate_openshop_schedule(inst, s)


def test_release_makes_machines_idle_in_permutation_order() -> None:
    inst = OpenShopInstance.from_dense(TIMES, arrival=[0, 5, 6])
    s = evaluate_permutation(inst, np.array([1, 0, 2]))
    # m0: j1 waits for t=5 [5,6), j0 [6,9), j2 [9,13); m1: j1 [5,7), j0 [7,8)
    assert s.task_start.tolist() == [6, 7, 5, 5, 9]
    assert s.completion.tolist() == [9, 7, 13]
    assert evaluate_permutation(inst, np.array([1, 0, 2]), release=False).completion.tolist() == [4, 2, 8]


def test_task_order_by_hand() -> None:
    inst = OpenShopInstance.from_dense(TIMES)
    # m0 runs tasks 4, 0, 2 (j2, j0, j1); m1 runs 3, 1 (j1, j0): not a common permutation
    s = evaluate_task_order(inst, np.array([4, 3, 0, 1, 2]))
    assert s.task_start.tolist() == [4, 2, 7, 0, 0]
    assert s.completion.tolist() == [7, 8, 4]
    validate_openshop_schedule(inst, s)


@pytest.mark.parametrize("with_arrivals", [False, True])
def test_kernels_equal_slow_twin_on_random_instances(with_arrivals: bool) -> None:
    rng = np.random.default_rng(11)
    for _ in range(150):
        inst = random_instance(rng, with_arrivals=with_arrivals)
        dense, job = inst.to_dense(), inst.task_job()
        order = rng.permutation(inst.n_jobs)
        for release in (True, False):
            s = evaluate_permutation(inst, order, release=release)
            orders = [[j for j in order if dense[j, i] > 0] for i in range(inst.n_machines)]
            start, completion = naive_evaluate(dense, inst.arrival, orders, release)
            assert s.completion.tolist() == completion.tolist()
            assert s.task_start.tolist() == start[job, inst.task_machine].tolist()
            task_order = rng.permutation(inst.n_tasks)
            s = evaluate_task_order(inst, task_order, release=release)
            orders = [[int(job[t]) for t in task_order if inst.task_machine[t] == i] for i in range(inst.n_machines)]
            start, completion = naive_evaluate(dense, inst.arrival, orders, release)
            assert s.completion.tolist() == completion.tolist()
            assert s.task_start.tolist() == start[job, inst.task_machine].tolist()


def test_job_without_tasks_completes_at_its_arrival() -> None:
    inst = OpenShopInstance.from_tasks(2, [0, 1, 1, 2], [0, 1], [3, 2], arrival=[0, 4, 4])
    for s in (evaluate_permutation(inst, np.array([1, 2, 0])), evaluate_task_order(inst, np.array([1, 0]))):
        assert s.completion.tolist() == [3, 4, 6]
        assert completion_of(inst, s.task_start).tolist() == [3, 4, 6]


@pytest.mark.parametrize("order", [[0, 1, 1], [0, 1], [0, 1, 3], [-1, 0, 1], [0.0, 1.0, 2.0], [[0, 1, 2]]])
def test_malformed_permutations_are_refused(order) -> None:
    inst = OpenShopInstance.from_dense(TIMES)
    with pytest.raises(ConfigError, match="order"):
        evaluate_permutation(inst, np.array(order))


def test_malformed_task_order_is_refused() -> None:
    inst = OpenShopInstance.from_dense(TIMES)
    with pytest.raises(ConfigError, match=r"task_order: expected a permutation of task indices of 0\.\.4"):
        evaluate_task_order(inst, np.array([0, 1, 2, 3, 3]))


def test_list_schedule_resorts_on_arrivals_without_preemption() -> None:
    """One machine: j0 (5) at t=0; j1 (3) and j2 (1) arrive at t=1 while j0 runs; j3 (2) arrives at t=20."""
    inst = OpenShopInstance.from_dense([[5], [3], [1], [2]], arrival=[0, 1, 1, 20])
    shortest = list_schedule(inst, inst.task_time.astype(float))
    assert shortest.task_start.tolist() == [0, 6, 5, 20]  # j0 is never preempted; then j2, j1; idle until 20
    validate_openshop_schedule(inst, shortest)
    by_job = list_schedule(inst, np.arange(4, dtype=float))
    assert by_job.task_start.tolist() == [0, 5, 8, 20]


def test_list_schedule_classes_maximize_weighted_utility_at_completion() -> None:
    """Two classes: weight 1 (jobs 0, 1) and weight 3 (job 2); utility w·(10 − now − key)."""
    inst = OpenShopInstance.from_dense([[1], [2], [4]])
    key = inst.task_time.astype(float)
    s = list_schedule(inst, key, task_class=np.array([0, 0, 1]), class_weight=np.array([1.0, 3.0]),
                      class_offset=np.array([10.0, 10.0]))
    # t=0: class 0 head j0: 1·(10−1) = 9, class 1 head j2: 3·(10−4) = 18 -> j2 [0,4); t=4: j0: 5 vs -> j0, then j1
    assert s.task_start.tolist() == [4, 5, 0]


def test_tasks_by_machine_longest_first() -> None:
    inst = OpenShopInstance.from_dense(TIMES)
    m_ptr, m_task = tasks_by_machine(inst, longest_first=True)
    assert m_ptr.tolist() == [0, 3, 5]
    assert m_task.tolist() == [4, 0, 2, 3, 1]
    m_ptr, m_task = tasks_by_machine(inst)
    assert m_task.tolist() == [0, 2, 4, 1, 3]
