"""Backfilling engine speed; prints one JSON document (figures go to docs/performance.md and docs/backfill.md).

    .venv/bin/python benchmarks/bench_backfill.py [--traces DIR] [--oracles DIR] [--repeat N] [--no-what-if]

* ``full``: the whole cleaned CTC-SP2 trace (77,205 jobs, 338 processors), every order × backfilling rule;
  targets (issue #4 §5): EASY < 1 s, conservative < 10 s.
* ``oracle``: the two 10,000-job pyss oracle inputs under pyss's three policies, beside pyss's own run times
  (from ../shared/oracles/pyss/README.md).
* ``what_if``: the stepping core's cost for fair-start-time-style what-ifs (JSSPP'05 §3.1): for every job of the
  first 5,000 CTC-SP2 jobs under FCFS × EASY, pause at its arrival, fork the live state and run until the job
  starts as if no later job arrived (strict) — the primitive section 2 of the issue builds on.

Times (wall ``seconds`` and ``cpu_s``, this process's CPU time) are the best of ``--repeat`` runs and exclude reading
and JIT warm-up.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from fairsched.backfill import BackfillJobs, BackfillSimulator, jobs_from_workload, simulate
from fairsched.backfill.policies import backfill_names, order_names
from fairsched.workload.clean import clean
from fairsched.workload.swf import read_swf
from fairsched.workload.transform import first_jobs

SHARED = Path(__file__).resolve().parents[2] / "shared"
DEFAULT_TRACES = Path(os.environ.get("FAIRSCHED_TRACES", SHARED / "traces"))
DEFAULT_ORACLES = Path(os.environ.get("FAIRSCHED_ORACLES", SHARED / "oracles" / "pyss"))
CTC = ("CTC-SP2-1996-3.1-cln.swf.gz", 338)
ORACLE_CASES = ("SDSC-SP2-1998-4.2-cln", "CTC-SP2-1996-3.1-cln")
PYSS_SECONDS = {("SDSC-SP2-1998-4.2-cln", "fcfs"): 0.4, ("SDSC-SP2-1998-4.2-cln", "easy"): 2.0,
                ("SDSC-SP2-1998-4.2-cln", "cons"): 3.1, ("CTC-SP2-1996-3.1-cln", "fcfs"): 0.5,
                ("CTC-SP2-1996-3.1-cln", "easy"): 12.2, ("CTC-SP2-1996-3.1-cln", "cons"): 23.0}
PYSS_POLICIES = {"fcfs": "none", "easy": "easy", "cons": "conservative"}


def best_of(repeat: int, run) -> tuple[float, float]:
    """Best wall and best CPU seconds of `repeat` runs."""
    best = best_cpu = float("inf")
    for _ in range(repeat):
        t0, cpu = time.perf_counter(), time.process_time()
        run()
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return round(best, 4), round(best_cpu, 4)


def warm_up() -> None:
    tiny = BackfillJobs.from_arrays([0, 0, 1, 5], [5, 100, 10, 5], [2, 2, 4, 2], [10, 100, 10, 5], n_processors=6)
    for order in order_names():
        for backfill in backfill_names():
            simulate(tiny, order=order, backfill=backfill)
    sim = BackfillSimulator(tiny, "fcfs", "easy")
    sim.run(pause_before=3)
    sim.fork().run_until_started(3, submit_limit=4)


def ctc_jobs(traces: Path) -> BackfillJobs | None:
    path = traces / CTC[0]
    if not path.exists():
        return None
    workload, _ = clean(read_swf(path), max_processors=CTC[1])
    return jobs_from_workload(workload, n_processors=CTC[1])


def bench_full(jobs: BackfillJobs, repeat: int) -> list[dict]:
    rows = []
    for order in order_names():
        for backfill in backfill_names():
            seconds, cpu = best_of(repeat, lambda o=order, b=backfill: simulate(jobs, order=o, backfill=b))
            rows.append({"order": order, "backfill": backfill, "seconds": seconds, "cpu_s": cpu})
    return rows


def bench_oracles(oracles: Path, repeat: int) -> list[dict]:
    rows = []
    for case in ORACLE_CASES:
        path = oracles / f"{case}.swf"
        if not path.exists():
            rows.append({"case": case, "skipped": f"not found in {oracles}"})
            continue
        jobs = jobs_from_workload(read_swf(path))
        for pyss_name, backfill in PYSS_POLICIES.items():
            seconds, cpu = best_of(repeat, lambda b=backfill, j=jobs: simulate(j, order="fcfs", backfill=b))
            rows.append({"case": case, "policy": pyss_name, "seconds": seconds, "cpu_s": cpu,
                         "pyss_seconds": PYSS_SECONDS[(case, pyss_name)]})
    return rows


def bench_what_if(jobs: BackfillJobs, n: int) -> dict:
    """Strict what-if of every job of the first `n` (fork at arrival, run until the job starts)."""
    t0, cpu = time.perf_counter(), time.process_time()
    sim = BackfillSimulator(jobs, "fcfs", "easy")
    scratch = BackfillSimulator(jobs, "fcfs", "easy")
    for job in range(jobs.n_jobs):
        sim.run(pause_before=job)
        sim.fork(into=scratch).run_until_started(job, submit_limit=job + 1)
    sim.run()
    return {"jobs": jobs.n_jobs, "order": "fcfs", "backfill": "easy", "seconds": round(time.perf_counter() - t0, 3),
            "cpu_s": round(time.process_time() - cpu, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--oracles", type=Path, default=DEFAULT_ORACLES)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-what-if", action="store_true")
    args = parser.parse_args()
    warm_up()
    out: dict = {"benchmark": "backfill_engine", "cpu_count": os.cpu_count()}
    jobs = ctc_jobs(args.traces)
    if jobs is None:
        out["full"] = {"skipped": f"{CTC[0]} not found in {args.traces}"}
    else:
        out["full"] = {"trace": CTC[0], "jobs": jobs.n_jobs, "processors": jobs.n_processors,
                       "results": bench_full(jobs, args.repeat)}
        if not args.no_what_if:
            workload, _ = clean(read_swf(args.traces / CTC[0]), max_processors=CTC[1])
            subset = jobs_from_workload(first_jobs(workload, 5000), n_processors=CTC[1])
            out["what_if"] = bench_what_if(subset, 5000)
    out["oracle"] = bench_oracles(args.oracles, args.repeat)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
