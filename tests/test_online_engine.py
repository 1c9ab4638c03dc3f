"""Engine semantics: horizon, copies of parallel jobs, explicit machines, decision checks, overflow guard."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from fairsched.errors import ConfigError, PolicyError
from fairsched.online.engine import OnlineSimulator, simulate
from fairsched.online.view import Assignment, OnlineView, ScenarioInfo, Tags
from fairsched.scenario import scenario_from_arrays
from tests.test_online_psi import psi_brute_force


@dataclass
class Scripted:
    """A test policy that replays a fixed answer at every decision (or computes it from the view)."""

    answer: object = None
    name = "scripted"
    tags = Tags()

    def reset(self, info: ScenarioInfo, rng: np.random.Generator) -> None:
        self.seen_ = []

    def decide(self, view: OnlineView) -> Assignment:
        self.seen_.append((view.now, view.waiting.tolist(), view.n_free))
        return self.answer(view) if callable(self.answer) else self.answer


def lowest_org_first(view: OnlineView) -> Assignment:
    return Assignment(orgs=np.repeat(np.arange(view.waiting.size), view.waiting)[: view.n_to_start])


def test_copies_of_a_parallel_job_start_fifo_and_share_the_job_number() -> None:
    # Org 0: a 3-processor job (3 copies) then a 1-processor job; 2 machines.
    scenario = scenario_from_arrays(release=[0, 0], processing_time=[4, 1], org=[0, 0], machines_per_org=[2],
                                    copies=[3, 1], job=[10, 11])
    result = simulate(scenario, Scripted(lowest_org_first))
    rows = result.schedule[["job", "start", "end"]].to_numpy().tolist()
    assert rows == [[10, 0, 4], [10, 0, 4], [10, 4, 8], [11, 4, 5]]


def test_horizon_stops_decisions_and_takes_psi_at_t_end() -> None:
    scenario = scenario_from_arrays(release=[0, 0, 5, 9], processing_time=[6, 3, 2, 4], org=[0, 1, 0, 1],
                                    machines_per_org=[1, 0], horizon=8)
    result = simulate(scenario, Scripted(lowest_org_first))
    # One machine. Job 1 [0,6); at 6 org 0 (lowest first) starts job 3 [6,8); job 2 starts at t_end = 8 (kept,
    # it adds 0 units at 8); job 4, released at 9 > horizon, never appears.
    assert result.schedule[["job", "start"]].to_numpy().tolist() == [[1, 0], [3, 6], [2, 8]]
    assert result.t_end == 8
    assert result.psi.tolist() == [psi_brute_force([0, 6], [6, 2], 8), 0]


def test_explicit_machines_are_used_in_order() -> None:
    scenario = scenario_from_arrays(release=[0, 0], processing_time=[2, 2], org=[0, 1], machines_per_org=[2, 2])
    result = simulate(scenario, Scripted(lambda v: Assignment(orgs=np.array([1, 0]), machines=np.array([3, 2]))))
    got = result.schedule.sort_values("job")[["job", "machine"]].to_numpy().tolist()
    assert got == [[1, 2], [2, 3]]
    # Units of org 1's job ran on machine 3 (owner 1), org 0's on machine 2 (owner 1): all credit to owner 1.
    assert result.per_org["psi_by_machine_owner"].tolist() == [0, 2 * (2 + 1)]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (Assignment(orgs=np.array([0])), "must start exactly 2 jobs"),
        (Assignment(orgs=np.array([0, 0, 0])), "must start exactly 2 jobs"),
        (Assignment(orgs=np.array([0, 5])), "organization 5 does not exist"),
        (Assignment(orgs=np.array([1, 1])), "more jobs of organization 1 than the 1 waiting"),
        (Assignment(orgs=np.array([0, 1]), machines=np.array([0, 0])), "machine 0 is busy or listed twice"),
        (Assignment(orgs=np.array([0, 1]), machines=np.array([0, 9])), "machine 9 does not exist"),
        (Assignment(orgs=np.array([0, 1]), machines=np.array([0])), "gave 1 machines for 2 jobs"),
    ],
)
def test_illegal_decisions_raise_policy_error(answer: Assignment, message: str) -> None:
    scenario = scenario_from_arrays(release=[0, 0, 0], processing_time=[1, 1, 1], org=[0, 0, 1],
                                    machines_per_org=[1, 1])
    with pytest.raises(PolicyError, match=message):
        simulate(scenario, Scripted(answer))


@pytest.mark.parametrize(
    ("answer", "got"),
    [
        ([Assignment(orgs=np.array([0, 1]))], "got a list of 1 Assignments"),  # `decide -> list[Assignment]`
        (np.array([0, 1]), "got ndarray"),  # the organizations, not wrapped in an Assignment
        (None, "got NoneType"),  # a decide that forgot to return
    ],
)
def test_a_decision_that_is_not_an_assignment_is_a_policy_error(answer: object, got: str) -> None:
    scenario = scenario_from_arrays(release=[0, 0, 0], processing_time=[1, 1, 1], org=[0, 0, 1],
                                    machines_per_org=[1, 1])
    with pytest.raises(PolicyError, match=rf"^scripted at t=0: decide must return one Assignment .*, {got};"):
        simulate(scenario, Scripted(answer))


def test_busy_machine_is_refused() -> None:
    scenario = scenario_from_arrays(release=[0, 1], processing_time=[5, 1], org=[0, 0], machines_per_org=[2])
    sim = OnlineSimulator(scenario)
    assert sim.run_until_decision()
    sim.apply(Assignment(orgs=np.array([0]), machines=np.array([1])))
    assert sim.run_until_decision()
    assert sim.now == 1 and sim.free_machines().tolist() == [0]
    with pytest.raises(PolicyError, match="machine 1 is busy"):
        sim.apply(Assignment(orgs=np.array([0]), machines=np.array([1])))


def test_policy_is_asked_only_when_a_machine_is_free_and_a_job_waits() -> None:
    scenario = scenario_from_arrays(release=[0, 1, 2, 10], processing_time=[3, 1, 1, 1], org=[0, 0, 1, 1],
                                    machines_per_org=[1, 0])
    policy = Scripted(lowest_org_first)
    simulate(scenario, policy)
    # t=0 start job 1; releases at 1 and 2 find the machine busy; t=3 job 2; t=4 job 3; t=10 job 4.
    assert policy.seen_ == [(0, [1, 0], 1), (3, [1, 1], 1), (4, [0, 1], 1), (10, [0, 1], 1)]


def test_utilities_that_could_overflow_int64_are_refused() -> None:
    scenario = scenario_from_arrays(release=[0, 10**10], processing_time=[1, 1], org=[0, 0],
                                    machines_per_org=[8192])
    with pytest.raises(ConfigError, match="overflow 64-bit"):
        OnlineSimulator(scenario)


def test_unsorted_or_invalid_records_are_refused() -> None:
    good = scenario_from_arrays(release=[0, 1], processing_time=[1, 1], org=[0, 0], machines_per_org=[1])
    bad = good.jobs.copy()
    bad.loc[0, "processing_time"] = 0
    with pytest.raises(ConfigError, match="processing times must be >= 1"):
        OnlineSimulator(type(good)(jobs=bad, machine_owner=good.machine_owner, n_orgs=1))


def test_only_clairvoyant_policies_see_the_jobs_table() -> None:
    scenario = scenario_from_arrays(release=[0], processing_time=[4], org=[0], machines_per_org=[1])
    seen = {}

    @dataclass
    class Peek(Scripted):
        def reset(self, info: ScenarioInfo, rng: np.random.Generator) -> None:
            super().reset(info, rng)
            seen[self.tags.clairvoyant] = info.jobs

    for clairvoyant in (False, True):
        policy = Peek(lowest_org_first)
        policy.tags = Tags(clairvoyant=clairvoyant)
        simulate(scenario, policy)
    assert seen[False] is None
    assert seen[True]["processing_time"].tolist() == [4]
