"""Jobs made of tasks pinned to machines: the workload of the concurrent open shop (Shafiee & Ghaderi, IFIP
Networking 2020, §III), stored sparse.

It lives with the workloads because the one Google reader (`fairsched.workload.google`) builds it, and the model
that schedules it (`fairsched.openshop`, which re-exports it from `fairsched.openshop.instance`) sits above the
workload layer. m machines, n jobs; job j has a task on machine i with integer processing time p_ij > 0 for i in
M_j (tasks are pinned to the machines holding their data); a job is done when its last task is:
C_j = max_{i in M_j} C_ij. Stored sparse (CSR by job): the tasks of job j are rows ``indptr[j]:indptr[j+1]`` of
``task_machine`` and ``task_time``, machines strictly increasing within a job (several tasks of one job on one
machine are merged into one, paper footnote 2). The Google slice has ~600k tasks on 200 machines; a dense n×m
matrix would not fit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairsched.errors import ConfigError

__all__ = ["OpenShopInstance"]


@dataclass(frozen=True)
class OpenShopInstance:
    """Jobs made of tasks pinned to machines, CSR by job.

    Attributes
    ----------
    n_machines : m.
    job_id : (n,) int64 identifiers kept for output files (unique).
    arrival : (n,) int64 release times (0 offline); jobs are indexed by non-decreasing arrival.
    priority : (n,) float64 P_j > 0 of linear utilities (1 by default).
    indptr : (n+1,) int64 row pointers into the task arrays.
    task_machine : (t,) int64 machine of each task, strictly increasing within a job.
    task_time : (t,) int64 processing time of each task, >= 1.
    """

    n_machines: int
    job_id: np.ndarray
    arrival: np.ndarray
    priority: np.ndarray
    indptr: np.ndarray
    task_machine: np.ndarray
    task_time: np.ndarray

    @classmethod
    def from_dense(cls, times, arrival=None, priority=None, job_id=None) -> OpenShopInstance:
        """Build from an n×m matrix of p_ij (0 = no task); the small-instance and test constructor."""
        times = np.asarray(times, dtype=np.int64)
        if times.ndim != 2:
            raise ConfigError(f"processing times: expected an n×m matrix, got shape {times.shape}")
        if (times < 0).any():
            raise ConfigError("processing times: p_ij must be >= 0 (0 = no task on that machine)")
        jobs, machines = np.nonzero(times)
        indptr = np.zeros(times.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(jobs, minlength=times.shape[0]), out=indptr[1:])
        return cls.from_tasks(times.shape[1], indptr, machines, times[jobs, machines], arrival, priority, job_id)

    @classmethod
    def from_tasks(cls, n_machines, indptr, task_machine, task_time, arrival=None, priority=None,
                   job_id=None) -> OpenShopInstance:
        """Build from CSR arrays and check them; missing arrival = 0, priority = 1, job_id = 0..n-1."""
        indptr = np.asarray(indptr, dtype=np.int64)
        n = indptr.size - 1
        instance = cls(
            n_machines=int(n_machines),
            job_id=np.arange(n, dtype=np.int64) if job_id is None else np.asarray(job_id, dtype=np.int64),
            arrival=np.zeros(n, dtype=np.int64) if arrival is None else np.asarray(arrival, dtype=np.int64),
            priority=np.ones(n) if priority is None else np.asarray(priority, dtype=np.float64),
            indptr=indptr,
            task_machine=np.asarray(task_machine, dtype=np.int64),
            task_time=np.asarray(task_time, dtype=np.int64),
        )
        instance.check()
        return instance

    @property
    def n_jobs(self) -> int:
        return int(self.indptr.size - 1)

    @property
    def n_tasks(self) -> int:
        return int(self.task_time.size)

    def task_job(self) -> np.ndarray:
        """(t,) the job of each task."""
        return np.repeat(np.arange(self.n_jobs, dtype=np.int64), np.diff(self.indptr))

    def to_dense(self) -> np.ndarray:
        """The n×m matrix of p_ij (small instances only)."""
        dense = np.zeros((self.n_jobs, self.n_machines), dtype=np.int64)
        dense[self.task_job(), self.task_machine] = self.task_time
        return dense

    def machine_loads(self) -> np.ndarray:
        """(m,) τ_i = Σ_j p_ij, the total work of each machine."""
        return np.bincount(self.task_machine, weights=self.task_time, minlength=self.n_machines).astype(np.int64)

    def check(self) -> None:
        """Raise `ConfigError` on the first broken rule (shapes, CSR, machines, p >= 1, ids, arrivals, priority)."""
        n, t = self.n_jobs, self.task_time.size
        if self.n_machines < 1:
            raise ConfigError(f"machines: expected >= 1, got {self.n_machines}")
        if n < 0 or self.indptr[0] != 0 or self.indptr[-1] != t or (np.diff(self.indptr) < 0).any():
            raise ConfigError("tasks: indptr must start at 0, never decrease and end at the number of tasks")
        for name in ("job_id", "arrival", "priority"):
            if getattr(self, name).size != n:
                raise ConfigError(f"jobs: {name} has {getattr(self, name).size} entries for {n} jobs")
        if self.task_machine.size != t:
            raise ConfigError(f"tasks: {self.task_machine.size} machines for {t} processing times")
        if np.unique(self.job_id).size != n:
            raise ConfigError("jobs: job ids must be unique")
        job_of = self.task_job()
        rules = (
            ((self.task_machine < 0) | (self.task_machine >= self.n_machines), job_of,
             f"a task on an unknown machine (expected 0..{self.n_machines - 1})"),
            (self.task_time < 1, job_of, "a task with processing time < 1"),
            (_not_increasing_within_jobs(self.task_machine, self.indptr), job_of,
             "two tasks on one machine or machines out of order (merge them: paper footnote 2)"),
            (self.arrival < 0, np.arange(n), "a negative arrival time"),
            (np.r_[False, np.diff(self.arrival) < 0] if n else self.arrival < 0, np.arange(n),
             "an arrival earlier than the previous job's (sort jobs by arrival)"),
            (~(self.priority > 0), np.arange(n), "a priority that is not > 0"),
        )
        for bad, owner, problem in rules:
            if bad.any():
                raise ConfigError(f"job {self.job_id[owner[np.flatnonzero(bad)[0]]]}: {problem}")


def _not_increasing_within_jobs(machine: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Per task: True where its machine is <= the previous task's of the same job."""
    bad = np.zeros(machine.size, dtype=bool)
    if machine.size > 1:
        bad[1:] = np.diff(machine) <= 0
        bad[indptr[1:-1][indptr[1:-1] < machine.size]] = False  # a job's first task has no predecessor
    return bad
