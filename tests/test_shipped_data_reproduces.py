"""The shipped replication data still comes out of today's code: a cheap slice of each shipped run is recomputed
and compared with the files in docs/replication/data (the doc-table tests only check that the docs follow the
files; these check that the files follow the code). Needs the real traces; skipped cleanly without them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import trace_path

DATA = Path(__file__).resolve().parents[1] / "docs" / "replication" / "data"


@pytest.mark.parametrize("run", ["ppam13_variants_quick", "ppam13_variants_30", "ppam13_variants_100"])
def test_ppam13_first_lpc_egee_windows_come_back(run: str) -> None:
    """Window 0 of both tables on LPC-EGEE, uniform (`shipped`) and Zipf (`zipf`) splits: the same Δψ and p_tot,
    to the integer, for every policy (the window stream is shared by the quick grid, the 30- and 100-window
    runs)."""
    from fairsched.replicate import ppam13
    from fairsched.replicate.ppam13.variants import WINDOWS_FILE

    folder = trace_path("LPC-EGEE-2004-1.2-cln.swf.gz").parent
    fresh = ppam13.run(ppam13.PPAM13Config(traces_dir=folder, windows=1, traces=("LPC-EGEE",),
                                           splits=("uniform", "zipf"))).per_window
    shipped = pd.read_csv(DATA / run / WINDOWS_FILE)
    shipped = shipped[(shipped["trace"] == "LPC-EGEE") & (shipped["window"] == 0)
                      & (((shipped["variant"] == "shipped") & (shipped["split"] == "uniform"))
                         | ((shipped["variant"] == "zipf") & (shipped["split"] == "zipf")))]
    keys = ["table", "split", "policy"]
    merged = fresh.merge(shipped, on=keys, suffixes=("", "_shipped"), validate="one_to_one")
    assert len(merged) == len(fresh) == 2 * 2 * 7
    for column in ("start", "seed", "delta_psi", "p_tot"):
        assert merged[column].tolist() == merged[f"{column}_shipped"].tolist(), column


def test_spaa13_first_lpc_egee_table_window_comes_back() -> None:
    """Window 0 of the SPAA'13 §6.3.2 table on LPC-EGEE, both splits, every policy: the shipped ratio (written to
    6 significant digits) is today's."""
    import numpy as np

    from fairsched.replicate import spaa13

    folder = trace_path("LPC-EGEE-2004-1.2-cln.swf.gz").parent
    fresh = spaa13.run(spaa13.SPAA13Config(traces_dir=folder, parts=("table",), windows=1,
                                           traces=("LPC-EGEE",))).per_window
    fresh = fresh[fresh["policy"] != "REF"]
    shipped = pd.read_csv(DATA / "spaa13_windows.csv")
    shipped = shipped[(shipped["table"] == "table") & (shipped["trace"] == "LPC-EGEE") & (shipped["window"] == 0)]
    merged = fresh.merge(shipped, on=["split", "policy"], suffixes=("", "_shipped"), validate="one_to_one")
    assert len(merged) == len(fresh) == 2 * 6
    np.testing.assert_allclose(merged["ratio"], merged["ratio_shipped"], rtol=1e-5, atol=0)


@pytest.mark.parametrize(("trace", "backfill"), [("SDSC-SP2", "easy"), ("SDSC-SP2", "conservative")])
def test_jsspp05_full_run_cell_comes_back(trace: str, backfill: str) -> None:
    """One (trace, load, order, depth) of the full JSSPP'05 run: the simulation's figures and each metric's mean
    over all jobs are the shipped ones."""
    import numpy as np

    from fairsched.replicate import jsspp05
    from fairsched.replicate.jsspp05 import cell as jsspp05_cell

    folder = trace_path(jsspp05.TRACES[trace]).parent
    result = jsspp05_cell.run(jsspp05_cell.Config(trace=trace, traces_dir=folder, load=0.7, order="fcfs",
                                                  backfill=backfill))
    pick = {"trace": trace, "load": 0.7, "order": "fcfs", "backfill": backfill}
    sims = pd.read_csv(DATA / "jsspp05_full_simulations.csv")
    sim = sims[np.logical_and.reduce([sims[k] == v for k, v in pick.items()])]
    assert len(sim) == 1
    for name in ("runtime_factor", "offered_load", "mean_wait", "utilization"):
        assert result.figures[name] == pytest.approx(float(sim.iloc[0][name]), rel=1e-9), name
    rows = pd.read_csv(DATA / "jsspp05_full_rows.csv", dtype={"width": str})
    rows = rows[np.logical_and.reduce([rows[k] == v for k, v in pick.items()]) & (rows["width"] == "all")]
    means = dict(zip(rows["metric"], rows["value"], strict=True))
    assert set(means) == set(result.per_job)
    for metric, values in result.per_job.items():
        assert float(np.mean(values)) == pytest.approx(means[metric], rel=1e-6), metric


def test_tpds11_mocca_variants_first_cell_comes_back() -> None:
    """The MOCCA variants (docs/replication/tpds11.md, "is it the algorithm?") on the first swf cell (N = 2,
    n = 10, m = 32, its 10 instances): every variant's score and "moved" flag are the shipped ones."""
    from fairsched.replicate.tpds11.mocca_variants import GRID, run_mocca_variants

    fresh = run_mocca_variants(GRID, instances=10, cells=((2, 10, 32),))
    shipped = pd.read_csv(DATA / "tpds11_mocca_variants.csv").head(len(fresh))
    assert len(fresh) == 10 and fresh[["orgs", "jobs", "procs"]].drop_duplicates().shape[0] == 1
    pd.testing.assert_frame_equal(fresh.reset_index(drop=True), shipped.reset_index(drop=True), check_dtype=False)


def test_ppam13_split_dc_composition_window_comes_back() -> None:
    """Window 0 of the split × DIRECTCONTR grid (docs/replication/data/ppam13_split_dc) on LPC-EGEE with the
    composition split, every policy and DIRECTCONTR reading: the same Δψ and p_tot, to the integer."""
    from fairsched.replicate import ppam13
    from fairsched.replicate.ppam13.variants import WINDOWS_FILE

    folder = trace_path("LPC-EGEE-2004-1.2-cln.swf.gz").parent
    fresh = ppam13.run(ppam13.PPAM13Config(traces_dir=folder, windows=1, traces=("LPC-EGEE",),
                                           tables=("table2",), splits=("composition",))).per_window
    shipped = pd.read_csv(DATA / "ppam13_split_dc" / WINDOWS_FILE)
    shipped = shipped[(shipped["trace"] == "LPC-EGEE") & (shipped["window"] == 0)
                      & (shipped["variant"] == "composition / corrected")]
    merged = fresh.merge(shipped, on=["table", "split", "policy"], suffixes=("", "_shipped"), validate="one_to_one")
    assert len(merged) == len(fresh) == 7
    for column in ("start", "seed", "delta_psi", "p_tot"):
        assert merged[column].tolist() == merged[f"{column}_shipped"].tolist(), column
