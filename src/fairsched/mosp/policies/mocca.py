"""MOCCA, the formal algorithm of TPDS'11 §4.3 (Algorithms 1–3), a 3-approximation respecting the local constraint.

Reference: P.-F. Dutot, F. Pascual, K. Rzadca, D. Trystram, "Approximation algorithms for the
multi-organization scheduling problem", IEEE TPDS 22(11), 2011, §4.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairsched.errors import ConfigError, InvariantError
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.policies._mocca_phases import (
    idle_since_table,
    kept_profiles,
    largest_first,
    phase1,
    phase2_kernel,
    phase3_kernel,
)

__all__ = ["MoccaRun", "mocca", "mocca_run"]


@dataclass(frozen=True)
class MoccaRun:
    """MOCCA's schedule and how it was built.

    Attributes
    ----------
    schedule : the schedule, named ``mocca``.
    deadline : D = floor(3LB); every job ends by it.
    phase : (n,) int64, the phase that placed each job: 1 (kept from its local schedule), 2 (high job, backwards
        from D_k) or 3 (at a potential start).
    """

    schedule: MospSchedule
    deadline: int
    phase: np.ndarray


def mocca(instance: MospInstance, *, local_order: str = "hf", seed: int = 0) -> MospSchedule:
    """MOCCA as formally described in TPDS'11 §4.3 (Algorithms 1–3); see `mocca_run` for the details.

    Examples
    --------
    >>> inst = MospInstance.from_arrays(procs=[1, 1, 1], owner=[0] * 6, runtime=[1] * 6, width=[1] * 6)
    >>> s = mocca(inst)  # LB = 2, D = 6: nothing ends after 6, every job stays local
    >>> s.cluster.tolist(), s.start.tolist()
    ([0, 0, 0, 0, 0, 0], [0, 1, 2, 3, 4, 5])
    """
    return mocca_run(instance, local_order=local_order, seed=seed).schedule


def mocca_run(instance: MospInstance, *, local_order: str = "hf", seed: int = 0) -> MoccaRun:
    """MOCCA: local schedules cut at 3LB, the rest placed backwards (high jobs) then at moving potential starts.

    Implements TPDS'11 §4.3, Algorithms 1–3, with the clusters numbered M_1..M_N by non-increasing size (ties by
    cluster index) and the result mapped back to the instance's clusters:

    1. every organization list-schedules its jobs locally (`local_order`, HF in the paper); jobs ending after 3LB
       are unscheduled and sorted HF (non-increasing q, ties by job index); C_k^{>=j} is computed;
    2. each such job, on k = N..1 while q > m_k/2, ends at D_k (initially 3LB) on the first M_k with
       C_k^{>=q} + p <= D_k, and D_k -= p; the others form Unscheduled;
    3. Unscheduled is placed by Algorithm 3 at moving potential starts, on k = 1..N, ending by D_k.

    Theorem 1: with HF local schedules and every job fitting every cluster (q <= m_N), every job is placed,
    C_max <= 3LB and no organization ends later than in its local schedule (moved jobs end by 3LB, before
    their owner's local makespan; the others do not move).

    Parameters
    ----------
    instance : clusters and jobs.
    local_order : local policy of phase 1 (hf, lpt, spt, rnd); the guarantee needs ``hf``.
    seed : seeds the ``rnd`` local order.

    Returns
    -------
    MoccaRun

    Raises
    ------
    ConfigError
        Outside Theorem 1's hypotheses (a job wider than the smallest cluster, or a non-HF local order), when
        Algorithm 3 runs out of potential starts with jobs left: the paper's algorithm has no answer there.

    Notes
    -----
    Readings of the paper where its text is silent (the figures are missing):

    - Integer times: D = floor(3LB) replaces 3LB (see `fairsched.mosp.policies._mocca_phases`).
    - C_k^{>=j} counts idle processors at every instant of [t, D_k) instead of numbering processors; it equals the
      paper's value under the best numbering, and the "highest indexed" processors of Algorithm 2 are then any q
      processors idle from C_k^{>=q} (see `idle_since_all`).
    - The C values are computed after phase 1, kept through phase 2 (Algorithm 1 computes them once; the jobs of
      phase 2 lie after D_k), and recomputed up to the current D_k for a cluster that receives a job in phase 3
      ("Recompute the new C_k^{>=j} for all j in M_k"). A stale value is never earlier than the recomputed one,
      so it never allows an infeasible placement.
    - Algorithm 3 restarts its scan at the same potential start after each placement, as its outer loop does.

    Complexity, for u jobs unscheduled after phase 1, B breakpoints per cluster and m the largest cluster: phase 1
    O(n log n) (the local list schedules); the C table O(N (B + m)); phase 2 O(u N); phase 3 rescans Unscheduled
    over the N clusters at each potential start and after each placement, O(u N (u + B + log m) + u (B + m)) in
    all. About 2 ms for n = 500, N = 20, m = 512.

    Examples
    --------
    >>> inst = MospInstance.from_arrays(procs=[4, 4, 4], owner=[0] * 6, runtime=[2] * 6, width=[3] * 6)
    >>> run = mocca_run(inst)  # LB = 3, D = 9: local jobs 4 and 5 end at 10 and 12
    >>> run.schedule.cluster.tolist(), run.schedule.start.tolist(), run.phase.tolist()
    ([0, 0, 0, 0, 2, 2], [0, 2, 4, 6, 7, 5], [1, 1, 1, 1, 2, 2])
    """
    ph = phase1(instance, local_order=local_order, seed=seed)
    cluster, start = ph.local.cluster.copy(), ph.local.start.copy()
    cluster[ph.order] = -1  # unscheduled until phase 2 or 3 places them
    phase = np.ones(instance.n_jobs, dtype=np.int64)
    if ph.order.size:
        prof = kept_profiles(instance, ph)
        horizon = np.full(instance.n_orgs, ph.deadline, dtype=np.int64)
        table = idle_since_table(prof.times, prof.idle, prof.size, prof.procs, horizon)
        largest = largest_first(instance.procs)
        args = (prof.times, prof.idle, prof.size, prof.procs, instance.runtime, instance.width)
        high = phase2_kernel(*args, ph.order, largest[::-1].copy(), table, horizon, cluster, start)
        phase[ph.order[high]] = 2
        rest = ph.order[~high]
        phase[rest] = 3
        if phase3_kernel(*args, rest, largest, table, horizon, cluster, start):
            _fail(instance, local_order, ph.deadline, rest[cluster[rest] < 0])
    return MoccaRun(schedule=MospSchedule(cluster=cluster, start=start, algorithm="mocca"),
                    deadline=ph.deadline, phase=phase)


def _fail(instance: MospInstance, local_order: str, d: int, left: np.ndarray) -> None:
    """Algorithm 3 ran out of potential starts with the jobs `left`: outside Theorem 1's hypotheses the paper has
    no answer (user error); inside them it is a bug."""
    smallest = int(instance.procs.min())
    wide = np.flatnonzero(instance.width > smallest)
    j = int(left[0])
    what = (f"job {instance.job_id[j]} (p={instance.runtime[j]}, q={instance.width[j]}) and {left.size - 1} other(s) "
            f"fit nowhere before floor(3LB) = {d}")
    if local_order == "hf" and wide.size == 0:
        raise InvariantError(f"MOCCA: {what} although the local order is HF and every job fits every cluster "
                             "(TPDS'11 Theorem 1 says every job fits)")
    why = (f"job {instance.job_id[wide[0]]} needs {instance.width[wide[0]]} processors, more than the smallest "
           f"cluster's {smallest}" if wide.size else f"the local order is {local_order!r}, not 'hf'")
    raise ConfigError(f"MOCCA (TPDS'11 Algorithms 1-3): {what}. Its Theorem 1 needs HF local schedules and every "
                      f"job fitting every cluster, and here {why}. Use algorithm 'mocca-exp' or 'mocca4', which "
                      "always return a schedule")
