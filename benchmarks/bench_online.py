"""Online engine speed on real traces; prints one JSON document (figures go to docs/performance.md).

    .venv/bin/python benchmarks/bench_online.py [--traces DIR] [--only lpc|ricc] [--policies a,b]

LPC-EGEE: the whole cleaned trace (214k runnable jobs), 5 organizations, 140 machines.
RICC: the whole trace expanded to sequential jobs (~7.2M), 8192 machines, 5 organizations.
Times (wall ``seconds``, ``cpu_s`` this process's CPU time; one run each) exclude reading and JIT warm-up;
``peak_rss_mb`` is the process's peak resident memory so far.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

from fairsched.online.engine import simulate
from fairsched.online.policies import get_policy
from fairsched.scenario import build_scenario, scenario_from_arrays
from fairsched.workload.clean import clean
from fairsched.workload.swf import read_swf

DEFAULT_TRACES = Path(os.environ.get("FAIRSCHED_TRACES", Path(__file__).resolve().parents[2] / "shared" / "traces"))
CASES = {
    "lpc": ("LPC-EGEE-2004-1.2-cln.swf.gz", 140),
    "ricc": ("RICC-2010-2.swf.gz", 8192),
}


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def warm_up(policies: list[str]) -> None:
    tiny = scenario_from_arrays([0, 0, 1], [2, 1, 1], [0, 1, 0], [1, 1])
    for name in policies:
        simulate(tiny, get_policy(name))


def bench_case(path: Path, machines: int, policies: list[str]) -> dict:
    t0 = time.perf_counter()
    workload, _ = clean(read_swf(path), max_processors=machines)
    scenario = build_scenario(workload, n_orgs=5, n_machines=machines, split="uniform", seed=0)
    row = {"trace": path.name, "records": len(scenario.jobs), "sequential_jobs": scenario.n_sequential_jobs,
           "machines": machines, "orgs": 5, "prepare_s": round(time.perf_counter() - t0, 2), "policies": {}}
    for name in policies:
        t0, cpu = time.perf_counter(), time.process_time()
        result = simulate(scenario, get_policy(name), seed=0)
        row["policies"][name] = {"seconds": round(time.perf_counter() - t0, 2),
                                 "cpu_s": round(time.process_time() - cpu, 2), "t_end": result.t_end,
                                 "peak_rss_mb": round(peak_rss_mb())}
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--only", choices=sorted(CASES), default=None)
    parser.add_argument("--policies", default="roundrobin,fairshare,directcontr")
    args = parser.parse_args()
    policies = args.policies.split(",")
    warm_up(policies)
    rows = []
    for key, (name, machines) in CASES.items():
        if args.only and key != args.only:
            continue
        path = args.traces / name
        if not path.exists():
            rows.append({"trace": name, "skipped": f"not found in {args.traces}"})
            continue
        rows.append(bench_case(path, machines, policies))
    print(json.dumps({"benchmark": "online_engine", "cpu_count": os.cpu_count(), "results": rows}, indent=1))


if __name__ == "__main__":
    main()
