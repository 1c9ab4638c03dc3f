"""SPTF: shortest processing time first, on every machine (Networking'20 §VII, baseline).

Deviation: §VII says SPTF lists the tasks of each machine "in non-increasing order of their processing times",
which is longest first and contradicts the name "shortest processing time first" (and its usual meaning, which
minimises the mean completion time on one machine). We follow the name: non-decreasing, shortest first; ties by
job arrival (index). Online (§VII-B) the list is updated on arrivals and a running task is never preempted.
The literal reading is `lptf`. Run side by side (docs/replication/networking20.md, "Which SPTF", where the
verdicts are rendered from the data), PBA loses to this baseline on every claim the paper makes against SPTF,
while against `lptf` it wins on all of them, with the paper's ratio on most; neither reading puts SPTF between PBA
and FIFO as the paper does.
"""

from __future__ import annotations

from fairsched.openshop.engine import list_schedule
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
from fairsched.openshop.metrics import check_utilities
from fairsched.openshop.policies._registry import register


def sptf(instance: OpenShopInstance, *, seed: int = 0, utilities: str = "equal") -> OpenShopSchedule:
    """Each machine, when free, starts its shortest task among arrived jobs; `seed`, `utilities` do not matter.

    Implements the SPTF baseline of Networking'20 §VII (shortest first, see the module docstring).
    O(tasks · log tasks).

    Examples
    --------
    >>> inst = OpenShopInstance.from_dense([[3, 1], [1, 0], [2, 2]])
    >>> sptf(inst).completion.tolist()    # machine 0 runs 1, 2, 3; machine 1 runs 1, 2
    [6, 1, 3]
    """
    check_utilities(utilities)
    return list_schedule(instance, instance.task_time.astype(float), algorithm="sptf")


register("sptf", sptf, event_driven=True)
