"""`fairsched.replicate.jsspp05` on tiny configurations: shapes, keys, invariants, determinism, Spearman's rho,
the missing-trace message, and the ``fairsched replicate jsspp05`` command (on synthetic stand-in traces)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairsched import cli
from fairsched.backfill import fairness
from fairsched.errors import ConfigError
from fairsched.replicate import jsspp05
from fairsched.replicate.jsspp05 import JSSPP05Config, JSSPP05Result, spearman_rho
from fairsched.report.backfill import write_jsspp05_outputs
from fairsched.sweep import load_spec
from tests.conftest import run_main, trace_path

ROW_COLUMNS = ["trace", "load", "order", "backfill", "metric", "width", "value"]


def synthetic_swf(seed: int, n: int = 120, max_procs: int = 16) -> str:
    """A small SWF trace with bursty arrivals, varied widths and over-estimated run times (seeded)."""
    rng = np.random.default_rng(seed)
    submit = np.cumsum(rng.exponential(40.0, n)).astype(np.int64)
    run = rng.integers(1, 600, n)
    procs = np.minimum(2 ** rng.integers(0, 5, n), max_procs)
    requested = run * rng.integers(1, 4, n)
    lines = ["; Version: 2.2", f"; MaxProcs: {max_procs}"]
    lines += [f"{i + 1} {submit[i]} -1 {run[i]} {procs[i]} -1 -1 {procs[i]} {requested[i]} -1 1 {i % 7} 1 -1 1 -1 -1 -1"
              for i in range(n)]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def synthetic_traces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Stand-ins named like the real files (read_swf detects gzip by content, so plain text is fine)."""
    folder = tmp_path_factory.mktemp("traces")
    for seed, name in enumerate(jsspp05.TRACES.values()):
        (folder / name).write_text(synthetic_swf(seed))
    return folder


TINY = {"traces": ("CTC-SP2",), "subset_size": 100, "loads": (0.8, 0.95), "orders": ("fcfs", "sjf"),
        "depths": ("no-guarantee", "easy"), "n_subsets": 4}


@pytest.fixture(scope="module")
def tiny(synthetic_traces: Path) -> JSSPP05Result:
    return jsspp05.run(JSSPP05Config(traces_dir=synthetic_traces, **TINY))


def test_rows_cover_every_simulation_metric_and_width(tiny: JSSPP05Result) -> None:
    rows = tiny.rows
    assert rows.columns.tolist() == ROW_COLUMNS
    overall = rows[rows["width"] == "all"]
    assert len(overall) == 2 * 2 * 2 * 3  # loads x orders x depths x metrics
    assert overall[["load", "order", "backfill"]].drop_duplicates().values.tolist() == [
        [load, order, depth] for load in (0.8, 0.95) for order in ("fcfs", "sjf") for depth in ("no-guarantee", "easy")]
    widths = tiny.traces["CTC-SP2"]["jobs_per_width"]
    assert sum(widths.values()) == 100
    present = [label for label in fairness.WIDTH_BINS if widths[label] > 0]
    assert len(rows) == len(overall) * (1 + len(present))
    for _, group in rows.groupby(["load", "order", "backfill", "metric"]):
        by_bin = group[group["width"] != "all"].set_index("width")["value"]
        assert by_bin.index.tolist() == present
        # the overall mean is the job-weighted mean of the width-bin means
        weighted = sum(widths[label] * value for label, value in by_bin.items()) / 100
        assert group[group["width"] == "all"]["value"].item() == pytest.approx(weighted)
    assert (rows["value"] >= 0).all()
    assert rows.loc[rows["metric"] == "re", "value"].max() > 0  # the instance is not trivially fair


