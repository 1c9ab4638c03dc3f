"""Exact references (Networking'20 Def. 1, Lemma 1, Theorem 1): brute force against a slow Python twin, the
lexicographic MILP against brute force, and Theorem 1 against per-machine orders."""

from __future__ import annotations

import itertools
import logging

import numpy as np
import pytest

from fairsched.errors import ConfigError
from fairsched.openshop.engine import evaluate_permutation
from fairsched.openshop.generate import random_instance
from fairsched.openshop.instance import OpenShopInstance
from fairsched.openshop.metrics import minmax_key, utilities
from fairsched.openshop.policies.exact import _OrderModel, brute_force, exact, lexicographic_milp
from fairsched.openshop.policies.kmaxmin import kmaxmin
from fairsched.openshop.validate import validate_openshop_schedule

# ------------------------------------------------------------------------------------------------------ slow twins


def naive_completion(dense: np.ndarray, arrival: np.ndarray, order) -> list[int]:
    """Completion times when every machine runs its tasks in job order `order`, none before its job's arrival."""
    free = [0] * dense.shape[1]
    completion = [int(a) for a in arrival]
    for j in order:
        for i in range(dense.shape[1]):
            if dense[j, i] > 0:
                start = max(free[i], int(arrival[j]))
                free[i] = start + int(dense[j, i])
                completion[j] = max(completion[j], free[i])
    return completion


def naive_task_order_completion(dense: np.ndarray, orders) -> list[int]:
    """Completion times when machine i runs its jobs in the order ``orders[i]`` (no arrivals)."""
    completion = [0] * dense.shape[0]
    for i, order in enumerate(orders):
        clock = 0
        for j in order:
            clock += int(dense[j, i])
            if dense[j, i] > 0:
                completion[j] = max(completion[j], clock)
    return completion


def naive_values(instance: OpenShopInstance, completion, kind: str) -> list[float]:
    """v_j minimised in the min-max sense: C_j (equal) or -U_j = P_j (C_j - τ) (linear, τ = Σ p + max arrival)."""
    if kind == "equal":
        return [float(c) for c in completion]
    tau = float(instance.task_time.sum() + instance.arrival.max())
    return [float(p) * (c - tau) for p, c in zip(instance.priority, completion, strict=True)]


def naive_brute_force(instance: OpenShopInstance, kind: str) -> list[int]:
    """Completion times of the first permutation (itertools order) whose sorted values are smallest."""
    dense = instance.to_dense()
    best_key, best = None, None
    for order in itertools.permutations(range(instance.n_jobs)):
        completion = naive_completion(dense, instance.arrival, order)
        key = sorted(naive_values(instance, completion, kind), reverse=True)
        if best_key is None or key < best_key:
            best_key, best = key, completion
    return best


def value_key(instance: OpenShopInstance, completion: np.ndarray, kind: str) -> np.ndarray:
    """The min-max key through the library's utilities: sorted non-increasing -U."""
    return minmax_key(-utilities(instance, completion, kind))


# ------------------------------------------------------------------------------------------------------ evaluation


def test_twin_evaluator_agrees_with_engine() -> None:
    rng = np.random.default_rng(11)
    for _ in range(30):
        inst = random_instance(int(rng.integers(1, 9)), int(rng.integers(1, 5)), rng, arrivals=int(rng.integers(0, 15)))
        order = rng.permutation(inst.n_jobs)
        assert evaluate_permutation(inst, order).completion.tolist() == naive_completion(inst.to_dense(),
                                                                                         inst.arrival, order)


# ------------------------------------------------------------------------------------------------------ brute force


def test_brute_force_hand_example() -> None:
    # τ = (3, 4); job 1 must be last (removing it leaves max(2, 1) = 2), then job 0 (leaves 1): order 2, 0, 1.
    inst = OpenShopInstance.from_dense([[2, 0], [1, 3], [0, 1]])
    schedule = brute_force(inst)
    assert schedule.completion.tolist() == [2, 4, 1]
    assert schedule.algorithm == "brute_force"
    validate_openshop_schedule(inst, schedule)


def test_linear_utilities_change_the_optimum() -> None:
    # One machine, τ = 3. Equal utilities: short job first, C = (1, 3). Linear with P = (1, 10): job 1 first gives
    # U = (0, 10) against (2, 0) the other way: max-min prefers the larger second-worst utility.
    inst = OpenShopInstance.from_dense([[1], [2]], priority=[1.0, 10.0])
    assert brute_force(inst).completion.tolist() == [1, 3]
    assert brute_force(inst, utilities="linear").completion.tolist() == [3, 2]
    # With τ = 100 the utilities are (99, 970) against (97, 980): the worst is better with the short job first.
    assert brute_force(inst, utilities="linear", tau=100.0).completion.tolist() == [1, 3]


@pytest.mark.parametrize("kind", ["equal", "linear"])
def test_brute_force_equals_naive_twin(kind: str) -> None:
    rng = np.random.default_rng(5)
    for _ in range(25):
        inst = random_instance(int(rng.integers(1, 7)), int(rng.integers(1, 4)), rng, max_priority=4,
                               arrivals=int(rng.integers(0, 6)))
        schedule = brute_force(inst, utilities=kind)
        assert schedule.completion.tolist() == naive_brute_force(inst, kind)
        validate_openshop_schedule(inst, schedule)


def test_brute_force_tau_per_job() -> None:
    # Per-job horizons (the online planner passes one per job): v_j = P_j (C_j - τ_j).
    inst = OpenShopInstance.from_dense([[1], [2]])
    # τ = (1, 100): job 0 first gives v = (0, -97), job 1 first v = (2, -98); τ = (100, 1): (-99, 2) vs (-97, 1).
    assert brute_force(inst, utilities="linear", tau=np.array([1.0, 100.0])).completion.tolist() == [1, 3]
    assert brute_force(inst, utilities="linear", tau=np.array([100.0, 1.0])).completion.tolist() == [3, 2]


