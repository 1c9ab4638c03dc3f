"""Whole-process timings of the ``fairsched replicate`` commands whose docs used to quote their own run time.

Each case runs the installed console script in a fresh process with a fresh ``--out`` (so nothing is resumed from
an earlier store), ``--repeat`` times (default 1: the full runs take minutes), and keeps the best wall time and the
best CPU time (user + system of the command and of its worker processes, from ``getrusage``). CPU time is the
figure to compare on a shared machine. One warm-up run of the quick Networking'20 case fills numba's cache first.
Cases whose traces are absent are reported with ``"skipped"``.

Usage: ``.venv/bin/python benchmarks/bench_replicate.py [--repeat N] [--only NAME ...]`` (prints one JSON
document; NAME is a case name, e.g. ``"networking20 --quick"``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from pathlib import Path

from bench_cli import timed  # the same fresh-process (wall, CPU) measurement

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT.parent / "shared" / "traces"
GOOGLE = TRACES / "google-clusterdata-2011-2"
CTC = TRACES / "CTC-SP2-1996-3.1-cln.swf.gz"

CASES: tuple[tuple[str, tuple[str, ...], Path | None], ...] = (
    ("networking20 --quick", ("replicate", "networking20", "--quick"), GOOGLE),
    ("networking20", ("replicate", "networking20"), GOOGLE),
    ("tpds11 --quick", ("replicate", "tpds11", "--quick"), None),
    ("jsspp05 --quick", ("replicate", "jsspp05", "--quick"), CTC),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=None, help="case names to run (default: all)")
    options = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="bench_replicate."))
    results = []
    try:
        if GOOGLE.exists():
            timed(["replicate", "networking20", "--quick", "--out", str(out / "warm-up")])
        for name, args, needs in CASES:
            if options.only is not None and name not in options.only:
                continue
            if needs is not None and not needs.exists():
                results.append({"case": name, "skipped": f"{needs} not found"})
                continue
            runs = [timed([*args, "--out", str(out / f"{name.replace(' ', '_')}-{i}")])
                    for i in range(options.repeat)]
            results.append({"case": name, "command": "fairsched " + " ".join(args),
                            "wall_s": round(min(r[0] for r in runs), 2), "cpu_s": round(min(r[1] for r in runs), 2)})
    finally:
        shutil.rmtree(out, ignore_errors=True)
    print(json.dumps({"repeat": options.repeat, "load_average_1min": round(os.getloadavg()[0], 2),
                      "cpus": os.cpu_count(), "cases": results}, indent=2))


if __name__ == "__main__":
    main()
