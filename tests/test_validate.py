"""The independent schedule validator: a hand-made valid schedule, schedules broken on purpose (one rule at a
time), the real engine's schedules (valid, then mutated), and brute-force twins of the sweeps."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from fairsched._validation import overlaps_kernel
from fairsched.errors import ConfigError, InvalidScheduleError
from fairsched.online.engine import SCHEDULE_COLUMNS, simulate
from fairsched.online.policies import get_policy
from fairsched.online.validate import _idle_gaps_kernel, check_online_schedule, validate_online_schedule
from fairsched.scenario import Scenario, scenario_from_arrays

# -- a hand-made instance ---------------------------------------------------------------------------------
# 3 machines (org 0 owns 2, org 1 owns 1). Jobs (number: org, release, processing time, copies):
#   1: org 0, r=0, p=4, 2 copies    2: org 1, r=0, p=3    3: org 0, r=1, p=2    4: org 1, r=2, p=5
#   5: org 0, r=2, p=1
# Greedy FIFO timeline: t=0 both copies of 1 and job 2 start (all machines busy); t=1,2 jobs 3,4,5 arrive and
# wait; t=3 machine 2 frees and takes job 4; t=4 machines 0 and 1 free and take jobs 3 and 5.
VALID_ROWS = [
    # job, org, release, start, end, machine
    (1, 0, 0, 0, 4, 0),
    (1, 0, 0, 0, 4, 1),
    (2, 1, 0, 0, 3, 2),
    (4, 1, 2, 3, 8, 2),
    (3, 0, 1, 4, 6, 0),
    (5, 0, 2, 4, 5, 1),
]


def hand_scenario(horizon: int | None = None) -> Scenario:
    return scenario_from_arrays(release=[0, 0, 1, 2, 2], processing_time=[4, 3, 2, 5, 1], org=[0, 1, 0, 1, 0],
                                machines_per_org=[2, 1], copies=[2, 1, 1, 1, 1], horizon=horizon)


def frame(rows) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=list(SCHEDULE_COLUMNS)).astype(np.int64)


def replace_row(job: int, **changes: int) -> list[tuple[int, ...]]:
    """VALID_ROWS with the (first) row of `job` changed."""
    rows = [list(r) for r in VALID_ROWS]
    row = next(r for r in rows if r[0] == job)
    for name, value in changes.items():
        row[SCHEDULE_COLUMNS.index(name)] = value
    return [tuple(r) for r in rows]


def test_hand_made_valid_schedule_passes() -> None:
    assert check_online_schedule(frame(VALID_ROWS), hand_scenario()) == []
    validate_online_schedule(frame(VALID_ROWS), hand_scenario())  # does not raise


def test_row_order_and_index_do_not_matter() -> None:
    shuffled = frame(VALID_ROWS).sample(frac=1.0, random_state=np.random.default_rng(3)).set_index(
        pd.Index([10, 20, 30, 40, 50, 60]))
    assert check_online_schedule(shuffled, hand_scenario()) == []


def test_overlap_on_a_machine() -> None:
    msgs = check_online_schedule(frame(replace_row(5, machine=0)), hand_scenario())
    assert msgs == ["machine 0 runs job 3 (row 4) during [4, 6) and job 5 (row 5) from t=4, before the first "
                    "ends: the jobs overlap"]


def test_overlap_with_a_long_job_is_reported_for_every_later_job() -> None:
    # One org, one machine: job 1 [0,10) covers jobs 2 [1,2) and 3 [3,4) (both released at 0).
    scenario = scenario_from_arrays([0, 0, 0], [10, 1, 1], [0, 0, 0], [1])
    msgs = check_online_schedule(frame([(1, 0, 0, 0, 10, 0), (2, 0, 0, 1, 2, 0), (3, 0, 0, 3, 4, 0)]), scenario)
    assert [m for m in msgs if "overlap" in m] == [
        "machine 0 runs job 1 (row 0) during [0, 10) and job 2 (row 1) from t=1, before the first ends: the jobs "
        "overlap",
        "machine 0 runs job 1 (row 0) during [0, 10) and job 3 (row 2) from t=3, before the first ends: the jobs "
        "overlap",
    ]


def test_start_before_release() -> None:
    scenario = scenario_from_arrays([0, 5], [2, 1], [0, 0], [1])
    msgs = check_online_schedule(frame([(1, 0, 0, 0, 2, 0), (2, 0, 5, 4, 5, 0)]), scenario)
    assert msgs == ["row 1: job 2 on machine 0 starting at t=4 starts before its release at t=5"]


def test_wrong_end() -> None:
    msgs = check_online_schedule(frame(replace_row(3, end=7)), hand_scenario())
    assert msgs == ["row 4: job 3 on machine 0 starting at t=4 ends at t=7; expected start + processing time = "
                    "4 + 2 = 6"]


@pytest.mark.parametrize(("column", "value", "expected"), [
    ("org", 1, "row 4: job 3 on machine 0 starting at t=4 is listed under org 1, but the scenario gives org 0"),
    ("release", 0, "row 4: job 3 on machine 0 starting at t=4 is listed as released at t=0, but the scenario "
                   "releases it at t=1"),
])
def test_wrong_org_or_release(column: str, value: int, expected: str) -> None:
    assert check_online_schedule(frame(replace_row(3, **{column: value})), hand_scenario()) == [expected]


def test_unknown_job() -> None:
    rows = [*VALID_ROWS, (99, 0, 0, 5, 6, 1)]
    assert check_online_schedule(frame(rows), hand_scenario()) == [
        "row 6: job 99 on machine 1 at t=5: the scenario has no such job number"]


def test_unknown_machine() -> None:
    msgs = check_online_schedule(frame(replace_row(5, machine=7)), hand_scenario())
    assert msgs == ["row 5: job 5 on machine 7 at t=4: no such machine (the scenario has machines 0..2)"]


def test_sequential_job_run_twice() -> None:
    rows = [*VALID_ROWS, (5, 0, 2, 6, 7, 0)]  # job 5 again, on machine 0 after job 3
    assert check_online_schedule(frame(rows), hand_scenario()) == [
        "job 5 appears 2 times (rows [5, 6]...) but has only 1 copy: a sequential job ran twice"]


def test_more_rows_than_copies() -> None:
    rows = [*VALID_ROWS, (1, 0, 0, 8, 12, 2)]  # job 1 has 2 copies; a third run on machine 2 after job 4
    msgs = check_online_schedule(frame(rows), hand_scenario())
    assert msgs == ["job 1 appears 3 times (rows [0, 1, 6]...) but has only 2 copies: a sequential job ran twice"]


def test_fifo_inversion() -> None:
    # Job 5 (org 0, r=2) starts at t=3 before job 3 (org 0, r=1) at t=4; greedy and capacity still hold.
    rows = [(1, 0, 0, 0, 4, 0), (1, 0, 0, 0, 4, 1), (2, 1, 0, 0, 3, 2), (5, 0, 2, 3, 4, 2), (3, 0, 1, 4, 6, 0),
            (4, 1, 2, 4, 9, 1)]
    assert check_online_schedule(frame(rows), hand_scenario()) == [
        "org 0: job 5 (released at t=2) starts at t=3 on machine 2, yet job 3, earlier in FIFO order (released "
        "at t=1), starts at t=4 on machine 0: FIFO per organization is broken"]


def test_fifo_ties_follow_job_number() -> None:
    # Jobs 1 and 2 of one org are both released at 0: job 1 must start first (record order).
    scenario = scenario_from_arrays([0, 0], [1, 1], [0, 0], [1])
    assert check_online_schedule(frame([(1, 0, 0, 0, 1, 0), (2, 0, 0, 1, 2, 0)]), scenario) == []
    msgs = check_online_schedule(frame([(2, 0, 0, 0, 1, 0), (1, 0, 0, 1, 2, 0)]), scenario)
    assert len(msgs) == 1 and msgs[0].startswith("org 0: job 2 (released at t=0) starts at t=0 on machine 0, yet job 1")


def test_fifo_never_started_job_before_a_started_one() -> None:
    # With a horizon, job 3 (r=1) never starts but job 5 (r=2, same org) does.
    rows = [r for r in VALID_ROWS if r[0] != 3]
    msgs = check_online_schedule(frame(rows), hand_scenario(), t_end=5)
    assert "org 0: job 5 (released at t=2) starts at t=4 on machine 1, yet job 3, earlier in FIFO order " \
           "(released at t=1), has a copy that never starts: FIFO per organization is broken" in msgs


def test_machine_idle_while_a_job_waits() -> None:
    msgs = check_online_schedule(frame(replace_row(4, start=4, end=9)), hand_scenario())
    assert msgs == ["at t=3 machine 2 is idle (until t=4) while job 3 of org 0 (released at t=1) waits: 2 of 3 "
                    "machines busy, 3 job(s) waiting (greedy: a free machine must take a waiting job)"]


def test_missing_job_without_horizon() -> None:
    rows = [r for r in VALID_ROWS if r[0] != 5]
    msgs = check_online_schedule(frame(rows), hand_scenario())
    assert "job 5 of org 0 (released at t=2): 1 of its 1 copies never start, but without a horizon every job " \
           "must run to completion" in msgs
    # ... and machine 1 idles from t=4 while job 5 waits, until the last completion at t=8.
    assert any(m.startswith("at t=4 machine 1 is idle (until t=8) while job 5") for m in msgs)
    assert len(msgs) == 2


def test_missing_copy_without_horizon() -> None:
    rows = VALID_ROWS[1:]  # one of job 1's two copies never runs
    msgs = check_online_schedule(frame(rows), hand_scenario())
    assert "job 1 of org 0 (released at t=0): 1 of its 2 copies never start, but without a horizon every job " \
           "must run to completion" in msgs


def test_horizon_allows_jobs_waiting_while_all_machines_are_busy() -> None:
    # At t_end=2 jobs 3, 4, 5 have been released but every machine has been busy since t=0.
    assert check_online_schedule(frame(VALID_ROWS[:3]), hand_scenario(), t_end=2) == []
    assert check_online_schedule(frame(VALID_ROWS), hand_scenario(), t_end=8) == []


def test_horizon_still_catches_a_job_left_waiting_by_an_idle_machine() -> None:
    rows = [r for r in VALID_ROWS if r[0] != 4]
    msgs = check_online_schedule(frame(rows), hand_scenario(), t_end=5)
    assert msgs == ["at t=3 machine 2 is idle (until t=5) while job 3 of org 0 (released at t=1) waits: 2 of 3 "
                    "machines busy, 3 job(s) waiting (greedy: a free machine must take a waiting job)"]


def test_start_after_horizon() -> None:
    msgs = check_online_schedule(frame(VALID_ROWS), hand_scenario(), t_end=3)
    assert msgs == ["row 4: job 3 on machine 0 starting at t=4 starts after the horizon t_end=3",
                    "row 5: job 5 on machine 1 starting at t=4 starts after the horizon t_end=3"]


def test_missing_or_non_integer_columns() -> None:
    msgs = check_online_schedule(frame(VALID_ROWS).drop(columns=["machine", "end"]), hand_scenario())
    assert msgs == ["the schedule lacks column(s) end, machine; expected job, org, release, start, end, machine"]
    floats = frame(VALID_ROWS).astype({"start": np.float64})
    assert check_online_schedule(floats, hand_scenario()) == [
        "column start has dtype float64 or missing values; expected integers (seconds, ids)"]


def test_bad_t_end_and_duplicate_scenario_job_numbers_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="t_end must be a non-negative integer"):
        check_online_schedule(frame(VALID_ROWS), hand_scenario(), t_end=-1)
    scenario = scenario_from_arrays([0, 0], [1, 1], [0, 0], [2], job=[7, 7])
    with pytest.raises(ConfigError, match="job 7 repeats"):
        check_online_schedule(frame([(7, 0, 0, 0, 1, 0)]), scenario)


def test_validate_raises_with_first_ten_and_the_total() -> None:
    # Every end 100 s late and every org swapped: 6 wrong completion times, 6 wrong orgs, 3 overlaps.
    rows = frame(VALID_ROWS)
    rows["end"] += 100
    rows["org"] = 1 - rows["org"]
    all_msgs = check_online_schedule(rows, hand_scenario(), max_messages=None)
    assert sum("expected start + processing time" in m for m in all_msgs) == 6
    assert len(all_msgs) == 15
    with pytest.raises(InvalidScheduleError, match=rf"in {len(all_msgs)} place\(s\); first 10:") as info:
        validate_online_schedule(rows, hand_scenario())
    assert str(info.value).count("\n  - ") == 10


def test_max_messages_summarizes_the_rest() -> None:
    rows = frame(VALID_ROWS)
    rows["end"] += 100
    msgs = check_online_schedule(rows, hand_scenario(), max_messages=2)
    wrong_end = [m for m in msgs if "completion" in m or "processing time" in m]
    assert len(wrong_end) == 3 and wrong_end[-1] == "... and 4 more wrong completion times (not listed)"


# -- the real engine ---------------------------------------------------------------------------------------

def random_scenario(rng: np.random.Generator, *, horizon: bool = False) -> Scenario:
    k = int(rng.integers(1, 5))
    n = int(rng.integers(1, 30))
    release = np.sort(rng.integers(0, 25, n))
    return scenario_from_arrays(
        release=release, processing_time=rng.integers(1, 12, n), org=rng.integers(0, k, n),
        machines_per_org=rng.integers(1, 3, k), copies=rng.integers(1, 4, n),
        horizon=int(rng.integers(1, 40)) if horizon else None)


@pytest.mark.parametrize("horizon", [False, True])
def test_engine_schedules_are_valid(horizon: bool) -> None:
    rng = np.random.default_rng(20260101 + horizon)
    checked = 0
    for _ in range(60):
        scenario = random_scenario(rng, horizon=horizon)
        result = simulate(scenario, get_policy("roundrobin"))
        t_end = result.t_end if horizon else None
        assert check_online_schedule(result.schedule, scenario, t_end=t_end) == []
        checked += len(result.schedule)
    assert checked > 500  # the loop really produced schedules with rows to check


def contended_engine_run(seed: int) -> tuple[Scenario, pd.DataFrame]:
    """A random engine schedule in which some job waited (so mutations can break greedy)."""
    rng = np.random.default_rng(seed)
    while True:
        scenario = random_scenario(rng)
        schedule = simulate(scenario, get_policy("roundrobin")).schedule
        if len(schedule) >= 8 and scenario.n_machines >= 2 and (schedule["start"] > schedule["release"]).any():
            return scenario, schedule


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_mutated_engine_schedules_are_caught(seed: int) -> None:
    scenario, schedule = contended_engine_run(seed)
    rng = np.random.default_rng(seed)
    i = int(rng.integers(len(schedule)))
    job, start, machine = (int(schedule.iloc[i][c]) for c in ("job", "start", "machine"))

    shifted = schedule.copy()
    shifted.loc[shifted.index[i], "start"] += 1  # end no longer = start + processing time
    assert f"row {i}: job {job} on machine {machine} starting at t={start + 1} ends at" in \
        "\n".join(check_online_schedule(shifted, scenario))

    delayed = schedule.copy()
    delayed.loc[delayed.index[i], ["start", "end"]] += 1  # machine `machine` idles at `start` while `job` waits
    assert any(m.startswith(f"at t={start} machine ") and " is idle " in m
               for m in check_online_schedule(delayed, scenario))

    dropped = schedule.drop(index=schedule.index[i])
    assert any(m.startswith(f"job {job} of org ") and "never start" in m
               for m in check_online_schedule(dropped, scenario))

    doubled = pd.concat([schedule, schedule.iloc[[i]]], ignore_index=True)
    assert any(m.startswith(f"job {job} appears ") for m in check_online_schedule(doubled, scenario))


@pytest.mark.parametrize("seed", [6, 7, 8])
def test_engine_schedule_with_two_jobs_on_one_machine_is_caught(seed: int) -> None:
    scenario, schedule = contended_engine_run(seed)
    s, e, mach = (schedule[c].to_numpy() for c in ("start", "end", "machine"))
    # Two jobs running at the same time on different machines: move the first onto the second's machine.
    pairs = [(a, b) for a in range(len(s)) for b in range(len(s))
             if a != b and mach[a] != mach[b] and s[a] < s[b] < e[a]]
    assert pairs
    a, b = pairs[0]
    moved = schedule.copy()
    moved.loc[moved.index[a], "machine"] = mach[b]
    assert f"machine {mach[b]} runs job {schedule['job'].iloc[a]} (row {a})" in \
        "\n".join(check_online_schedule(moved, scenario))


def test_engine_schedule_with_wrong_org_is_caught() -> None:
    scenario, schedule = contended_engine_run(9)
    wrong = schedule.copy()
    wrong.loc[wrong.index[0], "org"] += 1
    assert any("is listed under org" in m and f"job {schedule['job'].iloc[0]}" in m
               for m in check_online_schedule(wrong, scenario))


# -- brute-force twins -------------------------------------------------------------------------------------

def idle_instants_brute_force(starts, ends, releases, copies, leaves, m: int, t_stop: int) -> set[int]:
    """Every integer t < t_stop with fewer than m jobs running and a copy released but not yet started."""
    return {t for t in range(t_stop)
            if sum(s <= t < e for s, e in zip(starts, ends, strict=True)) < m
            and sum(c for r, c in zip(releases, copies, strict=True) if r <= t) - sum(x <= t for x in leaves) > 0}


def test_idle_gap_sweep_equals_brute_force() -> None:
    rng = np.random.default_rng(11)
    seen_gaps = 0
    for _ in range(150):
        n_rows, n_rec, m = int(rng.integers(0, 12)), int(rng.integers(0, 8)), int(rng.integers(1, 4))
        starts = rng.integers(0, 20, n_rows)
        ends = starts + rng.integers(1, 8, n_rows)
        releases, copies = rng.integers(0, 20, n_rec), rng.integers(1, 3, n_rec)
        leaves = rng.integers(0, 25, min(n_rows, int(copies.sum())))
        leaves = np.maximum(leaves, releases.min()) if n_rec else leaves[:0]
        t_stop = int(rng.integers(0, 30))
        n, begin, stop, _, _ = _idle_gaps_kernel(np.sort(starts), np.sort(ends), np.sort(releases),
                                                 copies[np.argsort(releases, kind="stable")], np.sort(leaves), m,
                                                 t_stop, 100)
        begin, stop = begin[:n], stop[:n]
        covered = {t for b, e in zip(begin, stop, strict=True) for t in range(b, e)}
        assert covered == idle_instants_brute_force(starts, ends, releases, copies, leaves, m, t_stop)
        assert all(stop > begin) and all(begin[1:] > stop[:-1])  # maximal, disjoint periods
        seen_gaps += n
    assert seen_gaps > 50


def test_overlap_sweep_equals_brute_force() -> None:
    rng = np.random.default_rng(12)
    for _ in range(100):
        n, m = int(rng.integers(0, 15)), int(rng.integers(1, 4))
        start = rng.integers(0, 20, n)
        end = start + rng.integers(1, 6, n)
        machine = rng.integers(0, m, n)
        order = np.argsort(start, kind="stable")
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n)
        # A row is reported iff an earlier row (in start order) on its machine is still running at its start.
        expected = {b for b in range(n) for a in range(n)
                    if rank[a] < rank[b] and machine[a] == machine[b] and start[b] < end[a]}
        count, first, second = overlaps_kernel(order, start, end, machine, m, 1000)
        assert set(second.tolist()) == expected and count == len(second)
        assert all(machine[first] == machine[second]) and all(start[second] < end[first])


def fifo_inversions_brute_force(scenario: Scenario, schedule: pd.DataFrame) -> int:
    """Descents in each organization's sequence of copies ordered by (release, job, start); unstarted = +inf."""
    inversions = 0
    for _, group in scenario.jobs.groupby("org"):
        sequence = []
        for rec in group.sort_values(["release", "job"]).itertuples():
            starts = sorted(schedule.loc[schedule["job"] == rec.job, "start"].tolist())
            sequence += starts + [float("inf")] * (rec.copies - len(starts))
        inversions += sum(a > b for a, b in itertools.pairwise(sequence))
    return inversions


def test_fifo_check_equals_brute_force_on_random_schedules() -> None:
    rng = np.random.default_rng(13)
    found = 0
    for _ in range(60):
        scenario = random_scenario(rng)
        jobs = scenario.jobs
        rows = [(j.job, j.org, j.release, s, s + j.processing_time, 0) for j in jobs.itertuples()
                for s in rng.integers(j.release, j.release + 15, int(rng.integers(0, j.copies + 1)))]
        schedule = frame(rows) if rows else frame([]).astype(np.int64)
        msgs = check_online_schedule(schedule, scenario, t_end=100, max_messages=None)
        assert sum("FIFO per organization is broken" in m for m in msgs) == \
            fifo_inversions_brute_force(scenario, schedule)
        found += fifo_inversions_brute_force(scenario, schedule)
    assert found > 20
