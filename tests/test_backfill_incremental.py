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
from fairsched.backfill.fairness import fair_start_times
from fairsched.backfill.policies._compress import certify, first_fit, stays
from fairsched.backfill.policies.conservative import CONSERVATIVE, FULL_REPLAN
from fairsched.backfill.view import CERT_SIZE, CERT_TAIL, N_CLOCK, N_PROCS, N_PROF, P_FREE, P_TIME
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
