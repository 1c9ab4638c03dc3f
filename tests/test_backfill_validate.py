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
from tests.conftest import trace_path
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


# -- the pass and tick grids (whatif's long logs): the fast paths find what their slow twins find ----------------
# 4 processors, the slurm rule with passes every 10 s from the first submission (t = 0). Job 1 (2 processors,
# 100 s) runs from 0; job 2 (2 processors, 5 s, submitted at 1) fits at once, so the main scheduler starts it at
# t = 1. The event times are the submissions 0, 1, the ends, and the passes 10, 20, ..., up to the last end.
GRID_JOBS = BackfillJobs.from_arrays([0, 1], [100, 5], [2, 2], [100, 5], n_processors=4)


@pytest.mark.parametrize(("start", "off_grid", "idle_at"), [
    (1, False, []),              # the engine's schedule
    (30, False, [1, 10, 20]),    # on a pass: no job submitted or ended there, a valid start time; but it waited
    (25, True, [1, 10, 20]),     # between passes 20 and 30: no event at 25
    (31, True, [1, 10, 20, 30]),
])
def test_starts_and_idle_heads_at_and_off_the_pass_grid(start: int, off_grid: bool, idle_at: list[int]) -> None:
    """Hand-computed: job 2 moved to `start`; the head (job 2) fits at every event time it waits at, the passes
    between two changes of the state included (the sweep reuses its finding there: each pass still counts)."""
    late = schedule_of(GRID_JOBS, [0, start])
    messages = check_backfill_schedule(late, GRID_JOBS, backfill="slurm", bf_interval=10, max_messages=None)
    assert bool(only(messages, f"job 2 (row 1) starts at t={start}, where no job is submitted or ends and no "
                               "backfill pass runs")) == off_grid
    fits = only(messages, "the queue head (fcfs), job 2 (row 1, 2 processors), waits though it fits")
    assert [int(m.split()[1].removeprefix("t=")) for m in fits] == idle_at
    # the slurm rule keeps EASY's promise here (its window is longer than every requested time): job 2 is late
    late_head = only(messages, f"job 2 (row 1) became the queue head at t=1 with shadow time t=1 but starts at "
                               f"t={start}")
    assert len(late_head) == (start > 1)
    assert len(messages) == off_grid + len(idle_at) + len(late_head)
    # with passes every 5 s, 25 is a pass: only the waits are left, at 1, 5, 10, 15, 20 (and 25 is a start)
    if start == 25:
        every5 = check_backfill_schedule(late, GRID_JOBS, backfill="slurm", bf_interval=5, max_messages=None)
        assert [m.split()[1] for m in only(every5, "waits though it fits")] == ["t=1", "t=5", "t=10", "t=15", "t=20"]
        assert not only(every5, "no backfill pass runs")


def test_ticks_are_event_times_and_the_widest_waiting_job_is_checked_at_each() -> None:
    """DRF (a ticked order) with ticks every 4 s under EASY: job 2 moved to t = 12 (a tick) waited at the ticks
    4 and 8 (and at its submission, 1) while it fitted; moved to 13 it also starts off the ticks, and 12 counts."""
    order_params = {"org": np.array([0, 1]), "shares": np.array([0.5, 0.5]), "calc_period": 4}
    assert simulate(GRID_JOBS, order="drf", backfill="easy", order_params=order_params).schedule["start"].tolist() \
        == [0, 1]
    for start, idle_at in ((12, ["t=1", "t=4", "t=8"]), (13, ["t=1", "t=4", "t=8", "t=12"])):
        messages = check_backfill_schedule(schedule_of(GRID_JOBS, [0, start]), GRID_JOBS, order="drf",
                                           backfill="easy", calc_period=4, max_messages=None)
        assert [m.split()[1] for m in only(messages, "the widest waiting job")] == idle_at
        assert bool(only(messages, "and no tick falls")) == (start == 13)


def _sdsc_slice(n_jobs: int) -> BackfillJobs:
    """The first `n_jobs` jobs of SDSC-SP2 that ran (run > 0, 1..128 CPUs) on its 128 processors."""
    import gzip

    rows = []
    with gzip.open(trace_path("SDSC-SP2-1998-4.2-cln.swf.gz"), "rt") as handle:
        for line in handle:
            f = line.split()
            if not line.startswith(";") and float(f[3]) > 0 and 1 <= int(f[4]) <= 128:
                rows.append((int(f[1]), int(f[3]), int(f[4]), max(int(float(f[8])), int(f[3]))))
                if len(rows) == n_jobs:
                    break
    submit, run, procs, requested = (np.array(c, dtype=np.int64) for c in zip(*rows, strict=True))
    return BackfillJobs.from_arrays(submit, run, procs, requested, n_processors=128)


def _broken(schedule: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Some jobs delayed by whole numbers of 30 s (waits at many passes), some by 1 s (off the grids), some
    moved earlier (capacity, starts between events)."""
    rng = np.random.default_rng(seed)
    start = schedule["start"].to_numpy().copy()
    picks = rng.permutation(len(start))[:60].reshape(3, 20)
    start[picks[0]] += 30 * rng.integers(1, 200, 20)
    start[picks[1]] += 1
    start[picks[2]] = np.maximum(schedule["submit"].to_numpy()[picks[2]], start[picks[2]] - 30 * rng.integers(1, 9, 20))
    return schedule.assign(start=start, end=start + (schedule["end"] - schedule["start"]))


@pytest.mark.traces
def test_fast_paths_equal_their_slow_twins_on_a_real_slice(monkeypatch: pytest.MonkeyPatch) -> None:
    """600 SDSC-SP2 jobs under each queue order × each rule the queue checks cover, valid and broken on purpose:
    every sentence of the validator (all of them) is the same with the slow twins (repeated union1d + isin for
    the event times, the queue sweep evaluating every event time afresh)."""
    from fairsched.backfill import validate

    jobs = _sdsc_slice(600)
    ticked = {"org": np.arange(600) % 5, "shares": np.full(5, 0.2), "calc_period": 300}
    kinds: set[str] = set()
    for order in ("fcfs", "sjf", "lxf", "drf"):
        for rule in ("none", "no-guarantee", "easy", "slurm"):
            schedule = simulate(jobs, order=order, backfill=rule,
                                order_params=ticked if order == "drf" else None).schedule
            for case in (schedule, _broken(schedule, 1), _broken(schedule, 2)):
                def check(case: pd.DataFrame = case, order: str = order, rule: str = rule) -> list[str]:
                    return check_backfill_schedule(case, jobs, order=order, backfill=rule, max_messages=None)
                fast = check()
                with monkeypatch.context() as patch:
                    patch.setattr(validate, "_event_times", validate._event_times_naive)
                    patch.setattr(validate, "_queue_sweep_kernel",
                                  lambda *args, kernel=validate._queue_sweep_kernel: kernel(*args, reuse=False))
                    assert check() == fast
                kinds |= {kind for kind in ("where no job", "waits though it fits", "ranked before it",
                                            "more than the machine's") if only(fast, kind)}
    assert kinds == {"where no job", "waits though it fits", "ranked before it", "more than the machine's"}
