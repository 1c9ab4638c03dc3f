"""REF (SPAA'13 Algorithm 1 + 2): hand-computed cases, the time-stepped twin, the lookahead apportionment against
brute force, and the guards (k limit, clairvoyance, replay)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from fairsched.errors import ConfigError, InvariantError
from fairsched.online._coalitions import CoalitionRun, all_coalitions, contributions, layout, simulate_coalitions
from fairsched.online.engine import simulate
from fairsched.online.policies.ref import Ref, RefLiteral
from fairsched.online.validate import validate_online_schedule
from fairsched.online.view import ScenarioInfo
from fairsched.scenario import Scenario, scenario_from_arrays
from fairsched.shapley import potential_into, shapley_of
from tests.naive.ref_time_stepped import ref_time_stepped

COLUMNS = ["job", "org", "start", "end"]


def random_scenario(seed: int, *, max_orgs: int = 4, max_records: int = 40) -> Scenario:
    """<= 4 organizations, <= 40 job records (1–2 copies), bursty releases (contention is frequent)."""
    rng = np.random.default_rng(seed)
    k, n = int(rng.integers(1, max_orgs + 1)), int(rng.integers(1, max_records + 1))
    window = int(rng.choice([0, 5, 15, 40]))
    return scenario_from_arrays(release=rng.integers(0, window + 1, n), processing_time=rng.integers(1, 9, n),
                                org=rng.integers(0, k, n), machines_per_org=rng.integers(1, 4, k),
                                copies=rng.integers(1, 3, n))


def rows(schedule) -> list[list[int]]:
    return schedule.sort_values(COLUMNS)[COLUMNS].to_numpy().tolist()


# -- hand-computed -------------------------------------------------------------------------------------------------
# Two organizations with one machine each; each releases two unit jobs at t = 0 (jobs 1, 2 of org 0; 3, 4 of org 1).
# At t = 0, psi = phi = (0, 0): a tie. The literal rule gives both machines to org 0 (lowest index; it keeps them
# until its queue is empty). Lookahead: v({0}, 1) = v({1}, 1) = 1 and v({0, 1}, 1) = 2, so phi(1) = (1, 1) and
# g = phi(1) - (psi + W + n) = (1, 1): the first machine goes to org 0 (tie), then g - x = (0, 1): org 1.
# At t = 2: literal psi = (2 + 2, 1 + 1) = (4, 2); lookahead psi = (2 + 1, 2 + 1) = (3, 3) = phi(2).
TIE = scenario_from_arrays(release=[0, 0, 0, 0], processing_time=[1, 1, 1, 1], org=[0, 0, 1, 1],
                           machines_per_org=[1, 1])


def test_literal_rule_gives_every_free_machine_to_the_top_organization() -> None:
    result = simulate(TIE, RefLiteral())
    assert result.schedule[["job", "start"]].to_numpy().tolist() == [[1, 0], [2, 0], [3, 1], [4, 1]]
    assert result.psi.tolist() == [4, 2]


def test_lookahead_rule_shares_the_machines_at_the_same_time() -> None:
    result = simulate(TIE, Ref())
    assert result.schedule[["job", "start"]].to_numpy().tolist() == [[1, 0], [3, 0], [2, 1], [4, 1]]
    assert result.psi.tolist() == [3, 3]


# Organization 0 owns 1 machine and releases three unit jobs at 0; organization 1 owns 1 machine and releases
# two unit jobs at 1. The grand coalition runs jobs 1, 2 at t = 0; at t = 1 three jobs wait for two machines.
# v({0}, 1) = 1 (one unit in slot 0), v({1}, 1) = 0, v({0, 1}, 1) = 2: phi(1) = (1/2 + 2/2, 0 + 1/2) = (1.5, 0.5)
# and psi = (2, 0), so phi - psi = (-0.5, 0.5): org 1 first (both rules; lookahead: g = (0, 2)).
LATE = scenario_from_arrays(release=[0, 0, 0, 1, 1], processing_time=[1, 1, 1, 1, 1], org=[0, 0, 0, 1, 1],
                            machines_per_org=[1, 1])


@pytest.mark.parametrize("select", ["literal", "lookahead"])
def test_late_organization_is_served_first_when_its_contribution_exceeds_its_utility(select: str) -> None:
    run = simulate_coalitions(LATE.jobs, LATE.machines_per_org, all_coalitions(2), select=select, record=True)
    expected_phi = [1.5, 0.5] if select == "literal" else [4.0, 2.0]  # phi(2) = (3/2 + (6-1)/2, 1/2 + (6-3)/2)
    assert run.record_times.tolist() == [1 if select == "literal" else 2]
    assert run.record_phi.tolist() == [expected_phi]
    assert run.decision_times.tolist() == [0, 1, 2]
    assert run.decision_orgs.tolist() == [0, 0, 1, 1, 0]


# -- against the time-stepped twin -------------------------------------------------------------------------------
@pytest.mark.parametrize("select", ["literal", "lookahead"])
@pytest.mark.parametrize("seed", range(45))
def test_ref_equals_the_time_stepped_algorithm_1(select: str, seed: int) -> None:
    scenario = random_scenario(seed)
    result = simulate(scenario, Ref(select=select, check_efficiency=True))
    naive = ref_time_stepped(scenario, select=select)
    assert rows(result.schedule) == rows(naive.schedule)
    validate_online_schedule(result.schedule, scenario, t_end=result.t_end)


@pytest.mark.parametrize("select", ["literal", "lookahead"])
def test_contributions_at_every_contended_decision_equal_eq1_in_fractions(select: str) -> None:
    """phi^C the kernel used (float64 potential) equals SPAA'13 Eq. (1) in exact arithmetic, decision by decision."""
    seen = 0
    for seed in range(45):
        scenario = random_scenario(seed)
        run = simulate_coalitions(scenario.jobs, scenario.machines_per_org, all_coalitions(scenario.n_orgs),
                                  select=select, record=True)
        naive = ref_time_stepped(scenario, select=select)
        assert run.record_times.tolist() == [t for t, _ in naive.phi_at_decisions]
        for fast, (_, exact) in zip(run.record_phi, naive.phi_at_decisions, strict=True):
            assert fast.tolist() == pytest.approx([float(x) for x in exact], abs=1e-9)
        seen += len(naive.phi_at_decisions)
    assert seen > 300  # the instances do make organizations compete for machines


