"""The embedded default workload: a bursty ON/OFF model of sequential jobs on a 64-machine cluster.

Why a model at all: ``fairsched`` must run out of the box (``make demo``) without the Parallel Workloads
Archive. The model keeps what makes the fairness experiments of Skowron & Rzadca meaningful (SPAA'13 Sec. 6.2,
PPAM'13 Sec. 5.1: users are spread uniformly at random over about 5 organizations): *users send their jobs in
consecutive blocks* (PPAM'13 Sec. 5.1), so organizations compete during bursts and lend their machines in
between; jobs are mostly sequential; run times are heavy-tailed.

Model (every symbol is a field of `BurstyModel`; U = ``n_users``, M = ``n_machines``)
-----------------------------------------------------------------------------------
* Run time R ~ bounded Pareto(alpha = ``runtime_alpha``, L = ``runtime_min``, H = ``runtime_max``), drawn by
  inverse transform ``R = L * (1 - u * (1 - (L/H)**alpha)) ** (-1/alpha)`` and rounded up to whole seconds
  (>= 1). Heavy-tailed: median ~ L * 2**(1/alpha) ~ 32 s, mean ~ 552 s, maximum near H = 1 day.
* Processors Q = 1, except with probability ``parallel_fraction`` a small parallel job whose width is drawn
  uniformly from the powers of two 2, 4, ..., ``max_parallel``.
* Mean work per job: w = E[R] * E[Q] (R and Q are independent).
* Each user u = 1..U alternates busy (ON) and quiet (OFF) periods with exponential durations, means
  ``on_mean`` and off_u; it starts in its stationary state (busy with probability p_u). While busy it submits
  a Poisson stream of rate lambda = ``burst_load`` * M / w, so *one busy user alone offers load
  ``burst_load`` (~1) to the whole machine*; two overlapping bursts overload it, which is when the policy's
  choice between organizations matters.
* Users differ in activity: shares a_u = u**(-``user_skew``) / sum_v v**(-``user_skew``) (user 1 is the most
  active, as in real logs), busy fractions p_u = (``mean_load`` / ``burst_load``) * a_u, hence
  off_u = ``on_mean`` * (1/p_u - 1). The long-run offered load is sum_u p_u * ``burst_load`` = ``mean_load``.
* Exactly ``n_jobs`` jobs: the model is simulated over a window long enough to hold them (1.25 x the expected
  span n_jobs * w / (``mean_load`` * M), longer if needed) and the first ``n_jobs`` submits are kept.
  Submit times are floored to whole seconds and shifted so that the first is 0.
* The user's estimate (``requested_time``): R times an overestimation factor drawn uniformly in
  [1, ``max_overestimate``], rounded up to the next usual queue limit (5 min ... 3 days; `ESTIMATE_LIMITS`).

Everything random comes from ``numpy.random.SeedSequence(seed, spawn_key=(STAGE,))``, one stream per stage
(arrivals, run times, processors, estimates), so changing one stage never shifts another's draws, and the
same seed gives a byte-identical job table.

Measured figures (`measure`, on 64 machines; docs/workloads-synthetic.md has the commands). Seed 0, the
workload ``fairsched compare`` uses: 20,000 jobs from 29 users over 4.40 days of submits, mean offered load 0.48,
load during bursts 0.90, run time median 32 s, maximum 85,311 s, 5.0 % parallel jobs. Over seeds 0-59
(mean +- sd): span 3.86 +- 0.51 days, mean load 0.63 +- 0.11, load during bursts 1.01 +- 0.07, 30 +- 2 users.

References
----------
P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory approach", SPAA 2013, Sec. 6.2.
P. Skowron, K. Rzadca, "Fair share is not enough: measuring fairness in scheduling with cooperative game theory",
PPAM 2013, LNCS 8385, Sec. 5.1.
D. G. Feitelson, "Workload Modeling for Computer Systems Performance Evaluation", Cambridge UP 2015
(heavy tails, bounded Pareto, ON/OFF sources).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fairsched.errors import ConfigError
from fairsched.seeds import (  # the named streams (fairsched.seeds); distinct from the scenario's
    STAGE_ARRIVALS,
    STAGE_ESTIMATES,
    STAGE_PROCESSORS,
    STAGE_RUNTIMES,
    stream,
)
from fairsched.workload.model import Workload
from fairsched.workload.schema import MISSING, PROCESSORS, RUNTIME_ESTIMATE, SWF_FIELDS, SWF_FLOAT_FIELDS

# Usual queue limits (s) that users round their estimates up to: 5, 15, 30 min, 1, 2, 4, 8, 12 h, 1, 2, 3 days.
ESTIMATE_LIMITS = np.array([300, 900, 1800, 3600, 7200, 14400, 28800, 43200, 86400, 172800, 259200],
                           dtype=np.float64)

DEFAULT_BURST_GAP = 300.0  # s; a user's submits further apart than this start a new burst (see `measure`)
_COMPLETED = 1  # SWF field 11


@dataclass(frozen=True)
class BurstyModel:
    """Hyper-parameters of the bursty ON/OFF model (module docstring); stored unchanged, checked by `generate_default`.

    Attributes
    ----------
    n_users : U, distinct users (user ids 1..U; user 1 is the most active).
    n_jobs : jobs generated (exactly).
    n_machines : M, the machine the load is calibrated for (header ``MaxProcs``).
    burst_load : offered load of one busy user on M machines.
    mean_load : long-run offered load on M machines (< ``burst_load``: users are mostly quiet).
    on_mean : mean busy period (s).
    user_skew : exponent of the users' activity shares a_u ~ u**-user_skew (0 = all alike).
    runtime_min, runtime_max, runtime_alpha : bounded Pareto run times L, H (s) and tail index alpha.
    parallel_fraction : probability that a job is parallel.
    max_parallel : widest parallel job (a power of two; widths 2, 4, ..., max_parallel).
    max_overestimate : users' estimates are R * U[1, max_overestimate], rounded up to a queue limit.
    """

    n_users: int = 40
    n_jobs: int = 20_000
    n_machines: int = 64
    burst_load: float = 1.0
    mean_load: float = 0.6
    on_mean: float = 1800.0
    user_skew: float = 1.0
    runtime_min: float = 10.0
    runtime_max: float = 86_400.0
    runtime_alpha: float = 0.6
    parallel_fraction: float = 0.05
    max_parallel: int = 8
    max_overestimate: float = 3.0

    @property
    def mean_run_time(self) -> float:
        """E[ceil R] ~ E[R] + 1/2 for the bounded Pareto R (rounding up adds half a second on average)."""
        lo, hi, a = self.runtime_min, self.runtime_max, self.runtime_alpha
        norm = 1.0 - (lo / hi) ** a
        if np.isclose(a, 1.0):
            mean = lo * np.log(hi / lo) / norm
        else:
            mean = lo**a * a / (a - 1.0) * (lo ** (1.0 - a) - hi ** (1.0 - a)) / norm
        return float(mean) + 0.5

    @property
    def parallel_widths(self) -> np.ndarray:
        """Widths of parallel jobs: 2, 4, ..., max_parallel."""
        return 2 ** np.arange(1, int(np.log2(self.max_parallel)) + 1, dtype=np.int64)

    @property
    def mean_work(self) -> float:
        """w = E[R] * E[Q] (processor-seconds per job)."""
        mean_q = 1.0 - self.parallel_fraction + self.parallel_fraction * float(self.parallel_widths.mean())
        return self.mean_run_time * mean_q

    @property
    def burst_rate(self) -> float:
        """lambda, jobs per second of a busy user: burst_load * M / w."""
        return self.burst_load * self.n_machines / self.mean_work

    @property
    def busy_fractions(self) -> np.ndarray:
        """p_u, the fraction of time each user is busy: (mean_load / burst_load) * a_u."""
        shares = np.arange(1, self.n_users + 1, dtype=np.float64) ** -self.user_skew
        return self.mean_load / self.burst_load * shares / shares.sum()

    @property
    def expected_span(self) -> float:
        """Expected submit span (s) of n_jobs jobs: n_jobs * w / (mean_load * M)."""
        return self.n_jobs * self.mean_work / (self.mean_load * self.n_machines)


DEFAULT_MODEL = BurstyModel()


def generate_default(*, seed: int = 0, model: BurstyModel | None = None, **params: Any) -> Workload:
    """Generate the embedded default workload (the bursty ON/OFF model of the module docstring).

    Parameters
    ----------
    seed : non-negative integer; the same seed gives a byte-identical job table.
    model : hyper-parameters (default `DEFAULT_MODEL`).
    **params : `BurstyModel` fields overriding those of ``model``, e.g. ``n_jobs=2000``.

    Returns
    -------
    Workload with the 18 SWF columns (-1 where the model has no value; wait_time is -1: a model has no waits),
    ``processors`` and ``runtime_estimate``, sorted by submit time, job numbers 1..n_jobs; source
    ``"synthetic:bursty(seed=N)"``. O(n_jobs log n_jobs).

    Raises
    ------
    ConfigError : an unknown parameter, or a value out of range (the message says which and why).

    >>> w = generate_default(seed=1, n_jobs=3, n_users=2)
    >>> w.jobs["job_number"].tolist(), w.source, w.header_int("MaxProcs")
    ([1, 2, 3], 'synthetic:bursty(seed=1)', 64)
    """
    model = _with_params(DEFAULT_MODEL if model is None else model, params)
    _check_model(model)
    _check_seed(seed)
    submit, user = _submit_times(model, stream(seed, STAGE_ARRIVALS))
    n = submit.size
    run = _run_times(model, stream(seed, STAGE_RUNTIMES), n)
    processors = _processors(model, stream(seed, STAGE_PROCESSORS), n)
    estimate = _estimates(model, stream(seed, STAGE_ESTIMATES), run)
    jobs = _jobs_table(submit, user, run, processors, estimate)
    return Workload(jobs=jobs, header=_header(model, seed, n), source=f"synthetic:bursty(seed={seed})")


def _with_params(model: BurstyModel, params: dict[str, Any]) -> BurstyModel:
    names = [f.name for f in dataclasses.fields(BurstyModel)]
    unknown = sorted(set(params) - set(names))
    if unknown:
        raise ConfigError(f"unknown synthetic model parameter(s) {', '.join(unknown)}; choose from: {', '.join(names)}")
    return dataclasses.replace(model, **params)


def _check_seed(seed: int) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ConfigError(f"seed={seed!r}: expected a non-negative integer")


def _check_model(m: BurstyModel) -> None:
    """Refuse parameters the model cannot honour, saying why."""
    for name in ("n_users", "n_jobs", "n_machines"):
        value = getattr(m, name)
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise ConfigError(f"synthetic model: {name}={value!r}; expected a positive integer")
    for name in ("burst_load", "mean_load", "on_mean", "runtime_min", "runtime_alpha"):
        value = getattr(m, name)
        if not (np.isfinite(value) and value > 0):
            raise ConfigError(f"synthetic model: {name}={value!r}; expected a positive finite number")
    if not (np.isfinite(m.user_skew) and m.user_skew >= 0):
        raise ConfigError(f"synthetic model: user_skew={m.user_skew!r}; expected a finite number >= 0")
    if not (m.runtime_min >= 1 and np.isfinite(m.runtime_max) and m.runtime_max > m.runtime_min):
        raise ConfigError(f"synthetic model: run times in [{m.runtime_min!r}, {m.runtime_max!r}] s; expected "
                          "1 <= runtime_min < runtime_max (SWF run times are whole seconds >= 1 here)")
    if not 0 <= m.parallel_fraction <= 1:
        raise ConfigError(f"synthetic model: parallel_fraction={m.parallel_fraction!r}; expected a probability")
    if not (isinstance(m.max_parallel, int | np.integer) and m.max_parallel >= 2
            and m.max_parallel & (m.max_parallel - 1) == 0 and m.max_parallel <= m.n_machines):
        raise ConfigError(f"synthetic model: max_parallel={m.max_parallel!r}; expected a power of two in "
                          f"[2, n_machines={m.n_machines}] (a job may not be wider than the machine)")
    if not (np.isfinite(m.max_overestimate) and m.max_overestimate >= 1):
        raise ConfigError(f"synthetic model: max_overestimate={m.max_overestimate!r}; expected a number >= 1")
    busiest = float(m.busy_fractions.max())
    if busiest >= 1:
        raise ConfigError(f"synthetic model: user 1 would be busy {busiest:.0%} of the time (mean_load / burst_load "
                          f"x its activity share); lower mean_load or user_skew, or add users")




def _submit_times(model: BurstyModel, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The first n_jobs submits (whole seconds from 0) of the users' ON/OFF Poisson streams, and their users.

    Simulates a window 1.25 x the expected span; in the unlikely case it holds fewer than n_jobs jobs, the
    window grows by half and the draw is repeated (from the same stream, so still deterministic).
    """
    p_on = model.busy_fractions
    off_mean = model.on_mean * (1.0 - p_on) / p_on
    t_end = 1.25 * model.expected_span + 4.0 * model.on_mean
    while True:
        user, start, duration = _busy_periods(rng, model.on_mean, off_mean, p_on, t_end)
        counts = rng.poisson(model.burst_rate * duration)  # Poisson arrivals during each busy period
        if counts.sum() >= model.n_jobs:
            break
        t_end *= 1.5
    # Given their number, Poisson arrivals in a period are independent uniform points in it.
    times = np.repeat(start, counts) + rng.random(int(counts.sum())) * np.repeat(duration, counts)
    job_user = np.repeat(user, counts)
    order = np.lexsort((job_user, times))[: model.n_jobs]
    seconds = np.floor(times[order])
    return seconds - seconds[0], job_user[order] + 1


