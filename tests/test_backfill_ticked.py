"""Ticked queue orders of the backfilling engine (``drf``, ``directcontr``): worked examples, the slow twin
(tests/naive/ticked_naive.py) on random small workloads for every backfilling rule, the validator on every
schedule, and the rules of the keyed queue (re-sorted only when a key changed)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairsched.backfill import BackfillJobs, simulate
from fairsched.backfill.engine import BackfillSimulator
from fairsched.backfill.policies import backfill_names, order_names
from fairsched.backfill.policies._ticked import set_keys_by_org, sort_queue
from fairsched.backfill.validate import check_backfill_schedule
from fairsched.backfill.view import N_CLOCK, N_QUEUE
from fairsched.errors import ConfigError
from tests.naive.ticked_naive import simulate_ticked_naive
from tests.test_backfill_naive import tied_workload

TICKED = order_names(ticked=True)
COMBOS = list(itertools.product(TICKED, backfill_names()))


def test_the_ticked_orders_are_registered() -> None:
    assert TICKED == ["drf", "directcontr", "slurm-fair-tree", "slurm-classic"]
    assert len(COMBOS) == 20


def starts(jobs: BackfillJobs, order: str, backfill: str, **params) -> list[int]:
    result = simulate(jobs, order=order, backfill=backfill, order_params=params)
    assert check_backfill_schedule(result.schedule, jobs, order=order, backfill=backfill,
                                   calc_period=params.get("calc_period", 300)) == []
    return result.schedule["start"].tolist()


# -- worked examples ----------------------------------------------------------------------------------------
# DRF, 4 CPUs, two organizations with equal shares (quota 2 CPUs each), ticks every 10 s. Job 0 (org 0) takes
# the 4 CPUs over [0, 10); jobs 1, 3 (org 0) and 2, 4 (org 1) arrive at 1..4 with the key of tick 0 (everyone 0),
# so in FCFS order. Tick 10: job 0 still counts as running (its termination at 10 comes after the tick), org 0
# borrows 2 CPUs over its quota: d_0 = 2 / 4 = 0.5, d_1 = 0, so org 1's jobs 2 and 4 go first and take the 4
# CPUs at 10. Tick 20: org 1 now borrows, jobs 1 and 3 start. FCFS would start 1, 2 at 10 and 3, 4 at 20.
DRF_JOBS = BackfillJobs.from_arrays(submit=[0, 1, 2, 3, 4], run=[10] * 5, procs=[4, 2, 2, 2, 2],
                                    requested=[10, 15, 15, 15, 15], n_processors=4)
DRF_ORG = [0, 0, 1, 0, 1]


@pytest.mark.parametrize("backfill", backfill_names())
def test_drf_serves_the_organization_that_borrows_least(backfill: str) -> None:
    got = starts(DRF_JOBS, "drf", backfill, org=DRF_ORG, calc_period=10)
    fcfs = simulate(DRF_JOBS, order="fcfs", backfill=backfill).schedule["start"].tolist()
    assert fcfs == [0, 10, 10, 20, 20]
    # conservative: every job got its reservation at submission, in FCFS order; reordering only changes who
    # gets first pick when a job ends early, and none does here
    assert got == (fcfs if backfill == "conservative" else [0, 20, 10, 20, 10])


def test_drf_counts_memory_when_it_dominates() -> None:
    """Org 0's jobs hold 1 CPU but 60 of 100 memory units: it borrows memory (quota 50), org 1 goes first."""
    jobs = BackfillJobs.from_arrays(submit=[0, 1, 2], run=[10, 10, 10], procs=[1, 4, 4], n_processors=4)
    by_memory = starts(jobs, "drf", "easy", org=[0, 0, 1], calc_period=5, memory=[60, 10, 10],
                       memory_capacity=100)
    cpus_only = starts(jobs, "drf", "easy", org=[0, 0, 1], calc_period=5)
    assert by_memory == [0, 20, 10] and cpus_only == [0, 10, 20]


# DIRECTCONTR, 2 CPUs, equal shares, ticks every 5 s: job 0 (org 0) runs on both CPUs over [0, 10). Tick 5:
# 2ψ_0 = 2 · 5² = 50, 2ψ_1 = 0, so key_0 = 2·50 − 50 = 50 > key_1 = −50: org 1 lags its contribution, its job 2
# goes before job 1 (org 0, submitted first) and starts at 10.
DC_JOBS = BackfillJobs.from_arrays(submit=[0, 1, 2], run=[10, 5, 5], procs=[2, 2, 2], n_processors=2)


@pytest.mark.parametrize("backfill", backfill_names())
def test_directcontr_serves_the_organization_that_lags_its_contribution(backfill: str) -> None:
    got = starts(DC_JOBS, "directcontr", backfill, org=[0, 0, 1], calc_period=5)
    assert simulate(DC_JOBS, order="fcfs", backfill=backfill).schedule["start"].tolist() == [0, 10, 15]
    assert got == ([0, 10, 15] if backfill == "conservative" else [0, 15, 10])


