"""CURRFAIRSHARE: keep the number of running jobs proportional to the target shares (PPAM'13 Sec. 4)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairsched.online.policies._registry import register
from fairsched.online.view import Assignment, OnlineView, ScenarioInfo, Tags


@register("currfairshare", tags=Tags(clairvoyant=False, randomized=False, greedy=True))
@dataclass
class CurrFairShare:
    """Start each job for the organization with the fewest running jobs per unit of target share.

    Implements CURRFAIRSHARE of PPAM'13 Sec. 4 ("does not keep any history; it only ensures that, for
    each organization, the number of currently executing jobs is proportional to its target share").
    The target share of u is m(u) / m; its load is ``view.running[u]`` plus the jobs of u already given a
    machine in this decision, so the ratio is updated after every start (unlike FAIRSHARE's).

    Sees: waiting and running counts, machines per organization. Never: processing times.

    Tie-breaks and rules
    --------------------
    - Equal ratios (compared exactly, by cross-multiplication): lowest organization index first.
    - An organization owning no machine (share 0) has an infinite ratio: served only when no organization
      with a positive share waits (then by lowest index).
    - Machines: not chosen (the engine uses the most recently freed ones).

    Complexity: O(k) per started job.

    Examples
    --------
    The scenario of `FairShare`'s example. At t = 2 nothing runs: the tie goes to organization 0 (job 2), then
    organization 1 has fewer running jobs (job 3). Both machines are busy until 5, when jobs 4 and 5 start; the
    history-based FAIRSHARE and UTFAIRSHARE gave organization 1 both machines at t = 2 instead.

    >>> from fairsched.online.engine import simulate
    >>> from fairsched.scenario import scenario_from_arrays
    >>> s = scenario_from_arrays(release=[0, 2, 2, 2, 2], processing_time=[1, 3, 3, 1, 1], org=[0, 0, 1, 1, 1],
    ...                          machines_per_org=[1, 1])
    >>> simulate(s, CurrFairShare()).schedule[["job", "start"]].to_numpy().tolist()
    [[1, 0], [2, 2], [3, 2], [4, 5], [5, 5]]
    """

    def reset(self, info: ScenarioInfo, rng: np.random.Generator) -> None:
        shares = info.machines_per_org.tolist()
        self.shares_ = shares
        self.positive_ = [u for u, share in enumerate(shares) if share > 0]
        self.zero_share_ = [u for u, share in enumerate(shares) if share <= 0]

    def decide(self, view: OnlineView) -> Assignment:
        waiting = view.waiting.tolist()
        load = view.running.tolist()
        orgs = np.empty(view.n_to_start, dtype=np.int64)
        for i in range(orgs.size):
            u = self._lowest_load(waiting, load)
            orgs[i] = u
            waiting[u] -= 1
            load[u] += 1
        return Assignment(orgs=orgs)

    def _lowest_load(self, waiting: list[int], load: list[int]) -> int:
        """Waiting organization with the smallest load / share; ties: lowest index; share 0 last."""
        shares = self.shares_
        best = -1
        for u in self.positive_:
            # load[u]/shares[u] < load[best]/shares[best], cross-multiplied; strict, so ties keep the lower u
            if waiting[u] and (best < 0 or load[u] * shares[best] < load[best] * shares[u]):
                best = u
        if best < 0:
            best = next(u for u in self.zero_share_ if waiting[u])
        return best
