"""DIRECTCONTR: event-driven (engine, PPAM'13 Alg. 1 corrected) against time-stepped (SPAA'13 Alg. 4), by hand,
and the random machine order both share."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations

import numpy as np
import pytest

from fairsched.online.engine import simulate
from fairsched.online.policies import _machine_order, directcontr
from fairsched.online.policies._machine_order import random_machine_order
from fairsched.online.policies.directcontr import DirectContr, largest_lag_first
from fairsched.online.view import Assignment, OnlineView, Tags
from fairsched.scenario import Scenario, scenario_from_arrays
from tests.naive.online_time_stepped import simulate_time_stepped
from tests.test_online_psi import psi_brute_force

ROW = ["job", "org", "release", "start", "end", "machine"]


@dataclass
class Watched(DirectContr):
    """DIRECTCONTR that also logs (now, psi, phi) as the engine shows them at each decision."""

    seen: list[tuple[int, list[int], list[int]]] = field(default_factory=list)
    name = "directcontr"
    tags = Tags(randomized=True)

    def decide(self, view: OnlineView) -> Assignment:
        self.seen.append((view.now, view.psi.tolist(), view.psi_by_machine_owner.tolist()))
        return super().decide(view)


def random_scenario(seed: int) -> Scenario:
    """≤ 4 organizations, ≤ 40 job records (1–2 copies), bursty releases; a horizon one time in three."""
    rng = np.random.default_rng(seed)
    k, n = int(rng.integers(1, 5)), int(rng.integers(1, 41))
    window = int(rng.choice([0, 5, 15, 40]))
    horizon = int(rng.integers(0, 40)) if seed % 3 == 0 else None
    return scenario_from_arrays(release=rng.integers(0, window + 1, n), processing_time=rng.integers(1, 9, n),
                                org=rng.integers(0, k, n), machines_per_org=rng.integers(1, 4, k),
                                copies=rng.integers(1, 3, n), horizon=horizon)


def sorted_rows(schedule) -> list[list[int]]:
    return schedule.sort_values(["start", "machine"])[ROW].to_numpy().tolist()


@pytest.mark.parametrize("seed", range(60))
def test_engine_equals_time_stepped_twin(seed: int) -> None:
    scenario = random_scenario(seed)
    policy = Watched()
    result = simulate(scenario, policy, seed=seed)
    twin = simulate_time_stepped(scenario, seed=seed)
    assert sorted_rows(result.schedule) == sorted_rows(twin.schedule)  # job, start and machine, exactly
    assert policy.seen == twin.at_decisions                             # closed-form psi, phi = Alg. 4's sums
    assert result.t_end == twin.t_end
    assert result.per_org["psi"].tolist() == twin.psi
    assert result.per_org["psi_by_machine_owner"].tolist() == twin.phi
    assert result.per_org["work_done"].tolist() == twin.work_done


@pytest.mark.parametrize("seed", range(0, 60, 6))
def test_twin_utilities_are_eq2_credited_to_job_and_machine_owners(seed: int) -> None:
    """SPAA'13 Eq. (3) unit by unit: psi credits the job's owner, phi the machine's owner."""
    scenario = random_scenario(seed)
    twin = simulate_time_stepped(scenario, seed=seed)
    rows = twin.schedule
    owner = scenario.machine_owner[rows["machine"].to_numpy()]
    size = (rows["end"] - rows["start"]).to_numpy()
    for u in range(scenario.n_orgs):
        mine, on_mine = rows["org"].to_numpy() == u, owner == u
        assert twin.psi[u] == psi_brute_force(rows["start"][mine].tolist(), size[mine].tolist(), twin.t_end)
        assert twin.phi[u] == psi_brute_force(rows["start"][on_mine].tolist(), size[on_mine].tolist(), twin.t_end)


# -- by hand -----------------------------------------------------------------------------------------------------
# Organization 0 owns machine 0, organization 1 machines 1 and 2.
#   job 1 (A): org 1, released 0, p=4     job 2 (B): org 0, released 1, p=3
#   job 3 (C): org 0, released 2, p=2     job 4 (D): org 1, released 2, p=2
# At t=2 one machine is free and C, D wait: psi = (1, 3) (B ran slot 1; A slots 0, 1), whatever the order.
# phi depends on which machines A and B got, i.e. on the random order; we fix the order to see both outcomes.
HAND = scenario_from_arrays(release=[0, 1, 2, 2], processing_time=[4, 3, 2, 2], org=[1, 0, 0, 1],
                            machines_per_org=[1, 2])


