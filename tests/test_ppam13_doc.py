"""The text helpers of docs/replication/ppam13.md's rendered claims (`fairsched.replicate.ppam13.doc_claims`), on
hand-made inputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fairsched.errors import ConfigError
from fairsched.replicate._doc_format import RUN_INFO, write_run_info
from fairsched.replicate.ppam13.doc import cells_phrase, ks_phrase
from fairsched.replicate.ppam13.doc_values import run_time, uniform_spread, zipf_split

T1L, T1R, T2L, T2R = ("table1", "LPC-EGEE"), ("table1", "RICC"), ("table2", "LPC-EGEE"), ("table2", "RICC")


def test_runs_of_k_are_joined_by_dashes() -> None:
    assert ks_phrase([2, 3, 4, 5, 8]) == "2–5 and 8"
    assert ks_phrase([10, 6, 7, 9]) == "6, 7, 9 and 10"  # two in a row are listed, not dashed
    assert ks_phrase([3]) == "3" and ks_phrase([]) == "no k"


def test_cells_are_named_in_words() -> None:
    every = [T1L, T1R, T2L, T2R]
    assert cells_phrase(every, every) == "in every cell"
    assert cells_phrase([], every) == "in no cell"
    assert cells_phrase([T1R, T2L, T2R], every) == "on Table 1 RICC and Table 2 on both traces"
    assert cells_phrase([T2L], every) == "on Table 2 LPC-EGEE"
    assert cells_phrase([T2L, T2R], [T2L, T2R]) == "in both cells"


def test_the_uniform_split_spread_is_one_binomial_std() -> None:
    # 70 machines, 5 organizations: 1 + Binomial(65, 1/5) each, std sqrt(65 * 0.16) = 3.22 of an equal share of 14
    assert uniform_spread(70) == "±23 %"
    rng = np.random.default_rng(0)
    draws = 1 + rng.multinomial(65, np.full(5, 0.2), size=20_000)
    assert abs(draws.std() / 14 - 0.23) < 0.01
    assert uniform_spread(8192) == "±2 %"
    assert zipf_split(70) == "39/14/8/5/4" and zipf_split(64) == "35/13/7/5/4"  # zipf_counts' doctest


def test_run_info_comes_from_the_gnu_time_line(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text("start 06:18:23\nwall 3601.50 s user 5000.25 s sys 99.75 s\nend 07:18:25 rc=0\n")
    path = write_run_info(log, tmp_path)
    assert path == tmp_path / RUN_INFO
    (tmp_path / "run").mkdir()
    path.rename(tmp_path / "run" / RUN_INFO)
    assert run_time(tmp_path, "run") == "3,602 s wall, 5,100 s CPU (user + sys)"
    log.write_text("start 06:18:23\nKilled\n")
    with pytest.raises(ConfigError, match="no 'wall"):
        write_run_info(log, tmp_path)


def test_a_run_that_records_its_own_time_is_quoted_from_its_file(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "ppam13_variants_run.csv").write_text("wall_s,cpu_s\n1800.4,2400.6\n")
    (tmp_path / "run" / RUN_INFO).write_text("wall_s,user_s,sys_s\n1,1,1\n")  # the run's own file wins
    assert run_time(tmp_path, "run") == "1,800 s wall, 2,401 s CPU (user + sys)"


def test_fig1_plot_is_drawn_from_the_shipped_table_and_embedded(tmp_path: Path) -> None:
    """docs/img/ppam13_fig1.png is what the shipped Fig. 1 table draws (symlog axis), and ppam13.md shows it."""
    from fairsched.replicate._doc_tables import DATA_DIR
    from fairsched.replicate.ppam13.doc import FIG1_IMG, IMG_DIR, figures

    root = Path(__file__).resolve().parents[1]
    drawn = figures(root / DATA_DIR, tmp_path)[FIG1_IMG]
    assert drawn.read_bytes() == (root / IMG_DIR / FIG1_IMG).read_bytes(), (
        "stale plot: python -m fairsched.replicate.ppam13.doc")
    assert f"](../img/{FIG1_IMG})" in (root / "docs" / "replication" / "ppam13.md").read_text(encoding="utf-8")


def test_fig1_trend_is_a_rank_correlation_with_k(tmp_path: Path) -> None:
    """One series growing with k (ρ = 1), one shrinking (ρ = −1), one up then down (ρ = 0)."""
    import pandas as pd

    from fairsched.replicate.ppam13.doc import FIG1
    from fairsched.replicate.ppam13.doc_values import fig1_trend

    means = {"ROUNDROBIN": [1, 2, 3], "RAND (N=15)": [3, 2, 1], "DIRECTCONTR": [1, 3, 1]}
    rows = pd.DataFrame([{"split": "uniform", "orgs": k, "policy": policy, "mean": m, "windows": 10}
                         for policy, ms in means.items() for k, m in zip((2, 3, 4), ms, strict=True)])
    (tmp_path / FIG1).mkdir()
    rows.to_csv(tmp_path / FIG1 / "ppam13_fig1_table.csv", index=False)
    assert fig1_trend(tmp_path) == "1 of the 3 series, ρ from −1.00 to 1.00 (median 0.00)"
