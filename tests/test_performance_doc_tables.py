"""Every marked table of docs/performance.md equals its rendering from the saved benchmark results
(docs/performance/data, written by ``benchmarks/run_all.py --save``; renderers in ``benchmarks/perf_tables.py``),
and the check notices a changed measurement."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fairsched.errors import ConfigError
from fairsched.replicate._doc_format import BLOCK, render_blocks, stale_blocks
from tests.benchmark_module import ROOT, load_benchmark

DOC = ROOT / "docs" / "performance.md"
DATA = ROOT / "docs" / "performance" / "data"


def test_performance_tables_match_the_saved_measurements() -> None:
    tables = load_benchmark("perf_tables").TABLES
    text = DOC.read_text(encoding="utf-8")
    names = [m.group("name") for m in BLOCK.finditer(text)]
    assert len(names) >= 9 and set(names) <= set(tables), names
    assert stale_blocks(text, DATA, tables) == [], "run .venv/bin/python benchmarks/perf_tables.py docs/performance.md"


def test_every_saved_measurement_says_when_where_and_under_which_load() -> None:
    records = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(DATA.glob("*.json"))]
    assert records
    for record in records:
        assert {"date", "commit", "machine", "load_average_before", "wall_s", "cpu_s", "result"} <= set(record)
        assert record["command"][1] == f"benchmarks/bench_{record['benchmark']}.py"


def test_a_changed_measurement_makes_its_table_stale(tmp_path: Path) -> None:
    module = load_benchmark("perf_tables")
    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    record = json.loads((data / "read_swf.json").read_text(encoding="utf-8"))
    record["result"][0]["cpu_s"] = 123.0
    (data / "read_swf.json").write_text(json.dumps(record), encoding="utf-8")
    text = DOC.read_text(encoding="utf-8")
    assert stale_blocks(text, data, module.TABLES) == ["perf-read-swf"]
    assert f"| {record['result'][0]['trace']} | {record['result'][0]['records']:,} | 123.00 |" in \
        render_blocks(text, data, module.TABLES)
    (data / "read_swf.json").unlink()
    with pytest.raises(ConfigError, match=r"run_all\.py --save"):
        render_blocks(text, data, module.TABLES)


def test_the_ref_and_cli_renderers_read_their_scripts_documents(tmp_path: Path) -> None:
    """`bench_ref.py` and `bench_cli.py` documents (their current shape) render into tables with the context line."""
    module = load_benchmark("perf_tables")
    context = json.loads((DATA / "read_swf.json").read_text(encoding="utf-8"))
    ref = {"results": [{"policy": "ref", "params": {}, "orgs": 5, "horizon": None, "seconds": 4.1, "peak_rss_mb": 285},
                       {"policy": "rand", "params": {"n_orderings": 15}, "orgs": 5, "horizon": None, "seconds": 3.4,
                        "peak_rss_mb": 290}]}
    cli = {"cases": [{"case": "--help", "wall_s": 1.28, "cpu_s": 0.2},
                     {"case": "backfill easy CTC-SP2 10k", "wall_s": 6.2, "cpu_s": 1.35, "pyss_s": 12.2,
                      "vs_pyss_cpu": 9.0}, {"case": "trace info LPC-EGEE", "skipped": "absent"}]}
    for name, document in (("ref", ref), ("cli", cli)):
        record = {**context, "benchmark": name, "command": ["python", f"benchmarks/bench_{name}.py"],
                  "result": document}
        (tmp_path / f"{name}.json").write_text(json.dumps(record), encoding="utf-8")
    assert "| ref k = 5 | 4.10 s | 285 MB |" in module.ref(tmp_path)
    assert "| rand k = 5 (n_orderings = 15) | 3.40 s | 290 MB |" in module.ref(tmp_path)
    table = module.cli(tmp_path)
    assert "| `backfill easy CTC-SP2 10k` | 1.35 s | 6.20 s | 12.2 s | 9× |" in table
    assert "trace info" not in table and "*Measured " in table
