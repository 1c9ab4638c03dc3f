"""MOCCA as run in the experiments of TPDS'11 (§7.1): phases 2 and 3 combined backwards from 3LB, then compaction.

Reference: P.-F. Dutot, F. Pascual, K. Rzadca, D. Trystram, "Approximation algorithms for the
multi-organization scheduling problem", IEEE TPDS 22(11), 2011, §4 and §7.1 (Fig. 6(a)).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from fairsched.mosp.engine import IdleProfiles, backward_list_schedule
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.policies._mocca_phases import Phase1, compact_kernel, kept_profiles, largest_first, phase1

__all__ = ["MoccaExpRun", "mocca_experimental", "mocca_experimental_run"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class MoccaExpRun:
    """The experimental MOCCA's schedule and the steps that built it.

    Attributes
    ----------
    schedule : the compacted schedule, named ``mocca-exp``.
    backward : the schedule before compaction (moved jobs as placed backwards from D).
    deadline : D = floor(3LB).
    moved : (n,) bool, the jobs placed backwards on any cluster (they end by D, then compaction advances them).
    restored : (n,) bool, jobs that fitted nowhere before D and were left at their local place (see Deviations).
    """

    schedule: MospSchedule
    backward: MospSchedule
    deadline: int
    moved: np.ndarray
    restored: np.ndarray


def mocca_experimental(instance: MospInstance, *, local_order: str = "hf", seed: int = 0,
                       alpha: float = 3.0) -> MospSchedule:
    """MOCCA's experimental variant (TPDS'11 §7.1); see `mocca_experimental_run` for the details.

    Examples
    --------
    >>> inst = MospInstance.from_arrays(procs=[4, 4, 4], owner=[0] * 6, runtime=[2] * 6, width=[3] * 6)
    >>> s = mocca_experimental(inst)  # jobs 4 and 5 end after D = 9; placed backwards, then advanced to 0
    >>> s.cluster.tolist(), s.start.tolist()
    ([0, 0, 0, 0, 2, 1], [0, 2, 4, 6, 0, 0])
    """
    return mocca_experimental_run(instance, local_order=local_order, seed=seed, alpha=alpha).schedule


def mocca_experimental_run(instance: MospInstance, *, local_order: str = "hf", seed: int = 0,
                           alpha: float = 3.0) -> MoccaExpRun:
    """Cut the local schedules at 3LB, list-schedule the rest backwards from 3LB over all clusters, compact.

    Implements the variant of MOCCA used in TPDS'11 §7 ("combines the second and the third phase, i.e., both
    high and low jobs are scheduled together starting from 3LB; [...] the schedules are compacted by advancing
    the moved jobs if there is a gap in the schedule before them", §7.1; "balanced jobs are scheduled as soon as
    possible", Fig. 6):

    1. phase 1 of MOCCA (`fairsched.mosp.policies._mocca_phases.phase1`): local schedules in `local_order`, jobs
       ending after D = floor(3LB) unscheduled and sorted HF (non-increasing q, ties by job index);
    2. they are list-scheduled backwards from D over all clusters around the kept jobs
       (`fairsched.mosp.engine.backward_list_schedule`, Graham's rule in reversed time, as Algorithm 4 step 4),
       clusters tried smallest first, M_N..M_1, as phase 2 does;
    3. compaction: the moved jobs, in order of start time (ties by job index), are each advanced to the earliest
       start on their own cluster where they fit; a job never starts later than where step 2 put it.

    Moved jobs end by D < their owner's local makespan and the other jobs keep their local places, so no
    organization finishes later than alone.

    Parameters
    ----------
    instance : clusters and jobs.
    local_order : local policy of phase 1 (hf, lpt, spt, rnd; §7.3 runs all four with this 3LB threshold).
    seed : seeds the ``rnd`` local order.
    alpha : the threshold αLB replacing 3LB (§7.3 compares 3LB and 4LB; the 3-approximation needs 3 and HF).

    Returns
    -------
    MoccaExpRun

    Deviations
    ----------
    The paper does not say how the combined phase works nor what happens when a job fits nowhere before 3LB (it
    reports none in its runs, §7.3; MOCCA(3)'s feasibility is open, §5.2). Here such jobs stay at their local
    place (a local schedule never breaks the local constraint) and step 2 is redone for the other jobs around
    them, until every job fits; `restored` marks them and a log line at INFO level counts them.

    Notes
    -----
    Compaction is one pass: a job advanced later in the pass may open a gap an earlier job could have used.
    Complexity: that of `backward_list_schedule` plus O(u B) for compacting u moved jobs with B breakpoints per
    cluster; each redo of step 2 costs one more `backward_list_schedule`.

    Examples
    --------
    >>> inst = MospInstance.from_arrays(procs=[2, 2], owner=[0] * 5, runtime=[1] * 5, width=[1] * 5)
    >>> run = mocca_experimental_run(inst)  # LB = 1.25, D = 3: job 4 ends at 3 and stays; nothing moves
    >>> run.moved.tolist(), run.schedule.start.tolist()
    ([False, False, False, False, False], [0, 0, 1, 1, 2])
    """
    ph = phase1(instance, local_order=local_order, seed=seed, alpha=alpha)
    restored = np.zeros(instance.n_jobs, dtype=bool)
    cluster, start, prof = _backwards(instance, ph, restored)
    while (left := ph.order[cluster[ph.order] < 0]).size:
        restored[left] = True
        cluster, start, prof = _backwards(instance, ph, restored)
    if restored.any():
        logger.info("mocca-exp: %d job(s) fitted nowhere before D=%d and kept their local place",
                    int(restored.sum()), ph.deadline)
    moved = np.zeros(instance.n_jobs, dtype=bool)
    moved[ph.order] = ~restored[ph.order]
    backward = MospSchedule(cluster=cluster.copy(), start=start.copy(), algorithm="mocca-exp")
    jobs = np.flatnonzero(moved)
    jobs = jobs[np.lexsort((jobs, start[jobs]))]
    prof.grow(int(prof.size.max()) + 2 * jobs.size + 1)
    compact_kernel(prof.times, prof.idle, prof.size, cluster, start, instance.runtime, instance.width, jobs)
    return MoccaExpRun(schedule=MospSchedule(cluster=cluster, start=start, algorithm="mocca-exp"),
                       backward=backward, deadline=ph.deadline, moved=moved, restored=restored)


def _backwards(instance: MospInstance, ph: Phase1,
               restored: np.ndarray) -> tuple[np.ndarray, np.ndarray, IdleProfiles]:
    """Step 2 around the kept and `restored` jobs: (cluster, start) of every job (-1 for a moved job that fits
    nowhere) and the profiles holding them all."""
    prof = kept_profiles(instance, ph, restored)
    order = ph.order[~restored[ph.order]]
    new_cluster, new_start = backward_list_schedule(prof, instance.runtime, instance.width, order, ph.deadline,
                                                    largest_first(instance.procs)[::-1].copy())
    cluster, start = ph.local.cluster.copy(), ph.local.start.copy()
    cluster[order], start[order] = new_cluster[order], new_start[order]
    return cluster, start, prof
