"""Speed of schedule validation and psi recomputation on large valid schedules; prints one JSON document.

    .venv/bin/python benchmarks/bench_validate.py

Schedules are synthetic and valid by construction: every machine runs jobs back to back, each released at its
start (so greedy, FIFO per organization by release, and capacity all hold).
"""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd

from fairsched.online.metrics import psi_from_schedule
from fairsched.online.validate import check_online_schedule
from fairsched.scenario import Scenario


def back_to_back(n_jobs: int, n_machines: int, n_orgs: int, seed: int) -> tuple[Scenario, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    per = n_jobs // n_machines
    duration = rng.integers(1, 20_000, size=(n_machines, per))
    start = np.concatenate([np.zeros((n_machines, 1), np.int64), np.cumsum(duration, axis=1)[:, :-1]], axis=1)
    machine = np.repeat(np.arange(n_machines), per)
    start, duration = start.ravel(), duration.ravel()
    order = np.lexsort((machine, start))
    start, duration, machine = start[order], duration[order], machine[order]
    job = np.arange(1, start.size + 1)
    org = rng.integers(0, n_orgs, start.size)
    jobs = pd.DataFrame({"job": job, "org": org, "release": start, "processing_time": duration,
                         "copies": np.ones(start.size, np.int64)})
    scenario = Scenario(jobs=jobs, machine_owner=np.repeat(np.arange(n_orgs), n_machines // n_orgs),
                        n_orgs=n_orgs)
    schedule = pd.DataFrame({"job": job, "org": org, "release": start, "start": start, "end": start + duration,
                             "machine": machine})
    return scenario, schedule


def timed(function, *args, **kwargs) -> tuple[float, float, object]:
    """Wall and CPU seconds of one call, and its value."""
    t0, cpu = time.perf_counter(), time.process_time()
    value = function(*args, **kwargs)
    return round(time.perf_counter() - t0, 3), round(time.process_time() - cpu, 3), value


def main() -> None:
    rows = []
    for n_jobs, n_machines in ((200_000, 1024), (7_200_000, 8192)):
        scenario, schedule = back_to_back(n_jobs, n_machines, 8, seed=0)
        check_online_schedule(schedule.iloc[:100], scenario)  # JIT warm-up
        seconds, cpu, violations = timed(check_online_schedule, schedule, scenario)
        t_end = int(schedule["end"].max())
        psi_seconds, psi_cpu, _ = timed(psi_from_schedule, schedule, 8, t_end)
        rows.append({"rows": len(schedule), "machines": n_machines, "check_online_schedule_s": seconds,
                     "check_online_schedule_cpu_s": cpu, "violations": len(violations),
                     "psi_from_schedule_s": psi_seconds, "psi_from_schedule_cpu_s": psi_cpu})
    print(json.dumps({"benchmark": "validate", "results": rows}, indent=1))


if __name__ == "__main__":
    main()
