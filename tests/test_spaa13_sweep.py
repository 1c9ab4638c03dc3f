"""SPAA'13 §6.3 through the sweep layer: the same windows and numbers as the direct window loop, whatever the cells'
cut, and a rerun on the same store computes nothing (tiny synthetic "LPC-EGEE" trace)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from fairsched.replicate import spaa13
from fairsched.replicate._online_windows import (
    DIRECTCONTR,
    RAND15,
    RAND75,
    REF,
    ROUNDROBIN,
    Cell,
    load_traces,
    measure,
)
from fairsched.replicate.spaa13 import cell as spaa13_cell
from fairsched.sweep import run_sweep
from tests.test_replicate_online import _tiny_trace


@pytest.fixture
def tiny_dir(tmp_path: Path) -> Path:
    _tiny_trace(tmp_path / "traces")
    return tmp_path / "traces"


def _direct(tiny_dir: Path, ks: tuple[int, ...], seeds: int, windows: int) -> pd.DataFrame:
    """The per-window table of the window loop the replication used before it ran on the sweep layer."""
    cells = [Cell(paper="SPAA'13", table="fig4", trace="LPC-EGEE", window_length=5_000_000, split=split, orgs=k,
                  machines=17, policies=(ROUNDROBIN, RAND15, RAND75, DIRECTCONTR, REF), windows=seeds,
                  fixed_start=True) for split in ("uniform", "zipf") for k in ks]
    cells.append(Cell(paper="SPAA'13", table="table", trace="LPC-EGEE", window_length=500_000, split="uniform",
                      orgs=5, machines=70, policies=(RAND15, DIRECTCONTR, ROUNDROBIN, REF), windows=windows))
    _, per_window = measure(cells, load_traces(["LPC-EGEE"], tiny_dir), seed=5, jobs=1)
    return per_window


def _key(frame: pd.DataFrame) -> pd.DataFrame:
    columns = ["table", "split", "orgs", "window", "policy", "start", "seed", "delta_psi", "p_tot", "ratio"]
    return frame.loc[:, columns].sort_values(columns[:5]).reset_index(drop=True)


def test_the_sweep_gives_the_direct_loops_numbers(tiny_dir: Path, tmp_path: Path) -> None:
    """Same seed, same cells: every window of the paper's policies has the same start, seed, Δψ and p_tot."""
    config = spaa13.SPAA13Config(traces_dir=tiny_dir, traces=("LPC-EGEE",), splits=("uniform",), ks=(2, 3),
                                 seeds=2, windows=3, fig_configs=(("fig4", 17, 1.0),), seed=5,
                                 store=tmp_path / "store")
    swept = spaa13.run(config).per_window
    direct = _direct(tiny_dir, (2, 3), seeds=2, windows=3)
    assert len(direct) == 4 * 2 * 5 + 3 * 4
    mine = swept.merge(direct[["table", "split", "orgs", "window", "policy"]], how="inner")
    pd.testing.assert_frame_equal(_key(mine), _key(direct))
    assert direct["delta_psi"].gt(0).any()  # the tiny trace is contended: the comparison is not all zeros
    extra = set(swept["policy"]) - set(direct["policy"])
    assert extra == {"RAND printed (N=15)", "RAND printed (N=75)", "FAIRSHARE", "UTFAIRSHARE"}


def test_how_windows_are_cut_into_cells_does_not_matter(tiny_dir: Path) -> None:
    whole = spaa13_cell.run(spaa13_cell.Config(part="table", traces_dir=tiny_dir, windows=4), seed=2).rows()
    parts = pd.concat([spaa13_cell.run(spaa13_cell.Config(part="table", traces_dir=tiny_dir, first_window=first,
                                                          windows=2), seed=2).rows() for first in (0, 2)])
    drop = ["first_window", "windows"]
    pd.testing.assert_frame_equal(whole.drop(columns=drop), parts.drop(columns=drop).reset_index(drop=True))
    assert sorted(whole["window"].unique()) == [0, 1, 2, 3]


