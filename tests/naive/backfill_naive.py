"""A deliberately simple twin of the backfilling engine, written from the pyss oracle README's rules (§1–§5 of
../shared/oracles/pyss/README.md), not from the engine's code. Slow and obviously correct.

Every quantity is recomputed from scratch whenever it is needed:

- events: at each timestamp, conservative reservations that fall due start first (they are fixed, §5), then
  submissions in job-id order, then terminations ordered by (start time, decision order); one scheduling pass
  after every single submission and termination (§1);
- free(now) = P − Σ p_j over the jobs *holding* at `now`: started, termination not yet processed, and
  now < start + requested (§2);
- queue order by a key evaluated at `now`: FCFS (job id), SJF (requested, id), LXF (largest expansion factor
  (wait + requested)/requested as an exact fraction, then id);
- EASY shadow time and extra processors from the holding jobs sorted by planned end (§4);
- conservative: the free-processor function at any instant is P minus the holding jobs and the reservations
  covering it; the earliest fit is searched among `now` and the ends of those intervals (§5);
- slurm (Slurm's schedulers, as docs/backfill.md states them): after each submission and termination the heads
  start while they fit (the main scheduler); at each grid time t0 + k·bf_interval (t0 the first submission),
  right after time advances and before submissions, if a job waits and a submission, termination, start or
  re-ordering happened since the last pass: a backfill pass that lists the holding jobs' intervals cut at
  now + bf_window, then for the first bf_max_job_test waiting jobs in queue order finds the earliest fit among
  `now` and the ends of those intervals: now -> start, before the window's end -> one more interval.

Job i is row i: jobs must be given in submission order (submit non-decreasing), with requested >= run >= 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

ORDERS = ("fcfs", "sjf", "lxf")
BACKFILLS = ("none", "no-guarantee", "easy", "conservative", "slurm")
SLURM_DEFAULTS = {"bf_interval": 30, "bf_window": 86400, "bf_max_job_test": 500}


@dataclass
class NaiveRun:
    """Start time of each job and the decision number of each start (ties of terminations are broken by it)."""

    start: list[int]
    seq: list[int]


@dataclass
class _State:
    submit: list[int]
    run: list[int]
    procs: list[int]
    req: list[int]
    n_procs: int
    order: str
    backfill: str
    now: int = 0
    queue: list[int] = field(default_factory=list)
    started: dict[int, int] = field(default_factory=dict)       # job -> start
    decided: dict[int, int] = field(default_factory=dict)       # job -> decision number of its start
    terminated: set[int] = field(default_factory=set)           # termination event processed
    reservation: dict[int, int] = field(default_factory=dict)   # conservative: waiting job -> R_j
    reserved_at: dict[int, int] = field(default_factory=dict)   # conservative: decision number of R_j
    counter: int = 0
    slurm: dict[str, int] = field(default_factory=lambda: dict(SLURM_DEFAULTS))  # the slurm rule's bf_* values
    next_pass: int = 0      # slurm: the next grid time of a backfill pass
    changed: bool = False   # slurm: something changed since the last backfill pass

    def next_decision(self) -> int:
        self.counter += 1
        return self.counter

    # -- rules shared by every policy -----------------------------------------------------------------
    def holding(self) -> list[int]:
        return [j for j, s in self.started.items()
                if j not in self.terminated and self.now < s + self.req[j]]

    def free(self) -> int:
        return self.n_procs - sum(self.procs[j] for j in self.holding())

    def ordered_queue(self) -> list[int]:
        if self.order == "fcfs":
            return sorted(self.queue)
        if self.order == "sjf":
            return sorted(self.queue, key=lambda j: (self.req[j], j))
        return sorted(self.queue, key=lambda j: (-Fraction(self.now - self.submit[j] + self.req[j], self.req[j]), j))

    def start(self, job: int, decision: int | None = None) -> None:
        self.queue.remove(job)
        self.reservation.pop(job, None)
        self.started[job] = self.now
        self.decided[job] = self.next_decision() if decision is None else decision

    # -- passes ---------------------------------------------------------------------------------------
    def scheduling_pass(self) -> None:
        """One pass of none / no-guarantee / easy (README §3, §4, generalised to any queue order)."""
        queue = self.ordered_queue()
        while queue and self.procs[queue[0]] <= self.free():
            self.start(queue.pop(0))
        if self.backfill == "no-guarantee":
            for j in queue:
                if self.procs[j] <= self.free():
                    self.start(j)
        elif self.backfill == "easy" and len(queue) >= 2:
            sigma, extra = self.shadow(self.procs[queue[0]])
            for j in queue[1:]:
                ends_by_shadow = self.now + self.req[j] <= sigma
                if self.procs[j] <= self.free() and (ends_by_shadow or self.procs[j] <= extra):
                    self.start(j)
                    if not ends_by_shadow:
                        extra -= self.procs[j]

    def shadow(self, need: int) -> tuple[int, int]:
        ends = sorted({self.started[j] + self.req[j] for j in self.holding()})
        for e in ends:
            avail = self.free() + sum(self.procs[j] for j in self.holding() if self.started[j] + self.req[j] <= e)
            if avail >= need:
                return e, avail - need
        raise AssertionError("a job wider than the machine")

    # -- conservative (README §5) ---------------------------------------------------------------------
    def intervals(self, skip: int) -> list[tuple[int, int, int]]:
        """(begin, end, procs) of every holding job and every reservation except `skip`'s."""
        out = [(self.started[j], self.started[j] + self.req[j], self.procs[j]) for j in self.holding()]
        out += [(r, r + self.req[j], self.procs[j]) for j, r in self.reservation.items() if j != skip]
        return out

    def earliest(self, job: int) -> int:
        spans = self.intervals(skip=job)
        p, q = self.procs[job], self.req[job]

        def free_at(t: int) -> int:
            return self.n_procs - sum(c for a, b, c in spans if a <= t < b)

        for t in sorted({self.now} | {b for _, b, _ in spans if b > self.now}):
            probes = [t] + [a for a, _, _ in spans if t < a < t + q]
            if all(free_at(x) >= p for x in probes):
                return t
        raise AssertionError("unreachable: after every interval the machine is empty")

    def reserve(self, job: int) -> None:
        r = self.earliest(job)
        if self.reservation.get(job) != r:
            self.reservation[job] = r
            self.reserved_at[job] = self.next_decision()
        if r == self.now:
            self.start(job, self.reserved_at[job])

    def compress(self) -> None:
        for j in self.ordered_queue():
            if self.reservation[j] > self.now:
                self.reserve(j)

    # -- slurm's backfill scheduler --------------------------------------------------------------------
    def pass_time(self) -> list[int]:
        """The next backfill pass as an event time (none when it would do nothing)."""
        return [self.next_pass] if self.backfill == "slurm" and self.queue and self.changed else []

    def maybe_backfill(self) -> None:
        """Time has advanced to `now`: run the backfill pass if one falls now; move to the next grid time."""
        if self.backfill != "slurm" or self.now < self.next_pass:
            return
        due = self.now == self.next_pass and self.changed
        while self.next_pass <= self.now:
            self.next_pass += self.slurm["bf_interval"]
        if due:
            self.changed = False
            self.backfill_pass()

    def backfill_pass(self) -> None:
        horizon = self.now + self.slurm["bf_window"]
        spans = [(self.now, min(self.started[j] + self.req[j], horizon), self.procs[j]) for j in self.holding()]

        def free_at(t: int) -> int:
            return self.n_procs - sum(c for a, b, c in spans if a <= t < b)

        for j in self.ordered_queue()[:self.slurm["bf_max_job_test"]]:
            p, q = self.procs[j], self.req[j]
            fits = [t for t in sorted({self.now} | {b for _, b, _ in spans})
                    if all(free_at(x) >= p for x in [t] + [a for a, _, _ in spans if t < a < t + q])]
            t = fits[0]
            if t < horizon:
                spans.append((t, min(t + q, horizon), p))
            if t == self.now:
                self.start(j)
                self.changed = True

    # -- events ---------------------------------------------------------------------------------------
    def submit_job(self, job: int) -> None:
        self.changed = True
        self.queue.append(job)
        if self.backfill == "conservative":
            self.reserve(job)
        else:
            self.scheduling_pass()

    def terminate(self, job: int) -> None:
        self.changed = True
        self.terminated.add(job)
        if self.backfill == "conservative":
            self.compress()
        else:
            self.scheduling_pass()


