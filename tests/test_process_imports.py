"""What a whole `fairsched backfill` process imports (issue #22 §2): heavy libraries only where they are used.

Each case runs the command in a fresh interpreter and lists the heavy modules left in ``sys.modules``, so a
module-level import added anywhere on the path shows up here (benchmarks/bench_process.py measures the cost).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("pandas", "matplotlib", "scipy")
SWF = ("; MaxProcs: 4\n"
       "1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n"
       "2 1 0 5 4 -1 -1 4 10 -1 1 2 1 -1 1 -1 -1 -1\n"
       "3 2 0 3 1 -1 -1 1 5 -1 1 1 1 -1 1 -1 -1 -1\n")


def loaded_after(args: list[str]) -> tuple[dict, list[str]]:
    """Run ``fairsched <args> --json`` in a fresh interpreter: its JSON document and the heavy modules loaded."""
    code = ("import json, sys\nfrom fairsched.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n"
            "    assert not e.code, e.code\n"
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    run = subprocess.run([sys.executable, "-c", code, *args, "--json"], capture_output=True, text=True, check=True)
    *document, modules = run.stdout.strip().splitlines()
    return json.loads("\n".join(document)), json.loads(modules)


@pytest.fixture(scope="module")
def swf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("process") / "three.swf"
    path.write_text(SWF)
    return path


@pytest.fixture(scope="module")
def backfill_run(swf: Path) -> tuple[dict, list[str]]:
    """One plain `fairsched backfill` process (no --out), shared by the checks below (a process takes seconds)."""
    return loaded_after(["backfill", "--trace", str(swf), "--backfill", "easy"])


def test_backfill_without_out_draws_nothing_so_imports_no_matplotlib(backfill_run: tuple[dict, list[str]]) -> None:
    report, modules = backfill_run
    assert report["workload"]["n_jobs"] == 3
    assert "matplotlib" not in modules


def test_backfill_with_out_imports_matplotlib_for_its_gantt_chart(swf: Path, tmp_path: Path) -> None:
    """The check above can fail: the same probe sees matplotlib once a figure is drawn."""
    _, modules = loaded_after(["backfill", "--trace", str(swf), "--out", str(tmp_path / "out")])
    assert (tmp_path / "out" / "gantt.png").stat().st_size > 0
    assert "matplotlib" in modules


def test_backfill_path_imports_no_pandas(backfill_run: tuple[dict, list[str]]) -> None:
    assert "pandas" not in backfill_run[1]


def test_a_second_backfill_process_loads_every_kernel_from_numba_cache(swf: Path) -> None:
    """The kernels on the path come from numba's on-disk cache: nothing is compiled again (a miss costs seconds
    to minutes per process). ``NUMBA_DEBUG_CACHE`` makes numba say what it loads and saves."""
    import os

    command = [sys.executable, "-m", "fairsched", "backfill", "--trace", str(swf), "--backfill", "easy", "--json"]
    env = {**os.environ, "NUMBA_DEBUG_CACHE": "1"}
    subprocess.run(command, capture_output=True, text=True, check=True, env=env)  # fills the cache if it was cold
    second = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    said = second.stdout + second.stderr
    assert "[cache] data loaded" in said
    assert "[cache] data saved" not in said, [line for line in said.splitlines() if "data saved" in line]
