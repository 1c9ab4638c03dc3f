"""docs/slurm.md's "Simulation against the real thing" tables equal their rendering from the saved results
(docs/slurm/data/slurm_vs_sim.json, written by ``benchmarks/slurm_vs_sim.py analyse``; renderers in
``benchmarks/slurm_vs_sim_tables.py``), and the check notices a changed measurement."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path
from types import ModuleType

from fairsched.replicate._doc_format import BLOCK, keep_other_blocks, render_blocks, stale_blocks

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "slurm.md"
DATA = ROOT / "docs" / "slurm" / "data"


def tables() -> ModuleType:
    spec = importlib.util.spec_from_file_location("slurm_vs_sim_tables", ROOT / "benchmarks" / "slurm_vs_sim_tables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_slurm_vs_sim_tables_match_the_saved_results() -> None:
    renderers = tables().TABLES
    text = DOC.read_text(encoding="utf-8")
    names = [m.group("name") for m in BLOCK.finditer(text) if m.group("name").startswith("slurm-vs-sim-")]
    assert names == list(renderers)
    renderers = keep_other_blocks(text, renderers)  # the steer experiment's blocks are checked by their own test
    assert stale_blocks(text, DATA, renderers) == [], "run benchmarks/slurm_vs_sim_tables.py docs/slurm.md"


def test_a_changed_result_makes_its_tables_stale(tmp_path: Path) -> None:
    renderers = tables().TABLES
    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    doc = json.loads((data / "slurm_vs_sim.json").read_text(encoding="utf-8"))
    log = next(iter(doc["logs"]))
    arm = doc["logs"][log]["policies"]["fair-tree"]
    arm["replays"][0]["fairshare"]["mismatches"].append(
        {"account": "x", "user": "u", "column": "LevelFS", "fairsched": "1.000000", "sshare": "1.000001"})
    (data / "slurm_vs_sim.json").write_text(json.dumps(doc), encoding="utf-8")
    text = DOC.read_text(encoding="utf-8")
    renderers = keep_other_blocks(text, renderers)
    assert stale_blocks(text, data, renderers) == ["slurm-vs-sim-fairshare", "slurm-vs-sim-mismatches"]
    assert "| x | u | LevelFS | 1.000000 | 1.000001 |" in render_blocks(text, data, renderers)
