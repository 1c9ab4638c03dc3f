"""Incremental conservative re-planning (`fairsched.backfill.policies._compress`) against the full re-plan it
replaced (`conservative.FULL_REPLAN`, the slow twin): same schedules and same fair start times, on hand-built
profiles, random small workloads, workloads full of simultaneous events and a slice of CTC-SP2. The pyss oracle
(tests/test_backfill_oracle.py) checks both against pyss job for job.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairsched.backfill import BackfillJobs, jobs_from_workload, simulate
from fairsched.backfill.engine import BackfillSimulator
from fairsched.backfill.fairness import fair_start_times, fair_start_times_both
from fairsched.backfill.policies._compress import certify, certify_from, first_fit, search_from, stays
from fairsched.backfill.policies.conservative import CONSERVATIVE, FULL_REPLAN
from fairsched.backfill.view import CERT_SIZE, CERT_TAIL, N_CLOCK, N_PROCS, N_PROF, P_FREE, P_TIME, QUIET
from fairsched.workload.clean import clean
from fairsched.workload.swf import read_swf
from fairsched.workload.transform import first_jobs
from tests.conftest import trace_path
from tests.test_backfill_naive import small_jobs, tied_workload

ORDERS = ("fcfs", "sjf", "lxf")


def profile(times: list[int], free: list[int], n_processors: int) -> tuple[np.ndarray, np.ndarray]:
    """A clock and a free-processor profile with these breakpoints (the last segment has every processor)."""
    clock = np.zeros(N_CLOCK, dtype=np.int64)
    clock[N_PROF], clock[N_PROCS] = len(times), n_processors
    prof = np.zeros((2, 16), dtype=np.int64)
    prof[P_TIME, :len(times)], prof[P_FREE, :len(times)] = times, free
    return clock, prof


def test_a_certificate_by_hand() -> None:
    """4 processors, free: 1 on [0, 10), 4 on [10, 20), 0 on [20, 30), 4 from 30. A job of 2 processors and 15 s
    reserved at 30 cannot start earlier: starts 0..9 meet [0, 10) (time 9 blocks all of them), starts 10..24 meet
    time 24, starts 25..29 meet time 29. Raising [20, 25) to 2 free breaks the point 24: start 10 then fits."""
    clock, prof = profile([0, 10, 20, 30], [1, 4, 0, 4], 4)
    cert = np.zeros((1, CERT_SIZE), dtype=np.int64)
    assert first_fit(0, 30, 2, 15, clock, prof) == -1
    certify(0, 30, 2, 15, 0, clock, prof, cert)
    assert cert[0, :4].tolist() == [3, 9, 24, 29] and cert[0, CERT_TAIL] == 30
    assert stays(0, 30, 2, 15, 0, clock, prof, cert)
    assert stays(12, 30, 2, 15, 0, clock, prof, cert)  # later: fewer windows, still blocked
    clock, prof = profile([0, 10, 20, 25, 30], [1, 4, 2, 0, 4], 4)
    assert not stays(0, 30, 2, 15, 0, clock, prof, cert)
    assert first_fit(0, 30, 2, 15, clock, prof) == 10


def test_a_certificate_past_its_size_leaves_a_tail_that_is_searched() -> None:
    """A 1 s job on 2 processors reserved at 80 behind 80 full seconds needs 80 blocking times (0, 1, ..., 79):
    the certificate keeps the first ones, and the windows from its tail on are searched at each check, so a
    processor freed at 70 is seen."""
    clock, prof = profile([0, 80], [0, 2], 2)
    cert = np.zeros((1, CERT_SIZE), dtype=np.int64)
    certify(0, 80, 1, 1, 0, clock, prof, cert)
    kept = int(cert[0, 0])
    assert kept == CERT_TAIL - 1 and cert[0, 1:kept + 1].tolist() == list(range(kept))
    assert cert[0, CERT_TAIL] == kept
    assert stays(0, 80, 1, 1, 0, clock, prof, cert)
    clock, prof = profile([0, 70, 71, 80], [0, 1, 0, 2], 2)
    assert not stays(0, 80, 1, 1, 0, clock, prof, cert)
    assert first_fit(0, 80, 1, 1, clock, prof) == 70


def starts(jobs: BackfillJobs, order: str, backfill: object, **params: object) -> list[int]:
    return simulate(jobs, order=order, backfill=backfill, order_params=params or None).schedule["start"].tolist()


@pytest.mark.parametrize("order", ORDERS)
def test_incremental_equals_the_full_replan_on_tied_workloads(order: str) -> None:
    moved = 0
    for seed in range(40):
        jobs = tied_workload(seed)
        got = starts(jobs, order, CONSERVATIVE)
        assert got == starts(jobs, order, FULL_REPLAN), f"seed {seed}"
        for kind in ("strict", "relaxed"):
            fst = fair_start_times(jobs, order=order, backfill=CONSERVATIVE, kind=kind)
            assert fst.tolist() == fair_start_times(jobs, order=order, backfill=FULL_REPLAN, kind=kind).tolist()
        moved += got != starts(jobs, order, "none")
    assert moved >= 30  # the workloads do backfill


@pytest.mark.parametrize("order", ["drf", "directcontr"])
def test_incremental_equals_the_full_replan_under_ticked_orders(order: str) -> None:
    for seed in range(10):
        jobs = tied_workload(seed)
        params = {"org": (np.arange(jobs.n_jobs) * 7 % 3).tolist(), "calc_period": 5}
        assert starts(jobs, order, CONSERVATIVE, **params) == starts(jobs, order, FULL_REPLAN, **params)


@settings(max_examples=150, deadline=None)
@given(jobs=small_jobs(), order=st.sampled_from(ORDERS))
def test_incremental_equals_the_full_replan_on_random_workloads(jobs: BackfillJobs, order: str) -> None:
    assert starts(jobs, order, CONSERVATIVE) == starts(jobs, order, FULL_REPLAN)
    for kind in ("strict", "relaxed"):
        fast = fair_start_times(jobs, order=order, backfill=CONSERVATIVE, kind=kind)
        assert fast.tolist() == fair_start_times(jobs, order=order, backfill=FULL_REPLAN, kind=kind).tolist()


@pytest.mark.traces
def test_incremental_equals_the_full_replan_on_ctc_sp2() -> None:
    """The first 2,000 jobs of CTC-SP2 (338 processors): every start and every strict fair start time, where
    compressions move many reservations at each early end."""
    workload, _ = clean(read_swf(trace_path("CTC-SP2-1996-3.1-cln.swf.gz")), max_processors=338)
    jobs = jobs_from_workload(first_jobs(workload, 2000), n_processors=338)
    for order in ORDERS:
        assert starts(jobs, order, CONSERVATIVE) == starts(jobs, order, FULL_REPLAN), order
    fst = fair_start_times(jobs, order="fcfs", backfill=CONSERVATIVE, kind="strict")
    np.testing.assert_array_equal(fst, fair_start_times(jobs, order="fcfs", backfill=FULL_REPLAN, kind="strict"))
    sim = BackfillSimulator(jobs, "fcfs", CONSERVATIVE)
    queue = [len(sim.reservations()) for job in range(0, 2000, 50) if sim.run(pause_before=job)]
    assert max(queue) > 20  # a real queue, with reservations to compress


def test_the_slow_twin_is_conservative_by_name_but_not_registered() -> None:
    from fairsched.backfill.registry import get_backfill

    assert FULL_REPLAN.name == CONSERVATIVE.name and FULL_REPLAN.reservations == -1
    assert get_backfill("conservative") is CONSERVATIVE
    jobs = tied_workload(0)
    assert simulate(jobs, backfill=FULL_REPLAN).meta["backfill"] == "conservative"


def test_a_broken_certificate_is_searched_from_its_first_broken_time() -> None:
    """The certificate of test_a_certificate_by_hand, (9, 24, 29) for a job of 2 processors and 15 s reserved at
    30: raising [20, 25) to 2 free breaks 24 while 9 still blocks, so no start up to 9 fits (every such window
    holds 9) and the search starts at 10, keeping 9; the new certificate keeps 9 and goes on from 10."""
    clock, prof = profile([0, 10, 20, 30], [1, 4, 0, 4], 4)
    cert = np.zeros((1, CERT_SIZE), dtype=np.int64)
    certify(0, 30, 2, 15, 0, clock, prof, cert)
    clock, prof = profile([0, 10, 20, 25, 30], [1, 4, 2, 0, 4], 4)
    assert search_from(0, 30, 2, 15, 0, clock, prof, cert) == (10, 1)
    assert search_from(10, 30, 2, 15, 0, clock, prof, cert) == (10, 0)  # 9 is past: dropped
    clock, prof = profile([0, 10, 20, 25, 30], [1, 4, 2, 1, 4], 4)  # [25, 30) too: a start at 10 fits
    cert = np.zeros((1, CERT_SIZE), dtype=np.int64)
    cert[0, :4], cert[0, CERT_TAIL] = [3, 9, 24, 29], 30
    lo, kept = search_from(0, 30, 2, 15, 0, clock, prof, cert)
    assert (lo, kept) == (10, 1) and first_fit(lo, 30, 2, 15, clock, prof) == 10
    certify_from(lo, kept, 30, 2, 15, 0, clock, prof, cert)  # a new reservation at 30 for the sake of the example
    assert cert[0, :2].tolist() == [1, 9] and cert[0, CERT_TAIL] == 10  # [10, 25) fits: nothing more to certify


@st.composite
def long_queues(draw: st.DrawFn) -> BackfillJobs:
    """20-40 jobs on 3-8 processors arriving together: long queues whose certificates hold several blocking
    times, most jobs ending exactly at their requested time (the quiet compressions) and some early."""
    n_procs = draw(st.integers(3, 8))
    n = draw(st.integers(20, 40))
    submit = sorted(draw(st.lists(st.integers(0, 30), min_size=n, max_size=n)))
    run = draw(st.lists(st.integers(1, 30), min_size=n, max_size=n))
    slack = draw(st.lists(st.sampled_from([0, 0, 0, 2, 15, 60]), min_size=n, max_size=n))
    procs = draw(st.lists(st.integers(1, n_procs), min_size=n, max_size=n))
    return BackfillJobs.from_arrays(submit, run, procs, [r + s for r, s in zip(run, slack, strict=True)],
                                    n_processors=n_procs)


@settings(max_examples=120, deadline=None)
@given(jobs=long_queues(), order=st.sampled_from(ORDERS))
def test_shortcuts_equal_the_full_replan_on_long_queues(jobs: BackfillJobs, order: str) -> None:
    """The quiet compressions and the search from the first broken time give the full re-plan's schedule and
    fair start times (strict and relaxed) on long queues."""
    assert starts(jobs, order, CONSERVATIVE) == starts(jobs, order, FULL_REPLAN)
    fast = fair_start_times_both(jobs, order=order, backfill=CONSERVATIVE)
    slow = fair_start_times_both(jobs, order=order, backfill=FULL_REPLAN)
    assert [a.tolist() for a in fast] == [a.tolist() for a in slow]


def test_quiet_after_a_compression_that_moved_nothing() -> None:
    """clock[QUIET] is 1 after a compression that moved nothing and 0 after one that moved a reservation (the
    next compression with nothing released is skipped only in the first case). 2 processors: A (requested 10,
    runs 4) and X (requested 20) on one processor each from 0; B (2 processors, 5 s) is reserved at 20. A ends
    at 4 and frees one processor until 10: B still cannot move. If X ends at 3 instead, B moves to 10, then to 4
    when A ends, and starts."""
    for run_x, quiet, b_start in ((20, 1, 20), (3, 0, 4)):
        jobs = BackfillJobs.from_arrays([0, 0, 1, 5], [4, run_x, 5, 1], [1, 1, 2, 1], [10, 20, 5, 1],
                                        n_processors=2)
        sim = BackfillSimulator(jobs, "fcfs", CONSERVATIVE)
        assert sim.run(pause_before=3)  # every event before 5: the terminations at 3 (or not) and 4
        assert sim.clock[QUIET] == quiet
        assert (sim.start_time(2) or sim.run_until_started(2)) == b_start


@st.composite
def exact_estimates(draw: st.DrawFn) -> BackfillJobs:
    """Jobs whose requested time is their run time (OSC-Clust, SDSC-Par: traces without estimates)."""
    n_procs = draw(st.integers(2, 6))
    n = draw(st.integers(2, 25))
    submit = sorted(draw(st.lists(st.integers(0, 40), min_size=n, max_size=n)))
    run = draw(st.lists(st.integers(1, 20), min_size=n, max_size=n))
    procs = draw(st.lists(st.integers(1, n_procs), min_size=n, max_size=n))
    return BackfillJobs.from_arrays(submit, run, procs, run, n_processors=n_procs)


@settings(max_examples=100, deadline=None)
@given(jobs=exact_estimates())
def test_exact_estimates_under_conservative_give_no_fst_miss(jobs: BackfillJobs) -> None:
    """Why the JSSPP'05 OSC grid shows 0 for both FST unfairness figures under conservative (docs/replication/
    jsspp05.md, "The OSC grid"): with exact estimates no job ends early, so no reservation ever moves, and an
    arrival only takes room no earlier job holds. Each job starts at the reservation it got on arrival, whatever
    arrives later: strict FST = start. Its relaxed what-if reserves it after the earlier jobs have started, in the
    same profile from a later time: relaxed FST >= start, so max(start - FST, 0) = 0 for both, computed. And the
    queue order only orders compressions, which move nothing: FCFS, SJF and LXF give one schedule."""
    fcfs = simulate(jobs, order="fcfs", backfill=CONSERVATIVE).schedule
    start = fcfs["start"].to_numpy()
    strict, relaxed = fair_start_times_both(jobs, order="fcfs", backfill=CONSERVATIVE, schedule=fcfs)
    np.testing.assert_array_equal(strict, start)
    assert np.all(relaxed >= start)
    for order in ("sjf", "lxf"):
        assert starts(jobs, order, CONSERVATIVE) == start.tolist()


@pytest.mark.traces
def test_osc_at_90_percent_has_exact_estimates_and_no_fst_miss() -> None:
    """The OSC grid's input (first 5,000 cleaned jobs, 90 %): every estimate is the run time, and on its first
    800 jobs under FCFS × conservative strict FST = start for every job while relaxed FST >= start; some
    relaxed FSTs are later than the start (a benefit, not a miss), so the values are computed, not copied."""
    from fairsched.workload.transform import scale_to_load

    workload = read_swf(trace_path("OSC-Clust-2000-3.1-cln.swf.gz"))
    procs = workload.header_int("MaxProcs")
    cleaned, _ = clean(workload, max_processors=procs)
    scaled = scale_to_load(first_jobs(cleaned, 5000), 0.9, procs, how="runtime")
    everything = jobs_from_workload(scaled, n_processors=procs)
    assert np.array_equal(everything.requested, everything.run)
    jobs = jobs_from_workload(first_jobs(scaled, 800), n_processors=procs)
    start = simulate(jobs, order="fcfs", backfill=CONSERVATIVE).schedule["start"].to_numpy()
    strict, relaxed = fair_start_times_both(jobs, order="fcfs", backfill=CONSERVATIVE)
    np.testing.assert_array_equal(strict, start)
    assert np.all(relaxed >= start) and np.sum(relaxed > start) > 0
    assert np.sum(start > jobs.submit) > 50  # 62 jobs wait: the zero is not an empty queue
