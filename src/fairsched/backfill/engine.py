"""Event-driven engine of the backfilling model: one cluster, rigid parallel jobs, queue order × backfilling.

Model (G. Sabin, P. Sadayappan, "Unfairness metrics for space-sharing parallel job schedulers", JSSPP 2005,
§4): P identical processors; job j arrives at s_j and needs p_j processors for its run time r_j; the scheduler
knows only the requested time q_j >= r_j and learns r_j when j ends; no preemption. A queue order (FCFS,
SJF, LXF) ranks the waiting jobs and a backfilling rule (none, no-guarantee, EASY, conservative) decides which
may start. The event order, the "holding" of processors until the earlier of planned end and termination,
EASY's shadow time and conservative's profile follow ../shared/oracles/pyss/README.md §1–§5 exactly, so that
``order="fcfs"`` with ``backfill="none" / "easy" / "conservative"`` reproduces pyss's FcfsScheduler,
EasyBackfillScheduler and ConservativeScheduler job for job (docs/backfill.md).

`BackfillSimulator` is the stepping core: it can pause just before any job's submission (the system state at
that job's arrival), fork its live state into another simulator in O(running + queue + profile) — never
copying whole-trace arrays — and run a fork until a given job has started: what the fair-start-time metrics
of JSSPP'05 §3.1 need. `simulate` is the front door for one schedule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

import fairsched
from fairsched.backfill import _loop
from fairsched.backfill.jobs import BackfillJobs, jobs_from_workload
from fairsched.backfill.metrics import bounded_slowdown
from fairsched.backfill.registry import get_backfill, get_order
from fairsched.backfill.view import (
    BF_INTERVAL,
    BF_NEXT,
    CERT_SIZE,
    FREE,
    K_JOB,
    N_CLOCK,
    N_HEAP,
    N_HOLD,
    N_PROCS,
    N_PROF,
    N_QUEUE,
    NEXT_SUB,
    NOW,
    P_FREE,
    P_TIME,
    PERIOD,
    Q_JOB,
    Q_RES,
    RULE_CLOCK,
    TICK,
    BackfillRule,
    QueueOrder,
    TickSetup,
)
from fairsched.errors import ConfigError, InvariantError
from fairsched.workload.model import Workload, WorkloadColumns
from fairsched.workload.transform import scale_to_load

if TYPE_CHECKING:
    import pandas as pd

# Column names of BackfillResult.schedule (one row per job, in submission order):
#   job               the SWF job number
#   submit            submit time s_j (s, the trace's clock)
#   start             start time S_j
#   end               S_j + r_j (actual run time)
#   procs             processors p_j
#   wait              S_j - s_j
#   bounded_slowdown  max(1, (wait + r_j) / max(r_j, 10 s))  (see fairsched.backfill.metrics)
SCHEDULE_COLUMNS = ("job", "submit", "start", "end", "procs", "wait", "bounded_slowdown")


@dataclass(frozen=True)
class BackfillResult:
    """What one run produced.

    Attributes
    ----------
    columns : the schedule as numpy arrays, `SCHEDULE_COLUMNS` -> one value per job in submission order (int64;
        ``bounded_slowdown`` float64): what the metrics and the validator read, without pandas.
    jobs : the simulated jobs (after load scaling and the estimate rules), for metrics and what-ifs.
    meta : order, backfill, processors, load, estimate counts, source, fairsched version.
    schedule : the same columns as a DataFrame, built (and pandas imported) on first use only, so that
        ``fairsched backfill`` without ``--out`` never imports pandas.
    """

    columns: dict[str, np.ndarray]
    jobs: BackfillJobs
    meta: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def schedule(self) -> pd.DataFrame:
        """DataFrame with `SCHEDULE_COLUMNS`, one row per job, in submission order."""
        import pandas as pd

        return pd.DataFrame(self.columns)


class BackfillSimulator:
    """Stepping core for one set of jobs under one (queue order, backfilling rule).

    Use ``sim.run()`` for a whole schedule. For what-if simulations (JSSPP'05 §3.1): ``sim.run(pause_before=j)``
    stops just before j's submission; ``sim.fork(into=scratch)`` copies the live state; then
    ``scratch.run_until_started(j, submit_limit=j + 1)`` gives j's start if no later job ever arrived. A fork
    shares the job arrays and tracks only the jobs it starts (`start_time`); ``sim`` itself is untouched.
    """

    def __init__(self, jobs: BackfillJobs, order: str | QueueOrder = "fcfs",
                 backfill: str | BackfillRule = "easy", *, order_params: Mapping[str, Any] | None = None) -> None:
        self.jobs = jobs
        self.order = get_order(order)
        self.backfill = get_backfill(backfill)
        self.order_params = dict(order_params or {})
        self.tick = _tick_setup(self.order, jobs, self.order_params)
        n, p = jobs.n_jobs, jobs.n_processors
        cap_run = min(n, 2 * p) + 1  # holding jobs <= P, plus <= P ending now (view.py)
        first = int(jobs.submit[0]) if n else 0
        self.clock = np.zeros(N_CLOCK, dtype=np.int64)
        self.clock[[NOW, FREE, N_PROCS, N_PROF, TICK]] = first, p, p, 1, -1
        if self.order.ticked and n:
            self.clock[[TICK, PERIOD]] = first, self.tick.period  # the first tick comes before any submission
        for name, value in self.backfill.params:  # the rule's parameters (the slurm rule's bf_*)
            self.clock[RULE_CLOCK[name]] = value
        if self.backfill.params:
            self.clock[BF_NEXT] = first + self.clock[BF_INTERVAL]  # the first backfill pass
        self.hold = np.zeros((3, cap_run), dtype=np.int64)
        self.heap = np.zeros((cap_run, 4), dtype=np.int64)  # rows (end, start, seq, job): view.py
        self.queue = np.zeros((3, max(n, 1)), dtype=np.int64)
        self.prof = np.zeros((2, 2 * (n + cap_run) + 4), dtype=np.int64)  # <= 2 breakpoints per interval
        self.prof[[P_TIME, P_FREE], 0] = first, p
        certified = n if self.backfill.reservations == -1 else 1  # conservative: the certificates (view.py)
        self.cert = np.zeros((certified, CERT_SIZE), dtype=np.int64)
        self.new = np.zeros(max(n, 1), dtype=np.int64)
        self.out_start = np.full(n, -1, dtype=np.int64)
        self.out_seq = np.full(n, -1, dtype=np.int64)
        self._injected = -1  # the job submitted by `inject`, outside the submission sequence
        # Plain tuples, built once: numba types a namedtuple argument in Python on every call, a plain tuple on
        # its fast path (the what-ifs call `run_events` once per job; see docs/contributing.md).
        j = self.jobs
        self._loop_jobs = tuple(_loop.LoopJobs(submit=j.submit, run=j.run, req=j.requested, procs=j.procs))
        self._loop_state = tuple(_loop.LoopState(clock=self.clock, hold=self.hold, heap=self.heap, queue=self.queue,
                                                 prof=self.prof, cert=self.cert, new=self.new,
                                                 out_start=self.out_start, out_seq=self.out_seq))
        t = self.tick
        self.key = np.zeros(max(n, 1), dtype=np.float64)  # ticked orders: each waiting job's rank key
        self._loop_tick = tuple(_loop.LoopTick(org=t.org, jpar=t.jpar, opar=t.opar, ost=t.ost, key=self.key))

    # -- state, read-only --------------------------------------------------------------------------------
    @property
    def now(self) -> int:
        return int(self.clock[NOW])

    @property
    def n_free(self) -> int:
        """Free processors now (P minus the holding jobs)."""
        return int(self.clock[FREE])

    @property
    def next_submission(self) -> int:
        """Index of the first job not yet submitted."""
        return int(self.clock[NEXT_SUB])

    def waiting_jobs(self) -> np.ndarray:
        """Indices of the waiting jobs, in the queue order of the last pass (a copy)."""
        return self.queue[Q_JOB, :self.clock[N_QUEUE]].copy()

    def reservations(self) -> dict[int, int]:
        """Conservative backfilling: {waiting job index: reserved start time R_j} (empty for other rules)."""
        if self.backfill.reservations != -1:
            return {}
        live = int(self.clock[N_QUEUE])
        return dict(zip(self.queue[Q_JOB, :live].tolist(), self.queue[Q_RES, :live].tolist(), strict=True))

    def running_jobs(self) -> np.ndarray:
        """Indices of the started jobs whose termination is not processed yet, sorted (a copy)."""
        return np.sort(self.heap[:self.clock[N_HEAP], K_JOB])

    def start_time(self, job: int) -> int | None:
        """Start time of `job` in this simulator (None: not started here)."""
        start = int(self.out_start[job])
        return None if start < 0 else start

    # -- running -----------------------------------------------------------------------------------------
    def run(self, *, pause_before: int | None = None, submit_limit: int | None = None) -> bool:
        """Process events until none is left (False) or just before job `pause_before`'s submission (True).

        Jobs with index >= `submit_limit` are never submitted (what-ifs: "as if no later job arrived").
        """
        code = self._run(submit_limit, -1 if pause_before is None else int(pause_before), -1, False)
        return code == _loop.PAUSED

    def run_until_started(self, job: int, *, submit_limit: int | None = None) -> int:
        """Run until `job` has started and return its start time.

        `job` must not have started yet (it waits, or it is submitted later, below `submit_limit`), or be the
        job last injected here. Events after its start are left unprocessed, so a what-if costs only the events
        up to that start.
        """
        job = int(job)
        if job == self._injected and self.out_start[job] >= 0:
            return int(self.out_start[job])
        waiting = bool(np.any(self.waiting_jobs() == job))
        limit = self.jobs.n_jobs if submit_limit is None else int(submit_limit)
        if not waiting and not self.next_submission <= job < limit:
            raise ConfigError(f"job {job} cannot start later in this simulation: it is not waiting, and it is "
                              f"{'already submitted' if job < self.next_submission else 'beyond submit_limit'}")
        self.out_start[job] = -1  # not started in this state; a reused fork may hold a stale value
        self._run(submit_limit, -1, job, False)
        if self.out_start[job] < 0:
            raise InvariantError(f"job {job} never started (t={self.now}, submit limit {submit_limit})")
        return int(self.out_start[job])

    def run_until_queue_empty(self, *, submit_limit: int | None = None) -> None:
        """Run until no job waits (returns at once when none waits now)."""
        if self.clock[N_QUEUE] > 0:
            self._run(submit_limit, -1, -1, True)

    def inject(self, job: int) -> int | None:
        """Submit `job` now, outside the submission sequence (relaxed FST, JSSPP'05 §3.1.2); one pass follows.

        Returns its start time if it started at once, else None (then `run_until_started`). Later runs must keep
        ``submit_limit <= job``, so that the job is not submitted a second time.
        """
        job = int(job)
        if job < self.next_submission or job == self._injected or bool(np.any(self.waiting_jobs() == job)):
            raise ConfigError(f"job {job} is already in this simulation; inject only a job not submitted yet, once")
        self._injected = job
        self.out_start[job] = -1
        _loop.inject_submission(self.backfill.code, self.order.code, job, self._loop_jobs, self._loop_state,
                                self._loop_tick)
        return self.start_time(job)

    def fork(self, into: BackfillSimulator | None = None) -> BackfillSimulator:
        """A copy of the live state (O(running + queue + profile)); reuses `into`'s buffers when given."""
        other = into if into is not None else BackfillSimulator(self.jobs, self.order, self.backfill,
                                                                 order_params=self.order_params)
        if (other.jobs is not self.jobs or other.order != self.order or other.backfill != self.backfill
                or other.tick.opar.tobytes() != self.tick.opar.tobytes()):
            raise ConfigError("fork(into=...) needs a simulator of the same jobs, order (and order parameters) "
                              "and backfilling rule")
        other.clock[:] = self.clock
        other._injected = self._injected
        if self._injected >= 0:
            other.out_start[self._injected] = self.out_start[self._injected]
        for name, count in (("hold", N_HOLD), ("queue", N_QUEUE), ("prof", N_PROF)):
            live = int(self.clock[count])
            getattr(other, name)[:, :live] = getattr(self, name)[:, :live]
        live = int(self.clock[N_HEAP])
        other.heap[:live] = self.heap[:live]  # the heap's rows are its entries (view.py)
        waiting = self.queue[Q_JOB, :self.clock[N_QUEUE]]
        if self.backfill.reservations == -1:
            other.cert[waiting] = self.cert[waiting]
        if self.order.ticked:
            other.tick.ost[:] = self.tick.ost
            other.key[waiting] = self.key[waiting]
        return other

    def _run(self, submit_limit: int | None, pause_before: int, stop_job: int, stop_when_queue_empty: bool) -> int:
        limit = self.jobs.n_jobs if submit_limit is None else min(int(submit_limit), self.jobs.n_jobs)
        if 0 <= self._injected < limit and self.next_submission <= self._injected:
            raise ConfigError(f"job {self._injected} was injected; run with submit_limit <= {self._injected}")
        return int(_loop.run_events(self.backfill.code, self.order.code, self._loop_jobs, self._loop_state,
                                    self._loop_tick, limit, pause_before, stop_job, stop_when_queue_empty))

    # -- output ------------------------------------------------------------------------------------------
    def schedule_columns(self) -> dict[str, np.ndarray]:
        """The finished schedule as arrays, `SCHEDULE_COLUMNS` -> one value per job in submission order."""
        if np.any(self.out_start < 0) or self.clock[N_QUEUE] or self.clock[N_HEAP]:
            raise InvariantError(f"simulation not finished at t={self.now}: {int(np.sum(self.out_start < 0))} "
                                 f"job(s) never started, {int(self.clock[N_HEAP])} running")
        j = self.jobs
        start = self.out_start.copy()
        wait = start - j.submit
        return {"job": j.job, "submit": j.submit, "start": start, "end": start + j.run, "procs": j.procs,
                "wait": wait, "bounded_slowdown": bounded_slowdown(wait, j.run)}

    def schedule(self) -> pd.DataFrame:
        """The finished schedule, one row per job in submission order (`SCHEDULE_COLUMNS`), as a DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.schedule_columns())


def simulate(workload_or_jobs: Workload | WorkloadColumns | BackfillJobs, *, processors: int | None = None,
             order: str | QueueOrder = "fcfs", backfill: str | BackfillRule = "easy", load: float | None = None,
             load_by: Literal["runtime", "arrival"] = "runtime",
             order_params: Mapping[str, Any] | None = None) -> BackfillResult:
    """Schedule every job under `order` × `backfill` on `processors` processors.

    Implements the backfilling model of JSSPP'05 §4 with the event semantics of the pyss oracle README
    (§1–§5); ``order="fcfs"`` with ``backfill="none" | "easy" | "conservative"`` is pyss's FCFS / EASY /
    conservative scheduler.

    Parameters
    ----------
    workload_or_jobs : a cleaned `Workload` or `WorkloadColumns` (`fairsched.backfill.jobs.jobs_from_workload`
        rules) or `BackfillJobs`.
    processors : P; default the workload header's ``MaxProcs`` (or ``jobs.n_processors``).
    order : ``fcfs``, ``sjf``, ``lxf``, or a ticked order ``drf``, ``directcontr``, ``slurm-fair-tree``,
        ``slurm-classic`` (keys recomputed every ``calc_period`` seconds; docs/whatif.md).
    backfill : ``none``, ``no-guarantee``, ``easy``, ``conservative`` or ``slurm`` (its parameters:
        ``fairsched.backfill.policies.slurm_rule.slurm_rule(bf_interval=..., ...)``).
    load : offered load to reach first, by `fairsched.workload.transform.scale_to_load` (a workload only).
    load_by : ``runtime`` (run and requested times × factor, JSSPP'05 §4) or ``arrival`` (compression).
    order_params : a ticked order's parameters (``org``, ``shares``, ``calc_period`` and its own; its module's
        docstring). Other orders take none.

    Returns
    -------
    BackfillResult. Complexity: O(events × (log running + pass)); a pass is O(queue) for none/no-guarantee/
    EASY and O(queue × profile) for a conservative compression.

    Examples
    --------
    >>> jobs = BackfillJobs.from_arrays(submit=[0, 0, 1, 5], run=[5, 100, 10, 5], procs=[2, 2, 4, 2],
    ...                                 requested=[10, 100, 10, 5], n_processors=6)
    >>> simulate(jobs, backfill="easy").schedule["start"].tolist()   # pyss README, Example A
    [0, 0, 10, 5]
    >>> simulate(jobs, backfill="none").schedule["start"].tolist()
    [0, 0, 5, 15]
    """
    order_spec, rule = get_order(order), get_backfill(backfill)
    jobs = _as_jobs(workload_or_jobs, processors, load, load_by)
    sim = BackfillSimulator(jobs, order_spec, rule, order_params=order_params)
    sim.run()
    meta = {"model": "backfill", "order": order_spec.name, "backfill": rule.name, "processors": jobs.n_processors,
            "n_jobs": jobs.n_jobs, "load": load, "load_by": load_by if load is not None else None,
            "estimates": dict(jobs.estimate_counts), "source": jobs.source,
            "fairsched_version": fairsched.__version__}
    if order_spec.ticked:
        meta["calc_period"] = sim.tick.period
    if rule.params:
        meta["backfill_params"] = dict(rule.params)
    return BackfillResult(columns=sim.schedule_columns(), jobs=jobs, meta=meta)


def _tick_setup(order: QueueOrder, jobs: BackfillJobs, params: Mapping[str, Any]) -> TickSetup:
    """The ticked order's setup for these jobs; size-1 dummies (never read) for the other orders."""
    if order.ticked and order.prepare is not None:
        return order.prepare(jobs, params)
    if params:
        raise ConfigError(f"queue order {order.name!r} takes no parameters, got {', '.join(sorted(params))}")
    return TickSetup(period=0, org=np.zeros(1, np.int64), jpar=np.zeros((1, 1)), opar=np.zeros(1), ost=np.zeros(1))


def _as_jobs(data: Workload | WorkloadColumns | BackfillJobs, processors: int | None, load: float | None,
             load_by: str) -> BackfillJobs:
    if isinstance(data, BackfillJobs):
        if load is not None:
            raise ConfigError("load scaling works on a Workload; scale it before building BackfillJobs "
                              "(fairsched.workload.transform.scale_to_load)")
        if processors is not None and processors != data.n_processors:
            raise ConfigError(f"processors={processors} but the jobs were built for {data.n_processors}; "
                              "rebuild them with BackfillJobs.from_arrays(..., n_processors=...)")
        return data
    if not isinstance(data, Workload | WorkloadColumns):
        raise ConfigError(f"expected a Workload, WorkloadColumns or BackfillJobs, got {type(data).__name__}")
    if processors is None:
        processors = data.header_int("MaxProcs")
    if load is not None:
        if processors is None:
            raise ConfigError("load scaling needs the machine size: pass processors=P")
        data = scale_to_load(data, load, processors, how=load_by)  # type: ignore[arg-type]
    return jobs_from_workload(data, n_processors=processors)
