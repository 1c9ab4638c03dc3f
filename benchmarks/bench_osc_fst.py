"""The cost of JSSPP'05 on OSC: one simulation and its strict FST what-ifs, FCFS × conservative at 90 % load, on the
first k of the 5,000 jobs the replication uses (scaled to the load as a whole: OSC's first jobs alone cannot reach
90 %; the FST of job j depends only on jobs 0..j, so the first k FSTs are those of the full run), for growing k
(docs/replication/jsspp05.md, "OSC"). Prints JSON: per n, seconds for the
simulation and for the strict what-ifs, the queue length at arrivals, and the top functions of a cProfile run.

    python benchmarks/bench_osc_fst.py [--jobs 250,500,1000] [--load 0.9] [--profile 500] [--csv FILE]

``--csv`` also writes the runs (without the profile) as CSV, e.g. docs/replication/data/jsspp05_osc_cost.csv.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import time

import numpy as np

from fairsched.backfill import fairness
from fairsched.backfill.engine import simulate
from fairsched.backfill.jobs import jobs_from_workload
from fairsched.replicate.jsspp05 import TRACES, default_traces_dir
from fairsched.workload.clean import clean
from fairsched.workload.swf import read_swf
from fairsched.workload.transform import first_jobs, offered_load, scale_to_load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", default="250,500,1000")
    parser.add_argument("--subset", type=int, default=5000)
    parser.add_argument("--load", type=float, default=0.9)
    parser.add_argument("--backfill", default="conservative")
    parser.add_argument("--profile", type=int, default=500, help="profile the run of this many jobs (0: none)")
    parser.add_argument("--csv", default=None)
    args = parser.parse_args()
    workload = read_swf(default_traces_dir() / TRACES["OSC"])
    procs = workload.header_int("MaxProcs")
    cleaned, _ = clean(workload, max_processors=procs)
    out = {"trace": "OSC", "processors": procs, "load": args.load, "backfill": args.backfill, "runs": []}
    subset = first_jobs(cleaned, args.subset)
    scaled = scale_to_load(subset, args.load, procs, how="runtime")
    for n in (int(x) for x in args.jobs.split(",")):
        jobs = jobs_from_workload(first_jobs(scaled, n), n_processors=procs)
        tick = time.perf_counter()
        result = simulate(jobs, order="fcfs", backfill=args.backfill)
        simulate_s = time.perf_counter() - tick
        profiler = cProfile.Profile() if n == args.profile else None
        tick = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        fairness.fair_start_times(jobs, order="fcfs", backfill=args.backfill, kind="strict",
                                  schedule=result.schedule)
        if profiler is not None:
            profiler.disable()
        whatif_s = time.perf_counter() - tick
        schedule = result.schedule
        waiting = np.searchsorted(np.sort(schedule["start"].to_numpy()), schedule["submit"].to_numpy(),
                                  side="right")
        queue = np.arange(len(schedule)) + 1 - waiting  # jobs arrived but not started at each arrival
        run = {"jobs": n, "own_load": offered_load(subset, procs), "simulate_s": simulate_s,
               "strict_whatifs_s": whatif_s, "mean_queue_at_arrival": float(queue.mean()),
               "max_queue_at_arrival": int(queue.max())}
        if profiler is not None:
            text = io.StringIO()
            pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(8)
            run["profile_top"] = [line.strip() for line in text.getvalue().splitlines()
                                  if line.strip() and line.strip()[0].isdigit()][:8]
        out["runs"].append(run)
    print(json.dumps(out, indent=1))
    if args.csv:
        import pandas as pd

        from fairsched.report.export import write_csv

        write_csv(pd.DataFrame([{k: v for k, v in run.items() if k != "profile_top"} for run in out["runs"]]),
                  args.csv)


if __name__ == "__main__":
    main()