def test_overall_values_are_the_paper_means_of_one_simulation(tiny: JSSPP05Result,
                                                              synthetic_traces: Path) -> None:
    """Re-derive one row from the engine and the metrics: (1/n) Σ max(start - FST, 0), (1/n) Σ max(D_i, 0)."""
    from fairsched.backfill import jobs_from_workload, simulate
    from fairsched.workload.clean import clean
    from fairsched.workload.swf import read_swf
    from fairsched.workload.transform import first_jobs, scale_to_load

    workload = read_swf(synthetic_traces / jsspp05.TRACES["CTC-SP2"])
    subset = first_jobs(clean(workload, max_processors=16)[0], 100)
    jobs = jobs_from_workload(scale_to_load(subset, 0.95, 16, how="runtime"), n_processors=16)
    schedule = simulate(jobs, order="sjf", backfill="easy").schedule
    relaxed = fairness.fair_start_times(jobs, order="sjf", backfill="easy", kind="relaxed")
    deficit = fairness.resource_equality(schedule, 16)["deficit"].to_numpy()
    rows = tiny.rows.set_index(["load", "order", "backfill", "metric", "width"])["value"]
    assert rows[(0.95, "sjf", "easy", "fst_relaxed", "all")] == pytest.approx(
        np.maximum(schedule["start"].to_numpy() - relaxed, 0).mean())
    assert rows[(0.95, "sjf", "easy", "re", "all")] == pytest.approx(np.maximum(deficit, 0).mean())


def test_spearman_table_has_one_row_per_trace_metric_and_block(tiny: JSSPP05Result) -> None:
    spearman = tiny.spearman
    assert spearman.columns.tolist() == ["trace", "metric", "subset", "n_jobs", "n_simulations", "rho"]
    assert len(spearman) == 3 * 4
    assert spearman["n_simulations"].unique().tolist() == [8] and spearman["n_jobs"].unique().tolist() == [25]
    rho = spearman["rho"].dropna()
    assert len(rho) >= 10 and ((rho >= -1 - 1e-12) & (rho <= 1 + 1e-12)).all()
    assert len(tiny.simulations) == 8 and (tiny.simulations["offered_load"] > 0).all()


def test_subset_correlations_recompute_table_2_from_the_per_job_values(tiny: JSSPP05Result) -> None:
    """Brute force for one (trace, metric, subset): rank the 8 simulations by hand, Spearman by the formula."""
    assert len(tiny.per_job) == 8
    pd.testing.assert_frame_equal(jsspp05.subset_correlations(tiny.per_job, n_subsets=4), tiny.spearman)
    for scheme, members in (("interleaved", np.arange(1, 100, 4)), ("blocks", np.arange(25, 50))):
        table = jsspp05.subset_correlations(tiny.per_job, n_subsets=4, scheme=scheme).set_index(["metric", "subset"])
        simulations = list(tiny.per_job.values())
        part = np.array([sim["fst_strict"][members].mean() for sim in simulations])
        whole = np.array([sim["fst_strict"].mean() for sim in simulations])
        assert table.loc[("fst_strict", 1), "rho"] == pytest.approx(spearman_rho(part, whole), nan_ok=True)
        assert table.loc[("fst_strict", 1), "n_jobs"] == 25
    assert [s.tolist() for s in jsspp05.arrival_subsets(7, 3, "interleaved")] == [[0, 3, 6], [1, 4], [2, 5]]
    with pytest.raises(ConfigError, match="interleaved, blocks"):
        jsspp05.arrival_subsets(7, 3, "random")


def test_same_numbers_with_one_or_two_worker_processes(tiny: JSSPP05Result, synthetic_traces: Path) -> None:
    parallel = jsspp05.run(JSSPP05Config(traces_dir=synthetic_traces, workers=2, **TINY))
    pd.testing.assert_frame_equal(parallel.rows, tiny.rows)
    pd.testing.assert_frame_equal(parallel.spearman, tiny.spearman)


def test_spearman_rho_matches_the_textbook_formula_without_ties() -> None:
    rng = np.random.default_rng(7)
    for n in (5, 12, 45):
        a, b = rng.permutation(n).astype(float), rng.permutation(n).astype(float)
        textbook = 1 - 6 * np.sum((a - b) ** 2) / (n * (n * n - 1))  # ranks are the values themselves
        assert spearman_rho(a + 0.5, 3 * b) == pytest.approx(textbook)
    assert spearman_rho(np.array([1.0, 2.0, 3.0]), np.array([3.0, 2.0, 1.0])) == pytest.approx(-1.0)
    # ties share their average rank: ranks (1.5, 1.5, 3) and (1, 2, 3) -> rho = sqrt(3) / 2
    assert spearman_rho(np.array([0.0, 0.0, 5.0]), np.array([1.0, 2.0, 3.0])) == pytest.approx(np.sqrt(3) / 2)
    assert np.isnan(spearman_rho(np.zeros(4), np.arange(4.0)))


