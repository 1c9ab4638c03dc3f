"""The audit's fair start times walk the jobs with a compiled sweep (`fairsched.audit.fairness._sweep_kernel`);
the Python sweep it replaced (`_sweep`) is its slow twin: the same jobs need a what-if, and each chosen one is
given the same running jobs in the same (heap) order and the same waiting jobs, on a hand-made log and on a
slice of a real one, recorded and with its starts moved."""

from __future__ import annotations

import dataclasses
import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairsched.audit import fairness, log
from fairsched.audit.log import NEVER
from tests.conftest import trace_path


def _recorded(submit, start, run, cpus) -> log.Recorded:
    start = np.asarray(start, dtype=np.int64)
    run = np.asarray(run, dtype=np.int64)
    n = start.size
    table = pd.DataFrame({"job_id": np.arange(n), "org": np.zeros(n, np.int64),
                          "submit": np.asarray(submit, dtype=np.int64), "start": start, "run": run,
                          "end": np.where(start < NEVER, start + run, NEVER), "cpus": np.asarray(cpus, np.int64),
                          "estimate": np.maximum(run, 1), "memory_mb": np.nan, "billing": np.nan, "gpus": np.nan})
    return log.Recorded(jobs=table, orgs=("a",), members=(("a",),), t_begin=0, t_end=int(table["end"].max()),
                        origin_epoch=0, jobs_read=n, skipped={})


def _twin(recorded: log.Recorded, n_cpus: int) -> tuple[np.ndarray, dict[int, tuple[list[int], list[int]]]]:
    """What `_sweep` gives: each job's kind and each slow job's (running, waiting)."""
    kind = np.zeros(len(recorded.jobs), dtype=np.int8)
    state: dict[int, tuple[list[int], list[int]]] = {}

    def slow(j: int, t: int, running: list[int], waiting: list[int]) -> None:
        kind[j] = fairness._SLOW
        state[j] = (running, waiting)

    fairness._sweep(recorded, n_cpus, slow, lambda j, t: kind.__setitem__(j, fairness._IMMEDIATE))
    return kind, state


def _compiled(recorded: log.Recorded, n_cpus: int) -> tuple[np.ndarray, dict[int, tuple[list[int], list[int]]]]:
    submit, start, run, cpus = (recorded.column(c) for c in ("submit", "start", "run", "cpus"))
    end = np.where(start < NEVER, start + np.maximum(run, 1), NEVER)
    order = np.lexsort((np.arange(start.size), submit))
    kind, who, run_at, running, wait_at, waiting = fairness._sweep_kernel(
        submit, start, end, cpus, order, n_cpus, np.ones(start.size, dtype=np.bool_))
    return kind, {j: (running[run_at[i]:run_at[i + 1]].tolist(), sorted(waiting[wait_at[i]:wait_at[i + 1]].tolist()))
                  for i, j in enumerate(who.tolist())}


def test_a_hand_made_log_keeps_the_heap_order() -> None:
    """4 CPUs. Jobs 0..3 (1 CPU) start at once with ends 50, 40, 30, 20: heapq keeps them as [3, 2, 1, 0]
    (ends 20, 30, 40, 50). Job 4 (2 CPUs) at t=4 finds no CPU free: a what-if; job 5 (never started) none; job 6
    at t=25, after job 3's end, finds job 4 waiting (it starts at 30): a what-if with [2, 0, 1] running (heapq's
    order after popping job 3) and [4] waiting; job 7 at t=60 finds everything done: no what-if."""
    recorded = _recorded(submit=[0, 1, 2, 3, 4, 5, 25, 60], start=[0, 1, 2, 3, 30, NEVER, 40, 60],
                         run=[50, 39, 28, 17, 10, -1, 5, 5], cpus=[1, 1, 1, 1, 2, 1, 1, 1])
    kind, state = _compiled(recorded, 4)
    assert kind.tolist() == [1, 1, 1, 1, 2, 0, 2, 1]
    assert state == {4: ([3, 2, 1, 0], []), 6: ([2, 0, 1], [4])}
    twin_kind, twin_state = _twin(recorded, 4)
    assert twin_kind.tolist() == kind.tolist() and twin_state == state


def _swf_slice(path: Path, n_jobs: int) -> Path:
    out = path / "slice.swf"
    lines, kept = [], 0
    with gzip.open(trace_path("SDSC-SP2-1998-4.2-cln.swf.gz"), "rt") as handle:
        for line in handle:
            lines.append(line)
            kept += not line.startswith(";")
            if kept == n_jobs:
                break
    out.write_text("".join(lines))
    return out


@pytest.mark.traces
def test_the_compiled_sweep_equals_its_twin_on_a_real_slice(tmp_path: Path) -> None:
    """3,000 SDSC-SP2 jobs as recorded, and with a tenth of the starts moved later (longer queues)."""
    workload, fmt = log.read_log(_swf_slice(tmp_path, 3000), "auto")
    recorded = log.recorded_jobs(workload, fmt, org_by=log.default_org_by(fmt))
    start = recorded.column("start").copy()
    rng = np.random.default_rng(5)
    moved = rng.choice(np.flatnonzero(start < NEVER), size=300, replace=False)
    start[moved] += rng.integers(1, 20_000, moved.size)
    delayed = dataclasses.replace(recorded, jobs=recorded.jobs.assign(start=start))
    unsorted = 0
    for case in (recorded, delayed):
        kind, state = _compiled(case, 128)
        twin_kind, twin_state = _twin(case, 128)
        assert np.array_equal(kind, twin_kind)
        assert state == twin_state
        assert (kind == fairness._SLOW).sum() > 50 and (kind == fairness._IMMEDIATE).sum() > 50
        unsorted += sum(running != sorted(running) for running, _ in state.values())
    assert unsorted > 100  # the heap order is tested, not only the sets
    full = fairness.fair_start_times(delayed, 128, sample=40, seed=1)
    assert (full[2] > 1).sum() == 40 and (full[0][full[2] > 1] >= 0).all()
