"""The backfilling schedule validator: valid engine schedules pass; schedules broken on purpose (one rule at a
time) are caught with a sentence naming the job and time; the policy-specific guarantees are checked only where
the policy gives them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairsched.backfill import BackfillJobs, simulate
from fairsched.backfill.validate import check_backfill_schedule, validate_backfill_schedule
from fairsched.errors import ConfigError, InvalidScheduleError
from tests.test_backfill_examples import CONSERVATIVE_CASE, EXAMPLE_A, EXAMPLE_B, SJF_CASE, make_jobs


def schedule_of(jobs: BackfillJobs, starts: list[int]) -> pd.DataFrame:
    start = np.asarray(starts, dtype=np.int64)
    return pd.DataFrame({"job": jobs.job, "submit": jobs.submit, "start": start, "end": start + jobs.run,
                         "procs": jobs.procs})


def only(messages: list[str], fragment: str) -> list[str]:
    return [m for m in messages if fragment in m]


def test_engine_schedules_pass_and_validate_is_silent() -> None:
    jobs = make_jobs(EXAMPLE_B, 6)
    for backfill in ("none", "no-guarantee", "easy", "conservative"):
        schedule = simulate(jobs, backfill=backfill).schedule
        assert check_backfill_schedule(schedule, jobs, backfill=backfill) == []
        validate_backfill_schedule(schedule, jobs, backfill=backfill)


@pytest.mark.parametrize(("change", "fragment"), [
    (lambda s: s.assign(start=s["start"].where(s["job"] != 4, 0)), "starts at t=0, before its submission at t=5"),
    (lambda s: s.assign(end=s["end"].where(s["job"] != 2, 99)), "ends at t=99; expected start + run time = 0 + 100"),
    (lambda s: s.assign(procs=s["procs"].where(s["job"] != 3, 1)), "is listed on 1 processors, but the job needs 4"),
    (lambda s: s.assign(submit=s["submit"].where(s["job"] != 3, 0)), "submitted at t=0, but the job is submitted"),
    (lambda s: pd.concat([s, s.iloc[[1]]]), "job 2 appears 2 times"),
    (lambda s: s.iloc[[0, 1, 2]], "job 4 (submitted at t=5) never runs"),
    (lambda s: pd.concat([s, s.iloc[[0]].assign(job=99)]), "job 99 is not one of the jobs"),
    (lambda s: s.drop(columns="procs"), "lacks column(s) ['procs']"),
    (lambda s: s.assign(start=s["start"] * 1.0), "non-integer column(s) ['start']"),
])
def test_broken_rows_are_named(change, fragment: str) -> None:
    jobs = make_jobs(EXAMPLE_A, 6)
    broken = change(schedule_of(jobs, [0, 0, 10, 5]))
    assert only(check_backfill_schedule(broken, jobs, backfill="easy"), fragment)


def test_capacity_is_checked_at_every_instant() -> None:
    """Example A with job 3 (4 processors) moved to t = 5: jobs 2, 3, 4 then use 8 of 6 processors."""
    jobs = make_jobs(EXAMPLE_A, 6)
    messages = check_backfill_schedule(schedule_of(jobs, [0, 0, 5, 5]), jobs, backfill="conservative")
    assert messages == ["at t=5 the running jobs use 8 processors, more than the machine's 6 (jobs [2, 3, 4])"]
    # Ends free processors at their time: job 3 may start at 10 when job 4 ends at 10 (6 of 6 busy).
    assert check_backfill_schedule(schedule_of(jobs, [0, 0, 10, 5]), jobs, backfill="conservative") == []


def test_fcfs_without_backfilling_must_keep_queue_order() -> None:
    jobs = make_jobs(EXAMPLE_A, 6)
    easy = schedule_of(jobs, [0, 0, 10, 5])
    assert only(check_backfill_schedule(easy, jobs, backfill="none"), "job 4 (row 3) starts at t=5 before job 3")
    assert check_backfill_schedule(easy, jobs, backfill="easy") == []


def test_sjf_without_backfilling_only_the_head_starts() -> None:
    """SJF case: at t = 10 job 3 (requested 5) must start before job 2 (requested 100); starting job 2 at 10 and
    job 3 at 110 breaks SJF (job 3 waited since t = 2) and leaves the SJF head idle though it fits."""
    jobs = make_jobs(SJF_CASE, 4)
    fcfs_like = schedule_of(jobs, [0, 10, 110])
    messages = check_backfill_schedule(fcfs_like, jobs, order="sjf", backfill="none")
    assert only(messages, "at t=10 job 2 (row 1) starts while job 3, ranked before it (sjf)")
    assert check_backfill_schedule(fcfs_like, jobs, order="fcfs", backfill="none") == []


def test_a_waiting_head_that_fits_is_caught() -> None:
    """Example B under EASY with job 4 (the head, 4 processors) delayed from 25 to 60: at t = 25 it fits."""
    jobs = make_jobs(EXAMPLE_B, 6)
    late = schedule_of(jobs, [0, 0, 0, 60, 5])
    messages = check_backfill_schedule(late, jobs, backfill="easy")
    assert only(messages, "at t=25 the queue head (fcfs), job 4 (row 3, 4 processors), waits though it fits")
    assert only(messages, "job 4 (row 3) became the queue head at t=1 with shadow time t=50 but starts at t=60")
    assert only(messages, "job 4 (row 3) starts at t=60, where no job is submitted or ends")
    assert check_backfill_schedule(late, jobs, backfill="conservative") == []  # no such promise there


def test_easy_head_may_not_be_delayed_past_its_shadow_time() -> None:
    """Conservative case (P = 4). EASY's schedule backfills job 4 at t = 3, so when job 3 becomes the head (t = 10)
    its shadow time is 103. If job 4 instead starts at t = 20 (job 2's end), job 3's shadow time at t = 10 was
    20 (job 2's planned end) and starting it at 120 breaks EASY's guarantee, although capacity holds and the head
    never fits while waiting."""
    jobs = make_jobs(CONSERVATIVE_CASE, 4)
    assert check_backfill_schedule(schedule_of(jobs, [0, 10, 103, 3]), jobs, backfill="easy") == []
    broken = schedule_of(jobs, [0, 10, 120, 20])
    messages = check_backfill_schedule(broken, jobs, backfill="easy")
    assert messages == ["job 3 (row 2) became the queue head at t=10 with shadow time t=20 but starts at t=120: "
                        "EASY backfilling delayed the head's reservation"]


def test_no_guarantee_starts_every_job_that_fits() -> None:
    """The conservative schedule of the conservative case keeps job 4 (1 processor) waiting at t = 3 though one
    processor is free: valid for conservative, not for no-guarantee."""
    jobs = make_jobs(CONSERVATIVE_CASE, 4)
    cons = schedule_of(jobs, [0, 10, 20, 30])
    assert check_backfill_schedule(cons, jobs, backfill="conservative") == []
    messages = check_backfill_schedule(cons, jobs, backfill="no-guarantee")
    assert only(messages, "at t=3 a waiting job, job 4 (row 3, 1 processors), waits though it fits")


def test_max_messages_and_the_raising_form() -> None:
    jobs = BackfillJobs.from_arrays(np.zeros(30), np.full(30, 10), np.ones(30), n_processors=1)
    everything_at_zero = schedule_of(jobs, [0] * 30)
    messages = check_backfill_schedule(everything_at_zero, jobs, backfill="conservative", max_messages=None)
    assert len(messages) == 1  # one instant, t = 0, over capacity
    shifted = schedule_of(jobs, [-1 - i for i in range(30)])
    limited = check_backfill_schedule(shifted, jobs, backfill="conservative", max_messages=3)
    assert only(limited, "... and 27 more starts before submission (not listed)")
    with pytest.raises(InvalidScheduleError, match=r"breaks the backfilling model's rules \(fcfs × easy\)"):
        validate_backfill_schedule(shifted, jobs)
    with pytest.raises(ConfigError, match="expected an order in"):
        check_backfill_schedule(shifted, jobs, order="fifo")
