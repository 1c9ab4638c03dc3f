"""The `backfill` pipeline (`fairsched.backfill.experiment`) on a hand-made trace, and the CLI wiring of
``fairsched backfill`` and ``fairsched unfairness re|fst`` (one CliRunner smoke test each, plus the error boundary).

The toy trace (P = 4) under FCFS × EASY, worked by hand:

* jobs 1 and 2 (2 processors each; 1 estimated 20 s, really 10 s) start at 0;
* job 3 (4 processors, 10 s) arrives at 1 and waits: head of the queue, its shadow time is job 1's planned end 20;
* jobs 4 (1 processor, 3 s) and 5 (1 processor, 2 s) arrive at 2 and 3; at 5 job 2 ends and both backfill (they
  end by 8 <= 20);
* job 1 really ends at 10 and job 3 starts then.  Starts: 0, 0, 10, 5, 5.

Fair start times (JSSPP'05 §3.1): strict = the starts (each what-if reproduces the real start); relaxed: jobs 4 and
5 may join only once job 3 has started (at 10, on all 4 processors), so they start at 20.
Job 6 was cancelled before starting (dropped by cleaning); job 5 has no recorded wait (SWF field 3 = -1).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from fairsched import cli
from fairsched.backfill.experiment import (
    Config,
    backfill_workload,
    recorded_schedule,
    run_backfill,
    trace_resource_equality,
)
from fairsched.errors import ConfigError, UnknownPolicyError
from fairsched.workload.swf import read_swf

# job submit wait run procs requested status (the other SWF fields are -1)
TOY_JOBS = [(1, 0, 0, 10, 2, 20, 1), (2, 0, 0, 5, 2, 5, 1), (3, 1, 4, 10, 4, 10, 1), (4, 2, 3, 3, 1, 3, 1),
            (5, 3, -1, 2, 1, 2, 1), (6, 4, -1, -1, 1, -1, 5)]
EASY_STARTS = [0, 0, 10, 5, 5]
RELAXED_FST = [0, 0, 10, 20, 20]

runner = CliRunner()


def swf_text(jobs: list[tuple[int, ...]], max_procs: int) -> str:
    """An SWF file: header with MaxProcs, one line per (job, submit, wait, run, procs, requested, status)."""
    lines = ["; Version: 2.2", "; Computer: toy cluster for the backfill tests", f"; MaxProcs: {max_procs}"]
    for job, submit, wait, run, procs, requested, status in jobs:
        fields = [job, submit, wait, run, procs, -1, -1, procs, requested, -1, status, 1, 1, -1, 1, -1, -1, -1]
        lines.append(" ".join(str(value) for value in fields))
    return "\n".join(lines) + "\n"


@pytest.fixture
def toy_trace(tmp_path: Path) -> Path:
    path = tmp_path / "toy.swf"
    path.write_text(swf_text(TOY_JOBS, max_procs=4))
    return path


def test_pipeline_gives_the_hand_worked_easy_schedule_and_metrics(toy_trace: Path) -> None:
    report = run_backfill(Config(trace=toy_trace, order="fcfs", backfill="easy"))
    schedule = report.result.schedule
    assert schedule["job"].tolist() == [1, 2, 3, 4, 5]  # job 6 (cancelled) dropped by cleaning
    assert schedule["start"].tolist() == EASY_STARTS
    assert schedule["end"].tolist() == [10, 5, 20, 8, 7]
    assert report.clean_report.dropped["cancelled before start"] == 1
    assert report.metrics["mean_wait"] == pytest.approx((0 + 0 + 9 + 3 + 2) / 5)
    assert report.metrics["makespan"] == 20
    assert report.fairness is None and report.unfairness == {}
    assert report.read_report.n_records == 6
    assert report.result.meta["order"] == "fcfs" and report.result.meta["backfill"] == "easy"


def test_fairness_columns_are_exactly_the_metrics_asked_for(toy_trace: Path) -> None:
    report = run_backfill(Config(trace=toy_trace, fairness=("re", "fst-relaxed", "fst-strict")))
    assert report.fairness.columns.tolist() == ["job", "fst_strict", "fst_relaxed", "re_deserved", "re_consumed"]
    assert report.fairness["fst_strict"].tolist() == EASY_STARTS
    assert report.fairness["fst_relaxed"].tolist() == RELAXED_FST
    assert report.fairness["re_consumed"].tolist() == [20, 10, 40, 3, 2]  # run x procs
    assert report.fairness["re_deserved"].sum() == pytest.approx(75.0)  # deficits sum to 0 (JSSPP'05 §3.2)
    assert report.unfairness["fst_strict"]["unfairness"] == 0.0
    assert report.unfairness["fst_relaxed"]["benefit"] == pytest.approx((15 + 15) / 5)
    only_re = backfill_workload(read_swf(toy_trace), Config(fairness=(" RE",)))  # as typed in a list
    assert only_re.fairness.columns.tolist() == ["job", "re_deserved", "re_consumed"]
    assert set(only_re.unfairness) == {"n_jobs", "re", "width_jobs"}


def test_window_first_and_processors_select_the_jobs(toy_trace: Path) -> None:
    workload = read_swf(toy_trace)
    first = backfill_workload(workload, Config(first=3))
    assert first.result.schedule["job"].tolist() == [1, 2, 3]
    windowed = backfill_workload(workload, Config(window_start=1, window_length=2))
    assert windowed.result.schedule["job"].tolist() == [3, 4]  # submitted in [1, 3)
    strict = backfill_workload(workload, Config(backfill="none"))
    assert strict.result.schedule["start"].tolist() == [0, 0, 10, 20, 20]
    wide = backfill_workload(workload, Config(procs=8, backfill="none"))
    assert wide.n_processors == 8 and wide.result.schedule["start"].tolist() == [0, 0, 1, 5, 5]
    narrow = backfill_workload(workload, Config(procs=2))
    assert 3 not in narrow.result.schedule["job"].tolist()  # wider than the machine: dropped by cleaning
    assert narrow.clean_report.dropped["processors > machine"] == 1


def test_load_scaling_reaches_the_target_by_runtime_and_by_arrival(toy_trace: Path) -> None:
    workload = read_swf(toy_trace)
    plain = backfill_workload(workload, Config())
    for how in ("runtime", "arrival"):
        scaled = backfill_workload(workload, Config(load=0.9, load_by=how))
        assert scaled.offered_load["before"] == pytest.approx(plain.offered_load["before"])
        assert scaled.offered_load["after"] == pytest.approx(0.9)
        assert scaled.result.meta["load"] == 0.9 and scaled.result.meta["load_by"] == how
    # work / (P x span), span = max(submit + run) - min(submit) = 1 + 10 (job 3)
    assert plain.offered_load["before"] == pytest.approx(75 / (4 * 11))


def test_names_are_checked_before_the_trace_is_read(tmp_path: Path) -> None:
    missing = tmp_path / "absent.swf"
    with pytest.raises(UnknownPolicyError, match="fcfs, sjf, lxf"):
        Config(trace=missing, order="bogus")
    with pytest.raises(ConfigError, match="fst-strict, fst-relaxed, re"):
        Config(trace=missing, fairness=("fst",))
    with pytest.raises(ConfigError, match="tuple of names"):
        Config(trace=missing, fairness="re")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="no job left"):
        backfill_workload(read_swf(_write(tmp_path, TOY_JOBS)), Config(window_start=100))


def test_recorded_schedule_uses_the_real_waits_and_counts_what_it_leaves_out(toy_trace: Path) -> None:
    schedule, dropped = recorded_schedule(read_swf(toy_trace), 4)
    assert schedule["job"].tolist() == [1, 2, 3, 4]
    assert schedule["start"].tolist() == [0, 0, 5, 5]  # submit + wait
    assert schedule["end"].tolist() == [10, 5, 15, 8]
    assert dropped == {"cancelled before start": 1, "wait time missing": 1}
    result = trace_resource_equality(toy_trace)
    assert result.n_processors == 4 and len(result.re) == 4
    assert result.re["deficit"].sum() == pytest.approx(0.0)
    assert result.unfairness["re"]["unfairness"] == pytest.approx(np.maximum(result.re["deficit"], 0).sum() / 4)


def test_a_trace_without_wait_times_says_how_to_measure_it(tmp_path: Path) -> None:
    no_waits = [(job, submit, -1, run, procs, req, status) for job, submit, _, run, procs, req, status in TOY_JOBS]
    with pytest.raises(ConfigError, match="fairsched backfill --fairness re"):
        trace_resource_equality(_write(tmp_path, no_waits))


def test_backfill_command_json_is_one_document_and_outputs_are_written(toy_trace: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(cli.app, ["backfill", "--trace", str(toy_trace), "--order", "fcfs", "--backfill", "easy",
                                     "--fairness", "fst-strict,re", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["config"]["fairness"] == ["fst-strict", "re"]
    assert doc["metrics"]["n_jobs"] == 5
    assert set(doc["outputs"]) == {"schedule.csv", "fairness.csv", "jobs.csv", "schedule.swf", "gantt.png",
                                   "report.json", "report.html"}
    assert (out / "fairness.csv").read_text().splitlines()[0] == "job,fst_strict,re_deserved,re_consumed"
    assert json.loads((out / "report.json").read_text())["metrics"] == doc["metrics"]


def test_unfairness_re_command(toy_trace: Path) -> None:
    result = runner.invoke(cli.app, ["unfairness", "re", str(toy_trace), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["n_jobs"] == 4 and doc["processors"] == 4
    assert doc["dropped"] == {"cancelled before start": 1, "wait time missing": 1}
    assert set(doc["unfairness"]) == {"n_jobs", "re", "width_jobs"}


def test_unfairness_fst_command(toy_trace: Path) -> None:
    result = runner.invoke(cli.app, ["unfairness", "fst", str(toy_trace), "--kind", "relaxed", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["config"]["fairness"] == ["fst-relaxed"]
    assert doc["unfairness"]["fst_relaxed"]["benefit"] == pytest.approx(6.0)
    table = runner.invoke(cli.app, ["unfairness", "fst", str(toy_trace)])
    assert table.exit_code == 0 and "strict FST" in table.stdout and "relaxed FST" in table.stdout


def test_user_errors_are_one_line_with_exit_code_2(toy_trace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for args, expected in ((["backfill", "--trace", str(toy_trace), "--order", "bogus"], "unknown queue order"),
                           (["unfairness", "fst", str(toy_trace), "--kind", "loose"], "strict, relaxed, both")):
        with pytest.raises(SystemExit) as exit_info:
            cli.main(args)
        out, err = capsys.readouterr()
        assert exit_info.value.code == 2 and out == ""
        assert err.startswith("error: ") and expected in err and err.count("\n") == 1


def _write(tmp_path: Path, jobs: list[tuple[int, ...]]) -> Path:
    path = tmp_path / "variant.swf"
    path.write_text(swf_text(jobs, max_procs=4))
    return path
