"""Scheduling primitives of the multi-organization model: list scheduling and idle profiles of clusters.

Reference: P.-F. Dutot, F. Pascual, K. Rzadca, D. Trystram, "Approximation algorithms for the
multi-organization scheduling problem", IEEE TPDS 22(11), 2011 ("TPDS'11").

Three building blocks, shared by every algorithm in `fairsched.mosp.policies` (this module imports none of them):

- `list_schedule`: Graham's list scheduling of rigid jobs on one cluster (§3.1), forwards from time 0.
- `IdleProfiles`: for each cluster, the number of idle processors as a step function of time, with the queries
  the algorithms need: the earliest strip of q idle processors lasting p from t0 (ILBA, §6.1), the latest one
  ending by a deadline (backwards placement, Algorithms 2 and 4), C^{>=q} (the earliest time from which q
  processors stay idle until a deadline, §4.3), and reservations.
- `backward_list_schedule`: list scheduling in reversed time from a deadline over several clusters, around the
  jobs already placed (Algorithm 4 step 4; MOCCA phase 2 places jobs backwards the same way).

A job occupies ``[start, start + runtime)``: a job ending at t frees its processors for a job starting at t.
Processors are not numbered: on identical processors a schedule that respects the count of busy processors at
every instant can always be given processor numbers (assign them greedily in start order), so counts suffice.

Numba callers use the kernels directly on ``(times, idle, size)`` (re-exported here: `earliest_fit`,
`latest_fit`, `idle_since`, `min_idle`, `reserve`); Python callers use the `IdleProfiles` methods.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairsched._kernels.profile import TIME_INF as NEVER
from fairsched.errors import ConfigError, InvariantError
from fairsched.mosp._kernels import (
    backward_list_kernel,
    earliest_fit,
    idle_since,
    latest_fit,
    list_schedule_kernel,
    min_idle,
    reserve,
    reserve_jobs,
    segment_at,
)

__all__ = [
    "NEVER",
    "IdleProfiles",
    "backward_list_schedule",
    "earliest_fit",
    "fits_capacity",
    "idle_since",
    "latest_fit",
    "list_schedule",
    "min_idle",
    "reserve",
    "reserve_jobs",
    "segment_at",
]


def fits_capacity(procs: np.ndarray, cluster: np.ndarray, start: np.ndarray, runtime: np.ndarray,
                  width: np.ndarray) -> bool:
    """Whether the jobs (those with ``cluster >= 0``) never use more processors than their cluster has."""
    return not bool((IdleProfiles._reserved(procs, cluster, start, runtime, width).idle < 0).any())


def list_schedule(runtime: np.ndarray, width: np.ndarray, m: int, order: np.ndarray) -> np.ndarray:
    """Start times of Graham's list scheduling of rigid jobs on one cluster of m processors.

    Implements TPDS'11 §3.1: at time t with m' idle processors, start the first job of the list with q <= m'
    (and repeat); when none fits, advance to the next completion. All jobs are available at time 0.

    Parameters
    ----------
    runtime, width : (n,) integer p_j >= 1 and q_j in 1..m.
    m : processors of the cluster.
    order : the list, a permutation of 0..n-1 (e.g. `fairsched.mosp.policies.local.local_order`).

    Returns
    -------
    (n,) int64 start times aligned with `runtime` (not with `order`).

    Notes
    -----
    O(n log n): a heap of completions and a min-segment tree over list positions (first fitting job in
    O(log n)) instead of rescanning the list at each event.

    Examples
    --------
    >>> list_schedule(np.array([2, 3, 1]), np.array([2, 1, 2]), 3, np.array([0, 1, 2])).tolist()
    [0, 0, 2]
    """
    runtime = np.ascontiguousarray(runtime, dtype=np.int64)
    width = np.ascontiguousarray(width, dtype=np.int64)
    order = np.ascontiguousarray(order, dtype=np.int64)
    n = runtime.size
    if runtime.ndim != 1 or width.shape != runtime.shape:
        raise ConfigError(f"list_schedule: runtime and width must be 1-D of equal length; got shapes "
                          f"{runtime.shape} and {width.shape}")
    if m < 1 or (n and (width.min() < 1 or width.max() > m or runtime.min() < 1)):
        raise ConfigError(f"list_schedule: every job needs 1..{m} processors and a run time >= 1 on a cluster of "
                          f"m={m} processors; a wider job can never start there")
    if order.shape != (n,) or not np.array_equal(np.sort(order), np.arange(n)):
        raise ConfigError(f"list_schedule: order must be a permutation of 0..{n - 1}; got {order.tolist()[:10]}")
    return list_schedule_kernel(runtime, width, int(m), order)


@dataclass
class IdleProfiles:
    """Idle processors of N clusters over time, one step function per cluster.

    Row c of ``times``/``idle`` holds ``size[c]`` segments: segment i covers ``[times[c, i], times[c, i+1])``
    (the last one runs to infinity) with ``idle[c, i]`` idle processors; ``times[c, 0] = 0`` and after the last
    reservation all ``procs[c]`` processors are idle. Each reservation adds at most two breakpoints; the arrays
    grow when a row is full.

    Attributes
    ----------
    procs : (N,) processors of each cluster.
    times, idle : (N, capacity) int64 segment starts and idle counts.
    size : (N,) number of segments in use per cluster.

    Examples
    --------
    >>> prof = IdleProfiles.empty(np.array([4]))
    >>> prof.reserve(0, start=0, p=3, q=3)
    >>> prof.earliest_fit(0, q=2, p=2), prof.latest_fit(0, q=2, p=2, deadline=4), prof.idle_since(0, q=2, deadline=9)
    (3, -1, 3)
    """

    procs: np.ndarray
    times: np.ndarray
    idle: np.ndarray
    size: np.ndarray

    @classmethod
    def empty(cls, procs: np.ndarray, capacity: int = 16) -> IdleProfiles:
        """Profiles of idle clusters with room for about ``(capacity - 1) / 2`` reservations per cluster."""
        procs = np.ascontiguousarray(procs, dtype=np.int64)
        capacity = max(int(capacity), 3)
        idle = np.zeros((procs.size, capacity), dtype=np.int64)
        idle[:, 0] = procs
        return cls(procs=procs, times=np.zeros((procs.size, capacity), dtype=np.int64), idle=idle,
                   size=np.ones(procs.size, dtype=np.int64))

    @classmethod
    def of_jobs(cls, procs: np.ndarray, cluster: np.ndarray, start: np.ndarray, runtime: np.ndarray,
                width: np.ndarray, *, spare: int = 0) -> IdleProfiles:
        """Profiles with every job whose ``cluster >= 0`` reserved; room for `spare` more reservations per row.

        The jobs are assumed to respect capacity (checked: `InvariantError` otherwise).
        """
        prof = cls._reserved(procs, cluster, start, runtime, width, spare)
        if (prof.idle < 0).any():
            raise InvariantError("IdleProfiles.of_jobs: the given jobs use more processors than a cluster has")
        return prof

    @classmethod
    def _reserved(cls, procs: np.ndarray, cluster: np.ndarray, start: np.ndarray, runtime: np.ndarray,
                  width: np.ndarray, spare: int = 0) -> IdleProfiles:
        """Profiles with every job of ``cluster >= 0`` reserved, idle counts possibly negative (overbooked)."""
        cluster, start, runtime, width = (np.ascontiguousarray(a, dtype=np.int64)
                                          for a in (cluster, start, runtime, width))
        prof = cls.empty(procs, 1 + 2 * (int((cluster >= 0).sum()) + spare))
        reserve_jobs(prof.times, prof.idle, prof.size, cluster, start, runtime, width)
        return prof

    def segments(self, c: int) -> tuple[np.ndarray, np.ndarray]:
        """(segment starts, idle counts) of cluster c (views)."""
        k = int(self.size[c])
        return self.times[c, :k], self.idle[c, :k]

    def earliest_fit(self, c: int, q: int, p: int, t0: int = 0) -> int:
        """Earliest start s >= t0 with q processors idle on cluster c during [s, s + p); -1 if q > procs[c]."""
        return int(earliest_fit(self.times, self.idle, self.size, c, q, p, t0))

    def latest_fit(self, c: int, q: int, p: int, deadline: int, t_min: int = 0) -> int:
        """Latest start s >= t_min with s + p <= deadline and q processors idle on c during [s, s + p); -1 if none."""
        return int(latest_fit(self.times, self.idle, self.size, c, q, p, deadline, t_min))

    def idle_since(self, c: int, q: int, deadline: int) -> int:
        """C^{>=q} of TPDS'11 §4.3: earliest t from which >= q processors of c stay idle until `deadline`."""
        return int(idle_since(self.times, self.idle, self.size, c, q, deadline))

    def idle_at(self, c: int, t: int) -> int:
        """Idle processors of cluster c at instant t (after the changes at t)."""
        return int(min_idle(self.times, self.idle, self.size, c, t, t + 1))

    def reserve(self, c: int, start: int, p: int, q: int) -> None:
        """Take q processors of cluster c during [start, start + p); `InvariantError` if they are not idle."""
        if start < 0 or (p > 0 and min_idle(self.times, self.idle, self.size, c, start, start + p) < q):
            raise InvariantError(f"IdleProfiles.reserve: cluster {c} lacks {q} idle processors on "
                                 f"[{start}, {start + p})")
        if not reserve(self.times, self.idle, self.size, c, start, p, q):
            self.grow(2 * self.times.shape[1])
            reserve(self.times, self.idle, self.size, c, start, p, q)

    def grow(self, capacity: int) -> None:
        """Make room for ``capacity`` segments per cluster (existing segments are kept)."""
        old = self.times.shape[1]
        if capacity <= old:
            return
        pad = ((0, 0), (0, capacity - old))
        self.times, self.idle = np.pad(self.times, pad), np.pad(self.idle, pad)