def test_a_missing_trace_is_named_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / jsspp05.TRACES["CTC-SP2"]).write_text(synthetic_swf(0))
    with pytest.raises(ConfigError, match=r"SDSC-BLUE \(SDSC-BLUE-2000-4\.2-cln\.swf\.gz\).*--traces DIR"):
        jsspp05.run(JSSPP05Config.quick(traces_dir=tmp_path))
    with pytest.raises(ConfigError, match="choose one or more of CTC-SP2"):
        jsspp05.run(JSSPP05Config(traces=("CTC",), traces_dir=tmp_path))
    with pytest.raises(ConfigError, match=r"offered loads in \(0, 1\)"):
        jsspp05.run(JSSPP05Config(traces=("CTC-SP2",), loads=(80,), traces_dir=tmp_path))


def test_quick_configuration_is_the_documented_one() -> None:
    quick = JSSPP05Config.quick(workers=2)
    assert quick.traces == ("CTC-SP2", "SDSC-BLUE") and quick.loads == (0.8, 0.95) and quick.workers == 2
    full = JSSPP05Config()
    assert full.traces == ("CTC-SP2", "SDSC-BLUE", "SDSC-SP2", "OSC") and full.loads == (0.7, 0.8, 0.9, 0.95, 0.98)
    assert len(full.orders) * len(full.depths) * len(full.loads) == 45 and full.subset_size == 5000


def test_outputs_are_written(tiny: JSSPP05Result, tmp_path: Path) -> None:
    written = write_jsspp05_outputs(tiny, tmp_path)
    assert {"rows.csv", "spearman.csv", "simulations.csv", "report.json", "fst_strict.png", "re_by_width.png"} <= set(
        written)
    assert pd.read_csv(written["rows.csv"]).columns.tolist() == ROW_COLUMNS
    assert written["fst_relaxed.png"].read_bytes()[:4] == b"\x89PNG"
    assert set(json.loads(written["report.json"].read_text())["outputs"]) == set(written)


def test_real_trace_subset(tmp_path: Path) -> None:
    """The real CTC-SP2 file: 300 jobs at 2 loads under 2 policies (skipped when the traces are absent)."""
    folder = trace_path(jsspp05.TRACES["CTC-SP2"]).parent
    result = jsspp05.run(JSSPP05Config(traces_dir=folder, traces=("CTC-SP2",), subset_size=300, loads=(0.8, 0.95),
                                       orders=("fcfs",), depths=("no-guarantee", "easy")))
    assert result.traces["CTC-SP2"]["processors"] == 338 and result.traces["CTC-SP2"]["n_jobs"] == 300
    assert result.simulations["offered_load"].tolist() == pytest.approx([0.8, 0.8, 0.95, 0.95], abs=0.01)
    assert len(result.spearman) == 30


