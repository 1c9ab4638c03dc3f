"""End to end: ``fairsched replicate ppam13 --variants`` on two tiny traces, one window per table and trace."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from fairsched.replicate._online_windows import TRACES
from fairsched.replicate.ppam13 import PAPER
from fairsched.replicate.ppam13.variants import CONCLUSIONS, PAPER_VARIANT, VARIANTS
from tests.conftest import run_main
from tests.test_replicate_online import _tiny_trace

ROLES = {"ROUNDROBIN", "RAND", "DIRECTCONTR", "FAIRSHARE", "UTFAIRSHARE", "CURRFAIRSHARE"}


def test_replicate_ppam13_variants_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The tiny trace under both names: its ≤ 160 jobs of ≤ 12 processors (≤ 1,920 copies) never fill RICC's
    8192 machines, so every job starts on release under every policy and every RICC cell is exactly 0."""
    lpc = _tiny_trace(tmp_path / "traces")
    (tmp_path / "traces" / TRACES["RICC"].file).write_bytes(lpc.read_bytes())
    code, out, err = run_main(["replicate", "ppam13", "--variants", "--traces", str(tmp_path / "traces"),
                               "--windows", "1", "--seed", "2", "--out", str(tmp_path / "out"), "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    cells = pd.DataFrame(doc["cells"])
    names = [variant.name for variant in VARIANTS]
    assert list(dict.fromkeys(cells["variant"])) == names
    assert len(cells) == len(names) * 2 * 2 * len(ROLES)  # variants x tables x traces x policies
    assert set(cells["policy"]) == ROLES and set(cells["windows"]) == {1}
    assert cells.loc[cells["trace"] == "RICC", "mean"].eq(0.0).all()  # the hand-checkable value
    assert cells.loc[cells["trace"] == "LPC-EGEE", "mean"].gt(0).any()  # 70 machines: contended
    uniform = cells[(cells["variant"] == "shipped") & (cells["table"] == "table2") & (cells["trace"] == "LPC-EGEE")]
    paper = dict(PAPER[("table2", "LPC-EGEE")])
    assert uniform.set_index("policy").loc["DIRECTCONTR", "paper_mean"] == paper["DIRECTCONTR"][0] == 410
    conclusions = pd.DataFrame(doc["conclusions"])
    assert set(conclusions["variant"]) == {PAPER_VARIANT, *names}
    assert set(conclusions["conclusion"]) <= set(CONCLUSIONS)
    written = pd.read_csv(tmp_path / "out" / "ppam13_variants_cells.csv")
    assert len(written) == len(cells) and list(dict.fromkeys(written["variant"])) == names
    run = pd.read_csv(tmp_path / "out" / "ppam13_variants_run.csv")
    assert list(run.columns) == ["wall_s", "cpu_s"] and (run.iloc[0] > 0).all()
    windows_gz = tmp_path / "out" / "ppam13_variants_windows.csv.gz"
    windows = pd.read_csv(windows_gz)  # gzip CSV, written with mtime 0: a rerun gives the same bytes
    assert windows_gz.read_bytes()[4:8] == b"\0\0\0\0"
    assert len(windows) == len(names) * 2 * 2 * (len(ROLES) + 1)  # every window, policy (REF too) and variant
