"""Openshop algorithms: hand-computed cases for each, fast paths against O(n²m) twins, optimality claims of the
paper against brute force (PBA's second coordinate, k-Max-Min with k = n, Theorem 1), and invariants of every
registered algorithm."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairsched.errors import ConfigError, UnknownPolicyError
from fairsched.openshop import ALGORITHMS, solve
from fairsched.openshop import _kernels as _k
from fairsched.openshop.engine import evaluate_permutation
from fairsched.openshop.instance import OpenShopInstance
from fairsched.openshop.metrics import minmax_key, utilities
from fairsched.openshop.policies import _lemma4_kernels as _lemma4
from fairsched.openshop.policies import fifo, get_algorithm, kmaxmin, lptf, luf, pba, sptf
from fairsched.openshop.validate import validate_openshop_schedule

# 3 jobs x 2 machines, worked by hand in the tests below; τ = (8, 3), τ_H (linear utilities) = 11.
TIMES = [[3, 1], [1, 2], [4, 0]]
PRIORITY = [1.0, 2.0, 5.0]
OFFLINE = list(ALGORITHMS)  # exact included: its solver (highspy) is a required dependency


def hand_instance() -> OpenShopInstance:
    return OpenShopInstance.from_dense(TIMES, priority=PRIORITY)


def random_dense(rng: np.random.Generator, n: int, m: int, *, max_time: int = 6) -> np.ndarray:
    times = rng.integers(1, max_time + 1, size=(n, m)) * (rng.random((n, m)) < rng.uniform(0.3, 1.0))
    times[~times.any(axis=1), 0] = 1  # every job gets a task
    return times


def all_permutation_keys(inst: OpenShopInstance) -> dict[tuple[int, ...], tuple[int, ...]]:
    """Sorted completion vector of every permutation (brute force)."""
    out = {}
    for perm in itertools.permutations(range(inst.n_jobs)):
        _, c = _k.permutation_kernel(inst.indptr, inst.task_machine, inst.task_time, inst.arrival,
                                     np.array(perm, dtype=np.int64), inst.n_machines, True)
        out[perm] = tuple(minmax_key(c).tolist())
    return out


# -- hand-computed cases ----------------------------------------------------------------------------------

def test_pba_by_hand() -> None:
    """Keys max_i(τ_i − p_ij) with τ = (8, 3): j0 5, j1 7, j2 4 -> j2 last; then τ = (4, 3): j0 2, j1 3 -> j0."""
    s = pba.pba(hand_instance(), seed=3)
    assert pba.pba_order(hand_instance(), seed=3).tolist() == [1, 0, 2]
    assert s.completion.tolist() == [4, 2, 8]  # m0: j1 [0,1) j0 [1,4) j2 [4,8); m1: j1 [0,2) j0 [2,3)


def test_generalized_pba_by_hand() -> None:
    """U_j(c_j) = P_j (11 − c_j), c_j = max_{i∈M_j} τ_i: (3, 6, 15) -> j2 last; τ = (4, 3): (7, 14) -> j1."""
    s = pba.generalized_pba(hand_instance(), utilities="linear")
    assert s.completion.tolist() == [3, 4, 8]
    assert utilities(hand_instance(), s.completion, "linear").tolist() == [8.0, 14.0, 15.0]
    assert pba.pba(hand_instance(), utilities="linear").completion.tolist() == [3, 4, 8]


def test_generalized_pba_equal_utilities_puts_the_least_hurt_job_last() -> None:
    """§VI with U = −t: argmin_j max_{i∈M_j} τ_i + ε_j. τ = (9, 1): job 2, alone on machine 1, goes last (c = 1);
    then jobs 0 and 1 tie (c = 9) and ε orders them. Algorithm 2 (max over all of M) puts job 0 last instead."""
    inst = OpenShopInstance.from_dense([[5, 0], [4, 0], [0, 1]])
    orders = {tuple(pba.generalized_pba(inst, seed=seed).completion.tolist()) for seed in range(20)}
    assert orders == {(5, 9, 1), (9, 4, 1)}
    assert pba.pba_order(inst).tolist()[-1] == 0  # keys 4, 5, 9


def test_fifo_sptf_luf_by_hand() -> None:
    inst = hand_instance()
    assert fifo.fifo(inst).completion.tolist() == [3, 4, 8]  # m0: j0 [0,3) j1 [3,4) j2 [4,8)
    assert sptf.sptf(inst).completion.tolist() == [4, 3, 8]  # m0: j1, j0, j2; m1: j0 [0,1), j1 [1,3)
    assert luf.luf(inst).completion.tolist() == [4, 3, 8]  # equal utilities, all arrive at 0: as SPTF
    # linear, τ = 11. m0 at 0: P(11 − p) = 8, 20, 35 -> j2 [0,4); at 4: 1·4 vs 2·6 -> j1 [4,5), j0 [5,8).
    # m1 at 0: 1·10 vs 2·9 -> j1 [0,2), j0 [2,3).
    assert luf.luf(inst, utilities="linear").completion.tolist() == [8, 5, 4]


def test_sptf_is_shortest_first_not_the_papers_non_increasing() -> None:
    inst = OpenShopInstance.from_dense([[5], [1], [3]])
    assert sptf.sptf(inst).task_start.tolist() == [4, 0, 1]


def test_lptf_is_the_papers_literal_non_increasing_order() -> None:
    inst = OpenShopInstance.from_dense([[5], [1], [3]])
    assert lptf.lptf(inst).task_start.tolist() == [0, 8, 5]  # 5 first, then 3, then 1
    # online: j1 (time 1) is alone at 0; j0 (5) and j2 (3) both arrive at 1 -> the longer j0 first
    late = OpenShopInstance.from_dense([[1], [5], [3]], arrival=[0, 1, 1])
    assert lptf.lptf(late).task_start.tolist() == [0, 1, 6]


def test_kmaxmin_by_hand() -> None:
    inst = hand_instance()
    assert kmaxmin.last_jobs(inst, 2) == [0, 2]
    assert kmaxmin.kmaxmin(inst, k=2).completion.tolist() == [4, 2, 8]
    assert kmaxmin.kmaxmin(inst, k=3).completion.tolist() == [4, 2, 8]


def test_kmaxmin_branches_on_ties_and_keeps_the_dominant_branch() -> None:
    """τ = (3, 2): jobs 0, 2 and 3 all have key 2 (the candidate set I_N of line 1.2 has three jobs), and only
    the search over every branch finds the optimum."""
    inst = OpenShopInstance.from_dense([[1, 0], [0, 1], [1, 1], [1, 0]])
    best = min(all_permutation_keys(inst).values())
    s = kmaxmin.kmaxmin(inst, k=4)
    assert tuple(minmax_key(s.completion).tolist()) == best


def test_lemma4_exchanges() -> None:
    """Job 1 dominates job 0 (p = 1 <= 2 on their shared machine 0, and job 1's machine 1 is not shared)."""
    inst = OpenShopInstance.from_dense([[2, 0], [1, 5], [0, 3]])
    assert _lemma4._dominates(1, 0, inst.indptr, inst.task_machine, inst.task_time)
    assert not _lemma4._dominates(0, 1, inst.indptr, inst.task_machine, inst.task_time)
    assert not _lemma4._dominates(0, 2, inst.indptr, inst.task_machine, inst.task_time)  # nothing shared
    order = np.array([0, 1, 2], dtype=np.int64)
    _lemma4.lemma4_passes(order, inst.indptr, inst.task_machine, inst.task_time, 10)
    assert order.tolist() == [1, 2, 0] or order.tolist() == [1, 0, 2]
    assert order[0] == 1


def test_lemma4_groups_identical_jobs() -> None:
    inst = OpenShopInstance.from_dense([[2, 1], [0, 3], [2, 1], [4, 0]])
    grouped = kmaxmin._group_identical(inst, np.array([0, 1, 3, 2]))
    assert grouped.tolist() == [0, 2, 1, 3]


# -- fast paths against O(n²m) twins -----------------------------------------------------------------------

def naive_pba_order(times: np.ndarray, eps: np.ndarray) -> list[int] | None:
    """Algorithm 2 with every entry perturbed (p_ij + ε_j on all machines): argmin_j max_i(τ_i − p_ij) − ε_j,
    the common shift Σ ε_j dropped. None on an exact tie."""
    n = times.shape[0]
    alive = np.ones(n, dtype=bool)
    order = []
    for _ in range(n):
        tau = times[alive].sum(axis=0)
        keys = np.array([(tau - times[j]).max() - eps[j] if alive[j] else np.inf for j in range(n)])
        best = int(np.argmin(keys))
        if (keys == keys[best]).sum() > 1:
            return None
        order.append(best)
        alive[best] = False
    return order[::-1]


def naive_generalized_order(times: np.ndarray, weight: np.ndarray, horizon: np.ndarray, eps: np.ndarray) -> list[int]:
    n = times.shape[0]
    alive = np.ones(n, dtype=bool)
    order = []
    for _ in range(n):
        tau = times[alive].sum(axis=0)
        c = np.array([tau[times[j] > 0].max() if (times[j] > 0).any() else 0 for j in range(n)])
        value = np.where(alive, weight * (horizon - c - eps), -np.inf)
        best = int(np.argmax(value))
        order.append(best)
        alive[best] = False
    return order[::-1]


@pytest.mark.parametrize("eps", [None, 0.5, 3.0])
def test_pba_equals_naive_twin(eps: float | None) -> None:
    """eps >= 1 time unit lets ε overturn integer gaps: the fast path must then fall back to all jobs."""
    rng = np.random.default_rng(5)
    checked = 0
    for trial in range(120):
        times = random_dense(rng, int(rng.integers(1, 14)), int(rng.integers(1, 6)))
        inst = OpenShopInstance.from_dense(times)
        bound = 1e-4 * times[times > 0].min() if eps is None else eps
        draws = np.random.default_rng(trial).uniform(0.0, bound, inst.n_jobs)
        expected = naive_pba_order(times, draws)
        if expected is None:
            continue
        assert pba.pba_order(inst, seed=trial, eps=eps).tolist() == expected
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("kind", ["equal", "linear"])
def test_generalized_pba_equals_naive_twin(kind: str) -> None:
    rng = np.random.default_rng(8)
    for trial in range(100):
        times = random_dense(rng, int(rng.integers(1, 14)), int(rng.integers(1, 6)))
        prio = rng.integers(1, 5, times.shape[0]).astype(float)
        inst = OpenShopInstance.from_dense(times, priority=prio)
        draws = np.random.default_rng(trial).uniform(0.0, 1e-4 * times[times > 0].min(), inst.n_jobs)
        if kind == "equal":
            weight, horizon = np.ones(inst.n_jobs), np.zeros(inst.n_jobs)
        else:
            weight, horizon = prio, np.full(inst.n_jobs, float(times.sum()))
        order = naive_generalized_order(times, weight, horizon, draws)
        expected = evaluate_permutation(inst, np.array(order)).completion
        got = pba.generalized_pba(inst, seed=trial, utilities=kind).completion
        assert got.tolist() == expected.tolist()


def test_minmax_keys_kernel_equals_dense_formula() -> None:
    rng = np.random.default_rng(2)
    for _ in range(50):
        times = random_dense(rng, int(rng.integers(1, 10)), int(rng.integers(1, 6)))
        inst = OpenShopInstance.from_dense(times)
        alive = rng.random(inst.n_jobs) < 0.7
        tau = times[alive].sum(axis=0)
        keys = _k.minmax_keys(inst.indptr, inst.task_machine, inst.task_time, alive, tau)
        for j in range(inst.n_jobs):
            assert keys[j] == ((tau - times[j]).max() if alive[j] else -1)


# -- optimality claims against brute force -----------------------------------------------------------------

def test_pba_first_two_coordinates_are_optimal() -> None:
    """The largest completion is τ(N) for any non-idling schedule; PBA also minimizes the second largest."""
    rng = np.random.default_rng(13)
    for _ in range(25):
        inst = OpenShopInstance.from_dense(random_dense(rng, int(rng.integers(2, 8)), int(rng.integers(1, 4))))
        best = min(all_permutation_keys(inst).values())
        got = minmax_key(pba.pba(inst).completion).tolist()
        assert got[:2] == list(best[:2])


def test_kmaxmin_with_k_equal_n_is_the_lexicographic_optimum() -> None:
    rng = np.random.default_rng(21)
    for _ in range(25):
        inst = OpenShopInstance.from_dense(random_dense(rng, int(rng.integers(1, 7)), int(rng.integers(1, 4)),
                                                        max_time=3))
        best = min(all_permutation_keys(inst).values())
        assert tuple(minmax_key(kmaxmin.kmaxmin(inst, k=inst.n_jobs).completion).tolist()) == best


def test_kmaxmin_is_k_min_max_fair() -> None:
    """§IV-A: the first k coordinates of the sorted completion vector match the optimum's."""
    rng = np.random.default_rng(34)
    for trial in range(25):
        inst = OpenShopInstance.from_dense(random_dense(rng, int(rng.integers(3, 7)), int(rng.integers(1, 4)),
                                                        max_time=3))
        best = min(all_permutation_keys(inst).values())
        for k in (1, 2, 3):
            got = minmax_key(kmaxmin.kmaxmin(inst, k=k, seed=trial).completion).tolist()
            assert got[:k] == list(best[:k])


# -- every registered algorithm ----------------------------------------------------------------------------

def test_registry_lists_every_algorithm() -> None:
    assert set(ALGORITHMS) == {"pba", "kmaxmin", "fifo", "lptf", "sptf", "luf", "exact"}
    with pytest.raises(UnknownPolicyError, match=r"choose one of: .*pba"):
        get_algorithm("pbb")


@st.composite
def instances(draw: st.DrawFn) -> OpenShopInstance:
    n, m = draw(st.integers(1, 7)), draw(st.integers(1, 4))
    times = draw(st.lists(st.lists(st.integers(0, 6), min_size=m, max_size=m), min_size=n, max_size=n))
    prio = draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    arrival = sorted(draw(st.lists(st.integers(0, 10), min_size=n, max_size=n)))
    return OpenShopInstance.from_dense(times, priority=[float(p) for p in prio], arrival=arrival)


@given(inst=instances(), seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["equal", "linear"]))
def test_every_algorithm_gives_a_valid_deterministic_schedule(inst: OpenShopInstance, seed: int, kind: str) -> None:
    assert OFFLINE
    for name in OFFLINE:
        if name == "kmaxmin" and kind == "linear":
            continue
        s = solve(inst, name, seed=seed, utilities=kind)
        validate_openshop_schedule(inst, s)
        again = solve(inst, name, seed=seed, utilities=kind)
        assert s.task_start.tolist() == again.task_start.tolist()


