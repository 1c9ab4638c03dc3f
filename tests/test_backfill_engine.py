"""The backfilling engine's inputs, options and stepping core: estimate rules, errors users can cause, the load
scaling hook, pausing, forking and what-if runs (the API the fair-start-time metrics build on)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from fairsched.backfill import BackfillJobs, BackfillSimulator, jobs_from_workload, simulate
from fairsched.backfill._kernels import prof_free_at
from fairsched.backfill.jobs import ESTIMATE_FROM_RUN_TIME, ESTIMATE_MISSING, ESTIMATE_RAISED
from fairsched.backfill.policies import backfill_names, order_names
from fairsched.errors import ConfigError, UnknownPolicyError
from fairsched.workload.model import Workload
from fairsched.workload.transform import offered_load, scale_to_load
from tests.test_backfill_naive import tied_workload

COMBOS = list(itertools.product(order_names(), backfill_names()))


def workload(**columns) -> Workload:
    n = len(columns["submit_time"])
    base = {"job_number": np.arange(1, n + 1), "run_time": [10.0] * n, "processors": [1] * n,
            "requested_time": [-1.0] * n}
    base.update(columns)
    if "runtime_estimate" not in base:
        base["runtime_estimate"] = base["requested_time"]
    return Workload(jobs=pd.DataFrame(base), header=(("MaxProcs", "4"),), source="test")


# -- inputs ------------------------------------------------------------------------------------------------

def test_estimates_follow_the_pyss_rule_and_are_counted() -> None:
    w = workload(submit_time=[0.0, 1.0, 2.0, 3.0], run_time=[10.0, 10.0, 10.0, 10.0],
                 requested_time=[-1.0, 0.0, 5.0, 30.0])
    jobs = jobs_from_workload(w)
    assert jobs.requested.tolist() == [10, 10, 10, 30]  # missing, missing (0), raised, kept
    assert jobs.estimate_counts == {ESTIMATE_FROM_RUN_TIME: 0, ESTIMATE_MISSING: 2, ESTIMATE_RAISED: 1}
    assert jobs.n_processors == 4 and jobs.job.tolist() == [1, 2, 3, 4]


def test_fractional_times_round_submit_down_and_durations_up() -> None:
    w = workload(submit_time=[0.5, 7.9], run_time=[0.2, 10.1], requested_time=[0.3, 10.05])
    jobs = jobs_from_workload(w)
    assert (jobs.submit.tolist(), jobs.run.tolist(), jobs.requested.tolist()) == ([0, 7], [1, 11], [1, 11])


@pytest.mark.parametrize(("columns", "match"), [
    ({"run_time": [10.0, -1.0]}, "no run time > 0"),
    ({"processors": [1, 0]}, "no processors >= 1"),
    ({"processors": [1, 5]}, "more processors than the machine's 4"),
])
def test_unrunnable_jobs_are_refused_with_the_cleaning_fix(columns, match: str) -> None:
    with pytest.raises(ConfigError, match=match) as error:
        jobs_from_workload(workload(submit_time=[0.0, 1.0], **columns))
    assert "clean(workload, max_processors=4)" in str(error.value)


def test_machine_size_is_required() -> None:
    w = Workload(jobs=workload(submit_time=[0.0]).jobs, source="x.swf")
    with pytest.raises(ConfigError, match=r"x\.swf: the header gives no MaxProcs"):
        jobs_from_workload(w)
    assert jobs_from_workload(w, n_processors=2).n_processors == 2


def test_unknown_policy_names_list_the_choices() -> None:
    jobs = BackfillJobs.from_arrays([0], [1], [1], n_processors=1)
    with pytest.raises(UnknownPolicyError, match="choose one of: fcfs, sjf, lxf"):
        simulate(jobs, order="fifo")
    with pytest.raises(UnknownPolicyError, match="choose one of: none, no-guarantee, easy, conservative"):
        simulate(jobs, backfill="aggressive")
    assert simulate(jobs, backfill="No_Guarantee").meta["backfill"] == "no-guarantee"


def test_processors_must_match_the_jobs_and_load_needs_a_workload() -> None:
    jobs = BackfillJobs.from_arrays([0], [1], [1], n_processors=2)
    with pytest.raises(ConfigError, match="built for 2"):
        simulate(jobs, processors=3)
    with pytest.raises(ConfigError, match="scale_to_load"):
        simulate(jobs, load=0.5)


# -- load scaling hook ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("load_by", ["runtime", "arrival"])
def test_load_hook_is_the_workload_transform(load_by: str) -> None:
    rng = np.random.default_rng(3)
    n = 60
    w = workload(submit_time=np.sort(rng.uniform(0, 5000, n)).round(), run_time=rng.integers(10, 300, n) * 1.0,
                 requested_time=rng.integers(300, 600, n) * 1.0, processors=rng.integers(1, 5, n))
    result = simulate(w, load=0.9, load_by=load_by, backfill="easy")
    scaled = scale_to_load(w, 0.9, 4, how=load_by)
    assert offered_load(scaled, 4) == pytest.approx(0.9)
    expected = simulate(jobs_from_workload(scaled), backfill="easy").schedule
    pd.testing.assert_frame_equal(result.schedule, expected)
    assert result.meta["load"] == 0.9 and result.meta["load_by"] == load_by
    assert not result.schedule.equals(simulate(w, backfill="easy").schedule)


# -- stepping core -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("order", "backfill"), COMBOS)
def test_pausing_before_every_submission_changes_nothing(order: str, backfill: str) -> None:
    """Pausing at each job's arrival and resuming gives the uninterrupted schedule; at each pause the engine's
    free count equals the conservative profile's free processors now (both apply the holding rule)."""
    for seed in range(4):
        jobs = tied_workload(seed)
        sim = BackfillSimulator(jobs, order, backfill)
        for job in range(jobs.n_jobs):
            assert sim.run(pause_before=job)
            assert sim.next_submission == job and sim.now == jobs.submit[job]
            if backfill == "conservative":
                assert prof_free_at(sim.prof, sim.clock, sim.now) == sim.n_free
        assert sim.run() is False
        assert sim.schedule().equals(simulate(jobs, order=order, backfill=backfill).schedule)


