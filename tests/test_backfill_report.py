"""`fairsched.report.backfill`: first-fit processor assignment, the output directory (schedule, fairness, Batsim
jobs.csv, SWF, Gantt chart, JSON) and the terminal tables, on the hand-worked toy trace of test_backfill_cli."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rich.console import Console

from fairsched.backfill import BackfillJobs, simulate
from fairsched.backfill.experiment import BackfillReport, Config, backfill_workload, run_backfill
from fairsched.errors import ConfigError
from fairsched.report.backfill import (
    backfill_json,
    backfill_renderable,
    gantt_figure,
    write_backfill_outputs,
)
from fairsched.report.batsim import BATSIM_COLUMNS
from fairsched.report.processors import ProcessorAssignment, assign_processors
from fairsched.workload.swf import read_swf
from tests.test_backfill_cli import EASY_STARTS, TOY_JOBS, swf_text

TIMING_KEYS = {"elapsed_s", "timings"}


@pytest.fixture
def toy_trace(tmp_path: Path) -> Path:
    path = tmp_path / "toy.swf"
    path.write_text(swf_text(TOY_JOBS, max_procs=4))
    return path


@pytest.fixture
def report(toy_trace: Path) -> BackfillReport:
    return run_backfill(Config(trace=toy_trace, fairness=("fst-strict", "re")))


def test_first_fit_on_the_hand_worked_easy_schedule(report: BackfillReport) -> None:
    """By start: jobs 1, 2 at 0 take 0-1 and 2-3; at 5 jobs 4 and 5 take 2 and 3 (job 2's); at 10 job 3 all."""
    assert report.result.schedule["start"].tolist() == EASY_STARTS
    assignment = assign_processors(report.result.schedule, 4)
    assert assignment.interval_sets() == ["0-1", "2-3", "0-3", "2", "3"]
    job, first, last = assignment.runs()
    assert job.tolist() == [0, 1, 2, 3, 4] and first.tolist() == [0, 2, 0, 2, 3] and last.tolist() == [1, 3, 3, 2, 3]


def test_a_job_starting_when_another_ends_reuses_its_processors() -> None:
    """Job 2 starts at 5, when job 0 ends: it gets 0-1 (job 0's) and 3, the lowest free; job 3 then gets 4."""
    schedule = pd.DataFrame({"start": [0, 0, 5, 5], "end": [5, 9, 8, 6], "procs": [2, 1, 3, 1]})
    assert assign_processors(schedule, 5).interval_sets() == ["0-1", "2", "0-1 3", "4"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_first_fit_gives_each_job_its_processors_and_never_shares_one(seed: int) -> None:
    """Brute force over all pairs: jobs overlapping in time get disjoint processor sets of the right sizes."""
    rng = np.random.default_rng(seed)
    n, p = 60, 8
    jobs = BackfillJobs.from_arrays(np.sort(rng.integers(0, 60, n)), rng.integers(1, 50, n),
                                    rng.integers(1, p // 2 + 1, n), rng.integers(50, 100, n), n_processors=p)
    schedule = simulate(jobs, order="sjf", backfill="easy").schedule
    assignment = assign_processors(schedule, p)
    sets = [set(assignment.processors[a:b].tolist()) for a, b in zip(assignment.offsets[:-1],
                                                                     assignment.offsets[1:], strict=True)]
    assert [len(s) for s in sets] == schedule["procs"].tolist()
    assert all(0 <= q < p for s in sets for q in s)
    start, end = schedule["start"].to_numpy(), schedule["end"].to_numpy()
    overlapping = 0
    for i in range(n):
        for k in range(i + 1, n):
            if start[i] < end[k] and start[k] < end[i]:
                overlapping += 1
                assert not sets[i] & sets[k], (i, k)
    assert overlapping > n  # the instance does make jobs compete


def test_first_fit_refuses_a_schedule_over_capacity() -> None:
    schedule = pd.DataFrame({"start": [0, 0, 3], "end": [10, 10, 4], "procs": [2, 2, 1]})
    with pytest.raises(ConfigError, match=r"row 2 \(start 3\).*more than 4 processors"):
        assign_processors(schedule, 4)


def test_output_directory_holds_every_file_with_exact_columns(report: BackfillReport, tmp_path: Path) -> None:
    written = write_backfill_outputs(report, tmp_path / "out")
    assert set(written) == {"schedule.csv", "fairness.csv", "jobs.csv", "schedule.swf", "gantt.png", "report.json"}
    assert all(path == tmp_path / "out" / name and path.is_file() for name, path in written.items())
    assert not list((tmp_path / "out").glob("*.tmp"))
    assert written["schedule.csv"].read_text().splitlines() == [
        "job,submit,start,end,procs", "1,0,0,10,2", "2,0,0,5,2", "3,1,10,20,4", "4,2,5,8,1", "5,3,5,7,1"]
    fairness = pd.read_csv(written["fairness.csv"])
    assert fairness.columns.tolist() == ["job", "fst_strict", "re_deserved", "re_consumed"]
    assert fairness["fst_strict"].tolist() == EASY_STARTS
    assert written["gantt.png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    doc = json.loads(written["report.json"].read_text())
    assert doc == json.loads(json.dumps(backfill_json(report, written)))
    assert set(doc["outputs"]) == set(written)


def test_batsim_jobs_csv_follows_the_batsim_formulas(report: BackfillReport, tmp_path: Path) -> None:
    jobs = pd.read_csv(write_backfill_outputs(report, tmp_path)["jobs.csv"], dtype={"allocated_resources": str})
    assert jobs.columns.tolist() == list(BATSIM_COLUMNS)
    assert jobs["job_id"].tolist() == [1, 2, 3, 4, 5]
    assert set(jobs["workload_name"]) == {"toy"}
    assert jobs["starting_time"].tolist() == EASY_STARTS
    assert (jobs["waiting_time"] == jobs["starting_time"] - jobs["submission_time"]).all()
    assert (jobs["execution_time"] == jobs["finish_time"] - jobs["starting_time"]).all()
    assert (jobs["turnaround_time"] == jobs["finish_time"] - jobs["submission_time"]).all()
    assert jobs["stretch"].tolist() == pytest.approx((jobs["turnaround_time"] / jobs["execution_time"]).tolist())
    assert jobs["requested_time"].tolist() == [20, 5, 10, 3, 2]
    assert set(jobs["final_state"]) == {"COMPLETED_SUCCESSFULLY"} and set(jobs["success"]) == {1}
    assert jobs["allocated_resources"].tolist() == ["0-1", "2-3", "0-3", "2", "3"]


def test_swf_export_reads_back_with_the_simulated_times(toy_trace: Path, tmp_path: Path) -> None:
    scaled = backfill_workload(read_swf(toy_trace), Config(load=0.5))
    swf = read_swf(write_backfill_outputs(scaled, tmp_path)["schedule.swf"])
    schedule = scaled.result.schedule
    assert swf.jobs["job_number"].tolist() == schedule["job"].tolist()
    assert swf.jobs["wait_time"].tolist() == schedule["wait"].tolist()
    assert swf.jobs["run_time"].tolist() == (schedule["end"] - schedule["start"]).tolist()
    assert swf.jobs["run_time"].tolist() != [10, 5, 10, 3, 2]  # the load-scaled run times, not the trace's
    assert swf.jobs["requested_time"].tolist() == scaled.result.jobs.requested.tolist()
    assert swf.jobs["user_id"].tolist() == [1] * 5  # untouched fields come from the trace
    assert swf.header_int("MaxProcs") == 4
    assert "fcfs x easy on 4 processors, offered load 0.5 by runtime" in swf.header_value("Note")


def test_same_run_gives_the_same_bytes(toy_trace: Path, tmp_path: Path) -> None:
    config = Config(trace=toy_trace, order="lxf", backfill="conservative", fairness=("fst-relaxed", "re"))
    first = write_backfill_outputs(run_backfill(config), tmp_path / "a")
    again = write_backfill_outputs(run_backfill(config), tmp_path / "b")
    for name in first:
        if name == "report.json":
            docs = [json.loads(path.read_text()) for path in (first[name], again[name])]
            docs = [{k: v for k, v in doc.items() if k not in TIMING_KEYS | {"outputs"}} for doc in docs]
            assert docs[0] == docs[1]
        else:
            assert first[name].read_bytes() == again[name].read_bytes(), name


def test_gantt_draws_one_rectangle_per_processor_range(report: BackfillReport) -> None:
    schedule = report.result.schedule
    assignment = ProcessorAssignment(np.array([0, 2, 4, 8, 9, 10]), np.array([0, 1, 2, 3, 0, 1, 2, 3, 2, 3]))
    ax = gantt_figure(schedule, assignment, 4, title="toy").axes[0]
    boxes = [path.vertices for path in ax.collections[0].get_paths()]
    assert len(boxes) == 5
    job3 = boxes[2]  # job 3: [10, 20) on processors 0..3
    assert (job3[:, 0].min(), job3[:, 0].max(), job3[:, 1].min(), job3[:, 1].max()) == (10, 20, 0, 4)
    assert ax.get_ylim() == (0, 4) and "toy" in ax.get_title()


def test_json_is_strict_and_the_tables_show_the_run(report: BackfillReport) -> None:
    doc = json.loads(json.dumps(backfill_json(report), allow_nan=False))
    assert doc["model"] == "backfill" and doc["workload"]["processors"] == 4
    assert doc["workload"]["clean"]["dropped"]["cancelled before start"] == 1
    assert doc["unfairness"]["fst_strict"]["unfairness"] == 0.0
    console = Console(record=True, width=160)
    console.print(backfill_renderable(report))
    text = console.export_text()
    assert "fcfs × easy" in text and "strict FST" in text and "resource equality" in text
    assert "mean_wait" in text
