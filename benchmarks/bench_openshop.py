"""Openshop model speed (Networking'20, issue 6 §6); prints one JSON document (figures go to docs/performance.md).

    .venv/bin/python benchmarks/bench_openshop.py [--traces DIR] [--repeat N] [--jobs N] [--tasks-per-job T]
                                                  [--seed S] [--no-exact]

* ``synthetic``: two Google-sized instances (``--jobs`` 19,000 jobs, 200 machines, about 600,000 tasks): ``heavy``,
  a sparse generator with a heavy-tailed number of tasks per job (log-normal of mean ``--tasks-per-job`` 32, rounded
  up and capped at 200: 30 on average) and log-normal processing times (median 100, up to ~10^5), and ``uniform``,
  `random_instance` with density 0.16 and p_ij uniform in 1..10 (many ties). For each: `evaluate_permutation`
  (random job permutation) and `evaluate_task_order` (random task permutation) throughput in tasks/s (target
  > 10^7), then PBA (equal), generalized PBA (linear), SPTF, LUF (equal and linear), FIFO and k-Max-Min (k = 2);
  target: PBA < 60 s.
  Online (§VII-B): ``heavy`` with arrivals uniform over the paper's 3.3·10^6 s and its intervals (δ₀ = 3.3·10^5 s,
  α = 50, β = 3): PBA re-planning at each boundary, SPTF and FIFO event driven.
* ``google``: `read_google` on the stored clusterdata-2011-2 slice (``--traces``/google-clusterdata-2011-2; skipped
  with a note when absent), then PBA, SPTF, FIFO offline (arrivals set to 0), plus generalized PBA and LUF with
  linear utilities; online PBA, SPTF, FIFO with δ₀ scaled by (arrival span / 3.3·10^6 s).
* ``exact``: brute force (n = 8) and the lexicographic MILP (n = 8, 12, 20), equal utilities, m = 5 machines.

How close the heuristics get to the optimum is measured by `fairsched replicate networking20` (``reach``).

Times are the best of ``--repeat`` runs after JIT warm-up; every schedule timed is checked once by
`fairsched.openshop.validate.validate_openshop_schedule` (not timed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from fairsched.openshop import OpenShopInstance, evaluate_permutation, evaluate_task_order, run_online, solve
from fairsched.openshop.generate import google_like_instance, random_instance
from fairsched.openshop.metrics import lexicographically_fairer
from fairsched.openshop.online import DELTA0_S
from fairsched.openshop.policies.exact import brute_force, lexicographic_milp
from fairsched.openshop.validate import validate_openshop_schedule
from fairsched.workload.google import read_google

SHARED = Path(__file__).resolve().parents[2] / "shared"
DEFAULT_TRACES = Path(os.environ.get("FAIRSCHED_TRACES", SHARED / "traces"))
GOOGLE_DIR = "google-clusterdata-2011-2"
N_MACHINES = 200
# (label, algorithm, utilities, extra parameters) run on the synthetic instances.
SYNTHETIC_RUNS = (("pba", "pba", "equal", {}), ("generalized_pba", "pba", "linear", {}), ("sptf", "sptf", "equal", {}),
                  ("luf_equal", "luf", "equal", {}), ("luf_linear", "luf", "linear", {}),
                  ("fifo", "fifo", "equal", {}), ("kmaxmin_k2", "kmaxmin", "equal", {"k": 2}))
ONLINE_RUNS = ("pba", "sptf", "fifo")
PAPER_HORIZON_S = 3_300_000  # §VII-B: "all the jobs arrive over a time horizon of 3.3 × 10^6 seconds"
GOOGLE_RUNS = (("pba", "pba", "equal", {}), ("sptf", "sptf", "equal", {}), ("fifo", "fifo", "equal", {}),
               ("generalized_pba", "pba", "linear", {}), ("luf_linear", "luf", "linear", {}))


def best_of(repeat: int, run: Callable[[], object]) -> tuple[float, float]:
    """Best wall and best CPU seconds (this process) of `repeat` runs."""
    best = best_cpu = float("inf")
    for _ in range(repeat):
        started, cpu = time.perf_counter(), time.process_time()
        run()
        best = min(best, time.perf_counter() - started)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best, best_cpu


def heavy_instance(n_jobs: int, n_machines: int, tasks_per_job: float, seed: int) -> OpenShopInstance:
    """Sparse Google-like instance (`fairsched.openshop.generate.google_like_instance`)."""
    return google_like_instance(n_jobs, n_machines, tasks_per_job, seed)


def describe(instance: OpenShopInstance) -> dict:
    per_job = np.diff(instance.indptr)
    return {"jobs": instance.n_jobs, "tasks": instance.n_tasks, "machines": instance.n_machines,
            "tasks_per_job_mean": round(float(per_job.mean()), 2), "tasks_per_job_max": int(per_job.max()),
            "task_time_median": float(np.median(instance.task_time)), "task_time_max": int(instance.task_time.max()),
            "max_machine_load": int(instance.machine_loads().max())}


def bench_evaluate(instance: OpenShopInstance, repeat: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    order = rng.permutation(instance.n_jobs)
    task_order = rng.permutation(instance.n_tasks)
    validate_openshop_schedule(instance, evaluate_permutation(instance, order))  # also the JIT warm-up
    validate_openshop_schedule(instance, evaluate_task_order(instance, task_order))
    out = {}
    for name, run in (("evaluate_permutation", lambda: evaluate_permutation(instance, order)),
                      ("evaluate_task_order", lambda: evaluate_task_order(instance, task_order))):
        seconds, cpu = best_of(repeat, run)
        out[name] = {"seconds": round(seconds, 5), "cpu_s": round(cpu, 5),
                     "tasks_per_s": float(f"{instance.n_tasks / seconds:.3g}")}
    return out


def bench_algorithms(instance: OpenShopInstance, runs: tuple, repeat: int) -> dict:
    out = {}
    for label, name, kind, params in runs:
        schedule = solve(instance, name, utilities=kind, **params)  # JIT warm-up, and the schedule checked
        validate_openshop_schedule(instance, schedule)
        seconds, cpu = best_of(repeat, lambda n=name, u=kind, p=params: solve(instance, n, utilities=u, **p))
        out[label] = {"seconds": round(seconds, 4), "cpu_s": round(cpu, 4),
                      "mean_completion": round(float(schedule.completion.mean()), 1)}
    return out


def bench_online(instance: OpenShopInstance, delta0: float, repeat: int) -> dict:
    """`run_online` (§VII-B): PBA re-plans at interval boundaries, SPTF and FIFO are event driven."""
    out: dict = {"delta0_s": round(delta0, 1)}
    for name in ONLINE_RUNS:
        schedule = run_online(instance, name, delta0=delta0)
        validate_openshop_schedule(instance, schedule)
        seconds, cpu = best_of(repeat, lambda n=name: run_online(instance, n, delta0=delta0))
        out[name] = {"seconds": round(seconds, 4), "cpu_s": round(cpu, 4),
                     "mean_delay": round(float((schedule.completion - instance.arrival).mean()), 1)}
    return out


def bench_synthetic(args: argparse.Namespace) -> dict:
    instances = {
        "heavy": heavy_instance(args.jobs, N_MACHINES, args.tasks_per_job, args.seed),
        "uniform": random_instance(args.jobs, N_MACHINES, args.seed, density=0.16, max_time=10, max_priority=10),
    }
    out = {}
    for label, instance in instances.items():
        out[label] = {**describe(instance), **bench_evaluate(instance, args.repeat, args.seed),
                      "algorithms": bench_algorithms(instance, SYNTHETIC_RUNS, args.repeat)}
    heavy = instances["heavy"]
    arrival = np.sort(np.random.default_rng(args.seed).integers(0, PAPER_HORIZON_S + 1, heavy.n_jobs))
    out["heavy"]["online_paper_intervals"] = bench_online(replace(heavy, arrival=arrival), DELTA0_S, args.repeat)
    return out


def bench_google(traces: Path, repeat: int) -> dict:
    directory = traces / GOOGLE_DIR
    if not (directory / "task_events").is_dir():
        return {"skipped": f"{GOOGLE_DIR} not found in {traces} (see docs/openshop.md to get it)"}
    instance, report = read_google(directory)
    read_s, read_cpu = best_of(repeat, lambda: read_google(directory))
    offline = replace(instance, arrival=np.zeros_like(instance.arrival))
    span = int(instance.arrival.max() - instance.arrival.min())
    return {"read_seconds": round(read_s, 3), "read_cpu_s": round(read_cpu, 3), "task_events": report.n_task_events,
            "job_events": report.n_job_events,
            "jobs_kept": report.n_jobs_kept, "tasks_kept": report.n_tasks_kept, **describe(instance),
            "first_arrival_s": int(instance.arrival.min()), "last_arrival_s": int(instance.arrival.max()),
            "arrival_span_hours": round(span / 3600, 2),
            "offline": bench_algorithms(offline, GOOGLE_RUNS, repeat),
            "online_scaled_intervals": bench_online(instance, DELTA0_S * span / PAPER_HORIZON_S, repeat)}


def bench_exact(repeat: int, seed: int) -> dict:
    out = {}
    small = random_instance(8, 5, seed, density=0.5, max_time=10)
    brute = brute_force(small)
    seconds, cpu = best_of(repeat, lambda: brute_force(small))
    out["brute_force_n8"] = {"seconds": round(seconds, 4), "cpu_s": round(cpu, 4)}
    for n in (8, 12, 20):
        instance = small if n == 8 else random_instance(n, 5, seed, density=0.5, max_time=10)
        schedule = lexicographic_milp(instance)
        validate_openshop_schedule(instance, schedule)
        seconds, cpu = best_of(repeat, lambda i=instance: lexicographic_milp(i))
        row = {"seconds": round(seconds, 3), "cpu_s": round(cpu, 3)}
        if n == 8:
            row["same_vector_as_brute_force"] = not (lexicographically_fairer(brute.completion, schedule.completion)
                                                     or lexicographically_fairer(schedule.completion, brute.completion))
        out[f"lexicographic_milp_n{n}"] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=19_000)
    parser.add_argument("--tasks-per-job", type=float, default=32.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-exact", action="store_true", help="skip the brute force and MILP timings")
    args = parser.parse_args()
    out: dict = {"benchmark": "openshop", "cpu_count": os.cpu_count(), "repeat": args.repeat,
                 "synthetic": bench_synthetic(args), "google": bench_google(args.traces, args.repeat)}
    if not args.no_exact:
        out["exact"] = bench_exact(args.repeat, args.seed)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
