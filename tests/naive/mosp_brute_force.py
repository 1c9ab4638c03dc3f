"""Slow, literal twins of the MOSP engine (TPDS'11 §3.1) for the tests: Graham's list scheduling one time unit at
a time, busy grids, earliest strips on a unit grid, and the brute-force optimum of tiny instances (with or without
the local constraint)."""

from __future__ import annotations

import itertools

import numpy as np

from fairsched.mosp.instance import MospInstance
from fairsched.mosp.metrics import local_makespans


def naive_list_schedule(runtime, width, m, order) -> list[int]:
    """Graham's rule read literally, one time unit at a time: at each t, after the completions at t, start
    the first job of the list that fits, rescanning the list from its head after every start."""
    start = [-1] * len(runtime)
    busy_until: list[tuple[int, int]] = []  # (end, width) of running jobs
    t = 0
    while min(start, default=0) < 0:
        busy_until = [(e, q) for e, q in busy_until if e > t]
        idle = m - sum(q for _, q in busy_until)
        placed = True
        while placed:
            placed = False
            for j in order:
                if start[j] < 0 and width[j] <= idle:
                    start[j], idle, placed = t, idle - width[j], True
                    busy_until.append((t + runtime[j], width[j]))
                    break
        t += 1
    return start


def naive_busy(procs, cluster, start, runtime, width, horizon) -> np.ndarray:
    """(N, horizon) processors busy at each unit slot [t, t + 1)."""
    busy = np.zeros((len(procs), horizon), dtype=np.int64)
    for c, s, p, q in zip(cluster, start, runtime, width, strict=True):
        if c >= 0:
            busy[c, s:s + p] += q
    return busy


def earliest_on_grid(free: np.ndarray, q: int, p: int, t0: int = 0) -> int:
    """Earliest s >= t0 with free[s:s+p] >= q on a unit grid (free assumed all-idle past its end)."""
    s = t0
    while not (free[s:s + p] >= q).all():
        s += 1
    return s


def _best_cluster_makespan(instance: MospInstance, jobs: list[int], m: int, limit: np.ndarray | None) -> float:
    """Smallest makespan of `jobs` on one cluster of m over every order (each job at its earliest strip),
    among orders where every job ends by its owner's `limit` (all orders when None); inf if none."""
    best = float("inf")
    horizon = int(instance.runtime[jobs].sum()) + 1
    runtime, width = instance.runtime.tolist(), instance.width.tolist()
    for seq in itertools.permutations(jobs):
        free = [m] * (2 * horizon)
        ends = []
        for j in seq:
            p, q = runtime[j], width[j]
            s = next(t for t in range(horizon) if min(free[t:t + p]) >= q)
            free[s:s + p] = [f - q for f in free[s:s + p]]
            ends.append(s + p)
        if limit is None or all(e <= limit[instance.owner[j]] for j, e in zip(seq, ends, strict=True)):
            best = min(best, max(ends, default=0))
    return best


def brute_force_optimum(instance: MospInstance, *, constrained: bool) -> int:
    """Optimal makespan of a tiny instance: every assignment of jobs to clusters and every order per cluster,
    jobs placed in that order at their earliest strip on a unit grid (every left-shifted schedule arises so).

    With `constrained`, only schedules meeting C_max(O_k) <= C_max^loc(O_k) (HF local schedules) count. Since
    C_max(O_k) is a maximum over clusters, the constraint splits into "each job ends by its owner's local
    makespan" on every cluster, so clusters are optimized independently."""
    limit = local_makespans(instance) if constrained else None
    best, memo = float("inf"), {}
    for assign in itertools.product(range(instance.n_orgs), repeat=instance.n_jobs):
        groups = [tuple(j for j, a in enumerate(assign) if a == c) for c in range(instance.n_orgs)]
        if any(instance.width[j] > instance.procs[c] for c, g in enumerate(groups) for j in g):
            continue
        for c, g in enumerate(groups):
            if (c, g) not in memo:
                memo[c, g] = _best_cluster_makespan(instance, list(g), int(instance.procs[c]), limit)
        best = min(best, max(memo[c, g] for c, g in enumerate(groups)))
    return int(best)
