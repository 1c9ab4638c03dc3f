"""What a whole `fairsched backfill` process imports (issue #22 §2): heavy libraries only where they are used.

Each case runs the command in a fresh interpreter and lists the heavy modules left in ``sys.modules``, so a
module-level import added anywhere on the path shows up here (benchmarks/bench_process.py measures the cost).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("pandas", "matplotlib", "scipy")
SWF = ("; MaxProcs: 4\n"
       "1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n"
       "2 1 0 5 4 -1 -1 4 10 -1 1 2 1 -1 1 -1 -1 -1\n"
       "3 2 0 3 1 -1 -1 1 5 -1 1 1 1 -1 1 -1 -1 -1\n")


def loaded_after(args: list[str], *, as_json: bool = True) -> tuple[dict | str, list[str]]:
    """Run ``fairsched <args> --json`` in a fresh interpreter: its JSON document (without ``--json``: the text it
    printed) and the heavy modules loaded."""
    code = ("import json, sys\nfrom fairsched.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n"
            "    assert not e.code, e.code\n"
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    argv = [sys.executable, "-c", code, *args, *(["--json"] if as_json else [])]
    run = subprocess.run(argv, capture_output=True, text=True, check=True, env={**os.environ, "COLUMNS": "120"})
    *document, modules = run.stdout.strip().splitlines()
    return json.loads("\n".join(document)) if as_json else "\n".join(document), json.loads(modules)


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
    """The JSON document of a plain run (read, clean, simulate, validate, metrics) comes without pandas."""
    report, modules = backfill_run
    assert report["metrics"]["mean_wait"] == 3.0  # waits 0, 9, 0: job 2 (4 processors) waits for job 1, job 3 backfills
    assert "pandas" not in modules


def test_backfill_tables_with_a_window_and_load_scaling_import_no_pandas(swf: Path) -> None:
    """The terminal tables, and the preparation steps the plain run skipped (first N, load scaling), neither."""
    text, modules = loaded_after(["backfill", "--trace", str(swf), "--backfill", "conservative", "--first", "2",
                                  "--load", "0.5"], as_json=False)
    assert "fcfs × conservative" in text and "0.500" in text  # the offered load after scaling
    assert "pandas" not in modules and "matplotlib" not in modules  # scipy comes with numba (its BLAS wrappers)


def test_the_probe_sees_pandas_where_a_table_is_built(swf: Path, tmp_path: Path) -> None:
    """The checks above can fail: ``--fairness`` builds the per-job table with pandas (the same probe sees it)."""
    report, modules = loaded_after(["backfill", "--trace", str(swf), "--fairness", "re"])
    assert report["unfairness"]["re"]["n_unfair"] >= 0
    assert "pandas" in modules


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


def test_only_the_console_command_freezes_the_garbage_collector(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """`main()` as the console command (argv None) freezes the collector before the process ends, so that Python's
    exit skips collecting numba's objects (docs/performance.md); `main(args)` in a caller's process never does."""
    import gc

    from fairsched.cli import main

    frozen: list[bool] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    main(["--version"])
    assert frozen == []
    monkeypatch.setattr(sys, "argv", ["fairsched", "--version"])
    main()
    assert frozen == [True]
    assert capsys.readouterr().out.startswith("fairsched ")
