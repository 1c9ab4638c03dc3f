"""Issue 21's acceptance, from a sweep to a paper's figure: a small online sweep (2 policies x 3 values of k x 3
seeds) kept with its per-organization tables and schedules; ``results`` with --baseline, a PDF figure, paper
tables and report.html opened in headless Chromium; windows drawn by the seed; provenance columns; the metric
registry and the generated reference of docs/sweeps.md."""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairsched.errors import InputError
from fairsched.report.sweep_figures import PlotOptions, results_figure, results_table_text
from fairsched.sweep import MODELS, expand, load_spec, read_results, run_sweep
from fairsched.sweep.docs import BEGIN, END, reference_markdown
from fairsched.sweep.metrics import METRICS
from fairsched.sweep.results import load_rows
from fairsched.sweep.windows import window_starts
from tests.conftest import run_main
from tests.sweep_store import online_store
from tests.test_byte_identical import small_swf
from tests.test_report_html import chromium_load, needs_chromium

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("accept")
    from fairsched.report.sweep_schedules import batsim_schedules

    return online_store(folder, keep_schedules=batsim_schedules)


def test_each_cell_keeps_its_per_organization_table_psi_minus_phi(store: Path) -> None:
    rows, manifest = load_rows(store)
    cell = manifest.cells[4]  # k = 3, seed 1
    orgs = pd.read_parquet(store / "orgs" / f"{cell['key']}.parquet")
    module = importlib.import_module(MODELS["online"])
    config = expand(load_spec(store / "spec.toml"))[4].config
    expected = module.run(config, cell["seed"]).per_org()
    assert list(orgs.columns[:2]) == ["cell", "seed"] and set(orgs["cell"]) == {cell["key"]}
    pd.testing.assert_frame_equal(orgs.drop(columns=["cell", "seed"]), expected)
    assert len(orgs) == 2 * 3  # two policies x k = 3 organizations
    assert (orgs["psi_minus_reference"] == orgs["psi"] - orgs["psi_reference"]).all()
    assert (orgs.loc[orgs["policy"] == "fairshare", "psi_minus_reference"] == 0).all()  # the reference itself
    # Σ_u |ψ_u − φ_u| is the row's Δψ
    mine = rows[(rows["cell"] == cell["key"]) & (rows["policy"] == "roundrobin")]
    assert orgs.loc[orgs["policy"] == "roundrobin", "psi_minus_reference"].abs().sum() == mine["delta_psi"].item()


def test_schedules_are_batsim_jobs_csv_that_evalys_loads(store: Path) -> None:
    from evalys.jobset import JobSet

    rows, manifest = load_rows(store)
    key = manifest.cells[0]["key"]
    files = sorted(p.name for p in (store / "schedules" / key).iterdir())
    assert files == ["fairshare.jobs.csv", "roundrobin.jobs.csv"]
    jobs = JobSet.from_csv(str(store / "schedules" / key / "roundrobin.jobs.csv"))
    started = rows[(rows["cell"] == key) & (rows["policy"] == "roundrobin")]["jobs_started"].item()
    assert len(jobs.df) == started
    assert (jobs.df["waiting_time"] >= 0).all()


def test_rows_carry_the_workloads_provenance(store: Path) -> None:
    rows, _ = load_rows(store)
    assert {"n_jobs", "n_machines", "offered_load"} <= set(rows.columns)
    one = rows.iloc[0]
    cell_orgs = pd.read_parquet(store / "orgs" / f"{one['cell']}.parquet")
    assert one["n_machines"] == cell_orgs[cell_orgs["policy"] == one["policy"]]["machines"].sum()
    assert one["offered_load"] > 0 and one["n_jobs"] > 0


def test_results_baseline_plot_pdf_and_report_page(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)  # pytest-xdist's workers set COLUMNS=80: the table elides names
    code, out, err = run_main(["results", str(store), "--baseline", "policy=fairshare", "--metric",
                               "delta_psi_over_ptot,mean_wait", "--plot", str(tmp_path / "fig.pdf")], capsys)
    assert code == 0, err
    assert "Paired against policy = fairshare" in out and "roundrobin" in out
    assert (tmp_path / "fig.pdf").read_bytes().startswith(b"%PDF-")
    if shutil.which("file"):
        assert "PDF document" in subprocess.run(["file", str(tmp_path / "fig.pdf")], capture_output=True,
                                                text=True).stdout
    page = (store / "report.html").read_text(encoding="utf-8")
    for text in ("Grid: the options the spec varies", "Progress", "Paired against policy = fairshare",
                 "wilcoxon_p", "fairsched results", "[grid]", "orgs = [2, 3, 4]"):
        assert text in page, text
    images = re.findall(r'<img [^>]*src="data:image/svg\+xml;base64,', page)
    assert len(images) == 2  # Δψ/p_tot and mean wait, the online model's headline metrics


