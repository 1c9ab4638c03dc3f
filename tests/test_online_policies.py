"""The contract suite: every registered online policy, on hand-made and generated scenarios.

Like scikit-learn's ``check_estimator``: each check runs for every name in `REGISTRY` (pytest ids = names);
tags add checks (``randomized``). Every schedule goes through `fairsched.online.validate.validate_online_schedule`
(greedy, FIFO per organization, no overlap, releases respected, each job exactly once).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings

from fairsched.errors import PolicyError
from fairsched.online.engine import simulate
from fairsched.online.policies import REGISTRY, get_policy
from fairsched.online.policies._ordering import fill_in_order, lowest_ratio_first
from fairsched.online.policies.roundrobin import RoundRobin
from fairsched.online.validate import validate_online_schedule
from fairsched.online.view import Assignment, OnlinePolicy, OnlineView, ScenarioInfo, Tags
from fairsched.scenario import Scenario, scenario_from_arrays
from tests.naive.online_time_stepped import simulate_time_stepped
from tests.strategies import online_scenarios, scenario_pairs_differing_in_processing_times

assert REGISTRY, "no online policy registered: the contract suite below would check nothing"
NAMES = sorted(REGISTRY)
# Non-clairvoyant policies: the only ones the naive twin can run (it never shows processing times) and the only
# ones the non-clairvoyance check applies to. REF and RAND (clairvoyant benchmarks) have their own twin.
NON_CLAIRVOYANT = [name for name in NAMES if not REGISTRY[name].tags.clairvoyant]
EXPECTED_NAMES = {"roundrobin", "fairshare", "utfairshare", "currfairshare", "directcontr"}
BENCHMARK_NAMES = {"ref", "ref-literal", "rand", "rand-antithetic", "rand-stratified"}


@dataclass
class Recorder:
    """Wraps a policy and logs each decision as (now, orgs, machines or None)."""

    inner: OnlinePolicy
    log: list[tuple[int, list[int], list[int] | None]] = field(default_factory=list)
    name = "recorder"

    @property
    def tags(self) -> Tags:  # the inner policy's: the engine shows processing times to clairvoyant ones only
        return self.inner.tags

    def reset(self, info: ScenarioInfo, rng: np.random.Generator) -> None:
        self.log.clear()
        self.inner.reset(info, rng)

    def decide(self, view: OnlineView) -> Assignment:
        decision = self.inner.decide(view)
        machines = None if decision.machines is None else np.asarray(decision.machines).tolist()
        self.log.append((view.now, np.asarray(decision.orgs).tolist(), machines))
        return decision


def run(name: str, scenario: Scenario, seed: int = 0) -> tuple[pd.DataFrame, Recorder, int]:
    recorder = Recorder(get_policy(name))
    result = simulate(scenario, recorder, seed=seed)
    return result.schedule, recorder, result.t_end


def test_registry_holds_the_papers_policies() -> None:
    assert set(REGISTRY) >= EXPECTED_NAMES | BENCHMARK_NAMES
    assert REGISTRY["directcontr"].tags.randomized
    assert not any(REGISTRY[name].tags.clairvoyant for name in EXPECTED_NAMES)
    assert all(REGISTRY[name].tags.clairvoyant for name in BENCHMARK_NAMES)
    assert set(NON_CLAIRVOYANT) == set(NAMES) - BENCHMARK_NAMES


# -- generated scenarios ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES, ids=NAMES)
@settings(max_examples=40)
@given(scenario=online_scenarios(with_horizon=True))
def test_schedules_are_valid_and_fifo_per_org(name: str, scenario: Scenario) -> None:
    schedule, _, t_end = run(name, scenario, seed=1)
    validate_online_schedule(schedule, scenario, t_end=t_end)
    # FIFO per organization, stated independently of fairsched.online.validate: starts follow (release, job) order.
    by_release = schedule.sort_values(["org", "release", "job", "start"], kind="stable")
    for _, rows in by_release.groupby("org"):
        assert rows["start"].is_monotonic_increasing


@pytest.mark.parametrize("name", NON_CLAIRVOYANT, ids=NON_CLAIRVOYANT)
@settings(max_examples=30)
@given(scenario=online_scenarios(with_horizon=True))
def test_engine_agrees_with_the_time_stepped_twin(name: str, scenario: Scenario) -> None:
    """The event-driven engine and the naive simulator start the same jobs at the same times."""
    result = simulate(scenario, get_policy(name), seed=2)
    twin = simulate_time_stepped(scenario, seed=2, policy=get_policy(name))
    columns = ["job", "org", "start", "end"]
    engine_rows = result.schedule.sort_values(columns)[columns].to_numpy().tolist()
    assert engine_rows == twin.schedule.sort_values(columns)[columns].to_numpy().tolist()
    assert (result.t_end, result.psi.tolist()) == (twin.t_end, twin.psi)


@pytest.mark.parametrize("name", NON_CLAIRVOYANT, ids=NON_CLAIRVOYANT)
@settings(max_examples=25)
@given(pair=scenario_pairs_differing_in_processing_times())
def test_decisions_before_the_first_completion_ignore_processing_times(
        name: str, pair: tuple[Scenario, Scenario]) -> None:
    """Non-clairvoyance: until a job completes in either run, nothing reveals the processing times."""
    (schedule_a, rec_a, _), (schedule_b, rec_b, _) = (run(name, scenario, seed=3) for scenario in pair)
    first_completion = min(schedule_a["end"].min(), schedule_b["end"].min())
    before_a = [entry for entry in rec_a.log if entry[0] < first_completion]
    before_b = [entry for entry in rec_b.log if entry[0] < first_completion]
    assert before_a  # the first release is always decided before any completion
    assert before_a == before_b


@pytest.mark.parametrize("name", NAMES, ids=NAMES)
@settings(max_examples=15)
@given(scenario=online_scenarios())
def test_same_seed_gives_the_same_schedule(name: str, scenario: Scenario) -> None:
    first, log_first, _ = run(name, scenario, seed=11)
    again, log_again, _ = run(name, scenario, seed=11)
    pd.testing.assert_frame_equal(first, again)
    assert log_first.log == log_again.log


def seed_sensitive_scenario(name: str) -> Scenario:
    """A scenario where a randomized policy's random choices show in the schedule."""
    if not REGISTRY[name].tags.clairvoyant:
        # 2 organizations x 3 machines, 8 jobs at t = 0: which machine gets which job is a free choice.
        return scenario_from_arrays(release=[0] * 8, processing_time=[1, 2, 3, 4, 5, 6, 7, 8], org=[0, 1] * 4,
                                    machines_per_org=[3, 3])
    # RAND's randomness is which coalitions it samples: it shows when they disagree, so 6 organizations (with
    # fewer, antithetic pairs or small strata enumerate every coalition) with 1 machine each and 40 bursty jobs.
    rng = np.random.default_rng(5)
    return scenario_from_arrays(release=rng.integers(0, 10, 40), processing_time=rng.integers(1, 9, 40),
                                org=rng.integers(0, 6, 40), machines_per_org=[1] * 6)


