"""Usage against entitlement, decayed usage and Slurm's classic fair-share factor, replayed over the log.

CPU time used by organization u up to t is W_u(t) = Σ_j q_j · clip(t − s_j, 0, r_j) over its jobs (q CPUs,
start s, run r): computed exactly at any time from sorted starts and ends (`cpu_time_at`).

Decayed usage (Slurm ``PriorityDecayHalfLife``): usage recorded h seconds ago counts 2^(−h/half_life). Slurm
applies the decay every ``PriorityCalcPeriod`` (5 min by default); here the period is the replay step
(``max(span / 1000, 300 s)``), and the usage of a step is decayed from the step's end:
D_u(t_i) = D_u(t_{i−1}) · 2^(−Δ/half_life) + (W_u(t_i) − W_u(t_{i−1})).

Classic fair-share factor (Slurm, ``priority_multifactor`` documentation, "The Classic Fairshare Algorithm"):
F_u = 2^(−U_u / S_u), with U_u = D_u / Σ_v D_v the organization's normalized decayed usage and S_u its normalized
share (``--shares``). F = 1: no usage; 0.5: used exactly its share; → 0: used far more. This is what
``sshare`` shows as ``FairShare`` for accounts directly under the root under the classic algorithm (one level,
no parent/child normalisation, no ``PriorityUsageResetPeriod``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fairsched.audit.log import NEVER, Recorded

DEFAULT_HALF_LIFE = 7 * 86400.0
MIN_STEP = 300.0
N_STEPS = 1000


def cpu_time_at(recorded: Recorded, times: np.ndarray, rate: np.ndarray | None = None) -> np.ndarray:
    """(len(times), k) CPU-seconds used by each organization up to each time (exact, float64); with `rate`
    (one value per job, e.g. its billing rate), the usage in that unit."""
    start, run, cpus, org = (recorded.column(c) for c in ("start", "run", "cpus", "org"))
    cpus = cpus if rate is None else rate
    ran = (start < NEVER) & (run > 0)
    times = np.asarray(times, dtype=np.float64)
    out = np.zeros((times.size, recorded.n_orgs))
    for u in range(recorded.n_orgs):
        mine = ran & (org == u)
        out[:, u] = _ramp_sum(start[mine], cpus[mine], times) - _ramp_sum(start[mine] + run[mine], cpus[mine], times)
    return out


def _ramp_sum(at: np.ndarray, weight: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Σ_j w_j · max(0, t − a_j) for each t, from sorted a (O((n + T) log n))."""
    order = np.argsort(at, kind="stable")
    a, w = at[order].astype(np.float64), weight[order].astype(np.float64)
    cw, cwa = np.concatenate([[0.0], np.cumsum(w)]), np.concatenate([[0.0], np.cumsum(w * a)])
    n = np.searchsorted(a, times, side="right")
    return times * cw[n] - cwa[n]


def replay(recorded: Recorded, entitled_share: np.ndarray, half_life: float = DEFAULT_HALF_LIFE,
           rate: np.ndarray | None = None) -> pd.DataFrame:
    """Usage over time, one row per (step, organization): time, cpu_seconds, usage (CPU-seconds, or in the unit
    of `rate`: billing-seconds), usage_share (cumulative), decayed_usage, decayed_share U, fairshare_factor
    F = 2^(−U/S) (module docstring), all from `usage`."""
    span = max(recorded.t_end - recorded.t_begin, 1)
    step = max(span / N_STEPS, MIN_STEP)
    times = np.append(np.arange(recorded.t_begin, recorded.t_end, step), recorded.t_end).astype(np.float64)
    cpu = cpu_time_at(recorded, times)
    used = cpu if rate is None else cpu_time_at(recorded, times, rate)
    decay = np.exp2(-np.diff(times, prepend=times[0]) / half_life)
    increments = np.diff(used, axis=0, prepend=np.zeros((1, used.shape[1])))
    decayed = np.zeros_like(used)
    level = np.zeros(used.shape[1])
    for i in range(times.size):
        level = level * decay[i] + increments[i]
        decayed[i] = level
    with np.errstate(invalid="ignore", divide="ignore"):
        share = used / used.sum(axis=1, keepdims=True)
        decayed_share = decayed / decayed.sum(axis=1, keepdims=True)
        factor = np.exp2(-np.nan_to_num(decayed_share) / entitled_share[None, :])
    k = recorded.n_orgs
    return pd.DataFrame({
        "time": np.repeat(times, k), "org": np.tile(np.arange(k), times.size),
        "cpu_seconds": cpu.ravel(), "usage": used.ravel(), "usage_share": share.ravel(),
        "decayed_usage": decayed.ravel(),
        "decayed_share": decayed_share.ravel(), "fairshare_factor": factor.ravel(),
    })
