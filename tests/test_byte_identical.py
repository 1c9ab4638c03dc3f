"""The outputs of ``fairsched compare / backfill / mosp / openshop`` are byte-identical to recorded golden hashes.

The guard of every refactoring (issue 11 §1, issue 15): behaviour never changes. Each case runs the CLI entry point
(`fairsched.cli.main`) on a small input (the embedded synthetic workload, a small SWF file written here from a fixed
seed, or a generated instance) with a fixed ``--seed`` and ``--out``, then compares the sha256 of every file written
with ``tests/data/byte_identical.json``, recorded from the code before the package was reshaped.

What is normalized before hashing, and why:

* ``report.json``: the wall-clock fields (``TIMING_KEYS``) are dropped, and the temporary directory is replaced by
  ``<TMP>`` (it appears in ``outputs`` and in source descriptions);
* every other text file: the temporary directory replaced by ``<TMP>`` (an SWF header names its source);
* PNG files are *excluded*: their bytes depend on the matplotlib build, its fonts and the FreeType version, not only
  on our code, so a hash recorded on one machine would fail on another. Only their presence is checked; so is
  ``report.html``'s, which inlines them.

To record the hashes again (only when an output change is intended and reviewed):
``FAIRSCHED_RECORD_GOLDEN=1 .venv/bin/python -m pytest -q -p no:cacheprovider tests/test_byte_identical.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import run_main

GOLDEN = Path(__file__).parent / "data" / "byte_identical.json"
TIMING_KEYS = frozenset({"elapsed_s", "run_time_s", "timings"})
RECORD = os.environ.get("FAIRSCHED_RECORD_GOLDEN") == "1"


def small_swf(path: Path, *, n_jobs: int = 60, max_procs: int = 16, seed: int = 11) -> Path:
    """A small SWF trace from a fixed seed: several users and groups, widths 1..max_procs, some estimates too long."""
    rng = np.random.default_rng(seed)
    submit = np.cumsum(rng.integers(0, 400, n_jobs))
    run = rng.integers(10, 3_000, n_jobs)
    procs = rng.integers(1, max_procs + 1, n_jobs)
    requested = run + rng.integers(0, 2_000, n_jobs)
    wait = rng.integers(0, 500, n_jobs)
    users, groups = rng.integers(1, 9, n_jobs), rng.integers(1, 4, n_jobs)
    lines = ["; Version: 2.2", "; Computer: toy cluster for the byte-identical test", f"; MaxProcs: {max_procs}"]
    for j in range(n_jobs):
        fields = [j + 1, submit[j], wait[j], run[j], procs[j], -1, -1, procs[j], requested[j], -1, 1, users[j],
                  groups[j], -1, 1, -1, -1, -1]
        lines.append(" ".join(str(int(value)) for value in fields))
    path.write_text("\n".join(lines) + "\n")
    return path


# name -> CLI arguments; "{swf}" is the small trace, every case gets its own --out directory.
CASES: dict[str, list[str]] = {
    "compare-synthetic": ["compare", "--policies", "roundrobin,fairshare,directcontr,rand", "--reference",
                          "utfairshare", "--window-length", "150000", "--seed", "3"],
    "compare-swf": ["compare", "--trace", "{swf}", "--orgs", "3", "--policies", "rr,currfairshare,ref",
                    "--seed", "5", "--split", "zipf"],
    "backfill-easy": ["backfill", "--trace", "{swf}", "--fairness", "fst-strict,fst-relaxed,re"],
    "backfill-conservative-lxf": ["backfill", "--trace", "{swf}", "--order", "lxf", "--backfill", "conservative",
                                  "--load", "0.9", "--fairness", "re"],
    "mosp-uni-mocca-ilba": ["mosp", "--orgs", "4", "--jobs", "40", "--procs", "8", "--algorithm", "mocca+ilba",
                            "--seed", "7"],
    "mosp-swf-rnd": ["mosp", "--generate", "swf", "--orgs", "3", "--jobs", "30", "--procs", "16", "--algorithm",
                     "mocca", "--local-order", "rnd", "--seed", "2"],
    "openshop-equal": ["openshop", "--jobs", "15", "--machines", "4", "--algorithm", "pba,kmaxmin,sptf,fifo",
                       "--seed", "4"],
    "openshop-linear-online": ["openshop", "--jobs", "15", "--machines", "4", "--utilities", "linear", "--online",
                               "--seed", "9"],
}


def _drop_timings(document: object) -> object:
    if isinstance(document, dict):
        return {key: _drop_timings(value) for key, value in document.items() if key not in TIMING_KEYS}
    if isinstance(document, list):
        return [_drop_timings(value) for value in document]
    return document


def normalized_hashes(out: Path, tmp: Path) -> dict[str, str]:
    """sha256 of every file under `out` after normalization (module docstring); PNGs map to ``"png"``."""
    hashes: dict[str, str] = {}
    for path in sorted(out.rglob("*")):
        if not path.is_file():
            continue
        key = path.relative_to(out).as_posix()
        if path.suffix == ".png":
            hashes[key] = "png"
            continue
        if path.suffix == ".html":  # report.html inlines the PNG figures (see above)
            hashes[key] = "html"
            continue
        data = path.read_bytes().replace(str(tmp).encode(), b"<TMP>")
        if path.name == "report.json":
            data = json.dumps(_drop_timings(json.loads(data)), indent=1, sort_keys=True).encode()
        hashes[key] = hashlib.sha256(data).hexdigest()
    return hashes


def run_case(name: str, tmp: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    swf = small_swf(tmp / "small.swf")
    out = tmp / "out"
    args = [arg.replace("{swf}", str(swf)) for arg in CASES[name]] + ["--out", str(out)]
    code, _, err = run_main(args, capsys)
    assert code == 0, err
    return normalized_hashes(out, tmp)


@pytest.mark.parametrize("name", list(CASES))
def test_outputs_match_the_recorded_hashes(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hashes = run_case(name, tmp_path, capsys)
    golden = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    if RECORD:
        golden[name] = hashes
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(dict(sorted(golden.items())), indent=2, sort_keys=True) + "\n")
        return
    assert name in golden, f"no golden hashes for {name}: record them (module docstring)"
    assert hashes == golden[name]


def test_every_case_has_golden_hashes_and_writes_files() -> None:
    golden = json.loads(GOLDEN.read_text())
    assert set(golden) == set(CASES)
    for name, hashes in golden.items():
        assert "report.json" in hashes, name
        assert sum(value not in ("png", "html") for value in hashes.values()) >= 2, name
