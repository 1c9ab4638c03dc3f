"""MOCCA(α) for arbitrary local schedules (TPDS'11 §5.2, Algorithm 4; MOCCA(4) by default)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from fairsched.errors import ConfigError
from fairsched.mosp.engine import IdleProfiles, backward_list_schedule, fits_capacity
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.metrics import deadline, lower_bound_exact, org_makespans
from fairsched.mosp.policies._mocca_phases import largest_first
from fairsched.mosp.policies.local import local_schedule

__all__ = ["mocca_alpha"]


def mocca_alpha(instance: MospInstance, *, alpha: float = 4.0, local_order: str = "hf", seed: int = 0,
                local: MospSchedule | None = None, hf_fallback: bool = True) -> MospSchedule:
    """Cut the local schedules at αLB and list-schedule the jobs that end later backwards from αLB.

    Implements TPDS'11 Algorithm 4 with D = floor(αLB) (completion times are integers):

    1. each organization keeps its local schedule if its makespan is < αLB and <= the makespan of its HF local
       schedule, else it is replaced by the HF schedule (skipped when ``hf_fallback=False``, as the paper's
       §7.3 experiments did);
    2. the jobs completing after αLB are unscheduled;
    3. they are sorted HF (non-increasing q, ties by job index);
    4. they are list-scheduled backwards from D over all clusters (`fairsched.mosp.engine.backward_list_schedule`)
       without moving the other jobs, each on the first cluster it fits, trying them as phase 2 of MOCCA does:
       from the smallest, M_N, to the largest, M_1.

    With α = 4, HF fall-back and every job fitting every cluster, Prop. 10 shows every job is placed: C_max <= 4LB
    and no organization's makespan exceeds its local one.

    Parameters
    ----------
    instance : the jobs and clusters.
    alpha : the threshold factor (> 0).
    local_order, seed : the local policy producing the local schedules (`local_schedule`), when `local` is None.
    local : a given local schedule (every job on its owner's cluster, feasible) instead of computing one.
    hf_fallback : apply step 1's replacement by HF.

    Returns
    -------
    MospSchedule named ``mocca<α>`` (``mocca4``).

    Deviations
    ----------
    Outside Prop. 10's hypotheses (a job narrower than some cluster but wider than others, α < 4, no HF
    fall-back) or after rounding αLB down to an integer, a job may fit nowhere before D. Rather than fail, it
    keeps its local place and the other jobs are placed backwards again around it, until every job has a place.
    A local place never breaks the local constraint, so the result always respects it.

    Examples
    --------
    >>> inst = MospInstance.from_arrays(procs=[3, 1], owner=[1, 1, 1, 1, 1], runtime=[1] * 5, width=[1] * 5)
    >>> s = mocca_alpha(inst)  # LB = 5/4, D = 5: nothing ends after 5
    >>> s.cluster.tolist(), s.start.tolist()
    ([1, 1, 1, 1, 1], [0, 1, 2, 3, 4])
    >>> s = mocca_alpha(inst, alpha=2.0)  # D = 2: jobs 2..4 (ending at 3, 4, 5) move backwards from 2
    >>> s.cluster.tolist(), s.start.tolist()
    ([1, 1, 0, 0, 0], [0, 1, 1, 1, 1])
    """
    if not alpha > 0:
        raise ConfigError(f"mocca_alpha: alpha={alpha!r}; expected a threshold factor > 0 (the paper uses 4)")
    name = f"mocca{alpha:g}"
    given = local is not None
    base = _checked_local(instance, local) if given else local_schedule(instance, order=local_order, seed=seed)
    cluster, start = base.cluster.astype(np.int64), base.start.astype(np.int64)
    if instance.n_jobs == 0:
        return MospSchedule(cluster=cluster, start=start, algorithm=name)
    threshold = Fraction(alpha) * lower_bound_exact(instance)
    if hf_fallback and (given or local_order != "hf"):  # an HF local schedule needs no fall-back
        _fall_back_to_hf(instance, cluster, start, threshold)
    d = deadline(instance, alpha)
    moved = start + instance.runtime > d
    if moved.any():
        _reschedule_backwards(instance, cluster, start, moved, d)
    return MospSchedule(cluster=cluster, start=start, algorithm=name)


def _checked_local(instance: MospInstance, local: MospSchedule) -> MospSchedule:
    """`local` if it is a feasible local schedule of `instance`, else `ConfigError` saying what is wrong."""
    cluster = np.asarray(local.cluster, dtype=np.int64)
    start = np.asarray(local.start, dtype=np.int64)
    if cluster.shape != (instance.n_jobs,) or start.shape != cluster.shape:
        raise ConfigError(f"mocca_alpha: the local schedule has {cluster.size} rows for {instance.n_jobs} jobs")
    if (cluster != instance.owner).any() or (start < 0).any():
        raise ConfigError("mocca_alpha: a local schedule runs every job on its owner's cluster from time >= 0; "
                          f"job {instance.job_id[np.flatnonzero((cluster != instance.owner) | (start < 0))[0]]} "
                          "does not")
    if not fits_capacity(instance.procs, cluster, start, instance.runtime, instance.width):
        raise ConfigError("mocca_alpha: the local schedule uses more processors than a cluster has")
    return MospSchedule(cluster=cluster, start=start, algorithm=local.algorithm)


def _fall_back_to_hf(instance: MospInstance, cluster: np.ndarray, start: np.ndarray, threshold: Fraction) -> None:
    """Step 1: replace, in place, the local schedule of every organization whose makespan is >= αLB or larger
    than its HF makespan by its HF schedule."""
    hf = local_schedule(instance, order="hf")
    mine = org_makespans(instance, MospSchedule(cluster=cluster, start=start))
    theirs = org_makespans(instance, hf)
    replace = np.array([not (x < threshold and x <= h) for x, h in zip(mine.tolist(), theirs.tolist(), strict=True)])
    jobs = replace[instance.owner]
    start[jobs] = hf.start[jobs]


def _reschedule_backwards(instance: MospInstance, cluster: np.ndarray, start: np.ndarray, moved: np.ndarray,
                          d: int) -> None:
    """Steps 2-4 in place: unschedule the `moved` jobs, list-schedule them backwards from d in HF order.

    A job that fits nowhere before d keeps its local place and the others are placed again around it (the
    deviation in `mocca_alpha`'s docstring; the same rule as `fairsched.mosp.policies.mocca_exp`).
    """
    local_cluster, local_start = cluster.copy(), start.copy()
    smallest_first = largest_first(instance.procs)[::-1]  # TPDS'11 k = N..1
    kept_local = np.zeros(instance.n_jobs, dtype=bool)
    while True:
        placing = moved & ~kept_local
        jobs = np.flatnonzero(placing)
        order = jobs[np.argsort(-instance.width[jobs], kind="stable")]
        prof = IdleProfiles.of_jobs(instance.procs, np.where(placing, -1, local_cluster), local_start,
                                    instance.runtime, instance.width, spare=jobs.size)
        new_cluster, new_start = backward_list_schedule(prof, instance.runtime, instance.width, order, d,
                                                        smallest_first)
        left = order[new_cluster[order] < 0]
        if left.size == 0:
            break
        kept_local[left] = True
    cluster[jobs], start[jobs] = new_cluster[jobs], new_start[jobs]
    cluster[kept_local], start[kept_local] = local_cluster[kept_local], local_start[kept_local]