def test_directcontr_shares_weigh_the_contribution() -> None:
    """Shares 3:1 (S = 4): at tick 5 key_0 = 4·50 − 3·50 = 50 > key_1 = 4·0 − 1·50 = −50, org 1 first. Shares
    1:0 (org 1 owns nothing, so contributes nothing): key_0 = 1·50 − 1·50 = 0 = key_1 = 0 − 0: a tie, broken by
    submission, so job 1 goes first."""
    assert starts(DC_JOBS, "directcontr", "easy", org=[0, 0, 1], calc_period=5, shares=[3, 1]) == [0, 15, 10]
    assert starts(DC_JOBS, "directcontr", "easy", org=[0, 0, 1], calc_period=5, shares=[1, 0]) == [0, 10, 15]


def test_directcontr_keys_at_a_tick_by_hand() -> None:
    """Job 0 (org 0, 1 CPU) ran over [0, 10); job 1 (org 1, 1 CPU) runs since 5. At the tick t = 15 (before
    job 2's submission): 2ψ_0 = 1·(15² − 5²) = 200, 2ψ_1 = 1·(15 − 5)² = 100, Σ = 300, S = 2, so
    key_0 = 2·200 − 300 = 100 and key_1 = 2·100 − 300 = −100."""
    jobs = BackfillJobs.from_arrays(submit=[0, 5, 15], run=[10, 20, 1], procs=[1, 1, 1], n_processors=2)
    sim = BackfillSimulator(jobs, "directcontr", "easy", order_params={"org": [0, 1, 0], "calc_period": 5})
    assert sim.run(pause_before=2)
    assert sim.tick.ost.tolist() == [10.0, 0.0, 100.0, 0.0, 100.0, -100.0]  # Σp·d, Σp·d·(S+E) (ended), keys
    assert sim.run() is False
    assert sim.key[2] == 100.0


def test_drf_keys_at_a_tick_by_hand() -> None:
    """At t = 15 org 0 holds 3 of 4 CPUs and 30 of 40 memory units, quota 1/3 (shares 1:2): CPU excess
    (3·3 − 1·4) / (3·4) = 5/12, memory (30·3 − 1·40) / (3·40) = 5/12 too, over weight 2: 5/24; org 1 holds
    1 CPU under its quota 8/3: 0."""
    jobs = BackfillJobs.from_arrays(submit=[0, 1, 15], run=[30, 30, 1], procs=[3, 1, 1], n_processors=4)
    sim = BackfillSimulator(jobs, "drf", "easy", order_params={
        "org": [0, 1, 1], "shares": [1, 2], "weights": [2, 1], "memory": [30, 0, 0], "memory_capacity": 40,
        "calc_period": 5})
    assert sim.run(pause_before=2)
    assert sim.tick.ost.tolist() == [3.0, 1.0, 30.0, 0.0, 5 / 24, 0.0]


@pytest.mark.parametrize(("order", "backfill"), COMBOS)
def test_one_organization_is_fcfs(order: str, backfill: str) -> None:
    """All keys equal: ties by submission, and no tick ever reorders the queue (so it never adds a pass)."""
    for seed in range(8):
        jobs = tied_workload(seed)
        fcfs = simulate(jobs, order="fcfs", backfill=backfill).schedule["start"].tolist()
        assert starts(jobs, order, backfill, calc_period=7) == fcfs


# -- the slow twin --------------------------------------------------------------------------------------------
@st.composite
def ticked_cases(draw: st.DrawFn) -> dict:
    n_procs = draw(st.integers(1, 6))
    n = draw(st.integers(1, 12))
    k = draw(st.integers(1, 3))
    submit = sorted(draw(st.lists(st.integers(0, draw(st.sampled_from([3, 10, 30]))), min_size=n, max_size=n)))
    run = draw(st.lists(st.integers(1, 12), min_size=n, max_size=n))
    slack = draw(st.lists(st.sampled_from([0, 0, 1, 5]), min_size=n, max_size=n))
    return {"jobs": BackfillJobs.from_arrays(submit, run, draw(st.lists(st.integers(1, n_procs), min_size=n,
                                                                          max_size=n)),
                                             [r + s for r, s in zip(run, slack, strict=True)], n_processors=n_procs),
            "org": draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)),
            "shares": draw(st.lists(st.integers(1, 3), min_size=k, max_size=k)),
            "calc_period": draw(st.sampled_from([1, 3, 7])),
            "memory": draw(st.one_of(st.none(), st.lists(st.integers(0, 8), min_size=n, max_size=n))),
            "weights": draw(st.lists(st.integers(0, 2), min_size=k, max_size=k))}