def test_a_rerun_on_the_same_store_computes_nothing(tiny_dir: Path, tmp_path: Path) -> None:
    config = spaa13.SPAA13Config(traces_dir=tiny_dir, parts=("table",), traces=("LPC-EGEE",), windows=2, seed=1)
    (spec,) = spaa13.sweep_specs(config).values()
    first = run_sweep(spec, tmp_path / "store", workers=1)
    again = run_sweep(spec, tmp_path / "store", workers=1)
    assert (first.computed, first.reused) == (2, 0)  # uniform and Zipf
    assert (again.computed, again.reused) == (0, 2)


def test_bad_cells_are_config_errors(tiny_dir: Path) -> None:
    from fairsched.errors import ConfigError

    with pytest.raises(ConfigError, match="--part 'fig6': choose one of fig4, fig5, table"):
        spaa13_cell.Config(part="fig6")
    with pytest.raises(ConfigError, match="LPC-EGEE only"):
        spaa13_cell.Config(part="fig4", trace="RICC")
    with pytest.raises(ConfigError, match="splits: unknown 'pareto'"):
        spaa13.run(spaa13.SPAA13Config(traces_dir=tiny_dir, splits=("pareto",)))


def test_figures_draw_zeros_on_a_symlog_axis(tmp_path: Path) -> None:
    """A policy that matched REF (mean 0) stays on the plot: symlog axis from 0, the point's y is 0."""
    from fairsched.replicate._online_plots import LINTHRESH, bar_figure, k_figure

    rows = [{"machines": 17, "split": "zipf", "orgs": k, "policy": policy, "mean": mean}
            for k, policy, mean in [(2, "DIRECTCONTR", 0.0), (3, "DIRECTCONTR", 50.0), (2, "ROUNDROBIN", 3e4),
                                    (3, "ROUNDROBIN", 2e4)]]
    axes = k_figure(rows, "t").axes[0]
    assert axes.get_yscale() == "symlog" and axes.get_yaxis().get_transform().linthresh == LINTHRESH
    low, high = axes.get_ylim()
    assert low == 0 and high >= 3e4
    directcontr = next(line for line in axes.lines if line.get_label() == "DIRECTCONTR")
    assert list(directcontr.get_ydata()) == [0.0, 50.0]
    table = [{"table": "table", "trace": "RICC", "split": "uniform", "policy": p, "mean": m, "paper_mean": pm,
              "windows": 3} for p, m, pm in [("DIRECTCONTR", 0.0, 1520), ("ROUNDROBIN", 10.0, 7560)]]
    assert bar_figure(table, "t").axes[0].get_yscale() == "symlog"


def test_doc_figures_and_tables_render_from_the_shipped_file(tmp_path: Path) -> None:
    from fairsched.replicate.spaa13 import doc as spaa13_doc

    data = Path(__file__).resolve().parents[1] / "docs" / "replication" / "data"
    paths = spaa13_doc.figures(data, tmp_path)
    assert sorted(path.name for path in paths.values()) == ["spaa13-fig45.png", "spaa13-table.png"]
    assert all(path.stat().st_size > 10_000 for path in paths.values())


def test_doc_tables_count_windows_by_hand(tmp_path: Path) -> None:
    """Three hand-made windows: which policy is fairer, window by window, and the mean (std) of one cell."""
    from fairsched.replicate.spaa13 import doc as spaa13_doc

    ratios = {"RAND (N=15)": [0.0, 5.0, 1.0], "DIRECTCONTR": [0.0, 3.0, 2.0], "ROUNDROBIN": [0.0, 9.0, 9.0],
              "FAIRSHARE": [0.0, 4.0, 4.0], "UTFAIRSHARE": [0.0, 3.0, 2.0], "RAND printed (N=15)": [0.0, 5.0, 1.0]}
    rows = [{"table": "table", "trace": "RICC", "split": "uniform", "orgs": 5, "machines": 8192, "window": w,
             "policy": p, "ratio": r[w]} for p, r in ratios.items() for w in range(3)]
    pd.DataFrame(rows).to_csv(tmp_path / spaa13_doc.FILE, index=False)
    pairs = spaa13_doc.table_pairs(tmp_path)
    assert "| RICC | uniform | 3 | 2 | 1 / 1 / 1 | 2 / 0 / 1 | 0 / 0 / 3 | 0 / 0 / 3 |" in pairs
    assert "| RICC | DIRECTCONTR | 1520 (3765) | 1.7 (1.5) | — |" in spaa13_doc.table_workloads(tmp_path)