@needs_chromium
def test_report_page_opens_in_chromium_with_its_figures(store: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(["results", str(store)], capsys)
    assert code == 0, err
    console, shot = chromium_load(store / "report.html", tmp_path)
    assert console == []
    blue = ((shot[..., 2] > 150) & (shot[..., 0] < 80)).mean()  # the tab:blue line and band of the first figure
    assert (shot.sum(axis=2) < 200).mean() > 0.001 and blue > 0.0005


def test_figure_leaves_out_the_reference_and_clips_intervals_to_the_bounds(store: Path) -> None:
    results = read_results(store, metrics=("delta_psi_over_ptot",))
    assert results.references == ("fairshare",) and results.numeric == ("orgs",)
    fig = results_figure(results, "delta_psi_over_ptot")
    ax = fig.axes[0]
    assert [line.get_label() for line in ax.get_lines()] == ["roundrobin"]
    assert ax.get_xlabel() == "k (organizations)" and ax.get_ylabel() == "Δψ/p_tot (s)"
    row = results.rows[results.rows["policy"] == "roundrobin"]
    assert (row["mean"] - row["ci95"] < 0).any()  # an unclipped band would go below 0 ...
    band = ax.collections[0].get_paths()[0].vertices
    assert band[:, 1].min() == 0.0  # ... the band stops at the bound Δψ/p_tot >= 0
    with_ref = results_figure(results, "delta_psi_over_ptot", PlotOptions(with_reference=True, log_y=True))
    assert [line.get_label() for line in with_ref.axes[0].get_lines()] == ["roundrobin", "fairshare"]
    assert with_ref.axes[0].get_yscale() == "log"


def test_tables_print_mean_and_ci_per_group(store: Path) -> None:
    results = read_results(store, metrics=("mean_wait",))
    first = results.rows.iloc[0]
    markdown = results_table_text(results, "markdown").splitlines()
    assert markdown[0] == "| k (organizations) | policy | mean wait (s) |"
    assert markdown[2] == f"| 2 | roundrobin | {first['mean']:.4g} ± {first['ci95']:.2g} |"
    latex = results_table_text(results, "latex")
    assert latex.startswith("\\begin{tabular}{llr}\n\\toprule\n") and "\\pm" in latex
    assert f"2 & roundrobin & ${first['mean']:.4g} \\pm {first['ci95']:.2g}$ \\\\" in latex
    csv = pd.read_csv(__import__("io").StringIO(results_table_text(results, "csv")))
    assert list(csv.columns) == ["orgs", "policy", "mean_wait", "mean_wait_ci95"]
    np.testing.assert_allclose(csv["mean_wait_ci95"], results.rows["ci95"])


def test_windows_are_drawn_by_the_window_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    small_swf(tmp_path / "small.swf", n_jobs=40)
    spec = tmp_path / "spec.toml"
    spec.write_text('[sweep]\nmodel = "backfill"\nwindows = 3\nwindow-seed = 5\n[base]\ntrace = "small.swf"\n'
                    'window-length = 3000\nfairness = "fst-strict"\n[grid]\norder = ["fcfs", "sjf"]\n')
    cells = expand(load_spec(spec))
    from fairsched.workload.clean import clean
    from fairsched.workload.swf import read_swf

    submits = sorted(clean(read_swf(tmp_path / "small.swf"))[0].jobs["submit_time"].tolist())
    starts = window_starts(submits, 3000, 3, 5)
    assert len(set(starts)) == 3
    assert [(c.point["order"], c.window, c.config.window_start) for c in cells] == [
        (order, w, float(starts[w])) for order in ("fcfs", "sjf") for w in range(3)]
    run_sweep(spec, tmp_path / "out", workers=1)
    results = read_results(tmp_path / "out", metrics=("mean_wait",))
    assert results.group_by == ("order", "policy") and results.rows["n"].tolist() == [3, 3]
    orgs = pd.read_parquet(tmp_path / "out" / "orgs")
    assert {"window", "fst_strict_unfairness", "mean_wait"} <= set(orgs.columns)
    code, out, err = run_main(["results", str(tmp_path / "out"), "--baseline", "order=fcfs", "--metric",
                               "mean_wait", "--json"], capsys)
    assert code == 0, err
    assert '"paired_on": [\n    "seed",\n    "window",' in out
    spec.write_text(spec.read_text().replace("window-length = 3000\n", "window-length = 3000\nwindow-start = 0\n"))
    with pytest.raises(InputError, match=r"spec.toml:\d+: field window-start: windows = 3 draws the window starts"):
        load_spec(spec)


def test_docs_reference_is_the_generated_one() -> None:
    text = (ROOT / "docs" / "sweeps.md").read_text(encoding="utf-8")
    assert BEGIN in text and END in text
    block = BEGIN + text.split(BEGIN, 1)[1].split(END, 1)[0] + END
    assert block == reference_markdown(), "regenerate: python -m fairsched.sweep.docs docs/sweeps.md"
    assert "| `trace` | **required** |" in block  # backfill's required trace


def test_every_metric_of_the_online_rows_is_registered(store: Path) -> None:
    rows, manifest = load_rows(store)
    metrics = [c for c in rows.columns if c not in (*manifest.config_columns, "cell", "seed", "status", "error",
                                                    "policy")]
    assert metrics and [m for m in metrics if m not in METRICS] == []
