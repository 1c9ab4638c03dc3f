"""PPAM'13 / SPAA'13 replications on a tiny synthetic "LPC-EGEE" trace: row schema, determinism, REF's own
Δψ = 0, an independent recomputation of one window's Δψ/p_tot, and the missing-trace error."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairsched.errors import ConfigError
from fairsched.online import metrics
from fairsched.online.engine import simulate
from fairsched.online.policies import get_policy
from fairsched.replicate import ppam13, spaa13
from fairsched.replicate._online_windows import ROW_KEYS, TRACES, to_json, window_starts
from fairsched.scenario import build_scenario
from fairsched.workload.clean import clean
from fairsched.workload.model import Workload
from fairsched.workload.schema import SWF_FIELDS
from fairsched.workload.swf import read_swf, write_swf
from fairsched.workload.transform import window


def _tiny_trace(directory: Path, *, seed: int = 7, n_jobs: int = 160) -> Path:
    """A contended SWF trace under LPC-EGEE's file name: ~160 jobs over 10^5 s, 1–12 processors, 2–12·10^3 s.

    Load ≈ 160 · 6.5 · 7000 / 10^5 ≈ 73 busy machines on average, on the 70 the papers give LPC-EGEE, so the
    policies disagree and a non-REF Δψ is positive.
    """
    rng = np.random.default_rng(seed)
    jobs = pd.DataFrame({name: np.full(n_jobs, -1.0) for name in SWF_FIELDS})
    jobs["job_number"] = np.arange(1, n_jobs + 1)
    jobs["submit_time"] = np.sort(rng.integers(0, 100_000, n_jobs)).astype(float)
    jobs["wait_time"] = 0.0
    jobs["run_time"] = rng.integers(2_000, 12_000, n_jobs).astype(float)
    jobs["allocated_processors"] = rng.integers(1, 13, n_jobs).astype(float)
    jobs["requested_processors"] = jobs["allocated_processors"]
    jobs["status"] = 1.0
    jobs["user_id"] = rng.integers(1, 9, n_jobs).astype(float)
    path = directory / TRACES["LPC-EGEE"].file
    write_swf(Workload(jobs=jobs, header=(("MaxProcs", "140"),)), path)
    return path


@pytest.fixture
def tiny_dir(tmp_path: Path) -> Path:
    _tiny_trace(tmp_path)
    return tmp_path


def _ppam(tiny_dir: Path, **overrides: object) -> ppam13.OnlineReplicationResult:
    config = ppam13.PPAM13Config(**{"traces_dir": tiny_dir, "traces": ("LPC-EGEE",), "tables": ("table1",),
                                    "windows": 2, "jobs": 1, "seed": 3, **overrides})
    return ppam13.run(config)


def test_ppam_rows_schema_paper_values_and_ref_zero(tiny_dir: Path) -> None:
    result = _ppam(tiny_dir)
    assert [row["policy"] for row in result.rows] == [spec.label for spec in ppam13.POLICIES]
    for row in result.rows:
        assert tuple(row) == ROW_KEYS
        assert (row["paper"], row["table"], row["trace"], row["window_length"], row["split"], row["orgs"],
                row["machines"], row["windows"]) == ("PPAM'13", "table1", "LPC-EGEE", 50_000, "uniform", 5, 70, 2)
    by_policy = {row["policy"]: row for row in result.rows}
    assert (by_policy["ROUNDROBIN"]["paper_mean"], by_policy["ROUNDROBIN"]["paper_std"]) == (238, 353)
    assert (by_policy["CURRFAIRSHARE"]["paper_mean"], by_policy["CURRFAIRSHARE"]["paper_std"]) == (87, 106)
    assert by_policy["REF"]["paper_mean"] is None
    assert by_policy["REF"]["mean"] == 0.0 and by_policy["REF"]["std"] == 0.0
    ref = result.per_window[result.per_window["policy"] == "REF"]
    assert (ref["delta_psi"] == 0).all() and (ref["p_tot"] > 0).all()
    assert by_policy["ROUNDROBIN"]["mean"] > 0  # the trace is contended: a measure stuck at 0 would fail here
    assert any("PIK-IPLEX" in note and "SHARCNET" in note for note in result.notes)
    doc = to_json(result)
    assert list(doc) == ["rows", "notes"] and all(list(row) == list(ROW_KEYS) for row in doc["rows"])


def test_ppam_one_window_recomputed_independently(tiny_dir: Path) -> None:
    """Δψ/p_tot of ROUNDROBIN in window 0, rebuilt by hand from the recorded start and seed."""
    result = _ppam(tiny_dir, windows=1)
    row = result.per_window[result.per_window["policy"] == "ROUNDROBIN"].iloc[0]
    workload, _ = clean(read_swf(tiny_dir / TRACES["LPC-EGEE"].file))
    cut = window(workload, start=float(row["start"]), length=50_000)
    scenario = build_scenario(cut, n_orgs=5, n_machines=70, split="uniform", seed=int(row["seed"]),
                              time_origin=float(row["start"]), horizon=50_000)
    runs = {name: simulate(scenario, get_policy(name), seed=int(row["seed"])) for name in ("ref", "roundrobin")}
    psi = {name: metrics.psi_from_schedule(run.schedule, 5, 50_000) for name, run in runs.items()}
    p_tot = metrics.p_tot(runs["ref"].schedule, 50_000)
    expected = int(np.abs(psi["roundrobin"] - psi["ref"]).sum())
    assert (int(row["delta_psi"]), int(row["p_tot"])) == (expected, p_tot)
    assert row["ratio"] == pytest.approx(expected / p_tot)


def test_same_seed_same_rows_other_seed_other_windows(tiny_dir: Path) -> None:
    first, again = _ppam(tiny_dir), _ppam(tiny_dir, jobs=2)  # the windows in two worker processes
    assert to_json(first) == to_json(again)
    pd.testing.assert_frame_equal(first.per_window, again.per_window)
    other = _ppam(tiny_dir, seed=4)
    assert list(other.per_window["start"].unique()) != list(first.per_window["start"].unique())


def test_window_starts_are_seeded_in_range_and_hold_jobs(tiny_dir: Path) -> None:
    workload, _ = clean(read_swf(tiny_dir / TRACES["LPC-EGEE"].file))
    submit = np.sort(workload.jobs["submit_time"].to_numpy())
    starts = window_starts(workload, "LPC-EGEE", 20_000, 25, seed=1)
    assert starts == window_starts(workload, "LPC-EGEE", 20_000, 25, seed=1)
    assert len(set(starts)) > 1
    for start in starts:
        assert submit[0] <= start <= submit[-1] - 20_000
        assert np.count_nonzero((submit >= start) & (submit < start + 20_000)) >= 1


def test_missing_trace_names_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"RICC-2010-2\.swf\.gz not found in .*" + tmp_path.name):
        ppam13.run(ppam13.PPAM13Config(traces_dir=tmp_path, traces=("RICC",), windows=1))
    with pytest.raises(ConfigError, match=r"LPC-EGEE-2004-1\.2-cln\.swf\.gz not found"):
        spaa13.run(spaa13.SPAA13Config(traces_dir=tmp_path, parts=("fig",), ks=(2,), seeds=1))


def test_bad_options_are_config_errors(tiny_dir: Path) -> None:
    with pytest.raises(ConfigError, match="jobs=0"):
        _ppam(tiny_dir, jobs=0)
    with pytest.raises(ConfigError, match="unknown 'table3'"):
        _ppam(tiny_dir, tables=("table3",))


def test_spaa_fig_and_table_rows(tiny_dir: Path, tmp_path: Path) -> None:
    config = spaa13.SPAA13Config(traces_dir=tiny_dir, traces=("LPC-EGEE",), ks=(2, 3), seeds=1, windows=1,
                                 fig_configs=(("fig4", 17, 1.0),), out_dir=tmp_path / "out")
    result = spaa13.run(config)
    fig = [row for row in result.rows if row["table"] == "fig4"]
    assert {(row["orgs"], row["split"]) for row in fig} == {(2, "uniform"), (2, "zipf"), (3, "uniform"), (3, "zipf")}
    assert all(row["machines"] == 17 and row["window_length"] == 5_000_000 for row in fig)
    assert all(row["mean"] == 0.0 for row in fig if row["policy"] == "REF")
    average = {row["policy"]: row for row in result.rows if row["table"] == spaa13.FIG_AVERAGE}
    assert average["RAND (N=75)"]["paper_mean"] == 79 and average["ROUNDROBIN"]["paper_mean"] == 42120
    assert average["ROUNDROBIN"]["windows"] == 4  # 2 k x 2 splits x 1 seed
    rr = [row["mean"] for row in fig if row["policy"] == "ROUNDROBIN"]
    assert average["ROUNDROBIN"]["mean"] == pytest.approx(sum(rr) / len(rr))
    table = {row["policy"]: row for row in result.rows if row["table"] == "table" and row["split"] == "uniform"}
    zipf = {row["policy"]: row for row in result.rows if row["table"] == "table" and row["split"] == "zipf"}
    assert set(zipf) == set(table) >= {"FAIRSHARE", "UTFAIRSHARE", "RAND printed (N=15)", "REF"}
    assert zipf["DIRECTCONTR"]["paper_mean"] is None  # the paper's table is the uniform split only
    assert table["DIRECTCONTR"]["paper_mean"] == 218 and table["DIRECTCONTR"]["machines"] == 70
    assert math.isnan(table["DIRECTCONTR"]["std"])  # one window: no standard deviation
    assert all(row["std"] is None for row in to_json(result)["rows"] if row["table"] == "table")  # NaN -> null
    assert {path.name for path in result.files.values()} == {
        "spaa13_table.csv", "spaa13_windows.csv", "spaa13_fig45.png", "spaa13_workloads.png"}
    written = pd.read_csv(result.files["table"])
    assert list(written.columns) == list(ROW_KEYS) and len(written) == len(result.rows)


@pytest.mark.parametrize("paper", ["ppam13", "spaa13", "ppam13 --variants"])
def test_cli_replicate_names_the_missing_trace_and_exits_2(tmp_path: Path, paper: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from fairsched.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(["replicate", *paper.split(), "--traces", str(tmp_path), "--json"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: trace LPC-EGEE: LPC-EGEE-2004-1.2-cln.swf.gz not found in") and err[-1] == "\n"


def test_ppam_ablation_switches_default_to_the_shipped_run_and_reach_the_windows(tiny_dir: Path) -> None:
    """Explicit defaults give the same bytes; each scenario-level switch changes what the windows hold."""
    base = _ppam(tiny_dir, windows=2)
    explicit = _ppam(tiny_dir, windows=2, directcontr_update="corrected", fairshare_ratios="frozen",
                     rand_estimator="orderings", rand_orderings=15, window_start="empty", orgs_by="user",
                     reference="ref")
    pd.testing.assert_frame_equal(base.per_window, explicit.per_window)
    assert base.per_window["start"].tolist() == _ppam(tiny_dir, windows=2, window_start="warm").per_window[
        "start"].tolist()  # the same windows ...
    for overrides in ({"window_start": "warm"}, {"orgs_by": "job"}):
        other = _ppam(tiny_dir, windows=2, **overrides).per_window
        assert other["p_tot"].tolist() != base.per_window["p_tot"].tolist() or \
            other["ratio"].tolist() != base.per_window["ratio"].tolist(), overrides  # ... other contents
    rand75 = _ppam(tiny_dir, windows=1, rand_orderings=75)
    assert [row["policy"] for row in rand75.rows][1] == "RAND (N=75)" and rand75.rows[1]["paper_mean"] is None
    with pytest.raises(ConfigError, match="directcontr_update='swapped'"):
        _ppam(tiny_dir, directcontr_update="swapped")
