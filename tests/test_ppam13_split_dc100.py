"""The split × DIRECTCONTR grid on 100 windows (docs/replication/ppam13.md, issue 24 item 1): the sweep spec, and
the shipped windows (docs/replication/data/ppam13_split_dc_100) against the 10-window grid and the 100-window
variants run they extend."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairsched.replicate.ppam13.split_dc import GRID
from fairsched.replicate.ppam13.split_dc100 import (
    FIT_FILE,
    MISSING,
    RUN100_NAMES,
    RUNS,
    STATUS_FILE,
    WINDOWS_FILE,
    combination_options,
    combination_windows,
    fit100,
    gnu_time,
    run_combinations,
    spec_text,
)
from fairsched.replicate.ppam13.variants import WINDOWS_FILE as VARIANTS_WINDOWS

DATA = Path(__file__).resolve().parents[1] / "docs" / "replication" / "data"
COLUMNS = ["variant", "trace", "window", "policy", "delta_psi", "p_tot"]


def test_missing_and_shipped_combinations_make_the_grid() -> None:
    assert sorted(MISSING + tuple(RUN100_NAMES.values())) == sorted(variant.name for variant in GRID)
    assert combination_options("zipf s=2 / printed") == {"split": "zipf", "zipf_s": 2.0,
                                                         "directcontr_update": "printed",
                                                         "directcontr_machines": "random"}
    assert combination_options("composition / lowest first") == {"split": "composition", "zipf_s": 1.4267,
                                                                 "directcontr_update": "corrected",
                                                                 "directcontr_machines": "lowest"}
    assert run_combinations(RUNS[2]) == {"DIRECTCONTR machines=lowest": "multinomial / lowest first",
                                         "DIRECTCONTR update=printed": "multinomial / printed"}


def test_spec_runs_each_split_in_priority_order() -> None:
    """20 cells of 10 windows per run, consecutive: the composition with all six policies first, then the extra
    readings of DIRECTCONTR, split by split."""
    spec = tomllib.loads(spec_text())
    assert spec["sweep"]["model"] == "fairsched.replicate.ppam13.cell" and spec["base"]["table"] == "table2"
    (rows,) = spec["zip"]
    assert all(len(values) == 20 * len(RUNS) == 120 for values in rows.values())
    assert rows["first-window"][:10] == list(range(0, 100, 10)) and rows["trace"][9:11] == ["RICC", "LPC-EGEE"]
    cells = list(zip(rows["split"], rows["zipf-s"], rows["directcontr-update"], rows["directcontr-machines"],
                     map(tuple, rows["policies"]), strict=True))
    assert cells[0] == ("composition", 1.4267, "corrected", "random", ())
    assert cells[20] == ("composition", 1.4267, "corrected", "random",
                         ("DIRECTCONTR machines=lowest", "DIRECTCONTR update=printed"))
    assert cells[40][0] == "uniform" and cells[-1][:2] == ("zipf", 2.0)
    assert len(set(cells)) == len(RUNS) and all(len(set(cells[i:i + 20])) == 1 for i in range(0, 120, 20))


def test_gnu_time_report_is_read() -> None:
    report = ("\tUser time (seconds): 3338.59\n\tSystem time (seconds): 54.92\n"
              "\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:02:03.5\n")
    assert gnu_time(report) == {"user_s": 3338.59, "sys_s": 54.92, "wall_s": 3723.5}


@pytest.fixture(scope="module")
def shipped() -> tuple[pd.DataFrame, list[str]]:
    new = pd.read_csv(DATA / "ppam13_split_dc_100" / WINDOWS_FILE)
    status = pd.read_csv(DATA / "ppam13_split_dc_100" / STATUS_FILE)
    return new, status.loc[status["finished"], "variant"].tolist()


def test_first_ten_windows_are_the_ten_window_grids(shipped: tuple[pd.DataFrame, list[str]]) -> None:
    """Each finished combination's windows 0–9 equal the 10-window grid's (same windows, seeds and readings), to
    the integer, and it has 100 windows per trace."""
    new, finished = shipped
    assert finished and set(new["variant"]) == set(finished)
    short = pd.read_csv(DATA / "ppam13_split_dc" / VARIANTS_WINDOWS)
    first = new[new["window"] < 10].merge(short[COLUMNS], on=COLUMNS[:4], suffixes=("", "_10"),
                                          validate="one_to_one")
    assert len(first) == len(new[new["window"] < 10]) > 0
    assert first["delta_psi"].tolist() == first["delta_psi_10"].tolist()
    assert first["p_tot"].tolist() == first["p_tot_10"].tolist()
    assert (new.groupby(["variant", "trace", "policy"])["window"].nunique() == 100).all()


def test_combinations_have_every_policy_on_the_same_windows(shipped: tuple[pd.DataFrame, list[str]]) -> None:
    """A DIRECTCONTR-only run is completed by its split's run: REF's p_tot per window is the same in both."""
    new, finished = shipped
    windows = combination_windows(new, finished, DATA)
    sizes = windows.groupby(["variant", "trace", "policy"]).size()
    assert (sizes == 100).all() and windows.groupby("variant")["policy"].nunique().eq(6).all()
    old = pd.read_csv(DATA / "ppam13_variants_100" / VARIANTS_WINDOWS)
    old = old[(old["table"] == "table2") & (old["variant"] == "shipped") & (old["policy"] == "REF")]
    if "multinomial / printed" in finished:
        mine = new[(new["variant"] == "multinomial / printed") & (new["policy"] == "REF")]
        merged = mine.merge(old, on=["trace", "window"], validate="one_to_one")
        assert len(merged) == 200 and (merged["p_tot_x"] == merged["p_tot_y"]).all()


def test_fit100_of_the_variants_run_matches_its_cell_means() -> None:
    """The 100-window fit from per-window ratios equals the fit of the variants run's own cell means."""
    from fairsched.replicate.ppam13.split_dc import fit

    ranking = fit100(combination_windows(pd.DataFrame(columns=["variant", "trace", "window", "policy", "ratio"]),
                                         [], DATA))
    cells = pd.read_csv(DATA / "ppam13_variants_100" / "ppam13_variants_cells.csv")
    cells = cells[cells["variant"].isin(RUN100_NAMES)].assign(variant=lambda f: f["variant"].map(RUN100_NAMES))
    expected = fit(cells).set_index("variant")["fit"]
    got = ranking.set_index("variant")["fit"]
    assert sorted(got.index) == sorted(RUN100_NAMES.values()) and (ranking["windows"] == 100).all()
    np.testing.assert_allclose(got[expected.index].to_numpy(), expected.to_numpy(), rtol=1e-5)
    assert got["multinomial / corrected"] == pytest.approx(8.013, abs=1e-3)