@given(inst=instances(), seed=st.integers(0, 2**32 - 1))
def test_permutation_algorithms_use_one_order_on_every_machine(inst: OpenShopInstance, seed: int) -> None:
    """Theorem 1's structure: pba and kmaxmin schedules are reproduced by evaluating one job permutation."""
    for s in (pba.pba(inst, seed=seed), kmaxmin.kmaxmin(inst, seed=seed),
              pba.generalized_pba(inst, seed=seed, utilities="linear"), fifo.fifo(inst)):
        assert orders_are_one_permutation(inst, s.task_start)


def orders_are_one_permutation(inst: OpenShopInstance, task_start: np.ndarray) -> bool:
    """The machines' task orders (by start) are all compatible with one job order: their precedence graph has no
    cycle (Kahn's topological sort reaches every job)."""
    job = inst.task_job()
    successors: dict[int, set[int]] = {j: set() for j in range(inst.n_jobs)}
    for i in range(inst.n_machines):
        on_i = np.flatnonzero(inst.task_machine == i)
        ordered = job[on_i[np.argsort(task_start[on_i], kind="stable")]].tolist()
        for a, b in itertools.pairwise(ordered):
            successors[a].add(b)
    indegree = {j: 0 for j in successors}
    for targets in successors.values():
        for b in targets:
            indegree[b] += 1
    ready, seen = [j for j, d in indegree.items() if d == 0], 0
    while ready:
        a = ready.pop()
        seen += 1
        for b in successors[a]:
            indegree[b] -= 1
            if indegree[b] == 0:
                ready.append(b)
    return seen == inst.n_jobs