def run_both(case: dict, order: str, backfill: str) -> tuple[list[int], list[int]]:
    jobs, org = case["jobs"], case["org"]
    params = {"org": np.array(org), "shares": case["shares"], "calc_period": case["calc_period"]}
    twin = {"org": org, "shares": case["shares"], "period": case["calc_period"]}
    if order == "drf":
        params["weights"] = twin["weights"] = case["weights"]
        if case["memory"] is not None:
            params["memory"] = twin["memory"] = case["memory"]
            params["memory_capacity"] = twin["memory_capacity"] = 16
    got = starts(jobs, order, backfill, **params)
    naive = simulate_ticked_naive(jobs.submit, jobs.run, jobs.procs, jobs.requested, jobs.n_processors, order,
                                  backfill, **twin).start
    return got, naive


@settings(max_examples=150, deadline=None)
@given(case=ticked_cases(), order=st.sampled_from(TICKED), backfill=st.sampled_from(backfill_names()))
def test_engine_equals_the_twin(case: dict, order: str, backfill: str) -> None:
    got, naive = run_both(case, order, backfill)
    assert got == naive


@pytest.mark.parametrize(("order", "backfill"), COMBOS)
def test_engine_equals_the_twin_on_tied_workloads(order: str, backfill: str) -> None:
    """Workloads where submissions, terminations, planned ends and ticks collide (period 5 = their grid)."""
    reordered = 0
    for seed in range(10):
        jobs = tied_workload(seed)
        rng = np.random.default_rng(seed)
        case = {"jobs": jobs, "org": rng.integers(0, 3, jobs.n_jobs).tolist(), "shares": [1, 2, 3],
                "calc_period": int(rng.choice([5, 10])), "memory": rng.integers(0, 8, jobs.n_jobs).tolist(),
                "weights": [1, 1, 2]}
        got, naive = run_both(case, order, backfill)
        assert got == naive, f"seed {seed}"
        reordered += got != simulate(jobs, order="fcfs", backfill=backfill).schedule["start"].tolist()
    assert reordered >= 5  # the cases are not all FCFS in disguise


@pytest.mark.parametrize(("order", "backfill"), COMBOS)
def test_pausing_and_forking_change_nothing(order: str, backfill: str) -> None:
    """Pausing at every arrival and resuming gives the uninterrupted schedule; a fork taken at any arrival
    (the order's running state and keys copied) and run on reproduces each job's real start."""
    jobs = tied_workload(3)
    params = {"org": np.arange(jobs.n_jobs) % 3, "calc_period": 5}
    real = simulate(jobs, order=order, backfill=backfill, order_params=params).schedule["start"].tolist()
    sim = BackfillSimulator(jobs, order, backfill, order_params=params)
    scratch = BackfillSimulator(jobs, order, backfill, order_params=params)
    for job in range(jobs.n_jobs):
        assert sim.run(pause_before=job)
        assert sim.fork(into=scratch).run_until_started(job) == real[job]
    sim.run()
    assert sim.schedule()["start"].tolist() == real
    other = BackfillSimulator(jobs, order, backfill, order_params={**params, "shares": [1, 1, 5]})
    with pytest.raises(ConfigError, match="order parameters"):
        sim.fork(into=other)


# -- the keyed queue ------------------------------------------------------------------------------------------
def test_a_tick_that_changes_no_key_leaves_the_queue_alone() -> None:
    queue = np.zeros((3, 4), dtype=np.int64)
    queue[0] = [2, 0, 3, 1]  # sorted by (key, job): keys 0, 1, 1, 5
    clock = np.zeros(N_CLOCK, dtype=np.int64)
    clock[N_QUEUE] = 4
    org = np.array([1, 2, 0, 1])
    org_key = np.array([0.0, 1.0, 5.0])
    key = org_key[org].copy()
    assert not set_keys_by_org(queue, clock, org, org_key, key)
    assert not sort_queue(queue, clock, key)
    org_key[2] = -1.0  # org 2 (job 1) now ranks first
    assert set_keys_by_org(queue, clock, org, org_key, key)
    assert sort_queue(queue, clock, key)
    assert queue[0].tolist() == [1, 2, 0, 3]


@pytest.mark.parametrize(("order", "params", "message"), [
    ("drf", {"org": [0, 1]}, "one integer organization index per job"),
    ("drf", {"org": [0, 0, 0, 0, -1]}, "0-based"),
    ("drf", {"shares": [1, -1]}, "shares must be finite"),
    ("drf", {"calc_period": 0}, "calc_period"),
    ("drf", {"memory": [1, 2]}, "memory must give one"),
    ("directcontr", {"memory": [1] * 5}, "has no parameter"),
    ("fcfs", {"calc_period": 10}, "takes no parameters"),
])
def test_bad_parameters_are_refused(order: str, params: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        simulate(DRF_JOBS, order=order, backfill="easy", order_params=params)
