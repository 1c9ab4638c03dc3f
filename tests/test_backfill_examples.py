"""Exact timelines of the backfilling engine on hand-worked cases: the pyss README's Examples A and B first, then
one case per behaviour that tells the policies apart (no-guarantee, SJF, LXF, conservative vs EASY, compression).

Every case runs through the engine and the naive twin (tests/naive/backfill_naive.py) and is validated.
Jobs are written "id submit run procs requested", as in the README.
"""

from __future__ import annotations

import pytest

from fairsched.backfill import BackfillJobs, BackfillSimulator, simulate
from fairsched.backfill.validate import check_backfill_schedule
from tests.naive.backfill_naive import simulate_naive


def make_jobs(rows: list[tuple[int, int, int, int, int]], n_processors: int) -> BackfillJobs:
    return BackfillJobs.from_arrays(submit=[r[1] for r in rows], run=[r[2] for r in rows],
                                    procs=[r[3] for r in rows], requested=[r[4] for r in rows],
                                    job=[r[0] for r in rows], n_processors=n_processors)


def starts(jobs: BackfillJobs, order: str, backfill: str) -> list[int]:
    """Start times from the engine, checked against the naive twin and the validator."""
    result = simulate(jobs, order=order, backfill=backfill)
    engine = result.schedule["start"].tolist()
    naive = simulate_naive(jobs.submit, jobs.run, jobs.procs, jobs.requested, jobs.n_processors, order,
                           backfill).start
    assert engine == naive, f"engine {engine} != naive {naive}"
    assert check_backfill_schedule(result.schedule, jobs, order=order, backfill=backfill) == []
    return engine


# pyss README §6, Example A (P = 6). At t = 5 job 4's submission is handled before job 1's early termination:
# job 1 still holds its 2 processors, so 2 are free; the head (job 3) has shadow 10 and job 4 ends by 10.
EXAMPLE_A = [(1, 0, 5, 2, 10), (2, 0, 100, 2, 100), (3, 1, 10, 4, 10), (4, 5, 5, 2, 5)]
# Example B (P = 6): jobs 1 and 2 both end early at t = 5; after the first termination the pass backfills job 5
# (5 + 20 <= sigma = 50); after the second, the head (job 4) no longer fits until job 5's planned end, 25.
EXAMPLE_B = [(1, 0, 5, 2, 50), (2, 0, 5, 2, 50), (3, 0, 100, 2, 100), (4, 1, 10, 4, 10), (5, 2, 20, 2, 20)]


@pytest.mark.parametrize(("rows", "backfill", "expected"), [
    (EXAMPLE_A, "none", [0, 0, 5, 15]),
    (EXAMPLE_A, "easy", [0, 0, 10, 5]),
    (EXAMPLE_A, "conservative", [0, 0, 10, 5]),
    (EXAMPLE_B, "none", [0, 0, 0, 5, 15]),
    (EXAMPLE_B, "easy", [0, 0, 0, 25, 5]),
    (EXAMPLE_B, "conservative", [0, 0, 0, 25, 5]),
], ids=lambda v: v if isinstance(v, str) else None)
def test_readme_examples_match_pyss(rows, backfill: str, expected: list[int]) -> None:
    assert starts(make_jobs(rows, 6), "fcfs", backfill) == expected


def test_example_a_timeline_holding_until_termination_is_processed() -> None:
    """Just before job 4's submission at t = 5, job 1 (run 5 < requested 10) still holds: 2 processors free."""
    sim = BackfillSimulator(make_jobs(EXAMPLE_A, 6), "fcfs", "easy")
    assert sim.run(pause_before=3)
    assert (sim.now, sim.n_free, sim.waiting_jobs().tolist()) == (5, 2, [2])
    assert sorted(sim.running_jobs().tolist()) == [0, 1]
    assert sim.run() is False
    assert [sim.start_time(j) for j in range(4)] == [0, 0, 10, 5]


def test_example_a_planned_end_frees_before_submissions() -> None:
    """If job 1 runs its full requested time (r = q = 5 ... ends at 5), its processors are free for the
    submission pass at t = 5: job 4 no longer backfills past the head; job 3 starts at 5 (README §2)."""
    rows = [(1, 0, 5, 2, 5), (2, 0, 100, 2, 100), (3, 1, 10, 4, 10), (4, 5, 5, 2, 5)]
    sim = BackfillSimulator(make_jobs(rows, 6), "fcfs", "easy")
    sim.run(pause_before=3)
    assert (sim.now, sim.n_free) == (5, 4)
    assert starts(make_jobs(rows, 6), "fcfs", "easy") == [0, 0, 5, 15]


def test_example_b_terminations_at_one_time_each_get_a_pass() -> None:
    """Job 5 starts in the pass after the first termination at t = 5, ahead of the head (job 4)."""
    sim = BackfillSimulator(make_jobs(EXAMPLE_B, 6), "fcfs", "easy")
    sim.run()
    assert sim.start_time(4) == 5 and sim.start_time(3) == 25
    assert sim.out_seq[4] > sim.out_seq[2]  # decided after the t = 0 starts


