"""Batsim jobs.csv (fairsched.report.batsim): the formulas, and the files of compare, backfill and mosp read back by
evalys 4.x (an optional test dependency: skipped when not installed)."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairsched.mosp import experiment as mosp_experiment
from fairsched.online import experiment as online_experiment
from fairsched.report.batsim import BATSIM_COLUMNS, interval_sets, jobs_frame, online_jobs_frame
from fairsched.report.mosp import write_mosp_outputs
from fairsched.report.online import write_compare_outputs
from fairsched.report.processors import assign_processors
from fairsched.scenario import scenario_from_arrays
from tests.conftest import run_main
from tests.test_backfill_cli import TOY_JOBS, swf_text


def test_interval_sets_merge_consecutive_resources_per_job() -> None:
    offsets = np.array([0, 5, 5, 6, 10])
    resources = np.array([1, 2, 5, 10, 11, 7, 3, 4, 5, 9])
    assert interval_sets(offsets, resources) == ["1-2 5 10-11", "", "7", "3-5 9"]
    assert interval_sets(np.array([0]), np.array([], dtype=np.int64)) == []


def test_jobs_frame_columns_and_formulas() -> None:
    frame = jobs_frame(job_id=np.array([3, 4]), submission_time=np.array([10, 10]), requested_time=np.array([9, 1]),
                       starting_time=np.array([12, 10]), finish_time=np.array([18, 10]), offsets=np.array([0, 3, 4]),
                       resources=np.array([0, 1, 4, 2]), workload_name="toy")
    assert frame.columns.tolist() == list(BATSIM_COLUMNS)
    assert frame.to_dict("records") == [
        {"job_id": 3, "submission_time": 10, "requested_number_of_resources": 3, "requested_time": 9,
         "starting_time": 12, "execution_time": 6, "finish_time": 18, "waiting_time": 2, "turnaround_time": 8,
         "stretch": 8 / 6, "allocated_resources": "0-1 4", "success": 1, "final_state": "COMPLETED_SUCCESSFULLY",
         "workload_name": "toy", "profile": "delay"},
        {"job_id": 4, "submission_time": 10, "requested_number_of_resources": 1, "requested_time": 1,
         "starting_time": 10, "execution_time": 0, "finish_time": 10, "waiting_time": 0, "turnaround_time": 0,
         "stretch": 0.0, "allocated_resources": "2", "success": 1, "final_state": "COMPLETED_SUCCESSFULLY",
         "workload_name": "toy", "profile": "delay"}]


def test_online_copies_are_separate_jobs_on_their_machines() -> None:
    schedule = pd.DataFrame({"job": [5, 6, 6, 6], "org": [0, 1, 1, 1], "release": [0, 2, 2, 2],
                             "start": [1, 2, 2, 7], "end": [4, 5, 5, 10], "machine": [0, 1, 2, 0]})
    frame = online_jobs_frame(schedule, "w")
    assert frame["job_id"].tolist() == ["5", "6:0", "6:1", "6:2"]
    assert frame["allocated_resources"].tolist() == ["0", "1", "2", "0"]
    assert frame["waiting_time"].tolist() == [1, 0, 0, 5]
    assert frame["requested_time"].tolist() == [3, 3, 3, 3]


# ----------------------------------------------------------------------------------------------- the three models

def _compare_jobs(tmp_path: Path) -> list[tuple[Path, pd.DataFrame]]:
    rng = np.random.default_rng(4)
    n = 40
    scenario = scenario_from_arrays(np.sort(rng.integers(0, 30, n)), rng.integers(1, 12, n), rng.integers(0, 3, n),
                                    [1, 2, 2], copies=rng.integers(1, 3, n), job=np.arange(1, n + 1))
    config = online_experiment.Config(policies=("roundrobin", "fairshare"), reference="fairshare")
    result = online_experiment.compare_scenario(scenario, config, 0)
    written = write_compare_outputs(result, tmp_path / "compare")
    return [(written[f"{name}/jobs.csv"], outcome.result.schedule) for name, outcome in result.policies.items()]


def _backfill_jobs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[Path, pd.DataFrame]]:
    trace = tmp_path / "toy.swf"
    trace.write_text(swf_text(TOY_JOBS, max_procs=4))
    code, _, err = run_main(["backfill", "--trace", str(trace), "--out", str(tmp_path / "backfill")], capsys)
    assert code == 0, err
    return [(tmp_path / "backfill" / "jobs.csv", pd.read_csv(tmp_path / "backfill" / "schedule.csv"))]


def _mosp_jobs(tmp_path: Path) -> list[tuple[Path, pd.DataFrame]]:
    report = mosp_experiment.run_mosp(mosp_experiment.Config(orgs=3, jobs=40, procs=6, algorithm="mocca"), 3)
    written = write_mosp_outputs(report, tmp_path / "mosp")
    schedule = pd.DataFrame({"job": report.instance.job_id, "start": report.schedule.start,
                             "end": report.schedule.start + report.instance.runtime, "cluster": report.schedule.cluster,
                             "procs": report.instance.width})
    return [(written["jobs.csv"], schedule)]


@pytest.fixture
def model_files(request: pytest.FixtureRequest, tmp_path: Path,
                capsys: pytest.CaptureFixture[str]) -> list[tuple[Path, pd.DataFrame]]:
    if request.param == "backfill":
        return _backfill_jobs(tmp_path, capsys)
    return {"compare": _compare_jobs, "mosp": _mosp_jobs}[request.param](tmp_path)


def _overlaps(jobs: pd.DataFrame) -> list[tuple[int, str, str]]:
    """(resource, job, job) of two jobs holding one resource at the same time (none in a valid schedule)."""
    held = []
    for job_id, start, end, text in jobs[["job_id", "starting_time", "finish_time", "allocated_resources"]].values:
        for part in str(text).split():
            lo, _, hi = part.partition("-")
            held.extend((r, start, end, str(job_id)) for r in range(int(lo), int(hi or lo) + 1))
    held.sort()
    return [(a[0], a[3], b[3]) for a, b in itertools.pairwise(held) if a[0] == b[0] and b[1] < a[2]]


@pytest.mark.parametrize("model_files", ["compare", "backfill", "mosp"], indirect=True)
def test_jobs_csv_matches_the_schedule(model_files: list[tuple[Path, pd.DataFrame]]) -> None:
    assert model_files
    for path, schedule in model_files:
        jobs = pd.read_csv(path, dtype={"allocated_resources": str, "job_id": str})
        assert jobs.columns.tolist() == list(BATSIM_COLUMNS)
        assert len(jobs) == len(schedule) > 0
        assert jobs["starting_time"].tolist() == schedule["start"].tolist()
        assert jobs["finish_time"].tolist() == schedule["end"].tolist()
        widths = [sum(int(p.partition("-")[2] or p) - int(p.partition("-")[0]) + 1 for p in text.split())
                  for text in jobs["allocated_resources"]]
        assert widths == jobs["requested_number_of_resources"].tolist()
        assert _overlaps(jobs) == []


def test_overlap_check_can_fail() -> None:
    jobs = pd.DataFrame({"job_id": ["a", "b"], "starting_time": [0, 5], "finish_time": [10, 12],
                         "allocated_resources": ["0-3", "3-4"]})
    assert _overlaps(jobs) == [(3, "a", "b")]


@pytest.mark.parametrize("model_files", ["compare", "backfill", "mosp"], indirect=True)
def test_evalys_reads_and_draws_every_jobs_csv(model_files: list[tuple[Path, pd.DataFrame]], tmp_path: Path) -> None:
    jobset_module = pytest.importorskip("evalys.jobset")
    gantt = pytest.importorskip("evalys.visu.gantt")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for i, (path, schedule) in enumerate(model_files):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # evalys' own pandas deprecations; showing a figure under Agg
            jobset = jobset_module.JobSet.from_csv(str(path))
            gantt.plot_gantt(jobset, title=path.parent.name)
        assert len(jobset.df) == len(schedule)
        assert jobset.df["proc_alloc"].tolist() == jobset.df["requested_number_of_resources"].tolist()
        png = tmp_path / f"gantt{i}.png"
        plt.gcf().savefig(png)
        plt.close("all")
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_gantt_charts_say_when_they_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    """Beyond MAX_GANTT_JOBS jobs a chart draws the earliest started ones and its title says so (never silently)."""
    from fairsched.report import backfill as backfill_report
    from fairsched.report import mosp as mosp_report

    report = mosp_experiment.run_mosp(mosp_experiment.Config(orgs=2, jobs=30, procs=4, algorithm="local"), 1)
    full = mosp_report.gantt_figure(report.instance, report.schedule, title="t")
    assert full.axes[0].get_title() == "t"
    monkeypatch.setattr(mosp_report, "MAX_GANTT_JOBS", 5)
    cut = mosp_report.gantt_figure(report.instance, report.schedule, title="t")
    per_cluster = np.bincount(report.schedule.cluster, minlength=2)
    drawn = int(np.minimum(per_cluster, 5).sum())
    assert cut.axes[0].get_title() == f"t — {drawn} of 30 jobs drawn (the first 5 by start time on each cluster)"

    schedule = pd.DataFrame({"submit": [0, 0, 1], "start": [0, 2, 4], "end": [2, 4, 6], "procs": [1, 1, 1]})
    assignment = assign_processors(schedule, 1)
    monkeypatch.setattr(backfill_report, "MAX_GANTT_JOBS", 2)
    title = backfill_report.gantt_figure(schedule, assignment, 1, title="b").axes[0].get_title()
    assert title == "b — first 2 of 3 jobs by start time"
