"""Whole-process timings of the `fairsched` command (start-up, reading, simulation, validation, output).

Each case runs the installed console script in a fresh process, ``--repeat`` times (default 3), and keeps the best
wall time and the best CPU time (user + system of the child, from ``getrusage``). CPU time is the figure to compare
on a shared machine: wall time grows with the load of other processes, CPU time much less.

The backfill cases run on the pyss oracle's CTC-SP2 input (first 10,000 clean jobs, ../shared/oracles/pyss), whose
README gives pyss's own simulation time on one core (FCFS 0.5 s, EASY 12.2 s, conservative 23.0 s); ``vs_pyss`` is
that time divided by ours. Cases whose input is absent are reported with ``"skipped"``.

Usage: ``.venv/bin/python benchmarks/bench_cli.py [--repeat N]`` (prints one JSON document).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
FAIRSCHED = Path(sys.executable).with_name("fairsched")
ORACLE_CTC = SHARED / "oracles" / "pyss" / "CTC-SP2-1996-3.1-cln.swf"
LPC = SHARED / "traces" / "LPC-EGEE-2004-1.2-cln.swf.gz"
PYSS_CTC_S = {"fcfs": 0.5, "easy": 12.2, "conservative": 23.0}  # ../shared/oracles/pyss/README.md


def cases(out: Path) -> list[tuple[str, list[str], Path | None, float | None]]:
    """(name, arguments, input file needed, pyss seconds) of every case."""
    backfill = ["backfill", "--trace", str(ORACLE_CTC), "--order", "fcfs"]
    return [
        ("--help", ["--help"], None, None),
        ("--version", ["--version"], None, None),
        ("trace info LPC-EGEE", ["trace", "info", str(LPC)], LPC, None),
        ("backfill easy CTC-SP2 10k", [*backfill, "--backfill", "easy"], ORACLE_CTC, PYSS_CTC_S["easy"]),
        ("backfill conservative CTC-SP2 10k", [*backfill, "--backfill", "conservative"], ORACLE_CTC,
         PYSS_CTC_S["conservative"]),
        ("backfill conservative CTC-SP2 10k --out", [*backfill, "--backfill", "conservative", "--out",
                                                     str(out / "bf")], ORACLE_CTC, PYSS_CTC_S["conservative"]),
    ]


def timed(args: list[str]) -> tuple[float, float]:
    """(wall, cpu) seconds of one run of ``fairsched ARGS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([str(FAIRSCHED), *args], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    out = Path(tempfile.mkdtemp(prefix="bench_cli."))
    results = []
    try:
        timed(["backfill", "--trace", str(ORACLE_CTC), "--first", "100"]) if ORACLE_CTC.exists() else None  # JIT cache
        for name, args, needs, pyss in cases(out):
            if needs is not None and not needs.exists():
                results.append({"case": name, "skipped": f"{needs} not found"})
                continue
            runs = [timed(args) for _ in range(repeat)]
            wall, cpu = min(r[0] for r in runs), min(r[1] for r in runs)
            row = {"case": name, "command": "fairsched " + " ".join(args), "wall_s": round(wall, 3),
                   "cpu_s": round(cpu, 3)}
            if pyss is not None:
                row |= {"pyss_s": pyss, "vs_pyss_wall": round(pyss / wall, 1), "vs_pyss_cpu": round(pyss / cpu, 1)}
            results.append(row)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    load = os.getloadavg()[0]
    print(json.dumps({"repeat": repeat, "load_average_1min": round(load, 2), "cpus": os.cpu_count(),
                      "cases": results}, indent=2))


if __name__ == "__main__":
    main()
