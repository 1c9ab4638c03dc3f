"""Terminal tables at 80 columns: names are abbreviated (with a legend) or wrapped, numbers are never cut."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

from fairsched.report.online import replication_table
from fairsched.report.tables import POLICY_ABBREVIATIONS, Fitted, fmt_number, short_policy, whole_numbers
from tests.conftest import run_main

WIDTH = 80
POLICIES = ("roundrobin", "fairshare", "utfairshare", "currfairshare", "directcontr")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("│┃").split("│")]


def _rows(text: str, *labels: str) -> list[list[str]]:
    """The cells of every table line whose first cell is one of `labels`, in order (one per table and part)."""
    return [_cells(line)[1:] for line in text.splitlines() if line.startswith("│") and _cells(line)[0] in labels]


def _check_width(text: str) -> None:
    assert "…" not in text
    lines = [line for line in text.splitlines() if not line.startswith("report: ")]  # a path is never wrapped
    assert max(len(line) for line in lines) <= WIDTH


@pytest.mark.parametrize("orgs", [5, 12])
def test_compare_at_80_columns_prints_every_number_whole(orgs: int, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    out = tmp_path / "o"
    code, text, err = run_main(["compare", "--window-length", "60000", "--orgs", str(orgs), "--policies",
                                ",".join(POLICIES), "--reference", "directcontr", "--out", str(out)], capsys)
    assert code == 0, err
    _check_width(text)
    summary = pd.read_csv(out / "summary.csv")
    per_org = pd.read_csv(out / "per_org.csv")
    for row in summary.itertuples():
        short = short_policy(row.policy)
        policy_row, *org_parts = _rows(text, short, short + "*", row.policy)  # the policy table, then orgs'
        assert policy_row[:4] == [fmt_number(row.delta_psi_over_ptot), fmt_number(row.max_abs_org_deviation),
                                  fmt_number(row.mean_wait), f"{row.utilization:.1%}"]
        deviations = per_org.loc[per_org["policy"] == row.policy, "deviation_over_ptot"]
        org_cells = [cell for part in org_parts for cell in part]
        assert org_cells == [fmt_number(value) for value in deviations]  # every organization, whole, in order
    legend = " ".join(text.split())
    assert "rr = roundrobin" in legend and "* = the reference" in legend


def test_compare_keeps_full_names_when_the_terminal_is_wide(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    code, text, err = run_main(["compare", "--window-length", "60000", "--policies", ",".join(POLICIES),
                                "--reference", "directcontr"], capsys)
    assert code == 0, err
    assert _rows(text, "directcontr (reference)") and _rows(text, "utfairshare") and "rr = " not in text


def test_replication_table_at_80_columns_keeps_means_and_stds_whole() -> None:
    rows = [{"table": "Table 1", "trace": trace, "window_length": 5e4, "split": "uniform", "orgs": 5,
             "machines": 70, "policy": policy, "mean": 10_000.0 * i + 1234.56, "std": 987.65 + i,
             "paper_mean": 20_000.0 + 111.1 * i, "paper_std": 55.5 + i, "windows": 100}
            for i, (trace, policy) in enumerate((t, p) for t in ("LPC-EGEE-2004-1.2-cln", "RICC-2010-2")
                                                for p in POLICIES)]
    console = Console(file=io.StringIO(), width=WIDTH, record=True, color_system=None)
    console.print(replication_table(rows, "PPAM'13 Tables 1–2: Δψ/p_tot mean (std), ours vs the paper"))
    text = console.export_text()
    _check_width(text)
    tokens = re.findall(r"\S+", text)
    for row in rows:
        for value in (f"{row['mean']:,.1f}", f"({row['std']:,.1f})", f"{row['paper_mean']:,.1f}",
                      f"({row['paper_std']:,.1f})"):
            assert tokens.count(value) == 1, value
    legend = " ".join(text.split())  # the legend wraps at 80 columns
    assert all(f"{short} = {name}" in legend for name, short in POLICY_ABBREVIATIONS.items() if name in POLICIES)


def test_fitted_picks_the_first_rendering_that_fits() -> None:
    from rich.table import Table

    wide, narrow = Table("a" * 60, "b" * 30), Table("c")
    for width, expected in ((100, "a" * 60), (80, "c")):
        console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
        console.print(Fitted(wide, narrow))
        assert expected in console.export_text()


def test_whole_numbers_marks_only_number_columns() -> None:
    from rich.table import Table

    table = Table("name", "value")
    table.add_row("alpha", "1,234.5")
    table.add_row("beta", "(12.25)\n48.1%")
    whole_numbers(table)
    assert table.columns[0].min_width is None and table.columns[1].min_width == len("1,234.5")
