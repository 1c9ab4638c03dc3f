"""Makespans and scores of MOSP schedules (TPDS'11 §2.1–§2.2 and §7.1). Pure functions; no engine involved.

C_max(O_k) is the completion of organization k's last job wherever it runs; C_max = max_k C_max(O_k); the score
of §7.1 is s = C_max / LB with LB = max(W̄, p_max), an upper bound on the approximation ratio (1 = optimal).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from fairsched.mosp.instance import MospInstance, MospSchedule

__all__ = ["deadline", "local_makespans", "lower_bound_exact", "makespan", "org_makespans", "score"]


def org_makespans(instance: MospInstance, schedule: MospSchedule) -> np.ndarray:
    """(N,) int64 C_max(O_k): completion of organization k's last job, on any cluster (0 for no job).

    Examples
    --------
    >>> inst = MospInstance.from_arrays(procs=[2, 2], owner=[0, 0, 1], runtime=[2, 3, 1], width=[1, 1, 1])
    >>> org_makespans(inst, MospSchedule(cluster=np.array([0, 1, 1]), start=np.array([0, 1, 0]))).tolist()
    [4, 1]
    """
    out = np.zeros(instance.n_orgs, dtype=np.int64)
    np.maximum.at(out, instance.owner, np.asarray(schedule.start, dtype=np.int64) + instance.runtime)
    return out


def makespan(instance: MospInstance, schedule: MospSchedule) -> int:
    """C_max: completion of the last job (0 for an instance without jobs)."""
    if instance.n_jobs == 0:
        return 0
    return int((np.asarray(schedule.start, dtype=np.int64) + instance.runtime).max())


def score(instance: MospInstance, schedule: MospSchedule) -> float:
    """s = C_max / LB (TPDS'11 §7.1); an instance without jobs scores 1 (nothing to improve)."""
    lb = instance.lower_bound()
    return 1.0 if lb == 0 else makespan(instance, schedule) / lb


def local_makespans(instance: MospInstance, local_order: str = "hf", seed: int = 0) -> np.ndarray:
    """(N,) C_max^loc(O_k): each organization's makespan when every cluster runs only its own jobs (§2.2),
    list-scheduled in `local_order` (`fairsched.mosp.policies.local.local_schedule`)."""
    from fairsched.mosp.policies.local import local_schedule  # metrics stay importable without the policies

    return org_makespans(instance, local_schedule(instance, order=local_order, seed=seed))


def lower_bound_exact(instance: MospInstance) -> Fraction:
    """LB = max(Σ q p / Σ m_k, max p) as an exact fraction (0 without jobs): thresholds such as 3LB are compared
    with integer completion times, and float rounding must not decide whether a job ends "after 3LB"."""
    if instance.n_jobs == 0:
        return Fraction(0)
    work = int(np.dot(instance.width, instance.runtime))
    return max(Fraction(work, int(instance.procs.sum())), Fraction(int(instance.runtime.max())))


def deadline(instance: MospInstance, alpha: float) -> int:
    """floor(α LB), the last integer instant a job may complete at to complete "before α LB" (TPDS'11 §4, §5.2).

    Exact: α is read as the binary fraction it is (3.0, 4.0 and 3.5 are exact). Since completion times are
    integers, "completed after α LB" (end > α LB) is the same as end > `deadline(instance, alpha)`.

    Examples
    --------
    >>> inst = MospInstance.from_arrays(procs=[3, 1], owner=[1, 1], runtime=[1, 1], width=[1, 1])
    >>> float(lower_bound_exact(inst)), deadline(inst, 4.0), deadline(inst, 2.5)
    (1.0, 4, 2)
    """
    return math.floor(Fraction(alpha) * lower_bound_exact(instance))


def proven_bound(instance: MospInstance, algorithm: str, local_order: str = "hf") -> float | None:
    """The makespan bound an algorithm is proven to meet on `instance`, or None where no bound is proven.

    MOCCA with HF local schedules: C_max <= 3LB (TPDS'11 Theorem 1); MOCCA(4) with any local order: C_max <= 4LB
    (Prop. 10); both need every job to fit every cluster (q_j <= min m_k, §2.1). The experimental variant (§7.1)
    gets 3LB too: not proven (§5.2 leaves it open), but never violated in ~760,000 random instances
    (tests/test_mosp_mocca.py), so a violation is worth reporting as a counterexample.
    """
    fits = instance.n_jobs == 0 or int(instance.width.max()) <= int(instance.procs.min())
    if not fits:
        return None
    if algorithm in ("mocca", "mocca-exp") and local_order == "hf":
        return 3.0 * instance.lower_bound()
    if algorithm == "mocca4":
        return 4.0 * instance.lower_bound()
    return None
