"""What every ticked queue order shares: parameter checks, the keyed queue, and the tick's re-sort.

A ticked order (``drf``, ``directcontr``, the Slurm orders) ranks waiting jobs by a float64 key, smaller first,
ties by job index (submission order: Slurm's queue sort breaks priority ties by submit time, then job id).
Keys are recomputed only at ticks (`fairsched.backfill.view`): between two ticks the queue stays sorted, a new
job is inserted by binary search with the key it gets from the state of the last tick, and at a tick the
queue is re-sorted **only when a key changed** — by insertion sort, which on a queue that was sorted before
the tick costs O(queue + inversions), so a tick that changes little costs little.

Parameters common to every ticked order (``order_params`` of `fairsched.backfill.engine.simulate`):

``org``          organization index of each job (0-based ints, one per job); default: every job in org 0
``shares``       entitled share of each organization (positive numbers; default: equal); normalized by their sum
``calc_period``  seconds between ticks (Slurm's ``PriorityCalcPeriod``; default 300, Slurm's 5 minutes)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit

from fairsched.backfill.view import N_QUEUE, Q_JOB
from fairsched.errors import ConfigError

DEFAULT_CALC_PERIOD = 300  # Slurm's PriorityCalcPeriod default (5 minutes)
COMMON_PARAMS = ("org", "shares", "calc_period")


def check_params(name: str, params: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    """Refuse parameters the order does not know, naming the ones it does."""
    unknown = sorted(set(params) - set(COMMON_PARAMS) - set(allowed))
    if unknown:
        raise ConfigError(f"queue order {name!r} has no parameter(s) {', '.join(unknown)}; it takes: "
                          f"{', '.join(COMMON_PARAMS + allowed)}")


def org_and_shares(name: str, jobs: Any, params: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The organization index of each job (int64[n]) and each organization's share (float64[k], as given)."""
    n = jobs.n_jobs
    raw = params.get("org")
    org = np.zeros(n, dtype=np.int64) if raw is None else np.asarray(raw)
    if org.shape != (n,) or (n and not np.issubdtype(org.dtype, np.integer)):
        raise ConfigError(f"queue order {name!r}: org must give one integer organization index per job "
                          f"({n}), got shape {org.shape} of {org.dtype}")
    org = org.astype(np.int64)
    if n and org.min() < 0:
        raise ConfigError(f"queue order {name!r}: organization indices are 0-based, got {int(org.min())}")
    n_orgs = int(org.max()) + 1 if n else 1
    raw_shares = params.get("shares")
    shares = np.ones(n_orgs) if raw_shares is None else np.asarray(raw_shares, dtype=np.float64)
    if shares.ndim != 1 or shares.size < n_orgs:
        raise ConfigError(f"queue order {name!r}: shares must give one share per organization ({n_orgs}), got "
                          f"{shares.size}")
    if not np.all(np.isfinite(shares)) or np.any(shares < 0) or shares.sum() <= 0:
        raise ConfigError(f"queue order {name!r}: shares must be finite, >= 0 and not all 0, got "
                          f"{shares.tolist()}")
    return org, shares


def calc_period(name: str, params: Mapping[str, Any]) -> int:
    """Seconds between ticks (an integer >= 1)."""
    period = params.get("calc_period", DEFAULT_CALC_PERIOD)
    if isinstance(period, bool) or not isinstance(period, int | np.integer) or period < 1:
        raise ConfigError(f"queue order {name!r}: calc_period must be a whole number of seconds >= 1, got "
                          f"{period!r}")
    return int(period)


@njit(cache=True)
def ranks_before(a, b, key):
    """Job `a` ranks before job `b`: smaller key, ties by job index."""
    if key[a] != key[b]:
        return key[a] < key[b]
    return a < b


@njit(cache=True)
def insert_position(queue, clock, job, key):
    """Position of `job` in the queue sorted by (key, job index): binary search, O(log queue)."""
    lo = 0
    hi = clock[N_QUEUE]
    while lo < hi:
        mid = (lo + hi) // 2
        if ranks_before(queue[Q_JOB, mid], job, key):
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def set_keys_by_org(queue, clock, org, org_key, key):
    """key[j] = org_key[org[j]] for every waiting job; True when any key changed."""
    changed = False
    for k in range(clock[N_QUEUE]):
        job = queue[Q_JOB, k]
        new = org_key[org[job]]
        if new != key[job]:
            key[job] = new
            changed = True
    return changed


@njit(cache=True)
def sort_queue(queue, clock, key):
    """Re-sort the queue by (key, job index) moving all rows together (insertion sort: O(queue + inversions)).

    Returns True when the order changed.
    """
    moved = False
    for i in range(1, clock[N_QUEUE]):
        job = queue[0, i]
        res = queue[1, i]
        seq = queue[2, i]
        k = i
        while k > 0 and ranks_before(job, queue[Q_JOB, k - 1], key):
            for row in range(3):
                queue[row, k] = queue[row, k - 1]
            k -= 1
        if k != i:
            moved = True
            queue[0, k] = job
            queue[1, k] = res
            queue[2, k] = seq
    return moved
