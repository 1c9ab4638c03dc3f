"""Usage decay and accumulation, as Slurm's decay thread does it (``priority_multifactor.c``).

Every ``PriorityCalcPeriod`` (a *tick*, default 5 min) the decay thread, at time t after the previous tick t0:

1. resets every usage to 0 when ``PriorityUsageResetPeriod`` falls due (``_reset_usage``);
2. multiplies every association's raw usage by d^(t - t0) (``_apply_decay``), where
   d = 1 - 0.693 / ``PriorityDecayHalfLife`` (seconds; 1 when the half-life is 0), floored at ``DBL_MIN``;
3. adds to the association of each job still running, and to every ancestor up to root, the job's new usage
   delta * d^delta * billing, with delta = t - max(t0, start) (``_apply_new_usage``).

When a job ends (``priority_p_job_end``), its last piece delta = end - max(t0, start) is added at once, the same
way. billing is the job's allocated CPUs, or its TRES weighted by ``TRESBillingWeights`` (summed: the
``MAX_TRES`` flag is not modelled); a QOS ``UsageFactor`` multiplies it. Note d is Slurm's first-order
approximation of 2^(-1/half-life): after one half-life of ticks usage is multiplied by about 0.50007, not 0.5.

Ties: a tick and a job end at the same time run the tick first. The reset calendar (daily, weekly, ...) is taken
in UTC (Slurm uses the controller's local time).
"""

from __future__ import annotations

import heapq
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

import numpy as np

from fairsched.errors import ConfigError
from fairsched.workload.share_tree import ShareTree

SLURM_LN2 = 0.693  # the constant of ``decay_factor = 1 - (0.693 / decay_hl)``
ResetPeriod = Literal["none", "now", "daily", "weekly", "monthly", "quarterly", "yearly"]
RESET_PERIODS: tuple[ResetPeriod, ...] = ("none", "now", "daily", "weekly", "monthly", "quarterly", "yearly")


@dataclass(frozen=True)
class DecayConfig:
    """The decay settings of slurm.conf (seconds).

    Attributes
    ----------
    calc_period : float
        ``PriorityCalcPeriod`` (default 5 minutes).
    half_life : float
        ``PriorityDecayHalfLife`` (default 7 days); 0 means no decay.
    reset_period : str
        ``PriorityUsageResetPeriod``: none (default), now, daily, weekly, monthly, quarterly or yearly.
    """

    calc_period: float = 300.0
    half_life: float = 7 * 86400.0
    reset_period: ResetPeriod = "none"

    def __post_init__(self) -> None:
        if not self.calc_period > 0:
            raise ConfigError(f"PriorityCalcPeriod must be > 0 s, got {self.calc_period}")
        if not self.half_life >= 0:
            raise ConfigError(f"PriorityDecayHalfLife must be >= 0 s, got {self.half_life}")
        if self.reset_period not in RESET_PERIODS:
            raise ConfigError(f"unknown PriorityUsageResetPeriod {self.reset_period!r}; choose one of: "
                              f"{', '.join(RESET_PERIODS)}")


@dataclass(frozen=True)
class UsageJob:
    """A job's part in the usage: its association (an index into the tree), when it ran, and its billing."""

    assoc: int
    start: float
    end: float
    billing: float


def decay_factor(half_life: float) -> float:
    """Slurm's per-second decay factor d = 1 - 0.693 / half_life (1 when half_life <= 0)."""
    return 1.0 - SLURM_LN2 / half_life if half_life > 0 else 1.0


def period_decay(d: float, seconds: float) -> float:
    """d^seconds, floored at DBL_MIN as Slurm does."""
    return max(d ** seconds, sys.float_info.min)


def job_usage(seconds: float, billing: float, d: float) -> float:
    """Usage one job adds for `seconds` of running: seconds * d^seconds * billing."""
    return seconds * d ** seconds * billing