def _busy_periods(rng: np.random.Generator, on_mean: float, off_mean: np.ndarray, p_on: np.ndarray,
                  t_end: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Busy periods ``(user, start, duration)`` of alternating ON/OFF renewal processes, clipped to [0, t_end).

    Each user's cycles are (OFF, ON) with exponential durations; a user that starts busy (probability p_u,
    the stationary law, memoryless residuals) has a first OFF of length 0. Enough cycles are drawn to pass
    t_end with overwhelming probability; a user that does not is topped up by drawing again with twice as many.
    """
    n_users = off_mean.size
    cycles = np.ceil(2.0 * t_end / (on_mean + off_mean) + 20).astype(np.int64)
    while True:
        user = np.repeat(np.arange(n_users, dtype=np.int64), cycles)
        first = np.concatenate(([0], np.cumsum(cycles)[:-1]))
        off = rng.exponential(off_mean[user])
        off[first[rng.random(n_users) < p_on]] = 0.0
        on = rng.exponential(on_mean, user.size)
        end = np.cumsum(off + on)
        end -= np.repeat(np.concatenate(([0.0], end[first[1:] - 1])), cycles)  # restart the sum for each user
        last = np.cumsum(cycles) - 1
        if np.all(end[last] >= t_end):
            break
        cycles *= 2
    start = np.maximum(end - on, 0.0)  # the running-sum restart leaves ~1e-9 s of rounding noise
    keep = start < t_end
    return user[keep], start[keep], np.minimum(end[keep], t_end) - start[keep]


def _run_times(model: BurstyModel, rng: np.random.Generator, n: int) -> np.ndarray:
    """Bounded Pareto by inverse transform, rounded up to whole seconds (>= runtime_min >= 1)."""
    lo, hi, a = model.runtime_min, model.runtime_max, model.runtime_alpha
    u = rng.random(n)
    # R = L * (1 - u (1 - (L/H)^a))^(-1/a): u = 0 gives L, u -> 1 gives H.
    run = lo * (1.0 - u * (1.0 - (lo / hi) ** a)) ** (-1.0 / a)
    return np.minimum(np.ceil(run), np.ceil(hi))


def _processors(model: BurstyModel, rng: np.random.Generator, n: int) -> np.ndarray:
    parallel = rng.random(n) < model.parallel_fraction
    widths = rng.choice(model.parallel_widths, size=n)
    return np.where(parallel, widths, 1).astype(np.int64)


def _estimates(model: BurstyModel, rng: np.random.Generator, run: np.ndarray) -> np.ndarray:
    """R * U[1, max_overestimate], rounded up to the next usual queue limit, never below R."""
    wanted = run * rng.uniform(1.0, model.max_overestimate, run.size)
    index = np.minimum(np.searchsorted(ESTIMATE_LIMITS, wanted, side="left"), ESTIMATE_LIMITS.size - 1)
    return np.maximum(ESTIMATE_LIMITS[index], run)


def _jobs_table(submit: np.ndarray, user: np.ndarray, run: np.ndarray, processors: np.ndarray,
                estimate: np.ndarray) -> pd.DataFrame:
    """The 18 SWF columns (float64 for time-like fields, int64 otherwise), then processors and estimate."""
    n = submit.size
    known = {
        "job_number": np.arange(1, n + 1), "submit_time": submit, "run_time": run,
        "allocated_processors": processors, "requested_processors": processors, "requested_time": estimate,
        "status": np.full(n, _COMPLETED), "user_id": user,
    }
    columns: dict[str, np.ndarray] = {}
    for name in SWF_FIELDS:
        dtype = np.float64 if name in SWF_FLOAT_FIELDS else np.int64
        columns[name] = np.asarray(known.get(name, np.full(n, MISSING)), dtype=dtype)
    columns[PROCESSORS] = processors.astype(np.int64)
    columns[RUNTIME_ESTIMATE] = estimate.astype(np.float64)
    return pd.DataFrame(columns)


def _header(model: BurstyModel, seed: int, n: int) -> tuple[tuple[str, str], ...]:
    params = ", ".join(f"{f.name}={getattr(model, f.name)!r}" for f in dataclasses.fields(model))
    return (
        ("Version", "2.2"),
        ("Computer", "fairsched synthetic bursty model"),
        ("MaxJobs", str(n)),
        ("MaxRecords", str(n)),
        ("MaxProcs", str(model.n_machines)),
        ("MaxNodes", str(model.n_machines)),
        ("Note", f"bursty ON/OFF model (fairsched.workload.synthetic): {params}; seed={seed}"),
    )


def measure(workload: Workload, *, n_machines: int | None = None,
            burst_gap: float = DEFAULT_BURST_GAP) -> dict[str, float | int]:
    """Figures that check a workload against the model: size, span, mean load and load during bursts.

    * ``span_days``: last minus first submit, in days.
    * ``mean_load``: sum of R * Q over M * (last submit - first submit).
    * ``burst_load``: each user's submits are cut into bursts wherever two consecutive ones are more than
      ``burst_gap`` seconds apart; a burst of n >= 2 jobs whose submits spread over s seconds is estimated to
      last D = s (n + 1) / (n - 1) (n uniform points in [0, D] spread over D (n - 1) / (n + 1) on average);
      ``burst_load`` = work of those bursts / (M * sum of their D). Single-job bursts are left out.
    * run time median and maximum, and the fraction of parallel jobs.

    M is ``n_machines``, else the header's ``MaxProcs``. O(n log n).

    >>> figures = measure(generate_default(seed=0, n_jobs=2000))
    >>> figures["n_jobs"], 0.5 < figures["burst_load"] < 2
    (2000, True)
    """
    m = n_machines if n_machines is not None else workload.header_int("MaxProcs")
    if m is None or m < 1:
        raise ConfigError("measure: pass n_machines (the workload's header has no positive MaxProcs)")
    jobs = workload.jobs
    submit = jobs["submit_time"].to_numpy(dtype=np.float64)
    run = jobs["run_time"].to_numpy(dtype=np.float64)
    work = run * jobs[PROCESSORS].to_numpy(dtype=np.float64)
    span = float(submit.max() - submit.min()) if submit.size else 0.0
    if span <= 0:
        raise ConfigError(f"measure: {workload.source or 'the workload'} needs submits spread over > 0 seconds")
    return {
        "n_jobs": int(submit.size),
        "n_users": int(np.unique(jobs["user_id"].to_numpy()).size),
        "span_days": span / 86400.0,
        "mean_load": float(work.sum() / (m * span)),
        "burst_load": _burst_load(jobs["user_id"].to_numpy(), submit, work, m, burst_gap),
        "run_time_median": float(np.median(run)),
        "run_time_max": float(run.max()),
        "parallel_fraction": float(np.mean(jobs[PROCESSORS].to_numpy() > 1)),
    }


def _burst_load(user: np.ndarray, submit: np.ndarray, work: np.ndarray, m: int, gap: float) -> float:
    """Offered load during bursts (see `measure`): work of bursts of >= 2 jobs / (m * their estimated length)."""
    order = np.lexsort((submit, user))
    user, submit, work = user[order], submit[order], work[order]
    new = np.ones(user.size, dtype=bool)
    new[1:] = (user[1:] != user[:-1]) | (np.diff(submit) > gap)
    burst = np.cumsum(new) - 1
    n = np.bincount(burst)
    last = np.append(submit[np.flatnonzero(new)[1:] - 1], submit[-1])
    spread = last - submit[new]
    several = n >= 2
    length = spread[several] * (n[several] + 1) / (n[several] - 1)
    burst_work = np.bincount(burst, weights=work)[several]
    return float(burst_work.sum() / (m * length.sum())) if length.sum() > 0 else float("nan")
