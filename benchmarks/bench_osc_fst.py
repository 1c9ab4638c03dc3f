"""The cost of JSSPP'05 on OSC: one simulation and its strict FST what-ifs, FCFS × conservative at 90 % load, on the
first k of the 5,000 jobs the replication uses (scaled to the load as a whole: OSC's first jobs alone cannot reach
90 %; the FST of job j depends only on jobs 0..j, so the first k FSTs are those of the full run), for growing k
(docs/replication/jsspp05.md, "OSC"). Prints JSON: per k, wall and CPU seconds of the simulation and of the strict
what-ifs, the queue length at arrivals, the cost model's work W = Σ_j E_j Q_j
(`fairsched.replicate.jsspp05.ablations.whatif_work`) and CPU nanoseconds per unit of W, and for the profiled
run the function holding most of the time and its share.

    python benchmarks/bench_osc_fst.py [--jobs 1000,2000,3000,4000,5000] [--load 0.9] [--profile 3000] [--csv FILE]
    python benchmarks/bench_osc_fst.py --grid FILE   # every load and order, simulations only: W per run

``--csv`` also writes the runs as CSV (rewritten after each run): docs/replication/data/jsspp05_osc_cost.csv is
``--jobs 1000,2000,3000,4000,5000 --profile 3000 --csv docs/replication/data/jsspp05_osc_cost.csv``, and
docs/replication/data/jsspp05_osc_grid.csv is ``--grid docs/replication/data/jsspp05_osc_grid.csv``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import time
from pathlib import Path

import numpy as np

from fairsched.backfill import fairness
from fairsched.backfill.engine import simulate
from fairsched.backfill.jobs import jobs_from_workload
from fairsched.replicate.jsspp05 import TRACES, default_traces_dir
from fairsched.replicate.jsspp05.ablations import whatif_work
from fairsched.workload.clean import clean
from fairsched.workload.swf import read_swf
from fairsched.workload.transform import first_jobs, offered_load, scale_to_load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", default="1000,2000,3000,4000,5000")
    parser.add_argument("--subset", type=int, default=5000)
    parser.add_argument("--load", type=float, default=0.9)
    parser.add_argument("--backfill", default="conservative")
    parser.add_argument("--profile", type=int, default=3000, help="profile the run of this many jobs (0: none)")
    parser.add_argument("--csv", default=None)
    parser.add_argument("--grid", default=None, metavar="FILE",
                        help="instead: simulate (no what-ifs) every load and order of the replication under --backfill "
                             "on the whole subset, and write each run's work W to FILE (CSV)")
    args = parser.parse_args()
    workload = read_swf(default_traces_dir() / TRACES["OSC"])
    procs = workload.header_int("MaxProcs")
    cleaned, _ = clean(workload, max_processors=procs)
    if args.grid:
        _grid(args.backfill, args.grid)
        return
    out = {"trace": "OSC", "processors": procs, "load": args.load, "backfill": args.backfill, "runs": []}
    subset = first_jobs(cleaned, args.subset)
    scaled = scale_to_load(subset, args.load, procs, how="runtime")
    factor = float(np.median(scaled.jobs["run_time"].to_numpy() / subset.jobs["run_time"].to_numpy()))
    for n in (int(x) for x in args.jobs.split(",")):
        jobs = jobs_from_workload(first_jobs(scaled, n), n_processors=procs)
        load_average = os.getloadavg()[0]
        wall, cpu = time.perf_counter(), time.process_time()
        result = simulate(jobs, order="fcfs", backfill=args.backfill)
        simulate_s, simulate_cpu_s = time.perf_counter() - wall, time.process_time() - cpu
        profiler = cProfile.Profile() if n == args.profile else None
        wall, cpu = time.perf_counter(), time.process_time()
        if profiler is not None:
            profiler.enable()
        fairness.fair_start_times(jobs, order="fcfs", backfill=args.backfill, kind="strict",
                                  schedule=result.schedule)
        if profiler is not None:
            profiler.disable()
        whatif_s, whatif_cpu_s = time.perf_counter() - wall, time.process_time() - cpu
        queue, events = whatif_work(result.schedule)
        work = float(np.dot(events, queue))
        run = {"jobs": n, "own_load": offered_load(subset, procs), "runtime_factor": factor,
               "simulate_s": simulate_s, "simulate_cpu_s": simulate_cpu_s, "strict_whatifs_s": whatif_s,
               "strict_whatifs_cpu_s": whatif_cpu_s, "mean_queue_at_arrival": float(queue.mean()),
               "max_queue_at_arrival": int(queue.max()), "mean_events_until_start": float(events.mean()),
               "work": work, "ns_per_work": 1e9 * whatif_cpu_s / work if work else float("nan"),
               "profile_top_function": "", "profile_top_share": float("nan"),
               "load_average_before": load_average, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
        if profiler is not None:
            stats = pstats.Stats(profiler)
            (path, line, name), entry = max(stats.stats.items(), key=lambda item: item[1][2])  # by own time
            run["profile_top_function"] = f"{'/'.join(Path(path).parts[-2:])}:{line}({name})"
            run["profile_top_share"] = entry[2] / stats.total_tt
            text = io.StringIO()
            pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(8)
            run["profile_top"] = [line.strip() for line in text.getvalue().splitlines()
                                  if line.strip() and line.strip()[0].isdigit()][:8]
        out["runs"].append(run)
        if args.csv:  # after every run, so that an interrupted long run keeps the finished ones
            _write_csv(out["runs"], args.csv)
    print(json.dumps(out, indent=1))


def _grid(backfill: str, path: str) -> None:
    """Every (load, order) of the replication on OSC (its cells' jobs, `jsspp05_cell.prepare`) under `backfill`: the
    simulation's CPU seconds, the queue and the cost model's work W, from which W × the measured nanoseconds per
    unit predict the what-ifs."""
    from fairsched.replicate.jsspp05 import LOADS, ORDERS
    from fairsched.replicate.jsspp05 import cell as jsspp05_cell

    runs = []
    for load in LOADS:
        jobs, _ = jsspp05_cell.prepare(jsspp05_cell.Config(trace="OSC", load=load, backfill=backfill))
        for order in ORDERS:
            cpu = time.process_time()
            result = simulate(jobs, order=order, backfill=backfill)
            queue, events = whatif_work(result.schedule)
            runs.append({"load": load, "order": order, "backfill": backfill, "jobs": jobs.n_jobs,
                         "simulate_cpu_s": time.process_time() - cpu, "mean_queue_at_arrival": float(queue.mean()),
                         "mean_events_until_start": float(events.mean()), "work": float(np.dot(events, queue))})
    print(json.dumps(runs, indent=1))
    _write_csv(runs, path)


def _write_csv(runs: list[dict], path: str) -> None:
    import pandas as pd

    from fairsched._io import write_csv

    write_csv(pd.DataFrame([{k: v for k, v in run.items() if k != "profile_top"} for run in runs]), path)


if __name__ == "__main__":
    main()
