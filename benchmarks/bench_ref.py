"""REF and RAND speed on LPC-EGEE; prints one JSON document (figures go to docs/performance.md).

    .venv/bin/python benchmarks/bench_ref.py [--traces DIR] [--ks 2,3,...,10] [--window-ks 2,...,14] [--skip-rand]

Scenario of the SPAA'13 replication: the whole cleaned LPC-EGEE trace (214k jobs), 70 machines split uniformly,
seed 0, k organizations. Cases: REF (lookahead) for every k of --ks on the full trace (targets: k = 5 < 20 s,
k = 12 < 10 min on 2 cores), ``ref-literal`` at k = 5, REF for every k of --window-ks on the first 10^6 s (horizon
10^6), and RAND with N = 15 and 75 at k = 5. Each time is one ``engine.simulate`` call: the coalition simulation in
``reset`` (single-threaded), the engine's replay and its checks; reading, cleaning and JIT warm-up excluded.
``seconds`` is wall time, ``cpu_s`` the process's CPU time (user + system) over the same call: on a shared machine
the CPU time is the figure to compare. ``load_average`` is the 1-minute load when the call ended;
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
from fairsched.workload.transform import window

DEFAULT_TRACES = Path(os.environ.get("FAIRSCHED_TRACES", Path(__file__).resolve().parents[2] / "shared" / "traces"))
TRACE = "LPC-EGEE-2004-1.2-cln.swf.gz"
MACHINES = 70
WINDOW = 10**6


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def warm_up() -> None:
    tiny = scenario_from_arrays([0, 0, 0, 1], [2, 1, 1, 1], [0, 1, 0, 2], [1, 1, 1])
    for name in ("ref", "ref-literal", "rand"):
        simulate(tiny, get_policy(name))


def timed(workload, k: int, policy: str, horizon: int | None = None, **params: object) -> dict:
    scenario = build_scenario(workload, n_orgs=k, n_machines=MACHINES, split="uniform", seed=0, horizon=horizon)
    t0, cpu0 = time.perf_counter(), time.process_time()
    result = simulate(scenario, get_policy(policy, **params), seed=0)
    return {"policy": policy, "params": params, "orgs": k, "machines": MACHINES,
            "sequential_jobs": scenario.n_sequential_jobs, "horizon": horizon,
            "seconds": round(time.perf_counter() - t0, 2), "cpu_s": round(time.process_time() - cpu0, 2),
            "load_average": round(os.getloadavg()[0], 2), "t_end": result.t_end, "peak_rss_mb": round(peak_rss_mb())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--ks", default="2,3,4,5,6,7,8,9,10", help="k for REF on the full trace")
    parser.add_argument("--window-ks", default="2,4,6,8,10,12,13,14",
                        help="k for REF on the first 10^6 s ('': skip)")
    parser.add_argument("--skip-rand", action="store_true")
    args = parser.parse_args()
    path = args.traces / TRACE
    if not path.exists():
        print(json.dumps({"benchmark": "ref", "skipped": f"{TRACE} not found in {args.traces}"}))
        return
    warm_up()
    workload, _ = clean(read_swf(path), max_processors=MACHINES)
    rows = [timed(workload, int(k), "ref") for k in args.ks.split(",") if k]
    rows.append(timed(workload, 5, "ref-literal"))
    windowed = window(workload, length=WINDOW)
    rows += [timed(windowed, int(k), "ref", horizon=WINDOW) for k in args.window_ks.split(",") if k]
    if not args.skip_rand:
        rows += [timed(workload, 5, "rand", n_orderings=n) for n in (15, 75)]
    print(json.dumps({"benchmark": "ref", "trace": TRACE, "cpu_count": os.cpu_count(), "results": rows}, indent=1))


if __name__ == "__main__":
    main()
