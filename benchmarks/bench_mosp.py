"""Multi-organization makespan model speed; prints one JSON document (figures go to docs/performance.md).

    .venv/bin/python benchmarks/bench_mosp.py [--repeat N] [--jobs W]

* ``single``: one uni and one swf instance with n = 500, N = 20, m = 512 through every algorithm (issue #5 §5
  target: MOCCA+ILBA < 0.2 s); best of ``--repeat`` runs, after JIT warm-up.
* ``sweep``: `fairsched replicate tpds11` homogeneous experiment (4,800 instances × local, MOCCA, MOCCA+ILBA, plus
  the 38,400 local-policy runs of Fig. 10 on the same instances) with ``--jobs`` workers (target: the 4,800
  instances with all algorithms < 2 minutes on 2 cores), wall clock including process start-up.
"""

from __future__ import annotations

import argparse
import json
import time

from fairsched.mosp import solve
from fairsched.mosp.generate import generate
from fairsched.mosp.policies import ALGORITHMS
from fairsched.replicate import tpds11


def single(repeat: int) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """Best wall and best CPU seconds per instance kind and algorithm."""
    wall: dict[str, dict[str, float]] = {}
    cpu: dict[str, dict[str, float]] = {}
    for kind in ("uni", "swf"):
        instance = generate(kind, n_orgs=20, n_jobs=500, procs=512, seed=1)
        wall[kind], cpu[kind] = {}, {}
        for name in ALGORITHMS:
            solve(instance, name)  # JIT warm-up
            best = best_cpu = float("inf")
            for _ in range(repeat):
                started, cpu_started = time.perf_counter(), time.process_time()
                solve(instance, name)
                best = min(best, time.perf_counter() - started)
                best_cpu = min(best_cpu, time.process_time() - cpu_started)
            wall[kind][name], cpu[kind][name] = round(best, 5), round(best_cpu, 5)
    return wall, cpu


def sweep(workers: int) -> dict[str, float]:
    started = time.perf_counter()
    result = tpds11.run(tpds11.TPDS11Config(jobs=workers, experiments=("homogeneous", "local-policies")))
    return {"instances": int(len(result.scores[result.scores["experiment"] == "homogeneous"]) // 3),
            "runs": len(result.scores), "workers": workers, "seconds": round(time.perf_counter() - started, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    wall, cpu = single(args.repeat)
    print(json.dumps({"benchmark": "mosp", "single_n500_N20_m512_s": wall, "single_n500_N20_m512_cpu_s": cpu,
                      "homogeneous_sweep": sweep(args.jobs)}, indent=2))


if __name__ == "__main__":
    main()