def ascending_order(free_sorted: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    return free_sorted[:count]


def descending_order(free_sorted: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    return free_sorted[::-1][:count]


def test_hand_timeline_when_machines_are_taken_in_ascending_order(monkeypatch: pytest.MonkeyPatch) -> None:
    # t=0 A -> machine 0 (org 0's); t=1 B -> machine 1; t=2: phi = (3, 1), phi - psi = (2, -2): C -> machine 2;
    # t=4 A, B, C end, D -> machine 0; t=6 D ends.
    # psi(6) = (B 5+4+3 + C 4+3, A 6+5+4+3 + D 2+1) = (19, 21); phi(6) = (A 18 + D 3, B 12 + C 7) = (21, 19).
    monkeypatch.setattr(directcontr, "random_machine_order", ascending_order)
    result = simulate(HAND, DirectContr())
    assert result.schedule[ROW].to_numpy().tolist() == [
        [1, 1, 0, 0, 4, 0], [2, 0, 1, 1, 4, 1], [3, 0, 2, 2, 4, 2], [4, 1, 2, 4, 6, 0]]
    assert (result.t_end, result.psi.tolist(), result.per_org["psi_by_machine_owner"].tolist()) == (6, [19, 21],
                                                                                                    [21, 19])


def test_hand_timeline_when_machines_are_taken_in_descending_order(monkeypatch: pytest.MonkeyPatch) -> None:
    # t=0 A -> machine 2; t=1 B -> machine 1; t=2: phi = (0, 4), phi - psi = (-1, 1): D -> machine 0 (C waits);
    # t=4 A, B, D end, C -> machine 2; t=6 C ends.
    # psi(6) = (B 12 + C 2+1, A 18 + D 4+3) = (15, 25); phi(6) = (D 7, A 18 + B 12 + C 3) = (7, 33).
    monkeypatch.setattr(directcontr, "random_machine_order", descending_order)
    result = simulate(HAND, DirectContr())
    assert result.schedule[ROW].to_numpy().tolist() == [
        [1, 1, 0, 0, 4, 2], [2, 0, 1, 1, 4, 1], [4, 1, 2, 2, 4, 0], [3, 0, 2, 4, 6, 2]]
    assert (result.t_end, result.psi.tolist(), result.per_org["psi_by_machine_owner"].tolist()) == (6, [15, 25],
                                                                                                    [7, 33])


def test_lowest_machines_first_is_the_ascending_timeline_whatever_the_seed() -> None:
    """machines="lowest" (an ablation of docs/replication/ppam13.md) gives the hand timeline of the ascending order."""
    for seed in (0, 7):
        result = simulate(HAND, DirectContr(machines="lowest"), seed=seed)
        assert result.schedule[ROW].to_numpy().tolist() == [
            [1, 1, 0, 0, 4, 0], [2, 0, 1, 1, 4, 1], [3, 0, 2, 2, 4, 2], [4, 1, 2, 4, 6, 0]]
        assert result.per_org["psi_by_machine_owner"].tolist() == [21, 19]


def test_equal_lags_go_to_the_lowest_org_which_fills_machines_until_its_queue_is_empty() -> None:
    # Two machines, two jobs per organization at t=0, phi - psi = 0 for both: org 0 takes both machines.
    scenario = scenario_from_arrays(release=[0, 0, 0, 0], processing_time=[1, 1, 1, 1], org=[1, 0, 1, 0],
                                    machines_per_org=[1, 1])
    result = simulate(scenario, DirectContr(), seed=4)
    assert result.schedule[["job", "start"]].to_numpy().tolist() == [[2, 0], [4, 0], [1, 1], [3, 1]]


def test_largest_lag_first_orders_waiting_orgs_only() -> None:
    assert largest_lag_first([0, 5, 5, -2], [1, 1, 3, 2]) == [1, 2, 0, 3]
    assert largest_lag_first([9, 5, 7], [0, 1, 1]) == [2, 1]
    assert largest_lag_first([9, 5, 7], [0, 0, 4]) == [2]


def test_different_seeds_give_different_machine_orders() -> None:
    scenario = scenario_from_arrays(release=[0] * 6, processing_time=[3] * 6, org=[0, 1] * 3, machines_per_org=[2, 2])
    machines = {tuple(simulate(scenario, DirectContr(), seed=seed).schedule["machine"]) for seed in range(6)}
    assert len(machines) > 1


# -- the shared random machine order -----------------------------------------------------------------------------
def test_machine_order_is_a_uniform_random_permutation_prefix() -> None:
    free = np.array([3, 5, 8, 13])
    rng = np.random.default_rng(2024)
    draws = 24_000
    counts = dict.fromkeys(permutations(free.tolist()), 0)
    for _ in range(draws):
        counts[tuple(random_machine_order(free, 4, rng).tolist())] += 1
    expected = draws / 24
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 60  # 23 degrees of freedom: P(chi2 > 60) < 1e-4, and the seed is fixed
    prefixes = [tuple(random_machine_order(free, 2, rng).tolist()) for _ in range(1200)]
    assert len(set(prefixes)) == 12 and all(a != b for a, b in prefixes)


@pytest.mark.parametrize("n", [1, 2, 7, 40])
def test_small_and_large_count_paths_make_the_same_swaps(n: int) -> None:
    rng = np.random.default_rng(n)
    free = np.sort(rng.choice(1000, n, replace=False))
    for count in range(n + 1):
        draws = rng.random(count)
        sparse = _machine_order._partial_fisher_yates_sparse(free, draws)
        kernel = _machine_order._partial_fisher_yates_kernel(free.copy(), draws)
        assert sparse.tolist() == kernel.tolist()
        assert len(set(sparse.tolist())) == count and set(sparse.tolist()) <= set(free.tolist())


@pytest.mark.parametrize("count", [0, 1, 3, 9, 20])
def test_machine_order_draws_exactly_count_uniforms(count: int) -> None:
    rng, reference = np.random.default_rng(5), np.random.default_rng(5)
    order = random_machine_order(np.arange(20), count, rng)
    reference.random(count)
    assert rng.random() == reference.random()  # both streams are at the same place
    assert sorted(order.tolist()) == sorted(set(order.tolist())) and order.size == count


def test_machine_order_refuses_more_machines_than_free() -> None:
    with pytest.raises(ValueError, match="cannot pick 3 machines out of 2 free ones"):
        random_machine_order(np.array([0, 1]), 3, np.random.default_rng(0))


def test_watched_policy_is_directcontr() -> None:
    """The wrapper used above changes nothing but logging."""
    scenario = random_scenario(7)
    assert sorted_rows(simulate(scenario, Watched(), seed=7).schedule) == sorted_rows(
        simulate(scenario, DirectContr(), seed=7).schedule)
