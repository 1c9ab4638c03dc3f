"""ILBA, the Iterative Load Balancing Algorithm (TPDS'11 §6): improves any schedule without delaying a job."""

from __future__ import annotations

import numpy as np
from numba import njit

from fairsched.errors import ConfigError
from fairsched.mosp.engine import IdleProfiles, earliest_fit, fits_capacity, reserve
from fairsched.mosp.instance import MospInstance, MospSchedule

__all__ = ["ilba"]


def ilba(instance: MospInstance, schedule: MospSchedule) -> MospSchedule:
    """Rebalance `schedule` from the least to the most loaded cluster (TPDS'11 §6.1).

    Implements ILBA: clusters are sorted by non-decreasing makespan C_max(M_1) <= ... <= C_max(M_N) (ties: the
    least loaded first, by the work Σ q p of the jobs they run, then by index); M_1 keeps its jobs; for
    k = 2..N the jobs executed on M_k are taken off and placed again, in order of their start times (ties by job
    index), each on the cluster of M_1..M_k with the earliest strip of at least q idle processors lasting p (ties:
    the first in the sorted order, i.e. the least loaded). No job starts later than in `schedule` (Prop. 11), so
    no organization's makespan grows; with sequential jobs applied to a local schedule it is a
    (2 - 1/Σm_k)-approximation (Prop. 12), in general unbounded (Prop. 13).

    Parameters
    ----------
    instance : the jobs and clusters.
    schedule : any feasible schedule of them (local, MOCCA, ...); a job is only moved to a cluster wide enough.

    Returns
    -------
    MospSchedule named ``<input's algorithm>+ilba``.

    Deviations
    ----------
    §6.1 does not say how to order clusters of equal makespan. After MOCCA(α) every cluster that received jobs
    ends at αLB; ordering those by index would freeze the most loaded cluster as M_1 when it comes first, so ties
    go to the least loaded ("starting with the least loaded clusters", §6.1).

    Notes
    -----
    O(n N B) for B breakpoints per profile (each placement scans each candidate cluster's profile once).

    Examples
    --------
    >>> inst = MospInstance.from_arrays(procs=[1, 1], owner=[0, 0, 0], runtime=[1, 1, 1], width=[1, 1, 1])
    >>> s = ilba(inst, MospSchedule(cluster=np.array([0, 0, 0]), start=np.array([0, 1, 2])))
    >>> s.cluster.tolist(), s.start.tolist()
    ([1, 0, 1], [0, 0, 1])
    """
    cluster = np.ascontiguousarray(schedule.cluster, dtype=np.int64)
    start = np.ascontiguousarray(schedule.start, dtype=np.int64)
    name = f"{schedule.algorithm}+ilba" if schedule.algorithm else "ilba"
    if instance.n_jobs == 0:
        return MospSchedule(cluster=cluster.copy(), start=start.copy(), algorithm=name)
    if cluster.shape != (instance.n_jobs,) or start.shape != cluster.shape or \
            ((cluster < 0) | (cluster >= instance.n_orgs)).any() or (start < 0).any() or \
            (instance.width > instance.procs[np.clip(cluster, 0, instance.n_orgs - 1)]).any():
        raise ConfigError(f"ilba: the schedule must give each of the {instance.n_jobs} jobs a cluster in "
                          f"0..{instance.n_orgs - 1} at least as wide as the job and a start >= 0")
    end = start + instance.runtime
    if not fits_capacity(instance.procs, cluster, start, instance.runtime, instance.width):
        raise ConfigError("ilba: the input schedule uses more processors than a cluster has; ILBA needs a "
                          "feasible schedule (check it with fairsched.mosp.validate.validate_mosp_schedule)")
    loads = np.zeros(instance.n_orgs, dtype=np.int64)
    np.maximum.at(loads, cluster, end)
    work = np.bincount(cluster, weights=instance.width * instance.runtime, minlength=instance.n_orgs)
    cluster_seq = np.lexsort((np.arange(instance.n_orgs), work, loads))  # M_1..M_N of §6.1
    rank = np.empty(instance.n_orgs, dtype=np.int64)
    rank[cluster_seq] = np.arange(instance.n_orgs)
    job_rank = rank[cluster]
    job_seq = np.lexsort((np.arange(instance.n_jobs), start, job_rank))
    prof = IdleProfiles.empty(instance.procs, 1 + 2 * instance.n_jobs)
    new_cluster, new_start = _ilba_kernel(instance.procs, cluster_seq, job_seq, job_rank, cluster, start,
                                          instance.runtime, instance.width, prof.times, prof.idle, prof.size)
    return MospSchedule(cluster=new_cluster, start=new_start, algorithm=name)


@njit(cache=True)
def _ilba_kernel(procs, cluster_seq, job_seq, job_rank, cluster, start, runtime, width,
                 times, idle, size):  # pragma: no cover - jit
    """Place the jobs in `job_seq` order: rank-0 jobs where they are, the others at the earliest strip among
    the clusters of rank <= their cluster's rank (the first such cluster on ties)."""
    new_cluster, new_start = cluster.copy(), start.copy()
    for j in job_seq:
        k = job_rank[j]
        best_c, best_s = cluster[j], start[j]
        if k > 0:
            best_s = -1
            for r in range(k + 1):
                c = cluster_seq[r]
                if width[j] <= procs[c]:
                    s = earliest_fit(times, idle, size, c, width[j], runtime[j], 0)
                    if best_s < 0 or s < best_s:
                        best_c, best_s = c, s
        reserve(times, idle, size, best_c, best_s, runtime[j], width[j])
        new_cluster[j], new_start[j] = best_c, best_s
    return new_cluster, new_start
