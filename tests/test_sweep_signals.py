"""A real ``fairsched sweep`` process interrupted mid-run: SIGKILL then a rerun gives exactly the results of an
uninterrupted run; SIGINT or SIGTERM stops it within seconds with exit code 130, a one-line resume hint and no
process left behind (the process tree is checked with psutil)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from fairsched.sweep import run_sweep
from tests.test_sweep import parts, write_spec

ROOT = Path(__file__).resolve().parents[1]  # `python -m` from here imports tests._toy_model


def start_sweep(spec: Path, out: Path, *extra: str, session: bool = False) -> subprocess.Popen[str]:
    """``fairsched sweep`` in a subprocess (in a session of its own with `session`, so that a signal can go to its
    whole process group, as a terminal's Ctrl-C does)."""
    env = {**os.environ, "FAIRSCHED_TOY_SLEEP": "0.25"}
    return subprocess.Popen([sys.executable, "-m", "fairsched", "sweep", str(spec), "--out", str(out), *extra],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=session)


def wait_for_parts(out: Path, n: int, process: subprocess.Popen[str], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while len(list((out / "cells").glob("*.parquet"))) < n:
        assert process.poll() is None, f"the sweep ended early: {process.communicate()}"
        assert time.monotonic() < deadline, "no progress"
        time.sleep(0.05)


def descendants(pid: int) -> list[psutil.Process]:
    return psutil.Process(pid).children(recursive=True)


def assert_all_gone(processes: list[psutil.Process], timeout: float = 10.0) -> None:
    _, alive = psutil.wait_procs(processes, timeout=timeout)
    assert not alive, f"left behind: {[(p.pid, p.cmdline()) for p in alive]}"


def slow_spec(folder: Path) -> Path:
    return write_spec(folder, "[grid]\norgs = [1, 2, 3, 4, 5, 6, 7, 8]\n", seeds="4")


def test_sigkill_then_rerun_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    spec = slow_spec(tmp_path)
    process = start_sweep(spec, tmp_path / "killed", "--workers", "2")
    wait_for_parts(tmp_path / "killed", 4, process)
    workers = descendants(process.pid)
    assert workers, "expected worker processes"
    process.kill()
    process.communicate()
    assert_all_gone(workers)  # orphaned workers notice and exit
    interrupted = len(parts(tmp_path / "killed"))
    assert 4 <= interrupted < 32
    summary = run_sweep(spec, tmp_path / "killed", workers=1)  # without the delay, in this process
    assert (summary.reused, summary.computed, summary.failed) == (interrupted, 32 - interrupted, 0)
    run_sweep(spec, tmp_path / "whole", workers=1)
    assert parts(tmp_path / "killed") == parts(tmp_path / "whole")
    assert not list((tmp_path / "killed" / "cells").glob(".*"))  # no temporary file left


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupt_stops_within_seconds_and_leaves_no_process(tmp_path: Path, sig: signal.Signals) -> None:
    spec = slow_spec(tmp_path)
    process = start_sweep(spec, tmp_path / "out", "--workers", "2")
    wait_for_parts(tmp_path / "out", 2, process)
    tree = descendants(process.pid)
    assert len(tree) >= 2
    sent = time.monotonic()
    os.kill(process.pid, sig)
    _, stderr = process.communicate(timeout=10)
    assert time.monotonic() - sent < 10
    assert process.returncode == 130
    done = len(parts(tmp_path / "out"))
    assert stderr.strip().splitlines()[-1] == (f"interrupted: {done} of 32 cells done and kept; run `fairsched sweep "
                                               f"{spec} --out {tmp_path / 'out'}` to resume")
    assert_all_gone(tree, timeout=5)


def test_ctrl_c_stops_a_dask_sweep_within_seconds_and_leaves_no_process(tmp_path: Path) -> None:
    """``--executor dask`` (a LocalCluster): a terminal's Ctrl-C (SIGINT to the whole process group, workers
    included) stops it within 10 s with exit code 130, the resume hint and no traceback, and no worker, nanny or
    scheduler process is left (the nanny and the scheduler live in the main process, the workers are its
    children)."""
    spec = slow_spec(tmp_path)
    process = start_sweep(spec, tmp_path / "out", "--executor", "dask", "--workers", "2", session=True)
    wait_for_parts(tmp_path / "out", 2, process, timeout=120.0)
    tree = descendants(process.pid)
    assert len(tree) >= 2, f"expected the cluster's worker processes: {[p.cmdline() for p in tree]}"
    sent = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=10)
    assert time.monotonic() - sent < 10
    assert process.returncode == 130
    assert "Traceback" not in stderr, stderr
    done = len(parts(tmp_path / "out"))
    assert stderr.strip().splitlines()[-1] == (f"interrupted: {done} of 32 cells done and kept; run `fairsched sweep "
                                               f"{spec} --out {tmp_path / 'out'}` to resume")
    assert_all_gone(tree, timeout=5)


@pytest.mark.parametrize("when", ["workers-starting", "mid-run"])
def test_ctrl_c_to_the_process_group_stops_a_local_sweep_without_a_traceback(tmp_path: Path, when: str) -> None:
    """A terminal's Ctrl-C (SIGINT to the whole process group, workers included) on ``--workers 2``: exit code 130,
    the resume hint as the only line on stderr (no ``InvalidStateError: CANCELLED`` traceback from the pool's
    thread, no KeyboardInterrupt from a worker still importing), and no process of the group left (issue 21)."""
    spec = slow_spec(tmp_path)
    process = start_sweep(spec, tmp_path / "out", "--workers", "2", session=True)
    if when == "mid-run":
        wait_for_parts(tmp_path / "out", 2, process)
    else:  # two workers and the resource tracker exist; the workers may still be importing
        deadline = time.monotonic() + 60
        while len(descendants(process.pid)) < 3:
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.01)
    tree = descendants(process.pid)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=20)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "Exception" not in stderr, stderr
    done = len(parts(tmp_path / "out"))
    assert stderr.strip().splitlines() == [f"interrupted: {done} of 32 cells done and kept; run `fairsched sweep "
                                           f"{spec} --out {tmp_path / 'out'}` to resume"]
    assert_all_gone(tree, timeout=5)
    assert not [p for p in psutil.process_iter(["pid"]) if _in_group(p, process.pid)]


def _in_group(process: psutil.Process, group: int) -> bool:
    try:
        return os.getpgid(process.pid) == group
    except (ProcessLookupError, psutil.NoSuchProcess):
        return False
