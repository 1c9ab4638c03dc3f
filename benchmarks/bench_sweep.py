"""Overhead of the sweep layer; prints one JSON document (figures go to docs/performance.md).

    .venv/bin/python benchmarks/bench_sweep.py [--cells 200] [--cell-s 0.5] [--workers 2] [--tpds11]

* ``overhead``: a sweep of ``--cells`` cells of ``--cell-s`` seconds of CPU work each (`sweep_bench_model`) on
  ``--workers`` local processes; ``ideal_s`` = Σ cell times / workers (each cell times itself), ``ratio`` = wall
  clock (process start-up and every file included) / ideal (issue 11 target: ≤ 1.15 for 200 cells of 0.5 s on
  2 cores).
* ``tpds11`` (with ``--tpds11``): the TPDS'11 homogeneous and local-policies experiments (4,800 instances, 52,800
  validated schedules) with ``--workers`` workers, wall clock: ``sweep_s`` through `fairsched.replicate.tpds11.run`
  (the sweep layer, store included), ``loop_s`` through the hand-written loop it replaced (chunks of 40 instances
  mapped over a spawn ProcessPoolExecutor), ``ratio`` = sweep / loop (issue 11 target: ≤ 1.2).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # spawned workers import benchmarks.sweep_bench_model from here

from benchmarks.sweep_bench_model import busy  # noqa: E402

from fairsched.sweep import run_sweep  # noqa: E402
from fairsched.sweep.results import load_rows  # noqa: E402


def overhead(cells: int, cell_s: float, workers: int) -> dict[str, float]:
    started = time.perf_counter()
    busy(20)
    rounds = max(1, round(20 * cell_s / (time.perf_counter() - started)))
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "bench.toml"
        spec.write_text(f'[sweep]\nmodel = "benchmarks.sweep_bench_model"\n[base]\nwork = {rounds}\n'
                        f"[grid]\nindex = {list(range(cells))}\n")
        started = time.perf_counter()
        summary = run_sweep(spec, Path(folder) / "store", workers=workers)
        wall = time.perf_counter() - started
        rows, _ = load_rows(Path(folder) / "store")
    assert summary.computed == cells and summary.failed == 0
    ideal = float(rows["cell_s"].sum()) / workers
    return {"cells": cells, "workers": workers, "mean_cell_s": round(float(rows["cell_s"].mean()), 3),
            "wall_s": round(wall, 2), "ideal_s": round(ideal, 2), "ratio": round(wall / ideal, 3)}


def tpds11_sweep(workers: int) -> dict[str, float]:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from benchmarks.sweep_bench_model import solve_chunk

    from fairsched.replicate import tpds11

    experiments = ("homogeneous", "local-policies")
    specs = [tpds11.InstanceSpec(experiments, dist, orgs, jobs, m, 0, i,
                                 tpds11.instance_seed(0, 0, d, orgs, jobs, m, i), True)
             for d, dist in enumerate(tpds11.DISTS) for orgs in tpds11.ORGS for jobs in tpds11.JOBS
             for m in tpds11.PROCS for i in range(50)]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        loop = [r for records in pool.map(solve_chunk, [specs[i:i + 40] for i in range(0, len(specs), 40)])
                for r in records]
    loop_s = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        result = tpds11.run(tpds11.TPDS11Config(jobs=workers, experiments=experiments, store=Path(folder) / "s"))
        sweep_s = time.perf_counter() - started
    assert result.scores["score"].tolist() == [r["score"] for r in loop]  # the same 52,800 schedules
    return {"instances": len(specs), "schedules": len(loop), "workers": workers, "loop_s": round(loop_s, 2),
            "sweep_s": round(sweep_s, 2), "ratio": round(sweep_s / loop_s, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=200)
    parser.add_argument("--cell-s", type=float, default=0.5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tpds11", action="store_true")
    args = parser.parse_args()
    doc = {"overhead": overhead(args.cells, args.cell_s, args.workers)}
    if args.tpds11:
        doc["tpds11"] = tpds11_sweep(args.workers)
    print(json.dumps(doc, indent=2))


if __name__ == "__main__":
    main()