@pytest.mark.parametrize("select", ["literal", "lookahead"])
def test_shared_potential_gives_the_subgame_potentials_floats_bit_for_bit(select: str) -> None:
    """The kernel keeps one potential per time step for all deciding coalitions; the grand coalition's phi must be
    the very float64 numbers that `potential_into` gives on that step's game (no rounding drift, no stale entry)."""
    seen = 0
    for seed in range(30):
        scenario = random_scenario(seed, max_orgs=6, max_records=60)
        k = scenario.n_orgs
        run = simulate_coalitions(scenario.jobs, scenario.machines_per_org, all_coalitions(k), select=select,
                                  record=True)
        game, potential = np.zeros(1 << k), np.zeros(1 << k)
        for phi, values in zip(run.record_phi, run.record_values, strict=True):
            game[run.entity_masks] = values
            potential_into(game, potential, k)
            grand = (1 << k) - 1
            assert phi.tolist() == [shapley_of(potential, grand, u) for u in range(k)]
        seen += k * len(run.record_phi) if k >= 4 else 0
    assert seen > 200  # games of 4-6 organizations, where the potential is shared across several levels


@pytest.mark.parametrize("seed", range(0, 45, 5))
def test_horizon_cuts_the_same_schedule(seed: int) -> None:
    scenario = random_scenario(seed)
    horizon = 6 + seed % 7
    cut = scenario_from_arrays(release=scenario.jobs["release"], processing_time=scenario.jobs["processing_time"],
                               org=scenario.jobs["org"], machines_per_org=scenario.machines_per_org,
                               copies=scenario.jobs["copies"], job=scenario.jobs["job"], horizon=horizon)
    result = simulate(cut, Ref())
    naive = ref_time_stepped(scenario, select="lookahead").schedule
    assert rows(result.schedule) == rows(naive[naive["start"] <= horizon])
    validate_online_schedule(result.schedule, cut, t_end=result.t_end)


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_simulation_stops_after_the_horizon_with_the_same_decisions(seed: int) -> None:
    scenario = random_scenario(seed)
    full = simulate_coalitions(scenario.jobs, scenario.machines_per_org, all_coalitions(scenario.n_orgs))
    horizon = int(full.decision_times[full.n_decisions // 2])
    cut = simulate_coalitions(scenario.jobs, scenario.machines_per_org, all_coalitions(scenario.n_orgs),
                              horizon=horizon)
    kept = int(np.searchsorted(full.decision_times, horizon, side="right"))
    assert cut.decision_times.tolist() == full.decision_times[:kept].tolist()
    assert cut.decision_orgs.tolist() == full.decision_orgs[:full.decision_ptr[kept]].tolist()


@pytest.mark.parametrize("select", ["literal", "lookahead"])
def test_coalition_values_are_eq3_of_each_coalitions_own_schedule(select: str) -> None:
    """v(S, t) of every coalition at every recorded decision equals the twin's unit-by-unit psi sums, exactly."""
    seen = 0
    for seed in range(0, 45, 4):
        scenario = random_scenario(seed)
        run = simulate_coalitions(scenario.jobs, scenario.machines_per_org, all_coalitions(scenario.n_orgs),
                                  select=select, record=True)
        naive = ref_time_stepped(scenario, select=select)
        for fast, exact in zip(run.record_values, naive.values_at_decisions, strict=True):
            assert fast.tolist() == [exact[mask] for mask in run.entity_masks.tolist()]
            seen += 1
    assert seen > 20


# -- lookahead apportionment: greedy = brute-force optimum ----------------------------------------------------------
def brute_force_distance(gain: list[Fraction], waiting: list[int], free: int) -> Fraction:
    """min Σ_u |g_u − x_u| over all apportionments 0 <= x_u <= waiting_u, Σ x_u = free."""
    best = None
    for x in product(*(range(w + 1) for w in waiting)):
        if sum(x) == free:
            cost = sum(abs(g - xi) for g, xi in zip(gain, x, strict=True))
            best = cost if best is None else min(best, cost)
    return best


def greedy_take(gain: list[float], waiting: list[int], free: int) -> list[int]:
    k = len(gain)
    mem = np.zeros((1, layout.N_MEM_FIELDS, k), dtype=np.int64)  # psi = W = n = 0: g_u = phi_u
    take = np.zeros(k, dtype=np.int64)
    contributions._select_lookahead(mem, np.array(gain), np.zeros(k), np.array(waiting, dtype=np.int64), take,
                                  np.zeros(k, dtype=np.bool_), 0, free, 0.0, k)
    return take.tolist()


def test_lookahead_apportionment_minimizes_the_distance_exactly() -> None:
    rng = np.random.default_rng(11)
    for _ in range(400):
        k = int(rng.integers(2, 5))
        waiting = rng.integers(0, 5, k).tolist()
        if sum(waiting) < 2:
            continue
        free = int(rng.integers(1, sum(waiting)))
        gain = [Fraction(int(q), 4) for q in rng.integers(-12, 24, k)]  # quarters: exact in float64, ties frequent
        take = greedy_take([float(g) for g in gain], waiting, free)
        assert sum(take) == free and all(0 <= x <= w for x, w in zip(take, waiting, strict=True))
        greedy_cost = sum(abs(g - x) for g, x in zip(gain, take, strict=True))
        assert greedy_cost == brute_force_distance(gain, waiting, free)


def test_lookahead_ties_go_to_the_lowest_index_then_alternate() -> None:
    assert greedy_take([2.0, 2.0], [5, 5], 3) == [2, 1]       # 0 (tie), 1 (0 now has 1 < 2), 0 (tie again)
    # 1 (tie with 2; then its queue is empty), 2 (3.0), 2 (2.0 > 0.5), 2 (1.0 > 0.5): org 0 gets nothing.
    assert greedy_take([0.5, 3.0, 3.0], [1, 1, 9], 4) == [0, 1, 3]


# -- guards -------------------------------------------------------------------------------------------------------
def test_too_many_organizations_are_refused_with_the_reason() -> None:
    scenario = scenario_from_arrays(release=[0], processing_time=[1], org=[0], machines_per_org=[1] * 17)
    with pytest.raises(ConfigError, match=r"exact REF simulates all 2\*\*k coalitions; k=17 means 131,072 "
                                          r"schedules — use --policy rand or a time window"):
        simulate(scenario, Ref())
    small = scenario_from_arrays(release=[0], processing_time=[1], org=[0], machines_per_org=[1] * 3)
    with pytest.raises(ConfigError, match="k=3 means 8 schedules"):
        simulate(small, Ref(max_orgs=2))


def test_ref_needs_the_processing_times() -> None:
    info = ScenarioInfo(n_orgs=1, n_machines=1, machine_owner=np.array([0]), machines_per_org=np.array([1]))
    with pytest.raises(ConfigError, match="needs the processing times"):
        Ref().reset(info, np.random.default_rng(0))


def test_replay_refuses_a_decision_point_the_simulation_did_not_have() -> None:
    run = CoalitionRun(np.array([0, 4]), np.array([0, 1, 3]), np.array([0, 1, 1]), np.array([1, 2, 3]),
                       np.zeros(0, dtype=np.int64), np.zeros((0, 2)), np.zeros((0, 3)))
    assert run.orgs_at(1, 4, 2, "ref").tolist() == [1, 1]
    with pytest.raises(InvariantError, match=r"decision at t=3, but .* next decision .* is at t=4"):
        run.orgs_at(1, 3, 2, "ref")
    with pytest.raises(InvariantError, match="started 2 jobs, the engine expects 1"):
        run.orgs_at(1, 4, 1, "ref")
    with pytest.raises(InvariantError, match="none left"):
        run.orgs_at(2, 9, 1, "ref")


def test_efficiency_check_compares_the_sum_of_contributions_with_the_value() -> None:
    phi = np.array([1.5, 0.5, 7.0])
    assert contributions._efficient(phi, 0b011, 2, 2.0, 3)
    assert not contributions._efficient(phi, 0b111, 2, 7.0, 3)


def test_every_coalition_is_simulated_once_in_size_order() -> None:
    coalitions = all_coalitions(3)
    sizes = [bin(m).count("1") for m in coalitions.masks.tolist()]
    assert sorted(coalitions.masks.tolist()) == list(range(1, 8)) and sizes == sorted(sizes)
    assert coalitions.masks[coalitions.grand] == 7
    assert all(coalitions.masks[coalitions.value_ent[m]] == m for m in range(1, 8))
