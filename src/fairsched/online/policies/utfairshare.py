"""UTFAIRSHARE: FAIRSHARE balancing utilities psi_sp instead of processor time (PPAM'13 Sec. 4)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairsched.online.policies._registry import register
from fairsched.online.policies.fairshare import FairShare
from fairsched.online.view import OnlineView, Tags


@register("utfairshare", tags=Tags(clairvoyant=False, randomized=False, greedy=True))
@dataclass
class UtFairShare(FairShare):
    """Start jobs of the organization with the lowest (utility psi_sp so far) / (target share).

    Implements UTFAIRSHARE of PPAM'13 Sec. 4 ("in each step the job of the organization with the smallest
    ratio of utility to share is selected"); the utility is ``view.psi`` (SPAA'13 Eq. (3)) and the share
    m(u) / m, as for `FairShare`, from which every rule is inherited:

    - the ratios are fixed within one decision (a job started at t adds no utility before t + 1), so the
      lowest-ratio organization takes free machines until its queue is empty, then the next one;
    - equal ratios (compared exactly, in Python ints): lowest organization index first;
    - an organization owning no machine has an infinite ratio;
    - machines are not chosen (the engine uses the most recently freed ones).

    Complexity: O(k log k) per decision, plus O(1) per started job.

    Examples
    --------
    The scenario of `FairShare`'s example. At t = 3 organization 0's one unit (executed at 0) is worth
    psi = 3 - 0 = 3, organization 1's two units (executed at 2) psi = 1 + 1 = 2, so job 5 goes before job 2,
    where FAIRSHARE (1 unit against 2) serves organization 0 first. At t = 4, psi = 4 against 6: job 2.

    >>> from fairsched.online.engine import simulate
    >>> from fairsched.scenario import scenario_from_arrays
    >>> s = scenario_from_arrays(release=[0, 2, 2, 2, 2], processing_time=[1, 3, 3, 1, 1], org=[0, 0, 1, 1, 1],
    ...                          machines_per_org=[1, 1])
    >>> simulate(s, UtFairShare()).schedule[["job", "start"]].to_numpy().tolist()
    [[1, 0], [3, 2], [4, 2], [5, 3], [2, 4]]
    """

    def usage(self, view: OnlineView) -> np.ndarray:
        """What the policy balances against the shares: the utility psi_sp at now."""
        return view.psi

    def projected_usage(self, view: OnlineView) -> np.ndarray:
        """psi_sp at now + 1 if no job started now: every finished unit gains 1, every running job adds 1."""
        return view.psi + view.work_done + view.running
