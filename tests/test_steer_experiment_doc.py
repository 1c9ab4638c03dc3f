"""docs/slurm.md's steer experiment section equals its rendering from docs/slurm/data/steer.json (written by
``benchmarks/steer_experiment.py``), and the summary's intervals and the verdict follow the runs."""

from __future__ import annotations

import importlib.util
import json
import math
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from fairsched.replicate._doc_format import BLOCK, keep_other_blocks, render_blocks, stale_blocks

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "slurm.md"
DATA = ROOT / "docs" / "slurm" / "data"
DESIGN = {"shares": {"a": 2, "b": 1}}


def experiment() -> ModuleType:
    spec = importlib.util.spec_from_file_location("steer_experiment", ROOT / "benchmarks" / "steer_experiment.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(arm: str, rep: int, total: float, gaps: tuple[float, float], waits: tuple[float, float]) -> dict[str, Any]:
    return {"arm": arm, "rep": rep, "wall_s": 1.0, "replay_s": 1.0, "jobs_used": 2, "delta_psi_over_ptot": total,
            "steer": None if arm == "plain" else {"set": 3, "restore": 0, "jobs_steered": 2,
                                                  "first_set_after_submit_s": 4.0, "returncode": 0},
            "orgs": {org: {"gap": g, "abs_gap": abs(g), "mean_wait": w, "usage_share": 0.5, "jobs": 1}
                     for org, g, w in zip(("a", "b"), gaps, waits, strict=True)}}


def test_the_steer_section_matches_the_saved_experiment() -> None:
    text = DOC.read_text(encoding="utf-8")
    names = {m.group("name") for m in BLOCK.finditer(text) if m.group("name").startswith("steer-")}
    tables = experiment().TABLES
    assert names == set(tables), names
    assert stale_blocks(text, DATA, keep_other_blocks(text, tables)) == [], \
        "run PYTHONPATH=src .venv/bin/python benchmarks/steer_experiment.py --render docs/slurm.md"


def test_the_saved_experiment_has_the_issue_design() -> None:
    data = json.loads((DATA / "steer.json").read_text(encoding="utf-8"))
    assert data["design"]["jobs"] >= 300 and len(data["design"]["shares"]) == 3
    assert len(set(data["design"]["shares"].values())) == 3  # unequal shares
    assert data["summary"]["reps"]["plain"] >= 3 and data["summary"]["reps"]["steer"] >= 3
    assert all(run["jobs_used"] == data["design"]["jobs"] for run in data["runs"])
    waits = [org["mean_wait"] for run in data["runs"] for org in run["orgs"].values()]
    assert max(waits) > 10  # real contention: jobs waited
    for run in data["runs"]:  # the audit's signed gaps of an exact game sum to zero
        assert math.isclose(sum(o["gap"] for o in run["orgs"].values()), 0, abs_tol=1e-6)


def test_intervals_and_verdict_are_computed_from_the_runs(tmp_path: Path) -> None:
    module = experiment()
    runs = [_run("plain", r, t, (t / 2, -t / 2), (30.0 + r, 10.0 - r)) for r, t in ((1, 10.0), (2, 12.0), (3, 14.0))]
    runs += [_run("steer", r, t, (t / 2, -t / 2), (20.0 + r, 12.0 + r)) for r, t in ((1, 4.0), (2, 5.0), (3, 6.0))]
    summary = module.summarize(runs)
    plain = summary["total"]["plain"]
    # mean 12, s = 2, t(0.975, 2) = 4.302653: half-width 4.302653 · 2 / √3 = 4.96828
    assert plain["mean"] == 12 and plain["high"] - 12 == pytest.approx(4.96828, abs=1e-5)
    # Welch: 5 − 12 = −7, se = √(1/3 + 4/3), df = 2.9412: [−11.1554, −2.8446]
    diff = summary["total"]["diff"]
    assert diff["mean"] == -7 and (diff["low"], diff["high"]) == pytest.approx((-11.1554, -2.8446), abs=1e-4)
    assert summary["orgs"]["a"]["mean_wait"]["diff"]["mean"] == -10
    doc = {"design": DESIGN, "runs": runs, "summary": summary}
    (tmp_path / "steer.json").write_text(json.dumps(doc), encoding="utf-8")
    assert module.render_verdict(tmp_path).startswith("**Steering reduced the Shapley gap**")
    assert "| **Σ (Δψ/p_tot)** |  | 12.000 [7.032, 16.968] | 5.000 [2.516, 7.484] | -7.000 [-11.155, -2.845] | 0.01 |" \
        in module.render_gap(tmp_path)
    flat = [_run(r["arm"], r["rep"], 12.0 + r["rep"], (1.0, -1.0), (5.0 + r["rep"], 5.0)) for r in runs]
    (tmp_path / "steer.json").write_text(json.dumps({"design": DESIGN, "runs": flat,
                                                       "summary": module.summarize(flat)}), encoding="utf-8")
    assert module.render_verdict(tmp_path).startswith("**Steering did not measurably reduce the Shapley gap**")


def test_a_changed_measurement_makes_the_section_stale(tmp_path: Path) -> None:
    module = experiment()
    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    doc = json.loads((data / "steer.json").read_text(encoding="utf-8"))
    doc["runs"][0]["orgs"][next(iter(doc["runs"][0]["orgs"]))]["mean_wait"] += 100.0
    doc["summary"] = module.summarize(doc["runs"])
    (data / "steer.json").write_text(json.dumps(doc), encoding="utf-8")
    text = DOC.read_text(encoding="utf-8")
    tables = keep_other_blocks(text, module.TABLES)
    assert stale_blocks(text, data, tables) == ["steer-wait", "steer-runs"]
    assert render_blocks(text, data, tables) != text


def test_queue_profile_counts_the_time_two_accounts_wait(tmp_path: Path) -> None:
    sacct = tmp_path / "sacct.txt"
    sacct.write_text("JobIDRaw|Account|Submit|Start\n"
                     "1|a|2026-01-01T00:00:00|2026-01-01T00:00:10\n"   # a waits [0, 10)
                     "2|b|2026-01-01T00:00:05|2026-01-01T00:00:08\n"   # b waits [5, 8)
                     "3|a|2026-01-01T00:00:06|2026-01-01T00:00:06\n"   # no wait
                     "4|b|2026-01-01T00:00:20|2026-01-01T00:00:21\n",  # b waits [20, 21)
                     encoding="utf-8")
    profile = experiment().queue_profile(sacct)
    assert profile == {"any_pending_s": 11.0, "two_accounts_pending_s": 3.0, "pending_job_s": {"a": 10.0, "b": 4.0}}
