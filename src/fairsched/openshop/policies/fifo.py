"""FIFO: every machine runs its tasks in the order the jobs arrived (Networking'20 §VII, baseline).

"We list jobs based on their arrival times and schedule tasks on each machine according to this list" (§VII);
online, a machine with no arrived task idles until the next arrival (§VII-B). Jobs are indexed by arrival, so
this is the permutation 0..n-1 evaluated with releases.
"""

from __future__ import annotations

import numpy as np

from fairsched.openshop.engine import evaluate_permutation
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
from fairsched.openshop.metrics import check_utilities
from fairsched.openshop.policies._registry import register


def fifo(instance: OpenShopInstance, *, seed: int = 0, utilities: str = "equal") -> OpenShopSchedule:
    """First in, first out on every machine, non-preemptive; `seed` and `utilities` do not matter. O(tasks).

    Implements the FIFO baseline of Networking'20 §VII (offline: all arrivals 0; online: §VII-B).

    Examples
    --------
    >>> inst = OpenShopInstance.from_dense([[3, 1], [1, 0], [0, 2]], arrival=[0, 0, 2])
    >>> fifo(inst).completion.tolist()
    [3, 4, 4]
    """
    check_utilities(utilities)
    return evaluate_permutation(instance, np.arange(instance.n_jobs, dtype=np.int64), release=True,
                                algorithm="fifo")


register("fifo", fifo, event_driven=True)
