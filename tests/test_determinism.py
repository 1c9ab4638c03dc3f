"""Same seed, same bytes out: every output file of `fairsched compare` except the timings in report.json."""

from __future__ import annotations

import json
from pathlib import Path

from fairsched.online.experiment import Config, run_compare
from fairsched.report.online import write_compare_outputs

TIMING_KEYS = {"elapsed_s", "run_time_s"}


def _outputs(tmp_path: Path, name: str, seed: int) -> dict[str, bytes]:
    config = Config(policies=("roundrobin", "directcontr"), reference="fairshare", window_length=150_000)
    written = write_compare_outputs(run_compare(config, seed), tmp_path / name)
    return {key: path.read_bytes() for key, path in written.items()}


def _without_timings(document: object) -> object:
    if isinstance(document, dict):
        return {k: _without_timings(v) for k, v in document.items() if k not in TIMING_KEYS}
    if isinstance(document, list):
        return [_without_timings(v) for v in document]
    return document


def test_same_seed_gives_identical_files_and_another_seed_does_not(tmp_path: Path) -> None:
    first, again, other = (_outputs(tmp_path, name, seed) for name, seed in (("a", 3), ("b", 3), ("c", 4)))
    assert first.keys() == again.keys() and "directcontr/schedule.csv" in first
    for key in first:
        if key == "report.json":
            reports = [_without_timings(json.loads(doc[key])) for doc in (first, again)]
            for report, folder in zip(reports, ("a", "b"), strict=True):
                report["outputs"] = {k: v.replace(f"/{folder}/", "/") for k, v in report["outputs"].items()}
            assert reports[0] == reports[1]
        else:
            assert first[key] == again[key], key
    # The seed drives the organizations, the machine split and DIRECTCONTR's machine order.
    assert first["directcontr/schedule.csv"] != other["directcontr/schedule.csv"]
