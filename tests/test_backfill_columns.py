"""The pandas-free path of ``fairsched backfill`` (issue #22 §2): numpy columns give what the pandas tables gave.

`fairsched backfill` reads SWF into `WorkloadColumns`, prepares it (clean, window, first N, load scaling) and
measures the engine's `BackfillResult.columns` without pandas. Each test runs the same steps on the pandas
`Workload` of `read_swf` and on the columns of `read_swf_columns`, and compares bit for bit, on hand-made jobs
and on a slice of a real trace; tests/test_process_imports.py checks that the command imports no pandas.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairsched.backfill import simulate
from fairsched.backfill.experiment import Config, backfill_workload, prepare_workload
from fairsched.backfill.jobs import BackfillJobs, jobs_from_workload
from fairsched.backfill.metrics import summary
from fairsched.backfill.validate import check_backfill_schedule
from fairsched.errors import ConfigError
from fairsched.workload.clean import clean
from fairsched.workload.model import Workload, WorkloadColumns
from fairsched.workload.swf import read_swf, read_swf_columns
from fairsched.workload.transform import compress_arrivals, expand_runtimes, first_jobs, scale_to_load, window
from tests.conftest import trace_path

# 6 jobs on 4 processors: a cancelled one (status 5, run -1), one too wide, one without requested time.
TOY = ("; MaxProcs: 4\n"
       "1 0 0 10 2 -1 -1 2 20 -1 1 7 1 -1 1 -1 -1 -1\n"
       "2 5 0 -1 1 -1 -1 1 30 -1 5 8 1 -1 1 -1 -1 -1\n"
       "3 9 0 30 4 -1 -1 4 -1 -1 1 7 1 -1 1 -1 -1 -1\n"
       "4 12 0 5 8 -1 -1 8 10 -1 1 9 1 -1 1 -1 -1 -1\n"
       "5 20.5 0 7.5 1 -1 -1 1 8 -1 1 8 1 -1 1 -1 -1 -1\n"
       "6 40 0 3 3 -1 -1 3 100 -1 1 9 1 -1 1 -1 -1 -1\n")


def same_columns(columns: WorkloadColumns, table: Workload) -> None:
    """Equal names, order, dtypes and bytes; equal source, header and read report."""
    assert list(columns.columns) == list(table.jobs.columns)
    for name, values in columns.columns.items():
        expected = table.jobs[name].to_numpy()
        assert values.dtype == expected.dtype and values.tobytes() == expected.tobytes(), name
    assert (columns.source, columns.header, columns.read_report) == (table.source, table.header, table.read_report)


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    path = tmp_path / "toy.swf"
    path.write_text(TOY)
    return path


def test_take_and_with_columns_behave_alike_on_both_kinds(toy: Path) -> None:
    columns, table = read_swf_columns(toy), read_swf(toy)
    for rows in (np.array([True, False, True, False, True, True]), np.array([4, 0, 2])):
        same_columns(columns.take(rows, source="picked"), table.take(rows, source="picked"))
    assert columns.take(np.array([4, 0])).column("job_number").tolist() == [5, 1]  # positions in the order given
    changed = {"run_time": np.arange(6, dtype=np.float64), "extra": np.ones(6, np.int64)}
    same_columns(columns.with_columns(changed), table.with_columns(changed))
    assert read_swf_columns(toy).column("run_time").tolist() == [10.0, -1.0, 30.0, 5.0, 7.5, 3.0]  # untouched
    assert table.jobs["run_time"].tolist() == [10.0, -1.0, 30.0, 5.0, 7.5, 3.0]
    with pytest.raises(ConfigError, match="one value per job"):
        columns.with_columns({"run_time": np.zeros(2)})
    assert table.to_workload() is table
    same_columns(columns, columns.to_workload())


def test_clean_window_first_and_scaling_give_the_same_jobs_on_columns(toy: Path) -> None:
    columns, table = read_swf_columns(toy), read_swf(toy)
    kept_columns, report_columns = clean(columns)
    kept_table, report_table = clean(table)
    assert report_columns == report_table and report_columns.dropped["cancelled before start"] == 1
    assert kept_columns.column("job_number").tolist() == [1, 3, 5, 6]  # job 4 (8 > 4 processors) dropped too
    same_columns(kept_columns, kept_table)
    steps = [lambda w: window(w, start=9, length=20), lambda w: first_jobs(w, 3),
             lambda w: compress_arrivals(w, 0.5), lambda w: expand_runtimes(w, 1.5),
             lambda w: scale_to_load(w, 0.6, 4, how="runtime"), lambda w: scale_to_load(w, 0.6, 4, how="arrival")]
    for step in steps:
        same_columns(step(kept_columns), step(kept_table))
    assert window(kept_columns, start=9, length=20).column("job_number").tolist() == [3, 5]
    assert expand_runtimes(kept_columns, 2.0).column("run_time").tolist() == [20.0, 60.0, 15.0, 6.0]


def test_the_backfill_pipeline_on_columns_equals_the_pandas_pipeline(toy: Path) -> None:
    for config in (Config(), Config(backfill="conservative", load=0.7), Config(order="sjf", first=3, procs=5),
                   Config(backfill="none", window_start=9, load=0.5, load_by="arrival")):
        processors = config.procs or 4
        prepared_columns, clean_columns, loads_columns = prepare_workload(read_swf_columns(toy), config, processors)
        prepared_table, clean_table, loads_table = prepare_workload(read_swf(toy), config, processors)
        same_columns(prepared_columns, prepared_table)
        assert (clean_columns, loads_columns) == (clean_table, loads_table)
        jobs_columns = jobs_from_workload(prepared_columns, n_processors=processors)
        jobs_table = jobs_from_workload(prepared_table, n_processors=processors)
        for name in ("job", "submit", "run", "requested", "procs"):
            assert getattr(jobs_columns, name).tobytes() == getattr(jobs_table, name).tobytes(), name
        assert jobs_columns.estimate_counts == jobs_table.estimate_counts
        report_columns = backfill_workload(read_swf_columns(toy), config)
        report_table = backfill_workload(read_swf(toy), config)
        assert report_columns.metrics == report_table.metrics
        assert report_columns.result.schedule.equals(report_table.result.schedule)


def test_result_columns_and_schedule_are_the_same_table() -> None:
    jobs = BackfillJobs.from_arrays(submit=[0, 0, 1, 5], run=[5, 100, 10, 5], procs=[2, 2, 4, 2],
                                    requested=[10, 100, 10, 5], n_processors=6)
    result = simulate(jobs, backfill="easy")
    assert result.columns["start"].tolist() == [0, 0, 10, 5]  # pyss README, Example A
    assert list(result.columns) == list(result.schedule.columns)
    for name, values in result.columns.items():
        assert values.tobytes() == result.schedule[name].to_numpy().tobytes(), name
    assert result.schedule is result.schedule  # built once
    assert summary(result.columns, 6) == summary(result.schedule, 6)
    assert summary(result.columns, 6)["mean_wait"] == 2.25  # waits 0, 0, 9, 0


def test_the_validator_reads_columns_as_it_reads_a_dataframe() -> None:
    jobs = BackfillJobs.from_arrays(submit=[0, 0, 1, 5], run=[5, 100, 10, 5], procs=[2, 2, 4, 2],
                                    requested=[10, 100, 10, 5], n_processors=6)
    columns = dict(simulate(jobs, backfill="easy").columns)
    assert check_backfill_schedule(columns, jobs, backfill="easy") == []
    late = {**columns, "start": columns["start"] + np.array([0, 0, 0, 1]), "end": columns["end"] + [0, 0, 0, 1]}
    found = check_backfill_schedule(late, jobs, backfill="none")
    assert found == check_backfill_schedule(pd.DataFrame(late), jobs, backfill="none")
    assert any("job 4 (row 3) starts at t=6" in message for message in found)
    floats = {**columns, "start": columns["start"].astype(np.float64)}
    message = ("the schedule lacks column(s) [] or has non-integer column(s) ['start']; expected integer columns "
               "job, submit, start, end, procs")
    assert check_backfill_schedule(floats, jobs) == [message] == check_backfill_schedule(pd.DataFrame(floats), jobs)
    nullable = pd.DataFrame(columns).astype({"start": "Int64"})
    assert check_backfill_schedule(nullable, jobs, backfill="easy") == []
    nullable.loc[0, "start"] = pd.NA
    assert "non-integer column(s) ['start']" in check_backfill_schedule(nullable, jobs)[0]


@pytest.mark.traces
def test_a_real_trace_slice_runs_the_same_on_both_kinds() -> None:
    path = trace_path("SDSC-SP2-1998-4.2-cln.swf.gz")
    config = Config(backfill="conservative", first=2_000, load=0.9)
    columns, table = read_swf_columns(path, compiled=True), read_swf(path)
    same_columns(columns, table)
    report_columns, report_table = backfill_workload(columns, config), backfill_workload(table, config)
    same_columns(report_columns.workload, report_table.workload)
    assert report_columns.metrics == report_table.metrics
    assert report_columns.result.schedule.equals(report_table.result.schedule)
