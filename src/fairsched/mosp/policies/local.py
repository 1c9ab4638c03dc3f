"""Local scheduling: every organization runs only its own jobs on its own cluster (TPDS'11 §2.2, §3, §7.3).

The local schedule defines C_max^loc(O_k), the makespan each organization is guaranteed never to exceed
(constraint (1) of §2.2), and is phase 1 of MOCCA and the input of MOCCA(α) and ILBA.
"""

from __future__ import annotations

import numpy as np

from fairsched.errors import ConfigError
from fairsched.mosp.engine import list_schedule
from fairsched.mosp.instance import MospInstance, MospSchedule

__all__ = ["LOCAL_ORDERS", "local_order", "local_schedule"]

LOCAL_ORDERS: tuple[str, ...] = ("hf", "lpt", "spt", "rnd")


def local_order(runtime: np.ndarray, width: np.ndarray, rule: str, rng: np.random.Generator) -> np.ndarray:
    """The list of a local policy: a permutation of the job indices (TPDS'11 §3.2 and §7.3).

    Rules: ``hf`` highest first (non-increasing q), ``lpt`` (non-increasing p), ``spt`` (non-decreasing p), ties
    by index (stable sorts); ``rnd`` a permutation drawn from `rng` (the only rule that draws from it).

    Examples
    --------
    >>> local_order(np.array([3, 1, 2]), np.array([1, 2, 2]), "hf", np.random.default_rng(0)).tolist()
    [1, 2, 0]
    """
    runtime = np.asarray(runtime, dtype=np.int64)
    width = np.asarray(width, dtype=np.int64)
    if rule == "hf":
        return np.argsort(-width, kind="stable")
    if rule == "lpt":
        return np.argsort(-runtime, kind="stable")
    if rule == "spt":
        return np.argsort(runtime, kind="stable")
    if rule == "rnd":
        return rng.permutation(runtime.size).astype(np.int64)
    raise ConfigError(f"unknown local order {rule!r}; choose one of: {', '.join(LOCAL_ORDERS)}")


def local_schedule(instance: MospInstance, *, order: str = "hf", seed: int = 0) -> MospSchedule:
    """Each cluster list-schedules (Graham, §3.1) only its owner's jobs, in the given local order.

    Implements the "local" algorithm of TPDS'11 §7.1 (with ``order="hf"``) and the local policies of §7.3.
    With ``order="rnd"`` one generator seeded with `seed` draws the permutations of organizations 0, 1, ... in turn.

    Every job fits its owner's cluster (`MospInstance.check` refuses instances where one does not: it would have
    no local schedule, and constraint (1) would be undefined, TPDS'11 §5.1).

    Examples
    --------
    >>> inst = MospInstance.from_arrays(procs=[2, 1], owner=[0, 0, 1], runtime=[2, 3, 1], width=[2, 1, 1])
    >>> s = local_schedule(inst)
    >>> s.cluster.tolist(), s.start.tolist()
    ([0, 0, 1], [0, 2, 0])
    """
    if order not in LOCAL_ORDERS:
        raise ConfigError(f"unknown local order {order!r}; choose one of: {', '.join(LOCAL_ORDERS)}")
    rng = np.random.default_rng(seed)
    cluster = instance.owner.copy()
    start = np.zeros(instance.n_jobs, dtype=np.int64)
    by_owner = np.argsort(instance.owner, kind="stable")
    bounds = np.searchsorted(instance.owner[by_owner], np.arange(instance.n_orgs + 1))
    for k in range(instance.n_orgs):
        jobs = by_owner[bounds[k]:bounds[k + 1]]  # organization k's jobs, in index order
        if jobs.size:
            p, q = instance.runtime[jobs], instance.width[jobs]
            start[jobs] = list_schedule(p, q, int(instance.procs[k]), local_order(p, q, order, rng))
    return MospSchedule(cluster=cluster, start=start, algorithm="local")
