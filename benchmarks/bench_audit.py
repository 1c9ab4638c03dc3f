"""Speed and memory of ``fairsched audit`` on the full LPC-EGEE trace; prints one JSON document.

    .venv/bin/python benchmarks/bench_audit.py [--traces DIR] [--orgs 5,10] [--fst-sample N]

For each organization count K, a fresh Python process audits the whole cleaned LPC-EGEE log (234,889 jobs,
238 days) with the defaults of ``fairsched audit`` (FCFS + EASY reference, exact Shapley values over all 2^K
coalitions, 2,000 fair-start-time what-ifs): its users (``--org-by user``; 55 of them, more than K) are folded
into K organizations round robin in order of first appearance by an org map, with equal shares. Reported: the
wall-clock seconds of `run_audit` (reading included, JIT warm-up excluded by a tiny audit first), the seconds
of each step (``steps``: read, coalitions, fair utilities, usage and dominant shares, fair start times; the
rest is the tables), and the peak resident memory of the process (``ru_maxrss``). Targets (issue 10): K = 5
under 60 s, K = 10 under 10 min, < 4 GB.
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

SHARED = Path(__file__).resolve().parents[2] / "shared"
DEFAULT_TRACES = Path(os.environ.get("FAIRSCHED_TRACES", SHARED / "traces"))
LPC = "LPC-EGEE-2004-1.2-cln.swf.gz"


def one(trace: Path, k: int, fst_sample: int) -> dict:
    from fairsched.audit import AuditConfig, run_audit

    tmp = Path(tempfile.mkdtemp())
    tiny = tmp / "tiny.sacct"
    tiny.write_text("JobID|Account|Submit|Start|Elapsed|NCPUS|Timelimit\n"
                    "1|a|2021-01-01T00:00:00|2021-01-01T00:00:00|00:00:05|1|00:00:10\n"
                    "2|b|2021-01-01T00:00:01|2021-01-01T00:00:02|00:00:05|1|00:00:10\n")
    run_audit(AuditConfig(log=tiny))
    run_audit(AuditConfig(log=tiny, reference="online"))
    from fairsched.workload.swf import read_swf

    ids = read_swf(trace).jobs["user_id"].tolist()
    users = ["(none)" if u < 0 else str(u) for u in dict.fromkeys(ids)]
    org_map = tmp / "orgs.csv"
    org_map.write_text("key,org\n" + "".join(f"{u},org{i % k:02d}\n" for i, u in enumerate(users)))
    steps: dict[str, float] = {}
    last = [time.perf_counter()]

    def progress(step: str, done: int, total: int) -> None:
        now = time.perf_counter()
        steps[step] = steps.get(step, 0.0) + now - last[0]
        last[0] = now

    t0 = time.perf_counter()
    result = run_audit(AuditConfig(log=trace, org_by="user", org_map=org_map, fst_sample=fst_sample),
                       progress=progress)
    seconds = time.perf_counter() - t0
    return {"orgs": k, "seconds": round(seconds, 1), "steps": {name: round(t, 1) for name, t in steps.items()},
            "jobs_used": result.summary["jobs_used"], "coalitions": result.summary["coalitions_simulated"],
            "shapley": result.shapley.method, "fst_measured_jobs": result.summary["fst_measured_jobs"],
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--orgs", default="5,10")
    parser.add_argument("--fst-sample", type=int, default=2000)
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    trace = args.traces / LPC
    if not trace.exists():
        print(json.dumps({"benchmark": "audit", "skipped": f"{trace} not found"}))
        return
    if args.one is not None:
        print(json.dumps(one(trace, args.one, args.fst_sample)))
        return
    results = []
    for k in (int(x) for x in args.orgs.split(",")):
        done = subprocess.run([sys.executable, __file__, "--traces", str(args.traces), "--one", str(k),
                               "--fst-sample", str(args.fst_sample)], capture_output=True, text=True, check=True)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(json.dumps({"benchmark": "audit", "trace": LPC, "results": results}, indent=2))


if __name__ == "__main__":
    main()
