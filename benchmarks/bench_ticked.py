"""Ticked queue orders (drf, directcontr, slurm-fair-tree, slurm-classic) against FCFS on a whole trace; prints
one JSON document.

    .venv/bin/python benchmarks/bench_ticked.py [--traces DIR] [--trace NAME] [--calc-period S] [--repeat N]

Organizations are the trace's groups (SWF field 13); every order runs under EASY, the Slurm orders also under
conservative backfilling and under the ``slurm`` rule (Slurm's main and backfill schedulers, bf_interval 30 s,
bf_window 1 day, bf_max_job_test 500), FCFS too under ``slurm``, with their default parameters (docs/whatif.md,
docs/backfill.md). Times (``cpu_s``, this process's CPU
time, and ``wall_s``) are the best of ``--repeat`` runs and exclude reading and JIT warm-up; FCFS is the floor
measured in the same run (docs/whatif.md, "Cost").
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from fairsched.backfill import BackfillJobs, jobs_from_workload, simulate
from fairsched.workload.clean import clean
from fairsched.workload.swf import read_swf

SHARED = Path(__file__).resolve().parents[2] / "shared"
DEFAULT_TRACES = Path(os.environ.get("FAIRSCHED_TRACES", SHARED / "traces"))
ORDERS = ("fcfs", "drf", "directcontr", "slurm-fair-tree", "slurm-classic")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--trace", default="SDSC-SP2-1998-4.2-cln.swf.gz")
    parser.add_argument("--calc-period", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    workload = read_swf(args.traces / args.trace)
    n_procs = workload.header_int("MaxProcs")
    workload = clean(workload, max_processors=n_procs)[0]
    jobs = jobs_from_workload(workload, n_processors=n_procs)
    org = np.unique(workload.jobs["group_id"].to_numpy(), return_inverse=True)[1]
    span = float(jobs.submit[-1] - jobs.submit[0])
    out = {"trace": args.trace, "n_jobs": jobs.n_jobs, "processors": n_procs, "n_orgs": int(org.max()) + 1,
           "days": span / 86400, "ticks": int(span // args.calc_period), "runs": []}
    warm = BackfillJobs.from_arrays(jobs.submit[:100], jobs.run[:100], jobs.procs[:100], jobs.requested[:100],
                                    n_processors=n_procs)
    cases = [(order, "easy") for order in ORDERS] + [(order, "conservative") for order in ORDERS[-2:]]
    cases += [("fcfs", "slurm")] + [(order, "slurm") for order in ORDERS[-2:]]
    for order, backfill in cases:
        params = {} if order == "fcfs" else {"org": org, "calc_period": args.calc_period}
        simulate(warm, order=order, backfill=backfill, order_params={**params, "org": org[:100]} if params else None)
        best, wall, result = np.inf, np.inf, None
        for _ in range(args.repeat):
            t, w = time.process_time(), time.perf_counter()
            result = simulate(jobs, order=order, backfill=backfill, order_params=params or None)
            best, wall = min(best, time.process_time() - t), min(wall, time.perf_counter() - w)
        out["runs"].append({"order": order, "backfill": backfill, "cpu_s": round(best, 3), "wall_s": round(wall, 3),
                            "mean_wait_s": round(float(result.schedule["wait"].mean()), 1)})
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