def test_fork_what_if_leaves_the_original_untouched() -> None:
    """Example A (pyss README): at job 4's arrival (t = 5), the strict what-if (job 4 submitted, no later job)
    starts job 4 at 5; the relaxed one (job 3 first, then job 4 added) at 15, after job 3 ends."""
    jobs = BackfillJobs.from_arrays([0, 0, 1, 5], [5, 100, 10, 5], [2, 2, 4, 2], [10, 100, 10, 5], n_processors=6)
    sim = BackfillSimulator(jobs, "fcfs", "easy")
    sim.run(pause_before=3)
    strict = sim.fork().run_until_started(3, submit_limit=4)
    relaxed_sim = sim.fork()
    relaxed_sim.run_until_queue_empty(submit_limit=3)
    assert (relaxed_sim.now, relaxed_sim.start_time(2)) == (5, 5)
    assert relaxed_sim.inject(3) is None  # no processor free at t = 5: job 4 waits
    relaxed = relaxed_sim.run_until_started(3, submit_limit=3)
    assert (strict, relaxed) == (5, 15)
    assert (sim.now, sim.next_submission, sim.waiting_jobs().tolist()) == (5, 3, [2])
    sim.run()
    assert sim.schedule()["start"].tolist() == [0, 0, 10, 5]


@pytest.mark.parametrize(("order", "backfill"), COMBOS)
def test_reused_fork_buffers_give_the_same_what_ifs(order: str, backfill: str) -> None:
    """A what-if from a fork into reused buffers equals one from a fresh fork, for every job's arrival; and a
    what-if submitting every later job too reproduces the real start."""
    jobs = tied_workload(5)
    real = simulate(jobs, order=order, backfill=backfill).schedule["start"].to_numpy()
    sim = BackfillSimulator(jobs, order, backfill)
    scratch = BackfillSimulator(jobs, order, backfill)
    for job in range(jobs.n_jobs):
        sim.run(pause_before=job)
        fresh = sim.fork().run_until_started(job, submit_limit=job + 1)
        assert sim.fork(into=scratch).run_until_started(job, submit_limit=job + 1) == fresh
        assert sim.fork(into=scratch).run_until_started(job) == real[job]
    sim = BackfillSimulator(jobs, order, backfill)
    for job in range(jobs.n_jobs - 1):  # waiting jobs, whose entries in scratch are stale from the loop above
        sim.run(pause_before=job + 1)
        if job in sim.waiting_jobs():
            assert sim.fork(into=scratch).run_until_started(job) == real[job]


def test_run_until_started_refuses_jobs_that_cannot_start() -> None:
    jobs = BackfillJobs.from_arrays([0, 0, 5], [5, 5, 5], [1, 1, 1], n_processors=1)
    sim = BackfillSimulator(jobs, "fcfs", "easy")
    sim.run(pause_before=2)
    with pytest.raises(ConfigError, match="already submitted"):
        sim.fork().run_until_started(0)
    with pytest.raises(ConfigError, match="beyond submit_limit"):
        sim.fork().run_until_started(2, submit_limit=2)
    with pytest.raises(ConfigError, match="same jobs"):
        sim.fork(into=BackfillSimulator(jobs, "sjf", "easy"))


def test_injected_job_that_starts_at_once() -> None:
    """Relaxed what-if with an empty queue: the injected job starts at once, `run_until_started` returns that
    start, and a later run may not submit the injected job a second time."""
    jobs = BackfillJobs.from_arrays([0, 3], [5, 5], [1, 1], n_processors=2)
    sim = BackfillSimulator(jobs, "fcfs", "conservative")
    sim.run(pause_before=1)
    what_if = sim.fork()
    what_if.run_until_queue_empty(submit_limit=1)
    assert what_if.inject(1) == 3
    assert what_if.run_until_started(1, submit_limit=1) == 3
    with pytest.raises(ConfigError, match="already in this simulation"):
        what_if.inject(1)
    with pytest.raises(ConfigError, match="was injected; run with submit_limit <= 1"):
        what_if.run()
    assert sim.fork(into=what_if).run_until_started(1) == 3  # a fork resets the injection
