"""DRF: the organization whose weighted dominant share of borrowed resources is smallest goes first, as
Kueue's fair sharing orders its ClusterQueues (A. Ghodsi et al., "Dominant Resource Fairness", NSDI 2011;
Kueue, "Fair Sharing", dominant resource share).

At each tick t (`fairsched.backfill.policies._ticked`), for organization u with share s_u = shares_u / S and
fair-sharing weight w_u, over the resources r (CPUs, and memory when the jobs have it):

    use_{u,r}  = what u's running jobs hold at t (jobs whose termination is not processed yet)
    quota_{u,r} = s_u · C_r                                  (Kueue's nominal quota: u's entitled part)
    d_u = max_r max(0, use_{u,r} − quota_{u,r}) / C_r / w_u   (Kueue's dominant resource share; w_u = 0: inf)

and every waiting job of u gets key d_u (smaller first, ties by submission): organizations within their
quota (d_u = 0) are served first-come first-served, the others by how much they borrow. Computed as the one
division (use·S − shares_u·C) / (S·C·w_u), so that equal shares give equal floats.

Parameters (beside ``org``, ``shares``, ``calc_period``): ``memory`` (per job, any unit; default none: CPUs
only), ``memory_capacity`` C_mem (default: P × the largest memory per processor of any job), ``weights`` w_u
(default 1 each, Kueue's default).

Deviation: Kueue recomputes shares at each scheduling cycle; here at ticks only, like every ticked order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit

from fairsched.backfill.policies._ticked import calc_period, check_params, org_and_shares, set_keys_by_org, sort_queue
from fairsched.backfill.registry import register_order
from fairsched.backfill.view import K_JOB, N_HEAP, ORDER_DRF, QueueOrder, TickSetup
from fairsched.errors import ConfigError

# opar: [N_ORGS, CPUS, MEMORY, SHARE_SUM, shares[k], weights[k]]; ost: [cpu_use[k], mem_use[k], org_key[k]]
_N_ORGS, _CPUS, _MEMORY, _SHARE_SUM, _HEAD = range(5)


def prepare(jobs: Any, params: Mapping[str, Any]) -> TickSetup:
    """The `TickSetup` of one run (parameters: module docstring)."""
    check_params("drf", params, ("memory", "memory_capacity", "weights"))
    org, shares = org_and_shares("drf", jobs, params)
    k = shares.size
    weights = np.ones(k) if params.get("weights") is None else np.asarray(params["weights"], dtype=np.float64)
    if weights.shape != (k,) or not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ConfigError(f"queue order 'drf': weights must give one finite weight >= 0 per organization ({k})")
    memory = np.zeros(jobs.n_jobs) if params.get("memory") is None else np.asarray(params["memory"], np.float64)
    if memory.shape != (jobs.n_jobs,) or not np.all(np.isfinite(memory)) or np.any(memory < 0):
        raise ConfigError("queue order 'drf': memory must give one finite amount >= 0 per job")
    capacity = params.get("memory_capacity")
    if capacity is None:
        capacity = float(np.max(memory / jobs.procs) * jobs.n_processors) if memory.any() else 0.0
    if not np.isfinite(capacity) or capacity < 0 or (memory.any() and capacity <= 0):
        raise ConfigError(f"queue order 'drf': memory_capacity must be > 0, got {capacity!r}")
    opar = np.concatenate(([k, jobs.n_processors, capacity, shares.sum()], shares, weights)).astype(np.float64)
    return TickSetup(period=calc_period("drf", params), org=org, jpar=memory.reshape(1, -1).copy(), opar=opar,
                     ost=np.zeros(3 * k))


DRF = register_order(QueueOrder(
    name="drf", code=ORDER_DRF, ticked=True, prepare=prepare,
    summary="DRF: smallest weighted dominant share of borrowed CPUs/memory first (Kueue), recomputed at ticks"))


@njit(cache=True)
def _excess(use, share, share_sum, capacity, weight):
    """max(0, use − s·C) / C / w as one division of exact products (inf for w = 0 when borrowing)."""
    num = use * share_sum - share * capacity
    if num <= 0.0:
        return 0.0
    if weight == 0.0:
        return np.inf
    return num / (share_sum * capacity * weight)


@njit(cache=True)
def on_tick(now, clock, heap, out_start, queue, submit, procs, org, jpar, opar, ost, key):
    """Recompute every organization's dominant share from the running jobs, then the waiting jobs' keys and,
    if one changed, the queue order. Returns True when the order changed. O(running + orgs + queue)."""
    k = int(opar[_N_ORGS])
    ost[:2 * k] = 0.0
    for i in range(clock[N_HEAP]):
        job = heap[i, K_JOB]
        ost[org[job]] += procs[job]
        ost[k + org[job]] += jpar[0, job]
    cpus, memory, share_sum = opar[_CPUS], opar[_MEMORY], opar[_SHARE_SUM]
    for u in range(k):
        share, weight = opar[_HEAD + u], opar[_HEAD + k + u]
        d = _excess(ost[u], share, share_sum, cpus, weight)
        if memory > 0.0:
            d = max(d, _excess(ost[k + u], share, share_sum, memory, weight))
        ost[2 * k + u] = d
    if set_keys_by_org(queue, clock, org, ost[2 * k:], key):
        return sort_queue(queue, clock, key)
    return False


@njit(cache=True)
def job_key(job, submit, procs, org, jpar, opar, ost):
    """The key of a job submitted between ticks: its organization's share at the last tick."""
    k = int(opar[_N_ORGS])
    return ost[2 * k + org[job]]