@pytest.mark.parametrize("name", NAMES, ids=NAMES)
def test_only_randomized_policies_depend_on_the_seed(name: str) -> None:
    scenario = seed_sensitive_scenario(name)
    distinct = {tuple(map(tuple, run(name, scenario, seed)[0].to_numpy().tolist())) for seed in range(8)}
    assert (len(distinct) > 1) == REGISTRY[name].tags.randomized


def test_strategies_generate_contention() -> None:
    """Guard against a strategy that only produces trivial cases: a job must often wait for a machine."""
    waited: list[bool] = []

    @settings(max_examples=100, derandomize=True, database=None)
    @given(scenario=online_scenarios())
    def collect(scenario: Scenario) -> None:
        schedule = simulate(scenario, get_policy("roundrobin")).schedule
        waited.append(bool((schedule["start"] > schedule["release"]).any()))

    collect()
    assert len(waited) >= 80
    assert sum(waited) >= 0.4 * len(waited), f"only {sum(waited)} of {len(waited)} scenarios make a job wait"


# -- hand-computed timelines -----------------------------------------------------------------------------------
# Organization 0 owns machine 0, organization 1 machines 1 and 2 (shares 1/3 and 2/3).
#   t=0  org 0 releases jobs 1-3 (p=2): the only waiting jobs, they take all machines
#   t=2  org 1 releases jobs 4-6 (p=5): likewise, until t=7
#   t=7  org 0 releases jobs 7-9, org 1 jobs 10-12 (p=1): 6 jobs for 3 machines
# At t=7: work done W = (6, 15); psi = (3*(7+6), 3*(5+4+3+2+1)) = (39, 45); phi, credited to machine owners
# (machine 0 ran one job of each organization) = (13+15, 2*13+2*15) = (28, 56).
BURST = scenario_from_arrays(release=[0, 0, 0, 2, 2, 2, 7, 7, 7, 7, 7, 7],
                             processing_time=[2, 2, 2, 5, 5, 5, 1, 1, 1, 1, 1, 1],
                             org=[0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1], machines_per_org=[1, 2])
