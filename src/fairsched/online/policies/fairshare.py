"""FAIRSHARE: serve the organization that used the least processor time per unit of share.

References
----------
P. Skowron, K. Rzadca, "Fair share is not enough: measuring fairness in scheduling with cooperative game
theory", PPAM 2013, LNCS 8385, Sec. 4 (FAIRSHARE, after J. Kay, P. Lauder, "A fair share scheduler",
CACM 31(1), 1988). The target share of an organization is the fraction of the machines it contributes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from fairsched.errors import ConfigError
from fairsched.online.policies._ordering import fill_in_order, lowest_ratio_first
from fairsched.online.policies._registry import register
from fairsched.online.view import Assignment, OnlineView, ScenarioInfo, Tags


@register("fairshare", tags=Tags(clairvoyant=False, randomized=False, greedy=True))
@dataclass
class FairShare:
    """Start jobs of the organization with the lowest (processor time used so far) / (target share).

    Implements FAIRSHARE of PPAM'13 Sec. 4. The target share of organization u is m(u) / m (PPAM'13:
    "the fraction of processors contributed by an organization"); processor time used so far is
    ``view.work_done[u]``, the unit parts of u's jobs executed before now (known without clairvoyance).

    Parameters
    ----------
    ratios : when the ratios are evaluated within one decision (an ablation of docs/replication/ppam13.md):
        - "frozen" (default): once, at now; a job started at t adds no usage before t + 1, so the lowest-ratio
          organization takes free machines until its queue is empty, then the next one;
        - "per_start": after every start, on the usage each organization will have at t + 1 given the starts
          decided so far (`projected_usage` plus one unit per job started now): a started job counts at once,
          so free machines are spread over the organizations (the analogue of REF's lookahead rule).

    Sees: waiting counts, work done, machines per organization. Never: processing times.

    Tie-breaks and rules
    --------------------
    - See `ratios` for when the ratios are evaluated.
    - Equal ratios (compared exactly): lowest organization index first.
    - An organization owning no machine (share 0) has an infinite ratio: served only when no organization
      with a positive share waits.
    - Machines: not chosen (the engine uses the most recently freed ones).

    Complexity: O(k log k) per decision, plus O(1) per started job ("per_start": O(k) per started job).

    Examples
    --------
    The three fair-share policies part on this scenario (the same in `UtFairShare` and `CurrFairShare`). At
    t = 2 organization 0 has used 1 unit (job 1) and organization 1 none, so organization 1 takes both free
    machines (jobs 3 and 4: ratios are frozen within a decision). At t = 3 one machine frees; organization 0 has
    used 1 unit, organization 1 two, so job 2 goes before job 5.

    >>> from fairsched.online.engine import simulate
    >>> from fairsched.scenario import scenario_from_arrays
    >>> s = scenario_from_arrays(release=[0, 2, 2, 2, 2], processing_time=[1, 3, 3, 1, 1], org=[0, 0, 1, 1, 1],
    ...                          machines_per_org=[1, 1])
    >>> simulate(s, FairShare()).schedule[["job", "start"]].to_numpy().tolist()
    [[1, 0], [3, 2], [4, 2], [2, 3], [5, 5]]
    """

    ratios: Literal["frozen", "per_start"] = "frozen"

    def reset(self, info: ScenarioInfo, rng: np.random.Generator) -> None:
        if self.ratios not in ("frozen", "per_start"):
            raise ConfigError(f"ratios={self.ratios!r}; expected 'frozen' or 'per_start'")
        self.shares_ = info.machines_per_org.tolist()

    def usage(self, view: OnlineView) -> np.ndarray:
        """What the policy balances against the shares: here, unit parts executed before now."""
        return view.work_done

    def projected_usage(self, view: OnlineView) -> np.ndarray:
        """`usage` at now + 1 if no job started now: here, unit parts executed before now + 1."""
        return view.work_done + view.running

    def decide(self, view: OnlineView) -> Assignment:
        waiting = view.waiting.tolist()  # Python ints: small k, exact products
        if self.ratios == "per_start":
            return Assignment(orgs=self._per_start(waiting, self.projected_usage(view).tolist(), view.n_to_start))
        candidates = [u for u, count in enumerate(waiting) if count]
        if len(candidates) > 1:
            candidates = lowest_ratio_first(self.usage(view).tolist(), self.shares_, candidates)
        return Assignment(orgs=fill_in_order(candidates, waiting, view.n_to_start))

    def _per_start(self, waiting: list[int], usage: list[int], n_to_start: int) -> np.ndarray:
        """One start at a time to the lowest (usage + started now) / share; each start adds one unit."""
        orgs = np.empty(n_to_start, dtype=np.int64)
        for i in range(n_to_start):
            candidates = [u for u, count in enumerate(waiting) if count]
            u = lowest_ratio_first(usage, self.shares_, candidates)[0]
            orgs[i] = u
            waiting[u] -= 1
            usage[u] += 1
        return orgs