def backward_list_schedule(profiles: IdleProfiles, runtime: np.ndarray, width: np.ndarray, order: np.ndarray,
                           deadline: int, clusters: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """List-schedule jobs backwards from `deadline` over several clusters, around what `profiles` holds.

    Implements the backwards list scheduling of TPDS'11 Algorithm 4 step 4 ("list-schedule the unscheduled
    jobs backwards, starting from 4LB, without moving the already scheduled jobs"): Graham's rule in reversed
    time. At each candidate end e — the deadline, then every earlier breakpoint of any cluster's profile,
    decreasing — the first job of `order` that fits on some cluster during [e - p, e) ends at e there (on the
    first such cluster in `clusters`), and the scan repeats; when no job fits, e moves to the previous
    breakpoint. Jobs never start before 0.

    Parameters
    ----------
    profiles : idle profiles of all clusters, updated in place with the jobs placed.
    runtime, width : (n,) arrays of the jobs (only the jobs in `order` are placed).
    order : the list (indices into runtime/width), e.g. HF order.
    deadline : every placed job ends at or before it.
    clusters : the clusters to use, in order of preference (TPDS'11 phase 2 tries M_N first: the smallest).

    Returns
    -------
    (cluster, start) : (n,) int64; cluster = -1 (start 0) for jobs not in `order` and jobs that fit nowhere.

    Notes
    -----
    O(B (log n + N log B) + n N B) in the worst case for B breakpoints over N clusters; the candidate tree skips
    the jobs wider than the largest idle count just before e.

    Examples
    --------
    >>> prof = IdleProfiles.of_jobs(np.array([2]), np.array([0]), np.array([0]), np.array([2]), np.array([2]))
    >>> c, s = backward_list_schedule(prof, np.array([2, 1, 1]), np.array([2, 1, 1]), np.array([1, 2]), 4,
    ...                               np.array([0]))
    >>> c.tolist(), s.tolist()
    ([-1, 0, 0], [0, 3, 3])
    """
    runtime = np.ascontiguousarray(runtime, dtype=np.int64)
    width = np.ascontiguousarray(width, dtype=np.int64)
    order = np.ascontiguousarray(order, dtype=np.int64)
    clusters = np.ascontiguousarray(clusters, dtype=np.int64)
    needed = int(profiles.size.max(initial=1)) + 2 * order.size
    if needed > profiles.times.shape[1]:
        profiles.grow(needed)
    out_cluster = np.full(runtime.size, -1, dtype=np.int64)
    out_start = np.zeros(runtime.size, dtype=np.int64)
    if order.size and clusters.size and deadline > 0:
        backward_list_kernel(profiles.times, profiles.idle, profiles.size, profiles.procs, runtime, width, order,
                             int(deadline), clusters, out_cluster, out_start)
    return out_cluster, out_start