BURST_DECISIONS = {
    # FAIRSHARE at 7: W/m(u) = 6/1 < 15/2, org 0 first; at 8: 9/1 > 15/2, but only org 1 waits anyway.
    "fairshare": [(0, [0, 0, 0]), (2, [1, 1, 1]), (7, [0, 0, 0]), (8, [1, 1, 1])],
    # UTFAIRSHARE at 7: psi/m(u) = 39/1 > 45/2: org 1 first (older work weighs more in psi than in W).
    "utfairshare": [(0, [0, 0, 0]), (2, [1, 1, 1]), (7, [1, 1, 1]), (8, [0, 0, 0])],
    # CURRFAIRSHARE at 7: loads (0,0) tie -> 0; (1,0): 1/1 > 0/2 -> 1; (1,1): 1/1 > 1/2 -> 1.
    # At 8 (nothing runs; org 0 has 2 waiting, org 1 one): 0, then 1, then org 1 is empty -> 0.
    "currfairshare": [(0, [0, 0, 0]), (2, [1, 1, 1]), (7, [0, 1, 1]), (8, [0, 1, 0])],
    # ROUNDROBIN: the cycle position is 0 after t=2, so 0,1,0 at 7, then 1,0,1 at 8.
    "roundrobin": [(0, [0, 0, 0]), (2, [1, 1, 1]), (7, [0, 1, 0]), (8, [1, 0, 1])],
    # DIRECTCONTR at 7: phi - psi = (28 - 39, 56 - 45) = (-11, 11): org 1 takes every machine.
    "directcontr": [(0, [0, 0, 0]), (2, [1, 1, 1]), (7, [1, 1, 1]), (8, [0, 0, 0])],
    # REF needs the singletons' schedules. {0} (1 machine): jobs 1-3 in slots 0-5, so v({0}, 7) = 7+6+...+2 = 27,
    # W = 6; job 7 runs in slot 7: v({0}, 8) = 34. {1} (2 machines): jobs 4, 5 in slots 2-6, v({1}, 7) = 2*15 = 30,
    # W = 10; jobs 6 and 10 start at 7: v({1}, 8) = 42. Grand coalition: v(7) = 39 + 45 = 84.
    # ref-literal at 7: phi = (27/2 + (84-30)/2, 30/2 + (84-27)/2) = (40.5, 43.5); phi - psi = (1.5, -1.5): org 0.
    "ref-literal": [(0, [0, 0, 0]), (2, [1, 1, 1]), (7, [0, 0, 0]), (8, [1, 1, 1])],
    # ref (lookahead) at 7: v(grand, 8) = (39+6+0) + (45+15+0) + 3 started = 108, phi(8) = (34/2 + (108-42)/2,
    # 42/2 + (108-34)/2) = (50, 58); g = phi(8) - (psi + W + n) = (50 - 45, 58 - 60) = (5, -2): org 0 gets all 3.
    "ref": [(0, [0, 0, 0]), (2, [1, 1, 1]), (7, [0, 0, 0]), (8, [1, 1, 1])],
    # RAND: with 2 organizations every kept coalition is simulated FIFO exactly as REF schedules it here, so with a
    # share p of orderings putting org 0 first, phi(8) = (66 - 32p, 42 + 32p), g = (21 - 32p, -18 + 32p).
    # Seed 0 draws p = 10/15: g = (-0.33, 3.33), org 1 takes all 3; seed 1 draws p = 7/15: org 0 does (as REF).
    "rand": {0: [(0, [0, 0, 0]), (2, [1, 1, 1]), (7, [1, 1, 1]), (8, [0, 0, 0])],
             1: [(0, [0, 0, 0]), (2, [1, 1, 1]), (7, [0, 0, 0]), (8, [1, 1, 1])]},
    # Antithetic orderings: p = 1/2 exactly, g = (5, -2): REF's decision. Stratified: both strata (sizes 0 and 1)
    # hold one coalition each, enumerated: the exact phi.
    "rand-antithetic": [(0, [0, 0, 0]), (2, [1, 1, 1]), (7, [0, 0, 0]), (8, [1, 1, 1])],
    "rand-stratified": [(0, [0, 0, 0]), (2, [1, 1, 1]), (7, [0, 0, 0]), (8, [1, 1, 1])],
}


