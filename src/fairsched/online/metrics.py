"""Metrics of online schedules: utilities, fairness against a reference, per-organization statistics.

Pure functions: a schedule (`fairsched.online.engine.SCHEDULE_COLUMNS`) and a scenario in, numbers or
DataFrames out; they never touch the engine, so they also score schedules read back from ``schedule.csv``.

Utilities follow P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory approach"
(SPAA'13 long version), Eq. (3): a unit of work executed in slot ``[i, i + 1)`` is worth ``t - i`` at time
``t``. The fairness measure Delta psi / p_tot is that of P. Skowron, K. Rzadca, "Fair share is not enough:
measuring fairness in scheduling with cooperative game theory" (PPAM'13), Sec. 5.1.

Everything is exact: utilities are int64 (sums of up to ``m t**2 / 2``), and a computation that could
overflow int64 is refused with a `ConfigError` rather than silently wrapped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairsched.errors import ConfigError, InvalidScheduleError
from fairsched.scenario import COPIES, ORG, RELEASE, Scenario

_INT64_SAFE = 2**62  # headroom below 2**63 for sums taken over organizations


@dataclass(frozen=True)
class FairnessComparison:
    """How far a schedule's utilities lie from a reference (fair) schedule's, PPAM'13 Sec. 5.1.

    Attributes
    ----------
    delta_psi : sum over organizations of |psi_u - psi_ref_u| (exact int).
    p_tot : unit parts of jobs completed by t_end in the reference schedule (exact int).
    delta_psi_over_ptot : delta_psi / p_tot, the average unjustified delay (or speed-up) of a unit of work.
        When p_tot = 0 (the reference executed nothing): 0/0 is NaN (undefined) and x/0 with x > 0 is inf.
    per_org_deviation : (k,) int64, psi_u - psi_ref_u (negative: the organization got less than its due).
    relative_deviation : (k,) float64, (psi_u - psi_ref_u) / psi_ref_u; NaN when both are 0 and +inf when
        only psi_ref_u is 0.
    """

    delta_psi: int
    p_tot: int
    delta_psi_over_ptot: float
    per_org_deviation: np.ndarray
    relative_deviation: np.ndarray


# -- utilities ---------------------------------------------------------------------------------------------

def psi_from_schedule(schedule: pd.DataFrame, n_orgs: int, t_end: int) -> np.ndarray:
    """psi_sp of each organization at `t_end` (SPAA'13 Eq. (3)), exact int64.

    Implements psi_sp(sigma, t) = sum over (s, p) in sigma with s <= t of u * (t - (s + s + u - 1) / 2),
    u = min(p, t - s): the u executed units occupy slots s .. s+u-1, each worth t - i, which sums to
    ``u * (t - s) - u * (u - 1) / 2`` (integer arithmetic throughout). p is ``end - start`` of each row.

    Parameters
    ----------
    schedule : DataFrame with at least ``org, start, end`` (int).
    n_orgs : number of organizations k (organizations without rows get 0).
    t_end : time at which utilities are taken.

    Returns
    -------
    np.ndarray
        (k,) int64.

    Complexity: O(n) for n rows. Raises `ConfigError` when the sum could exceed int64.

    Examples
    --------
    >>> sched = pd.DataFrame({"org": [0, 1, 0], "start": [0, 0, 2], "end": [3, 2, 3]})
    >>> psi_from_schedule(sched, 2, 3).tolist()   # org 0: slots 0,1,2 worth 3+2+1, slot 2 again 1
    [7, 5]
    """
    org, start, end = _columns(schedule, ("org", "start", "end"))
    t_end = _check_t_end(t_end)
    _check_orgs(org, n_orgs)
    units = _units_by(start, end, t_end)
    _refuse_overflow(units, t_end - start)
    value = units * (t_end - start) - units * (units - 1) // 2
    psi = np.zeros(n_orgs, dtype=np.int64)
    np.add.at(psi, org, value)  # np.bincount would sum in float64 and lose exactness above 2**53
    return psi


def p_tot(schedule: pd.DataFrame, t_end: int) -> int:
    """Unit parts of jobs executed by `t_end`: sum over s <= t_end of min(p, t_end - s) (PPAM'13 Sec. 5.1).

    >>> p_tot(pd.DataFrame({"start": [0, 0, 2], "end": [3, 2, 3]}), 2)
    4
    """
    start, end = _columns(schedule, ("start", "end"))
    return _exact_sum(_units_by(start, end, _check_t_end(t_end)))


def delta_psi(psi: np.ndarray, psi_ref: np.ndarray) -> int:
    """Sum over organizations of |psi_u - psi_ref_u| (PPAM'13 Sec. 5.1), as an exact Python int.

    >>> delta_psi(np.array([7, 5]), np.array([6, 8]))
    4
    """
    a, b = _same_length(psi, psi_ref)
    return sum(abs(x - y) for x, y in zip(a, b, strict=True))


def fairness_vs_reference(psi: np.ndarray, psi_ref: np.ndarray, p_tot_ref: int) -> FairnessComparison:
    """Compare utilities with those of a reference (fair) schedule: Delta psi / p_tot of PPAM'13 Sec. 5.1.

    `p_tot_ref` is `p_tot` of the reference schedule at the same t_end. See `FairnessComparison` for the
    NaN / inf conventions when a denominator is 0.

    >>> c = fairness_vs_reference(np.array([7, 5]), np.array([6, 8]), 8)
    >>> c.delta_psi, c.delta_psi_over_ptot, c.per_org_deviation.tolist()
    (4, 0.5, [1, -3])
    """
    a, b = _same_length(psi, psi_ref)
    p_tot_ref = int(p_tot_ref)
    if p_tot_ref < 0:
        raise ConfigError(f"p_tot of the reference must be >= 0 (unit parts of work), got {p_tot_ref}")
    total = sum(abs(x - y) for x, y in zip(a, b, strict=True))
    deviation = [x - y for x, y in zip(a, b, strict=True)]
    relative = [_ratio(d, y) for d, y in zip(deviation, b, strict=True)]
    return FairnessComparison(
        delta_psi=total, p_tot=p_tot_ref, delta_psi_over_ptot=_ratio(total, p_tot_ref),
        per_org_deviation=_frozen(np.array(deviation, dtype=np.int64)),
        relative_deviation=_frozen(np.array(relative, dtype=np.float64)),
    )


# -- schedule statistics -----------------------------------------------------------------------------------

def per_org_metrics(schedule: pd.DataFrame, scenario: Scenario, t_end: int) -> pd.DataFrame:
    """One row per organization: what it contributed, what it got, and how long its jobs waited, at `t_end`.

    Columns (all counted at ``t_end``; a job started at ``t_end`` has started, one ending at ``t_end`` is done):

    - machines : m(u), machines the organization owns;
    - psi : psi_sp utility (SPAA'13 Eq. (3)), int64;
    - jobs_completed : sequential jobs (copies) with ``end <= t_end``;
    - work_completed : unit parts of its jobs executed by ``t_end``;
    - mean_wait : mean of ``start - release`` over its jobs started by ``t_end`` (NaN if none);
    - mean_slowdown : mean of ``(end - release) / (end - start)`` over its completed jobs (NaN if none);
    - jobs_waiting_at_end : copies released by ``t_end`` and not started by ``t_end``.

    >>> from fairsched.scenario import scenario_from_arrays
    >>> s = scenario_from_arrays([0, 0, 1], [3, 2, 1], [0, 1, 0], [1, 1])
    >>> sched = pd.DataFrame({"org": [0, 1, 0], "release": [0, 0, 1], "start": [0, 0, 2], "end": [3, 2, 3]})
    >>> per_org_metrics(sched, s, 3)[["psi", "jobs_completed", "mean_wait", "mean_slowdown"]].to_numpy().tolist()
    [[7.0, 2.0, 0.5, 1.5], [5.0, 1.0, 0.0, 1.0]]
    """
    org, release, start, end = _columns(schedule, ("org", "release", "start", "end"))
    t_end = _check_t_end(t_end)
    k = int(scenario.n_orgs)
    _check_orgs(org, k)
    started, done = start <= t_end, end <= t_end
    jobs = scenario.jobs
    released = jobs[RELEASE].to_numpy(np.int64) <= t_end
    released_copies = np.bincount(jobs[ORG].to_numpy(np.int64)[released],
                                  weights=jobs[COPIES].to_numpy(np.int64)[released], minlength=k)
    n_started = np.bincount(org[started], minlength=k)
    n_done = np.bincount(org[done], minlength=k)
    work = np.zeros(k, dtype=np.int64)
    np.add.at(work, org, _units_by(start, end, t_end))
    wait = np.bincount(org[started], weights=(start - release)[started], minlength=k)
    slowdown = np.bincount(org[done], weights=((end - release) / (end - start))[done], minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):  # organizations without jobs: NaN means
        frame = pd.DataFrame({
            "machines": scenario.machines_per_org, "psi": psi_from_schedule(schedule, k, t_end),
            "jobs_completed": n_done.astype(np.int64), "work_completed": work,
            "mean_wait": wait / n_started, "mean_slowdown": slowdown / n_done,
            "jobs_waiting_at_end": np.rint(released_copies).astype(np.int64) - n_started,
        })
    frame.index.name = "org"
    return frame


def utilization(schedule: pd.DataFrame, n_machines: int, t_end: int) -> float:
    """Fraction of machine time used: units executed in [0, t_end) / (n_machines * t_end); NaN if t_end = 0.

    >>> utilization(pd.DataFrame({"start": [0, 0, 2], "end": [3, 2, 3]}), 2, 3)
    1.0
    """
    if int(n_machines) < 1:
        raise ConfigError(f"n_machines must be >= 1, got {n_machines}")
    busy = p_tot(schedule, t_end)
    capacity = int(n_machines) * int(t_end)
    return busy / capacity if capacity else math.nan


# -- helpers -----------------------------------------------------------------------------------------------

def _columns(schedule: pd.DataFrame, names: tuple[str, ...]) -> tuple[np.ndarray, ...]:
    missing = [c for c in names if c not in schedule.columns]
    if missing:
        raise InvalidScheduleError(f"the schedule lacks column(s) {', '.join(missing)}; metrics need "
                                   f"{', '.join(names)} (see fairsched.online.engine.SCHEDULE_COLUMNS)")
    for c in names:
        if not pd.api.types.is_integer_dtype(schedule[c].dtype) or bool(schedule[c].isna().any()):
            raise InvalidScheduleError(f"schedule column {c} has dtype {schedule[c].dtype} or missing values; "
                                       "expected integers (times in seconds, 0-based ids)")
    return tuple(schedule[c].to_numpy(np.int64) for c in names)


def _check_t_end(t_end: int) -> int:
    if int(t_end) != t_end or t_end < 0:
        raise ConfigError(f"t_end must be a non-negative integer number of seconds, got {t_end!r}")
    return int(t_end)


def _check_orgs(org: np.ndarray, n_orgs: int) -> None:
    if org.size and (org.min() < 0 or org.max() >= n_orgs):
        bad = int(org[(org < 0) | (org >= n_orgs)][0])
        raise InvalidScheduleError(f"schedule names organization {bad}, but there are {n_orgs} (ids 0..{n_orgs - 1});"
                                   " was the schedule made for another scenario?")


def _units_by(start: np.ndarray, end: np.ndarray, t_end: int) -> np.ndarray:
    """Units of each row executed before t_end: min(p, t_end - s), 0 for rows starting at or after t_end."""
    return np.clip(np.minimum(end, t_end) - start, 0, None)


def _refuse_overflow(units: np.ndarray, elapsed: np.ndarray) -> None:
    """Each term is at most units * elapsed; bound their float sum well below 2**63 before summing in int64."""
    bound = float(np.dot(units.astype(np.float64), np.maximum(elapsed, 0).astype(np.float64)))
    if bound > _INT64_SAFE:
        raise ConfigError(f"exact utilities could overflow 64-bit integers (bound {bound:.3g}); "
                          "take utilities over a shorter window (--window-length) or fewer machines")


def _exact_sum(values: np.ndarray) -> int:
    if float(values.astype(np.float64).sum()) > _INT64_SAFE:
        return sum(values.tolist())  # Python ints never overflow; only reached for astronomically long runs
    return int(values.sum())


def _same_length(psi: np.ndarray, psi_ref: np.ndarray) -> tuple[list[int], list[int]]:
    """Both utility vectors as lists of Python ints (exact arithmetic), checking that they match."""
    a, b = np.asarray(psi), np.asarray(psi_ref)
    if a.shape != b.shape or a.ndim != 1:
        raise ConfigError(f"utility vectors must be 1-D with one entry per organization and the same length; "
                          f"got shapes {a.shape} and {b.shape} (were they computed on different scenarios?)")
    return [int(x) for x in a.tolist()], [int(x) for x in b.tolist()]


def _ratio(numerator: int, denominator: int) -> float:
    if denominator:
        return numerator / denominator  # int / int: correctly rounded even above 2**53
    return math.nan if numerator == 0 else math.copysign(math.inf, numerator)


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array
