"""A deliberately simple twin of the ticked queue orders (``drf``, ``directcontr``; the Slurm orders in
slurm_naive.py) in the backfilling engine.

Written from the rules of docs/whatif.md, on top of the naive backfilling engine (tests/naive/backfill_naive.py).
At every tick everything is recomputed from scratch, in exact rational arithmetic (`fractions.Fraction`):

- ticks at t0, t0 + period, ... (t0 = first submission), while another event is pending; at a tick time the
  tick comes first, then due conservative reservations, then a due backfill pass of the slurm rule, then (if the
  queue order changed and the rule is not conservative) one pass, then submissions and terminations as usual;
- ``drf``: each organization's CPUs and memory held by its jobs whose termination is not processed; key
  max_r max(0, use − s·C) / C / w (inf when w = 0 and borrowing);
- ``directcontr``: 2ψ_u = Σ p [(t − S)² − (t − min(t, E))²] over u's started jobs, E used only once the job's
  termination is processed; key 2S·ψ_u − shares_u·Σ_v 2ψ_v;
- between ticks a new job gets its organization's key of the last tick; the queue is sorted by (key, job).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from tests.naive.backfill_naive import SLURM_DEFAULTS, NaiveRun, _State


@dataclass
class _TickedState(_State):
    org: list[int] = field(default_factory=list)
    shares: list[Fraction] = field(default_factory=list)
    memory: list[Fraction] = field(default_factory=list)
    memory_capacity: Fraction = Fraction(0)
    weights: list[Fraction] = field(default_factory=list)
    org_key: list[object] = field(default_factory=list)   # the last tick's key of each organization
    key: dict[int, object] = field(default_factory=dict)  # waiting job -> key

    def ordered_queue(self) -> list[int]:
        return sorted(self.queue, key=lambda j: (self.key[j], j))

    def submit_job(self, job: int) -> None:
        self.key[job] = self.org_key[self.org[job]]
        super().submit_job(job)

    def running(self) -> list[int]:
        return [j for j in self.started if j not in self.terminated]

    def drf_keys(self) -> list[object]:
        k, total = len(self.shares), sum(self.shares)
        keys: list[object] = []
        for u in range(k):
            s = self.shares[u] / total
            resources = [(Fraction(sum(self.procs[j] for j in self.running() if self.org[j] == u)), self.n_procs)]
            if self.memory_capacity > 0:
                resources.append((sum((self.memory[j] for j in self.running() if self.org[j] == u), Fraction(0)),
                                  self.memory_capacity))
            d: object = Fraction(0)
            for use, cap in resources:
                excess = use - s * cap
                if excess > 0:
                    d = float("inf") if self.weights[u] == 0 else max(d, excess / cap / self.weights[u])
            keys.append(d)
        return keys

    def directcontr_keys(self) -> list[object]:
        t = self.now
        psi2 = [0] * len(self.shares)
        for j, s in self.started.items():
            e = s + self.run[j] if j in self.terminated else t
            psi2[self.org[j]] += self.procs[j] * ((t - s) ** 2 - (t - e) ** 2)
        total, share_sum = sum(psi2), sum(self.shares)
        return [share_sum * psi2[u] - self.shares[u] * total for u in range(len(self.shares))]

    def tick(self) -> bool:
        before = self.ordered_queue()
        self.org_key = self.drf_keys() if self.order == "drf" else self.directcontr_keys()
        for j in self.queue:
            self.key[j] = self.org_key[self.org[j]]
        return self.ordered_queue() != before


def simulate_ticked_naive(submit, run, procs, req, n_procs: int, order: str, backfill: str, *, org, period: int,
                          shares=None, memory=None, memory_capacity=None, weights=None, bf=None) -> NaiveRun:
    """Start time of every job under a ticked `order` × `backfill` (module docstring for the rules; the Slurm
    orders: tests/naive/slurm_naive.py); `bf`: the slurm rule's bf_* values (Slurm's defaults otherwise)."""
    if order.startswith("slurm-"):
        from tests.naive.slurm_naive import simulate_slurm_naive

        return simulate_slurm_naive(submit, run, procs, req, n_procs, order, backfill, org=org, period=period,
                                    shares=shares, bf=bf)
    k = max(org) + 1
    st = _TickedState([int(x) for x in submit], [int(x) for x in run], [int(x) for x in procs],
                      [int(x) for x in req], int(n_procs), order, backfill,
                      org=[int(u) for u in org],
                      shares=[Fraction(x) for x in (shares if shares is not None else [1] * k)],
                      memory=[Fraction(x) for x in (memory if memory is not None else [0] * len(submit))],
                      memory_capacity=Fraction(memory_capacity or 0),
                      weights=[Fraction(x) for x in (weights if weights is not None else [1] * k)],
                      slurm={**SLURM_DEFAULTS, **(bf or {})})
    st.org_key = [Fraction(0)] * len(st.shares)
    return run_ticks(st, period)


def run_ticks(st: _TickedState, period: int) -> NaiveRun:
    """The event loop with ticks (module docstring); `st.tick()` recomputes the keys and says if the order moved."""
    n = len(st.submit)
    next_sub, next_tick = 0, st.submit[0]
    st.next_pass = st.submit[0] + st.slurm["bf_interval"]
    while True:
        times = [st.submit[next_sub]] if next_sub < n else []
        times += [s + st.run[j] for j, s in st.started.items() if j not in st.terminated]
        times += list(st.reservation.values()) + st.pass_time()
        if not times:
            break
        st.now = min([*times, next_tick])
        reordered = False
        if st.now == next_tick:
            reordered = st.tick()
            next_tick += period
        for j in sorted(st.reservation, key=lambda j: st.reserved_at[j]):
            if st.reservation[j] == st.now:
                st.start(j, st.reserved_at[j])
        st.maybe_backfill()
        if reordered and st.backfill != "conservative":
            st.changed = True
            st.scheduling_pass()
        while next_sub < n and st.submit[next_sub] == st.now:
            st.submit_job(next_sub)
            next_sub += 1
        ending = [j for j, s in st.started.items() if j not in st.terminated and s + st.run[j] == st.now]
        for j in sorted(ending, key=lambda j: (st.started[j], st.decided[j])):
            st.terminate(j)
    return NaiveRun(start=[st.started[j] for j in range(n)], seq=[st.decided[j] for j in range(n)])