def test_every_registered_policy_has_a_hand_computed_timeline() -> None:
    assert set(BURST_DECISIONS) == set(REGISTRY)


def test_every_registered_policy_is_documented() -> None:
    """docs/online-policies.md's table has one row per registered policy (docs/contributing.md, online step 5)."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "online-policies.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([\w-]+)` \|", doc, re.M))
    assert rows == set(REGISTRY)


@pytest.mark.parametrize("name", sorted(BURST_DECISIONS), ids=sorted(BURST_DECISIONS))
@pytest.mark.parametrize("seed", [0, 1])
def test_burst_timeline(name: str, seed: int) -> None:
    schedule, recorder, t_end = run(name, BURST, seed)
    decisions = BURST_DECISIONS[name]
    decisions = decisions[seed] if isinstance(decisions, dict) else decisions  # per seed when the seed matters
    assert [(t, orgs) for t, orgs, _ in recorder.log] == decisions
    # Each decision starts the named organizations' head jobs, FIFO: org 0 releases 1,2,3,7,8,9; org 1 4,5,6,10,11,12.
    queues = [[1, 2, 3, 7, 8, 9], [4, 5, 6, 10, 11, 12]]
    expected = sorted((queues[org].pop(0), t) for t, orgs in decisions for org in orgs)
    assert sorted(zip(schedule["job"].tolist(), schedule["start"].tolist(), strict=True)) == expected
    assert t_end == 9


# One machine (organization 1 owns none: share 0, an infinite ratio). Job 1 (org 0, p=2), job 2 (org 1),
# job 3 (org 0) all released at 0: the fair-share family serves org 0 while it waits, org 1 last.
@pytest.mark.parametrize("name", ["fairshare", "utfairshare", "currfairshare"])
def test_organization_without_machines_is_served_last(name: str) -> None:
    scenario = scenario_from_arrays(release=[0, 0, 0], processing_time=[2, 1, 1], org=[0, 1, 0],
                                    machines_per_org=[1, 0])
    schedule, _, _ = run(name, scenario)
    assert schedule[["job", "start"]].to_numpy().tolist() == [[1, 0], [3, 2], [2, 3]]


def test_ratios_are_compared_exactly_beyond_float_and_int64() -> None:
    # usage/share = 1e18 + 1 versus 1e18 + 0.5: equal as floats; the products overflow int64.
    usage = [3 * 10**18 + 3, 4 * 10**18 + 2]
    assert lowest_ratio_first(usage, [3, 4], [0, 1]) == [1, 0]
    assert lowest_ratio_first([6, 3, 6], [2, 1, 2], [0, 1, 2]) == [0, 1, 2]  # all tie: lowest index first


def test_fill_in_order_empties_each_queue_before_the_next() -> None:
    waiting = np.array([2, 0, 3, 1])
    assert fill_in_order([2, 3, 0], waiting, 5).tolist() == [2, 2, 2, 3, 0]
    assert fill_in_order([3, 0, 2], waiting, 6).tolist() == [3, 0, 0, 2, 2, 2]
    assert fill_in_order([0], waiting, 0).tolist() == []


def test_roundrobin_rounds_equal_the_plain_cycle() -> None:
    """ROUNDROBIN's vectorized path (large decisions) serves exactly the organizations its loop would."""
    rng = np.random.default_rng(8)
    checked = 0
    for _ in range(300):
        waiting = rng.integers(0, 5, int(rng.integers(1, 6)))
        if waiting.sum() == 0:
            continue
        n_to_start, first = int(rng.integers(1, waiting.sum() + 1)), int(rng.integers(0, waiting.size))
        loop, rounds = RoundRobin(), RoundRobin()
        for policy in (loop, rounds):
            policy.n_orgs_, policy.next_org_ = waiting.size, first
        expected = loop._cycle_loop(waiting.tolist(), n_to_start).tolist()
        assert rounds._cycle_rounds(waiting, n_to_start).tolist() == expected
        assert rounds.next_org_ == loop.next_org_
        checked += 1
    assert checked > 200


