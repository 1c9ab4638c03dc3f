"""Slurm's multifactor job priority and the order of its job queue.

Implements ``_get_priority_internal`` and ``set_priority_factors`` of Slurm's ``priority_multifactor.c``::

    priority = W_age * age + W_fairshare * fairshare + W_jobsize * job_size + W_partition * partition
               + W_qos * qos - nice

floored at 1 (0 is reserved for held jobs) and truncated to an unsigned 32-bit integer (at most 2^32 - 1), summed
in that order in double precision. The factors, each in [0, 1]:

* age = min(now - eligible, PriorityMaxAge) / PriorityMaxAge (0 before the job is eligible; whole seconds);
* fairshare: the job's association's FairShare (`fairsched.fairshare.fair_tree` or `.classic`);
* job size, without ``PriorityFlags=SMALL_RELATIVE_TO_TIME``: (nodes / cluster nodes + cpus / cluster CPUs) / 2,
  or with ``PriorityFavorSmall`` ((N - nodes) / N + (C - cpus) / C) / 2; with ``SMALL_RELATIVE_TO_TIME``:
  max(nodes * C / N, cpus) / time limit (minutes) / C, or 1 minus that with ``PriorityFavorSmall``;
* partition and QOS: ``PriorityJobFactor`` / the largest one, and the QOS priority / the largest one, given as
  normalized factors.

``PriorityWeightTRES`` and jobs submitted to several partitions are not modelled. The queue is sorted by
priority (highest first), then submit time, then job id, as Slurm's ``sort_job_queue2`` does within one
partition priority tier.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fairsched.errors import ConfigError

MAX_PRIORITY = 0xFFFFFFFF


@dataclass(frozen=True)
class PriorityConfig:
    """The multifactor settings of slurm.conf (weights are integers, times in seconds).

    Slurm's defaults: every weight 0, ``PriorityMaxAge`` 7 days, ``PriorityFavorSmall`` no.
    """

    weight_age: int = 0
    weight_fairshare: int = 0
    weight_job_size: int = 0
    weight_partition: int = 0
    weight_qos: int = 0
    max_age: float = 7 * 86400.0
    favor_small: bool = False
    small_relative_to_time: bool = False

    def __post_init__(self) -> None:
        for name in ("weight_age", "weight_fairshare", "weight_job_size", "weight_partition", "weight_qos"):
            value = getattr(self, name)
            if not isinstance(value, int) or not 0 <= value <= MAX_PRIORITY:
                raise ConfigError(f"PriorityWeight {name.removeprefix('weight_')} must be an integer in "
                                  f"[0, {MAX_PRIORITY}], got {value!r}")
        if not self.max_age > 0:
            raise ConfigError(f"PriorityMaxAge must be > 0 s, got {self.max_age}")


def age_factor(now: float, eligible: float, max_age: float) -> float:
    """min(now - eligible, max_age) / max_age, on whole seconds (Slurm's ``uint32_t diff``); 0 before eligible."""
    waited = math.floor(now - eligible) if now > eligible else 0
    return 1.0 if waited >= max_age else waited / max_age


def job_size_factor(*, cpus: int, nodes: int, cluster_cpus: int, cluster_nodes: int,
                    config: PriorityConfig, time_limit_minutes: float | None = None) -> float:
    """The job-size factor in [0, 1] (see the module doc)."""
    if config.small_relative_to_time:
        size = max(nodes * cluster_cpus / cluster_nodes, cpus) / (time_limit_minutes or 1.0) / cluster_cpus
        factor = 1.0 - size if config.favor_small else size
    elif config.favor_small:
        factor = (cluster_nodes - nodes) / cluster_nodes
        if cpus:
            factor = (factor + (cluster_cpus - cpus) / cluster_cpus) / 2
    else:
        factor = nodes / cluster_nodes
        if cpus:
            factor = (factor + cpus / cluster_cpus) / 2
    return min(max(factor, 0.0), 1.0)


def job_priority(config: PriorityConfig, *, age: float = 0.0, fairshare: float = 0.0, job_size: float = 0.0,
                 partition: float = 0.0, qos: float = 0.0, nice: int = 0) -> int:
    """Slurm's multifactor priority of one job from its factors (see the module doc).

    Examples
    --------
    >>> job_priority(PriorityConfig(weight_age=1000, weight_fairshare=10000), age=0.5, fairshare=0.25)
    3000
    >>> job_priority(PriorityConfig(weight_fairshare=10000), fairshare=0.0, nice=100)
    1
    """
    value = (config.weight_age * age + config.weight_fairshare * fairshare + config.weight_job_size * job_size
             + config.weight_partition * partition + config.weight_qos * qos - nice)
    if value < 1:
        value = 1.0
    return min(int(value), MAX_PRIORITY)


def queue_order(priority: Sequence[int] | np.ndarray, submit_time: Sequence[float] | np.ndarray,
                job_id: Sequence[int] | np.ndarray) -> np.ndarray:
    """Indices of the jobs in Slurm's queue order: priority descending, then submit time, then job id."""
    priority = np.asarray(priority, dtype=np.int64)
    return np.lexsort((np.asarray(job_id), np.asarray(submit_time, dtype=np.float64), -priority))
