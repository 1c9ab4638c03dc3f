"""A deliberately simple, time-stepped twin of the online engine, running DIRECTCONTR as SPAA'13 Algorithm 4.

Obviously correct and slow: every integer time t is visited; machines are a list; psi and phi follow
SPAA'13 Algorithm 4 (P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory
approach", SPAA 2013, Sec. 6.1), lines 9–24, literally, with the counters finUt / finCon:

- lines 9–11   phi[u] += finCon[u]; psi[u] += finUt[u]   (finUt[u] = units of u's jobs executed before t)
- lines 13–17  every busy machine m with job J: finUt[own(J)] += 1; finCon[own(m)] += 1
- lines 18–24  each free machine m in the random order takes the first waiting job of
               argmax_u (phi[u] - psi[u]) (ties: lowest u); finUt[org] += 1; finCon[own(m)] += 1

At each t: utilities (lines 9–11), completions, releases, busy machines (13–17), then decisions. The random
order comes from the same helper as the policy (`random_machine_order`), called only when a decision is
needed (a free machine and a waiting job), so the twin and the engine draw the same numbers.

Other policies run through `_view`, a tiny adapter building an `OnlineView` from the twin's own state. When
a policy does not choose machines, the twin uses the free machines in increasing id order (the engine uses
the most recently freed ones), so only job start times are comparable for such policies.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from fairsched.online.policies._machine_order import random_machine_order
from fairsched.online.view import OnlinePolicy, OnlineView, ScenarioInfo
from fairsched.scenario import COPIES, JOB, ORG, PROCESSING_TIME, RELEASE, Scenario


@dataclass
class SteppedRun:
    """What the twin produced: the schedule (one row per sequential job, in start order), utilities at t_end,
    and (t, psi, phi) just before each decision."""

    schedule: pd.DataFrame
    t_end: int
    psi: list[int]
    phi: list[int]
    work_done: list[int]
    at_decisions: list[tuple[int, list[int], list[int]]] = field(default_factory=list)


@dataclass
class _Twin:
    scenario: Scenario
    jobs: list[tuple[int, int, int, int]] = field(default_factory=list)  # (job, org, release, processing)
    owner: list[int] = field(default_factory=list)
    machines: list[tuple[int, int, int] | None] = field(default_factory=list)  # (sequential job, start, end)
    queues: list[list[int]] = field(default_factory=list)
    fin_ut: list[int] = field(default_factory=list)
    fin_con: list[int] = field(default_factory=list)
    psi: list[int] = field(default_factory=list)
    phi: list[int] = field(default_factory=list)
    rows: list[tuple[int, int, int, int, int, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        for row in self.scenario.jobs.itertuples(index=False):
            record = row._asdict()
            for _ in range(int(record[COPIES])):
                self.jobs.append((int(record[JOB]), int(record[ORG]), int(record[RELEASE]),
                                  int(record[PROCESSING_TIME])))
        k = self.scenario.n_orgs
        self.owner = [int(u) for u in self.scenario.machine_owner]
        self.machines = [None] * len(self.owner)
        self.queues = [[] for _ in range(k)]
        self.fin_ut, self.fin_con, self.psi, self.phi = [0] * k, [0] * k, [0] * k, [0] * k

    def start(self, org: int, machine: int, t: int) -> None:
        assert self.machines[machine] is None, f"t={t}: machine {machine} is busy"
        j = self.queues[org].pop(0)  # FIFO per organization
        job, _, release, processing = self.jobs[j]
        self.machines[machine] = (j, t, t + processing)
        self.rows.append((job, org, release, t, t + processing, machine))
        self.fin_ut[org] += 1                      # line 23
        self.fin_con[self.owner[machine]] += 1     # line 24

    def directcontr(self, free: list[int], t: int, rng: np.random.Generator) -> None:
        """SPAA'13 Algorithm 4, lines 18–24, with the random order of the free machines only."""
        n_waiting = sum(len(q) for q in self.queues)
        gamma = random_machine_order(np.array(free, dtype=np.int64), min(len(free), n_waiting), rng)
        for m in gamma.tolist():
            if self.machines[m] is None and any(self.queues):                        # line 19
                candidates = [u for u in range(len(self.queues)) if self.queues[u]]
                org = max(candidates, key=lambda u: (self.phi[u] - self.psi[u], -u))  # line 20; ties: lowest u
                self.start(org, m, t)                                                # lines 21–22


