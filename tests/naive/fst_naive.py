"""Slow twins of `fairsched.backfill.fairness`: fair start times by re-simulating from scratch for every job
(O(n²) and more), and resource equality integrated second by second with exact fractions.

Two FST twins, each following JSSPP'05 §3.1 / Fig. 6 literally ("take the state at j's arrival, simulate as if
no later job arrived"), with no fork and no reused buffers:

- `fst_from_scratch` uses the engine on the prefix of the jobs: strict FST = j's start in
  ``simulate(jobs[:j+1])`` (the state at j's arrival depends on earlier jobs only); relaxed FST = a fresh
  `BackfillSimulator` of ``jobs[:j+1]`` run to j's arrival, then until no earlier job waits, then j is injected;
- `fst_naive_model` drives the pyss-rule twin of the engine (tests/naive/backfill_naive.py) event by event and
  submits j either at its arrival (strict) or right after the first handler after j's arrival that leaves no
  earlier job waiting (relaxed), stopping when j starts.
"""

from __future__ import annotations

from fractions import Fraction

from fairsched.backfill import BackfillJobs, BackfillSimulator, simulate
from fairsched.backfill._fairness_kernels import arrival_pass
from tests.naive.backfill_naive import _State


def _prefix(jobs: BackfillJobs, stop: int) -> BackfillJobs:
    return BackfillJobs.from_arrays(jobs.submit[:stop], jobs.run[:stop], jobs.procs[:stop], jobs.requested[:stop],
                                    n_processors=jobs.n_processors)


def fst_from_scratch(jobs: BackfillJobs, order: str, backfill: str, kind: str) -> list[int]:
    """FST of every job, re-simulating the prefix jobs[:j+1] from time 0 with the engine for each j."""
    out = []
    for j in range(jobs.n_jobs):
        prefix = _prefix(jobs, j + 1)
        if kind == "strict":
            out.append(int(simulate(prefix, order=order, backfill=backfill).schedule["start"].iat[j]))
            continue
        sim = BackfillSimulator(prefix, order, backfill)
        sim.run(pause_before=j)
        arrival_pass(sim.backfill.code, sim.order.code, prefix.submit, prefix.run, prefix.requested, prefix.procs,
                     sim.clock, sim.hold, sim.heap, sim.queue, sim.new, sim.out_start, sim.out_seq)
        sim.run_until_queue_empty(submit_limit=j)
        start = sim.inject(j)
        out.append(start if start is not None else sim.run_until_started(j, submit_limit=j))
    return out


def fst_naive_model(jobs: BackfillJobs, order: str, backfill: str, kind: str) -> list[int]:
    """FST of every job with the naive pyss-rule model (event loop of `simulate_naive`, with the what-if rules)."""
    return [_naive_what_if(jobs, order, backfill, j, relaxed=kind == "relaxed") for j in range(jobs.n_jobs)]


def _naive_what_if(jobs: BackfillJobs, order: str, backfill: str, j: int, *, relaxed: bool) -> int:
    st = _State([int(x) for x in jobs.submit], [int(x) for x in jobs.run], [int(x) for x in jobs.procs],
                [int(x) for x in jobs.requested], jobs.n_processors, order, backfill)
    arrival = st.submit[j]
    next_sub, arrived, injected = 0, False, False
    st.next_pass = st.submit[0] + st.slurm["bf_interval"]

    def inject_if_due() -> bool:  # relaxed: j joins once it has arrived and no earlier job waits
        nonlocal injected
        if relaxed and arrived and not injected and not st.queue:
            injected = True
            st.submit_job(j)
        return j in st.started

    while True:
        times = [st.submit[next_sub]] if next_sub < j else [] if arrived else [arrival]
        times += [s + st.run[k] for k, s in st.started.items() if k not in st.terminated]
        times += list(st.reservation.values()) + st.pass_time()
        st.now = min(times)
        for k in sorted(st.reservation, key=lambda k: st.reserved_at[k]):
            if st.reservation[k] == st.now:
                st.start(k, st.reserved_at[k])
        st.maybe_backfill()
        if arrived and inject_if_due():
            return st.started[j]
        while next_sub < j and st.submit[next_sub] == st.now:  # earlier jobs only; j is handled below
            st.submit_job(next_sub)
            next_sub += 1
        if not arrived and next_sub == j and st.now == arrival:
            arrived = True
            if not relaxed:
                st.submit_job(j)
            elif backfill != "conservative":
                st.changed = True  # slurm: j's arrival is a change all the same (the next backfill pass runs)
                st.scheduling_pass()  # the pass j's arrival triggers, without j (conservative: none)
            if inject_if_due():
                return st.started[j]
        ending = [k for k, s in st.started.items() if k not in st.terminated and s + st.run[k] == st.now]
        for k in sorted(ending, key=lambda k: (st.started[k], st.decided[k])):
            st.terminate(k)
            if arrived and inject_if_due():
                return st.started[j]


def resource_equality_naive(submit, start, end, procs) -> tuple[list[Fraction], list[int]]:
    """Deserved d_i (exact fractions) and consumed s_i of integer-time schedules, second by second (JSSPP'05
    §3.2): in each second [t, t+1) every active job (submit <= t < end) gets min(p_i × used / Σ active p, p_i)."""
    n = len(submit)
    deserved = [Fraction(0)] * n
    for t in range(min(submit), max(end)):
        active = [i for i in range(n) if submit[i] <= t < end[i]]
        used = sum(procs[i] for i in range(n) if start[i] <= t < end[i])
        total = sum(procs[i] for i in active)
        for i in active:
            deserved[i] += min(Fraction(procs[i] * used, total), Fraction(procs[i]))
    return deserved, [procs[i] * (end[i] - start[i]) for i in range(n)]
