"""``trace info --out`` and ``unfairness re|fst --out``: figures, their tables, report.json and report.html."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairsched.backfill.metrics import waits_by_width
from fairsched.workload.info import arrivals
from fairsched.workload.swf import read_swf
from tests.conftest import run_main
from tests.test_byte_identical import small_swf
from tests.test_report_html import chromium_load, needs_chromium


def test_waits_by_width_hand_computed() -> None:
    # widths 1, 1, 3, 9: bins "1" (2 jobs), "3-4" (1), "9-16" (1); bounded slowdown max(1, (w + r) / max(r, 10)).
    table = waits_by_width(np.array([0, 100, 30, 5]), np.array([100, 5, 30, 1]), np.array([1, 1, 3, 9]))
    rows = table.set_index("width")
    assert rows.loc["1"].tolist() == [2, 50.0, 50.0, (1.0 + 10.5) / 2]
    assert rows.loc["3-4"].tolist() == [1, 30.0, 30.0, 2.0]
    assert rows.loc["9-16"].tolist() == [1, 5.0, 5.0, 1.0]
    assert rows.loc["2", "n_jobs"] == 0 and np.isnan(rows.loc["2", "mean_wait"])


def test_arrivals_count_every_job_once_per_day() -> None:
    submit = np.array([100.0, 200.0, 86_500.0, 4 * 86_400.0 + 50])  # days 0, 0, 1, 3 after the first
    frame = arrivals(submit, np.array([1.0, 2.0, 3.0, 4.0]))
    assert frame["day"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert frame["jobs"].tolist() == [2, 1, 0, 1] and frame["work"].tolist() == [3.0, 3.0, 0.0, 4.0]


def test_trace_info_out_writes_figures_tables_and_names_the_report(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    swf = small_swf(tmp_path / "s.swf", n_jobs=80)
    out = tmp_path / "o"
    code, stdout, err = run_main(["trace", "info", str(swf), "--out", str(out)], capsys)
    assert code == 0, err
    assert stdout.splitlines()[-1] == f"report: {out / 'report.html'} (all files in {out})"
    assert sorted(p.name for p in out.iterdir()) == ["arrivals.csv", "arrivals.png", "by_width.csv", "by_width.png",
                                                     "report.html", "report.json"]
    jobs = read_swf(swf).jobs
    by_width = pd.read_csv(out / "by_width.csv", dtype={"width": str}).set_index("width")
    narrow = jobs[jobs["processors"] == 1]  # bin "1": recompute its mean wait from the trace itself
    assert by_width.loc["1", "n_jobs"] == len(narrow)
    assert by_width.loc["1", "mean_wait"] == pytest.approx(narrow["wait_time"].mean())
    assert by_width["n_jobs"].sum() == len(jobs)
    assert pd.read_csv(out / "arrivals.csv")["jobs"].sum() == len(jobs)
    doc = json.loads((out / "report.json").read_text())
    assert doc["jobs"] == len(jobs) and doc["outputs"]["by_width.png"] == str(out / "by_width.png")
    page = (out / "report.html").read_text()
    assert page.count('src="data:image/png;base64,') == 2 and "<h2>by_width.csv</h2>" in page


def test_trace_info_without_out_does_not_import_matplotlib(tmp_path: Path) -> None:
    swf = small_swf(tmp_path / "s.swf", n_jobs=20)
    code = ("import sys; from fairsched.cli import main\n"
            f"try:\n    main(['trace', 'info', {str(swf)!r}])\nexcept SystemExit:\n    pass\n"
            "print('MPL', 'matplotlib' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert run.stdout.splitlines()[-1] == "MPL False"


def test_unfairness_re_out_matches_its_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    swf = small_swf(tmp_path / "s.swf", n_jobs=60)
    out = tmp_path / "o"
    code, stdout, err = run_main(["unfairness", "re", str(swf), "--out", str(out)], capsys)
    assert code == 0, err
    assert stdout.splitlines()[-1] == f"report: {out / 'report.html'} (all files in {out})"
    doc = json.loads((out / "report.json").read_text())
    per_job = pd.read_csv(out / "re.csv")
    assert len(per_job) == doc["n_jobs"] == 60
    assert per_job["deficit"].clip(lower=0).mean() == pytest.approx(doc["unfairness"]["re"]["unfairness"])
    by_width = pd.read_csv(out / "by_width.csv", dtype={"width": str}).set_index("width")
    for label, value in doc["unfairness"]["re"]["by_width"].items():
        assert (np.isnan(by_width.loc[label, "re_unfairness"]) if value is None
                else by_width.loc[label, "re_unfairness"] == pytest.approx(value))
    assert {"unfairness_by_width.png", "arrivals.png", "by_width.png"} <= set(doc["outputs"])


def test_unfairness_fst_out_adds_width_figures_to_the_backfill_files(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    swf = small_swf(tmp_path / "s.swf", n_jobs=60)
    out = tmp_path / "o"
    code, stdout, err = run_main(["unfairness", "fst", str(swf), "--kind", "strict", "--out", str(out), "--json"],
                                 capsys)
    assert code == 0, err
    doc = json.loads(stdout)
    assert set(doc["outputs"]) == {"schedule.csv", "fairness.csv", "jobs.csv", "schedule.swf", "gantt.png",
                                   "by_width.csv", "by_width.png", "unfairness_by_width.png", "report.json",
                                   "report.html"}
    assert json.loads((out / "report.json").read_text())["outputs"]["by_width.csv"] == str(out / "by_width.csv")
    by_width = pd.read_csv(out / "by_width.csv", dtype={"width": str})
    assert by_width["n_jobs"].sum() == 60 and "fst_strict_unfairness" in by_width


@needs_chromium
@pytest.mark.parametrize("command", [["trace", "info"], ["unfairness", "re"],
                                     ["unfairness", "fst", "--kind", "strict"]])
def test_chromium_loads_the_report(command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    swf = small_swf(tmp_path / "small.swf")
    code, _, err = run_main([*command[:2], str(swf), *command[2:], "--out", str(tmp_path / "o")], capsys)
    assert code == 0, err
    console, shot = chromium_load(tmp_path / "o" / "report.html", tmp_path)
    assert console == []
    assert (shot.sum(axis=2) < 200).mean() > 0.001
