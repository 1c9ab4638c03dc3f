"""How close the Networking'20 heuristics get to the exact max-min fair vector on small random instances (the
``reach`` cell of the replication; the issue asks for it, the paper does not report it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairsched.openshop import solve
from fairsched.openshop.generate import random_instance
from fairsched.openshop.metrics import minmax_key, utilities
from fairsched.openshop.policies.exact import brute_force

__all__ = ["REACH_RUNS", "exact_reach"]


REACH_RUNS: tuple[tuple[str, str, dict[str, int]], ...] = (
    ("pba", "equal", {}), ("kmaxmin", "equal", {"k": 2}), ("kmaxmin", "equal", {"k": 3}),
    ("kmaxmin", "equal", {"k": 7}), ("pba", "linear", {}))


def exact_reach(n_instances: int, *, seed: int, n_jobs: int = 7, n_machines: int = 3) -> list[dict[str, Any]]:
    """How close each heuristic's sorted vector is to the brute-force optimum on random instances
    (`random_instance(n_jobs, n_machines, ·, max_priority=5)`, one seed each from `seed`): the share of instances
    where the whole vector is exact, and the mean / least number of leading (worst-first) coordinates that agree.
    Equal utilities compare completion vectors (min-max); linear ones (generalized PBA) utility vectors (max-min).
    """
    leading: dict[tuple[str, str, int | None], list[int]] = {
        (name, kind, params.get("k")): [] for name, kind, params in REACH_RUNS}
    for child in np.random.SeedSequence(seed).spawn(n_instances):
        instance = random_instance(n_jobs, n_machines, np.random.default_rng(child), max_priority=5)
        run_seed = int(child.generate_state(1)[0])
        best = {kind: brute_force(instance, utilities=kind).completion for kind in ("equal", "linear")}
        for name, kind, params in REACH_RUNS:
            got = solve(instance, name, utilities=kind, seed=run_seed, **params).completion
            leading[name, kind, params.get("k")].append(_leading_equal(instance, got, best[kind], kind))
    return [{"algorithm": name if kind == "equal" else "generalized pba", "utilities": kind, "k": k,
             "instances": n_instances, "n_jobs": n_jobs, "n_machines": n_machines,
             "exact_vector": float(np.mean(np.array(v) == n_jobs)), "leading_mean": float(np.mean(v)),
             "leading_min": int(min(v))}
            for (name, kind, k), v in leading.items()]


def _leading_equal(instance: Any, got: np.ndarray, best: np.ndarray, kind: str) -> int:
    """Leading coordinates of the sorted vectors (worst first) that agree; n when the vector is exact."""
    if kind == "equal":
        a, b = minmax_key(got), minmax_key(best)
    else:
        a, b = np.sort(utilities(instance, got, "linear")), np.sort(utilities(instance, best, "linear"))
    differ = np.flatnonzero(a != b)
    return int(differ[0]) if differ.size else int(a.size)
