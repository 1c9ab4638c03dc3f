"""Unfairness metrics of backfilling schedules: fair start times (strict, relaxed) and resource equality.

Implements G. Sabin, P. Sadayappan, "Unfairness metrics for space-sharing parallel job schedulers", JSSPP 2005,
§3: the fair start time (FST) of a job, strict (§3.1.1) and relaxed (§3.1.2), the cumulative FST unfairness
(§3.1.3), the resource-equality (RE) deserved and consumed resources (§3.2), and the break-down by job width
of the paper's Table 1. See docs/backfill.md, "Unfairness metrics".

* `fair_start_times` replays "what if no later job had arrived" for every job with the engine's stepping core
  (`fairsched.backfill.engine.BackfillSimulator`): ONE main run pauses at each arrival, its live state is
  forked into one reused scratch simulator, and each what-if stops as soon as the job has started;
  `fair_start_times_both` gives the strict and the relaxed ones together, sharing the replays under
  conservative backfilling (one replay per job instead of two).
* `resource_equality` is a pure function of a schedule table (``job, submit, start, end, procs``), so it also
  measures the schedule a trace recorded (real wait times).
* `unfairness_summary`, `fst_unfairness`, `width_bin`, `by_width` turn per-job values into the paper's figures
  (the last two, and `WIDTH_BINS`, are defined in `fairsched.backfill.metrics` and re-exported here).

"Arrived before j" means: submitted before j in the engine's submission sequence, i.e. every job with a smaller
index (jobs sorted by submit time; equal submit times keep trace order). Jobs submitted in the same second but
after j in the trace are *later* jobs: they are absent from j's what-ifs, exactly as their submissions come
after j's (each followed by its own pass) in the real run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd

from fairsched.backfill._fairness_kernels import arrival_pass
from fairsched.backfill.engine import BackfillSimulator
from fairsched.backfill.jobs import BackfillJobs
from fairsched.backfill.metrics import WIDTH_BINS as WIDTH_BINS  # re-exported (module docstring)
from fairsched.backfill.metrics import by_width as by_width
from fairsched.backfill.metrics import width_bin as width_bin
from fairsched.backfill.view import N_QUEUE, BackfillRule, QueueOrder
from fairsched.errors import ConfigError

PROGRESS_STEPS = 200  # `fair_start_times` reports progress this many times at most (every 0.5 %)

FST_KINDS: tuple[str, ...] = ("strict", "relaxed")
SCHEDULE_INPUT_COLUMNS: tuple[str, ...] = ("job", "submit", "start", "end", "procs")
# Columns of `resource_equality` (processor-seconds): deserved d_i, consumed s_i, deficit D_i = d_i - s_i.
RE_COLUMNS: tuple[str, ...] = ("job", "deserved", "consumed", "deficit")


# -- fair start times (JSSPP'05 §3.1) ------------------------------------------------------------------------
def fair_start_times(jobs: BackfillJobs, *, order: str | QueueOrder, backfill: str | BackfillRule,
                     kind: Literal["strict", "relaxed"], schedule: pd.DataFrame | None = None,
                     progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Fair start time of every job: its start if no later job had ever arrived (int64, in job order).

    Implements JSSPP'05 §3.1.1 (strict) and §3.1.2 (relaxed), Fig. 6 (``calcFST``). For job j, take the system
    state at j's arrival in the run of `order` × `backfill` (running jobs and the queued jobs that arrived
    before j, with their reservations), and simulate with the same policy and the actual run times, submitting
    no job that arrived after j:

    * ``strict``: j joins the queue at its arrival, like any job, and may backfill; FST = its start;
    * ``relaxed``: run the pass that j's arrival triggers, without j (`_fairness_kernels.arrival_pass`), then
      simulate until every job that arrived before j has started; right after the pass that started the last of
      them, j is submitted (its wait still counts from its real submit time, for LXF) and the simulation goes on
      until j starts. When no job waits at j's arrival, relaxed = strict.

    "Arrived before j" = a smaller job index (module docstring: ties at equal submit times keep trace order).

    Parameters
    ----------
    jobs : the simulated jobs (``simulate(...).jobs``).
    order, backfill : the queue order and backfilling rule of the run being measured.
    kind : ``strict`` or ``relaxed``.
    schedule : optional, the schedule of that run (``simulate(...).schedule``); the main run is then checked
        against it start for start, so that FSTs are never paired with another run's schedule.
    progress : optional ``progress(jobs_done, n_jobs)``, called before the first what-if, then every
        `PROGRESS_STEPS`-th of the jobs and at the end (a whole trace takes minutes).

    Returns
    -------
    np.ndarray of int64, FST per job. Complexity: one simulation, paused at every arrival, plus, per job, a fork
    of the live state (O(running + queue + profile)) and the events from its arrival up to its (fair) start.

    Deviations
    ----------
    §3.1.2 says the relaxed FST is >= the strict one. It holds for FCFS under none, no-guarantee and EASY
    (until j starts, j at the back of the queue changes no decision, and the relaxed what-if keeps the pass of
    j's arrival). Under conservative backfilling it can fail, with any order: in the strict what-if j's
    reservation changes how the earlier jobs' reservations compress (1 to 3 of 8,000 random small workloads
    per order have a job with relaxed < strict). Under SJF and LXF, j may also rank ahead of earlier jobs; we found no
    failure there (random workloads; CTC-SP2 under EASY). Values are reported as simulated, never clamped.

    Examples
    --------
    JSSPP'05 Fig. 3 (inaccurate estimates let a later job delay an earlier one): R1, R2 run on 8 of 10
    processors, estimated 100 s, really 40 s; Q1 (9 processors) waits; Q5 (2 processors, 80 s) backfills at 20
    and holds 2 processors when R1 and R2 end, so Q1 starts at 100 instead of 40.

    >>> jobs = BackfillJobs.from_arrays(submit=[0, 0, 10, 20], run=[40, 40, 50, 80], procs=[5, 3, 9, 2],
    ...                                 requested=[100, 100, 50, 80], n_processors=10)
    >>> fair_start_times(jobs, order="fcfs", backfill="easy", kind="strict").tolist()
    [0, 0, 40, 20]
    >>> fair_start_times(jobs, order="fcfs", backfill="easy", kind="relaxed").tolist()
    [0, 0, 40, 90]
    """
    if kind not in FST_KINDS:
        raise ConfigError(f"kind={kind!r}: choose one of {', '.join(FST_KINDS)} (JSSPP'05 §3.1.1 / §3.1.2)")
    if not isinstance(jobs, BackfillJobs):
        raise ConfigError(f"expected BackfillJobs (simulate(...).jobs), got {type(jobs).__name__}")
    sim = BackfillSimulator(jobs, order, backfill)
    if schedule is not None:  # before the what-ifs, so that a wrong pairing fails in a fraction of a second
        reference = BackfillSimulator(jobs, order, backfill)
        reference.run()
        _check_same_run(schedule, reference)
    scratch = BackfillSimulator(jobs, order, backfill)  # one set of buffers reused by every what-if
    what_if = _strict_what_if if kind == "strict" else _relaxed_what_if
    fst = np.empty(jobs.n_jobs, dtype=np.int64)
    every = max(1, jobs.n_jobs // PROGRESS_STEPS)
    for job in range(jobs.n_jobs):
        if progress is not None and job % every == 0:
            progress(job, jobs.n_jobs)
        sim.run(pause_before=job)  # the state at `job`'s arrival; pausing never changes the schedule
        fst[job] = what_if(sim, scratch, job)
    if progress is not None:
        progress(jobs.n_jobs, jobs.n_jobs)
    return fst


def fair_start_times_both(jobs: BackfillJobs, *, order: str | QueueOrder, backfill: str | BackfillRule,
                          schedule: pd.DataFrame | None = None,
                          progress: Callable[[int, int], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Strict and relaxed fair start times of every job together: ``(strict, relaxed)``, each int64 in job order.

    The same values as ``fair_start_times(..., kind="strict")`` and ``kind="relaxed"`` (same parameters), in
    less time under conservative backfilling, where one what-if serves two of them. Let S_j be the state of the
    run just before j's submission (``run(pause_before=j)``):

    * the strict what-if of job j − 1 replays the events after its submission with no later arrival; until j
      arrives the real run does the same, so from S_j on it is "S_j, then no more submissions": if j − 1 has
      started by then, its real start is its strict FST;
    * the relaxed what-if of job j is S_j, the pass that j's arrival triggers without j (none under
      conservative, `_fairness_kernels.arrival_pass`), then no more submissions until the queue is empty:
      the same replay, continued. It passes through the start of j − 1 (which waits in that queue), so one
      replay from S_j gives the strict FST of j − 1, then, once the queue has emptied and j is injected, the
      relaxed FST of j;
    * when no job waits at S_j, the relaxed what-if of j is its strict one (`fair_start_times`), found at the
      next step; the strict FST of the last job is its real start.

    Other backfilling rules run a pass at j's arrival, so the two replays differ: they are computed apart.

    Parameters
    ----------
    jobs, order, backfill, schedule : as in `fair_start_times`.
    progress : optional ``progress(jobs_done, n_jobs)``, as in `fair_start_times` (one sweep over the jobs).

    Returns
    -------
    (strict, relaxed) : two np.ndarray of int64. Complexity under conservative: one replay per job, from its
    arrival until the queue it found has emptied and it has started; the strict replays are shared.

    Examples
    --------
    >>> jobs = BackfillJobs.from_arrays(submit=[0, 0, 10, 20], run=[40, 40, 50, 80], procs=[5, 3, 9, 2],
    ...                                 requested=[100, 100, 50, 80], n_processors=10)
    >>> [a.tolist() for a in fair_start_times_both(jobs, order="fcfs", backfill="conservative")]
    [[0, 0, 40, 20], [0, 0, 40, 90]]
    """
    sim = BackfillSimulator(jobs, order, backfill)
    if sim.backfill.reservations != -1:
        return tuple(fair_start_times(jobs, order=order, backfill=backfill, kind=kind, schedule=schedule,
                                      progress=progress) for kind in FST_KINDS)  # type: ignore[return-value]
    if schedule is not None:
        reference = BackfillSimulator(jobs, order, backfill)
        reference.run()
        _check_same_run(schedule, reference)
    scratch = BackfillSimulator(jobs, order, backfill)
    n = jobs.n_jobs
    strict = np.full(n, -1, dtype=np.int64)
    relaxed = np.full(n, -1, dtype=np.int64)
    alone = np.zeros(n, dtype=bool)  # no job waited at its arrival: relaxed = strict
    every = max(1, n // PROGRESS_STEPS)
    for job in range(n):
        if progress is not None and job % every == 0:
            progress(job, n)
        sim.run(pause_before=job)  # S_job
        earlier = job - 1
        if earlier >= 0 and sim.start_time(earlier) is not None:
            strict[earlier] = sim.start_time(earlier)
        if earlier < 0 or sim.clock[N_QUEUE] == 0:
            alone[job] = True
            continue
        what_if = sim.fork(into=scratch)
        if strict[earlier] < 0:  # not started, so it waits
            strict[earlier] = what_if.run_until_started(earlier, submit_limit=job)
        what_if.run_until_queue_empty(submit_limit=job)
        start = what_if.inject(job)
        relaxed[job] = start if start is not None else what_if.run_until_started(job, submit_limit=job)
    if n:
        sim.run()
        strict[n - 1] = sim.start_time(n - 1)
    relaxed[alone] = strict[alone]
    if progress is not None:
        progress(n, n)
    return strict, relaxed


def _strict_what_if(sim: BackfillSimulator, scratch: BackfillSimulator, job: int) -> int:
    """§3.1.1: submit `job` as in the real run, but no later job; run until it starts."""
    return sim.fork(into=scratch).run_until_started(job, submit_limit=job + 1)


def _relaxed_what_if(sim: BackfillSimulator, scratch: BackfillSimulator, job: int) -> int:
    """§3.1.2, Fig. 6: start every earlier job first (no later job arrives), then add `job`; run until it starts.

    The pass that `job`'s arrival triggers runs first, without `job` (`_fairness_kernels`: so that the what-if
    differs from the strict one only in when `job` joins).
    """
    what_if = sim.fork(into=scratch)
    jobs = what_if.jobs
    arrival_pass(what_if.backfill.code, what_if.order.code, jobs.submit, jobs.run, jobs.requested, jobs.procs,
                 what_if.clock, what_if.hold, what_if.heap, what_if.queue, what_if.new, what_if.out_start,
                 what_if.out_seq)
    what_if.run_until_queue_empty(submit_limit=job)
    start = what_if.inject(job)
    return start if start is not None else what_if.run_until_started(job, submit_limit=job)


def _check_same_run(schedule: pd.DataFrame, sim: BackfillSimulator) -> None:
    own = sim.schedule()
    if "start" not in schedule.columns or len(schedule) != len(own):
        raise ConfigError(f"the schedule given has {len(schedule)} rows (needs a 'start' column and one row per "
                          f"job, {len(own)}); pass the schedule that simulate() returned for these jobs")
    differs = np.flatnonzero(schedule["start"].to_numpy() != own["start"].to_numpy())
    if differs.size:
        k = int(differs[0])
        raise ConfigError(f"the schedule given is not this run's: {differs.size} start time(s) differ, first job "
                          f"{int(own['job'].iat[k])} (row {k}) starts at {schedule['start'].iat[k]} in it but at "
                          f"{int(own['start'].iat[k])} under {sim.order.name} × {sim.backfill.name}; pass the "
                          "order, backfilling rule and jobs of the run that produced the schedule")


# -- resource equality (JSSPP'05 §3.2) ------------------------------------------------------------------------
def resource_equality(schedule: pd.DataFrame, n_processors: int) -> pd.DataFrame:
    """Deserved and consumed resources of every job (processor-seconds, float64), in schedule order.

    Implements JSSPP'05 §3.2: with a_i = submit, c_i = end, nodes_i = procs,

        d_i = ∫_{a_i}^{c_i} min(nodes_i / Σ_{j active} nodes_j × used(t), nodes_i) dt,
        s_i = (c_i − start_i) × nodes_i,   D_i = d_i − s_i,

    where a job is *active* on [submit, end) (queued or running) and used(t) = Σ procs of the jobs running at t
    ([start, end)). The integrand is piecewise constant between event points (submits, starts, ends), so one
    sweep integrates it exactly: per-node share g(t) = min(used / Σ active, 1), its running integral G at the
    event points, then d_i = nodes_i × (G(c_i) − G(a_i)). Since running jobs are active, used <= Σ active and
    the min never binds on a valid schedule; then Σ_i d_i = Σ_i s_i (the deficits sum to zero).

    Parameters
    ----------
    schedule : columns ``job, submit, start, end, procs`` (any schedule: simulated, or a trace's recorded one
        with start = submit + wait); times may be fractional.
    n_processors : P. Jobs wider than P are refused. used(t) is taken from the schedule as recorded, not capped
        at P: real traces sometimes record more busy processors than their header's MaxProcs, and capping would
        break Σ d = Σ s. The result's ``attrs`` give ``max_used_processors`` and ``overcommitted_seconds``
        (time with used > P; 0 for any simulated schedule).

    Returns
    -------
    DataFrame with `RE_COLUMNS` (``job, deserved, consumed, deficit``). O(n log n), vectorized.

    Examples
    --------
    Two 1-processor jobs on 2 processors; A runs [0, 10), B arrives at 0 but waits until 10 and runs [10, 20).
    On [0, 10) both are active and 1 processor is used: each deserves 1/2 × 1 per second (5 each); on [10, 20)
    only B is active and gets 1 per second. d_A = 5, d_B = 5 + 10 = 15, s_A = s_B = 10.

    >>> s = pd.DataFrame({"job": [1, 2], "submit": [0, 0], "start": [0, 10], "end": [10, 20], "procs": [1, 1]})
    >>> resource_equality(s, 2)[["deserved", "consumed", "deficit"]].to_numpy().tolist()
    [[5.0, 10.0, -5.0], [15.0, 10.0, 5.0]]
    """
    submit, start, end, procs = _schedule_arrays(schedule, n_processors)
    grid = np.unique(np.concatenate([submit, start, end]))
    at_submit, at_start, at_end = (np.searchsorted(grid, t) for t in (submit, start, end))
    size = grid.size
    # Σ procs of active jobs and of running jobs on [grid[k], grid[k+1]): bincount of +/- changes, then cumsum.
    active = np.cumsum(np.bincount(at_submit, procs, size) - np.bincount(at_end, procs, size))
    used = np.cumsum(np.bincount(at_start, procs, size) - np.bincount(at_end, procs, size))
    share = np.minimum(np.divide(used, active, out=np.zeros(size), where=active > 0), 1.0)
    # G[k] = ∫_{grid[0]}^{grid[k]} share(t) dt
    integral = np.concatenate([[0.0], np.cumsum(share[:-1] * np.diff(grid))])
    deserved = procs * (integral[at_end] - integral[at_submit])  # nodes_i × ∫ min(used/Σactive, 1): §3.2 d_i
    consumed = procs * (end - start)
    out = pd.DataFrame({"job": schedule["job"].to_numpy(), "deserved": deserved, "consumed": consumed,
                        "deficit": deserved - consumed})
    over = used > n_processors
    out.attrs["max_used_processors"] = float(used.max()) if size else 0.0
    out.attrs["overcommitted_seconds"] = float(np.sum(np.diff(grid)[over[:-1]])) if size else 0.0
    return out


def _schedule_arrays(schedule: pd.DataFrame, n_processors: int) -> tuple[np.ndarray, ...]:
    """submit, start, end, procs as float64, after the checks resource equality needs (each with its fix)."""
    if isinstance(n_processors, bool) or not isinstance(n_processors, int | np.integer) or n_processors < 1:
        raise ConfigError(f"n_processors={n_processors!r}: expected a positive integer (the machine size)")
    missing = [c for c in SCHEDULE_INPUT_COLUMNS if c not in schedule.columns]
    if missing:
        raise ConfigError(f"the schedule lacks column(s) {', '.join(missing)}; expected "
                          f"{', '.join(SCHEDULE_INPUT_COLUMNS)} (e.g. simulate(...).schedule)")
    submit, start, end, procs = (schedule[c].to_numpy(np.float64) for c in ("submit", "start", "end", "procs"))
    problems = {
        "a time that is not finite": ~(np.isfinite(submit) & np.isfinite(start) & np.isfinite(end)),
        "start < submit": start < submit,
        "end < start": end < start,
        "procs < 1": ~(procs >= 1),
        f"procs > {n_processors} (the machine)": procs > n_processors,
    }
    found = [f"{int(bad.sum())} job(s) with {what} (first: row {int(np.flatnonzero(bad)[0])})"
             for what, bad in problems.items() if bad.any()]
    if found:
        raise ConfigError(f"resource equality needs a valid schedule: {'; '.join(found)}. Active = [submit, end) "
                          "must contain running = [start, end); clean the trace first "
                          f"(fairsched.workload.clean.clean(workload, max_processors={n_processors})) and drop "
                          "jobs without a recorded wait time")
    return submit, start, end, procs


# -- per-job unfairness and summaries (JSSPP'05 §3.1.3, §3.2, Table 1) ---------------------------------------
def fst_unfairness(schedule: pd.DataFrame, fst: np.ndarray) -> pd.DataFrame:
    """Per-job FST miss: ``job, procs, start, fst, miss = start − FST, unfairness = max(miss, 0), benefit =
    max(−miss, 0)`` (JSSPP'05 §3.1.3: a negative miss is preferential treatment, kept apart as a benefit).

    >>> s = pd.DataFrame({"job": [1, 2], "start": [100, 20], "procs": [8, 2]})
    >>> fst_unfairness(s, np.array([40, 90]))[["miss", "unfairness", "benefit"]].to_numpy().tolist()
    [[60, 60, 0], [-70, 0, 70]]
    """
    fst = _aligned(schedule, fst, "fst")
    start = schedule["start"].to_numpy()
    miss = start - fst
    return pd.DataFrame({"job": schedule["job"].to_numpy(), "procs": schedule["procs"].to_numpy(), "start": start,
                         "fst": fst, "miss": miss, "unfairness": np.maximum(miss, 0), "benefit": np.maximum(-miss, 0)})


def unfairness_summary(schedule: pd.DataFrame, fst: np.ndarray | Mapping[str, np.ndarray] | None = None,
                       re: pd.DataFrame | None = None) -> dict[str, Any]:
    """Overall and per-width unfairness, as a JSON-ready nested dict.

    Implements JSSPP'05 §3.1.3 (FST: Σ max(start − FST, 0) / n) and §3.2 (RE: Σ max(D_i, 0) / n), with the
    width bins of Table 1.

    Parameters
    ----------
    schedule : columns ``job, start, procs`` (one row per job, the order of `fst` and `re`).
    fst : FST per job, or a mapping such as ``{"strict": ..., "relaxed": ...}``; key ``fst`` resp. ``fst_<name>``.
    re : `resource_equality` of the same schedule; key ``re``.

    Returns
    -------
    ``{"n_jobs": n, <metric>: {"unfairness", "benefit", "n_unfair", "n_benefit", "max_unfairness",
    "by_width": {bin: mean unfairness of the bin's jobs, None if empty}}, "width_jobs": {bin: jobs}}``; for FST,
    unfairness / benefit are in seconds, for RE in processor-seconds (benefit: Σ max(−D_i, 0) / n).

    >>> s = pd.DataFrame({"job": [1, 2, 3], "start": [0, 100, 20], "procs": [6, 8, 2]})
    >>> out = unfairness_summary(s, fst={"strict": np.array([0, 40, 20])})
    >>> out["fst_strict"]["unfairness"], out["fst_strict"]["by_width"]["5-8"], out["width_jobs"]["2"]
    (20.0, 30.0, 1)
    """
    _require_columns(schedule, ("job", "start", "procs"))
    procs = schedule["procs"].to_numpy()
    out: dict[str, Any] = {"n_jobs": len(schedule)}
    named = {"fst": fst} if fst is not None and not isinstance(fst, Mapping) else dict(fst or {})
    for name, values in named.items():
        key = name if name == "fst" else f"fst_{name}"
        miss = fst_unfairness(schedule, values)["miss"].to_numpy()
        out[key] = _metric_summary(miss.astype(np.float64), procs)
    if re is not None:
        if "deficit" not in re.columns or len(re) != len(schedule) or (
                "job" in re.columns and not np.array_equal(re["job"].to_numpy(), schedule["job"].to_numpy())):
            raise ConfigError("re must be resource_equality(schedule, P) of this schedule (same jobs, same order)")
        out["re"] = _metric_summary(re["deficit"].to_numpy(np.float64), procs)
    out["width_jobs"] = {label: int(n) for label, n in by_width(np.zeros(len(procs)), procs)["n_jobs"].items()}
    return out


def _metric_summary(miss: np.ndarray, procs: np.ndarray) -> dict[str, Any]:
    """Unfairness = mean of max(miss, 0) over all jobs (also per width bin); benefit = mean of max(−miss, 0)."""
    n = max(miss.size, 1)
    unfair = np.maximum(miss, 0.0)
    per_bin = by_width(unfair, procs)["mean"]
    return {"unfairness": float(unfair.sum() / n), "benefit": float(np.maximum(-miss, 0.0).sum() / n),
            "n_unfair": int(np.sum(miss > 0)), "n_benefit": int(np.sum(miss < 0)),
            "max_unfairness": float(unfair.max()) if miss.size else 0.0,
            "by_width": {label: (None if np.isnan(v) else float(v)) for label, v in per_bin.items()}}


def _aligned(schedule: pd.DataFrame, values: np.ndarray, name: str) -> np.ndarray:
    _require_columns(schedule, ("job", "start", "procs"))
    values = np.asarray(values)
    if values.shape != (len(schedule),):
        raise ConfigError(f"{name} has shape {values.shape}; expected one value per schedule row ({len(schedule)}), "
                          "in the same order")
    return values


def _require_columns(schedule: pd.DataFrame, columns: tuple[str, ...]) -> None:
    missing = [c for c in columns if c not in schedule.columns]
    if missing:
        raise ConfigError(f"the schedule lacks column(s) {', '.join(missing)}; expected at least {', '.join(columns)}")