def test_replicate_command_json(synthetic_traces: Path, tmp_path: Path) -> None:
    out = tmp_path / "rep"
    result = CliRunner().invoke(cli.app, ["replicate", "jsspp05", "--quick", "--traces", str(synthetic_traces),
                                          "--subset-size", "40", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc["rows"][0]) == set(ROW_COLUMNS)
    assert {row["trace"] for row in doc["rows"]} == {"CTC-SP2", "SDSC-BLUE"}
    assert len([r for r in doc["rows"] if r["width"] == "all"]) == 2 * 2 * 9 * 3
    assert len(doc["spearman"]) == 2 * 3 * 10
    assert (out / "rows.csv").is_file() and (out / "re.png").is_file()


def test_ctrl_c_stops_the_quick_replication_within_seconds_and_leaves_no_process(tmp_path: Path) -> None:
    """Issue 11's acceptance test: ``replicate jsspp05 --quick -j 2`` sent SIGINT mid-run."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.test_sweep_signals import ROOT, assert_all_gone, descendants, wait_for_parts

    for seed, name in enumerate(jsspp05.TRACES.values()):
        (tmp_path / name).write_text(synthetic_swf(seed, n=400))
    out = tmp_path / "rep"
    process = subprocess.Popen([sys.executable, "-m", "fairsched", "replicate", "jsspp05", "--quick", "-j", "2",
                                "--traces", str(tmp_path), "--subset-size", "400", "--out", str(out)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_parts(out / "sweep", 1, process)
    tree = descendants(process.pid)
    assert len(tree) >= 2
    sent = time.monotonic()
    os.kill(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=10)
    assert time.monotonic() - sent < 10 and process.returncode == 130
    done = len(list((out / "sweep" / "cells").glob("*.parquet")))
    assert 1 <= done < 36
    assert stderr.strip().splitlines()[-1] == (f"interrupted: {done} of 36 cells done and kept; run the same command "
                                               f"again to resume (kept in {out / 'sweep'})")
    assert_all_gone(tree, timeout=5)


def test_the_shipped_specs_are_the_documented_configurations(tmp_path: Path) -> None:
    """The spec files hold the same grids as JSSPP05Config() and JSSPP05Config.quick(), and the costliest cells
    (conservative, high load) come first."""
    from fairsched.sweep import expand

    for config, name in ((JSSPP05Config(), "jsspp05.toml"), (JSSPP05Config.quick(), "jsspp05-quick.toml")):
        shipped = load_spec(jsspp05.SPECS_DIR / name)
        built = jsspp05.sweep_spec(replace(config, traces_dir=tmp_path))
        assert {k: sorted(v) for k, v in shipped.grid.items()} == {
            "backfill": sorted(config.depths), "load": sorted(config.loads), "trace": sorted(config.traces),
            "order": sorted(config.orders)}
        assert shipped.grid == built.grid and shipped.base == {"subset-size": config.subset_size}
        assert built.base == {"subset-size": config.subset_size, "traces-dir": tmp_path}
    for file_name in jsspp05.TRACES.values():
        (tmp_path / file_name).write_text(synthetic_swf(0, n=20))
    cells = expand(jsspp05.sweep_spec(JSSPP05Config(traces_dir=tmp_path)))
    assert len(cells) == 4 * 45
    assert [(c.config.backfill, c.config.load) for c in cells[:12]] == [("conservative", 0.98)] * 12


def test_terminal_table_2_quotes_the_papers_range_per_trace_and_metric(tiny: JSSPP05Result) -> None:
    """The CLI's Table 2 gives the paper's range beside ours for each (trace, metric) of the paper's Table 2 (CTC:
    0.93–0.98 strict FST, 0.76–0.97 relaxed, 0.88–0.98 resource equality), not one range for every trace."""
    from rich.console import Console

    from fairsched.report.backfill import jsspp05_renderable

    console = Console(width=200, record=True)
    console.print(jsspp05_renderable(tiny))
    lines = {line.split()[3]: line for line in console.export_text().splitlines()
             if line.strip().startswith("│ CTC-SP2") and ("fst_" in line or " re " in line)}
    assert lines["fst_strict"].rstrip(" │").endswith("0.93–0.98")
    assert lines["fst_relaxed"].rstrip(" │").endswith("0.76–0.97")
    assert lines["re"].rstrip(" │").endswith("0.88–0.98")
    assert "0.74–0.99" not in console.export_text()


def test_replicate_command_osc_grid(synthetic_traces: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """``--grid osc``: the whole grid (3 orders × 3 depths × 5 loads) on OSC alone; --quick does not combine."""
    out = tmp_path / "osc"
    result = CliRunner().invoke(cli.app, ["replicate", "jsspp05", "--grid", "osc", "--traces", str(synthetic_traces),
                                          "--subset-size", "40", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    overall = [r for r in doc["rows"] if r["width"] == "all"]
    assert {r["trace"] for r in doc["rows"]} == {"OSC"}
    assert len(overall) == 5 * 9 * 3 and {r["backfill"] for r in overall} == set(jsspp05.DEPTHS)
    assert len(doc["spearman"]) == 3 * 10
    for argv, message in ((["--grid", "nope"], "error: --grid nope: choose one of paper, osc"),
                          (["--grid", "osc", "--quick"], "error: --quick shortens the paper's grid only")):
        code, _, err = run_main(["replicate", "jsspp05", *argv, "--out", str(tmp_path / "bad")], capsys)
        assert code == 2 and err.strip().startswith(message), err
        assert not (tmp_path / "bad").exists()
