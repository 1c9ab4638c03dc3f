"""Online scheduling of multi-task jobs arriving over time (Networking'20 §VII-B).

Planners (PBA, k-Max-Min, exact, or any callable algorithm) re-plan at interval boundaries: time is cut into
intervals of length δ_i = δ₀ / (1 + α·e^{−β·i}), i = 1, 2, ... (short first, so early jobs do not wait a whole
δ₀); at the start of each interval the offline algorithm runs on every arrived job that still has tasks not yet
started, and each machine then follows the new plan once its running task (if any) has finished — no preemption.
Tasks planned to start at or after the next boundary are re-planned there; jobs arriving during an interval
wait for its end. The baselines FIFO, SPTF and LUF are event driven instead: each machine re-sorts its list on
arrivals and never preempts, which their offline functions already do when arrivals are > 0.

Interpretations (the paper leaves them open):
* A partially started job is re-planned with its unstarted tasks only (running tasks "finish, then proceed with
  the new schedule"); its completion is the max over all its tasks.
* The plan ignores how long each machine is still busy (the offline algorithms start every machine at 0): busy
  machines simply start their part of the plan later.
* The first interval starts at the first arrival; δ₀ is in seconds and `time_unit` is the length of one
  instance time unit in seconds (the Google reader's ``time_unit_s``), boundaries are rounded to whole units.
* With linear utilities t is measured from the job's arrival (§VII-B2): the planner receives
  τ_j = τ − (boundary − a_j) so that U_j = P_j·(τ − (C_j − a_j)) (when it accepts a ``tau`` parameter).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import numpy as np

from fairsched.errors import ConfigError, InvariantError
from fairsched.openshop import _kernels as _k
from fairsched.openshop.engine import accepts, completion_of
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
from fairsched.openshop.metrics import check_utilities, default_horizon

Algorithm = Callable[..., OpenShopSchedule]

DELTA0_S, ALPHA, BETA = 3.3e5, 50.0, 3.0  # §VII-B
MAX_INTERVALS = 1_000_000  # more means δ₀ is tiny against the horizon: most likely a wrong time_unit


def interval_lengths(count: int, *, delta0: float = DELTA0_S, alpha: float = ALPHA, beta: float = BETA) -> np.ndarray:
    """δ_i = δ₀ / (1 + α·e^{−β·i}) for i = 1..count (Networking'20 §VII-B), in the unit of δ₀.

    >>> np.round(interval_lengths(3, delta0=100.0, alpha=50.0, beta=3.0), 2).tolist()
    [28.66, 88.97, 99.39]
    """
    i = np.arange(1, count + 1, dtype=np.float64)
    return delta0 / (1.0 + alpha * np.exp(-beta * i))


def run_online(instance: OpenShopInstance, algorithm: Algorithm, *, utilities: str = "equal", seed: int = 0,
               delta0: float = DELTA0_S, alpha: float = ALPHA, beta: float = BETA, time_unit: float = 1.0,
               name: str | None = None, event_driven: bool = False, **params: Any) -> OpenShopSchedule:
    """Schedule `instance` online: jobs are known from their arrival on (Networking'20 §VII-B).

    `fairsched.openshop.run_online` is the front door taking algorithm names; this function takes the algorithm
    itself, so that the online engine never imports a policy.

    Parameters
    ----------
    algorithm : ``f(instance, *, seed, utilities, **params)``: a planner re-run per interval, or, with
        `event_driven` (FIFO, SPTF, LUF are tagged so in the registry: `policies._registry.OpenShopTags`), run
        once as it is.
    seed : seeds the planners (one derived seed per interval).
    delta0, alpha, beta : the interval lengths δ_i = δ₀ / (1 + α·e^{−β·i}); δ₀ in seconds.
    time_unit : seconds per time unit of the instance (1 = seconds; 1e-6 = microseconds).
    name : the algorithm's name in the schedule's label (default: the function's name).
    params : passed to the algorithm (e.g. ``k`` for kmaxmin, ``tau`` for linear utilities).

    Examples
    --------
    >>> inst = OpenShopInstance.from_dense([[4, 0], [1, 1], [0, 2]], arrival=[0, 0, 3])
    >>> from fairsched.openshop.policies import pba, sptf
    >>> run_online(inst, pba.pba, delta0=10.0, alpha=0.0).completion.tolist()   # boundaries 0, 10, 20, ...
    [5, 1, 12]
    >>> run_online(inst, sptf.sptf, event_driven=True).completion.tolist()
    [5, 1, 5]
    """
    check_utilities(utilities)
    _check_intervals(delta0, alpha, beta, time_unit)
    name = name or getattr(algorithm, "__name__", "custom")
    algo = algorithm
    if event_driven:
        schedule = algo(instance, seed=seed, utilities=utilities, **params)
        return replace(schedule, algorithm=f"{name} (online)")
    task_start = np.full(instance.n_tasks, -1, dtype=np.int64)
    ready = np.zeros(instance.n_machines, dtype=np.int64)
    tau = float(params.pop("tau", default_horizon(instance)))
    pass_tau = accepts(algo, "tau")
    seeds = np.random.default_rng(seed)
    boundaries = _boundaries(instance, delta0, alpha, beta, time_unit)
    begin = next(boundaries)
    for end in boundaries:
        n_arrived = int(np.searchsorted(instance.arrival, begin, side="right"))
        pending = (task_start < 0) & (np.arange(instance.n_tasks) < instance.indptr[n_arrived])
        if pending.any():
            extra = {"tau": tau - begin + instance.arrival} if utilities == "linear" and pass_tau else {}
            plan = _plan(instance, pending, algo, int(seeds.integers(2**62)), utilities, params, extra)
            _k.commit_interval(plan, instance.task_machine, instance.task_time, ready, begin, end, task_start)
        elif n_arrived == instance.n_jobs:
            break
        begin = end
    return OpenShopSchedule(task_start=task_start, completion=completion_of(instance, task_start),
                            algorithm=f"{name} (online)")


def _plan(instance: OpenShopInstance, pending: np.ndarray, algo: Algorithm, seed: int, utilities: str,
          params: dict[str, Any], extra: dict[str, np.ndarray]) -> np.ndarray:
    """Run the offline algorithm on the pending tasks; returns them grouped by machine in planned order."""
    tasks = np.flatnonzero(pending)
    task_job = instance.task_job()[tasks]
    jobs, local_job = np.unique(task_job, return_inverse=True)
    indptr = np.zeros(jobs.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(local_job, minlength=jobs.size), out=indptr[1:])
    residual = OpenShopInstance.from_tasks(instance.n_machines, indptr, instance.task_machine[tasks],
                                           instance.task_time[tasks], priority=instance.priority[jobs],
                                           job_id=instance.job_id[jobs])
    kw = dict(params)
    if "tau" in extra:
        kw["tau"] = extra["tau"][jobs]
    schedule = algo(residual, seed=seed, utilities=utilities, **kw)
    local = np.lexsort((np.arange(tasks.size), np.asarray(schedule.task_start), residual.task_machine))
    return tasks[local]


def _boundaries(instance: OpenShopInstance, delta0: float, alpha: float, beta: float,
                time_unit: float) -> Iterator[int]:
    """Interval boundaries in instance units, from the first arrival; strictly increasing integers."""
    first = int(instance.arrival[0]) if instance.n_jobs else 0
    horizon = int(instance.arrival[-1]) - first + int(instance.task_time.sum()) if instance.n_jobs else 0
    shortest = delta0 / (1.0 + alpha * math.exp(-beta)) / time_unit
    if (horizon + delta0 / time_unit) / max(shortest, 1.0) > MAX_INTERVALS:
        raise ConfigError(f"online: δ₀ = {delta0} s is {delta0 / time_unit:g} time units, against a horizon of "
                          f"{horizon} units: over {MAX_INTERVALS} intervals. Is time_unit={time_unit} the length of "
                          "one instance time unit in seconds (1e-6 for microseconds)?")
    yield first
    elapsed, previous, i = 0.0, first, 0
    while True:
        i += 1
        if i > 10 * MAX_INTERVALS:
            raise InvariantError("online: the interval loop did not terminate")
        elapsed += delta0 / (1.0 + alpha * math.exp(-beta * i)) / time_unit  # δ_i in instance units
        previous = max(previous + 1, first + round(elapsed))
        yield previous


def _check_intervals(delta0: float, alpha: float, beta: float, time_unit: float) -> None:
    for label, value, low in (("delta0", delta0, 0.0), ("time_unit", time_unit, 0.0)):
        if not (math.isfinite(value) and value > low):
            raise ConfigError(f"online: {label}={value!r}: expected a number > 0 (seconds)")
    for label, value in (("alpha", alpha), ("beta", beta)):
        if not (math.isfinite(value) and value >= 0):
            raise ConfigError(f"online: {label}={value!r}: expected a number >= 0 in δ_i = δ₀ / (1 + α·e^(−β·i))")
