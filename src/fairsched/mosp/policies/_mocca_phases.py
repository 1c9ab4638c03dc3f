"""The phases of MOCCA shared by the formal algorithm (`mocca`) and the experimental variant (`mocca_exp`).

Reference: P.-F. Dutot, F. Pascual, K. Rzadca, D. Trystram, "Approximation algorithms for the
multi-organization scheduling problem", IEEE TPDS 22(11), 2011 ("TPDS'11"), §4.3 Algorithms 1–3 and §7.1.

Clusters are handled through `fairsched.mosp.engine.IdleProfiles` (idle processors of each cluster as a step
function of time). Processors are counted, not numbered; the reading of the paper's processor numbering that this
rests on is stated once, in `idle_since_all`.

Times are integers: the threshold 3LB is replaced by D = floor(3LB) (`fairsched.mosp.metrics.deadline`). Every
start time and run time is an integer, so a job ends after 3LB exactly when it ends after D, and each comparison
MOCCA makes between an integer time and a deadline 3LB - (sum of run times) gives the same answer with D.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from fairsched.mosp.engine import NEVER, IdleProfiles, earliest_fit, reserve, segment_at
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.metrics import deadline
from fairsched.mosp.policies.local import local_schedule


@dataclass(frozen=True)
class Phase1:
    """The outcome of MOCCA's phase 1 (TPDS'11 Algorithm 1).

    Attributes
    ----------
    local : the local schedule (every organization alone, in the chosen local order); defines C_max^loc.
    deadline : D = floor(3LB); the kept jobs end at or before it.
    kept : (n,) bool, the jobs of `local` ending by D; they never move.
    order : the other jobs ("Sorted"), highest first: non-increasing q, ties by job index.
    """

    local: MospSchedule
    deadline: int
    kept: np.ndarray
    order: np.ndarray


def phase1(instance: MospInstance, *, local_order: str = "hf", seed: int = 0, alpha: float = 3.0) -> Phase1:
    """Local schedules up to 3LB; the jobs ending after 3LB are unscheduled and sorted HF (TPDS'11 Algorithm 1).

    `alpha` replaces the threshold 3 (§7.3 runs the experimental variant with 3LB and 4LB).

    Examples
    --------
    >>> inst = MospInstance.from_arrays(procs=[1, 1], owner=[0, 0, 0], runtime=[1, 1, 1], width=[1, 1, 1])
    >>> ph = phase1(inst)  # LB = 3/2, D = floor(9/2) = 4: every job ends by 4
    >>> ph.deadline, ph.kept.tolist(), ph.order.tolist()
    (4, [True, True, True], [])
    """
    local = local_schedule(instance, order=local_order, seed=seed)
    d = deadline(instance, alpha)
    kept = local.start + instance.runtime <= d
    late = np.flatnonzero(~kept)
    order = late[np.argsort(-instance.width[late], kind="stable")]
    return Phase1(local=local, deadline=d, kept=kept, order=order)


def largest_first(procs: np.ndarray) -> np.ndarray:
    """The clusters as TPDS'11 numbers them, M_1..M_N with m_1 >= ... >= m_N (ties by cluster index)."""
    return np.argsort(-np.asarray(procs, dtype=np.int64), kind="stable")


def kept_profiles(instance: MospInstance, ph: Phase1, also_kept: np.ndarray | None = None) -> IdleProfiles:
    """Idle profiles of the clusters running only the kept jobs (and `also_kept`), with room for the others."""
    keep = ph.kept if also_kept is None else ph.kept | also_kept
    cluster = np.where(keep, ph.local.cluster, -1)
    return IdleProfiles.of_jobs(instance.procs, cluster, ph.local.start, instance.runtime, instance.width,
                                spare=int((~keep).sum()) + 1)


@njit(cache=True)
def idle_since_all(times, idle, size, c, m, horizon, out):  # pragma: no cover - jit
    """Fill ``out[1..m]`` with C_c^{>=j}: the earliest t such that at least j processors of cluster c are idle at
    every instant of [t, horizon) (TPDS'11 §4.3); ``out[j] = NEVER`` for j > m is left to the caller.

    The paper numbers processors by non-increasing completion time and reads C^{>=j} as the time from which
    processors m-j+1..m stay idle. Counting idle processors at every instant gives the same values under the best
    numbering (number them greedily backwards in time), never later ones under any numbering, and is what the
    proofs of Prop. 2 and 4 use (the utilization before C^{>=q}). Scans the segments backwards from the horizon:
    C^{>=j} is the end of the last segment before the horizon with fewer than j idle processors (0 if none).
    """
    if horizon <= 0:
        for j in range(1, m + 1):
            out[j] = horizon
        return
    todo = m  # out[1..todo] still unknown
    i = segment_at(times, size, c, horizon - 1)
    while i >= 0 and todo > 0:
        a = idle[c, i]
        if a < todo:
            end = times[c, i + 1] if i + 1 < size[c] else horizon
            end = min(end, horizon)
            for j in range(a + 1, todo + 1):
                out[j] = end
            todo = a
        i -= 1
    for j in range(1, todo + 1):
        out[j] = 0


@njit(cache=True)
def idle_since_table(times, idle, size, procs, horizon):  # pragma: no cover - jit
    """(N, max m + 1) table of C_c^{>=j} (column j; column 0 is 0; NEVER beyond m_c), each cluster up to its
    horizon."""
    table = np.full((procs.size, procs.max() + 1), NEVER, dtype=np.int64)
    for c in range(procs.size):
        table[c, 0] = 0
        idle_since_all(times, idle, size, c, procs[c], horizon[c], table[c])
    return table


@njit(cache=True)
def compact_kernel(times, idle, size, cluster, start, runtime, width, jobs):  # pragma: no cover - jit
    """Advance each job of `jobs`, in that order, to the earliest start on its own cluster where its q processors
    are idle for p (§7.1's compaction); never later than where it is. Updates `start` and the profiles in place
    (rows need room for 2 more breakpoints per job)."""
    for j in jobs:
        c, p, q = cluster[j], runtime[j], width[j]
        reserve(times, idle, size, c, start[j], p, -q)  # take the job out: its own place is a candidate
        s = earliest_fit(times, idle, size, c, q, p, 0)
        reserve(times, idle, size, c, s, p, q)
        start[j] = s


@njit(cache=True)
def phase2_kernel(times, idle, size, procs, runtime, width, order, smallest_first, table, horizon,
                  out_cluster, out_start):  # pragma: no cover - jit
    """TPDS'11 Algorithm 2: each job of `order` (HF), on clusters k = N..1 while it is high there (q > m_k/2),
    ends at D_k on the first one with C_k^{>=q} + p <= D_k, and D_k decreases by p. Returns (n,) bool "placed"
    aligned with `order`.

    `table` holds the C values computed after phase 1; as in Algorithm 1 they are not updated during phase 2
    (the jobs it places all lie after D_k, outside the interval [t, D_k) that defines C). The paper's "q highest
    indexed idle processors" are the q that finish their phase-1 jobs first, idle from C^{>=q} on: counting
    processors (`idle_since_all`) reserves the same number over the same interval.
    """
    placed = np.zeros(order.size, dtype=np.bool_)
    for pos in range(order.size):
        j = order[pos]
        q, p = width[j], runtime[j]
        for c in smallest_first:
            if 2 * q <= procs[c]:  # low on M_k, hence on every larger cluster: "while m_k/2 < q"
                break
            if q <= procs[c] and table[c, q] + p <= horizon[c]:
                horizon[c] -= p
                reserve(times, idle, size, c, horizon[c], p, q)
                out_cluster[j], out_start[j] = c, horizon[c]
                placed[pos] = True
                break
    return placed


@njit(cache=True)
def _configurations(table, procs, clusters, t):
    """(max j with C_k^{>=j} = t over all k (0 if none), min C_k^{>=j} > t (NEVER if none)): Algorithm 3's
    `max_idle` and the next potential start. Rows of `table` are non-decreasing in j."""
    max_idle, nxt = 0, NEVER
    for c in clusters:
        row = table[c, 1:procs[c] + 1]
        j = np.searchsorted(row, t, side="right")  # C^{>=1..j} <= t < C^{>=j+1}
        if j > 0 and row[j - 1] == t:
            max_idle = max(max_idle, j)
        if j < row.size:
            nxt = min(nxt, row[j])
    return max_idle, nxt


@njit(cache=True)
def _place_at(times, idle, size, procs, clusters, table, horizon, q, p, t):
    """Algorithm 3's inner loop for one job: the first cluster k = 1..N with C_k^{>=q} <= t and t + p <= D_k
    gets it at t, and its C values are recomputed up to D_k. Returns the cluster or -1."""
    for c in clusters:
        if q <= procs[c] and table[c, q] <= t and t + p <= horizon[c]:
            reserve(times, idle, size, c, t, p, q)
            idle_since_all(times, idle, size, c, procs[c], horizon[c], table[c])
            return c
    return -1


@njit(cache=True)
def phase3_kernel(times, idle, size, procs, runtime, width, order, largest, table, horizon,
                  out_cluster, out_start):  # pragma: no cover - jit
    """TPDS'11 Algorithm 3 on the jobs `order` (Unscheduled, HF). Returns how many jobs it could not place
    (0 under Theorem 1's hypotheses, Prop. 6).

    potential start <- min C_k^{>=j}; repeat: max_idle <- the largest j with C_k^{>=j} = potential start; the first
    job (HF) with q <= max_idle that fits some cluster k = 1..N (C_k^{>=q} <= potential start and potential start
    + p <= D_k) starts there at the potential start, the C values of M_k are recomputed and the scan restarts at
    the same potential start; when no job fits, the potential start moves to the smallest C_k^{>=j} above it.
    """
    done = np.zeros(order.size, dtype=np.bool_)
    left = order.size
    t = NEVER
    for c in largest:
        t = min(t, table[c, 1])
    while left > 0:
        max_idle, nxt = _configurations(table, procs, largest, t)
        placed = False
        for pos in range(order.size):
            j = order[pos]
            if done[pos] or width[j] > max_idle:
                continue
            c = _place_at(times, idle, size, procs, largest, table, horizon, width[j], runtime[j], t)
            if c >= 0:
                out_cluster[j], out_start[j] = c, t
                done[pos] = True
                left -= 1
                placed = True
                break
        if not placed:
            if nxt == NEVER:  # Prop. 6 says this cannot happen under Theorem 1's hypotheses
                break
            t = nxt
    return left