def simulate_time_stepped(scenario: Scenario, *, seed: int = 0, policy: OnlinePolicy | None = None) -> SteppedRun:
    """Run DIRECTCONTR (``policy=None``, SPAA'13 Algorithm 4) or `policy` time step by time step."""
    twin = _Twin(scenario)
    k = scenario.n_orgs
    rng = np.random.default_rng(seed)
    info = ScenarioInfo(n_orgs=k, n_machines=len(twin.owner), machine_owner=np.array(twin.owner, dtype=np.int64),
                        machines_per_org=np.bincount(twin.owner, minlength=k).astype(np.int64))
    if policy is not None:
        policy.reset(info, rng)
    horizon = scenario.horizon
    next_job, at_decisions, t = 0, [], 0
    while True:
        for u in range(k):  # lines 9–11
            twin.phi[u] += twin.fin_con[u]
            twin.psi[u] += twin.fin_ut[u]
        for m, busy in enumerate(twin.machines):  # completions
            if busy is not None and busy[2] == t:
                twin.machines[m] = None
        while next_job < len(twin.jobs) and twin.jobs[next_job][2] == t:  # releases
            twin.queues[twin.jobs[next_job][1]].append(next_job)
            next_job += 1
        work_done, work_on = list(twin.fin_ut), list(twin.fin_con)
        if horizon is None and next_job == len(twin.jobs) and not any(twin.queues) and not any(twin.machines):
            break
        for m, busy in enumerate(twin.machines):  # lines 13–17 (order of machines irrelevant: sums)
            if busy is not None:
                twin.fin_ut[twin.jobs[busy[0]][1]] += 1
                twin.fin_con[twin.owner[m]] += 1
        free = [m for m, busy in enumerate(twin.machines) if busy is None]
        if free and any(twin.queues):
            at_decisions.append((t, list(twin.psi), list(twin.phi)))
            if policy is None:
                twin.directcontr(free, t, rng)
            else:
                _run_policy(twin, policy, _view(twin, info, t, free, work_done, work_on), free, t)
        if horizon is not None and t >= horizon:
            break
        t += 1
    columns = ["job", "org", "release", "start", "end", "machine"]
    schedule = pd.DataFrame(np.array(twin.rows, dtype=np.int64).reshape(-1, len(columns)), columns=columns)
    return SteppedRun(schedule=schedule, t_end=t, psi=list(twin.psi), phi=list(twin.phi), work_done=work_done,
                      at_decisions=at_decisions)


def _view(twin: _Twin, info: ScenarioInfo, t: int, free: list[int], work_done: list[int],
          work_on: list[int]) -> OnlineView:
    """The adapter: an `OnlineView` of the twin's state at t (no processing times)."""
    k = info.n_orgs
    busy = [(twin.jobs[b[0]][1], m, b[1]) for m, b in enumerate(twin.machines) if b is not None]  # org, machine, start
    running_jobs = tuple(np.array([b[i] for b in busy], dtype=np.int64) for i in range(3))

    def as_array(values: list[int]) -> np.ndarray:
        return np.array(values, dtype=np.int64)

    return OnlineView(
        now=t, n_free=len(free), n_to_start=min(len(free), sum(len(q) for q in twin.queues)),
        waiting=as_array([len(q) for q in twin.queues]),
        running=np.bincount(running_jobs[0], minlength=k).astype(np.int64), psi=as_array(twin.psi),
        work_done=as_array(work_done), psi_by_machine_owner=as_array(twin.phi), work_by_machine_owner=as_array(work_on),
        head_release=as_array([twin.jobs[q[0]][2] if q else -1 for q in twin.queues]), info=info,
        free_machines=lambda: as_array(free), running_jobs=lambda: running_jobs,
    )


def _run_policy(twin: _Twin, policy: OnlinePolicy, view: OnlineView, free: list[int], t: int) -> None:
    decision = policy.decide(view)
    orgs = [int(u) for u in decision.orgs]
    assert len(orgs) == view.n_to_start, f"t={t}: {len(orgs)} jobs started, expected {view.n_to_start}"
    machines = free[:len(orgs)] if decision.machines is None else [int(m) for m in decision.machines]
    for org, machine in zip(orgs, machines, strict=True):
        twin.start(org, machine, t)