def test_per_machine_orders_can_differ_from_every_permutation() -> None:
    """The structural check above can fail: SPTF's orders on the hand instance are not one permutation."""
    inst = OpenShopInstance.from_dense([[1, 2], [2, 1]])
    assert not orders_are_one_permutation(inst, sptf.sptf(inst).task_start)
    assert orders_are_one_permutation(inst, fifo.fifo(inst).task_start)


def test_solve_checks_parameters() -> None:
    inst = hand_instance()
    assert solve(inst, "kmaxmin", k=1).completion[2] == 8
    with pytest.raises(ConfigError, match="algorithm 'pba' takes no parameter k"):
        solve(inst, "pba", k=2)
    with pytest.raises(ConfigError, match="no parameter colour"):
        solve(inst, "fifo", colour=1)
    with pytest.raises(ConfigError, match="Algorithm 1 does not apply"):
        solve(inst, "kmaxmin", utilities="linear")
    with pytest.raises(ConfigError, match="utilities='fair'"):
        solve(inst, "sptf", utilities="fair")
    with pytest.raises(ConfigError, match="eps=0"):
        pba.pba(inst, eps=0)
    with pytest.raises(ConfigError, match="k=-1"):
        kmaxmin.kmaxmin(inst, k=-1)


def test_kmaxmin_refuses_explosive_searches() -> None:
    inst = OpenShopInstance.from_dense(np.ones((9, 1), dtype=np.int64))  # every job ties at every level
    with pytest.raises(ConfigError, match="search nodes"):
        kmaxmin.kmaxmin(inst, k=9, max_nodes=100)


def test_the_seed_breaks_ties_between_identical_jobs() -> None:
    inst = OpenShopInstance.from_dense(np.ones((10, 2), dtype=np.int64))
    assert pba.pba_order(inst, seed=1).tolist() == pba.pba_order(inst, seed=1).tolist()
    assert pba.pba_order(inst, seed=1).tolist() != pba.pba_order(inst, seed=2).tolist()