# -- illegal decisions -------------------------------------------------------------------------------------------
@dataclass
class Corrupted:
    """A registered policy whose answer is broken by `corrupt` once it has a choice to make."""

    inner: OnlinePolicy
    corrupt: str
    name = "corrupted"

    @property
    def tags(self) -> Tags:
        return self.inner.tags

    def reset(self, info: ScenarioInfo, rng: np.random.Generator) -> None:
        self.inner.reset(info, rng)
        self.n_machines_ = info.n_machines

    def decide(self, view: OnlineView) -> Assignment:
        decision = self.inner.decide(view)
        orgs = np.asarray(decision.orgs)
        machines = view.free_machines()[: orgs.size] if decision.machines is None else np.asarray(decision.machines)
        busy = np.setdiff1d(np.arange(self.n_machines_), view.free_machines())
        if self.corrupt == "busy machine" and busy.size == 0:
            return decision  # nothing to corrupt yet
        broken = {
            "one job too few": Assignment(orgs[:-1], None if decision.machines is None else machines[:-1]),
            "one job too many": Assignment(np.append(orgs, orgs[:1]), None),
            "unknown org": Assignment(np.full_like(orgs, view.waiting.size), None),
            "org without waiting jobs": Assignment(np.full_like(orgs, int(np.argmin(view.waiting))), None),
            "machine listed twice": Assignment(orgs, np.full_like(machines, machines[0])),
            "unknown machine": Assignment(orgs, np.full_like(machines, self.n_machines_)),
            "busy machine": Assignment(orgs, busy[: orgs.size]),
        }
        return broken[self.corrupt]


# 2 machines; at t=0 org 0 has 3 jobs, org 1 none; at t=1 one machine is busy until 5, org 1 has 1 job.
CONTESTED = scenario_from_arrays(release=[0, 0, 0, 1], processing_time=[5, 1, 1, 1], org=[0, 0, 0, 1],
                                 machines_per_org=[1, 1])


@pytest.mark.parametrize("name", NAMES, ids=NAMES)
@pytest.mark.parametrize("corrupt", ["one job too few", "one job too many", "unknown org", "org without waiting jobs",
                                     "machine listed twice", "unknown machine"])
def test_illegal_assignments_raise_policy_error(name: str, corrupt: str) -> None:
    with pytest.raises(PolicyError, match="corrupted at t=0"):
        simulate(CONTESTED, Corrupted(get_policy(name), corrupt))


@pytest.mark.parametrize("name", NAMES, ids=NAMES)
def test_starting_on_a_busy_machine_raises_policy_error(name: str) -> None:
    with pytest.raises(PolicyError, match=r"corrupted at t=1: machine [01] is busy"):
        simulate(CONTESTED, Corrupted(get_policy(name), "busy machine"))
