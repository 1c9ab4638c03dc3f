"""RAND: REF's selection rule with contributions estimated from randomly sampled coalitions.

References
----------
P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory approach", SPAA 2013 (long
version, arXiv 1302.0948), Sec. 5.1, Algorithm 3 (an FPRAS for unit-size jobs), used as a heuristic for jobs of
any size in Sec. 6.1 ("RAND", N = 15 and N = 75). Antithetic orderings: R. Mitchell, J. Cooper, E. Frank,
G. Holmes, "Sampling permutations for Shapley value estimation", JMLR 23(43), 2022, Sec. 3.1. Stratified by
coalition size: S. Maleki et al., "Bounding the estimation error of sampling-based Shapley value
approximation", arXiv 1306.4265, 2013.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from fairsched.errors import ConfigError
from fairsched.online._coalitions import ReplayDecisions, sampled_coalitions, simulate_coalitions
from fairsched.online.policies._registry import register
from fairsched.online.policies.ref import check_clairvoyant_info
from fairsched.online.view import ScenarioInfo, Tags
from fairsched.shapley import _stratum_masks, prefix_coalitions, sample_permutations


@register("rand", tags=Tags(clairvoyant=True, randomized=True, greedy=True))
@dataclass
class Rand(ReplayDecisions):
    """Serve the organization whose utility lags its sampled Shapley value most.

    Implements SPAA'13 Algorithm 3 as a heuristic (Sec. 6.1): N orderings of the organizations are drawn once,
    at t = 0, from ``rng`` (`fairsched.shapley.sample_permutations`). For every ordering and organization u,
    the coalitions B = "organizations before u" and B ∪ {u} are kept (deduplicated; at most N(k−1) + 1
    non-empty ones, the grand coalition included). Each kept coalition is simulated with one fixed greedy
    policy, FIFO by release time across its members (ties: record order), with no Shapley inside (Alg. 3,
    lines 26–31). Then φ_u = mean over the orderings of v(B ∪ {u}) − v(B) (lines 32–37), and the grand
    coalition's free machines go by φ − ψ with REF's rules (`Ref`, parameter ``select``), ties included.

    Parameters
    ----------
    n_orderings : N, orderings drawn (the paper uses 15 and 75).
    select : "lookahead" (default) or "literal", as for `Ref`.
    estimator : how φ is formed from the sampled coalitions (an ablation of docs/replication/ppam13.md):
        - "orderings" (default): φ_u = (1/N) Σ over the N orderings of v(B ∪ {u}) − v(B), B the organizations
          before u in that ordering — the permutation-sampling estimate of the Shapley value;
        - "printed": SPAA'13 Alg. 3 lines 35–37 as printed: Subs is the *set* of every prefix B kept by line 9
          (all orderings, all positions, duplicates merged), and φ_u = (1/N) Σ over B ∈ Subs with u ∉ B of
          v(B ∪ {u}) − v(B); the number of terms per organization varies, so Σ_u φ_u ≠ v(grand) in general.

    Sees: the jobs table with processing times (clairvoyant: the kept coalitions are simulated). Randomness:
    one ``rng.permuted`` call at reset. Complexity: O(N·k) per contended decision plus the simulation of at
    most N(k−1) + 2 coalitions.

    Deviations
    ----------
    - The value of the grand coalition in φ (u last in an ordering) is that of its FIFO simulation, like every
      kept coalition's (Alg. 3 keeps it in Subs'), not that of RAND's own schedule; with unit-size jobs the two
      are equal (SPAA'13 Prop. 5.4), in general they differ.
    - The "lookahead" rule is fairsched's, as for `Ref`.

    Examples
    --------
    With unit-size jobs every greedy schedule has the same coalition values (SPAA'13 Prop. 5.4), and with two
    organizations every ordering is one of the two: RAND then finds REF's φ and schedule.

    >>> from fairsched.online.engine import simulate
    >>> from fairsched.scenario import scenario_from_arrays
    >>> s = scenario_from_arrays(release=[0, 0, 0, 1, 1], processing_time=[1, 1, 1, 1, 1], org=[0, 0, 0, 1, 1],
    ...                          machines_per_org=[1, 1])
    >>> simulate(s, Rand(n_orderings=15), seed=0).schedule[["job", "start"]].to_numpy().tolist()
    [[1, 0], [2, 0], [4, 1], [5, 1], [3, 2]]
    """

    n_orderings: int = 15
    select: Literal["lookahead", "literal"] = "lookahead"
    estimator: Literal["orderings", "printed"] = "orderings"

    def terms(self, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(organization u, coalition B before u, weight) of every sampled marginal contribution."""
        before = prefix_coalitions(sample_permutations(k, self.n_orderings, rng, antithetic=self._antithetic))
        n = before.shape[0]
        if self.estimator == "printed":
            return printed_terms(k, before, n)
        if self.estimator != "orderings":
            raise ConfigError(f"estimator={self.estimator!r}; expected 'orderings' or 'printed'")
        return np.tile(np.arange(k, dtype=np.int64), n), before.ravel(), np.full(n * k, 1.0 / n)

    _antithetic = False

    def reset(self, info: ScenarioInfo, rng: np.random.Generator) -> None:
        check_clairvoyant_info(info, self.name)
        org, before, weight = self.terms(info.n_orgs, rng)
        self.run_ = simulate_coalitions(info.jobs, np.asarray(info.machines_per_org),
                                        sampled_coalitions(info.n_orgs, org, before, weight), select=self.select,
                                        horizon=info.horizon)
        self.next_decision_ = 0


def printed_terms(k: int, before: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """SPAA'13 Alg. 3 lines 35–37 as printed: every distinct kept prefix B ∌ u, for every u, with weight 1/N.

    >>> org, before, weight = printed_terms(2, np.array([[0, 1], [0, 1]]), 2)  # N = 2, both orderings (0, 1)
    >>> org.tolist(), before.tolist(), weight.tolist()  # Subs = {∅, {0}}: u = 0 gets ∅; u = 1 gets ∅ and {0}
    ([0, 1, 1], [0, 0, 1], [0.5, 0.5, 0.5])
    """
    subs = np.unique(np.asarray(before, dtype=np.int64))
    orgs, befores = [], []
    for u in range(k):
        mine = subs[((subs >> u) & 1) == 0]
        orgs.append(np.full(mine.size, u, dtype=np.int64))
        befores.append(mine)
    org = np.concatenate(orgs)
    return org, np.concatenate(befores), np.full(org.size, 1.0 / n)


@register("rand-antithetic", tags=Tags(clairvoyant=True, randomized=True, greedy=True))
@dataclass
class RandAntithetic(Rand):
    """RAND with antithetic orderings: n_orderings / 2 random orderings, each used with its reverse.

    An ordering and its reverse put each organization after complementary sets of others, which cancels much
    of the sampling error (Mitchell et al. 2022, Sec. 3.1). ``n_orderings`` counts both (it must be even); the
    default 16 is the even number next to the paper's N = 15. See `Rand`.
    """

    n_orderings: int = 16
    _antithetic = True


@register("rand-stratified", tags=Tags(clairvoyant=True, randomized=True, greedy=True))
@dataclass
class RandStratified(Rand):
    """RAND with coalitions sampled per size: φ_u = (1/k) Σ_s mean over sampled B ∌ u with |B| = s.

    SPAA'13 Eq. (1) gives every size s = 0..k−1 of the coalitions B ∌ u the total weight 1/k. Each stratum
    (u, s) takes ``n_per_stratum`` coalitions drawn uniformly without replacement, or all of them when it has
    no more (`fairsched.shapley` stratified sampling; Maleki et al. 2013). The default 3 gives, at k = 5,
    15 marginal contributions per organization, the budget of RAND with N = 15. ``n_orderings`` is unused.
    """

    n_per_stratum: int = 3

    def terms(self, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if int(self.n_per_stratum) != self.n_per_stratum or self.n_per_stratum < 1:
            raise ConfigError(f"n_per_stratum = {self.n_per_stratum!r}; expected a positive integer")
        orgs, befores, weights = [], [], []
        for u in range(k):
            for size in range(k):
                masks = _stratum_masks(k, u, size, int(self.n_per_stratum), rng)
                orgs.append(np.full(masks.size, u, dtype=np.int64))
                befores.append(masks)
                weights.append(np.full(masks.size, 1.0 / (k * masks.size)))
        return np.concatenate(orgs), np.concatenate(befores), np.concatenate(weights)
