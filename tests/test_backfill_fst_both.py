"""`fair_start_times_both` (strict and relaxed fair start times together, one shared replay per job under
conservative backfilling) against `fair_start_times` computed kind by kind (the slow twin: two what-ifs per job)
and against the from-scratch twin of tests/naive/fst_naive.py: by hand, on random small workloads (hypothesis),
on workloads full of simultaneous events, under every queue order, and on a slice of CTC-SP2.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairsched.backfill import BackfillJobs, jobs_from_workload, simulate
from fairsched.backfill.fairness import fair_start_times, fair_start_times_both
from fairsched.backfill.policies import order_names
from fairsched.backfill.policies.conservative import FULL_REPLAN
from fairsched.errors import ConfigError
from fairsched.workload.clean import clean
from fairsched.workload.swf import read_swf
from fairsched.workload.transform import first_jobs
from tests.conftest import trace_path
from tests.naive.fst_naive import fst_from_scratch
from tests.test_backfill_fairness import CONSERVATIVE_COUNTEREXAMPLES, FIG3, tied_workload
from tests.test_backfill_naive import small_jobs

RULES = ("conservative", FULL_REPLAN, "easy", "no-guarantee")


def apart(jobs: BackfillJobs, order: str, backfill: object) -> tuple[list[int], list[int]]:
    return tuple(fair_start_times(jobs, order=order, backfill=backfill, kind=kind).tolist()  # type: ignore[return-value]
                 for kind in ("strict", "relaxed"))


def together(jobs: BackfillJobs, order: str, backfill: object) -> tuple[list[int], list[int]]:
    strict, relaxed = fair_start_times_both(jobs, order=order, backfill=backfill)
    assert strict.dtype == relaxed.dtype == np.int64
    return strict.tolist(), relaxed.tolist()


def test_fig3_by_hand_under_conservative() -> None:
    """JSSPP'05 Fig. 3 under conservative: Q1 (job 2, 9 processors) is reserved at 100; Q5 (job 3, 2 processors,
    80 s) fits before that reservation and starts at 20. Strict: without Q5, Q1 moves to 40 when R1 and R2 end
    at 40. Relaxed for Q5: Q1 starts first (40, until 90), and Q5, added at 40 with 1 processor free, starts
    at 90."""
    assert together(FIG3, "fcfs", "conservative") == ([0, 0, 40, 20], [0, 0, 40, 90])
    assert simulate(FIG3, order="fcfs", backfill="conservative").schedule["start"].tolist() == [0, 0, 100, 20]


@pytest.mark.parametrize("case", CONSERVATIVE_COUNTEREXAMPLES, ids=lambda case: case[0])
def test_relaxed_below_strict_is_kept(case: tuple) -> None:
    """The shrunk counterexamples of tests/test_backfill_fairness.py (relaxed < strict for the last job): the
    shared replay gives the same two values, so the strict one is not read off the relaxed replay."""
    order, submit, run, procs, requested, n_procs, strict, relaxed = case
    jobs = BackfillJobs.from_arrays(submit, run, procs, requested, n_processors=n_procs)
    got_strict, got_relaxed = together(jobs, order, "conservative")
    assert (got_strict[-1], got_relaxed[-1]) == (strict, relaxed)
    assert (got_strict, got_relaxed) == apart(jobs, order, "conservative")


@pytest.mark.parametrize("order", order_names())
def test_equals_kind_by_kind_on_tied_workloads(order: str) -> None:
    shared = 0
    for seed in range(25):
        jobs = tied_workload(seed)
        for backfill in RULES:
            assert together(jobs, order, backfill) == apart(jobs, order, backfill), (seed, backfill)
        strict, relaxed = together(jobs, order, "conservative")
        shared += sum(r != s for r, s in zip(relaxed, strict, strict=True))
    assert shared >= 25  # the relaxed values are not copies of the strict ones


@pytest.mark.parametrize("order", ["fcfs", "sjf", "lxf"])
def test_equals_the_from_scratch_twin(order: str) -> None:
    for seed in range(300, 306):
        jobs = tied_workload(seed, n_max=30)
        strict, relaxed = together(jobs, order, "conservative")
        assert strict == fst_from_scratch(jobs, order, "conservative", "strict"), seed
        assert relaxed == fst_from_scratch(jobs, order, "conservative", "relaxed"), seed


@settings(max_examples=200, deadline=None)
@given(jobs=small_jobs(), order=st.sampled_from(["fcfs", "sjf", "lxf"]), backfill=st.sampled_from(RULES))
def test_equals_kind_by_kind_on_random_workloads(jobs: BackfillJobs, order: str, backfill: object) -> None:
    assert together(jobs, order, backfill) == apart(jobs, order, backfill)


def test_progress_and_schedule_check() -> None:
    jobs = tied_workload(1)
    calls: list[tuple[int, int]] = []
    fair_start_times_both(jobs, order="fcfs", backfill="conservative", progress=lambda d, n: calls.append((d, n)))
    assert calls[0] == (0, jobs.n_jobs) and calls[-1] == (jobs.n_jobs, jobs.n_jobs)
    wrong = simulate(jobs, order="fcfs", backfill="none").schedule
    with pytest.raises(ConfigError, match="not this run's"):
        fair_start_times_both(jobs, order="fcfs", backfill="conservative", schedule=wrong)


@pytest.mark.traces
def test_equals_kind_by_kind_on_ctc_sp2() -> None:
    """The first 1,500 jobs of CTC-SP2 (338 processors), whose queues hold dozens of reservations."""
    workload, _ = clean(read_swf(trace_path("CTC-SP2-1996-3.1-cln.swf.gz")), max_processors=338)
    jobs = jobs_from_workload(first_jobs(workload, 1500), n_processors=338)
    for order in ("fcfs", "sjf", "lxf"):
        strict, relaxed = together(jobs, order, "conservative")
        assert (strict, relaxed) == apart(jobs, order, "conservative"), order
        assert sum(r != s for r, s in zip(relaxed, strict, strict=True)) > 100
