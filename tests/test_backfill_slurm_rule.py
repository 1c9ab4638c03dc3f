"""The ``slurm`` backfilling rule (Slurm's main scheduler at events, its backfill scheduler every bf_interval): a
worked example by hand, the slow twin (tests/naive/backfill_naive.py) on tied and random small workloads for every
queue order (the ticked ones with their own twins), the validator, and its parameters."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairsched.backfill import BackfillJobs, simulate
from fairsched.backfill.engine import BackfillSimulator
from fairsched.backfill.policies import get_backfill, order_names
from fairsched.backfill.policies.slurm_rule import slurm_rule
from fairsched.backfill.validate import check_backfill_schedule
from fairsched.errors import ConfigError
from tests.conftest import run_main
from tests.naive.backfill_naive import simulate_naive
from tests.naive.ticked_naive import simulate_ticked_naive
from tests.test_backfill_naive import tied_workload
from tests.test_byte_identical import small_swf

PLAIN = order_names(ticked=False)
TICKED = order_names(ticked=True)

# 4 CPUs, passes every 10 s. Job 0 (2 CPUs, 100 s) runs; job 1 (4 CPUs) waits for it: the main scheduler stops
# there, so job 2 (2 CPUs, 20 s, submitted at 2) waits for the pass at 10 (EASY backfills it at 2 at once). That
# pass plans job 0 until 100, reserves [100, 150) for job 1 and starts job 2 on [10, 30); job 3 (2 CPUs, 200 s
# requested, runs 5 s) would overlap job 1's reservation wherever it starts before 150, so it starts at 150.
# bf_window = 60 s: the pass at 40 plans until 100 only; job 1's earliest start, 100, is the window's end, so it
# gets no reservation, and job 3 fits the window now: it starts at 40 (and ends at 45, so job 1 is not delayed).
# bf_max_job_test = 1: passes test job 1 alone, job 2 is never backfilled and waits until job 1 ends at 150.
EXAMPLE = BackfillJobs.from_arrays(submit=[0, 1, 2, 3], run=[100, 50, 20, 5], procs=[2, 4, 2, 2],
                                   requested=[100, 50, 20, 200], n_processors=4)


@pytest.mark.parametrize(("params", "expected"), [
    ({}, [0, 100, 10, 150]),
    ({"bf_window": 60}, [0, 100, 10, 40]),
    ({"bf_max_job_test": 1}, [0, 100, 150, 150]),
    ({"bf_interval": 30}, [0, 100, 30, 150]),
])
def test_worked_example(params: dict, expected: list[int]) -> None:
    rule = slurm_rule(**{"bf_interval": 10, **params})
    result = simulate(EXAMPLE, backfill=rule)
    assert result.schedule["start"].tolist() == expected
    assert simulate(EXAMPLE, backfill="easy").schedule["start"].tolist() == [0, 100, 2, 150]
    assert result.meta["backfill_params"]["bf_interval"] == rule.params[0][1]
    bf = dict(rule.params)
    assert check_backfill_schedule(result.schedule, EXAMPLE, backfill="slurm", bf_interval=bf["bf_interval"],
                                   bf_window=bf["bf_window"]) == []
    naive = simulate_naive(EXAMPLE.submit, EXAMPLE.run, EXAMPLE.procs, EXAMPLE.requested, 4, "fcfs", "slurm", **bf)
    assert naive.start == expected


def test_defaults_are_slurms_and_bad_values_are_refused() -> None:
    assert dict(get_backfill("slurm").params) == {"bf_interval": 30, "bf_window": 86400, "bf_max_job_test": 500}
    assert get_backfill("slurm").reservations == 500
    for bad in ({"bf_interval": 0}, {"bf_window": -5}, {"bf_max_job_test": 2.5}, {"bf_interval": True}):
        with pytest.raises(ConfigError, match="expected a whole number >= 1"):
            slurm_rule(**bad)


def test_validator_sees_a_start_off_the_pass_grid() -> None:
    """Job 2 started at 12 (no submission, end or pass at 12 with passes every 10 s): refused."""
    schedule = simulate(EXAMPLE, backfill=slurm_rule(bf_interval=10)).schedule
    schedule.loc[2, ["start", "end"]] = [12, 32]
    messages = check_backfill_schedule(schedule, EXAMPLE, backfill="slurm", bf_interval=10)
    assert any("starts at t=12" in m for m in messages)
    assert check_backfill_schedule(schedule, EXAMPLE, backfill="slurm", bf_interval=4) == []  # 12 is on that grid


BF_CASES = [{"bf_interval": 5, "bf_window": 86400, "bf_max_job_test": 500},
            {"bf_interval": 10, "bf_window": 20, "bf_max_job_test": 3},
            {"bf_interval": 7, "bf_window": 35, "bf_max_job_test": 1}]


@pytest.mark.parametrize("order", PLAIN)
@pytest.mark.parametrize("bf", BF_CASES)
def test_engine_equals_naive_twin_on_tied_workloads(order: str, bf: dict) -> None:
    backfilled = 0
    for seed in range(25):
        jobs = tied_workload(seed)
        got = simulate(jobs, order=order, backfill=slurm_rule(**bf)).schedule
        naive = simulate_naive(jobs.submit, jobs.run, jobs.procs, jobs.requested, jobs.n_processors, order,
                               "slurm", **bf).start
        assert got["start"].tolist() == naive, f"seed {seed}"
        assert check_backfill_schedule(got, jobs, order=order, backfill="slurm", bf_interval=bf["bf_interval"],
                                       bf_window=bf["bf_window"]) == []
        none = simulate(jobs, order=order, backfill="none").schedule["start"].tolist()
        backfilled += naive != none
    if bf["bf_max_job_test"] == 1:
        # a pass tests the head alone, as the main scheduler does: no backfilling; but LXF re-ranks at each pass,
        # so a pass may find a new head that fits
        assert (backfilled == 0) == (order != "lxf")
    else:
        assert backfilled >= 5  # the backfill passes really start jobs out of order


@st.composite
def slurm_params(draw: st.DrawFn) -> dict:
    return {"bf_interval": draw(st.sampled_from([1, 2, 5, 9])), "bf_window": draw(st.sampled_from([1, 4, 15, 1000])),
            "bf_max_job_test": draw(st.sampled_from([1, 2, 500]))}


@st.composite
def small_jobs(draw: st.DrawFn) -> BackfillJobs:
    n_procs = draw(st.integers(1, 6))
    n = draw(st.integers(1, 12))
    submit = sorted(draw(st.lists(st.integers(0, draw(st.sampled_from([0, 5, 20, 40]))), min_size=n, max_size=n)))
    run = draw(st.lists(st.integers(1, 12), min_size=n, max_size=n))
    slack = draw(st.lists(st.sampled_from([0, 0, 1, 5, 20]), min_size=n, max_size=n))
    procs = draw(st.lists(st.integers(1, n_procs), min_size=n, max_size=n))
    return BackfillJobs.from_arrays(submit, run, procs, [r + s for r, s in zip(run, slack, strict=True)],
                                    n_processors=n_procs)


@settings(max_examples=150, deadline=None)
@given(jobs=small_jobs(), order=st.sampled_from(PLAIN), bf=slurm_params())
def test_engine_equals_the_twin(jobs: BackfillJobs, order: str, bf: dict) -> None:
    schedule = simulate(jobs, order=order, backfill=slurm_rule(**bf)).schedule
    assert check_backfill_schedule(schedule, jobs, order=order, backfill="slurm", bf_interval=bf["bf_interval"],
                                   bf_window=bf["bf_window"]) == []
    naive = simulate_naive(jobs.submit, jobs.run, jobs.procs, jobs.requested, jobs.n_processors, order, "slurm",
                           **bf)
    assert schedule["start"].tolist() == naive.start


@settings(max_examples=60, deadline=None)
@given(jobs=small_jobs(), order=st.sampled_from(TICKED), bf=slurm_params(), period=st.sampled_from([1, 3, 7]),
       data=st.data())
def test_ticked_orders_equal_their_twins(jobs: BackfillJobs, order: str, bf: dict, period: int,
                                         data: st.DataObject) -> None:
    org = data.draw(st.lists(st.integers(0, 2), min_size=jobs.n_jobs, max_size=jobs.n_jobs))
    shares = data.draw(st.lists(st.integers(1, 3), min_size=max(org) + 1, max_size=max(org) + 1))
    params = {"org": np.array(org), "shares": shares, "calc_period": period}
    schedule = simulate(jobs, order=order, backfill=slurm_rule(**bf), order_params=params).schedule
    assert check_backfill_schedule(schedule, jobs, order=order, backfill="slurm", calc_period=period,
                                   bf_interval=bf["bf_interval"], bf_window=bf["bf_window"]) == []
    naive = simulate_ticked_naive(jobs.submit, jobs.run, jobs.procs, jobs.requested, jobs.n_processors, order,
                                  "slurm", org=org, period=period, shares=shares, bf=bf).start
    assert schedule["start"].tolist() == naive


@pytest.mark.parametrize("order", ["fcfs", "slurm-fair-tree"])
def test_pausing_and_forking_keep_the_pass_grid(order: str) -> None:
    """A fork at any arrival carries the next pass time and the change flag: it reproduces each job's start."""
    jobs = tied_workload(5)
    params = {"org": np.arange(jobs.n_jobs) % 3, "calc_period": 5} if order != "fcfs" else None
    rule = slurm_rule(bf_interval=15, bf_window=40)
    real = simulate(jobs, order=order, backfill=rule, order_params=params).schedule["start"].tolist()
    sim = BackfillSimulator(jobs, order, rule, order_params=params)
    scratch = BackfillSimulator(jobs, order, rule, order_params=params)
    for job in range(jobs.n_jobs):
        assert sim.run(pause_before=job)
        assert sim.fork(into=scratch).run_until_started(job) == real[job]
    with pytest.raises(ConfigError, match="same jobs"):
        sim.fork(into=BackfillSimulator(jobs, order, slurm_rule(bf_interval=16), order_params=params))


def test_fairsched_backfill_takes_the_rules_options(tmp_path, capsys) -> None:
    swf = str(small_swf(tmp_path / "small.swf"))
    code, out, err = run_main(["backfill", "--trace", swf, "--backfill", "slurm", "--bf-interval", "60",
                               "--bf-max-job-test", "7", "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    config = doc["config"]
    assert (config["bf_interval"], config["bf_window"], config["bf_max_job_test"]) == (60, 86400, 7)
    assert doc["meta"]["backfill"] == "slurm" and doc["meta"]["backfill_params"]["bf_interval"] == 60
    code, out, err = run_main(["backfill", "--trace", swf, "--json"], capsys)
    assert code == 0 and "bf_interval" not in json.loads(out)["config"]  # other rules: not listed
    code, out, err = run_main(["backfill", "--trace", swf, "--bf-window", "100"], capsys)
    assert code == 2 and out == "" and err == ("error: --bf-window sets the slurm backfilling rule; it has no effect "
                                               "with --backfill easy (use --backfill slurm)\n")