def billing(cpus: float, tres: Mapping[str, float] | None = None, weights: Mapping[str, float] | None = None) -> float:
    """A job's billing: its CPUs, or with ``TRESBillingWeights`` the sum of weight * count over its TRES.

    `tres` maps TRES names ("cpu", "mem" in GB, "gres/gpu", ...) to the job's counts; "cpu" defaults to `cpus`.
    """
    if not weights:
        return float(cpus)
    counts = {"cpu": float(cpus), **(tres or {})}
    return float(sum(weight * counts.get(name, 0.0) for name, weight in weights.items()))


def replay_usage(tree: ShareTree, jobs: Sequence[UsageJob], *, until: float, since: float = 0.0,
                 config: DecayConfig | None = None, initial: Sequence[float] | None = None) -> np.ndarray:
    """Raw usage of every association at `until`, replaying the decay thread from `since`.

    Ticks fall at since + k * calc_period; usage starts from `initial` (default 0) and jobs add usage to their
    association and its ancestors (see the module doc). Returns one float64 per association of `tree`.
    """
    config = config or DecayConfig()
    parents = tree.parents()
    chains = [_chain(i, parents) for i in range(len(parents))]
    usage = np.zeros(len(parents)) if initial is None else np.array(initial, dtype=np.float64)
    if config.reset_period == "now":  # once, when the decay thread starts
        usage[:] = 0.0
    d = decay_factor(config.half_life)
    last = since
    resets = _reset_times(config.reset_period, since, until)
    ends = [(job.end, k) for k, job in enumerate(jobs) if since < job.end <= until]
    heapq.heapify(ends)
    ended = np.zeros(len(jobs), dtype=bool)
    by_start = sorted(range(len(jobs)), key=lambda k: jobs[k].start)
    started, running = 0, []  # jobs started before the tick, and those of them still running
    for k in range(1, int((until - since) // config.calc_period) + 1):
        tick = since + k * config.calc_period
        _close_jobs(usage, jobs, ends, ended, chains, before=tick, last=last, d=d)
        if resets and resets[0] <= tick:
            usage[:] = 0.0
            resets = [t for t in resets if t > tick]
        usage *= period_decay(d, tick - last)
        while started < len(by_start) and jobs[by_start[started]].start < tick:
            running.append(by_start[started])
            started += 1
        running = [n for n in running if not ended[n] and jobs[n].end > last]
        for n in running:
            usage[chains[jobs[n].assoc]] += job_usage(tick - max(last, jobs[n].start), jobs[n].billing, d)
        last = tick
    _close_jobs(usage, jobs, ends, ended, chains, before=until + 1e-9, last=last, d=d)
    return usage


def _close_jobs(usage: np.ndarray, jobs: Sequence[UsageJob], ends: list[tuple[float, int]], ended: np.ndarray,
                chains: list[list[int]], *, before: float, last: float, d: float) -> None:
    """Add the last piece of every job ending before `before` (a tick at the same time runs first)."""
    while ends and ends[0][0] < before:
        end, k = heapq.heappop(ends)
        job = jobs[k]
        usage[chains[job.assoc]] += job_usage(max(0.0, end - max(last, job.start)), job.billing, d)
        ended[k] = True


def _chain(i: int, parents: tuple[int, ...]) -> list[int]:
    chain = []
    while i >= 0:
        chain.append(i)
        i = parents[i]
    return chain


def _reset_times(period: ResetPeriod, since: float, until: float) -> list[float]:
    """The times (seconds since the epoch, UTC) at which usage is reset, in (since, until]."""
    if period in ("none", "now"):
        return []
    times = []
    moment = datetime.fromtimestamp(since, UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    while True:
        moment = _next_reset(period, moment)
        if moment.timestamp() > until:
            return times
        times.append(moment.timestamp())


def _next_reset(period: ResetPeriod, day: datetime) -> datetime:
    if period == "daily":
        return day + timedelta(days=1)
    if period == "weekly":  # Slurm: the next Sunday 00:00
        return day + timedelta(days=7 - (day.weekday() + 1) % 7)
    month = {"monthly": day.month + 1, "quarterly": 3 * ((day.month - 1) // 3 + 1) + 1, "yearly": 13}[period]
    return day.replace(year=day.year + (month - 1) // 12, month=(month - 1) % 12 + 1, day=1)
