"""LUF: largest utility first, on every machine (Networking'20 §VII, baseline for unequal utilities).

"On each machine at any time, we list tasks according to their utility values, and schedule the task that gives
the largest utility upon completion" (§VII-A2). Precisely: when machine i is free at time t it starts, among the
tasks of arrived jobs, the task (i, j) maximising U_j(t + p_ij − a_j), the utility job j would get if this task
were its last; utilities measure time from the job's arrival a_j (§VII-B2; offline a_j = 0). Ties: the earlier
job. Equal utilities make this min (p_ij − a_j) (shortest first offline); linear ones P_j·(τ − t − p_ij + a_j).
"""

from __future__ import annotations

import numpy as np

from fairsched.errors import ConfigError
from fairsched.openshop.engine import list_schedule
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
from fairsched.openshop.metrics import check_utilities, default_horizon
from fairsched.openshop.policies._registry import register


def luf(instance: OpenShopInstance, *, seed: int = 0, utilities: str = "equal",
        tau: float | None = None) -> OpenShopSchedule:
    """Largest utility (at the task's completion) first, non-preemptive; `seed` does not matter.

    Implements the LUF baseline of Networking'20 §VII (definition in the module docstring).
    O(tasks · (log tasks + distinct priorities)).

    Parameters
    ----------
    tau : τ of linear utilities U_j(t) = P_j·(τ − t) (a scalar); default `metrics.default_horizon`.

    Examples
    --------
    >>> inst = OpenShopInstance.from_dense([[3], [1]], priority=[10.0, 1.0])
    >>> luf(inst, utilities="linear").completion.tolist()   # τ = 4: 10·(4−3) = 10 beats 1·(4−1) = 3
    [3, 4]
    >>> luf(inst).completion.tolist()                       # equal utilities: the shortest first
    [4, 1]
    """
    kind = check_utilities(utilities)
    key = (instance.task_time - instance.arrival[instance.task_job()]).astype(np.float64)
    if kind == "equal":
        return list_schedule(instance, key, algorithm="luf")
    if tau is not None and np.ndim(tau) != 0:
        raise ConfigError("luf: tau must be one number (the horizon of U_j(t) = P_j·(τ − t))")
    weights, task_class = np.unique(instance.priority[instance.task_job()], return_inverse=True)
    horizon = default_horizon(instance) if tau is None else float(tau)
    return list_schedule(instance, key, task_class=task_class.astype(np.int64), class_weight=weights,
                         class_offset=np.full(weights.size, horizon), algorithm="luf")


register("luf", luf, event_driven=True)
