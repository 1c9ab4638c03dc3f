"""ROUNDROBIN: cycle through the organizations (Skowron & Rzadca, PPAM'13 Sec. 4; SPAA'13 Sec. 6.1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairsched.online.policies._registry import register
from fairsched.online.view import Assignment, OnlineView, ScenarioInfo, Tags

# Up to this many jobs per decision, a plain loop over the cycle is cheapest; above it (e.g. a parallel job
# expanded into hundreds of copies) the cycle is computed round by round with numpy. Both give the same orgs.
_LOOP_MAX_JOBS = 2


@register("roundrobin", tags=Tags(clairvoyant=False, randomized=False, greedy=True))
@dataclass
class RoundRobin:
    """Give each free machine to the next organization, in cyclic order, that has a waiting job.

    Implements ROUNDROBIN of PPAM'13 Sec. 4 ("cycles through the list of organizations").
    Tie-break: none needed; the cycle position persists across decision points, starting at organization 0,
    and after serving organization u the next candidate is u + 1 (mod k). Machines: not chosen (the engine
    uses the most recently freed ones).
    Complexity: O(k) per started job for small decisions; O(k * rounds) vectorized for large ones.

    Examples
    --------
    >>> from fairsched.online.engine import simulate
    >>> from fairsched.scenario import scenario_from_arrays
    >>> s = scenario_from_arrays(release=[0, 0, 1, 1], processing_time=[2, 1, 1, 1], org=[0, 0, 0, 1],
    ...                          machines_per_org=[1, 1])
    >>> simulate(s, RoundRobin()).schedule[["job", "start"]].to_numpy().tolist()
    [[1, 0], [2, 0], [4, 1], [3, 2]]
    """

    def reset(self, info: ScenarioInfo, rng: np.random.Generator) -> None:
        self.n_orgs_ = info.n_orgs
        self.next_org_ = 0

    def decide(self, view: OnlineView) -> Assignment:
        if view.n_to_start <= _LOOP_MAX_JOBS:
            return Assignment(orgs=self._cycle_loop(view.waiting.tolist(), view.n_to_start))
        return Assignment(orgs=self._cycle_rounds(view.waiting, view.n_to_start))

    def _cycle_loop(self, waiting: list[int], n_to_start: int) -> np.ndarray:
        orgs = np.empty(n_to_start, dtype=np.int64)
        u = self.next_org_
        for i in range(n_to_start):
            while waiting[u] == 0:
                u = (u + 1) % self.n_orgs_
            orgs[i] = u
            waiting[u] -= 1
            u = (u + 1) % self.n_orgs_
        self.next_org_ = u
        return orgs

    def _cycle_rounds(self, waiting: np.ndarray, n_to_start: int) -> np.ndarray:
        """The same cycle: in round r, every organization with more than r waiting jobs, in cyclic order."""
        k = self.n_orgs_
        cyclic = (np.arange(k) + self.next_org_) % k  # organizations in the order the cycle visits them
        counts = waiting[cyclic]
        rounds = min(n_to_start, int(counts.max()))  # enough: each round serves >= 1 job until n_to_start
        served = np.arange(rounds)[:, None] < counts[None, :]  # (round, position in cycle)
        visits = np.flatnonzero(served.ravel())[:n_to_start] % k
        self.next_org_ = int(cyclic[visits[-1]] + 1) % k
        return cyclic[visits]