def simulate_naive(submit, run, procs, req, n_procs: int, order: str, backfill: str, **slurm: int) -> NaiveRun:
    """Start time of every job under `order` × `backfill` on `n_procs` processors (README semantics); `slurm`:
    the slurm rule's bf_interval, bf_window, bf_max_job_test (Slurm's defaults otherwise)."""
    st = _State([int(x) for x in submit], [int(x) for x in run], [int(x) for x in procs], [int(x) for x in req],
                int(n_procs), order, backfill, slurm={**SLURM_DEFAULTS, **slurm})
    n = len(st.submit)
    assert all(st.req[i] >= st.run[i] >= 1 and 1 <= st.procs[i] <= n_procs for i in range(n))
    assert all(st.submit[i] <= st.submit[i + 1] for i in range(n - 1))
    next_sub = 0
    st.next_pass = st.submit[0] + st.slurm["bf_interval"] if n else 0
    while True:
        times = [st.submit[next_sub]] if next_sub < n else []
        times += [s + st.run[j] for j, s in st.started.items() if j not in st.terminated]
        times += list(st.reservation.values()) + st.pass_time()
        if not times:
            break
        st.now = min(times)
        for j in sorted(st.reservation, key=lambda j: st.reserved_at[j]):
            if st.reservation[j] == st.now:
                st.start(j, st.reserved_at[j])
        st.maybe_backfill()
        while next_sub < n and st.submit[next_sub] == st.now:
            st.submit_job(next_sub)
            next_sub += 1
        ending = [j for j, s in st.started.items() if j not in st.terminated and s + st.run[j] == st.now]
        for j in sorted(ending, key=lambda j: (st.started[j], st.decided[j])):
            st.terminate(j)
    return NaiveRun(start=[st.started[j] for j in range(n)], seq=[st.decided[j] for j in range(n)])
