"""Unfairness metrics speed (JSSPP'05 §3); prints one JSON document (figures go to docs/backfill.md).

    .venv/bin/python benchmarks/bench_fst.py [--traces DIR] [--repeat N] [--quick]

* ``subset``: strict and relaxed fair start times of every job of the first 5,000 CTC-SP2 jobs, for every queue
  order × reservation depth of the paper (no-guarantee, EASY, conservative); target (issue #4 §5): < 10 s each
  under EASY.
* ``full`` (skipped with ``--quick``): the same for the whole cleaned CTC-SP2 trace (77,205 jobs, 338
  processors) under EASY, each order; target: < 2 min under FCFS × EASY.
* ``re``: resource equality of the whole trace's recorded schedule (start = submit + wait) and of its simulated
  FCFS × EASY schedule.

Times are the best of ``--repeat`` runs (1 for ``full``) and exclude reading, the main simulation of the
measured schedule and JIT warm-up; each FST figure includes `fair_start_times`' own main run.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pandas as pd

from fairsched.backfill import BackfillJobs, jobs_from_workload, simulate
from fairsched.backfill.fairness import fair_start_times, resource_equality, unfairness_summary
from fairsched.workload.clean import clean
from fairsched.workload.model import Workload
from fairsched.workload.swf import read_swf
from fairsched.workload.transform import first_jobs

SHARED = Path(__file__).resolve().parents[2] / "shared"
DEFAULT_TRACES = Path(os.environ.get("FAIRSCHED_TRACES", SHARED / "traces"))
CTC = ("CTC-SP2-1996-3.1-cln.swf.gz", 338)
PAPER_ORDERS = ("fcfs", "sjf", "lxf")
PAPER_DEPTHS = ("no-guarantee", "easy", "conservative")  # JSSPP'05 §4: 0, 1 and all reservations
T = TypeVar("T")


def best_of(repeat: int, run: Callable[[], T]) -> tuple[float, float, T]:
    """Best wall-clock and best CPU time of `repeat` runs, and the last run's result."""
    best = best_cpu = float("inf")
    for _ in range(repeat):
        t0, cpu = time.perf_counter(), time.process_time()
        result = run()
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return round(best, 3), round(best_cpu, 3), result


def warm_up() -> None:
    tiny = BackfillJobs.from_arrays([0, 0, 10, 20], [40, 40, 50, 80], [5, 3, 9, 2], [100, 100, 50, 80],
                                    n_processors=10)
    for order in PAPER_ORDERS:
        for backfill in PAPER_DEPTHS:
            for kind in ("strict", "relaxed"):
                fair_start_times(tiny, order=order, backfill=backfill, kind=kind)
    resource_equality(simulate(tiny).schedule, 10)


def fst_row(jobs: BackfillJobs, order: str, backfill: str, repeat: int) -> dict:
    row: dict = {"order": order, "backfill": backfill}
    fst = {}
    for kind in ("strict", "relaxed"):
        row[f"{kind}_s"], row[f"{kind}_cpu_s"], fst[kind] = best_of(repeat, lambda k=kind: fair_start_times(
            jobs, order=order, backfill=backfill, kind=k))
    summary = unfairness_summary(simulate(jobs, order=order, backfill=backfill).schedule, fst=fst)
    row.update({f"{k}_unfairness": round(summary[f"fst_{k}"]["unfairness"], 1) for k in ("strict", "relaxed")})
    return row


def recorded_schedule(workload: Workload) -> pd.DataFrame:
    jobs = workload.jobs[workload.jobs["wait_time"] >= 0]
    start = jobs["submit_time"] + jobs["wait_time"]
    return pd.DataFrame({"job": jobs["job_number"], "submit": jobs["submit_time"], "start": start,
                         "end": start + jobs["run_time"], "procs": jobs["processors"]})


def bench_re(workload: Workload, jobs: BackfillJobs, repeat: int) -> list[dict]:
    rows = []
    simulated = simulate(jobs, order="fcfs", backfill="easy").schedule
    for name, schedule in (("recorded", recorded_schedule(workload)), ("fcfs-easy", simulated)):
        seconds, cpu, re = best_of(repeat, lambda s=schedule: resource_equality(s, jobs.n_processors))
        rows.append({"schedule": name, "jobs": len(schedule), "seconds": seconds, "cpu_s": cpu,
                     "unfairness": round(unfairness_summary(schedule, re=re)["re"]["unfairness"], 1)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="skip the whole-trace FST runs")
    args = parser.parse_args()
    out: dict = {"benchmark": "unfairness_metrics", "cpu_count": os.cpu_count()}
    path = args.traces / CTC[0]
    if not path.exists():
        out["skipped"] = f"{CTC[0]} not found in {args.traces}"
        print(json.dumps(out, indent=1))
        return
    warm_up()
    workload, _ = clean(read_swf(path), max_processors=CTC[1])
    subset = jobs_from_workload(first_jobs(workload, 5000), n_processors=CTC[1])
    out["subset"] = {"trace": CTC[0], "jobs": subset.n_jobs, "processors": CTC[1],
                     "results": [fst_row(subset, o, b, args.repeat) for o in PAPER_ORDERS for b in PAPER_DEPTHS]}
    jobs = jobs_from_workload(workload, n_processors=CTC[1])
    if not args.quick:
        out["full"] = {"trace": CTC[0], "jobs": jobs.n_jobs, "processors": CTC[1],
                       "results": [fst_row(jobs, o, "easy", 1) for o in PAPER_ORDERS]}
    out["re"] = bench_re(workload, jobs, args.repeat)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
