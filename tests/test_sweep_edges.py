"""The sharp edges a new user of ``fairsched sweep`` met (issue 21): spec errors that name the spec's line and key,
required options checked before any cell runs, and estimates filled in from run times counted everywhere."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from fairsched.backfill import experiment as backfill_experiment
from fairsched.backfill.jobs import ESTIMATE_FROM_RUN_TIME, ESTIMATE_MISSING, ESTIMATE_RAISED
from fairsched.sweep import run_sweep
from fairsched.sweep.results import load_rows
from tests.conftest import run_main, trace_path

# requested_time (SWF field 9) of the eight jobs of `small_swf`: -1 = none (the reader copies the run time in),
# 0 = none (the backfill model's pyss rule sets it to the run time), 50 < run time 100 (raised), 300 (kept).
REQUESTED = (-1, -1, -1, 0, 50, 300, -1, 300)


def small_swf(path: Path) -> Path:
    """Eight jobs of 100 s on 1..2 of 4 processors, one every 10 s, with the requested times of `REQUESTED`."""
    lines = ["; MaxProcs: 4"]
    for j, requested in enumerate(REQUESTED):
        procs = 1 + j % 2
        lines.append(f"{j + 1} {10 * j} 0 100 {procs} -1 -1 {procs} {requested} -1 1 {1 + j % 3} 1 -1 1 -1 -1 -1")
    path.write_text("\n".join(lines) + "\n")
    return path


def write(folder: Path, text: str) -> Path:
    path = folder / "spec.toml"
    path.write_text(text)
    return path


ONLINE = '[sweep]\nmodel = "online"\nseeds = 2\n[base]\ntrace = "small.swf"\norgs = 2\n'


@pytest.mark.parametrize(("body", "expected"), [
    (ONLINE + "[grid]\nwindow-lenght = [100000]\n",
     "spec.toml:8: field window-lenght: unknown option 'window-lenght' of the online model; did you mean "
     "'window-length'? valid: trace, orgs,"),
    (ONLINE + 'policies = "roundrobin,nosuch"\n',
     "spec.toml:7: field policies: unknown online policy 'nosuch'; choose one of: "),
    (ONLINE + '[grid]\npolicies = ["roundrobin,fairshare", "nosuch"]\n',
     "spec.toml:8: field policies: unknown online policy 'nosuch'; choose one of: "),
    (ONLINE.replace("small.swf", "absent.swf"),
     "spec.toml:5: field trace: input file {tmp}/absent.swf cannot be read (no such file)"),
    (ONLINE + "[grid]\norgs-by = [\"user\", \"nobody\"]\n",
     "spec.toml:8: field orgs-by: --orgs-by 'nobody': choose one of"),
    ('[sweep]\nmodel = "backfill"\n[base]\nload = 0.9\n[grid]\norder = ["fcfs", "sjf"]\n',
     "spec.toml:3: field trace: the backfill model needs trace; set it in [base]"),
    ('[sweep]\nmodel = "backfill"\n[grid]\norder = ["fcfs", "sjf"]\n',
     "spec.toml:2: field trace: the backfill model needs trace; set it in [base]"),
], ids=["misspelled-grid-key", "unknown-policy", "unknown-policy-in-grid", "missing-trace", "bad-choice",
        "backfill-without-trace", "backfill-without-base"])
@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "run"])
def test_a_bad_spec_is_one_line_naming_the_line_and_key_before_anything_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, expected: str, dry_run: bool) -> None:
    small_swf(tmp_path / "small.swf")
    spec = write(tmp_path, body)
    code, out, err = run_main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--workers", "1",
                               *(["--dry-run"] if dry_run else [])], capsys)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"error: {tmp_path}/{expected.format(tmp=tmp_path)}"), lines[0]
    assert not (tmp_path / "out").exists()  # nothing ran, no store was created


# ------------------------------------------------------------------------------------------- silent estimates

def test_filled_estimates_are_counted_by_rule(tmp_path: Path) -> None:
    config = backfill_experiment.Config(trace=small_swf(tmp_path / "small.swf"))
    result = backfill_experiment.run(config, 0)
    jobs = result.report.result.jobs
    # -1 four times (jobs 1, 2, 3, 7); 0 once (job 4); 50 < 100 once (job 5); 300 kept twice
    assert jobs.estimate_counts == {ESTIMATE_FROM_RUN_TIME: 4, ESTIMATE_MISSING: 1, ESTIMATE_RAISED: 1}
    assert jobs.requested.tolist() == [100, 100, 100, 100, 100, 300, 100, 300]
    assert jobs.n_estimates_filled == 5
    assert result.rows()["n_estimates_filled"].tolist() == [5]


def test_filled_estimates_reach_the_terminal_and_report_json(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    swf = small_swf(tmp_path / "small.swf")
    code, out, err = run_main(["backfill", "--trace", str(swf), "--order", "sjf", "--out", str(tmp_path / "out")],
                              capsys)
    assert code == 0, err
    assert ("note: 5 of 8 jobs have no requested time (-1 or 0 in the trace): their run time is used as the "
            "estimate") in err
    assert "reader copied the run time in: 4" in " ".join(out.split())
    doc = json.loads((tmp_path / "out" / "report.json").read_text())
    assert doc["meta"]["estimates"] == {ESTIMATE_FROM_RUN_TIME: 4, ESTIMATE_MISSING: 1, ESTIMATE_RAISED: 1}
    assert doc["workload"]["read"]["fallbacks"] == {"runtime_estimate from run_time (requested_time = -1)": 4}


def test_each_sweep_cell_records_its_filled_estimates(tmp_path: Path) -> None:
    small_swf(tmp_path / "small.swf")
    spec = write(tmp_path, '[sweep]\nmodel = "backfill"\n[base]\ntrace = "small.swf"\n[grid]\nfirst = [3, 8]\n')
    run_sweep(spec, tmp_path / "out", workers=1)
    frame, _ = load_rows(tmp_path / "out")
    assert dict(zip(frame["first"], frame["n_estimates_filled"], strict=True)) == {3: 3, 8: 5}


def test_a_trace_without_requested_times_reports_every_estimate_filled() -> None:
    """OSC-Clust, like SDSC-Par, records no requested time (-1 everywhere): all 300 jobs plan with their run time."""
    trace = trace_path("OSC-Clust-2000-3.1-cln.swf.gz")
    result = backfill_experiment.run(backfill_experiment.Config(trace=trace, first=300, order="sjf"), 0)
    jobs = result.report.result.jobs
    assert jobs.n_jobs == 300
    assert jobs.estimate_counts[ESTIMATE_FROM_RUN_TIME] == 300
    assert (jobs.requested == jobs.run).all()
    assert result.rows()["n_estimates_filled"].tolist() == [300]


# ------------------------------------------------------------------------------- results: stores, plots, counts

TOY_SPEC = '[sweep]\nmodel = "tests._toy_model"\nseeds = {seeds}\n'


def toy_store(folder: Path, out: Path, *, seeds: int = 2, body: str = "[grid]\norgs = [1, 2]\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    run_sweep(write(folder, TOY_SPEC.format(seeds=seeds) + body), out, workers=1)
    return out


def test_results_on_a_replicate_out_directory_names_the_stores_below(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """``replicate --out OUT`` keeps one store per experiment in OUT/sweep/NAME (spaa13, tpds11)."""
    for name in ("fig2", "table1"):
        toy_store(tmp_path / "specs" / name, tmp_path / "OUT" / "sweep" / name)
    for given in (tmp_path / "OUT" / "sweep", tmp_path / "OUT"):
        code, out, err = run_main(["results", str(given)], capsys)
        assert (code, out) == (2, "")
        assert err.splitlines() == [
            f"error: {given} is not a sweep directory itself but holds 2 stores: {tmp_path}/OUT/sweep/fig2, "
            f"{tmp_path}/OUT/sweep/table1; read one with `fairsched results {tmp_path}/OUT/sweep/fig2`"]
    code, _, err = run_main(["results", str(tmp_path / "OUT" / "sweep" / "fig2")], capsys)
    assert code == 0, err
    code, _, err = run_main(["results", str(tmp_path / "specs")], capsys)  # nothing below: how to make a store
    assert code == 2 and "is not a sweep directory (no manifest.json); run `fairsched sweep SPEC" in err


@pytest.mark.parametrize(("suffix", "magic", "file_says"), [
    (".pdf", b"%PDF-", "PDF document"), (".svg", b"<svg", "SVG Scalable Vector Graphics image"),
    (".png", b"\x89PNG\r\n\x1a\n", "PNG image data")])
def test_plot_is_written_in_the_format_its_suffix_names(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        suffix: str, magic: bytes, file_says: str) -> None:
    out = toy_store(tmp_path / "spec", tmp_path / "out")
    figure = tmp_path / f"score{suffix}"
    code, _, err = run_main(["results", str(out), "--metric", "score", "--plot", str(figure)], capsys)
    assert code == 0, err
    data = figure.read_bytes()
    assert data.startswith(magic) if suffix != ".svg" else magic in data[:1000]
    if shutil.which("file"):
        assert file_says in subprocess.run(["file", str(figure)], capture_output=True, text=True).stdout


def test_plot_with_a_suffix_matplotlib_cannot_write_is_one_line(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = toy_store(tmp_path / "spec", tmp_path / "out")
    code, _, err = run_main(["results", str(out), "--plot", str(tmp_path / "score.docx")], capsys)
    assert code == 2
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"error: {tmp_path}/score.docx: cannot write a figure as .docx; name it .png, .pdf or "
                               ".svg (or ")
    assert ".eps, " in lines[0] and ".docx, " not in lines[0]
    assert not (tmp_path / "score.docx").exists()


def test_one_cell_is_one_cell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = write(tmp_path, TOY_SPEC.format(seeds=1))
    code, out, _ = run_main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--dry-run"], capsys)
    assert code == 0 and out.splitlines()[0].strip() == "1 cell, 0 already in the store, 1 to compute"
    code, out, _ = run_main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--workers", "1"], capsys)
    assert code == 0 and out.startswith("1 cell: 1 computed, 0 reused, 0 failed (")
    code, out, _ = run_main(["results", str(tmp_path / "out")], capsys)
    assert code == 0 and out.splitlines()[0].strip() == "1 of 1 cell done"
    code, out, _ = run_main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--workers", "1"], capsys)
    assert out.startswith("1 cell: 0 computed, 1 reused, 0 failed (")
