"""FAIRSHARE: serve the organization that used the least processor time per unit of share.

References
----------
P. Skowron, K. Rzadca, "Fair share is not enough: measuring fairness in scheduling with cooperative game
theory", PPAM 2013, LNCS 8385, Sec. 4 (FAIRSHARE, after J. Kay, P. Lauder, "A fair share scheduler",
CACM 31(1), 1988). The target share of an organization is the fraction of the machines it contributes.

This module also holds the two steps the fair-share family and DIRECTCONTR build on:
`lowest_ratio_first` (an exact ordering of organizations by usage / share) and `fill_in_order` (each
organization in priority order takes machines until its queue is empty).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cmp_to_key

import numpy as np

from fairsched.online.policies._registry import register
from fairsched.online.view import Assignment, OnlineView, ScenarioInfo, Tags


def lowest_ratio_first(usage: Sequence[int], shares: Sequence[int], candidates: Sequence[int]) -> list[int]:
    """`candidates` sorted by ``usage[u] / shares[u]`` ascending, compared exactly; ties: lowest index.

    The share of u is m(u) / m; the common factor m cancels, so `shares` may be m(u) itself. Ratios are
    compared by cross-multiplying Python ints (usage may be psi, up to ~1e18: floats would merge distinct
    ratios and int64 products would overflow). An organization with share 0 has an infinite ratio: it
    comes after every organization with a positive share, and such organizations keep index order.
    `candidates` must be ascending (the stable sort then breaks ties by index).

    >>> lowest_ratio_first([6, 6, 0], [1, 2, 0], [0, 1, 2])   # ratios 6, 3, inf
    [1, 0, 2]
    """
    positive = [u for u in candidates if shares[u] > 0]
    infinite = [u for u in candidates if shares[u] <= 0]

    def compare(a: int, b: int) -> int:
        lhs, rhs = usage[a] * shares[b], usage[b] * shares[a]  # usage[a]/shares[a] vs usage[b]/shares[b]
        return (lhs > rhs) - (lhs < rhs)

    positive.sort(key=cmp_to_key(compare))
    return positive + infinite


def fill_in_order(order: Sequence[int], waiting: Sequence[int] | np.ndarray, n_to_start: int) -> np.ndarray:
    """One organization per job to start: ``order[0]`` takes all its waiting jobs, then ``order[1]``, ...

    This is what "start a job of the best organization" does, job after job, when the priorities do not
    change within one decision (a job started at t adds no usage before t + 1). O(len(order) + n_to_start).

    >>> fill_in_order([2, 0], [5, 0, 2], 4).tolist()
    [2, 2, 0, 0]
    """
    if n_to_start == 0:
        return np.empty(0, dtype=np.int64)
    if waiting[order[0]] >= n_to_start:  # the common case: one organization fills every free machine
        return np.full(n_to_start, order[0], dtype=np.int64)
    takes: list[int] = []
    left = n_to_start
    for u in order:
        take = min(int(waiting[u]), left)
        takes.append(take)
        left -= take
        if left == 0:
            break
    return np.repeat(np.asarray(order[:len(takes)], dtype=np.int64), takes)


@register("fairshare", tags=Tags(clairvoyant=False, randomized=False, greedy=True))
@dataclass
class FairShare:
    """Start jobs of the organization with the lowest (processor time used so far) / (target share).

    Implements FAIRSHARE of PPAM'13 Sec. 4. The target share of organization u is m(u) / m (PPAM'13:
    "the fraction of processors contributed by an organization"); processor time used so far is
    ``view.work_done[u]``, the unit parts of u's jobs executed before now (known without clairvoyance).

    Sees: waiting counts, work done, machines per organization. Never: processing times.

    Tie-breaks and rules
    --------------------
    - A job started at t adds no usage before t + 1, so the ratios are fixed within one decision: the
      lowest-ratio organization takes free machines until its queue is empty, then the next one.
    - Equal ratios (compared exactly): lowest organization index first.
    - An organization owning no machine (share 0) has an infinite ratio: served only when no organization
      with a positive share waits.
    - Machines: not chosen (the engine uses the most recently freed ones).

    Complexity: O(k log k) per decision, plus O(1) per started job.

    Examples
    --------
    At t = 1 one machine frees; organization 0 used 2 units, organization 1 none, so job 4 goes first.

    >>> from fairsched.online.engine import simulate
    >>> from fairsched.scenario import scenario_from_arrays
    >>> s = scenario_from_arrays(release=[0, 0, 1, 1], processing_time=[2, 1, 1, 1], org=[0, 0, 0, 1],
    ...                          machines_per_org=[1, 1])
    >>> simulate(s, FairShare()).schedule[["job", "start"]].to_numpy().tolist()
    [[1, 0], [2, 0], [4, 1], [3, 2]]
    """

    def reset(self, info: ScenarioInfo, rng: np.random.Generator) -> None:
        self.shares_ = info.machines_per_org.tolist()

    def usage(self, view: OnlineView) -> np.ndarray:
        """What the policy balances against the shares: here, unit parts executed before now."""
        return view.work_done

    def decide(self, view: OnlineView) -> Assignment:
        waiting = view.waiting.tolist()  # Python ints: small k, exact products
        candidates = [u for u, count in enumerate(waiting) if count]
        if len(candidates) > 1:
            candidates = lowest_ratio_first(self.usage(view).tolist(), self.shares_, candidates)
        return Assignment(orgs=fill_in_order(candidates, waiting, view.n_to_start))