# No-guarantee vs EASY (P = 4): job 3 fits now, but runs past the head's shadow time (10) with no extra
# processors. EASY keeps it waiting; no-guarantee starts it and the head (job 2) waits until job 3 ends.
NO_GUARANTEE_CASE = [(1, 0, 10, 2, 10), (2, 1, 10, 4, 10), (3, 2, 50, 2, 50)]


@pytest.mark.parametrize(("backfill", "expected"), [
    ("none", [0, 10, 20]), ("no-guarantee", [0, 52, 2]), ("easy", [0, 10, 20]), ("conservative", [0, 10, 20]),
])
def test_no_guarantee_lets_a_later_job_delay_the_head(backfill: str, expected: list[int]) -> None:
    assert starts(make_jobs(NO_GUARANTEE_CASE, 4), "fcfs", backfill) == expected


# SJF (P = 4, no backfilling): at t = 10 job 3 (requested 5) ranks before job 2 (requested 100).
SJF_CASE = [(1, 0, 10, 4, 10), (2, 1, 100, 2, 100), (3, 2, 5, 3, 5)]


@pytest.mark.parametrize(("order", "expected"), [("fcfs", [0, 10, 110]), ("sjf", [0, 15, 10])])
def test_sjf_ranks_by_requested_time(order: str, expected: list[int]) -> None:
    assert starts(make_jobs(SJF_CASE, 4), order, "none") == expected


# LXF (P = 1): at t = 100 job 2 has factor (99 + 10) / 10 = 10.9 and job 3 (5 + 10) / 5 = 3: LXF serves job 2
# first, SJF job 3.
LXF_CASE = [(1, 0, 100, 1, 100), (2, 1, 10, 1, 10), (3, 90, 5, 1, 5)]
# Re-ranking: at job 3's arrival (t = 2) its factor is 1 < job 2's 1.01, but at t = 100 it is 99 > 1.99.
LXF_RERANK = [(1, 0, 100, 1, 100), (2, 1, 100, 1, 100), (3, 2, 1, 1, 1)]


@pytest.mark.parametrize(("rows", "order", "expected"), [
    (LXF_CASE, "lxf", [0, 100, 110]), (LXF_CASE, "sjf", [0, 105, 100]), (LXF_CASE, "fcfs", [0, 100, 110]),
    (LXF_RERANK, "lxf", [0, 101, 100]), (LXF_RERANK, "fcfs", [0, 100, 200]),
])
def test_lxf_ranks_by_expansion_factor_at_each_pass(rows, order: str, expected: list[int]) -> None:
    for backfill in ("none", "no-guarantee", "easy"):
        assert starts(make_jobs(rows, 1), order, backfill) == expected


@pytest.mark.parametrize("order", ["fcfs", "sjf", "lxf"])
def test_conservative_arrival_never_reorders_reservations(order: str) -> None:
    """Conservative with any order: a job arriving while the machine is full is reserved after the existing
    reservations (the order only ranks compressions), so on one processor every order gives FCFS."""
    assert starts(make_jobs(LXF_RERANK, 1), order, "conservative") == [0, 100, 200]
    assert starts(make_jobs(LXF_CASE, 1), order, "conservative") == [0, 100, 110]


# Conservative vs EASY (P = 4): job 4 (1 processor, requested 100) fits at t = 3 and only uses EASY's extra
# processors (x = 2 at shadow 10), so EASY backfills it, delaying job 3 (4 processors) to t = 103. Conservative
# has reserved [20, 30) for job 3, which job 4 would overlap: job 4 is reserved at 30 instead.
CONSERVATIVE_CASE = [(1, 0, 10, 3, 10), (2, 1, 10, 2, 10), (3, 2, 10, 4, 10), (4, 3, 100, 1, 100)]


@pytest.mark.parametrize(("backfill", "expected"), [
    ("none", [0, 10, 20, 30]), ("no-guarantee", [0, 10, 103, 3]), ("easy", [0, 10, 103, 3]),
    ("conservative", [0, 10, 20, 30]),
])
def test_conservative_protects_every_reservation(backfill: str, expected: list[int]) -> None:
    assert starts(make_jobs(CONSERVATIVE_CASE, 4), "fcfs", backfill) == expected


def test_conservative_reservations_and_compression_timeline() -> None:
    """P = 2. Job 1 requests 20 but ends at 5: at its termination the profile's tail [5, 20) is released and
    compression moves job 2 from 20 to 5 (it starts) and job 3 from 30 to 15. Job 4 is a probe submitted at 6."""
    rows = [(1, 0, 5, 2, 20), (2, 1, 10, 2, 10), (3, 2, 10, 1, 10), (4, 6, 1, 1, 1)]
    sim = BackfillSimulator(make_jobs(rows, 2), "fcfs", "conservative")
    assert sim.run(pause_before=2)
    assert (sim.now, sim.reservations()) == (2, {1: 20})  # paused at job 3's submission
    assert sim.run(pause_before=3)
    assert (sim.now, sim.reservations(), sim.start_time(1)) == (6, {2: 15}, 5)
    sim.run()
    assert [sim.start_time(j) for j in range(4)] == [0, 5, 15, 15]
    assert starts(make_jobs(rows, 2), "fcfs", "conservative") == [0, 5, 15, 15]
