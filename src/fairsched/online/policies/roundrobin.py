"""ROUNDROBIN: cycle through the organizations (Skowron & Rzadca, PPAM'13 Sec. 4; SPAA'13 Sec. 6.1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairsched.online.policies._registry import register
from fairsched.online.view import Assignment, OnlineView, ScenarioInfo, Tags


@register("roundrobin", tags=Tags(clairvoyant=False, randomized=False, greedy=True))
@dataclass
class RoundRobin:
    """Give each free machine to the next organization, in cyclic order, that has a waiting job.

    Implements ROUNDROBIN of PPAM'13 Sec. 4 ("cycles through the list of organizations").
    Tie-break: none needed; the cycle position persists across decision points, starting at organization 0,
    and after serving organization u the next candidate is u + 1 (mod k).
    Complexity: O(k) per started job.
    """

    def reset(self, info: ScenarioInfo, rng: np.random.Generator) -> None:
        self.n_orgs_ = info.n_orgs
        self.next_org_ = 0

    def decide(self, view: OnlineView) -> Assignment:
        waiting = view.waiting.copy()
        orgs = np.empty(view.n_to_start, dtype=np.int64)
        u = self.next_org_
        for i in range(orgs.size):
            while waiting[u] == 0:
                u = (u + 1) % self.n_orgs_
            orgs[i] = u
            waiting[u] -= 1
            u = (u + 1) % self.n_orgs_
        self.next_org_ = u
        return Assignment(orgs=orgs)