def test_theorem1_per_machine_orders_never_beat_one_permutation() -> None:
    """Networking'20 Theorem 1: the best common permutation is as fair as the best per-machine orders."""
    rng = np.random.default_rng(21)
    for _ in range(12):
        n, m = int(rng.integers(2, 5)), int(rng.integers(1, 4))
        inst = random_instance(n, m, rng, density=0.7)
        dense = inst.to_dense()
        best = min(sorted(naive_task_order_completion(dense, orders), reverse=True)
                   for orders in itertools.product(itertools.permutations(range(n)), repeat=m))
        assert minmax_key(brute_force(inst).completion).tolist() == best


def test_limits_and_options() -> None:
    with pytest.raises(ConfigError, match=r"n=9 means 362,880"):
        brute_force(random_instance(9, 2, 0))
    with pytest.raises(ConfigError, match="limit is n <= 40"):
        lexicographic_milp(random_instance(41, 2, 0))
    inst = random_instance(3, 2, 0)
    with pytest.raises(ConfigError, match="no parameter k"):
        brute_force(inst, k=2)
    with pytest.raises(ConfigError, match="utilities='fair'"):
        exact(inst, utilities="fair")
    with pytest.raises(ConfigError, match="tau: expected"):
        lexicographic_milp(inst, utilities="linear", tau=np.ones(5))


def test_empty_and_single_job() -> None:
    empty = OpenShopInstance.from_dense(np.zeros((0, 2), dtype=np.int64))
    one = OpenShopInstance.from_dense([[3, 1]], arrival=[4])
    for solver in (brute_force, lexicographic_milp):
        assert solver(empty).completion.tolist() == []
        assert solver(one).completion.tolist() == [7]


# ------------------------------------------------------------------------------------------------------------ MILP


@pytest.mark.parametrize("kind", ["equal", "linear"])
def test_milp_equals_brute_force(kind: str) -> None:
    for seed in range(12):
        inst = random_instance(7 if seed < 6 else 5, 2 + seed % 3, seed, density=0.6, max_priority=4)
        expected = value_key(inst, brute_force(inst, utilities=kind).completion, kind)
        schedule = lexicographic_milp(inst, utilities=kind, seed=seed)
        assert schedule.algorithm == "lexicographic_milp"
        assert value_key(inst, schedule.completion, kind).tolist() == expected.tolist(), seed
        validate_openshop_schedule(inst, schedule)


@pytest.mark.parametrize("kind", ["equal", "linear"])
def test_milp_equals_brute_force_with_arrivals(kind: str) -> None:
    for seed in range(5):
        inst = random_instance(5, 2, 100 + seed, density=0.7, max_priority=3, arrivals=6)
        expected = value_key(inst, brute_force(inst, utilities=kind).completion, kind)
        assert value_key(inst, lexicographic_milp(inst, utilities=kind).completion, kind).tolist() == \
            expected.tolist(), seed


def test_milp_equal_arrivals_shift_everything() -> None:
    # All jobs arrive at 10: the optimum is the offline one shifted by 10 (both formulations).
    inst = random_instance(6, 3, 8)
    shifted = OpenShopInstance.from_dense(inst.to_dense(), arrival=np.full(6, 10), priority=inst.priority)
    base = minmax_key(brute_force(inst).completion)
    assert minmax_key(lexicographic_milp(shifted).completion).tolist() == (base + 10).tolist()
    linear = value_key(shifted, brute_force(shifted, utilities="linear").completion, "linear")
    assert value_key(shifted, lexicographic_milp(shifted, utilities="linear").completion, "linear").tolist() == \
        linear.tolist()


def test_linear_order_model_with_equal_utilities_matches_brute_force() -> None:
    """The linear-order formulation, forced on equal utilities, agrees with the prefix-makespan one's reference."""
    for seed in range(4):
        inst = random_instance(6, 3, 40 + seed)
        order, proven, steps = _OrderModel.build(inst, np.ones(6), np.zeros(6), seed).solve(None)
        assert proven == steps == 6
        assert minmax_key(evaluate_permutation(inst, order).completion).tolist() == \
            minmax_key(brute_force(inst).completion).tolist()


def test_milp_equals_full_kmaxmin_beyond_brute_force() -> None:
    """k-Max-Min with k = n is Algorithm 1's exhaustive search (§V-A2): exact, and independent of the MILP."""
    for seed in range(3):
        inst = random_instance(12, 3, 70 + seed)
        assert minmax_key(lexicographic_milp(inst).completion).tolist() == \
            minmax_key(kmaxmin(inst, k=12).completion).tolist()


def test_exact_dispatches_on_size() -> None:
    assert exact(random_instance(8, 2, 1)).algorithm == "brute_force"
    big = random_instance(12, 3, 1)
    schedule = exact(big)
    assert schedule.algorithm == "lexicographic_milp"
    # The max-min vector starts with the makespan τ(N) (Eq. (2)).
    assert schedule.completion.max() == big.machine_loads().max()
    validate_openshop_schedule(big, schedule)


def test_time_limit_returns_a_valid_unproven_schedule(caplog: pytest.LogCaptureFixture) -> None:
    inst = random_instance(16, 4, 3, max_priority=3)
    with caplog.at_level(logging.WARNING):
        schedule = lexicographic_milp(inst, utilities="linear", time_limit=0)
    assert "time limit" in schedule.algorithm
    assert "time limit" in caplog.text
    validate_openshop_schedule(inst, schedule)
