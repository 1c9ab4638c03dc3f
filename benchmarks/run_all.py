"""Run the benchmark scripts of this folder; print their JSON documents as one JSON list, or save one file each.

    .venv/bin/python benchmarks/run_all.py [--save DIR] [--only read_swf,validate,...]

Each script runs in its own process with the arguments docs/performance.md quotes (`RUNS`). With ``--save DIR``
(``make bench`` saves into ``docs/performance/data``) every script's document is written to ``DIR/<name>.json``
together with what makes a figure worth comparing: the UTC date, the git commit (and whether the tree had
uncommitted changes), the machine (CPUs, platform, Python), the load average before and after, and the script's
wall and CPU time (user + system of the child process and its own children). ``benchmarks/perf_tables.py``
renders docs/performance.md's tables from those files. A script that fails is reported with its last error line
and saves nothing, so a failed run never replaces a good measurement.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# name -> the script's arguments, as docs/performance.md quotes them. Scripts not listed here run without arguments.
RUNS: dict[str, tuple[str, ...]] = {
    "online": ("--policies", "roundrobin,fairshare,utfairshare,currfairshare,directcontr"),
    "sweep": ("--tpds11",),
    "cli": ("--repeat", "3"),
    "audit": ("--cases", "lpc-k5,lpc-k10,sdsc-28k-users,sdsc-users"),
    "ref": ("--ks", "2,3,4,5,6,7,8,9,10,12"),  # k = 12 on the whole trace: the target case (< 10 min)
}
# Scripts that are not a row of docs/performance.md: run only when named with --only.
ON_DEMAND: frozenset[str] = frozenset({"osc_fst", "heap_ab"})  # heap_ab needs --before COMMIT


def parse_output(stdout: str) -> Any:
    """A script prints one (possibly indented) JSON document, or one JSON object per line (then: their list).

    Lines before the document that are not JSON (a solver's banner on stdout) are skipped. Raises ValueError
    when no JSON is found.
    """
    decoder = json.JSONDecoder()
    lines = stdout.splitlines(keepends=True)
    for first, line in enumerate(lines):
        if not line.lstrip().startswith(("{", "[")):
            continue
        rest = "".join(lines[first:]).strip()
        try:
            document, end = decoder.raw_decode(rest)
        except json.JSONDecodeError:
            continue
        if not rest[end:].strip():
            return document
        objects = [json.loads(text) for text in rest.splitlines() if text.strip().startswith("{")]
        return objects
    raise ValueError("no JSON document in the script's output")


def run_one(name: str) -> dict[str, Any]:
    """Run ``bench_<name>.py`` in a child process; its document with the measurement's context."""
    script = HERE / f"bench_{name}.py"
    command = [sys.executable, str(script), *RUNS.get(name, ())]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before = os.getloadavg()
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    record = provenance(name, ["python", f"benchmarks/{script.name}", *RUNS.get(name, ())], load_before, wall,
                        (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    if done.returncode != 0:
        return {**record, "error": done.stderr.strip().splitlines()[-1:]}
    try:
        return {**record, "result": parse_output(done.stdout)}
    except ValueError as error:  # a malformed line too: json.JSONDecodeError is a ValueError
        return {**record, "error": [str(error)]}


def provenance(benchmark: str, command: list[str], load_before: tuple[float, float, float], wall_s: float,
               cpu_s: float) -> dict[str, Any]:
    """The context every saved measurement carries: what ran, when, at which commit, on what, under what load."""
    return {
        "benchmark": benchmark,
        "command": command,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": _git("rev-parse", "--short", "HEAD"),
        "uncommitted_changes": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "wall_s": round(wall_s, 2),
        "cpu_s": round(cpu_s, 2),
    }


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], capture_output=True, text=True, check=False, cwd=ROOT)
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", type=Path, default=None, help="write DIR/<name>.json per script")
    parser.add_argument("--only", default=None, help="comma-separated names (bench_<name>.py)")
    args = parser.parse_args(argv)
    every = sorted(path.stem.removeprefix("bench_") for path in HERE.glob("bench_*.py"))
    names = [n.strip() for n in args.only.split(",") if n.strip()] if args.only else \
        [n for n in every if n not in ON_DEMAND]
    unknown = sorted(set(names) - set(every))
    if unknown:
        parser.error(f"no benchmark {', '.join(unknown)}; choose from {', '.join(every)}")
    documents = []
    for name in names:
        record = run_one(name)
        documents.append(record)
        if args.save is not None and "error" not in record:
            args.save.mkdir(parents=True, exist_ok=True)
            path = args.save / f"{name}.json"
            tmp = path.with_suffix(".json.tmp")
            tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
            tmp.replace(path)  # atomic: a killed run leaves the previous measurement
        print(f"{name}: {'error ' + str(record['error']) if 'error' in record else 'done'} "
              f"({record['wall_s']} s wall, {record['cpu_s']} s CPU)", file=sys.stderr)
    if args.save is None:
        print(json.dumps(documents, indent=1))


if __name__ == "__main__":
    main()
