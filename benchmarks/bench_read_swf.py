"""Time `fairsched.workload.swf.read_swf` on real traces: best of 3, JIT warm-up excluded.

Run: ``.venv/bin/python benchmarks/bench_read_swf.py [TRACES_DIR]`` (default: ``$FAIRSCHED_TRACES`` or
``../shared/traces``). Prints one JSON object per trace, ``{"trace", "records", "seconds", "cpu_s"}`` (wall and
CPU time of this process, each the best of 3);
traces that are absent are skipped. Target: RICC-2010-2 (447,794 records) in < 5 s.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from fairsched.workload.swf import read_swf

TRACES = ("RICC-2010-2.swf.gz", "LPC-EGEE-2004-1.2-cln.swf.gz")
REPEATS = 3


def _warm_up() -> None:
    """Compile (or load from cache) the numba kernels on a one-line file, so timings exclude the JIT."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "warm.swf"
        path.write_text("1 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 1 -1 -1 -1\n")
        read_swf(path)


def bench(path: Path) -> dict[str, object]:
    best = best_cpu = float("inf")
    records = 0
    for _ in range(REPEATS):
        start, cpu = time.perf_counter(), time.process_time()
        workload = read_swf(path)
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - cpu)
        records = workload.read_report.n_records
    return {"trace": path.name, "records": records, "seconds": round(best, 3), "cpu_s": round(best_cpu, 3)}


def main() -> None:
    default = os.environ.get("FAIRSCHED_TRACES", Path(__file__).resolve().parents[2] / "shared" / "traces")
    traces_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(default)
    _warm_up()
    for name in TRACES:
        if (traces_dir / name).exists():
            print(json.dumps(bench(traces_dir / name)))


if __name__ == "__main__":
    main()
