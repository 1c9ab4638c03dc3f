"""An instance of concurrent open shop with multi-task jobs (Shafiee & Ghaderi, IFIP Networking 2020, §III).

m machines, n jobs; job j has a task on machine i with integer processing time p_ij > 0 for i in M_j (tasks are
pinned to the machines holding their data); a job is done when its last task is: C_j = max_{i in M_j} C_ij.
Stored sparse (CSR by job): the tasks of job j are rows ``indptr[j]:indptr[j+1]`` of ``task_machine`` and
``task_time``, machines strictly increasing within a job (several tasks of one job on one machine are merged into
one, paper footnote 2). The Google slice has ~600k tasks on 200 machines; a dense n×m matrix would not fit.

Utilities (§VI): equal (minimise completion times) or linear U_j(t) = P_j · (τ − t), P_j = ``priority[j]``.

`OpenShopInstance` is defined with the workloads (`fairsched.workload.multitask`: the Google reader builds it) and
re-exported here; `OpenShopSchedule` is the model's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fairsched.workload.multitask import OpenShopInstance

__all__ = ["OpenShopInstance", "OpenShopSchedule"]


@dataclass(frozen=True)
class OpenShopSchedule:
    """Per-task start times of an `OpenShopInstance` (non-preemptive; a task ends at start + time).

    Attributes
    ----------
    task_start : (t,) int64 start of each task, aligned with the instance's task arrays.
    completion : (n,) int64 C_j = max over the job's tasks of their ends (arrival for a job without tasks).
    algorithm : what produced it.
    meta : how it was produced, filled by the front doors `fairsched.openshop.solve` / ``run_online``:
        ``algorithm``, ``parameters``, ``utilities``, ``seed``, ``online``, ``fairsched_version`` (empty for a
        schedule built by hand).
    """

    task_start: np.ndarray
    completion: np.ndarray
    algorithm: str = ""
    meta: dict[str, Any] = field(default_factory=dict, compare=False)