def test_shipped_fit_file_is_the_fit_of_the_shipped_windows(shipped: tuple[pd.DataFrame, list[str]]) -> None:
    new, finished = shipped
    ranking = fit100(combination_windows(new, finished, DATA))
    stored = pd.read_csv(DATA / "ppam13_split_dc_100" / FIT_FILE)
    assert ranking["variant"].tolist() == stored["variant"].tolist()
    np.testing.assert_allclose(ranking["fit"], stored["fit"], rtol=1e-5)


def test_a_changed_window_makes_the_100_window_means_stale(tmp_path: Path) -> None:
    """The 100-window means table of docs/replication/ppam13.md follows the shipped windows."""
    import gzip
    import shutil

    from fairsched.replicate._doc_tables import stale_blocks

    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    path = data / "ppam13_split_dc_100" / WINDOWS_FILE
    new = pd.read_csv(path)
    new.loc[new["policy"] == "DIRECTCONTR", "ratio"] += 1000.0
    path.write_bytes(gzip.compress(new.to_csv(index=False).encode("utf-8"), mtime=0))
    text = (DATA.parent / "ppam13.md").read_text(encoding="utf-8")
    assert stale_blocks(text, DATA) == []
    assert stale_blocks(text, data) == ["ppam13-split-dc-means-100"]
