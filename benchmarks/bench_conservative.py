"""Conservative backfilling after the incremental re-planning (issue #22 §1-§2); prints one JSON document.

    .venv/bin/python benchmarks/bench_conservative.py [--traces DIR] [--quick]

* ``unfairness``: fair start times (strict and relaxed, together: `fair_start_times_both`) and resource
  equality of every job of the whole cleaned CTC-SP2 (77,205 jobs, 338 processors) under FCFS × EASY and FCFS ×
  conservative, one run each (CPU time of this process: user + system); the goal is conservative <= 3 × EASY.
* ``twin``: fair start times of the first 5,000 CTC-SP2 jobs under conservative: strict ones with the incremental
  re-planning against the full re-plan it replaced (`conservative.FULL_REPLAN`), and strict + relaxed together
  against kind by kind (`fair_start_times` twice); same results, checked here too.
* ``osc``: strict and relaxed fair start times together of the 5,000 OSC jobs at 90 % load (FCFS ×
  conservative, the replication's subset) and their work W = Σ_j E_j Q_j
  (`fairsched.replicate.jsspp05.ablations.whatif_work`): CPU ns per unit of W, and the JSSPP'05 OSC grid's
  conservative runs predicted from docs/replication/data/jsspp05_osc_grid.csv (ΣW of its 15 runs).

The whole `fairsched backfill` process beside the floor and the peers is `bench_process.py`.

Times exclude JIT compilation (a warm-up runs first; numba caches the machine code). ``--quick`` skips the
whole-trace fair start times.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

from fairsched.backfill import BackfillJobs, jobs_from_workload, simulate
from fairsched.backfill.fairness import fair_start_times, fair_start_times_both, resource_equality
from fairsched.backfill.policies.conservative import FULL_REPLAN
from fairsched.workload.clean import clean
from fairsched.workload.swf import read_swf
from fairsched.workload.transform import first_jobs

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DEFAULT_TRACES = Path(os.environ.get("FAIRSCHED_TRACES", SHARED / "traces"))
CTC = ("CTC-SP2-1996-3.1-cln.swf.gz", 338)
OSC_GRID = ROOT / "docs" / "replication" / "data" / "jsspp05_osc_grid.csv"
T = TypeVar("T")


def cpu(run: Callable[[], T]) -> tuple[float, T]:
    start = time.process_time()
    result = run()
    return round(time.process_time() - start, 3), result


def warm_up() -> None:
    tiny = BackfillJobs.from_arrays([0, 0, 10, 20], [40, 40, 50, 80], [5, 3, 9, 2], [100, 100, 50, 80],
                                    n_processors=10)
    for backfill in ("easy", "conservative", FULL_REPLAN):
        for kind in ("strict", "relaxed"):
            fair_start_times(tiny, order="fcfs", backfill=backfill, kind=kind)
        fair_start_times_both(tiny, order="fcfs", backfill=backfill)
    resource_equality(simulate(tiny).schedule, 10)


def unfairness(jobs: BackfillJobs) -> list[dict]:
    rows = []
    for backfill in ("easy", "conservative"):
        simulate_s, result = cpu(lambda b=backfill: simulate(jobs, order="fcfs", backfill=b))
        row: dict = {"backfill": backfill, "jobs": jobs.n_jobs, "simulate_cpu_s": simulate_s}
        row["fst_cpu_s"], _ = cpu(lambda b=backfill, s=result.schedule: fair_start_times_both(
            jobs, order="fcfs", backfill=b, schedule=s))
        row["re_cpu_s"], _ = cpu(lambda s=result.schedule: resource_equality(s, jobs.n_processors))
        row["total_cpu_s"] = round(row["fst_cpu_s"] + row["re_cpu_s"], 3)
        rows.append(row)
    return rows


def twin(jobs: BackfillJobs) -> dict:
    incremental_s, fast = cpu(lambda: fair_start_times(jobs, order="fcfs", backfill="conservative", kind="strict"))
    full_s, slow = cpu(lambda: fair_start_times(jobs, order="fcfs", backfill=FULL_REPLAN, kind="strict"))
    if not np.array_equal(fast, slow):
        raise SystemExit("the incremental re-planning and the full re-plan disagree")
    apart_s, apart = cpu(lambda: [fair_start_times(jobs, order="fcfs", backfill="conservative", kind=kind)
                                  for kind in ("strict", "relaxed")])
    together_s, together = cpu(lambda: fair_start_times_both(jobs, order="fcfs", backfill="conservative"))
    if not all(np.array_equal(a, b) for a, b in zip(apart, together, strict=True)):
        raise SystemExit("fair_start_times_both and fair_start_times disagree")
    return {"jobs": jobs.n_jobs, "incremental_cpu_s": incremental_s, "full_replan_cpu_s": full_s,
            "same_fair_start_times": True, "apart_cpu_s": apart_s, "together_cpu_s": together_s}


def osc(jobs_count: int) -> dict:
    from fairsched.replicate.jsspp05 import TRACES, default_traces_dir
    from fairsched.replicate.jsspp05.ablations import whatif_work
    from fairsched.workload.transform import scale_to_load

    path = default_traces_dir() / TRACES["OSC"]
    if not path.exists() or not OSC_GRID.exists():
        return {"skipped": f"{path.name} or {OSC_GRID.name} not found"}
    workload = read_swf(path)
    procs = workload.header_int("MaxProcs")
    cleaned, _ = clean(workload, max_processors=procs)
    scaled = scale_to_load(first_jobs(cleaned, 5000), 0.9, procs, how="runtime")  # bench_osc_fst.py's subset
    jobs = jobs_from_workload(first_jobs(scaled, jobs_count), n_processors=procs)
    schedule = simulate(jobs, order="fcfs", backfill="conservative").schedule
    both_s, _ = cpu(lambda: fair_start_times_both(jobs, order="fcfs", backfill="conservative", schedule=schedule))
    queue, events = whatif_work(schedule)
    work = float(np.dot(events, queue))
    import pandas as pd

    grid_work = float(pd.read_csv(OSC_GRID)["work"].sum())
    ns = 1e9 * both_s / work
    grid_s = grid_work * ns * 1e-9
    return {"jobs": jobs_count, "load": 0.9, "both_cpu_s": both_s, "work": work, "ns_per_work": round(ns, 1),
            "grid_work": grid_work, "grid_cpu_s": round(grid_s, 1),
            "grid_minutes_on_2_cores": round(grid_s / 2 / 60, 1),
            "grid_command": "python -m fairsched.replicate.jsspp05.ablations osc (or fairsched replicate jsspp05 "
                            "--grid osc)"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--quick", action="store_true", help="skip the whole-trace fair start times")
    args = parser.parse_args()
    out: dict = {"benchmark": "conservative", "cpu_count": os.cpu_count()}
    path = args.traces / CTC[0]
    if not path.exists():
        out["skipped"] = f"{CTC[0]} not found in {args.traces}"
        print(json.dumps(out, indent=1))
        return
    warm_up()
    workload, _ = clean(read_swf(path), max_processors=CTC[1])
    jobs = jobs_from_workload(workload, n_processors=CTC[1])
    out["twin"] = twin(jobs_from_workload(first_jobs(workload, 5000), n_processors=CTC[1]))
    if not args.quick:
        out["unfairness"] = {"trace": CTC[0], "processors": CTC[1], "results": unfairness(jobs)}
    out["osc"] = osc(5000)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
