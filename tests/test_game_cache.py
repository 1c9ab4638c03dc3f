"""The game's Shapley values on disk (`fairsched.audit.game_cache`): a hit gives the same bytes as a fresh game."""

from __future__ import annotations

import gzip
import json
import re

import numpy as np
import pytest

from fairsched.audit import AuditConfig, game, game_cache, run_audit
from fairsched.audit.whatif import WhatifConfig, run_whatif
from fairsched.report.audit import write_audit_outputs
from tests.conftest import run_main
from tests.test_audit import _sacct

# 12 jobs of 5 accounts on 1 CPU each, queued behind each other: every coalition has its own value
JOBS = [(str(i), f"o{i % 5}", 2 * i, 2 * i + i % 3, 3 + i % 4, 1 + i % 2) for i in range(12)]


def _timeless(text: str) -> str:
    return re.sub(r'"run_seconds": [0-9.e-]+', '"run_seconds": 0', text)


def _entries(where):
    return sorted(where.glob("*.json.gz"))


@pytest.mark.parametrize("exact_up_to", [12, 2])  # exact (2^5 coalitions), then 20 sampled orderings
def test_a_hit_gives_the_same_result_as_a_fresh_game(tmp_path, monkeypatch, exact_up_to):
    log = _sacct(tmp_path, JOBS)
    config = AuditConfig(log=log, exact_up_to=exact_up_to, samples=20, seed=5, fst_sample=0)
    monkeypatch.setenv("FAIRSCHED_GAME_CACHE", "off")
    fresh = run_audit(config)
    monkeypatch.setenv("FAIRSCHED_GAME_CACHE", str(tmp_path / "cache"))
    stored = run_audit(config)
    assert len(_entries(tmp_path / "cache")) == 1
    hit = run_audit(config)
    assert fresh.shapley.method == ("exact" if exact_up_to == 12 else "sampled")
    for other in (stored, hit):
        assert other.shapley.phi.tolist() == fresh.shapley.phi.tolist()
        assert other.shapley.low.tolist() == fresh.shapley.low.tolist()
        assert other.shapley.high.tolist() == fresh.shapley.high.tolist()
        assert other.shapley.exact == fresh.shapley.exact
        assert other.shapley.values == fresh.shapley.values
        timeless = {**fresh.summary, "run_seconds": None}
        assert {**other.summary, "run_seconds": None} == timeless  # coalitions_simulated and v_grand among them
        assert other.orgs.equals(fresh.orgs)
    pages = []
    for name, result in (("fresh", fresh), ("hit", hit)):
        outputs = write_audit_outputs(result, tmp_path / name, command="fairsched audit x")
        pages.append({k: re.sub(rb"run in [\d.,]+ s", b"", p.read_bytes())  # the run time, which varies
                      for k, p in outputs.items() if k != "report.json"})
    assert pages[0] == pages[1]


def test_the_key_follows_the_game_and_its_setting():
    jobs = game.ReferenceJobs(org=np.array([0, 1]), submit=np.array([0, 1]), run=np.array([3, 2]),
                              cpus=np.array([1, 1]), estimate=np.array([3, 2]), index=np.array([0, 1]))
    a = game.Game(jobs, np.array([1, 1]), 10, "backfill")
    key = game_cache.game_key(a, exact=False, samples=20, seed=1)
    assert key == game_cache.game_key(game.Game(jobs, np.array([1, 1]), 10, "backfill"), exact=False, samples=20,
                                      seed=1)
    changed = [game_cache.game_key(game.Game(jobs, np.array([1, 2]), 10, "backfill"), exact=False, samples=20,
                                   seed=1),
               game_cache.game_key(game.Game(jobs, np.array([1, 1]), 11, "backfill"), exact=False, samples=20,
                                   seed=1),
               game_cache.game_key(game.Game(jobs, np.array([1, 1]), 10, "online"), exact=False, samples=20,
                                   seed=1),
               game_cache.game_key(a, exact=False, samples=22, seed=1),
               game_cache.game_key(a, exact=False, samples=20, seed=2),
               game_cache.game_key(a, exact=True, samples=20, seed=1)]
    assert len({key, *changed}) == 7
    # exact values do not depend on the sampling's settings
    assert game_cache.game_key(a, exact=True, samples=2, seed=9) == changed[-1]


def test_a_broken_or_foreign_entry_is_replayed_and_replaced(tmp_path, monkeypatch):
    log = _sacct(tmp_path, JOBS)
    config = AuditConfig(log=log, exact_up_to=2, samples=20, seed=5, fst_sample=0)
    monkeypatch.setenv("FAIRSCHED_GAME_CACHE", str(tmp_path / "cache"))
    fresh = run_audit(config)
    [entry] = _entries(tmp_path / "cache")
    entry.write_bytes(entry.read_bytes()[:40])  # a truncated gzip: ignored, played again, rewritten
    again = run_audit(config)
    assert again.shapley.phi.tolist() == fresh.shapley.phi.tolist()
    with gzip.open(entry, "rb") as handle:
        stored = json.loads(handle.read())
    grand = format((1 << 5) - 1, "x")
    for row in stored["runs"]:  # a grand coalition of another value: not this game's entry, so not used
        if row[0] == grand:
            row[1] = str(int(row[1]) + 1)
    stored["phi"] = [float(0).hex()] * 5
    with gzip.open(entry, "wb") as handle:
        handle.write(json.dumps(stored).encode())
    third = run_audit(config)
    assert third.shapley.phi.tolist() == fresh.shapley.phi.tolist()


def test_off_writes_nothing_and_whatif_shares_the_audits_entry(tmp_path, monkeypatch):
    log = _sacct(tmp_path, JOBS)
    monkeypatch.setenv("FAIRSCHED_GAME_CACHE", "off")
    assert game_cache.cache_dir() is None
    monkeypatch.setenv("FAIRSCHED_GAME_CACHE", str(tmp_path / "cache"))
    run_audit(AuditConfig(log=log, exact_up_to=2, samples=20, seed=5, fst_sample=0))
    [entry] = _entries(tmp_path / "cache")
    before = entry.stat().st_mtime_ns
    run_whatif(WhatifConfig(log=log, policies=("recorded", "fcfs"), exact_up_to=2, samples=20, seed=5))
    assert _entries(tmp_path / "cache") == [entry] and entry.stat().st_mtime_ns == before  # read, not rewritten


def test_the_cli_output_is_the_same_bytes_with_the_cache(tmp_path, monkeypatch, capsys):
    log = _sacct(tmp_path, JOBS)
    argv = ["audit", str(log), "--samples", "20", "--exact-up-to", "2", "--json"]
    monkeypatch.setenv("FAIRSCHED_GAME_CACHE", "off")
    code, fresh, _ = run_main(argv, capsys)
    assert code == 0
    monkeypatch.setenv("FAIRSCHED_GAME_CACHE", str(tmp_path / "cache"))
    outs = [run_main(argv, capsys)[1] for _ in range(2)]
    assert len(_entries(tmp_path / "cache")) == 1
    assert [_timeless(out) for out in outs] == [_timeless(fresh)] * 2
