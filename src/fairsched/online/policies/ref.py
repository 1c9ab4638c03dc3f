"""REF: the exact Shapley-fair schedule, the fairness benchmark every other online policy is measured against.

References
----------
P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory approach", SPAA 2013 (long
version, arXiv 1302.0948), Sec. 3: Def. 3.1 and 3.2, Algorithm 1 with SelectAndSchedule for ψsp of
Algorithm 2 (Sec. 5). Called REF in P. Skowron, K. Rzadca, "Fair share is not enough", PPAM 2013, Sec. 4.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from fairsched.errors import ConfigError
from fairsched.online._coalitions import ReplayDecisions, all_coalitions, simulate_coalitions
from fairsched.online.policies._registry import register
from fairsched.online.view import ScenarioInfo, Tags

DEFAULT_MAX_ORGS = 16


def check_clairvoyant_info(info: ScenarioInfo, name: str) -> None:
    """Benchmarks that simulate hypothetical schedules need the processing times (`ScenarioInfo.jobs`)."""
    if info.jobs is None:
        raise ConfigError(f"{name} simulates every coalition's schedule and needs the processing times; run it "
                          "through fairsched.online.engine.simulate, which passes ScenarioInfo.jobs to policies "
                          "tagged clairvoyant=True")


@register("ref", tags=Tags(clairvoyant=True, randomized=False, greedy=True))
@dataclass
class Ref(ReplayDecisions):
    """Start the head job of the organization whose utility lags its Shapley value most, in every coalition.

    Implements SPAA'13 Algorithm 1 with Algorithm 2 (utility ψsp, Eq. (3)): a schedule σ[C] is kept for every
    non-empty coalition C (C pools its members' machines and runs only its members' jobs); v(S, t) =
    Σ_{u∈S} ψ_u(σ[S], t) with σ[S] REF's own schedule for S (recursive, Def. 3.1 item 4). When C has more
    waiting jobs than free machines, the free machines go by φ^C − ψ^C, φ^C being the Shapley values of the
    game restricted to subsets of C. Singletons are plain FIFO. Contributions come from the Hart–Mas-Colell
    potential of `fairsched.shapley`; the simulation of all 2**k coalitions runs in one compiled kernel
    (`fairsched.online._coalitions`) at `reset`, and `decide` replays the grand coalition's decisions (the
    engine re-simulates and validates them).

    Parameters
    ----------
    select : "lookahead" (default) or "literal", how free machines are shared under contention:
        - "literal" (SPAA'13 Alg. 2): the head job of argmax_u (φ_u(t) − ψ_u(t)); neither changes within t (a
          job started at t adds 0 to ψsp(t)), so that organization takes machines until its queue is empty;
        - "lookahead": machines one at a time to argmax_u (g_u − x_u), g_u = φ_u(t+1) − (ψ_u + W_u + n_u)(t),
          x_u the machines already given to u at t: minimizes Σ_u |φ_u(t+1) − ψ_u(t+1)| exactly.
        Ties (within the float64 error bound of the potential) go to the lowest organization index.
    check_efficiency : assert Σ_u φ^C_u = v(C) at every decision that computes φ (InvariantError otherwise).
    max_orgs : refuse more organizations than this (2**k schedules; time and memory grow as 2**k and 3**k).

    Sees: the scenario's jobs table, processing times included (a clairvoyant benchmark, not a policy a
    real system could run). Complexity: O(k·2^k) per contended decision of the grand coalition, O(3^k·k)
    summed over all coalitions; memory O(2^k·(k + m)).

    Deviations
    ----------
    - "lookahead" is fairsched's: the paper's literal rule gives every free machine at t to one
      organization, because a job started at t changes ψsp only from t + 1 on.
    - Contributions are float64 (the Shapley weights are rationals); values closer than the proven rounding
      bound (`fairsched.shapley.shapley_error_bound`) count as ties.

    Examples
    --------
    Organizations 0 and 1 own one machine each; 0 releases three unit jobs at t = 0, 1 two at t = 1. At t = 1
    two machines are free for three waiting jobs. v({0}, 1) = 1, v({1}, 1) = 0 and v({0, 1}, 1) = 2, so
    φ = (1.5, 0.5) while ψ = (2, 0): organization 1 takes both machines, job 3 waits until t = 2.

    >>> from fairsched.online.engine import simulate
    >>> from fairsched.scenario import scenario_from_arrays
    >>> s = scenario_from_arrays(release=[0, 0, 0, 1, 1], processing_time=[1, 1, 1, 1, 1], org=[0, 0, 0, 1, 1],
    ...                          machines_per_org=[1, 1])
    >>> simulate(s, Ref(select="literal")).schedule[["job", "start"]].to_numpy().tolist()
    [[1, 0], [2, 0], [4, 1], [5, 1], [3, 2]]
    """

    select: Literal["lookahead", "literal"] = "lookahead"
    check_efficiency: bool = False
    max_orgs: int = DEFAULT_MAX_ORGS

    def reset(self, info: ScenarioInfo, rng: np.random.Generator) -> None:
        check_clairvoyant_info(info, self.name)
        k = info.n_orgs
        if k > self.max_orgs:
            raise ConfigError(f"exact REF simulates all 2**k coalitions; k={k} means {2**k:,} schedules — use "
                              f"--policy rand or a time window (limit: k <= {self.max_orgs}, as time grows as 3**k "
                              "and memory as 2**k)")
        self.run_ = simulate_coalitions(info.jobs, np.asarray(info.machines_per_org), all_coalitions(k),
                                        select=self.select, check_efficiency=self.check_efficiency,
                                        horizon=info.horizon)
        self.next_decision_ = 0


@register("ref-literal", tags=Tags(clairvoyant=True, randomized=False, greedy=True))
@dataclass
class RefLiteral(Ref):
    """REF with the paper's literal selection rule (SPAA'13 Algorithm 2); see `Ref`."""

    select: Literal["lookahead", "literal"] = "literal"
