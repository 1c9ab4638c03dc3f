"""DIRECTCONTR for rigid parallel jobs under backfilling: the organization whose utility lags its estimated
contribution most goes first (P. Skowron, K. Rzadca, PPAM 2013, Algorithm 1; SPAA 2013, Sec. 6.1, Algorithm 4).

The online model gives each organization its own machines; DIRECTCONTR credits the utility of every unit of
work to the owner of the machine that ran it (contribution φ) and to the owner of the job (utility ψ), and
serves the organization with the largest φ − ψ. Here the cluster is one pool and an organization owns a share
s_u = shares_u / S of it. DIRECTCONTR picks free machines in a uniformly random order that never depends on
who owns them, so whatever ran, each busy machine belongs to u with probability s_u: the expected credit of
u is s_u · Σ_v ψ_v. We use that expectation (no random draw, no machine identities, which the backfilling
model does not track), so at each tick t (`fairsched.backfill.policies._ticked`):

    ψ_u(t) = Σ_{j of u started before t} p_j · ∫_{S_j}^{min(t, E_j)} (t − τ) dτ      (SPAA'13 ψsp, Eq. (3),
             = Σ p_j [(t − S_j)² − (t − min(t, E_j))²] / 2                            continuous, q CPUs)
    φ_u(t) = s_u · Σ_v ψ_v(t)
    key_u  = −(φ_u − ψ_u) · 2S = 2S·ψ_u − shares_u · Σ_v 2ψ_v     (smaller first: largest lag first)

Non-clairvoyant like the online policy: E_j is used only once j has ended (before t), a running job counts
until t. Times are taken from the first submission, and 2ψ is a sum of integer products, so keys are exact
integers in float64 while they stay below 2^53 (beyond, relative precision 1e-16). See docs/whatif.md for why
this is the generalization, and how it relates to PPAM'13's UTFAIRSHARE.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit

from fairsched.backfill.policies._ticked import calc_period, check_params, org_and_shares, set_keys_by_org, sort_queue
from fairsched.backfill.registry import register_order
from fairsched.backfill.view import K_JOB, N_HEAP, ORDER_DIRECTCONTR, QueueOrder, TickSetup

# opar: [N_ORGS, ORIGIN, SHARE_SUM, shares[k]]; ost: [done_work[k] (Σ p·d), done_moment[k] (Σ p·d·(S+E)),
# org_key[k]] over the ended jobs, in seconds from ORIGIN
_N_ORGS, _ORIGIN, _SHARE_SUM, _HEAD = range(4)


def prepare(jobs: Any, params: Mapping[str, Any]) -> TickSetup:
    """The `TickSetup` of one run (parameters: ``org``, ``shares``, ``calc_period``)."""
    check_params("directcontr", params, ())
    org, shares = org_and_shares("directcontr", jobs, params)
    k = shares.size
    origin = int(jobs.submit[0]) if jobs.n_jobs else 0
    opar = np.concatenate(([k, origin, shares.sum()], shares)).astype(np.float64)
    return TickSetup(period=calc_period("directcontr", params), org=org, jpar=np.zeros((1, jobs.n_jobs)),
                     opar=opar, ost=np.zeros(3 * k))


DIRECTCONTR = register_order(QueueOrder(
    name="directcontr", code=ORDER_DIRECTCONTR, ticked=True, prepare=prepare,
    summary="DIRECTCONTR: largest expected contribution minus utility (psi_sp) first (PPAM'13), at ticks"))


@njit(cache=True)
def on_end(job, start, now, procs, org, jpar, opar, ost):
    """`job` (started at `start`) ended at `now`: its work moves to the ended jobs' sums."""
    k = int(opar[_N_ORGS])
    s = float(start) - opar[_ORIGIN]
    e = float(now) - opar[_ORIGIN]
    work = procs[job] * (e - s)
    ost[org[job]] += work
    ost[k + org[job]] += work * (s + e)


@njit(cache=True)
def on_tick(now, clock, heap, out_start, queue, submit, procs, org, jpar, opar, ost, key):
    """Recompute 2ψ of every organization (ended jobs from the sums, running ones from the heap), the keys,
    and, if a key changed, the queue order. Returns True when the order changed. O(running + orgs + queue)."""
    k = int(opar[_N_ORGS])
    t = float(now) - opar[_ORIGIN]
    psi2 = np.empty(k)
    for u in range(k):
        psi2[u] = 2.0 * ost[u] * t - ost[k + u]  # Σ p·d·(2t − S − E) = Σ p[(t − S)² − (t − E)²]
    for i in range(clock[N_HEAP]):
        job = heap[i, K_JOB]
        elapsed = t - (float(out_start[job]) - opar[_ORIGIN])
        psi2[org[job]] += procs[job] * elapsed * elapsed
    total = psi2.sum()
    share_sum = opar[_SHARE_SUM]
    for u in range(k):
        ost[2 * k + u] = share_sum * psi2[u] - opar[_HEAD + u] * total
    if set_keys_by_org(queue, clock, org, ost[2 * k:], key):
        return sort_queue(queue, clock, key)
    return False


@njit(cache=True)
def job_key(job, submit, procs, org, jpar, opar, ost):
    """The key of a job submitted between ticks: its organization's key at the last tick."""
    k = int(opar[_N_ORGS])
    return ost[2 * k + org[job]]
