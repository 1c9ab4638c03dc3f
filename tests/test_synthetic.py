"""The embedded default workload: determinism, SWF validity and the bursty model's properties."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from fairsched.errors import ConfigError
from fairsched.scenario import build_scenario
from fairsched.workload import synthetic
from fairsched.workload.schema import MISSING, PROCESSORS, RUNTIME_ESTIMATE, SWF_FIELDS
from fairsched.workload.synthetic import DEFAULT_MODEL, generate_default, measure


@pytest.fixture(scope="module")
def default_workload():
    return generate_default(seed=0)


def table_bytes(jobs: pd.DataFrame) -> bytes:
    return b"".join(name.encode() + jobs[name].to_numpy().tobytes() for name in jobs.columns)


def test_same_seed_same_bytes_other_seed_other_jobs(default_workload) -> None:
    again = generate_default(seed=0)
    assert table_bytes(again.jobs) == table_bytes(default_workload.jobs)
    assert again.header == default_workload.header
    other = generate_default(seed=1)
    assert not np.array_equal(other.jobs["submit_time"], default_workload.jobs["submit_time"])
    assert not np.array_equal(other.jobs["run_time"], default_workload.jobs["run_time"])


def test_default_size_header_and_source(default_workload) -> None:
    jobs = default_workload.jobs
    assert len(jobs) == 20_000
    assert list(jobs.columns) == [*SWF_FIELDS, PROCESSORS, RUNTIME_ESTIMATE]
    assert jobs["job_number"].tolist() == list(range(1, 20_001))
    assert default_workload.source == "synthetic:bursty(seed=0)"
    assert default_workload.header_value("Version") == "2.2"
    assert default_workload.header_value("Computer") == "fairsched synthetic bursty model"
    assert default_workload.header_int("MaxProcs") == 64 and default_workload.header_int("MaxNodes") == 64
    note = default_workload.header_value("Note")
    assert "n_users=40" in note and "runtime_alpha=0.6" in note and note.endswith("seed=0")


def test_columns_are_valid_swf(default_workload) -> None:
    jobs = default_workload.jobs
    submit = jobs["submit_time"].to_numpy()
    assert submit[0] == 0 and np.all(np.diff(submit) >= 0)
    assert np.all(submit == np.floor(submit))
    run = jobs["run_time"].to_numpy()
    assert run.min() >= 1 and np.all(run == np.ceil(run)) and run.max() <= DEFAULT_MODEL.runtime_max
    processors = jobs[PROCESSORS].to_numpy()
    assert processors.min() >= 1 and processors.max() <= 64
    assert set(np.unique(processors)) <= {1, 2, 4, 8}
    assert np.array_equal(jobs["allocated_processors"], processors)
    assert np.array_equal(jobs["requested_processors"], processors)
    assert np.all(jobs["requested_time"] >= run) and np.array_equal(jobs[RUNTIME_ESTIMATE], jobs["requested_time"])
    assert set(np.unique(jobs["requested_time"])) <= set(synthetic.ESTIMATE_LIMITS)
    assert np.all(jobs["status"] == 1)
    assert jobs["user_id"].between(1, DEFAULT_MODEL.n_users).all()
    for name in ("wait_time", "average_cpu_time", "used_memory", "requested_memory", "group_id",
                 "executable_number", "queue_number", "partition_number", "preceding_job_number", "think_time"):
        assert np.all(jobs[name] == MISSING), name


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_load_near_one_during_bursts_and_lower_on_average(seed) -> None:
    figures = measure(generate_default(seed=seed))
    # Across seeds 0..59 the burst load is 1.01 +- 0.07 and the mean load 0.63 +- 0.11 (docs/workloads-synthetic.md).
    assert 0.75 < figures["burst_load"] < 1.3
    assert 0.3 < figures["mean_load"] < 0.95
    assert figures["mean_load"] < figures["burst_load"]
    assert 2.0 < figures["span_days"] < 6.0
    assert figures["n_users"] > 20  # several users, for several organizations


def test_burst_load_follows_its_parameter() -> None:
    half = measure(generate_default(seed=0, burst_load=0.5, mean_load=0.3))
    assert 0.38 < half["burst_load"] < 0.65


def test_heavy_tailed_run_times(default_workload) -> None:
    figures = measure(default_workload)
    assert figures["run_time_max"] / figures["run_time_median"] > 100
    assert 0.03 < figures["parallel_fraction"] < 0.07


def test_run_times_follow_the_bounded_pareto_cdf() -> None:
    model = DEFAULT_MODEL
    run = synthetic._run_times(model, np.random.default_rng(3), 200_000)
    lo, hi, a = model.runtime_min, model.runtime_max, model.runtime_alpha
    for x in (12, 50, 300, 3600, 40_000):
        cdf = (1 - (lo / x) ** a) / (1 - (lo / hi) ** a)  # P(R <= x); ceil keeps R <= x for integer x
        assert abs(np.mean(run <= x) - cdf) < 0.005, x
    # The calibration's mean (E[R] + 1/2): relative standard error of this mean ~ 6.7 / sqrt(2e5) = 1.5 %.
    assert abs(run.mean() / model.mean_run_time - 1) < 0.06


def test_busy_periods_have_the_stationary_busy_fraction() -> None:
    rng = np.random.default_rng(8)
    p_on = np.array([0.5, 0.2, 0.05])
    on_mean, t_end = 100.0, 4e7  # 20,000 to 200,000 cycles per user
    off_mean = on_mean * (1 - p_on) / p_on
    user, start, duration = synthetic._busy_periods(rng, on_mean, off_mean, p_on, t_end)
    assert start.min() >= 0 and np.all(start + duration <= t_end)
    busy = np.bincount(user, weights=duration, minlength=3) / t_end
    # Relative sd over seeds: 0.1 %, 0.4 %, 0.9 % (alternating renewal with exponential periods).
    np.testing.assert_allclose(busy, p_on, rtol=0.04)
    for u in range(3):  # periods of one user never overlap
        mine = np.argsort(start[user == u])
        s, d = start[user == u][mine], duration[user == u][mine]
        assert np.all(s[1:] >= s[:-1] + d[:-1])


def test_stages_draw_from_separate_streams() -> None:
    base = generate_default(seed=4, n_jobs=3000)
    other_estimates = generate_default(seed=4, n_jobs=3000, max_overestimate=1.5)
    for name in ("submit_time", "user_id", "run_time", PROCESSORS):
        assert np.array_equal(base.jobs[name], other_estimates.jobs[name]), name
    assert not np.array_equal(base.jobs["requested_time"], other_estimates.jobs["requested_time"])


def test_parameters_override_the_model() -> None:
    workload = generate_default(seed=2, n_jobs=500, n_users=5, n_machines=16)
    assert len(workload.jobs) == 500 and workload.header_int("MaxProcs") == 16
    assert workload.jobs["user_id"].max() <= 5
    small = dataclasses.replace(DEFAULT_MODEL, n_jobs=500, n_users=5, n_machines=16)
    assert table_bytes(generate_default(seed=2, model=small).jobs) == table_bytes(workload.jobs)


@pytest.mark.parametrize(("params", "message"), [
    ({"n_jobz": 5}, "unknown synthetic model parameter.*n_jobz.*choose from: n_users"),
    ({"n_jobs": 0}, "n_jobs=0"),
    ({"mean_load": 1.5, "n_users": 1}, "user 1 would be busy 150%"),
    ({"max_parallel": 6}, "max_parallel=6; expected a power of two"),
    ({"max_parallel": 128}, "a job may not be wider than the machine"),
    ({"runtime_min": 0.5}, "1 <= runtime_min < runtime_max"),
    ({"parallel_fraction": 1.5}, "parallel_fraction=1.5"),
    ({"seed": -1}, "seed=-1"),
])
def test_bad_parameters(params, message) -> None:
    with pytest.raises(ConfigError, match=message):
        generate_default(**params)


def test_default_workload_builds_a_scenario(default_workload) -> None:
    scenario = build_scenario(default_workload, n_orgs=5, seed=0)
    assert scenario.n_machines == 64 and scenario.machines_per_org.min() >= 1
    assert scenario.n_sequential_jobs == int(default_workload.jobs[PROCESSORS].sum())
    assert scenario.jobs["processing_time"].tolist() == default_workload.jobs["run_time"].astype(int).tolist()


def test_users_start_in_their_stationary_state() -> None:
    """At time 0 a user is busy with probability p_u (memoryless residual periods), not always quiet."""
    p_on = np.full(4000, 0.3)
    user, start, _ = synthetic._busy_periods(np.random.default_rng(6), 100.0, 100.0 * 0.7 / 0.3 * np.ones(4000),
                                             p_on, 1000.0)
    busy_at_zero = np.unique(user[start < 1e-6]).size
    assert abs(busy_at_zero - 1200) < 5 * np.sqrt(4000 * 0.3 * 0.7)  # Binomial(4000, 0.3): 1200 +- 29


def test_random_streams_have_distinct_stage_keys() -> None:
    from fairsched import scenario

    keys = [synthetic.STAGE_ARRIVALS, synthetic.STAGE_RUNTIMES, synthetic.STAGE_PROCESSORS,
            synthetic.STAGE_ESTIMATES, scenario.STAGE_ORGS, scenario.STAGE_MACHINES]
    assert len(set(keys)) == len(keys)
