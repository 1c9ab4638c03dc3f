"""A deliberately simple, time-stepped REF straight from SPAA'13 Algorithm 1 (with Algorithm 2 for ψsp).

Obviously correct and slow (P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory
approach", SPAA 2013, Sec. 3, Algorithm 1): every integer time t is visited; at each t the jobs released at t
join the queues of every coalition containing their owner (ReleaseJob), then the coalitions are completed in
increasing size (lines 33–37). A coalition with a free machine and a waiting job runs UpdateVals (lines
18–27): ψ_u(σ[C], t) unit by unit by Eq. (3) from its own list of started jobs, and φ^C by Eq. (1) over all
subsets, in exact Fractions (`tests.naive.shapley_brute_force.shapley_by_subsets`); then SelectAndSchedule
(Alg. 2) until no machine is free or no job waits. Nothing is shared with the compiled kernel.

- ``select="literal"``: Alg. 2 line 2, argmax_u (φ_u − ψ_u) among organizations with waiting jobs (ties:
  lowest index); after each start ψ is recomputed (it does not change at t: line 4).
- ``select="lookahead"`` (fairsched issue #3): v(S, t + 1) of every S ⊊ C from S's schedule (already complete
  at t), v(C, t + 1) from a tentative schedule starting any min(free, waiting) waiting jobs at t, φ(t + 1) by
  Eq. (1); then machines one at a time to argmax_u (φ_u(t+1) − ψ_u(σ[C], t+1) − x_u).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import pandas as pd

from fairsched.scenario import COPIES, JOB, ORG, PROCESSING_TIME, RELEASE, Scenario
from tests.naive.shapley_brute_force import members, shapley_by_subsets


@dataclass
class _Coalition:
    """σ[C]: the members, their machines, FIFO queues and every job started so far."""

    mask: int
    machines: int
    queues: dict[int, list[int]]
    started: list[tuple[int, int, int, int]] = field(default_factory=list)  # (sequential job, org, start, end)

    def running_at(self, t: int) -> int:
        return sum(1 for _, _, start, end in self.started if start <= t < end)

    def psi(self, org: int, t: int) -> int:
        """SPAA'13 Eq. (3): every unit of org's jobs executed in slot [i, i+1), i < t, is worth t − i."""
        return sum(t - i for _, owner, start, end in self.started if owner == org for i in range(start, min(end, t)))

    def value(self, t: int) -> int:
        return sum(self.psi(u, t) for u in members(self.mask))


@dataclass
class NaiveRef:
    """The grand coalition's schedule, and at each of its decisions with contention between organizations (more
    waiting jobs than free machines, at least two organizations waiting) the time t_eval at which φ was taken
    (t literal, t + 1 lookahead), φ, and the values v(S, t_eval) of every coalition S (indexed by bitmask)."""

    schedule: pd.DataFrame
    phi_at_decisions: list[tuple[int, list[Fraction]]]
    values_at_decisions: list[list[int]]


def ref_time_stepped(scenario: Scenario, *, select: str = "literal") -> NaiveRef:
    """Run REF (SPAA'13 Algorithm 1 + 2) time step by time step until the grand coalition started every job."""
    jobs = _sequential_jobs(scenario)
    k = scenario.n_orgs
    per_org = scenario.machines_per_org.tolist()
    coalitions = {mask: _Coalition(mask, sum(per_org[u] for u in members(mask)), {u: [] for u in members(mask)})
                  for mask in range(1, 1 << k)}
    order = sorted(coalitions, key=lambda mask: (bin(mask).count("1"), mask))
    grand = coalitions[(1 << k) - 1]
    seen: list[tuple[int, list[Fraction], list[int]]] = []
    t = 0
    while len(grand.started) < len(jobs):
        for j, (_, org, release, _) in enumerate(jobs):  # ReleaseJob (lines 2–4)
            if release == t:
                for coalition in coalitions.values():
                    if coalition.mask >> org & 1:
                        coalition.queues[org].append(j)
        for mask in order:  # lines 33–37
            _schedule_at(coalitions, mask, t, jobs, select, seen if coalitions[mask] is grand else None)
        t += 1
    rows = [(jobs[j][0], org, jobs[j][2], start, end) for j, org, start, end in grand.started]
    return NaiveRef(pd.DataFrame(rows, columns=["job", "org", "release", "start", "end"]),
                    [(t, phi) for t, phi, _ in seen], [values for _, _, values in seen])


def _sequential_jobs(scenario: Scenario) -> list[tuple[int, int, int, int]]:
    """(job, org, release, processing time) per sequential job, in record order (copies consecutive)."""
    out = []
    for row in scenario.jobs.itertuples(index=False):
        record = row._asdict()
        out += [(int(record[JOB]), int(record[ORG]), int(record[RELEASE]), int(record[PROCESSING_TIME]))] * int(
            record[COPIES])
    return out


def _schedule_at(coalitions: dict[int, _Coalition], mask: int, t: int, jobs: list, select: str,
                 seen: list | None) -> None:
    coalition = coalitions[mask]
    free = coalition.machines - coalition.running_at(t)
    waiting = {u: len(q) for u, q in coalition.queues.items()}
    if free <= 0 or not sum(waiting.values()):
        return
    if select == "literal":
        phi, v = _shapley(coalitions, mask, t, coalition.value(t))
        if seen is not None and free < sum(waiting.values()) and sum(1 for w in waiting.values() if w) > 1:
            seen.append((t, phi, v))
        while free and any(coalition.queues.values()):  # SelectAndSchedule, Alg. 2
            candidates = [u for u in members(mask) if coalition.queues[u]]
            best = max(candidates, key=lambda u: (phi[u] - coalition.psi(u, t), -u))
            _start(coalition, best, t, jobs)
            free -= 1
        return
    n_start = min(free, sum(waiting.values()))
    tentative = _Coalition(mask, coalition.machines, {u: list(q) for u, q in coalition.queues.items()},
                           list(coalition.started))
    for _ in range(n_start):
        _start(tentative, next(u for u in members(mask) if tentative.queues[u]), t, jobs)
    phi, v = _shapley(coalitions, mask, t + 1, tentative.value(t + 1))
    if seen is not None and n_start < sum(waiting.values()) and sum(1 for w in waiting.values() if w) > 1:
        seen.append((t + 1, phi, v))
    gain = {u: phi[u] - coalition.psi(u, t + 1) for u in members(mask)}
    for _ in range(n_start):
        candidates = [u for u in members(mask) if coalition.queues[u]]
        best = max(candidates, key=lambda u: (gain[u], -u))
        _start(coalition, best, t, jobs)
        gain[best] -= 1


def _shapley(coalitions: dict[int, _Coalition], mask: int, t: int,
             own_value: int) -> tuple[list[Fraction], list[int]]:
    """φ^C(t) by SPAA'13 Eq. (1), with v(S, t) from every proper subcoalition's own schedule; and those v."""
    v = [0] * (max(coalitions) + 1)
    for sub in coalitions:
        if sub & mask == sub:
            v[sub] = own_value if sub == mask else coalitions[sub].value(t)
    return shapley_by_subsets(v, mask), v


def _start(coalition: _Coalition, org: int, t: int, jobs: list) -> None:
    j = coalition.queues[org].pop(0)  # FIFO per organization
    coalition.started.append((j, org, t, t + jobs[j][3]))


def fifo_value(scenario: Scenario, mask: int, t: int) -> int:
    """v(C, t) of coalition `mask` under RAND's simplified schedule (SPAA'13 Alg. 3): C's machines run C's jobs
    first come, first served (release order, ties by record order), time step by time step from 0 to t."""
    jobs = [job for job in _sequential_jobs(scenario) if mask >> job[1] & 1]
    coalition = _Coalition(mask, sum(int(scenario.machines_per_org[u]) for u in members(mask)), {})
    queue: list[int] = []
    for now in range(t):
        queue += [j for j, job in enumerate(jobs) if job[2] == now]
        while queue and coalition.running_at(now) < coalition.machines:
            j = queue.pop(0)
            coalition.started.append((j, jobs[j][1], now, now + jobs[j][3]))
    return coalition.value(t)
