"""An instance of the multi-organization scheduling problem (MOSP; Dutot et al., TPDS 2011, §3).

N organizations; organization k owns cluster k of ``procs[k]`` identical processors and submits rigid parallel
jobs: job j needs ``width[j]`` processors of one cluster for exactly ``runtime[j]`` time units. Offline,
clairvoyant, every job available at time 0, no preemption. Times and sizes are integers, so every schedule and
every bound (LB, 3LB) is exact.

The instance does not sort clusters: cluster k is organization k, as in the instance file. Algorithms that need
the paper's order m_1 >= ... >= m_N sort internally and map back.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

import numpy as np

from fairsched.errors import ConfigError


@dataclass(frozen=True)
class MospInstance:
    """Clusters (one per organization) and rigid jobs, as int64 arrays.

    Attributes
    ----------
    procs : (N,) m_k, processors of the cluster owned by organization k (>= 1).
    job_id : (n,) identifiers kept for output files (unique).
    owner : (n,) organization submitting each job, in 0..N-1.
    runtime : (n,) p_j >= 1.
    width : (n,) q_j, processors needed, 1..max(procs).
    """

    procs: np.ndarray
    job_id: np.ndarray
    owner: np.ndarray
    runtime: np.ndarray
    width: np.ndarray

    @classmethod
    def from_arrays(cls, procs, owner, runtime, width, job_id=None) -> MospInstance:
        """Build and check an instance; `job_id` defaults to 0..n-1. Raises `ConfigError` naming the bad job."""
        procs = np.asarray(procs, dtype=np.int64).reshape(-1)
        owner = np.asarray(owner, dtype=np.int64).reshape(-1)
        runtime = np.asarray(runtime, dtype=np.int64).reshape(-1)
        width = np.asarray(width, dtype=np.int64).reshape(-1)
        job_id = np.arange(owner.size, dtype=np.int64) if job_id is None else np.asarray(job_id, np.int64).reshape(-1)
        instance = cls(procs=procs, job_id=job_id, owner=owner, runtime=runtime, width=width)
        instance.check()
        return instance

    @property
    def n_orgs(self) -> int:
        return int(self.procs.size)

    @property
    def n_jobs(self) -> int:
        return int(self.owner.size)

    def check(self) -> None:
        """Raise `ConfigError` on the first rule broken (sizes, owners, p >= 1, 1 <= q <= m of the owner's cluster)."""
        if self.procs.size == 0 or (self.procs < 1).any():
            raise ConfigError(f"clusters: every organization needs a cluster of >= 1 processors; got {self.procs}")
        n = self.owner.size
        for name in ("job_id", "runtime", "width"):
            if getattr(self, name).size != n:
                raise ConfigError(f"jobs: {name} has {getattr(self, name).size} entries for {n} jobs")
        if np.unique(self.job_id).size != n:
            raise ConfigError("jobs: job ids must be unique")
        rules = (
            ((self.owner < 0) | (self.owner >= self.procs.size), "owner",
             f"an unknown organization (expected 0..{self.procs.size - 1})"),
            (self.runtime < 1, "runtime", "must be >= 1"),
            (self.width < 1, "procs", "must be >= 1"),
            (self.width > self.procs.max(), "procs", f"is wider than every cluster (largest: {self.procs.max()})"),
        )
        for bad, field, problem in rules:
            if bad.any():
                j = int(np.flatnonzero(bad)[0])
                raise ConfigError(f"job {self.job_id[j]}: {field}={getattr(self, _ARRAY[field])[j]} {problem}")
        # Every organization must be able to run its own jobs alone: the local schedule is the baseline the
        # cooperative one may never be worse than (TPDS'11 §3).
        wide = self.width > self.procs[self.owner]
        if wide.any():
            j = int(np.flatnonzero(wide)[0])
            raise ConfigError(f"job {self.job_id[j]}: procs={self.width[j]} is wider than its owner's cluster "
                              f"(organization {self.owner[j]} has {self.procs[self.owner[j]]} processors); the "
                              "local schedule, the model's baseline, needs every job to fit its owner's cluster")

    def lower_bound(self) -> float:
        """LB = max(Σ q_j p_j / Σ m_k, max p_j) (TPDS'11 §3), a lower bound on the optimal makespan."""
        if self.n_jobs == 0:
            return 0.0
        work = float(np.dot(self.width, self.runtime))
        return max(work / float(self.procs.sum()), float(self.runtime.max()))


_ARRAY = {"owner": "owner", "runtime": "runtime", "procs": "width"}


@dataclass(frozen=True)
class MospSchedule:
    """Where and when each job of a `MospInstance` runs (row j is job j of the instance).

    Attributes
    ----------
    cluster : (n,) cluster running the job (any cluster, not only its owner's).
    start : (n,) start time >= 0; the job ends at start + runtime.
    algorithm : the name of what produced it (for reports).
    meta : how it was produced, filled by the front door `fairsched.mosp.solve`: ``algorithm``, ``parameters``,
        ``local_order``, ``seed``, ``fairsched_version`` (empty for a schedule built by hand).
    """

    cluster: np.ndarray
    start: np.ndarray
    algorithm: str = ""
    meta: dict[str, Any] = dataclass_field(default_factory=dict, compare=False)
