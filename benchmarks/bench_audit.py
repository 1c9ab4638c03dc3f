"""CPU time and memory of ``fairsched audit`` on whole real logs; prints one JSON document.

    .venv/bin/python benchmarks/bench_audit.py [--traces DIR] [--cases lpc-k5,lpc-k10,sdsc-28k-users,sdsc-users]

Cases (each in a fresh Python process, after a tiny audit that fills numba's cache and JIT-compiles; every
default of the command otherwise: FCFS + EASY reference, 2,000 fair-start-time what-ifs, 200 sampled orderings
beyond ``--exact-up-to 12``):

* ``lpc-k5``, ``lpc-k10``: the whole cleaned LPC-EGEE log (234,889 jobs, 238 days), its 55 users folded into K
  organizations round robin in order of first appearance by an org map, equal shares: exact Shapley values
  over all 2^K coalitions;
* ``sdsc-28k-users``: the first 28,000 jobs of SDSC-SP2 (until 25,033,036 s, 283 days), ``--org-by user
  --top 213``: 214 organizations (the issue's "28k-job log with 214 organizations"), sampled;
* ``sdsc-users``: the whole SDSC-SP2 log (59,715 jobs, 2 years) ``--org-by user --top 200``: 201
  organizations, sampled.

The game cache is off (``FAIRSCHED_GAME_CACHE=off``: the game is played every time); the replays use
`fairsched.audit._replay.default_threads` threads (every CPU, or ``$FAIRSCHED_THREADS``), whose CPU time
``time.process_time`` adds up. Reported per case: the CPU seconds (user + system, ``time.process_time``; the
machine is shared, so wall time says little) of `run_audit` and of each of its steps (``steps``: read, the
coalitions, fair utilities, usage and dominant shares, fair start times; the rest is the tables), the wall
seconds beside them, the coalitions replayed, the progress reports received during the game, and the peak
resident memory (``ru_maxrss``).
Targets (issue 22 §3): exact K = 10 on LPC-EGEE and 200 sampled orderings of 214 organizations on a 28k-job log
each under 60 s of CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SHARED = Path(__file__).resolve().parents[2] / "shared"
DEFAULT_TRACES = Path(os.environ.get("FAIRSCHED_TRACES", SHARED / "traces"))
LPC = "LPC-EGEE-2004-1.2-cln.swf.gz"
SDSC = "SDSC-SP2-1998-4.2-cln.swf.gz"
CASES: dict[str, dict[str, Any]] = {
    "lpc-k5": {"trace": LPC, "fold_users": 5},
    "lpc-k10": {"trace": LPC, "fold_users": 10},
    "sdsc-28k-users": {"trace": SDSC, "org_by": "user", "until": "25033036", "top": 213},
    "sdsc-users": {"trace": SDSC, "org_by": "user", "top": 200},
}


def one(traces: Path, name: str) -> dict[str, Any]:
    os.environ["FAIRSCHED_GAME_CACHE"] = "off"  # the game is measured: played, never read from the cache
    from fairsched.audit import AuditConfig, run_audit
    from fairsched.audit._replay import default_threads

    case = dict(CASES[name])
    trace = traces / case.pop("trace")
    tmp = Path(tempfile.mkdtemp())
    tiny = tmp / "tiny.sacct"
    # job 2 waits for job 1: the fair-start-time what-ifs run (and their kernels load) in the warm-up too
    tiny.write_text("JobID|Account|Submit|Start|Elapsed|NCPUS|Timelimit\n"
                    "1|a|2021-01-01T00:00:00|2021-01-01T00:00:00|00:00:10|2|00:00:20\n"
                    "2|b|2021-01-01T00:00:01|2021-01-01T00:00:10|00:00:05|1|00:00:10\n"
                    "3|b|2021-01-01T00:00:02|2021-01-01T00:00:15|00:00:05|2|00:00:10\n")
    run_audit(AuditConfig(log=tiny))
    run_audit(AuditConfig(log=tiny, exact_up_to=0, samples=2))
    k = case.pop("fold_users", None)
    if k is not None:
        from fairsched.workload.swf import read_swf

        ids = read_swf(trace).jobs["user_id"].tolist()
        users = [str(u) for u in dict.fromkeys(ids)]
        org_map = tmp / "orgs.csv"
        org_map.write_text("key,org\n" + "".join(f"{u},org{i % k:02d}\n" for i, u in enumerate(users)))
        case |= {"org_by": "user", "org_map": org_map}
    steps: dict[str, float] = {}
    game_reports = 0
    last = [time.process_time()]

    def progress(step: str, done: int, total: int) -> None:
        nonlocal game_reports
        now = time.process_time()
        steps[step] = steps.get(step, 0.0) + now - last[0]
        last[0] = now
        game_reports += step.startswith("coalitions")

    cpu0, wall0 = time.process_time(), time.perf_counter()
    result = run_audit(AuditConfig(log=trace, **case), progress=progress)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    game_cpu = sum(t for step, t in steps.items() if step.startswith("coalitions"))
    return {"case": name, "trace": trace.name, "orgs": len(result.orgs), "jobs_used": result.summary["jobs_used"],
            "shapley": result.shapley.method, "samples": result.shapley.n_samples,
            "coalitions": result.summary["coalitions_simulated"], "progress_reports": game_reports,
            "cpu_s": round(cpu, 1), "game_cpu_s": round(game_cpu, 1), "wall_s": round(wall, 1),
            "steps_cpu_s": {step: round(t, 1) for step, t in steps.items()},
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "threads": default_threads()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(one(args.traces, args.one)))
        return
    results = []
    for name in (c.strip() for c in args.cases.split(",") if c.strip()):
        if name not in CASES:
            parser.error(f"no case {name!r}; choose from {', '.join(CASES)}")
        trace = args.traces / CASES[name]["trace"]
        if not trace.exists():
            results.append({"case": name, "skipped": f"{trace} not found"})
            continue
        done = subprocess.run([sys.executable, __file__, "--traces", str(args.traces), "--one", name],
                              capture_output=True, text=True, check=True)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(json.dumps({"benchmark": "audit", "results": results}, indent=2))


if __name__ == "__main__":
    main()
