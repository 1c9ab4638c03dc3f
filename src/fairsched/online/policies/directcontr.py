"""DIRECTCONTR: serve the organization whose utility lags its directly estimated contribution most.

References
----------
P. Skowron, K. Rzadca, "Fair share is not enough: measuring fairness in scheduling with cooperative game
theory", PPAM 2013, LNCS 8385, Sec. 4, Algorithm 1 (event-driven). The same heuristic, time-stepped:
P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory approach", SPAA 2013 (long
version, arXiv 1302.0948), Sec. 6.1, Algorithm 4.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from fairsched.errors import ConfigError
from fairsched.online.policies._machine_order import random_machine_order
from fairsched.online.policies._ordering import fill_in_order
from fairsched.online.policies._registry import register
from fairsched.online.view import Assignment, OnlineView, ScenarioInfo, Tags


def largest_lag_first(lag: Sequence[int], waiting: Sequence[int]) -> list[int]:
    """Organizations with waiting jobs, by decreasing ``lag`` (phi - psi); ties: lowest index first.

    >>> largest_lag_first([3, -1, 3, 9], [1, 2, 4, 0])
    [0, 2, 1]
    """
    candidates = [u for u, count in enumerate(waiting) if count]
    return sorted(candidates, key=lambda u: -lag[u]) if len(candidates) > 1 else candidates  # stable: ties by u


@register("directcontr", tags=Tags(clairvoyant=False, randomized=True, greedy=True))
@dataclass
class DirectContr:
    """Give free machines, in random order, to the organization with the largest phi - psi.

    Implements PPAM'13 Algorithm 1 (DIRECTCONTR), equivalently SPAA'13 Algorithm 4. For organization u,
    psi[u] is the utility psi_sp of u's jobs (``view.psi``; SPAA'13 Eq. (3)) and phi[u] its directly
    estimated contribution: the same utility, credited to the owner of the *machine* that executed each
    unit, whoever owned the job (``view.psi_by_machine_owner``). Both accrue exactly as psi_sp does.

    At each decision the free machines are visited in a fresh uniformly random order
    (`random_machine_order`); each takes the head (earliest released) job of the waiting organization
    with the largest phi - psi (Algorithm 1, lines 17–21).

    Parameters
    ----------
    update : how lines 15–16 of Algorithm 1 credit the utility of the units executed since the previous event
        (an ablation of docs/replication/ppam13.md):
        - "corrected" (default): to psi of the job's owner and phi of the machine's owner;
        - "printed": as printed, to phi of the job's owner and psi of the machine's owner. Lines 7–8 and 13–14
          (the units finished before the interval) stay as printed, so over each interval (t_prev, t] the lag
          phi - psi of u moves by 2 (X_u - Y_u) away from the corrected one, X_u (Y_u) being the value at t of
          the units executed in the interval by u's jobs (on u's machines). The policy sees only decision
          points, so t_prev is the previous decision (see Deviations).
    machines : the order free machines are handed out in (an ablation of docs/replication/ppam13.md):
        "random" (default; Algorithm 1 line 9) or "lowest" id first — machines are numbered organization by
        organization, so the first organizations' machines run most jobs and their owners earn most of phi.

    Sees: waiting counts, psi and phi, free machine ids. Never: processing times.

    Tie-breaks and rules
    --------------------
    - phi - psi does not change within one decision (a job started at t accrues nothing before t + 1;
      SPAA'13 Alg. 4 lines 23–24 update only the counters finUt/finCon), so the top organization takes
      machines until its queue is empty, then the next one.
    - Equal phi - psi: lowest organization index first.
    - Randomness: exactly one ``rng.random(n_to_start)`` call per decision, inside `random_machine_order`.

    Deviations
    ----------
    - PPAM'13 Algorithm 1, lines 15–16, add the interval's utility ``Δ(Δ+1)/2`` of a running job to
      phi[own(J)] and psi[own(m)]: psi and phi are swapped there. As fairsched corrects it, the
      units executed during the interval add ``Δ(Δ+1)/2`` to psi of the *job's* owner and to phi of the
      *machine's* owner, consistent with lines 7–8 and 13–14 and with SPAA'13 Algorithm 4 (lines 10–17).
    - Line 9 permutes all processors at every event; we draw only the order of the free machines, and
      only its first n_to_start entries, and only when a decision is needed. The assignment has the same
      distribution (busy machines are skipped by lines 17–18), but the random stream differs from a
      literal transcription.
    - ``update="printed"``: Algorithm 1 runs Schedule at every event, the engine calls the policy only at
      decision points; X_u and Y_u are taken over the interval between two decisions (exact when every event
      in between is a decision, as under contention; otherwise the cross terms of the skipped events are
      credited as lines 15–16 print them, not as lines 7–8 would).

    Complexity: O(m) per decision for the free machine ids, O(k log k) for the ordering.

    Examples
    --------
    At t = 1, psi = (2, 0) and phi = (1, 1) whichever machine each job got, so organization 1 goes first.

    >>> from fairsched.online.engine import simulate
    >>> from fairsched.scenario import scenario_from_arrays
    >>> s = scenario_from_arrays(release=[0, 0, 1, 1], processing_time=[2, 1, 1, 1], org=[0, 0, 0, 1],
    ...                          machines_per_org=[1, 1])
    >>> simulate(s, DirectContr(), seed=3).schedule[["job", "start"]].to_numpy().tolist()
    [[1, 0], [2, 0], [4, 1], [3, 2]]
    """

    update: Literal["corrected", "printed"] = "corrected"
    machines: Literal["random", "lowest"] = "random"

    def reset(self, info: ScenarioInfo, rng: np.random.Generator) -> None:
        if self.update not in ("corrected", "printed"):
            raise ConfigError(f"update={self.update!r}; expected 'corrected' or 'printed'")
        if self.machines not in ("random", "lowest"):
            raise ConfigError(f"machines={self.machines!r}; expected 'random' or 'lowest'")
        self.rng_ = rng
        self.swapped_ = [0] * info.n_orgs  # printed: Σ over intervals of (X_u - Y_u), Python ints (no overflow)
        self.last_: tuple[int, list[int], list[int], list[int], list[int]] | None = None

    def decide(self, view: OnlineView) -> Assignment:
        n_to_start = view.n_to_start
        if self.machines == "lowest":
            machines = view.free_machines()[:n_to_start]
        else:
            machines = random_machine_order(view.free_machines(), n_to_start, self.rng_)
        # phi - psi is exact in int64: both lie in [0, 2**62) (the engine refuses larger scenarios)
        lag = (view.psi_by_machine_owner - view.psi).tolist()
        if self.update == "printed":
            lag = self._printed_lag(view, lag)
        waiting = view.waiting.tolist()
        return Assignment(orgs=fill_in_order(largest_lag_first(lag, waiting), waiting, n_to_start), machines=machines)

    def _printed_lag(self, view: OnlineView, lag: list[int]) -> list[int]:
        """phi - psi with lines 15–16 as printed: the interval's new units credited to the swapped accounts."""
        psi, work = view.psi.tolist(), view.work_done.tolist()
        phi, work_m = view.psi_by_machine_owner.tolist(), view.work_by_machine_owner.tolist()
        if self.last_ is not None:
            t_prev, psi0, work0, phi0, work_m0 = self.last_
            delta = view.now - t_prev
            for u in range(len(lag)):
                new_by_job = psi[u] - psi0[u] - delta * work0[u]          # X_u: lines 13 + 15 of u's jobs
                new_on_machine = phi[u] - phi0[u] - delta * work_m0[u]    # Y_u: lines 14 + 16 on u's machines
                self.swapped_[u] += new_by_job - new_on_machine
        self.last_ = (view.now, psi, work, phi, work_m)
        return [lag[u] + 2 * self.swapped_[u] for u in range(len(lag))]
