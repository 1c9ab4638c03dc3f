"""The compiled engine against its slow twin (tests/naive/backfill_naive.py, written from the pyss README's rules)
on random small workloads built to have many simultaneous events, for every queue order × backfilling rule;
plus hypothesis invariants (every schedule passes the independent validator).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairsched.backfill import BackfillJobs, simulate
from fairsched.backfill.policies import BACKFILLS, ORDERS, backfill_names, order_names
from fairsched.backfill.validate import check_backfill_schedule
from tests.naive.backfill_naive import simulate_naive

ORDERS_OF_THE_TWIN = order_names(ticked=False)  # the ticked orders have their own twin (tests/test_backfill_ticked.py)
COMBOS = list(itertools.product(ORDERS_OF_THE_TWIN, backfill_names()))
SEEDS = range(40)


def test_every_policy_is_registered() -> None:
    assert ORDERS_OF_THE_TWIN == ["fcfs", "sjf", "lxf"]
    assert order_names(ticked=True) == ["drf", "directcontr", "slurm-fair-tree", "slurm-classic"]
    assert len(ORDERS) == 7
    assert backfill_names() == ["none", "no-guarantee", "easy", "conservative", "slurm"]
    assert len(COMBOS) == len(ORDERS_OF_THE_TWIN) * len(BACKFILLS) == 15


def tied_workload(seed: int) -> BackfillJobs:
    """20–45 jobs on 4–8 processors where events collide: submit times, run times and requested times are
    multiples of 5 in small ranges (about three jobs per submit time), so submissions, terminations and planned
    ends often share a timestamp; about half the jobs end exactly at their requested time and the others early,
    and some jobs are wide."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 46))
    n_procs = int(rng.choice([4, 6, 8]))
    submit = np.sort(rng.integers(0, n // 3, n)) * 5
    run = rng.integers(1, 7, n) * 5
    requested = run + np.where(rng.random(n) < 0.5, 0, rng.integers(1, 5, n) * 5)
    procs = np.minimum(rng.integers(1, n_procs + 1, n), np.where(rng.random(n) < 0.3, n_procs, n_procs // 2))
    return BackfillJobs.from_arrays(submit, run, procs, requested, n_processors=n_procs)


def test_workloads_have_simultaneous_events_and_early_ends() -> None:
    """The generator really produces the hard cases (a generator of easy cases would make the test moot)."""
    for seed in SEEDS:
        jobs = tied_workload(seed)
        result = simulate(jobs, order="fcfs", backfill="easy").schedule
        ends = result["end"].to_numpy()
        assert np.unique(jobs.submit).size < jobs.n_jobs / 2  # submissions share timestamps
        assert np.intersect1d(ends, jobs.submit).size >= 1  # a termination at a submission time
        assert ends.size - np.unique(ends).size >= 2  # terminations share timestamps
        assert np.any(jobs.requested > jobs.run) and np.any(jobs.requested == jobs.run)
        assert (result["wait"] > 0).mean() > 0.3


@pytest.mark.parametrize(("order", "backfill"), COMBOS)
def test_engine_equals_naive_twin(order: str, backfill: str) -> None:
    for seed in SEEDS:
        jobs = tied_workload(seed)
        engine = simulate(jobs, order=order, backfill=backfill).schedule["start"].tolist()
        naive = simulate_naive(jobs.submit, jobs.run, jobs.procs, jobs.requested, jobs.n_processors, order,
                               backfill).start
        differ = [i for i, (a, b) in enumerate(zip(engine, naive, strict=True)) if a != b]
        assert not differ, f"seed {seed}: jobs {differ[:5]} start at {[engine[i] for i in differ[:5]]}, naive " \
                           f"{[naive[i] for i in differ[:5]]}"


@st.composite
def small_jobs(draw: st.DrawFn) -> BackfillJobs:
    n_procs = draw(st.integers(1, 6))
    n = draw(st.integers(1, 14))
    window = draw(st.sampled_from([0, 3, 10, 40]))
    submit = sorted(draw(st.lists(st.integers(0, window), min_size=n, max_size=n)))
    run = draw(st.lists(st.integers(1, 12), min_size=n, max_size=n))
    slack = draw(st.lists(st.sampled_from([0, 0, 1, 5, 20]), min_size=n, max_size=n))
    procs = draw(st.lists(st.integers(1, n_procs), min_size=n, max_size=n))
    return BackfillJobs.from_arrays(submit, run, procs, [r + s for r, s in zip(run, slack, strict=True)],
                                    n_processors=n_procs)


@given(jobs=small_jobs(), order=st.sampled_from(ORDERS_OF_THE_TWIN), backfill=st.sampled_from(backfill_names()))
def test_every_schedule_is_valid_and_matches_the_twin(jobs: BackfillJobs, order: str, backfill: str) -> None:
    schedule = simulate(jobs, order=order, backfill=backfill).schedule
    assert check_backfill_schedule(schedule, jobs, order=order, backfill=backfill) == []
    naive = simulate_naive(jobs.submit, jobs.run, jobs.procs, jobs.requested, jobs.n_processors, order, backfill)
    assert schedule["start"].tolist() == naive.start
