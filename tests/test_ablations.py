"""The ablation switches of issue #12, each on a hand-made instance where it must change the schedule.

Every switch defaults to today's behaviour; each test runs both settings, validates both schedules and checks the
exact difference worked out in its docstring.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest

from fairsched.errors import ConfigError
from fairsched.online.engine import simulate
from fairsched.online.policies import get_policy
from fairsched.online.policies.directcontr import DirectContr
from fairsched.online.policies.rand import printed_terms
from fairsched.online.validate import check_online_schedule
from fairsched.online.view import OnlineView, Tags
from fairsched.replicate._online_windows import warm_window
from fairsched.scenario import Scenario, build_scenario, scenario_from_arrays, split_machines
from fairsched.workload.model import Workload
from fairsched.workload.schema import SWF_FIELDS

ROW = ["job", "org", "start"]


def run(scenario: Scenario, name: str, seed: int = 0, **params: object) -> list[list[int]]:
    """(job, org, start) rows by job, after the validator accepted the schedule."""
    result = simulate(scenario, get_policy(name, **params), seed=seed)
    assert check_online_schedule(result.schedule, scenario, t_end=scenario.horizon) == []
    return result.schedule.sort_values("job")[ROW].to_numpy().tolist()


def test_directcontr_printed_lines_15_16_reverse_the_first_contended_choice() -> None:
    """Org 0 runs two jobs of 4 s on both machines (one each) from t = 0; at t = 1 org 0 releases job 3 and
    org 1 jobs 4 and 5; at t = 4 two machines free up for three waiting jobs.

    Corrected: psi = (2·(1+2+3+4), 0) = (20, 0), phi = (10, 10): lag = (-10, 10), org 1 takes both machines.
    Printed: the interval (0, 4] adds X - Y = (20 - 10, 0 - 10) twice to the lag: (10, -10), org 0 goes first
    (job 3), then org 1 (job 4); job 5 waits. The machine order does not matter here (every seed)."""
    scenario = scenario_from_arrays(release=[0, 0, 1, 1, 1], processing_time=[4, 4, 2, 2, 2],
                                    org=[0, 0, 0, 1, 1], machines_per_org=[1, 1])
    for seed in range(5):
        assert run(scenario, "directcontr", seed) == [[1, 0, 0], [2, 0, 0], [3, 0, 6], [4, 1, 4], [5, 1, 4]]
        assert run(scenario, "directcontr", seed, update="printed") == [
            [1, 0, 0], [2, 0, 0], [3, 0, 4], [4, 1, 4], [5, 1, 6]]
    assert run(scenario, "directcontr", 0, update="corrected") == run(scenario, "directcontr", 0)
    with pytest.raises(ConfigError, match="update='swapped'"):
        run(scenario, "directcontr", update="swapped")


@pytest.mark.parametrize("name", ["fairshare", "utfairshare"])
def test_fairshare_per_start_spreads_one_decision_over_organizations(name: str) -> None:
    """Both organizations (one machine each) release two unit jobs at t = 0. Frozen ratios tie at 0, so
    org 0 (lowest index) takes both machines; re-evaluated after each start, org 0's first job counts at once
    and the second machine goes to org 1."""
    scenario = scenario_from_arrays(release=[0, 0, 0, 0], processing_time=[1, 1, 1, 1], org=[0, 0, 1, 1],
                                    machines_per_org=[1, 1])
    assert run(scenario, name) == [[1, 0, 0], [2, 0, 0], [3, 1, 1], [4, 1, 1]]
    assert run(scenario, name, ratios="per_start") == [[1, 0, 0], [2, 0, 1], [3, 1, 0], [4, 1, 1]]
    with pytest.raises(ConfigError, match="ratios="):
        run(scenario, name, ratios="lazy")


def test_rand_printed_terms_sum_over_distinct_prefixes() -> None:
    """Orderings (0, 1, 2) and (2, 1, 0), N = 2. Prefixes: ∅, {0}, {0,1} and ∅, {2}, {1,2}: Subs has 5
    distinct sets. Printed: u = 0 gets ∅, {2}, {1,2} (3 terms), u = 1 gets ∅, {2} (2 of them hold no 1:
    ∅ and {2}... and {0}), u = 2 gets ∅, {0}, {0,1}; each with weight 1/2. Mean over orderings: 2 terms each."""
    before = np.array([[0, 1, 3], [6, 4, 0]])  # entry [j, u] = organizations before u in ordering j
    org, subs, weight = printed_terms(3, before, 2)
    terms = sorted(zip(org.tolist(), subs.tolist(), strict=True))
    assert terms == [(0, 0), (0, 4), (0, 6), (1, 0), (1, 1), (1, 4), (2, 0), (2, 1), (2, 3)]
    assert weight.tolist() == [0.5] * 9


def test_rand_printed_estimator_changes_the_schedule() -> None:
    """Two organizations, N = 15: printed φ sums both marginal contributions of each organization with weight
    1/15 (Σ φ = 2/15 of v(grand) instead of v(grand)), so lagging utility dominates φ − ψ. At t = 2 one machine
    is free for jobs 1 (org 1) and 2 (org 0): the mean over orderings serves org 0, the printed sum org 1.
    (Instance found by a search over random two-organization instances; both schedules validated.)"""
    scenario = scenario_from_arrays(release=[0, 0, 1, 2, 2, 3], processing_time=[5, 5, 1, 1, 3, 3],
                                    org=[1, 0, 0, 1, 0, 0], machines_per_org=[2, 1], job=[4, 6, 5, 1, 2, 3])
    exact = run(scenario, "rand", 0, n_orderings=15)
    printed = run(scenario, "rand", 0, n_orderings=15, estimator="printed")
    assert exact[:2] == [[1, 1, 5], [2, 0, 2]] and printed[:2] == [[1, 1, 2], [2, 0, 3]]
    with pytest.raises(ConfigError, match="estimator="):
        run(scenario, "rand", estimator="mean")


# REF's lookahead vs literal rule (hypothesis 5) is tested in tests/test_ref.py
# (test_literal_rule_gives_every_free_machine_to_the_top_organization and the phi records per rule).


def _jobs(**columns: list[float]) -> pd.DataFrame:
    n = len(next(iter(columns.values())))
    frame = pd.DataFrame({field: np.full(n, -1.0) for field in SWF_FIELDS})
    for name, values in columns.items():
        frame[name] = np.asarray(values, dtype=np.float64)
    frame["processors"] = frame["allocated_processors"]
    return frame


def test_warm_window_carries_backlog_and_running_jobs() -> None:
    """Window [100, 200): job 1 ended at 60 (dropped); job 2 runs 80–180 (carried, 80 s left); job 3 waits
    until 150 (carried whole, 30 s); job 4 (missing wait = 0) runs 95–105 (5 s left); job 5 is inside."""
    jobs = _jobs(job_number=[1, 2, 3, 4, 5], submit_time=[0, 50, 90, 95, 120], wait_time=[0, 30, 60, -1, 0],
                 run_time=[60, 100, 30, 10, 20], allocated_processors=[1, 2, 1, 1, 1], user_id=[1, 1, 2, 2, 3])
    warm = warm_window(Workload(jobs=jobs), start=100, length=100).jobs
    assert warm[["job_number", "submit_time", "run_time", "processors"]].to_numpy().tolist() == [
        [2, 100, 80, 2], [3, 100, 30, 1], [4, 100, 5, 1], [5, 120, 20, 1]]
    scenario = build_scenario(Workload(jobs=warm), n_orgs=2, n_machines=3, seed=0, time_origin=100, horizon=100)
    assert scenario.jobs["release"].tolist() == [0, 0, 0, 20]
    assert run(scenario, "fairshare")  # validated


def test_jobs_uniform_over_organizations_splits_a_single_user() -> None:
    """One user submits 40 jobs: by user they all join one organization; by job they spread over all 5."""
    jobs = _jobs(job_number=list(range(1, 41)), submit_time=list(range(40)), run_time=[5.0] * 40,
                 allocated_processors=[1.0] * 40, user_id=[7.0] * 40)
    by_user = build_scenario(Workload(jobs=jobs), n_orgs=5, n_machines=10, seed=2)
    by_job = build_scenario(Workload(jobs=jobs), n_orgs=5, n_machines=10, seed=2, orgs_by="job")
    assert by_user.jobs["org"].nunique() == 1
    assert sorted(by_job.jobs["org"].unique().tolist()) == [0, 1, 2, 3, 4]
    assert run(by_job, "fairshare")  # validated


def test_zipf_exponent_reaches_the_split() -> None:
    """s = 1.4267 (TPDS'11 Sec. 7.1, our default) gives 64 machines as 35/13/7/5/4 by rank; s = 0 is even."""
    rng = np.random.default_rng(0)
    assert sorted(split_machines(64, 5, "zipf", rng=rng).tolist(), reverse=True) == [35, 13, 7, 5, 4]
    assert sorted(split_machines(64, 5, "zipf", zipf_s=0.0, rng=rng).tolist(), reverse=True) == [13, 13, 13, 13, 12]


@dataclass
class _WatchedPrinted(DirectContr):
    """DIRECTCONTR with lines 15–16 as printed, logging (now, the lag it ranks by) at each decision."""

    seen: list[tuple[int, list[int]]] = field(default_factory=list)
    name = "directcontr"
    tags = Tags(randomized=True)

    def _printed_lag(self, view: OnlineView, lag: list[int]) -> list[int]:
        out = super()._printed_lag(view, lag)
        self.seen.append((view.now, out))
        return out


def _printed_lags_brute_force(schedule: pd.DataFrame, owner: np.ndarray, k: int,
                              times: list[int]) -> list[list[int]]:
    """Unit by unit: φ − ψ at each decision time t, plus 2 Σ over the intervals (a, b] between decisions of
    X_u − Y_u, X_u (Y_u) = Σ over units of u's jobs (on u's machines) executed in [a, b) of their value b − i."""
    rows = schedule[["org", "start", "end", "machine"]].to_numpy().tolist()
    swapped, previous, out = [0] * k, None, []
    for t in times:
        if previous is not None:
            for org, start, end, machine in rows:
                for i in range(max(start, previous), min(end, t)):
                    swapped[org] += t - i
                    swapped[int(owner[machine])] -= t - i
        psi, phi = [0] * k, [0] * k
        for org, start, end, machine in rows:
            for i in range(start, min(end, t)):
                psi[org] += t - i
                phi[int(owner[machine])] += t - i
        out.append([phi[u] - psi[u] + 2 * swapped[u] for u in range(k)])
        previous = t
    return out


@pytest.mark.parametrize("seed", range(25))
def test_directcontr_printed_lag_equals_unit_by_unit_sums(seed: int) -> None:
    """The closed form of `_printed_lag` against a unit-by-unit count on random small scenarios."""
    rng = np.random.default_rng(seed)
    k, n = int(rng.integers(2, 5)), int(rng.integers(3, 30))
    scenario = scenario_from_arrays(release=rng.integers(0, 12, n), processing_time=rng.integers(1, 8, n),
                                    org=rng.integers(0, k, n), machines_per_org=rng.integers(1, 3, k))
    policy = _WatchedPrinted(update="printed")
    result = simulate(scenario, policy, seed=seed)
    assert check_online_schedule(result.schedule, scenario) == []
    times = [now for now, _ in policy.seen]
    assert [lag for _, lag in policy.seen] == _printed_lags_brute_force(result.schedule, scenario.machine_owner,
                                                                        k, times)
