"""CPU and wall time of ``fairsched whatif`` with six policies on a real log, game played and game cached; JSON out.

    .venv/bin/python benchmarks/bench_whatif.py [--traces DIR] [--cases sdsc-28k,sdsc-whole]

The command of issue 26's speed goal, whole process (``python -m fairsched whatif LOG --policies
recorded,fcfs,slurm-fair-tree,slurm-classic,drf,directcontr --backfill slurm --json``), each run in a fresh
process after a tiny whatif that fills numba's cache:

* ``cold``: the game cache (`fairsched.audit.game_cache`) empty: the coalition game is played (200 sampled
  orderings beyond 12 organizations) and stored;
* ``warm``: the same command again: the game's values are read from the cache, the six policies replayed;
* ``game off``: ``FAIRSCHED_GAME_CACHE=off`` and ``FAIRSCHED_THREADS=1`` (no cache, one thread): what the command
  cost before the cache and the threads.

Cases: ``sdsc-28k``: SDSC-SP2's first 28,000 jobs (until 25,033,036 s, 283 days, 25,275 started), by group
(the default for SWF): a log of KTH-SP2's size (28k jobs, 11 months; KTH-SP2 itself is not in
``../shared/traces``); ``sdsc-whole``: the whole SDSC-SP2 log (not run unless named). CPU time is user + system
of the child (``RUSAGE_CHILDREN``), threads included: on the shared machine wall time says little.
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
SDSC = "SDSC-SP2-1998-4.2-cln.swf.gz"
POLICIES = "recorded,fcfs,slurm-fair-tree,slurm-classic,drf,directcontr"
CASES: dict[str, dict[str, Any]] = {
    "sdsc-28k": {"trace": SDSC, "flags": ["--until", "25033036"]},
    "sdsc-whole": {"trace": SDSC, "flags": []},
}
DEFAULT_CASES = ("sdsc-28k",)
TINY = ("JobID|Account|Submit|Start|Elapsed|NCPUS|Timelimit\n"
        "1|a|2021-01-01T00:00:00|2021-01-01T00:00:00|00:00:10|2|00:00:20\n"
        "2|b|2021-01-01T00:00:01|2021-01-01T00:00:10|00:00:05|1|00:00:10\n"
        "3|b|2021-01-01T00:00:02|2021-01-01T00:00:15|00:00:05|2|00:00:10\n")


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, float, dict[str, Any]]:
    """(CPU s, wall s, the JSON document) of one whole-process run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "fairsched", *argv], capture_output=True, text=True, env=env,
                          check=True)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, json.loads(done.stdout)


def case(traces: Path, name: str) -> dict[str, Any]:
    """The three runs of one case (module docstring)."""
    spec = CASES[name]
    trace = traces / spec["trace"]
    if not trace.exists():
        return {"case": name, "skipped": f"{trace} not found"}
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "FAIRSCHED_GAME_CACHE": str(Path(tmp) / "games")}
        tiny = Path(tmp) / "tiny.sacct"
        tiny.write_text(TINY)
        _run(["whatif", str(tiny), "--policies", POLICIES, "--backfill", "slurm", "--json"], env)  # compile
        argv = ["whatif", str(trace), *spec["flags"], "--policies", POLICIES, "--backfill", "slurm", "--json"]
        runs = {}
        for label, extra in (("cold", {}), ("warm", {}),
                             ("game off", {"FAIRSCHED_GAME_CACHE": "off", "FAIRSCHED_THREADS": "1"})):
            cpu, wall, doc = _run(argv, {**env, **extra})
            runs[label] = {"cpu_s": round(cpu, 1), "wall_s": round(wall, 1)}
        summary = doc["summary"]
    return {"case": name, "trace": trace.name, "flags": spec["flags"], "jobs_replayed": summary["jobs_replayed"],
            "orgs": len(summary["orgs"]), "shapley": summary["shapley"], "policies": POLICIES.split(","),
            "threads": len(os.sched_getaffinity(0)), "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--cases", default=",".join(DEFAULT_CASES))
    args = parser.parse_args()
    results = []
    for name in (c.strip() for c in args.cases.split(",") if c.strip()):
        if name not in CASES:
            parser.error(f"no case {name!r}; choose from {', '.join(CASES)}")
        results.append(case(args.traces, name))
    print(json.dumps({"benchmark": "whatif", "results": results}, indent=2))


if __name__ == "__main__":
    main()
